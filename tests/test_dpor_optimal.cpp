// Optimal DPOR and the class counts. (1) rf+co class counts equal Nidhugg's published
// trace sets (src/TSO_test.cpp: Small_dekker 4, ROWE_1 3, Small_peterson 12, fib_simple
// 11) and the SC closed forms (SB 3; three threads writing x three times: 9!/(3!)^3).
// (2) Properties over random programs (loads, buffered and seq_cst stores, rmw, locks,
// try_lock, fences; 2-4 threads; and, in a second set, spin_until awaits) under
// SC and TSO: the class keys of optimal DPOR's
// executions are exactly those of every plain DFS execution (brute force), pairwise
// distinct, with no sleep-set-blocked execution; source-DPOR's complete non-blocked
// executions are pairwise inequivalent and cover the same keys; outcomes, failures and
// the oracle's verdict per class equal DFS's.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "tests/support/options.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"
#include "tests/support/random_program.hpp"

namespace atomcheck {

namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

ExploreResult counts(const Program& p, StrategyKind s, MemoryModelKind m) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = s;
  o.memory = m;
  o.count_classes = true;
  ExploreResult r = explore(p, o);
  EXPECT_TRUE(r.error.empty()) << r.error;
  return r;
}

void expect_rf_co(const char* name, const Program& p, MemoryModelKind m, std::uint64_t expected) {
  ExploreResult dfs = counts(p, StrategyKind::dfs, m);
  ExploreResult dpor = counts(p, StrategyKind::dpor, m);
  ExploreResult opt = counts(p, StrategyKind::optimal, m);
  EXPECT_EQ(dfs.rf_co_classes, expected) << name;
  EXPECT_EQ(dpor.rf_co_classes, expected) << name;
  EXPECT_EQ(opt.rf_co_classes, expected) << name;
  EXPECT_EQ(opt.executions, opt.classes) << name;
  EXPECT_EQ(opt.sleep_blocked, 0u) << name;
  EXPECT_EQ(opt.classes, dfs.classes) << name;
  std::printf("%-28s %s: dfs %llu  dpor %llu (%llu blocked)  optimal %llu  classes %llu  rf+co %llu\n",
              name, m == MemoryModelKind::tso ? "tso" : "sc ",
              static_cast<unsigned long long>(dfs.executions),
              static_cast<unsigned long long>(dpor.executions),
              static_cast<unsigned long long>(dpor.sleep_blocked),
              static_cast<unsigned long long>(opt.executions),
              static_cast<unsigned long long>(opt.classes),
              static_cast<unsigned long long>(opt.rf_co_classes));
}

TEST(OptimalDpor, NidhuggTsoTraceSets) {
  // Small_dekker: store x; load y || store y; load x.
  expect_rf_co("sb (Small_dekker)", [] {
    atomic<int> x(0, "x"), y(0, "y");
    thread t1([&] { x.store(1, kRelaxed); (void)y.load(kRelaxed); });
    thread t2([&] { y.store(1, kRelaxed); (void)x.load(kRelaxed); });
    t1.join();
    t2.join();
  }, MemoryModelKind::tso, 4);
  // ROWE_1: store x; load x || store x.
  expect_rf_co("w x; r x || w x (ROWE_1)", [] {
    atomic<int> x(0, "x");
    thread t1([&] { x.store(1, kRelaxed); (void)x.load(kRelaxed); });
    thread t2([&] { x.store(2, kRelaxed); });
    t1.join();
    t2.join();
  }, MemoryModelKind::tso, 3);
  // Small_peterson.
  expect_rf_co("peterson (Small_peterson)", [] {
    atomic<int> x(0, "x"), y(0, "y"), t(0, "t");
    thread t1([&] {
      x.store(1, kRelaxed);
      t.store(1, kRelaxed);
      (void)t.load(kRelaxed);
      (void)y.load(kRelaxed);
    });
    thread t2([&] {
      y.store(1, kRelaxed);
      t.store(0, kRelaxed);
      (void)t.load(kRelaxed);
      (void)x.load(kRelaxed);
    });
    t1.join();
    t2.join();
  }, MemoryModelKind::tso, 12);
  // fib_simple: the main thread reads i and j while p1 and p2 run.
  expect_rf_co("fib_simple", [] {
    atomic<int> i(1, "i"), j(1, "j");
    thread p1([&] {
      int a = i.load(kRelaxed), b = j.load(kRelaxed);
      i.store(a + b, kRelaxed);
    });
    thread p2([&] {
      int a = i.load(kRelaxed), b = j.load(kRelaxed);
      j.store(a + b, kRelaxed);
    });
    (void)i.load(kRelaxed);
    (void)j.load(kRelaxed);
    p1.join();
    p2.join();
  }, MemoryModelKind::tso, 11);
}

