// Velodrome against the exact oracle on 100,000 seeded random traces. Asserted, because
// the papers guarantee it: the serializability verdict and the first non-serializable
// prefix equal the oracle's (the transaction graph is exact for reachability), every
// witness cycle is made of real conflicts between the transactions it names, and every
// blame is one the oracle makes too (RegionTrack §3: Velodrome blames only increasing
// cycles "to avoid reporting false positives"). Counted and printed, because the papers
// say Velodrome misses them: the oracle's blames that Velodrome does not make, each
// classified by whether a graph that kept every conflict's label would have made it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "checkers/oracle_conflict.hpp"
#include "checkers/velodrome.hpp"
#include "trace/random_trace.hpp"
#include "trace/transactions.hpp"

namespace atomcheck {
namespace {

constexpr std::uint64_t kTraces = 100000;

Verdict run(Checker& c, const Trace& t) {
  c.reset();
  for (const Event& e : t.events) c.on_event(e);
  return c.verdict();
}

std::set<std::pair<ThreadId, EventIndex>> blamed_set(const Verdict& v) {
  std::set<std::pair<ThreadId, EventIndex>> s;
  for (const Blame& b : v.blamed) s.insert({b.txn.thread, b.txn.first});
  return s;
}

// Empty when the cycle is a real one: consecutive, every edge a conflict in trace order
// between events of the transactions it names, no transaction twice.
std::string check_cycle(const Trace& t, const Transactions& tx, const std::vector<CycleEdge>& c) {
  if (c.size() < 2) return "cycle shorter than two edges";
  std::set<std::pair<ThreadId, EventIndex>> seen;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const CycleEdge& e = c[i];
    if (!(e.to == c[(i + 1) % c.size()].from)) return "edges do not chain at " + std::to_string(i);
    if (e.from_event >= e.to_event || e.to_event >= t.size()) return "edge out of order";
    if (!sc_conflict(t.events[e.from_event], t.events[e.to_event])) return "edge is no conflict";
    const TxnInfo& f = tx.txns[tx.txn_of[e.from_event]];
    const TxnInfo& g = tx.txns[tx.txn_of[e.to_event]];
    if (f.first != e.from.first || f.thread != e.from.thread) return "from event not in from txn";
    if (g.first != e.to.first || g.thread != e.to.thread) return "to event not in to txn";
    if (!seen.insert({e.from.thread, e.from.first}).second) return "transaction twice";
  }
  return {};
}

TEST(VelodromeProperties, AgreesWithOracleOnRandomTraces) {
  ConflictOracle oracle;
  CheckerOptions all;
  all.all = true;
  VelodromeChecker velo(all);
  VelodromeVariant labelled;
  labelled.every_conflict_label = true;
  VelodromeChecker every(all, labelled);
  VelodromeVariant unmerged = labelled;
  unmerged.merge_unary = false;
  VelodromeChecker every_unmerged(all, unmerged);

  std::uint64_t non_serializable = 0, open_at_end = 0, oracle_blames = 0, velo_blames = 0;
  std::uint64_t nonser_no_oracle_blame = 0, nonser_no_velo_blame = 0, merged = 0,
                collected = 0;
  std::map<std::string, std::uint64_t> missed;  // class -> count of missed blames
  std::map<std::string, std::uint64_t> traces_with;  // class -> traces
  std::vector<std::uint64_t> unexplained_seeds;
  std::map<std::string, std::uint64_t> symptoms;  // traces where blame sets differ
  for (std::uint64_t seed = 1; seed <= kTraces; ++seed) {
    // Half the seeds: B1's small parameters; the other half: more threads, variables
    // and locks and longer traces, where non-serializable traces are common.
    RandomTraceParams p = random_small_params(seed, seed % 4 == 0 ? 36 : 20);
    if (seed % 2 == 1) {
      PortableRng r(seed * 31 + 7);
      p = random_small_params(seed, 48);
      p.threads = static_cast<std::uint32_t>(r.between(2, 6));
      p.vars = static_cast<std::uint32_t>(r.between(1, 5));
      p.locks = static_cast<std::uint32_t>(r.between(0, 3));
    }
    Trace t = random_trace(p, seed);
    Verdict o = run(oracle, t);
    Verdict v = run(velo, t);
    merged += velo.stats().unary_merged;
    collected += velo.stats().nodes_collected;
    ASSERT_EQ(v.serializable, o.serializable) << "seed " << seed;
    ASSERT_EQ(v.open_at_end, o.open_at_end) << "seed " << seed;
    open_at_end += v.open_at_end;
    if (!v.serializable) {
      ++non_serializable;
      ASSERT_EQ(v.detected_at, o.detected_at) << "seed " << seed;
      Transactions tx = assign_transactions(t);
      std::string bad = check_cycle(t, tx, v.cycle);
      ASSERT_TRUE(bad.empty()) << "seed " << seed << ": " << bad;
    }
    auto os = blamed_set(o), vs = blamed_set(v);
    oracle_blames += os.size();
    velo_blames += vs.size();
    if (!o.serializable && os.empty()) ++nonser_no_oracle_blame;
    if (!v.serializable && vs.empty()) ++nonser_no_velo_blame;
    for (const Blame& b : v.blamed) {
      ASSERT_TRUE(os.count({b.txn.thread, b.txn.first}))
          << "seed " << seed << ": Velodrome blames a serializable transaction";
      ASSERT_LT(b.interfering, b.at) << "seed " << seed;
      ASSERT_NE(t.events[b.interfering].thread, b.txn.thread) << "seed " << seed;
      ASSERT_EQ(t.events[b.at].thread, b.txn.thread) << "seed " << seed;
    }
    if (os == vs) continue;
    auto es = blamed_set(run(every, t));
    auto us = blamed_set(run(every_unmerged, t));
    std::set<std::string> classes;
    for (const auto& b : os) {
      if (vs.count(b)) continue;
      std::string c;
      if (es.count(b))
        c = "missed: the edge kept only its first events (one edge per pair)";
      else if (us.count(b))
        c = "missed: a unary event merged into a node reached non-increasingly";
      else {
        c = vs.empty() ? "missed, unexplained (Velodrome blames nobody)"
                       : "missed, unexplained (Velodrome blames others)";
        if (unexplained_seeds.size() < 10) unexplained_seeds.push_back(seed);
      }
      ++missed[c];
      classes.insert(c);
    }
    for (const std::string& c : classes) ++traces_with[c];
    ++symptoms[vs.empty() ? "oracle blames, Velodrome blames nobody"
                          : "oracle blames, Velodrome blames a strict subset"];
  }

  std::printf("velodrome vs oracle on %llu random traces\n",
              static_cast<unsigned long long>(kTraces));
  std::printf("  %-88s %8llu\n", "non-serializable traces (verdicts all equal)",
              static_cast<unsigned long long>(non_serializable));
  std::printf("  %-88s %8llu\n", "traces with a transaction open at the end",
              static_cast<unsigned long long>(open_at_end));
  std::printf("  %-88s %8llu\n", "non-serializable, oracle blames nobody (RegionTrack Fig. 1a kind)",
              static_cast<unsigned long long>(nonser_no_oracle_blame));
  std::printf("  %-88s %8llu\n", "non-serializable, Velodrome blames nobody",
              static_cast<unsigned long long>(nonser_no_velo_blame));
  std::printf("  %-88s %8llu\n", "blamed transactions: oracle",
              static_cast<unsigned long long>(oracle_blames));
  std::printf("  %-88s %8llu\n", "blamed transactions: Velodrome (all also blamed by oracle)",
              static_cast<unsigned long long>(velo_blames));
  std::printf("  %-88s %8llu\n", "unary events merged into their thread's last node",
              static_cast<unsigned long long>(merged));
  std::printf("  %-88s %8llu\n", "nodes garbage-collected",
              static_cast<unsigned long long>(collected));
  std::printf("  missed blames by class (transactions / traces):\n");
  for (const auto& [c, n] : missed)
    std::printf("    %-86s %8llu %8llu\n", c.c_str(), static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(traces_with[c]));
  std::printf("  traces whose blame sets differ, by symptom:\n");
  for (const auto& [c, n] : symptoms)
    std::printf("    %-86s %8llu\n", c.c_str(), static_cast<unsigned long long>(n));
  for (std::uint64_t s : unexplained_seeds)
    std::printf("  unexplained miss: seed %llu\n", static_cast<unsigned long long>(s));
  // Our claim, not the papers': with a label per conflict and no unary merging the graph
  // blames exactly what the oracle blames, so the two economies explain every miss.
  EXPECT_TRUE(unexplained_seeds.empty());
  EXPECT_GT(non_serializable, 0u);
  EXPECT_GT(velo_blames, 0u);
  EXPECT_LE(velo_blames, oracle_blames);
}

}  // namespace
}  // namespace atomcheck
