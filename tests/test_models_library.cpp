// The model library (models/*.cpp): every registered model's expected result under SC
// and under TSO, asserted. For each model and memory model the table says whether a
// failing execution (check failure, deadlock, step bound) must be found and whether the
// "oracle" checker must flag a non-serializable execution of the model's atomic blocks.
// Correct variants are explored exhaustively (optimal DPOR, or source-DPOR where noted),
// so "no failure" is a proof for the model as written. Every failure found is replayed
// from its schedule to the same failure, and every flagged execution to the same verdict.
// Every model `atomcheck list` shows must have its rows here. The table's failures are
// the models' own (checks, deadlocks), found with race detection off; kRacy lists the rows
// whose model also has a data race on a shared<T>, asserted with it on.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/support/options.hpp"
#include "scheduler/runtime/api.hpp"
#include "support/cli_runner.hpp"

namespace {

using namespace atomcheck;

constexpr MemoryModelKind SC = MemoryModelKind::sc;
constexpr MemoryModelKind TSO = MemoryModelKind::tso;
// Optimal DPOR by default. Every wait of the library (spin_until, yield() loops, assume())
// is inside the reductions' model (issue 18), so no row falls back to DFS and
// "exhausted" is a proof; WaitsAgreeWithDfs below checks the waits against DFS.
constexpr StrategyKind OPT = StrategyKind::optimal;
constexpr StrategyKind DPOR = StrategyKind::dpor;
constexpr StrategyKind DFS = StrategyKind::dfs;

struct Expectation {
  const char* model;
  MemoryModelKind memory;
  bool expect_failure;
  bool expect_nonserializable;
  // The execution budget; `exhaustive` says it covers the whole space, and the test
  // asserts that the search ran out of executions (so "no failure" is a proof, not a
  // sample). Buggy variants whose space is large only need the budget to find the bug.
  std::uint64_t max_executions;
  bool exhaustive;
  StrategyKind strategy = OPT;
  std::uint64_t max_steps = 0;  // 0: the default (100000)
  // ExploreOptions::reuse_freed: make() hands out the block freed last (the ABA of
  // treiber-untagged-reuse needs it).
  bool reuse_freed = false;
};

// clang-format off
const std::vector<Expectation> kTable = {
    // model                        memory fail   nonser  budget   exhaustive strategy
    // Litmus shapes and classics (models/classics.cpp): no checks, no atomic blocks.
    {"2+2w",                        SC,  false, false, 20000,  true},
    {"2+2w",                        TSO, false, false, 20000,  true},
    {"iriw",                        SC,  false, false, 20000,  true},
    {"iriw",                        TSO, false, false, 20000,  true},
    {"lb",                          SC,  false, false, 20000,  true},
    {"lb",                          TSO, false, false, 20000,  true},
    {"mp",                          SC,  false, false, 20000,  true},
    {"mp",                          TSO, false, false, 20000,  true},
    // mp-relaxed fails under RC11 only, mp-ring-4 holds everywhere (test_models_rc11.cpp).
    {"mp-relaxed",                  SC,  false, false, 20000,  true},
    {"mp-relaxed",                  TSO, false, false, 20000,  true},
    {"mp-ring-4",                   SC,  false, false, 20000,  true},
    {"mp-ring-4",                   TSO, false, false, 20000,  true},
    {"sb",                          SC,  false, false, 20000,  true},
    {"sb",                          TSO, false, false, 20000,  true},
    {"sb+fences",                   SC,  false, false, 20000,  true},
    {"sb+fences",                   TSO, false, false, 20000,  true},
    {"lost-update",                 SC,  true,  true,  20000,  true},
    {"lost-update",                 TSO, true,  true,  20000,  true},
    {"lock-inversion",              SC,  true,  false, 20000,  true},
    {"lock-inversion",              TSO, true,  false, 20000,  true},
    {"locked-counter",              SC,  false, false, 20000,  true},
    {"locked-counter",              TSO, false, false, 20000,  true},
    // A spin loop without yield(): after 100 identical reads (spin_threshold) the spinner
    // blocks as a yield() loop repeating itself does, so the search is finite and ends.
    {"spin",                        SC,  false, false, 500,    true,  OPT,  200},
    {"spin",                        TSO, false, false, 20000,  true,  OPT,  200},
    {"spin-yield",                  SC,  false, false, 20000,  true},
    {"spin-yield",                  TSO, false, false, 20000,  true},
    // std synchronisation built on spin_until (models/sync_primitives.cpp, scheduler/sync.hpp).
    {"sem-pool",                    SC,  false, false, 20000,  true},
    {"sem-pool",                    TSO, false, false, 20000,  true},
    {"sem-pool-broken",             SC,  true,  false, 20000,  true},
    {"sem-pool-broken",             TSO, true,  false, 20000,  true},
    {"barrier-phase",               SC,  false, false, 20000,  true},
    {"barrier-phase",               TSO, false, false, 20000,  true},
    {"barrier-phase-broken",        SC,  true,  false, 20000,  true},
    {"barrier-phase-broken",        TSO, true,  false, 20000,  true},
    {"rw-cache",                    SC,  false, false, 20000,  true},
    {"rw-cache",                    TSO, false, false, 20000,  true},
    {"rw-cache-broken",             SC,  true,  false, 20000,  true},
    {"rw-cache-broken",             TSO, true,  false, 20000,  true},
    // condition_variable, spurious wake-ups on (the default; test_sync.cpp runs both models).
    // The queue's enqueue and dequeue are operations (atomic blocks) that wait: not
    // conflict serializable when a wait let the other thread in.
    {"cv-queue",                    SC,  false, true,  20000,  true},
    {"cv-queue",                    TSO, false, true,  20000,  true},
    {"cv-queue-broken",             SC,  true,  true , 20000,  true},
    {"cv-queue-broken",             TSO, true,  true , 20000,  true},
    // Locks (models/locks.cpp, models/tso_mutex.cpp). The locks of locks.cpp declare lock()
    // and unlock() operations (tests/test_lin_models.cpp), which are atomic blocks: an
    // acquisition that read the lock taken and tried again is not conflict serializable,
    // so the oracle flags the spinning ones although they are linearizable mutexes.
    {"lock-tas",                    SC,  false, false, 20000,  true},
    {"lock-tas",                    TSO, false, false, 20000,  true},
    {"lock-tas-broken",             SC,  true,  true,  20000,  true},
    {"lock-tas-broken",             TSO, true,  true,  20000,  true,  DPOR},
    {"lock-ttas",                   SC,  false, true,  20000,  true},
    {"lock-ttas",                   TSO, false, true,  20000,  true,  DPOR},
    {"lock-ticket",                 SC,  false, false, 20000,  true},
    {"lock-ticket",                 TSO, false, false, 20000,  true,  DPOR},
    {"lock-bakery",                 SC,  false, true,  200000, true},
    {"lock-bakery",                 TSO, true,  true,  2000,   false, DPOR},
    // DFS would need ~6e5 (SC) and ~2e9 (TSO, estimated) executions; optimal DPOR
    // exhausts them in 22 and 22 (spin_until awaits), 47 and 47 (yield() loops).
    {"lock-bakery-fenced",          SC,  false, true,  20000,  true},
    {"lock-bakery-fenced",          TSO, false, true,  20000,  true},
    {"lock-bakery-yield",           SC,  false, true,  20000,  true},
    {"lock-bakery-yield",           TSO, false, true,  20000,  true},
    {"tso-dekker",                  SC,  false, false, 20000,  true},
    {"tso-dekker",                  TSO, true,  false, 20000,  true},
    {"tso-dekker-fenced",           SC,  false, false, 20000,  true},
    {"tso-dekker-fenced",           TSO, false, false, 100000, true},
    {"tso-peterson",                SC,  false, false, 20000,  true},
    {"tso-peterson",                TSO, true,  false, 20000,  true},
    {"tso-peterson-fenced",         SC,  false, false, 20000,  true},
    {"tso-peterson-fenced",         TSO, false, false, 100000, true},
    // Bank transfers (models/bank.cpp).
    {"bank-locked",                 SC,  false, false, 20000,  true},
    {"bank-locked",                 TSO, false, false, 20000,  true},
    {"bank-check-then-lock",        SC,  true,  true,  20000,  true},
    {"bank-check-then-lock",        TSO, true,  true,  20000,  true},
    {"bank-split-locks",            SC,  true,  true,  20000,  true},
    {"bank-split-locks",            TSO, true,  true,  20000,  true},
    // Data structures (models/data_structures.cpp, models/queues.cpp). CAS-retry loops,
    // double-checked init and seqlock readers are linearizable but not conflict
    // serializable: the oracle flags them although no check fails.
    {"treiber-stack",               SC,  false, true,  20000,  true},
    {"treiber-stack",               TSO, false, true,  20000,  true},
    // The -weak- variants (one release or acquire relaxed, payloads relaxed atomics): the
    // stale reads that fail them exist under RC11 only, so SC and TSO pass everywhere.
    {"treiber-stack-weak-push",     SC,  false, true,  20000,  true},
    {"treiber-stack-weak-push",     TSO, false, true,  20000,  true},
    {"treiber-stack-racy-push",     SC,  true,  true,  20000,  true},
    {"treiber-stack-racy-push",     TSO, true,  true,  2000,   false},
    // ABA: nothing asserted; the linearizability checker finds it (tests/test_lin_models.cpp).
    {"treiber-stack-aba",           SC,  false, true,  20000,  true},
    {"treiber-stack-aba",           TSO, false, true,  20000,  true},
    {"ms-queue",                    SC,  false, true,  20000,  true},
    {"ms-queue",                    TSO, false, true,  20000,  true},
    {"ms-queue-weak-link",          SC,  false, true,  20000,  true},
    {"ms-queue-weak-link",          TSO, false, true,  20000,  true},
    {"ms-queue-racy-link",          SC,  true,  true,  20000,  true},
    {"ms-queue-racy-link",          TSO, true,  true,  2000,   false},
    {"chase-lev",                   SC,  false, true,  20000,  true},
    {"chase-lev",                   TSO, false, true,  20000,  true},
    {"chase-lev-weak-push",         SC,  false, true,  20000,  true},
    {"chase-lev-weak-push",         TSO, false, true,  20000,  true},
    {"chase-lev-unfenced",          SC,  false, true,  20000,  true},
    {"chase-lev-unfenced",          TSO, true,  true,  20000,  true},
    {"dcl-init",                    SC,  false, true,  20000,  true},
    {"dcl-init",                    TSO, false, true,  20000,  true},
    {"seqlock",                     SC,  false, true,  20000,  true},
    {"seqlock",                     TSO, false, true,  20000,  true},
    {"seqlock-weak-reader",         SC,  false, true,  20000,  true},
    {"seqlock-weak-reader",         TSO, false, true,  20000,  true},
    {"spsc-ring",                   SC,  false, false, 20000,  true,  DPOR},
    {"spsc-ring",                   TSO, false, false, 1000000, true},
    {"spsc-ring-4",                 SC,  false, true,  20000,  true},
    {"spsc-ring-4",                 TSO, false, true,  20000,  true},
    {"vyukov-queue",                SC,  false, true,  20000,  true},
    {"vyukov-queue",                TSO, false, true,  20000,  true},
    {"spsc-ring-weak-tail",         SC,  false, false, 20000,  true,  DPOR},
    {"spsc-ring-weak-tail",         TSO, false, false, 1000000, true},
    {"map-check-then-act",          SC,  true,  true,  20000,  true},
    {"map-check-then-act",          TSO, true,  true,  20000,  true},
    {"map-check-then-act-locked",   SC,  false, false, 20000,  true},
    {"map-check-then-act-locked",   TSO, false, false, 20000,  true},
    // Atomicity classics (models/atomicity_classics.cpp, models/tso_mutex.cpp,
    // models/atomic_sets.cpp). The task pool: every SC execution serializable; under TSO
    // both threads take the same element and the oracle flags executions.
    {"ws-setxy",                    SC,  true,  true,  20000,  true},
    {"ws-setxy",                    TSO, true,  true,  20000,  true},
    {"ws-setxy-locked",             SC,  false, false, 20000,  true},
    {"ws-setxy-locked",             TSO, false, false, 20000,  true},
    // The TSO paper's programs after Theorem 2 (models/tso_paper.cpp); the oracle reads
    // tau with the SC relation, so the right one is flagged under both memory models.
    {"tso-thm2-left",               SC,  false, false, 20000,  true},
    {"tso-thm2-left",               TSO, false, false, 20000,  true},
    {"tso-thm2-right",              SC,  false, true,  20000,  true},
    {"tso-thm2-right",              TSO, false, true,  20000,  true},
    {"tso-task-pool",               SC,  false, false, 20000,  true},
    {"tso-task-pool",               TSO, true,  true,  20000,  true},
    // Hammer et al. Fig. 1 (models/atomic_sets.cpp): not conflict serializable; the
    // atomic-set verdicts are asserted in tests/test_atomic_set.cpp.
    {"hammer-account-global",       SC,  false, true,  20000,  true},
    {"hammer-account-global",       TSO, false, true,  20000,  true},
    {"hammer-account-unlocked",     SC,  false, true,  500,    false},
    {"hammer-account-unlocked",     TSO, false, true,  500,    false},
    {"hammer-account-global-default", SC,  false, true,  20000,  true},
    {"hammer-account-global-default", TSO, false, true,  20000,  true},
    // Memory reclamation on the allocator model (models/reclamation.cpp). The failures are
    // the allocator's: use after free (hp-stack-unvalidated, ebr-stack-early-free,
    // refcount-premature, treiber-untagged-reuse), leak (hp-stack-leak), double free
    // (treiber-untagged-recycle, refcount-double-free); tests/test_reclamation_models.cpp
    // asserts each kind and message.
    {"hp-stack",                    SC,  false, false, 20000,  true},
    {"hp-stack",                    TSO, false, false, 20000,  true},
    {"hp-stack-unvalidated",        SC,  true,  false, 20000,  true},
    {"hp-stack-unvalidated",        TSO, true,  false, 20000,  true},
    {"hp-stack-leak",               SC,  true,  false, 20000,  true},
    {"hp-stack-leak",               TSO, true,  false, 20000,  true},
    {"ebr-stack",                   SC,  false, false, 20000,  true},
    {"ebr-stack",                   TSO, false, false, 20000,  true},
    {"ebr-stack-early-free",        SC,  true,  false, 20000,  true},
    {"ebr-stack-early-free",        TSO, true,  false, 20000,  true},
    {"refcount",                    SC,  false, false, 20000,  true},
    {"refcount",                    TSO, false, false, 20000,  true},
    // Passes here: SC and TSO keep T1's update before its relaxed decrement, so the
    // destructor sees it. It is a C++ data race all the same (kRacy), and fails under RC11.
    {"refcount-relaxed",            SC,  false, false, 20000,  true},
    {"refcount-relaxed",            TSO, false, false, 20000,  true},
    {"refcount-premature",          SC,  true,  false, 20000,  true},
    {"refcount-premature",          TSO, true,  false, 20000,  true},
    {"refcount-double-free",        SC,  true,  false, 20000,  true},
    {"refcount-double-free",        TSO, true,  false, 20000,  true},
    {"treiber-untagged-recycle",    SC,  true,  false, 20000,  true},
    {"treiber-untagged-recycle",    TSO, true,  false, 20000,  true},
    {"treiber-tagged-recycle",      SC,  false, false, 20000,  true},
    {"treiber-tagged-recycle",      TSO, false, false, 20000,  true},
    {"treiber-untagged-reuse",      SC,  true,  false, 20000,  true,  OPT,  0,    true},
    {"treiber-untagged-reuse",      TSO, true,  false, 20000,  true,  OPT,  0,    true},
};
// clang-format on

// The rows with a data race (docs/data-races.md): two accesses to a shared<T>, one a
// write, that no happens-before orders. Each is a genuine race of the C++ program, whether
// or not the model's checks fail:
//  - unprotected accesses: bank-check-then-lock (the balance check before the lock),
//    map-check-then-act (the lookup), hammer-account-unlocked, cv-queue-broken (the item
//    published after the unlock), tso-task-pool (head and tail are plain variables);
//  - broken locks: lock-tas-broken;
//  - locks built from relaxed atomics, correct on SC and x86 hardware but ordering nothing
//    in C++: lock-bakery, lock-bakery-fenced, lock-bakery-yield (Lamport's bakery with
//    relaxed loads and stores; seq_cst fences give no happens-before without a
//    release/acquire pair through a variable);
//  - dcl-init: the relaxed `ready` flag publishes the payload under SC and TSO, not in C++
//    (documented "broken only in C++"): a reader that sees ready = 1 reads the payload
//    unordered with its write;
//  - frees (models/reclamation.cpp): freeing a block is a write to each of its objects, so
//    a free that happens-before does not order after another thread's access races with
//    it: every broken scheme that frees while another thread may still read the block
//    (hp-stack-unvalidated, ebr-stack-early-free, refcount-premature, treiber-untagged-reuse),
//    and refcount-relaxed, whose relaxed decrements order nothing
//    (correct on SC and x86, a race in C++).
const std::set<std::pair<std::string, MemoryModelKind>> kRacy = {
    {"bank-check-then-lock", SC}, {"bank-check-then-lock", TSO},
    {"cv-queue-broken", SC},      {"cv-queue-broken", TSO},
    {"dcl-init", SC},             {"dcl-init", TSO},
    {"hammer-account-unlocked", SC}, {"hammer-account-unlocked", TSO},
    {"lock-bakery", SC},          {"lock-bakery", TSO},
    {"lock-bakery-fenced", SC},   {"lock-bakery-fenced", TSO},
    {"lock-bakery-yield", SC},    {"lock-bakery-yield", TSO},
    {"lock-tas-broken", SC},      {"lock-tas-broken", TSO},
    {"map-check-then-act", SC},   {"map-check-then-act", TSO},
    {"tso-task-pool", SC},        {"tso-task-pool", TSO},
    {"hp-stack-unvalidated", SC}, {"hp-stack-unvalidated", TSO},
    {"ebr-stack-early-free", SC}, {"ebr-stack-early-free", TSO},
    {"refcount-relaxed", SC},     {"refcount-relaxed", TSO},
    {"refcount-premature", SC},   {"refcount-premature", TSO},
    {"treiber-untagged-reuse", SC}, {"treiber-untagged-reuse", TSO},
};

const char* memory_name(MemoryModelKind m) { return m == SC ? "sc" : "tso"; }

ExploreOptions options_for(const Expectation& e) {
  ExploreOptions o = testing_support::every_schedule();
  o.memory = e.memory;
  o.strategy = e.strategy;
  o.seed = 1;
  if (e.max_steps != 0) o.max_steps = e.max_steps;
  o.reuse_freed = e.reuse_freed;
  o.max_executions = e.max_executions;
  o.time_limit_seconds = 60;  // a safety net; each search takes well under a second
  o.checkers = {"oracle"};
  o.race_check = false;  // the table's failures are the model's own; kRacy has the races
  return o;
}

// The sanitizer build runs ~10x slower: searches above this budget are proven by the
// Release run and only sampled there.
constexpr std::uint64_t kSanitizedBudget = 100000;
bool sanitized() { return std::getenv("ATOMCHECK_SANITIZED") != nullptr; }

class ModelLibrary : public ::testing::TestWithParam<Expectation> {};

TEST_P(ModelLibrary, MeetsItsExpectation) {
  const Expectation& e = GetParam();
  const ProgramInfo* info = find_program(e.model);
  ASSERT_NE(info, nullptr) << "program not registered: " << e.model;
  EXPECT_FALSE(info->description.empty());
  const Program program = info->body;
  ExploreOptions o = options_for(e);
  const bool scaled_down = sanitized() && e.max_executions > kSanitizedBudget;
  if (scaled_down) o.max_executions = kSanitizedBudget;
  ExploreResult r = explore(program, o);
  EXPECT_FALSE(r.reduction_incomplete) << r.reduction_incomplete_by;  // no fallback to DFS
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.checkers.size(), 1u);
  std::printf("[model] %-26s %-3s %-7s executions=%llu completed=%llu failed=%llu deadlocks=%llu "
              "oracle_flagged=%llu exhausted=%d time=%.3fs\n",
              e.model, memory_name(e.memory), o.strategy == OPT ? "optimal" : o.strategy == DPOR ? "dpor" : "dfs",
              static_cast<unsigned long long>(r.executions),
              static_cast<unsigned long long>(r.completed),
              static_cast<unsigned long long>(r.failed),
              static_cast<unsigned long long>(r.deadlocks),
              static_cast<unsigned long long>(r.checkers[0].flagged), r.exhausted() ? 1 : 0,
              r.elapsed_seconds);
  if (e.exhaustive && !scaled_down) {
    EXPECT_TRUE(r.exhausted()) << "budget too small for an exhaustive search: "
                               << stop_reason_name(r.stop);
  } else {
    EXPECT_TRUE(r.stop == StopReason::none || r.stop == StopReason::max_executions)
        << stop_reason_name(r.stop);
  }
  // A model expected to fail may fail in every execution (unfenced bakery under TSO).
  if (!e.expect_failure) {
    EXPECT_GT(r.completed, 0u);
  }