// The spin-await mutexes under TSO: one execution per rf+co class, none sleep-blocked, with
// the TSO execution checkers attached too (they declare rf+co). Two label bugs made
// tso-peterson run 32 for 30 classes and tso-dekker 19 for 18: a read moved into a
// reversing sequence kept the "memory read" label of the execution, though the flush
// that made it one was left behind; and a store was taken to be dependent with every
// later flush of its variable by its thread, not just the one that commits it.
TEST(OptimalDpor, SpinMutexesRunOncePerRfCoClassUnderTso) {
  for (const char* name : {"tso-peterson", "tso-dekker", "tso-peterson-fenced", "tso-dekker-fenced",
                           "lock-bakery-fenced", "lock-ttas", "spsc-ring"}) {
    const ProgramInfo* info = find_program(name);
    ASSERT_NE(info, nullptr) << name;
    for (bool checkers : {false, true}) {
      ExploreOptions o = testing_support::every_schedule();
      o.memory = MemoryModelKind::tso;
      o.count_classes = true;
      if (checkers) o.checkers = {"tso-exec", "tso-robust"};
      o.strategy = StrategyKind::dpor;
      ExploreResult source = explore(info->body, o);
      o.strategy = StrategyKind::optimal;
      ExploreResult opt = explore(info->body, o);
      ASSERT_TRUE(opt.exhausted() && source.exhausted()) << name;
      EXPECT_EQ(opt.equivalence, Equivalence::rf_co) << name;
      EXPECT_EQ(opt.sleep_blocked, 0u) << name;
      EXPECT_EQ(opt.executions, opt.rf_co_classes) << name;
      EXPECT_EQ(opt.rf_co_classes, source.rf_co_classes) << name << ": source-DPOR finds other classes";
    }
  }
}

// T1 awaits, on its own buffered store, a value no thread writes: it spins forever in
// every execution. Whether T2's flush of v lands before or after T1's read does not
// change what T1 reads (its own store, coherence-last), yet it was taken for a change,
// so DFS called some executions "blocked" and rf+co DPOR, which runs one of them per
// class, called the others "spins forever": their keys and verdicts differed.
TEST(OptimalDpor, SpinVerdictIsAnRfCoInvariantUnderTso) {
  Program p = [] {
    atomic<int> u(0, "u"), v(0, "v");
    thread t1([&] {
      v.store(2, kRelaxed);
      (void)u.load(kRelaxed);
      spin_until([&] { return v.load(kRelaxed) != 2; });
    });
    thread t2([&] { v.store(2, kRelaxed); });
    thread t3([&] {
      (void)v.load(kRelaxed);
      u.store(2, kRelaxed);
    });
    t1.join();
    t2.join();
    t3.join();
  };
  std::map<StrategyKind, std::set<std::pair<std::uint64_t, bool>>> seen;
  for (StrategyKind s : {StrategyKind::dfs, StrategyKind::optimal}) {
    ExploreOptions o = testing_support::every_schedule();
    o.strategy = s;
    o.memory = MemoryModelKind::tso;
    o.count_classes = true;
    ExploreResult r = explore(p, o, [&](const ExecutionView& v) {
      if (!v.sleep_blocked) seen[s].insert({v.rf_co_key, v.failure != nullptr});
    });
    ASSERT_TRUE(r.exhausted());
  }
  EXPECT_EQ(seen[StrategyKind::optimal], seen[StrategyKind::dfs]);
  std::size_t spins_forever = 0;
  for (const auto& [key, failed] : seen[StrategyKind::dfs]) spins_forever += failed;
  EXPECT_GT(spins_forever, 0u) << "T1 never leaves its await";
}

