// Property tests of the TSO serializability layer over thousands of small random TSO
// executions (checkers/tso_random): Proposition 1 (⊚TSO-preserving permutations stay
// TSO executions, values included), Theorem 4 (valid orientations of EG_tau are exactly
// the write-contractions of Execs(tau)), Proposition 2, Theorem 2 and (for
// transaction-fenced executions) Theorem 3 per execution, and agreement of the three
// trace deciders (brute force, Z3, FPT) on at least 10,000 random traces. Sizes shrink
// under ATOMCHECK_SANITIZED=1. Each failure prints its seed.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include <fmt/format.h>

#include "checkers/oracle_conflict.hpp"
#include "checkers/tso_conflict.hpp"
#include "checkers/tso_random.hpp"
#include "checkers/tso_trace.hpp"
#include "checkers/tso_trace_fpt.hpp"
#include "checkers/tso_trace_z3.hpp"
#include "trace/random_trace.hpp"
#include "trace/validate.hpp"
#include "tests/support/trace_builder.hpp"
#include "tests/support/tso_naive.hpp"
#include "tests/support/tso_naive_execs.hpp"
#include "trace/transactions.hpp"

namespace atomcheck {
namespace {

bool sanitized() { return std::getenv("ATOMCHECK_SANITIZED") != nullptr; }
std::uint64_t scaled(std::uint64_t release, std::uint64_t asan) { return sanitized() ? asan : release; }

std::string show(const std::vector<Event>& ev) {
  std::string s;
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const Event& e = ev[k];
    s += fmt::format("{}:T{}:{}", k, e.thread, op_name(e.op));
    if (is_access(e.op)) s += fmt::format("(x{})", e.target);
    if (e.op == Op::commit) s += fmt::format("[{}]", e.issue);
    s += " ";
  }
  return s;
}

std::vector<Event> tau_of(const Trace& eta) { return drop_commits(eta).events; }

// An SC cycle among `events` (SC oracle relation), as a bool.
bool sc_serializable(const std::vector<Event>& events) {
  ConflictOracle o;
  for (const Event& e : events) o.on_event(e);
  return o.verdict().serializable;
}

TEST(TsoExecutionProperties, GeneratorMakesTsoExecutions) {
  const std::uint64_t n = scaled(3000, 500);
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    Trace eta = tso::random_tso_execution(tso::random_small_tso_params(seed, 10), seed);
    ASSERT_FALSE(validate(eta).has_value()) << "seed " << seed << ": " << *validate(eta);
    auto p = tso::tso_semantics_problem(eta.events, true);
    ASSERT_FALSE(p.has_value()) << "seed " << seed << ": " << *p;
    // The generator's `buffered` flag is what the positions say.
    tso::ExecFacts f = tso::analyse(eta.events);
    for (std::size_t k = 0; k < eta.size(); ++k) {
      if (eta.events[k].op == Op::read) {
        ASSERT_EQ(eta.events[k].buffered, tso::served_by_buffer(f, k)) << "seed " << seed << " event " << k;
      }
    }
  }
  std::printf("checked %llu random traces: generated TSO executions are TSO executions\n",
              static_cast<unsigned long long>(n));
}

TEST(TsoExecutionProperties, Proposition1PermutationsStayTsoExecutions) {
  const std::uint64_t n = scaled(2500, 400);
  std::uint64_t swaps = 0;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    Trace eta = tso::random_tso_execution(tso::random_small_tso_params(seed, 10), seed);
    PortableRng rng(seed * 7919 + 1);
    for (int walk = 0; walk < 4; ++walk) {
      std::vector<Event> cur = eta.events;
      for (int step = 0; step < 40 && cur.size() > 1; ++step) {
        std::size_t i = rng.below(cur.size() - 1);
        tso::ExecFacts f = tso::analyse(cur);
        if (tso::conflict(cur, f, i, i + 1)) continue;
        std::vector<Event> next = cur;
        std::swap(next[i], next[i + 1]);
        // Commits name their issue by index: follow the swap.
        for (Event& e : next) {
          if (e.op != Op::commit) continue;
          if (e.issue == i) e.issue = i + 1;
          else if (e.issue == i + 1) e.issue = i;
        }
        auto p = tso::tso_semantics_problem(next, true);
        ASSERT_FALSE(p.has_value()) << "seed " << seed << ": swapping " << i << " and " << i + 1
                                    << " of\n  " << show(cur) << "\ngives " << *p;
        cur = std::move(next);
        ++swaps;
      }
    }
  }
  std::printf("checked %llu random traces: %llu valid swaps kept TSO semantics (Proposition 1)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(swaps));
}

std::string show_orientation(const tso::TraceGraph& g, const std::vector<bool>& o) {
  std::string s;
  for (const tso::UEdge& e : g.undirected)
    s += o[e.var] ? fmt::format("{}->{}{} ", e.lo, e.hi, e.tied ? "(tied)" : "")
                  : fmt::format("{}->{}{} ", e.hi, e.lo, e.tied ? "(tied)" : "");
  return s;
}