  if (e.expect_failure) {
    ASSERT_GT(r.failures_total(), 0u) << "expected a failing execution";
    ASSERT_FALSE(r.failures.empty());
    const Failure& f = r.failures.front();
    ASSERT_FALSE(f.schedule.empty());
    ExploreOptions ro = o;
    ro.strategy = StrategyKind::replay;
    const ReplayResult again = replay(program, f.schedule, ro);
    EXPECT_TRUE(again.failed) << f.schedule;
    EXPECT_EQ(again.failure.kind, f.kind);
    EXPECT_EQ(again.failure.message, f.message);
  } else {
    EXPECT_EQ(r.failures_total(), 0u) << (r.failures.empty() ? "" : r.failures.front().message);
  }

  if (e.expect_nonserializable) {
    ASSERT_GT(r.checkers[0].flagged, 0u) << "expected the oracle to flag an execution";
    const std::string& schedule = r.checkers[0].first_schedule;
    ASSERT_FALSE(schedule.empty());
    ExploreOptions ro = o;
    ro.strategy = StrategyKind::replay;
    const ReplayResult again = replay(program, schedule, ro);
    ASSERT_EQ(again.verdicts.size(), 1u);
    EXPECT_FALSE(again.verdicts[0].serializable) << schedule;
  } else {
    EXPECT_EQ(r.checkers[0].flagged, 0u) << r.checkers[0].first_schedule;
  }
}