TEST(OptimalDpor, ScClosedForms) {
  expect_rf_co("sb", [] {
    atomic<int> x(0, "x"), y(0, "y");
    thread t1([&] { x.store(1); (void)y.load(); });
    thread t2([&] { y.store(1); (void)x.load(); });
    t1.join();
    t2.join();
  }, MemoryModelKind::sc, 3);
  expect_rf_co("3 threads x 3 writes of x", [] {
    atomic<int> x(0, "x");
    auto w = [&] {
      for (int k = 0; k < 3; ++k) x.store(k);
    };
    thread t1(w), t2(w), t3(w);
    t1.join();
    t2.join();
    t3.join();
  }, MemoryModelKind::sc, 1680);
}

// ---- random programs (tests/support/random_program.hpp) ---------------------------

using testing_support::RandomProgram;
using testing_support::make_random;
using testing_support::describe;
using testing_support::program_of;
using Op = testing_support::Op;

struct Run {
  ExploreResult result;
  std::vector<std::uint64_t> keys;          // class key of every non-blocked execution
  std::set<std::uint64_t> rf_co;
  std::map<std::uint64_t, std::set<bool>> flagged;  // class -> oracle verdicts seen
  std::set<std::string> failures;
};

// With the oracle attached (it reads tau, so the explorer keeps issue order under TSO)
// or with no checker (rf+co, the coarsest).
bool g_spurious = true;  // ExploreOptions::spurious_wakeups of run()

Run run(const Program& p, StrategyKind s, MemoryModelKind m, std::uint64_t limit = 0,
        bool oracle = true) {
  Run out;
  ExploreOptions o = testing_support::every_schedule();
  o.spurious_wakeups = g_spurious;
  o.max_executions = limit;
  o.strategy = s;
  o.memory = m;
  o.count_classes = true;
  o.keep_failures = 1000000;
  if (oracle) o.checkers = {"oracle"};
  out.result = explore(p, o, [&](const ExecutionView& v) {
    if (v.sleep_blocked) return;
    out.keys.push_back(v.class_key);
    out.rf_co.insert(v.rf_co_key);
    if (!oracle || (!v.failure && !v.outcome)) return;  // blocked in spin_until: not judged
    const Verdict& verdict = (*v.verdicts)[0];
    out.flagged[v.class_key].insert(!verdict.serializable || !verdict.blamed.empty());
  });
  for (const Failure& f : out.result.failures)
    out.failures.insert(std::string(failure_kind_name(f.kind)) + ": " + f.message);
  return out;
}

constexpr std::uint64_t kDfsLimit = 20000;

// The Release run checks every program; the sanitizer run looks for memory errors in the
// same code paths, for which a twentieth of them is plenty (and ten times as slow each).
std::size_t scaled(std::size_t n) {
  const char* s = std::getenv("ATOMCHECK_SANITIZED");
  return s && std::string(s) == "1" ? n / 20 : n;
}
// The wait and sync programs, whose DFS judge is the suite's slowest: half in the suite,
// all of them in the `long` test OptimalDporPropertiesLong.WaitsAndSync
// (ATOMCHECK_DPOR_PROGRAMS_FULL=1).
std::size_t halved(std::size_t n) {
  const char* full = std::getenv("ATOMCHECK_DPOR_PROGRAMS_FULL");
  return full && std::string(full) == "1" ? scaled(n) : scaled(n) / 2;
}

// The naive judge of yield() loops and assume() (random_program.hpp's `unroll`): plain
// DFS over the program with every wait unrolled to enough attempts to see each write
// change it. Its outcomes (runs where a wait gave up left out) and whether the final
// check can fail must be the waits' own.
bool judge_waits(const RandomProgram& rp, MemoryModelKind m, const Run& dfs, const std::string& what) {
  RandomProgram naive = rp;
  int writes = 0;
  for (const auto& ops : rp.threads)
    for (const Op& op : ops) writes += op.kind == 1 || op.kind == 2 || op.kind == 3 || op.kind == 4 || op.kind == 14;
  naive.unroll = writes + 2;
  Run ref = run(program_of(naive), StrategyKind::dfs, m, 200000, false);
  if (!ref.result.exhausted()) return false;
  std::set<Outcome> want, got;
  for (auto& [o, c] : ref.result.outcomes) {
    bool stuck = false;
    for (auto& [name, v] : o) stuck = stuck || name == "stuck";
    if (!stuck) want.insert(o);
  }
  for (auto& [o, c] : dfs.result.outcomes) got.insert(o);
  EXPECT_EQ(got, want) << what << ": outcomes of the waits vs the unrolled program";
  const auto forbidden = [](const Run& r) {
    for (const std::string& f : r.failures)
      if (f.find("forbidden sum") != std::string::npos) return true;
    return false;
  };
  EXPECT_EQ(forbidden(dfs), forbidden(ref)) << what << ": the final check vs the unrolled program";
  return true;
}

