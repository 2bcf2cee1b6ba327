// The Z3 decider of trace TSO-serializability (checkers/tso_trace_z3) as an independent
// judge: agreement with the brute force over Execs(tau) on random small traces
// (fences, RMWs, buffered reads, multi-event transactions), witnesses that are
// executions of the trace with a conflict cycle, and agreement with the §6.2 decider on
// longer fenced traces, where the encoding splits into many segments.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "checkers/tso_conflict.hpp"
#include "checkers/tso_random.hpp"
#include "checkers/tso_trace.hpp"
#include "checkers/tso_trace_z3.hpp"
#include "trace/transactions.hpp"

namespace atomcheck {
namespace {

bool sanitized() { return std::getenv("ATOMCHECK_SANITIZED") != nullptr; }

// How many random traces the brute force judges Z3 on: 3,000 here (about a minute, the
// brute force taking most of it); tests/long_tso_z3.cpp runs this file with 10,200, so
// that at least 10,000 are decided. tests/test_tso_properties.cpp (DecidersAgree...)
// also runs Z3 against the brute force on 10,000 smaller traces in the default suite.
#ifndef ATOMCHECK_Z3_BRUTE_TRACES
#define ATOMCHECK_Z3_BRUTE_TRACES 3000
#endif
constexpr std::uint64_t kBruteTraces = ATOMCHECK_Z3_BRUTE_TRACES;

std::string show(const std::vector<Event>& ev) {
  std::string s;
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const Event& e = ev[k];
    s += fmt::format("{}:T{}:{}", k, e.thread, op_name(e.op));
    if (is_access(e.op)) s += fmt::format("(x{})", e.target);
    s += " ";
  }
  return s;
}

// The witness is an execution of tau: every event of tau once in tau's order, each write
// followed later by its commit, TSO's structural rules kept; and its conflict graph has
// a cycle. Every cycle edge joins the transactions it names.
void check_witness(const std::vector<Event>& tau, const tso::TraceVerdict& v, std::uint64_t seed) {
  ASSERT_FALSE(v.witness.empty()) << "seed " << seed << ": no witness for " << show(tau);
  std::vector<int> seen(tau.size(), 0);
  EventIndex last = 0;
  bool first = true;
  for (EventIndex k : v.witness) {
    ASSERT_LT(k, tau.size());
    if (seen[k]++ == 0) {
      ASSERT_TRUE(first || k > last) << "seed " << seed << ": witness reorders tau";
      last = k;
      first = false;
    }
  }
  for (std::size_t k = 0; k < tau.size(); ++k) ASSERT_EQ(seen[k], tau[k].op == Op::write ? 2 : 1) << "seed " << seed;
  std::vector<Event> eta = tso::execution_of(tau, v.witness);
  ASSERT_FALSE(tso::tso_semantics_problem(eta, false).has_value()) << "seed " << seed;
  ASSERT_FALSE(tso::check_execution(eta).serializable) << "seed " << seed;
  ASSERT_FALSE(v.cycle.empty()) << "seed " << seed;
  Transactions tx = assign_transactions(std::span<const Event>(tau));
  for (std::size_t k = 0; k < v.cycle.size(); ++k) {
    const CycleEdge& e = v.cycle[k];
    ASSERT_EQ(e.to, v.cycle[(k + 1) % v.cycle.size()].from) << "seed " << seed << ": not a cycle";
    ASSERT_EQ(tx.txns[tx.txn_of[e.from_event]].first, e.from.first) << "seed " << seed;
    ASSERT_EQ(tx.txns[tx.txn_of[e.to_event]].first, e.to.first) << "seed " << seed;
  }
}

// Parameters drawn from the seed, wider than random_small_tso_params: up to 4 threads and
// 9 operations, fences and RMWs from none to frequent, blocks from none to most.
tso::RandomTsoParams params(std::uint64_t seed) {
  tso::RandomTsoParams p = tso::random_small_tso_params(seed, 9);
  if (seed % 5 == 0) {
    p.threads = 4;
    p.ops_per_thread = 2;
  }
  if (seed % 7 == 0) p.rmw_permille = 250;
  if (seed % 11 == 0) p.fence_permille = 400;
  return p;
}

TEST(TraceTsoZ3, AgreesWithBruteForce) {
  const std::uint64_t n = sanitized() ? 500 : kBruteTraces;
  std::uint64_t violations = 0, buffered = 0, blocks = 0, skipped = 0;
  tso::Z3Decider z3;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    Trace eta = tso::random_tso_execution(params(seed + 7000000), seed + 7000000);
    std::vector<Event> tau = drop_commits(eta).events;
    tso::TraceVerdict b = tso::decide_brute(tau, 200000);
    if (!b.undecided.empty()) {
      ++skipped;  // too many placements for the brute force (a few 4-thread traces)
      continue;
    }
    tso::TraceVerdict z = z3.decide(tau);
    ASSERT_TRUE(z.undecided.empty()) << "seed " << seed << ": " << z.undecided;
    ASSERT_EQ(b.serializable, z.serializable) << "seed " << seed << ": brute vs z3 on " << show(tau);
    if (!z.serializable) {
      ++violations;
      check_witness(tau, z, seed);
    } else {
      ASSERT_TRUE(z.witness.empty() && z.cycle.empty()) << "seed " << seed;
    }
    tso::ExecFacts f = tso::analyse(tau);
    for (EventIndex s : f.source) buffered += s != kNoEvent;
    for (const Event& e : tau) blocks += e.op == Op::begin;
  }
  EXPECT_LT(skipped, n / 100 + 1);
  if (n >= 10200) {
    EXPECT_GE(n - skipped, 10000u);
  }
  EXPECT_GT(violations, n / 20);
  EXPECT_LT(violations, n - n / 20);
  EXPECT_GT(buffered, n / 4);
  EXPECT_GT(blocks, n);
  std::printf("checked %llu random traces: Z3 agrees with the brute force on the %llu the brute force decides (%llu not TSO-serializable, each with a witness)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(n - skipped),
              static_cast<unsigned long long>(violations));
}

