// Property tests: on >= 100,000 seeded random well-formed traces every fast
// serializability checker agrees with the brute-force oracle (checkers/oracle_conflict),
// never detects before the oracle's shortest non-serializable prefix, and every witness
// edge it names is a real conflict between the transactions it names. Blame checkers
// also agree with the oracle's Theorem-2 blame. A disagreement is minimised (events
// removed while the trace stays well formed and the disagreement stays) and printed.
//
// The table below is the list of checkers under test. Engineers adding a checker to the
// registry add ONE row here (B2: RegionTrack rows, B3: Velodrome row); the test
// `EveryRegisteredCheckerIsCovered` fails until they do.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

#include <fmt/format.h>

#include "checkers/oracle_conflict.hpp"
#include "checkers/registry.hpp"
#include "trace/random_trace.hpp"
#include "trace/transactions.hpp"
#include "tests/support/trace_builder.hpp"

namespace atomcheck {
namespace {

struct Row {
  const char* checker;
  bool serializability;  // compare the serializable bit with the oracle
  bool online;           // detected_at must not precede the oracle's shortest prefix
  bool blame;            // compare the set of blamed transactions with the oracle
  // A documented disagreement of the paper's algorithm: tolerated (and counted, and
  // required to occur) only on traces that join a thread which performed no event.
  bool known_empty_join = false;
};

// checkers under test: one row each.
const Row kRows[] = {
    // Alg. 1 as written: false alarms when a thread with no events is joined inside a
    // transaction (tests/test_aerodrome.cpp, EmptyForkedThread); the -fixed rows must
    // have none.
    {"aerodrome", true, true, false, true},
    {"aerodrome-opt", true, true, false, true},
    {"aerodrome-fixed", true, true, false},
    {"aerodrome-opt-fixed", true, true, false},
    // B3's and B2's checkers (their own property files go deeper; these rows keep every
    // registered checker under the same judge).
    {"velodrome", true, false, false},
    // "regiontrack" is Alg. 3 as printed, which misses some non-serializable traces (B2
    // documents it in tests/test_regiontrack_properties.cpp): its blame is compared here,
    // its serializability only in the corrected row.
    {"regiontrack", false, false, true},
    {"regiontrack-fixed", true, false, true},
    {"regiontrack-blame", false, false, true},
};

// Names of checkers that need no row (the oracle itself, and checkers of other
// questions: view or TSO serializability, linearizability).
const std::set<std::string> kNotCompared = {"oracle", "view-oracle", "ws-reduction-4.3", "ws-reduction-4.4", "ws-block", "atomic-set", "atomic-set-oracle",
                                            "tso-exec", "tso-robust", "tso-monitor", "trace-tso-brute", "trace-tso-z3", "trace-tso-fpt", "trace-tso",
                                            "trace-tso-search", "linearizability", "linearizability-oracle"};

// ATOMCHECK_PROPERTY_TRACES overrides the count for longer local hunts.
std::uint64_t trace_count() {
  if (const char* env = std::getenv("ATOMCHECK_PROPERTY_TRACES")) return std::strtoull(env, nullptr, 10);
  return 120000;
}

// Does the trace join a thread that performed no event before the join?
bool joins_empty_thread(const std::vector<Event>& ev) {
  std::set<ThreadId> acted;
  for (const Event& e : ev) {
    if (e.op == Op::join && !acted.count(e.target)) return true;
    acted.insert(e.thread);
  }
  return false;
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
    s += fmt::format("{}: T{} {}", i, e.thread, op_name(e.op));
    if (e.target != kNoId) s += fmt::format("({})", e.target);
    s += "\n";
  }
  return s;
}

using atomcheck::testing::well_formed;

// What is wrong with checker `c`'s verdict on `ev`, or "" when it agrees.
std::string disagreement(const Row& row, Checker& c, ConflictOracle& oracle,
                         const std::vector<Event>& ev) {
  Verdict o = run(oracle, ev);
  Verdict v = run(c, ev);
  if (row.serializability && v.serializable != o.serializable)
    return fmt::format("{} says {}serializable, the oracle disagrees", row.checker,
                       v.serializable ? "" : "not ");
  if (row.online && !v.serializable && v.detected_at < o.detected_at)
    return fmt::format("{} detected at event {}, before the prefix is non-serializable (oracle: {})",
                       row.checker, v.detected_at, o.detected_at);
  if (!v.cycle.empty()) {
    Transactions tx = assign_transactions(std::span<const Event>(ev));
    for (const CycleEdge& e : v.cycle) {
      if (e.from_event == kNoEvent || e.to_event == kNoEvent) continue;
      if (e.from_event >= e.to_event || e.to_event >= ev.size())
        return fmt::format("{}: witness edge out of order", row.checker);
      if (!sc_conflict(ev[e.from_event], ev[e.to_event]))
        return fmt::format("{}: witness edge events do not conflict", row.checker);
      TxnId a = tx.txn_of[e.from_event], b = tx.txn_of[e.to_event];
      if (a == b || tx.txns[a].first != e.from.first || tx.txns[b].first != e.to.first)
        return fmt::format("{}: witness edge names the wrong transactions", row.checker);
    }
  }
  if (row.blame) {
    std::set<EventIndex> ob, vb;
    for (const Blame& b : o.blamed) ob.insert(b.txn.first);
    for (const Blame& b : v.blamed) vb.insert(b.txn.first);
    if (ob != vb) return fmt::format("{} blames other transactions than the oracle", row.checker);
  }
  return "";
}

// Removes one event, or two (a begin/end or acquire/release pair), at a time while the
// trace stays well formed and still disagrees.
std::vector<Event> minimise(const Row& row, Checker& c, ConflictOracle& oracle,
                            std::vector<Event> ev) {
  auto try_remove = [&](std::size_t i, std::size_t j) {
    std::vector<Event> smaller;
    for (std::size_t k = 0; k < ev.size(); ++k)
      if (k != i && k != j) smaller.push_back(ev[k]);
    if (well_formed(smaller) && !disagreement(row, c, oracle, smaller).empty()) {
      ev = std::move(smaller);
      return true;
    }
    return false;
  };
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::size_t i = 0; i < ev.size() && !progress; ++i) progress = try_remove(i, i);
    for (std::size_t i = 0; i < ev.size() && !progress; ++i)
      for (std::size_t j = i + 1; j < ev.size() && !progress; ++j) progress = try_remove(i, j);
  }
  return ev;
}