void check_random_programs(MemoryModelKind m, std::uint64_t seed, std::size_t n,
                           bool spins = false, bool waits = false, bool sync = false) {
  std::mt19937_64 rng(seed);
  std::size_t judged = 0;
  std::uint64_t dfs_total = 0, dpor_total = 0, dpor_blocked = 0, opt_total = 0, classes = 0;
  std::uint64_t rf_total = 0, rf_classes = 0, rf_exact = 0;
  std::size_t checked = 0, skipped = 0;
  for (std::size_t i = 0; i < n; ++i) {
    RandomProgram rp = make_random(rng, m == MemoryModelKind::tso, spins, waits, sync);
    Program p = program_of(rp);
    std::string what = fmt::format("program {} ({}): {}", i,
                                   m == MemoryModelKind::tso ? "tso" : "sc", describe(rp));
    // The brute force is DFS: programs whose tree is too big for a unit test are skipped.
    Run dfs = run(p, StrategyKind::dfs, m, kDfsLimit);
    if (!dfs.result.exhausted()) {
      ++skipped;
      continue;
    }
    Run dpor = run(p, StrategyKind::dpor, m);
    Run opt = run(p, StrategyKind::optimal, m);
    Run rf = run(p, StrategyKind::optimal, m, 0, false);
    ASSERT_TRUE(dfs.result.error.empty() && dpor.result.error.empty() && opt.result.error.empty() &&
                rf.result.error.empty())
        << what << ": " << dfs.result.error << dpor.result.error << opt.result.error << rf.result.error;
    // Issue order (the oracle reads tau): optimal runs exactly DFS's classes, once each.
    std::set<std::uint64_t> dfs_keys(dfs.keys.begin(), dfs.keys.end());
    std::set<std::uint64_t> opt_keys(opt.keys.begin(), opt.keys.end());
    std::set<std::uint64_t> dpor_keys(dpor.keys.begin(), dpor.keys.end());
    EXPECT_EQ(opt_keys, dfs_keys) << what;
    EXPECT_EQ(opt_keys.size(), opt.keys.size()) << what << ": two equivalent executions";
    EXPECT_EQ(opt.result.sleep_blocked, 0u) << what;
    EXPECT_EQ(opt.result.classes, dfs.result.classes) << what;
    EXPECT_EQ(opt.rf_co, dfs.rf_co) << what;
    EXPECT_EQ(opt.flagged, dfs.flagged) << what << ": oracle verdicts per class";
    for (auto& [k, seen] : dfs.flagged) EXPECT_EQ(seen.size(), 1u) << what << ": verdict not a class invariant";
    // rf+co (nothing reads tau): optimal runs exactly DFS's rf+co classes, once each.
    std::set<std::uint64_t> rf_keys(rf.keys.begin(), rf.keys.end());
    EXPECT_EQ(rf.rf_co, dfs.rf_co) << what << ": rf+co classes";
    // A compare-exchange or try_lock that fails only reads, and the rf+co classes count it
    // so; a sleep set cannot know it will fail before it runs, so it stays ordered like a
    // write and a class may run more than once (none is missed). Once each elsewhere.
    bool has_cas = false;
    for (const auto& ops : rp.threads)
      for (const Op& op : ops)
        has_cas = has_cas || op.kind == 4 || op.kind == 7 || op.kind == 11 || op.kind == 18 ||
                  (op.kind >= 20 && op.kind <= 22) || op.kind >= 25;  // sync.hpp's CAS attempts
    if (!has_cas) {
      EXPECT_EQ(rf_keys.size(), rf.keys.size()) << what << ": two executions of one rf+co class";
      rf_exact += rf.result.executions;
    }
    EXPECT_EQ(rf.result.sleep_blocked, 0u) << what;
    // Source-DPOR keeps its own (finer) relation: no class of it twice, every rf+co class.
    EXPECT_EQ(dpor_keys.size(), dpor.keys.size()) << what << ": source-DPOR repeated a class";
    EXPECT_EQ(dpor.rf_co, dfs.rf_co) << what;
    for (const Run* r : {&opt, &rf}) {
      std::set<Outcome> a, b;
      for (auto& [o, c] : dfs.result.outcomes) a.insert(o);
      for (auto& [o, c] : r->result.outcomes) b.insert(o);
      EXPECT_EQ(a, b) << what;
      EXPECT_EQ(r->failures, dfs.failures) << what;
    }
    EXPECT_EQ(dpor.failures, dfs.failures) << what;
    if (waits) {
      // Inside the reductions' model: no fallback to DFS (issue 18).
      EXPECT_FALSE(opt.result.reduction_incomplete || dpor.result.reduction_incomplete ||
                   rf.result.reduction_incomplete) << what;
      judged += judge_waits(rp, m, dfs, what);
    }
    dfs_total += dfs.result.executions;
    dpor_total += dpor.result.executions;
    dpor_blocked += dpor.result.sleep_blocked;
    opt_total += opt.result.executions;
    rf_total += rf.result.executions;
    classes += dfs_keys.size();
    rf_classes += dfs.rf_co.size();
    ++checked;
    if (::testing::Test::HasFailure()) break;
  }
  std::printf(
      "checked %zu random programs (%s%s; %zu skipped: DFS over %llu executions): executions dfs "
      "%llu, dpor %llu (%llu sleep-blocked), optimal %llu = issue-order classes %llu, optimal "
      "rf+co %llu for rf+co classes %llu (once each on programs without CAS or try_lock: %llu executions)\n",
      checked, m == MemoryModelKind::tso ? "tso" : "sc",
      sync ? (g_spurious ? ", awaits, waits, std sync" : ", awaits, waits, std sync without spurious wake-ups")
      : waits ? ", awaits, yield() loops, assume()"
      : spins ? ", spin loops" : "",
      skipped,
      static_cast<unsigned long long>(kDfsLimit), static_cast<unsigned long long>(dfs_total),
      static_cast<unsigned long long>(dpor_total), static_cast<unsigned long long>(dpor_blocked),
      static_cast<unsigned long long>(opt_total), static_cast<unsigned long long>(classes),
      static_cast<unsigned long long>(rf_total), static_cast<unsigned long long>(rf_classes),
      static_cast<unsigned long long>(rf_exact));
  if (waits) std::printf("judged %zu of those random programs against the unrolled waits\n", judged);
}