// Every valid orientation of EG_tau, by enumerating the orientation variables.
std::set<std::vector<bool>> valid_orientations(const std::vector<Event>& tau, const tso::TraceGraph& g) {
  std::set<std::vector<bool>> out;
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << g.vars); ++bits) {
    std::vector<bool> o(g.vars);
    for (std::uint32_t k = 0; k < g.vars; ++k) o[k] = (bits >> k) & 1u;
    if (tso::valid_orientation(tau, g, o)) out.insert(o);
  }
  return out;
}

TEST(TraceTsoProperties, Theorem4OrientationsAreWriteContractions) {
  const std::uint64_t n = scaled(800, 100);
  std::uint64_t checked = 0, orientations = 0;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    Trace eta = tso::random_tso_execution(tso::random_small_tso_params(seed, 9), seed);
    std::vector<Event> tau = tau_of(eta);
    tso::TraceGraph g = tso::event_graph(tau);
    if (g.vars > 10) continue;
    std::set<std::vector<bool>> contractions;
    bool ok = true;
    std::string problem;
    bool complete = tso::for_each_execution(tau, 50000, [&](const std::vector<Event>& ex, const std::vector<EventIndex>& tidx) {
      auto o = tso::induced_orientation(tau, g, ex, tidx);
      if (!o || !tso::valid_orientation(tau, g, *o)) {
        ok = false;
        problem = "the orientation of " + show(ex) + " is not a valid orientation of EG_tau";
        return false;
      }
      // Theorem 5's content: the execution's conflict graph has a cycle iff its
      // orientation's does.
      if (tso::orientation_has_cycle(g, *o) == tso::check_execution(ex).serializable) {
        ok = false;
        problem = "the conflict graphs of " + show(ex) + " and of its orientation disagree";
        return false;
      }
      contractions.insert(*o);
      return true;
    });
    if (!complete) continue;
    ASSERT_TRUE(ok) << "seed " << seed << ": " << problem;
    std::set<std::vector<bool>> valid = valid_orientations(tau, g);
    for (const auto& o : valid) {
      ASSERT_TRUE(contractions.count(o)) << "seed " << seed << ": a valid orientation of EG_tau is no execution's; tau = " << show(tau)
                                         << "\norientation: " << show_orientation(g, o);
      // The converse construction realises it.
      std::vector<EventIndex> order = tso::realise(tau, g, o);
      ASSERT_FALSE(order.empty()) << "seed " << seed;
      std::vector<Event> ex = tso::execution_of(tau, order);
      ASSERT_FALSE(tso::tso_semantics_problem(ex, false).has_value()) << "seed " << seed;
      std::vector<EventIndex> tidx;
      for (EventIndex k : order) tidx.push_back(k);
      auto back = tso::induced_orientation(tau, g, ex, tidx);
      ASSERT_TRUE(back.has_value() && *back == o) << "seed " << seed << ": realise() missed; tau = " << show(tau);
    }
    ASSERT_EQ(contractions.size(), valid.size()) << "seed " << seed;
    ++checked;
    orientations += valid.size();
  }
  EXPECT_GT(checked, n / 2);
  std::printf("checked %llu random traces: %llu valid orientations, each exactly the orientation of an execution of the trace, conflict cycles alike (Theorem 4 as fixed)\n",
              static_cast<unsigned long long>(checked), static_cast<unsigned long long>(orientations));
}

TEST(TraceTsoProperties, DecidersAgreeAndProposition2Holds) {
  const std::uint64_t n = scaled(10000, 1000);
  std::uint64_t violations = 0, exec_violations = 0;
  tso::Z3Decider z3;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    Trace eta = tso::random_tso_execution(tso::random_small_tso_params(seed + 1000000, 7), seed + 1000000);
    std::vector<Event> tau = tau_of(eta);
    tso::TraceVerdict b = tso::decide_brute(tau, 100000);
    ASSERT_TRUE(b.undecided.empty()) << "seed " << seed;
    tso::TraceVerdict z = z3.decide(tau);
    tso::TraceVerdict f = tso::decide_fpt(tau);
    tso::TraceVerdict st = tso::decide_stream(tau);
    std::optional<bool> naive = naive::trace_tso_serializable(tau);
    ASSERT_TRUE(naive.has_value()) << "seed " << seed;
    ASSERT_TRUE(st.undecided.empty()) << "seed " << seed << ": " << st.undecided;
    ASSERT_EQ(*naive, b.serializable) << "seed " << seed << ": naive vs brute on " << show(tau);
    ASSERT_EQ(b.serializable, z.serializable) << "seed " << seed << ": brute vs z3 on " << show(tau);
    ASSERT_EQ(b.serializable, f.serializable) << "seed " << seed << ": brute vs search on " << show(tau);
    ASSERT_EQ(*naive, st.serializable) << "seed " << seed << ": naive vs one-pass on " << show(tau);
    bool exec_ok = tso::check_execution(eta.events).serializable;
    // Proposition 2: a non-serializable execution has a non-serializable trace.
    if (!exec_ok) {
      ASSERT_FALSE(b.serializable) << "seed " << seed;
    }
    exec_violations += !exec_ok;
    if (!b.serializable) {
      ++violations;
      for (const tso::TraceVerdict* v : {&b, &z, &f, &st}) {
        ASSERT_FALSE(v->cycle.empty()) << "seed " << seed;
        ASSERT_FALSE(v->witness.empty()) << "seed " << seed << ": no witness execution";
        std::vector<Event> ex = tso::execution_of(tau, v->witness);
        ASSERT_FALSE(tso::tso_semantics_problem(ex, false).has_value()) << "seed " << seed;
        ASSERT_FALSE(tso::check_execution(ex).serializable) << "seed " << seed;
        ASSERT_FALSE(naive::tso_serializable(ex)) << "seed " << seed;
        // Z3 places commits and the one-pass decider tracks placements, not edges of
        // EG_tau: their witness executions are their answers.
        if (v != &z && v != &st) {
          ASSERT_TRUE(tso::valid_orientation(tau, tso::event_graph(tau), v->orientation)) << "seed " << seed;
        }
      }
    }
  }
  EXPECT_GT(violations, n / 20);
  EXPECT_LT(violations, n);
  std::printf("checked %llu random traces: the naive judge, brute force, Z3, the simple-cycle search and the one-pass decider agree (%llu not TSO-serializable; %llu executions not TSO-serializable, each with a non-serializable trace)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(violations),
              static_cast<unsigned long long>(exec_violations));
}