TEST(ConflictProperties, EveryRegisteredCheckerIsCovered) {
  for (const CheckerInfo& info : checker_catalog()) {
    if (kNotCompared.count(info.name)) continue;
    if (!info.serializability && !info.blame) continue;
    bool found = false;
    for (const Row& r : kRows) found |= info.name == r.checker;
    EXPECT_TRUE(found) << info.name << " is registered but has no row in kRows";
  }
}

TEST(ConflictProperties, CheckersAgreeWithOracleOnRandomTraces) {
  std::vector<std::unique_ptr<Checker>> checkers;
  std::vector<std::unique_ptr<Checker>> checkers_all;  // same with CheckerOptions::all
  for (const Row& r : kRows) {
    checkers.push_back(make_checker(r.checker));
    CheckerOptions all;
    all.all = true;
    checkers_all.push_back(make_checker(r.checker, all));
    ASSERT_NE(checkers.back(), nullptr) << r.checker;
  }
  ConflictOracle oracle;
  std::uint64_t checked = 0, violations = 0;
  std::vector<std::uint64_t> failures(std::size(kRows), 0), known(std::size(kRows), 0);
  const std::uint64_t kTraces = trace_count();
  for (std::uint64_t seed = 1; seed <= kTraces; ++seed) {
    // Mostly short traces (where the interesting corner cases are dense), some longer.
    std::uint32_t max_events = seed % 10 == 0 ? 60 : 24;
    RandomTraceParams p = random_small_params(seed, max_events);
    Trace t = random_trace(p, seed);
    Verdict o = run(oracle, t.events);
    violations += !o.serializable;
    for (std::size_t k = 0; k < std::size(kRows); ++k) {
      std::string why = disagreement(kRows[k], *checkers[k], oracle, t.events);
      if (why.empty() && kRows[k].serializability) {
        Verdict va = run(*checkers_all[k], t.events);
        if (va.serializable != o.serializable) why = fmt::format("{} with --all disagrees", kRows[k].checker);
      }
      if (!why.empty() && kRows[k].known_empty_join && joins_empty_thread(t.events)) {
        ++known[k];
        continue;
      }
      if (!why.empty() && failures[k]++ < 2) {
        std::vector<Event> small = minimise(kRows[k], *checkers[k], oracle, t.events);
        ADD_FAILURE() << "seed " << seed << ": " << why << "\nminimised trace:\n"
                      << show(small) << "now: " << disagreement(kRows[k], *checkers[k], oracle, small);
      }
    }
    ++checked;
  }
  std::printf("conflict properties: %llu random traces checked against the oracle (%llu not serializable), %zu checkers\n",
              static_cast<unsigned long long>(checked), static_cast<unsigned long long>(violations),
              std::size(kRows));
  for (std::size_t k = 0; k < std::size(kRows); ++k) {
    EXPECT_EQ(failures[k], 0u) << kRows[k].checker << " disagrees with the oracle";
    if (kRows[k].known_empty_join) {
      std::printf("  %s: %llu known disagreements (join of a thread with no events)\n",
                  kRows[k].checker, static_cast<unsigned long long>(known[k]));
      EXPECT_GT(known[k], 0u) << "the documented disagreement no longer shows: update the row";
    }
  }
  EXPECT_GT(violations, checked / 10);
  EXPECT_LT(violations, checked - checked / 10);
}

}  // namespace
}  // namespace atomcheck