// Race detection on: the rows of kRacy report a data race that replays to the same
// report, and no other row reports one (race-free, the search is the one above).
TEST_P(ModelLibrary, DataRacesAsExpected) {
  const Expectation& e = GetParam();
  const Program program = find_program(e.model)->body;
  ExploreOptions o = options_for(e);
  o.race_check = true;
  o.checkers.clear();
  o.keep_failures = 1000000;
  if (sanitized() && e.max_executions > kSanitizedBudget) o.max_executions = kSanitizedBudget;
  const ExploreResult r = explore(program, o);
  const Failure* race = nullptr;
  for (const Failure& f : r.failures)
    if (f.kind == FailureKind::data_race && !race) race = &f;
  if (!kRacy.count({e.model, e.memory})) {
    EXPECT_EQ(race, nullptr) << race->message;
    return;
  }
  ASSERT_NE(race, nullptr) << "expected a data race";
  const ReplayResult again = replay(program, race->schedule, o);
  EXPECT_TRUE(again.failed);
  EXPECT_EQ(again.failure.message, race->message);
}

// Issue 17's proof on the library: every row that optimal DPOR explores exhaustively gives
// the same result with two jobs (threads exploring units of the search; the answer must
// be the one-job search's): the counts, the outcomes, the failures with their schedules
// and the oracle's first flagged execution.
TEST_P(ModelLibrary, SameResultWithTwoJobs) {
  const Expectation& e = GetParam();
  if (e.strategy != OPT || !e.exhaustive || (sanitized() && e.max_executions > kSanitizedBudget))
    GTEST_SKIP() << "not an exhaustive optimal-DPOR row";
  const Program program = find_program(e.model)->body;
  ExploreOptions o = options_for(e);
  o.keep_failures = 1000;
  o.count_classes = true;
  const ExploreResult one = explore(program, o);
  o.jobs = 2;
  const ExploreResult two = explore(program, o);
  auto summary = [](const ExploreResult& r) {
    std::string s = fmt::format("executions {} completed {} failed {} deadlocks {} step-bounded {} pruned {} "
                                "classes {} rf+co {} stop {} flagged {} at {} {}\n",
                                r.executions, r.completed, r.failed, r.deadlocks, r.step_bounded, r.pruned,
                                r.classes, r.rf_co_classes, stop_reason_name(r.stop), r.checkers[0].flagged,
                                r.checkers[0].first_execution, r.checkers[0].first_schedule);
    for (const auto& [outcome, n] : r.outcomes) s += fmt::format("outcome {} x{}\n", format_outcome(outcome), n);
    for (const Failure& f : r.failures) s += fmt::format("failure {} {} {}\n", f.execution, f.schedule, f.message);
    return s;
  };
  EXPECT_EQ(summary(two), summary(one)) << e.model << " " << memory_name(e.memory);
}