// Longer traces with frequent fences: many segments and components per trace, each its
// own solver call, against the §6.2 decider.
TEST(TraceTsoZ3, AgreesWithFptOnLongerFencedTraces) {
  const std::uint64_t n = sanitized() ? 20 : 120;
  std::uint64_t violations = 0;
  tso::Z3Decider z3;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    tso::RandomTsoParams p;
    p.threads = 3 + static_cast<std::uint32_t>(seed % 2);
    p.vars = 2 + static_cast<std::uint32_t>(seed % 3);
    p.ops_per_thread = 12 + static_cast<std::uint32_t>(seed % 10);
    p.fence_permille = 250;
    p.rmw_permille = 60;
    p.block_permille = seed % 3 == 0 ? 0 : 300;
    Trace eta = tso::random_tso_execution(p, seed + 9000000);
    std::vector<Event> tau = drop_commits(eta).events;
    tso::TraceVerdict f = tso::decide_fpt(tau, Deadline::after(20, nullptr));
    if (!f.undecided.empty()) continue;
    tso::TraceVerdict z = z3.decide(tau);
    ASSERT_TRUE(z.undecided.empty()) << "seed " << seed;
    ASSERT_EQ(f.serializable, z.serializable) << "seed " << seed << ": fpt vs z3 on " << show(tau);
    if (!z.serializable) {
      ++violations;
      check_witness(tau, z, seed);
    }
  }
  EXPECT_GT(violations, 0u);
  std::printf("checked %llu fenced traces of 36-84 operations: Z3 agrees with the §6.2 decider (%llu not TSO-serializable)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(violations));
}

}  // namespace
}  // namespace atomcheck
