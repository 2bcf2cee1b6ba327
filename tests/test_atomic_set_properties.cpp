// Property tests of the atomic-set checker (Hammer et al., ICSE 2008):
//  - on seeded random small traces with random atomic sets and units of work, the
//    checker (Fig. 5's summary tuples and garbage collection) reports exactly the
//    patterns Definition 1 finds by brute force, every trace it flags is not
//    serializable per its projection oracle (2.2), and the traces the oracle flags but
//    no pattern matches are counted, classified and the first of each kind minimised;
//  - on every explored execution of a handful of models of the library, the same
//    soundness, with the declarations the explorer passes checked against a resolution
//    of the same declarations by name.
// The patterns are not complete (tests/test_atomic_set.cpp, PatternsMissCycles, keeps
// the minimised counterexamples), so "checker == oracle" cannot hold; what must hold is
// "checker == Definition 1" and "checker => oracle".
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <string>

#include <fmt/core.h>

#include "checkers/atomic_set.hpp"
#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"
#include "tests/support/atomic_set_brute.hpp"
#include "tests/support/trace_builder.hpp"
#include "trace/random_trace.hpp"

namespace atomcheck {
namespace {

using atomcheck::testing::brute_patterns;
using atomcheck::testing::well_formed;

bool sanitized() { return std::getenv("ATOMCHECK_SANITIZED") != nullptr; }

std::uint64_t trace_count() {
  if (const char* env = std::getenv("ATOMCHECK_PROPERTY_TRACES")) return std::strtoull(env, nullptr, 10);
  return sanitized() ? 12000 : 30000;
}

Verdict run(Checker& c, const std::vector<Event>& ev) {
  c.reset();
  for (const Event& e : ev) c.on_event(e);
  return c.verdict();
}

std::string show(const std::vector<Event>& ev) {
  std::string s;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    s += fmt::format("  {}: T{} {}", i, e.thread, op_name(e.op));
    if (e.target != kNoId) s += fmt::format("({})", e.target);
    s += "\n";
  }
  return s;
}

// Random declarations: each variable in one of `sets` sets or undeclared, each of three
// labels a unit of work on a random subset of them (or declared nothing).
AtomicSets random_sets(PortableRng& rng, std::uint32_t vars) {
  AtomicSets s;
  const auto sets = static_cast<std::uint32_t>(rng.between(0, 3));
  for (std::uint32_t i = 0; i < sets; ++i) s.names.push_back(fmt::format("S{}", i));
  for (std::uint32_t v = 0; v < vars; ++v)
    s.var_set.push_back(sets == 0 || rng.chance(200) ? kNoId : static_cast<std::uint32_t>(rng.below(sets)));
  for (int l = 0; l < 3; ++l) {
    if (rng.chance(300)) {
      s.label_units.push_back(AtomicSets::kEverySet);
      continue;
    }
    std::uint64_t mask = 0;
    for (std::uint32_t i = 0; i < sets; ++i)
      if (rng.chance(600)) mask |= std::uint64_t{1} << i;
    if (rng.chance(600)) mask |= std::uint64_t{1} << AtomicSets::kImplicitSet;
    s.label_units.push_back(mask);
  }
  return s;
}

// Gives every begin a random label of three (ends keep kNoId: only begins are read).
void label_blocks(std::vector<Event>& ev, PortableRng& rng) {
  for (Event& e : ev)
    if (e.op == Op::begin) e.target = static_cast<LabelId>(rng.below(3));
}

// Does the projection have a cycle of two units (edges both ways between two units of
// different threads)? Only then can some pattern of two units describe it.
bool two_unit_cycle(const std::vector<Event>& ev, const AtomicSets& sets) {
  auto acc = atomcheck::testing::brute_accesses(ev, sets);
  std::set<std::tuple<std::uint32_t, EventIndex, EventIndex>> edges;
  for (std::size_t i = 0; i < acc.size(); ++i)
    for (std::size_t j = i + 1; j < acc.size(); ++j) {
      const auto &a = acc[i], &b = acc[j];
      if (a.set != b.set || a.thread == b.thread || a.var != b.var || !(a.writes || b.writes)) continue;
      edges.insert({a.set, a.unit, b.unit});
      if (edges.count({a.set, b.unit, a.unit})) return true;
    }
  return false;
}

// Smaller well-formed traces that keep "the oracle flags, the checker does not", and
// whether a two-unit cycle exists.
std::vector<Event> minimise_miss(std::vector<Event> ev, const AtomicSets& sets) {
  AtomicSetChecker c(CheckerOptions{false, sets});
  AtomicSetOracle o(CheckerOptions{false, sets});
  const bool two = two_unit_cycle(ev, sets);
  auto misses = [&](const std::vector<Event>& x) {
    return well_formed(x) && !run(o, x).serializable && run(c, x).serializable &&
           two_unit_cycle(x, sets) == two;
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t i = 0; i < ev.size() && !progress; ++i)
      for (std::size_t j = i; j < ev.size() && !progress; ++j) {
        std::vector<Event> smaller;
        for (std::size_t k = 0; k < ev.size(); ++k)
          if (k != i && k != j) smaller.push_back(ev[k]);
        if (misses(smaller)) {
          ev = std::move(smaller);
          progress = true;
        }
      }
  }
  return ev;
}