// Declarations are checked, not trusted: over every DFS execution of random TSO programs,
// each checker's verdict is the same on all executions of one class of the equivalence
// it declares (checker_needs_issue_order). A checker reading tau that declared rf+co would
// be caught: the test counts, per such checker, the rf+co classes on which its verdict
// differs, and requires some (so a wrong declaration of them fails the first check).
TEST(OptimalDporProperties, CheckerDeclarationsHoldOnDfsClasses) {
  // trace-tso is left out: it changed verdict within an issue-order class on
  // "T1: cas(1,2); T2[atomic]: cas(1,1) st(1,1); T3: st_sc(1,1) faa(0,2); T4: cas(0,2)",
  // so the explorer gives the trace TSO deciders the step order (explore_search.cpp).
  const std::vector<std::string> names = {"oracle", "velodrome", "aerodrome-opt-fixed",
                                          "regiontrack-fixed", "tso-exec", "tso-robust",
                                          "tso-monitor"};
  std::mt19937_64 rng(6100);
  std::map<std::string, std::uint64_t> split_by_rf_co;  // rf+co classes with two verdicts
  std::size_t programs = 0, executions = 0;
  for (std::size_t i = 0; i < scaled(150); ++i) {
    RandomProgram rp = make_random(rng, true, false);
    ExploreOptions o = testing_support::every_schedule();
    o.strategy = StrategyKind::dfs;
    o.memory = MemoryModelKind::tso;
    o.max_executions = 4000;
    o.count_classes = true;
    o.checkers = names;
    // key of the declared equivalence, and rf+co key, -> verdicts seen
    std::vector<std::map<std::uint64_t, std::set<bool>>> declared(names.size()), rf(names.size());
    ExploreResult r = explore(program_of(rp), o, [&](const ExecutionView& v) {
      if (!v.failure && !v.outcome) return;
      ++executions;
      for (std::size_t k = 0; k < names.size(); ++k) {
        const Verdict& vd = (*v.verdicts)[k];
        bool flag = !vd.serializable || !vd.blamed.empty();
        std::uint64_t key = checker_needs_issue_order(names[k]) ? v.class_key : v.rf_co_key;
        declared[k][key].insert(flag);
        rf[k][v.rf_co_key].insert(flag);
      }
    });
    ASSERT_EQ(r.equivalence, Equivalence::issue_order);
    if (!r.exhausted()) continue;
    ++programs;
    for (std::size_t k = 0; k < names.size(); ++k) {
      for (const auto& [key, seen] : declared[k])
        ASSERT_EQ(seen.size(), 1u) << names[k] << " is not invariant under its declared equivalence: "
                                   << describe(rp);
      for (const auto& [key, seen] : rf[k]) split_by_rf_co[names[k]] += seen.size() > 1;
    }
  }
  EXPECT_GT(programs, scaled(150) / 3);
  // The sanitizer run sees a sixth of the programs, too few to meet a split class; the
  // Release run is the one that shows this test could tell rf+co from issue order.
  if (scaled(150) == 150) {
    for (const char* n : {"oracle", "velodrome"})
      EXPECT_GT(split_by_rf_co[n], 0u) << n << ": declaring rf+co would go unnoticed";
  }
  for (const char* n : {"tso-exec", "tso-robust", "tso-monitor"}) EXPECT_EQ(split_by_rf_co[n], 0u) << n;
  std::printf("checked %zu random programs (tso, %zu executions): every checker's verdict is a class invariant of its declared equivalence; rf+co classes with two verdicts: oracle %llu, velodrome %llu\n",
              programs, executions, static_cast<unsigned long long>(split_by_rf_co["oracle"]),
              static_cast<unsigned long long>(split_by_rf_co["velodrome"]));
}