std::string case_name(const ::testing::TestParamInfo<Expectation>& info) {
  std::string n = std::string(info.param.model) + "_" + memory_name(info.param.memory);
  // GoogleTest names allow only letters, digits and '_' ("2+2w" -> "2plus2w").
  std::string out;
  for (char c : n) {
    if (c == '+') out += "plus";
    else out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  n = out;
  return n;
}

INSTANTIATE_TEST_SUITE_P(Table, ModelLibrary, ::testing::ValuesIn(kTable), case_name);

// Issue 18's proof on the library: the models that wait in yield() loops or assume() get,
// from optimal DPOR, DFS's outcomes, failures and oracle verdicts (DFS exhausts them all
// but the yield-loop bakery, whose DFS tree has over 10^6 executions: it is held to the
// same lock written with spin_until instead).
TEST(ModelLibrary, WaitsAgreeWithDfs) {
  struct Seen {
    std::set<Outcome> outcomes;
    std::set<std::string> failures;
    bool flagged = false;
    std::uint64_t executions = 0;
  };
  const auto search = [](const char* model, MemoryModelKind m, StrategyKind s) {
    ExploreOptions o = testing_support::every_schedule();
    o.strategy = s;
    o.memory = m;
    o.max_executions = 200000;
    o.checkers = {"oracle"};
    o.race_check = false;  // the bakeries race (kRacy): the waits are the point here
    const ExploreResult r = explore(find_program(model)->body, o);
    EXPECT_TRUE(r.exhausted()) << model << " " << memory_name(m);
    EXPECT_FALSE(r.reduction_incomplete) << model;
    Seen out;
    for (const auto& [o2, c] : r.outcomes) out.outcomes.insert(o2);
    for (const Failure& f : r.failures) out.failures.insert(f.message);
    out.flagged = r.checkers[0].flagged > 0;
    out.executions = r.executions;
    return out;
  };
  for (MemoryModelKind m : {SC, TSO}) {
    for (const char* model : {"seqlock", "lock-tas", "spin-yield"}) {
      SCOPED_TRACE(std::string(model) + " " + memory_name(m));
      const Seen opt = search(model, m, OPT), dfs = search(model, m, DFS);
      EXPECT_EQ(opt.outcomes, dfs.outcomes);
      EXPECT_EQ(opt.failures, dfs.failures);
      EXPECT_EQ(opt.flagged, dfs.flagged);
      EXPECT_LE(opt.executions, dfs.executions);
    }
    SCOPED_TRACE(std::string("lock-bakery-yield ") + memory_name(m));
    const Seen yield = search("lock-bakery-yield", m, OPT), await = search("lock-bakery-fenced", m, OPT);
    EXPECT_EQ(yield.outcomes, await.outcomes);
    EXPECT_TRUE(yield.failures.empty());
  }
}

TEST(ModelLibraryCli, ListShowsEveryModel) {
  const auto r = atomcheck::testing::run_cli({"list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> seen;
  for (const Expectation& e : kTable) {
    if (!seen.empty() && seen.back() == e.model) continue;
    seen.push_back(e.model);
    // Each line starts with the name and a space (so "lock-tas" is not matched by
    // "lock-tas-broken").
    const std::string line_start = std::string(e.model) + " ";
    const bool at_start = r.out.rfind(line_start, 0) == 0;
    EXPECT_TRUE(at_start || r.out.find("\n" + line_start) != std::string::npos)
        << e.model << " missing from list";
  }
  EXPECT_GE(seen.size(), 10u);
}

// Every registered model has an SC and a TSO row, so a new model cannot join the
// library without its expected results. The DPOR benchmark families
// (models/dpor_benchmarks.cpp) are sized for timing, not for this table.
TEST(ModelLibraryTable, CoversEveryRegisteredModel) {
  std::set<std::pair<std::string, MemoryModelKind>> rows;
  for (const Expectation& e : kTable) rows.emplace(e.model, e.memory);
  std::size_t models = 0;
  for (const ProgramInfo* p : registered_programs()) {
    if (p->description.rfind("DPOR benchmark", 0) == 0) continue;
    ++models;
    EXPECT_TRUE(rows.count({p->name, SC})) << p->name << " (" << p->file << ") has no SC row";
    EXPECT_TRUE(rows.count({p->name, TSO})) << p->name << " (" << p->file << ") has no TSO row";
  }
  EXPECT_GE(models, 38u);
  EXPECT_EQ(rows.size(), kTable.size()) << "a model has two rows for one memory model";
}

}  // namespace