TEST(AtomicSetProperties, CheckerIsDefinition1AndSoundOnRandomTraces) {
  const std::uint64_t n = trace_count();
  std::uint64_t not_serializable = 0, flagged = 0, missed_two = 0, missed_longer = 0, failures = 0;
  std::map<int, std::uint64_t> per_pattern;
  for (std::uint64_t seed = 1; seed <= n; ++seed) {
    RandomTraceParams p = random_small_params(seed, seed % 8 == 0 ? 40 : 20);
    Trace t = random_trace(p, seed);
    PortableRng rng(seed * 7919 + 1);
    label_blocks(t.events, rng);
    AtomicSets sets = seed % 5 == 0 ? AtomicSets{} : random_sets(rng, p.vars);
    AtomicSetChecker c(CheckerOptions{false, sets});
    AtomicSetChecker call(CheckerOptions{true, sets});
    AtomicSetOracle o(CheckerOptions{false, sets});
    Verdict vc = run(c, t.events);
    run(call, t.events);
    Verdict vo = run(o, t.events);
    std::set<int> brute = brute_patterns(t.events, sets);
    std::set<int> seen;
    for (const PatternMatch& m : call.matches()) seen.insert(m.pattern);
    for (int x : seen) ++per_pattern[x];
    not_serializable += !vo.serializable;
    flagged += !vc.serializable;
    std::string why;
    if (vc.serializable != brute.empty()) why = "checker and Definition 1 disagree on the verdict";
    else if (seen != brute) why = "checker --all and Definition 1 find different patterns";
    else if (!vc.serializable && vo.serializable) why = "checker flags a trace whose projections are serializable";
    if (!why.empty()) {
      if (failures++ < 3)
        ADD_FAILURE() << "seed " << seed << ": " << why << " (checker " << seen.size() << " patterns, brute "
                      << brute.size() << ")\n" << show(t.events);
      continue;
    }
    if (vc.serializable && !vo.serializable) {
      const bool two = two_unit_cycle(t.events, sets);
      std::uint64_t& count = two ? missed_two : missed_longer;
      if (count++ == 0)
        std::printf("seed %llu: projection not serializable, no pattern of Fig. 2 (%s); minimised:\n%s",
                    static_cast<unsigned long long>(seed), two ? "two-unit cycle" : "only longer cycles",
                    show(minimise_miss(t.events, sets)).c_str());
    }
  }
  std::string patterns;
  for (auto [p, k] : per_pattern) patterns += fmt::format(" {}:{}", p, k);
  std::printf(
      "checked %llu random traces: %llu not atomic-set serializable, %llu flagged by atomic-set "
      "(= Definition 1 on all), missed %llu with a two-unit cycle and %llu with longer cycles only; "
      "traces per pattern:%s\n",
      static_cast<unsigned long long>(n), static_cast<unsigned long long>(not_serializable),
      static_cast<unsigned long long>(flagged), static_cast<unsigned long long>(missed_two),
      static_cast<unsigned long long>(missed_longer), patterns.c_str());
  EXPECT_EQ(failures, 0u);
  EXPECT_GT(flagged, 0u);
  EXPECT_EQ(per_pattern.size(), static_cast<std::size_t>(kPatternCount)) << "some pattern never occurred";
}