TEST(OptimalDporProperties, RandomProgramsSc) { check_random_programs(MemoryModelKind::sc, 6001, scaled(300)); }
TEST(OptimalDporProperties, RandomProgramsTso) { check_random_programs(MemoryModelKind::tso, 6002, scaled(300)); }
// A failed spin_until attempt blocks its thread; the writes that would let it pass race
// with its reads, so DPOR must still find every class.
TEST(OptimalDporProperties, RandomSpinProgramsSc) {
  check_random_programs(MemoryModelKind::sc, 6003, scaled(300), true);
}
TEST(OptimalDporProperties, RandomSpinProgramsTso) {
  check_random_programs(MemoryModelKind::tso, 6004, halved(300), true);
}
// Issue 18: yield() loops (reading, a TAS exchange, polling under a lock) and assume():
// an iteration that repeats unchanged blocks its thread, a failed assume() blocks its
// thread; the races of their reads with later writes give DFS's classes, and the
// outcomes are those of the program with the waits unrolled.
TEST(OptimalDporProperties, RandomWaitProgramsSc) {
  check_random_programs(MemoryModelKind::sc, 6005, halved(300), true, true);
}
TEST(OptimalDporProperties, RandomWaitProgramsTso) {
  check_random_programs(MemoryModelKind::tso, 6006, halved(300), true, true);
}
// Issue 22: semaphores, condition variables (both models), latches and shared_mutex
// among the operations above: the same equalities with DFS, deadlocks included.
TEST(OptimalDporProperties, RandomSyncProgramsSc) {
  check_random_programs(MemoryModelKind::sc, 6007, halved(200), true, true, true);
}
TEST(OptimalDporProperties, RandomSyncProgramsTso) {
  check_random_programs(MemoryModelKind::tso, 6008, halved(200), true, true, true);
}
TEST(OptimalDporProperties, RandomSyncProgramsWithoutSpuriousWakeups) {
  g_spurious = false;
  check_random_programs(MemoryModelKind::sc, 6009, halved(150), true, true, true);
  check_random_programs(MemoryModelKind::tso, 6010, halved(150), true, true, true);
  g_spurious = true;
}

}  // namespace
}  // namespace atomcheck
