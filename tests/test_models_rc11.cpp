// The model library under RC11 (--memory rc11, docs/rc11.md): every registered model has
// a row. A model with the right orders passes (exhaustively where the search ends within
// the budget, else within it); each weakened-order variant (`*-weak-*`) and each model that
// only x86 makes correct fails, and its failure replays from its schedule. Race
// detection is off, as in test_models_library.cpp: the rows are the models' own failures.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"

namespace {

using namespace atomcheck;

// optimal: one execution per graph (docs/rc11.md).
constexpr StrategyKind OPT = StrategyKind::optimal;

struct Row {
  const char* model;
  bool fails;
  std::uint64_t budget;
  bool exhaustive;  // the search must end within the budget: "passes" is a proof
  StrategyKind strategy;
  const char* why;  // why a model that passes under SC (and TSO) fails under RC11
  bool reuse_freed = false;  // ExploreOptions::reuse_freed (treiber-untagged-reuse's ABA)
};

// clang-format off
const std::vector<Row> kRows = {
    // model                       fails  budget exhaustive strategy why
    {"2+2w",                       false, 50000, true , OPT, ""},
    {"bank-check-then-lock",       true , 20000, false, OPT, ""},
    {"bank-locked",                false, 50000, true , OPT, ""},
    {"bank-split-locks",           true , 20000, false, OPT, ""},
    {"barrier-phase",              false, 50000, true , OPT, ""},
    {"barrier-phase-broken",       true , 20000, false, OPT, ""},
    {"chase-lev",                  false, 50000, true , OPT, ""},
    {"chase-lev-unfenced",         true , 20000, false, OPT, ""},
    {"chase-lev-weak-push",        true , 20000, false, OPT, "weakened order (docs/models.md)"},
    {"cv-queue",                   false, 50000, true , OPT, ""},
    {"cv-queue-broken",            true , 20000, false, OPT, ""},
    {"dcl-init",                   true , 20000, false, OPT, "relaxed flag: the payload is stale (broken in C++ only, as its description says)"},
    {"ebr-stack",                  false, 50000, true , OPT, ""},
    {"ebr-stack-early-free",       true , 20000, false, OPT, ""},
    {"filesystem-14",              false,  2000, false, OPT, ""},
    {"filesystem-16",              false,  2000, false, OPT, ""},
    {"filesystem-18",              false,  2000, false, OPT, ""},
    {"filesystem-20",              false,  2000, false, OPT, ""},
    {"filesystem-4",               false, 50000, true , OPT, ""},
    {"hammer-account-global",      false, 50000, true , OPT, ""},
    {"hammer-account-global-default",false, 50000, true , OPT, ""},
    {"hammer-account-unlocked",    false, 50000, true , OPT, ""},
    {"hp-stack",                   false, 50000, true , OPT, ""},
    {"hp-stack-leak",              true , 20000, false, OPT, ""},
    {"hp-stack-unvalidated",       true , 20000, false, OPT, ""},
    {"indexer-12",                 false,  2000, false, OPT, ""},
    {"indexer-13",                 false,  2000, false, OPT, ""},
    {"indexer-14",                 false,  2000, false, OPT, ""},
    {"indexer-15",                 false,  2000, false, OPT, ""},
    {"indexer-5",                  false, 50000, true , OPT, ""},
    {"iriw",                       false, 50000, true , OPT, ""},
    {"lastzero-10",                false,  2000, false, OPT, ""},
    {"lastzero-12",                false,  2000, false, OPT, ""},
    {"lastzero-15",                false,  2000, false, OPT, ""},
    {"lastzero-2",                 false, 50000, true , OPT, ""},
    {"lastzero-3",                 false, 50000, true , OPT, ""},
    {"lastzero-5",                 false, 50000, true , OPT, ""},
    {"lastzero-8",                 false, 50000, true , OPT, ""},
    {"lb",                         false, 50000, true , OPT, ""},
    {"lock-bakery",                true , 20000, false, OPT, "relaxed accesses: x86 orders them, C++ does not"},
    {"lock-bakery-fenced",         true , 20000, false, OPT, "mfences order x86, not C++: the counter is read stale"},
    {"lock-bakery-yield",          true , 20000, false, OPT, "as lock-bakery-fenced"},
    {"lock-inversion",             true , 20000, false, OPT, ""},
    {"lock-tas",                   false, 50000, true , OPT, ""},
    {"lock-tas-broken",            true , 20000, false, OPT, ""},
    {"lock-ticket",                false, 50000, true , OPT, ""},
    {"lock-ttas",                  false, 50000, true , OPT, ""},
    {"locked-counter",             false, 50000, true , OPT, ""},
    {"lost-update",                true , 20000, false, OPT, ""},
    {"map-check-then-act",         true , 20000, false, OPT, ""},
    {"map-check-then-act-locked",  false, 50000, true , OPT, ""},
    {"mp",                         false, 50000, true , OPT, ""},
    {"mp-relaxed",                 true , 20000, false, OPT, "relaxed flag: the datum is stale"},
    {"mp-ring-4",                  false, 50000, true , OPT, ""},
    {"ms-queue",                   false, 50000, true , OPT, ""},
    {"ms-queue-enq-deq-3x2",       false,  2000, false, OPT, ""},
    {"ms-queue-racy-link",         true , 20000, false, OPT, ""},
    {"ms-queue-weak-link",         true , 20000, false, OPT, "weakened order (docs/models.md)"},
    {"readers-12",                 false,  2000, false, OPT, ""},
    {"readers-15",                 false,  2000, false, OPT, ""},
    {"readers-3",                  false, 50000, true , OPT, ""},
    {"readers-8",                  false, 50000, true , OPT, ""},
    {"refcount",                   false, 50000, true , OPT, ""},
    {"refcount-double-free",       true , 20000, false, OPT, ""},
    {"refcount-premature",         true , 20000, false, OPT, ""},
    {"refcount-relaxed",           true , 20000, false, OPT, "relaxed decrement: the destructor reads the payload without the other owner's update"},
    {"rw-cache",                   false, 50000, true , OPT, ""},
    {"rw-cache-broken",            true , 20000, false, OPT, ""},
    {"sb",                         false, 50000, true , OPT, ""},
    {"sb+fences",                  false, 50000, true , OPT, ""},
    {"sem-pool",                   false, 50000, true , OPT, ""},
    {"sem-pool-broken",            true , 20000, false, OPT, ""},
    {"seqlock",                    false, 50000, true , OPT, ""},
    {"seqlock-weak-reader",        true , 20000, false, OPT, "weakened order (docs/models.md)"},
    {"spin",                       false, 50000, true , OPT, "as under sc and tso: the spin that read an older flag is cut (moot)"},
    {"spin-yield",                 false, 50000, true , OPT, ""},
    {"spsc-ring",                  false, 50000, true , OPT, ""},
    {"spsc-ring-4",                false, 50000, true , OPT, ""},
    {"spsc-ring-weak-tail",        true , 20000, false, OPT, "weakened order (docs/models.md)"},
    {"treiber-push-pop-3x2",       false,  2000, false, OPT, ""},
    {"treiber-stack",              false, 50000, true , OPT, ""},
    {"treiber-stack-aba",          false, 50000, true , OPT, ""},
    {"treiber-stack-racy-push",    true , 20000, false, OPT, ""},
    {"treiber-stack-weak-push",    true , 20000, false, OPT, "weakened order (docs/models.md)"},
    {"treiber-tagged-recycle",     false, 50000, true , OPT, ""},
    {"treiber-untagged-recycle",   true , 20000, false, OPT, ""},
    {"treiber-untagged-reuse",     true , 20000, false, OPT, "", true},
    {"tso-dekker",                 true , 20000, false, OPT, ""},
    {"tso-dekker-fenced",          false, 50000, true , OPT, ""},
    {"tso-peterson",               true , 20000, false, OPT, ""},
    {"tso-peterson-fenced",        true , 20000, false, OPT, "relaxed turn: an SC fence on each side does not order the turn writes"},
    {"tso-task-pool",              true , 20000, false, OPT, ""},
    {"tso-thm2-left",              false, 50000, true , OPT, ""},
    {"tso-thm2-right",             false, 50000, true , OPT, ""},
    {"vyukov-queue",               false, 50000, true , OPT, ""},
    {"vyukov-enqueue-3x2",         false, 50000, true , OPT, ""},
    {"ws-setxy",                   true , 20000, false, OPT, ""},
    {"ws-setxy-locked",            false, 50000, true , OPT, ""},
};
// clang-format on

class ModelsRc11 : public ::testing::TestWithParam<Row> {};

TEST_P(ModelsRc11, MeetsItsExpectation) {
  const Row& row = GetParam();
  const ProgramInfo* info = find_program(row.model);
  ASSERT_NE(info, nullptr) << row.model;
  ExploreOptions o;
  o.memory = MemoryModelKind::rc11;
  o.strategy = row.strategy;
  o.seed = 1;
  o.race_check = false;
  o.reuse_freed = row.reuse_freed;
  o.stop_on_failure = true;
  o.max_executions = std::getenv("ATOMCHECK_SANITIZED") && !row.exhaustive ? row.budget / 10 : row.budget;
  o.time_limit_seconds = 120;
  const ExploreResult r = explore(info->body, o);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_FALSE(r.reduction_incomplete) << r.reduction_incomplete_by;
  std::printf("[rc11] %-26s executions=%llu failed=%llu exhausted=%d %.3fs\n", row.model,
              static_cast<unsigned long long>(r.executions), static_cast<unsigned long long>(r.failures_total()),
              r.exhausted() ? 1 : 0, r.elapsed_seconds);
  if (!row.fails) {
    EXPECT_EQ(r.failures_total(), 0u) << (r.failures.empty() ? "" : r.failures.front().message);
    if (row.exhaustive) {
      EXPECT_TRUE(r.exhausted()) << stop_reason_name(r.stop);
    }
    return;
  }
  ASSERT_FALSE(r.failures.empty()) << "expected a failing execution under rc11";
  const Failure& f = r.failures.front();
  const ReplayResult again = replay(info->body, f.schedule, o);
  EXPECT_TRUE(again.failed) << f.schedule;
  EXPECT_EQ(again.failure.message, f.message);
}

// A parallel search's units are TruSt's work items (strategy_trust.cpp): two jobs give
// one job's answer, counts, outcomes and failures with their schedules, on every row
// that ends within its budget (no stop at the first failure: the whole search).
TEST_P(ModelsRc11, SameResultWithTwoJobs) {
  const Row& row = GetParam();
  if (row.strategy != OPT || std::getenv("ATOMCHECK_SANITIZED")) GTEST_SKIP() << "optimal rows, Release only";
  const ProgramInfo* info = find_program(row.model);
  ASSERT_NE(info, nullptr) << row.model;
  ExploreOptions o;
  o.memory = MemoryModelKind::rc11;
  o.race_check = false;
  o.reuse_freed = row.reuse_freed;
  o.max_executions = row.budget;
  o.keep_failures = 1000;
  o.count_classes = true;
  o.stop_on_failure = false;
  const ExploreResult one = explore(info->body, o);
  if (!one.exhausted()) GTEST_SKIP() << "not exhausted within the budget";
  o.jobs = 2;
  const ExploreResult two = explore(info->body, o);
  auto summary = [](const ExploreResult& r) {
    std::string s = "executions " + std::to_string(r.executions) + " completed " + std::to_string(r.completed) +
                    " failed " + std::to_string(r.failed) + " pruned " + std::to_string(r.pruned) + " cut " +
                    std::to_string(r.sleep_blocked) + " classes " + std::to_string(r.classes) + " stop " +
                    std::string(stop_reason_name(r.stop)) + "\n";
    for (const auto& [outcome, n] : r.outcomes) s += "outcome x" + std::to_string(n) + "\n";
    for (const Failure& f : r.failures) s += std::to_string(f.execution) + " " + f.schedule + " " + f.message + "\n";
    return s;
  };
  EXPECT_EQ(summary(two), summary(one)) << row.model;
}

INSTANTIATE_TEST_SUITE_P(Library, ModelsRc11, ::testing::ValuesIn(kRows), [](const auto& info) {
  std::string name = info.param.model;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

// The CAS-loop benchmarks against GenMC v0.11's counts for their C twins (bench/genmc/,
// bench/loop_reduction_vs_genmc.sh; GenMC's defaults, --sc and --rc11): the complete
// executions are GenMC's to the unit (one per graph), the blocked ones at most GenMC's, and
// no run is started for a revisit that breaks atomicity (rmw_atomic in strategy_trust.cpp):
// what TruSt still cuts is a wait no write can end (refuses), which GenMC moots uncounted.
TEST(ModelsRc11Table, CasLoopBenchmarksRunAtMostGenMCsExecutions) {
  struct Bench {
    const char* model;
    std::uint64_t complete, blocked_sc, blocked_rc11;  // GenMC's
  };
  const Bench benches[] = {{"vyukov-enqueue-3x2", 90, 1458, 1458},
                           {"treiber-push-pop-3x2", 2640, 2400, 2400},
                           {"ms-queue-enq-deq-3x2", 1368, 15009, 15478}};
  for (const Bench& b : benches)
    for (const bool rc11 : {false, true}) {
      const ProgramInfo* info = find_program(b.model);
      ASSERT_NE(info, nullptr) << b.model;
      ExploreOptions o;
      o.memory = rc11 ? MemoryModelKind::rc11 : MemoryModelKind::sc;
      o.sc_graphs = !rc11;
      o.race_check = false;
      o.stop_on_failure = false;
      const ExploreResult r = explore(info->body, o);
      const std::string at = std::string(b.model) + (rc11 ? " rc11" : " sc-graphs");
      ASSERT_TRUE(r.exhausted()) << at;
      EXPECT_EQ(r.failures_total(), 0u) << at;
      EXPECT_EQ(r.completed, b.complete) << at;
      EXPECT_LE(r.pruned, rc11 ? b.blocked_rc11 : b.blocked_sc) << at;
      // Every cut run is a thread's hopeless wait, fewer than the blocked executions.
      EXPECT_LT(r.sleep_blocked, r.pruned) << at;
      if (std::string(b.model) == "treiber-push-pop-3x2") {
        EXPECT_EQ(r.sleep_blocked, 0u) << at;
      }
    }
}

// Every model `atomcheck list` shows has its row, once.
TEST(ModelsRc11Table, CoversTheLibrary) {
  std::set<std::string> rows;
  for (const Row& r : kRows) EXPECT_TRUE(rows.insert(r.model).second) << "two rows for " << r.model;
  for (const ProgramInfo* p : registered_programs()) EXPECT_TRUE(rows.count(p->name)) << "no rc11 row for " << p->name;
  EXPECT_EQ(rows.size(), registered_programs().size());
}

// The weakened variants fail under RC11 and pass under SC and TSO (their SC and TSO rows
// are in test_models_library.cpp): each differs from its model in one order.
TEST(ModelsRc11Table, EveryWeakVariantFailsAndItsModelPasses) {
  int variants = 0;
  for (const Row& r : kRows) {
    const std::string name = r.model;
    const auto at = name.find("-weak-");
    if (at == std::string::npos) continue;
    ++variants;
    EXPECT_TRUE(r.fails) << name;
    for (const Row& base : kRows)
      if (name.compare(0, at, base.model) == 0 && std::string(base.model).size() == at) {
        EXPECT_FALSE(base.fails) << base.model;
      }
  }
  EXPECT_EQ(variants, 5);
}

}  // namespace