// Every explored execution of some models: the checker never flags what the oracle
// accepts, and the explorer hands it the program's declarations (same verdict as a
// checker given the declarations resolved by name from the trace).
TEST(AtomicSetProperties, ModelLibraryExecutions) {
  struct Model {
    const char* name;
    bool declared;  // the Account/Global declarations
  };
  const Model models[] = {
      {"hammer-account-global", true}, {"hammer-account-unlocked", true},
      {"hammer-account-global-default", false}, {"lost-update", false},
      {"locked-counter", false}, {"bank-check-then-lock", false},
      {"bank-split-locks", false}, {"bank-locked", false},
      {"map-check-then-act", false}, {"map-check-then-act-locked", false},
  };
  AtomicSetNames hammer;
  hammer.sets = {{"S1", {"checking", "savings"}}, {"S2", {"opCounter"}}};
  hammer.units = {{"transfer", {"S1"}}, {"inc", {"S2"}}};
  std::uint64_t executions = 0, unsound = 0, missed = 0, mismatched = 0;
  for (const Model& m : models) {
    const ProgramInfo* p = find_program(m.name);
    ASSERT_NE(p, nullptr) << m.name;
    for (StrategyKind strategy : {StrategyKind::dpor, StrategyKind::dfs}) {
      ExploreOptions o;
      o.strategy = strategy;
      o.max_executions = sanitized() ? 150 : 600;
      o.checkers = {"atomic-set", "atomic-set-oracle"};
      explore(p->body, o, [&](const ExecutionView& v) {
        if (!v.verdicts) return;
        ++executions;
        const Verdict& vc = (*v.verdicts)[0];
        const Verdict& vo = (*v.verdicts)[1];
        AtomicSets sets;
        std::string error;
        if (m.declared) {
          EXPECT_TRUE(resolve_atomic_sets(hammer, v.trace->names, sets, error)) << error;
        }
        AtomicSetChecker again(CheckerOptions{false, sets});
        if (run(again, v.trace->events).serializable != vc.serializable && mismatched++ == 0)
          ADD_FAILURE() << m.name << ": the explorer's declarations differ from the program's, schedule "
                        << v.schedule;
        if (!vc.serializable && vo.serializable && unsound++ == 0)
          ADD_FAILURE() << m.name << ": atomic-set flags a serializable execution, schedule " << v.schedule;
        if (vc.serializable && !vo.serializable && missed++ == 0)
          std::printf("%s: the oracle flags an execution no pattern matches (schedule %s); minimised:\n%s",
                      m.name, std::string(v.schedule).c_str(),
                      show(minimise_miss(v.trace->events, sets)).c_str());
      });
    }
  }
  std::printf("checked %llu explored executions of %zu models: %llu missed by the patterns\n",
              static_cast<unsigned long long>(executions), std::size(models),
              static_cast<unsigned long long>(missed));
  EXPECT_GT(executions, 100u);
  EXPECT_EQ(unsound, 0u);
  EXPECT_EQ(mismatched, 0u);
}

}  // namespace
}  // namespace atomcheck