TEST(TsoExecutionProperties, Theorems2And3PerExecution) {
  const std::uint64_t n = scaled(4000, 500);
  std::uint64_t robust_sc = 0, fenced = 0;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    tso::RandomTsoParams p = tso::random_small_tso_params(seed, 10);
    p.fenced = seed % 2 == 1;
    Trace eta = tso::random_tso_execution(p, seed);
    bool tso_ok = tso::check_execution(eta.events).serializable;
    bool robust = tso::check_robust(eta.events).serializable;
    bool sc_ok = false;
    if (robust) {
      std::vector<Event> sc;
      for (EventIndex k : tso::sc_equivalent(eta.events)) sc.push_back(eta.events[k]);
      sc_ok = sc_serializable(sc);
    }
    // Theorem 2: robust and SC-serializable implies TSO-serializable.
    if (robust && sc_ok) {
      ++robust_sc;
      ASSERT_TRUE(tso_ok) << "seed " << seed << ": " << show(eta.events);
    }
    // Theorem 3: for transaction-fenced executions, the converse too.
    if (tso::transaction_fenced(eta.events)) {
      ++fenced;
      ASSERT_EQ(tso_ok, robust && sc_ok) << "seed " << seed << ": " << show(eta.events);
    }
  }
  EXPECT_GT(fenced, n / 4);
  std::printf("checked %llu random traces: Theorem 2 on %llu robust SC-serializable executions, Theorem 3 on %llu transaction-fenced ones\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(robust_sc),
              static_cast<unsigned long long>(fenced));
}

// The transaction graph of tso::conflict against naive::tso_conflict_graph, a second
// ⊚TSO written from the paper with no shared code, on random TSO executions (blocks,
// fences, rmw; transaction-fenced ones too). At least 10,000 in the Release run.
TEST(TsoExecutionProperties, NaiveReferenceGivesTheSameTransactionGraph) {
  const std::uint64_t n = scaled(12000, 2000);
  std::uint64_t edges = 0, cyclic = 0;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    tso::RandomTsoParams p = tso::random_small_tso_params(seed + 900000, 12);
    p.fenced = seed % 5 == 4;
    Trace eta = tso::random_tso_execution(p, seed + 900000);
    const std::vector<Event>& ev = eta.events;
    tso::ExecFacts f = tso::analyse(ev);
    Transactions tx = assign_transactions(std::span<const Event>(ev));
    std::set<std::pair<naive::TxnName, naive::TxnName>> mine;
    for (std::size_t j = 0; j < ev.size(); ++j)
      for (std::size_t i = 0; i < j; ++i) {
        TxnId a = tx.txn_of[i], b = tx.txn_of[j];
        if (a != b && tso::conflict(ev, f, i, j))
          mine.insert({{tx.txns[a].thread, tx.txns[a].first}, {tx.txns[b].thread, tx.txns[b].first}});
      }
    auto ref = naive::tso_conflict_graph(ev);
    ASSERT_EQ(mine, ref) << "seed " << seed << ": " << show(ev);
    bool ser = tso::check_execution(ev).serializable;
    ASSERT_EQ(ser, naive::tso_serializable(ev)) << "seed " << seed << ": " << show(ev);
    edges += ref.size();
    cyclic += !ser;
  }
  std::printf("checked %llu random traces: the naive ⊚TSO gives the same transaction graph (%llu edges, %llu executions not TSO-serializable)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(edges),
              static_cast<unsigned long long>(cyclic));
}

}  // namespace
}  // namespace atomcheck
