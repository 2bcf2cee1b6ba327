// The model library under RC11 (--memory rc11, docs/rc11.md): every registered model has
// a row. A model with the right orders passes (exhaustively where DFS ends within the
// budget, else within it); each weakened-order variant (`*-weak-*`) and each model that
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

#include "scheduler/api.hpp"
#include "scheduler/explore.hpp"

namespace {

using namespace atomcheck;

constexpr StrategyKind DFS = StrategyKind::dfs;
constexpr StrategyKind RANDOM = StrategyKind::random;

struct Row {
  const char* model;
  bool fails;
  std::uint64_t budget;
  bool exhaustive;  // the search must end within the budget: "passes" is a proof
  StrategyKind strategy;
  const char* why;  // why a model that passes under SC (and TSO) fails under RC11
};

// clang-format off
const std::vector<Row> kRows = {
    // model                       fails  budget exhaustive strategy why
    {"2+2w",                       false, 30000, true , DFS, ""},
    {"bank-check-then-lock",       true , 20000, false, DFS, ""},
    {"bank-locked",                false, 30000, true , DFS, ""},
    {"bank-split-locks",           true , 20000, false, DFS, ""},
    {"barrier-phase",              false, 30000, true , DFS, ""},
    {"barrier-phase-broken",       true , 20000, false, DFS, ""},
    {"chase-lev",                  false, 30000, true , DFS, ""},
    {"chase-lev-unfenced",         true , 20000, false, DFS, ""},
    {"chase-lev-weak-push",        true , 20000, false, DFS, "weakened order (docs/models.md)"},
    {"cv-queue",                   false, 30000, true , DFS, ""},
    {"cv-queue-broken",            true , 20000, false, DFS, ""},
    {"dcl-init",                   true , 20000, false, DFS, "relaxed flag: the payload is stale (broken in C++ only, as its description says)"},
    {"filesystem-14",              false,  2000, false, DFS, ""},
    {"filesystem-16",              false,  2000, false, DFS, ""},
    {"filesystem-18",              false,  2000, false, DFS, ""},
    {"filesystem-20",              false,  2000, false, DFS, ""},
    {"filesystem-4",               false,  2000, false, DFS, ""},
    {"hammer-account-global",      false, 30000, true , DFS, ""},
    {"hammer-account-global-default",false, 30000, true , DFS, ""},
    {"hammer-account-unlocked",    false,  2000, false, DFS, ""},
    {"indexer-12",                 false,  2000, false, DFS, ""},
    {"indexer-13",                 false,  2000, false, DFS, ""},
    {"indexer-14",                 false,  2000, false, DFS, ""},
    {"indexer-15",                 false,  2000, false, DFS, ""},
    {"indexer-5",                  false,  2000, false, DFS, ""},
    {"iriw",                       false, 30000, true , DFS, ""},
    {"lastzero-10",                false,  2000, false, DFS, ""},
    {"lastzero-12",                false,  2000, false, DFS, ""},
    {"lastzero-15",                false,  2000, false, DFS, ""},
    {"lastzero-2",                 false, 30000, true , DFS, ""},
    {"lastzero-3",                 false, 30000, true , DFS, ""},
    {"lastzero-5",                 false,  2000, false, DFS, ""},
    {"lastzero-8",                 false,  2000, false, DFS, ""},
    {"lb",                         false, 30000, true , DFS, ""},
    {"lock-bakery",                true , 20000, false, DFS, "relaxed accesses: x86 orders them, C++ does not"},
    {"lock-bakery-fenced",         true , 20000, false, DFS, "mfences order x86, not C++: the counter is read stale"},
    {"lock-bakery-yield",          true , 20000, false, DFS, "as lock-bakery-fenced"},
    {"lock-inversion",             true , 20000, false, DFS, ""},
    {"lock-tas",                   false, 30000, true , DFS, ""},
    {"lock-tas-broken",            true , 20000, false, DFS, ""},
    {"lock-ticket",                false, 30000, true , DFS, ""},
    {"lock-ttas",                  false, 30000, true , DFS, ""},
    {"locked-counter",             false, 30000, true , DFS, ""},
    {"lost-update",                true , 20000, false, DFS, ""},
    {"map-check-then-act",         true , 20000, false, DFS, ""},
    {"map-check-then-act-locked",  false, 30000, true , DFS, ""},
    {"mp",                         false, 30000, true , DFS, ""},
    {"mp-relaxed",                 true , 20000, false, DFS, "relaxed flag: the datum is stale"},
    {"mp-ring-4",                  false,  2000, false, DFS, ""},
    {"ms-queue",                   false,  2000, false, DFS, ""},
    {"ms-queue-racy-link",         true , 20000, false, DFS, ""},
    {"ms-queue-weak-link",         true , 20000, false, RANDOM, "weakened order (docs/models.md); DFS meets it late, random at once"},
    {"readers-12",                 false,  2000, false, DFS, ""},
    {"readers-15",                 false,  2000, false, DFS, ""},
    {"readers-3",                  false, 30000, true , DFS, ""},
    {"readers-8",                  false,  2000, false, DFS, ""},
    {"rw-cache",                   false,  2000, false, DFS, ""},
    {"rw-cache-broken",            true , 20000, false, DFS, ""},
    {"sb",                         false, 30000, true , DFS, ""},
    {"sb+fences",                  false, 30000, true , DFS, ""},
    {"sem-pool",                   false,  2000, false, DFS, ""},
    {"sem-pool-broken",            true , 20000, false, DFS, ""},
    {"seqlock",                    false, 30000, true , DFS, ""},
    {"seqlock-weak-reader",        true , 20000, false, DFS, "weakened order (docs/models.md)"},
    {"spin",                       true , 20000, false, DFS, ""},
    {"spin-yield",                 false, 30000, true , DFS, ""},
    {"spsc-ring",                  false, 30000, true , DFS, ""},
    {"spsc-ring-weak-tail",        true , 20000, false, DFS, "weakened order (docs/models.md)"},
    {"treiber-stack",              false,  2000, false, DFS, ""},
    {"treiber-stack-aba",          false, 30000, true , DFS, ""},
    {"treiber-stack-racy-push",    true , 20000, false, DFS, ""},
    {"treiber-stack-weak-push",    true , 20000, false, DFS, "weakened order (docs/models.md)"},
    {"tso-dekker",                 true , 20000, false, DFS, ""},
    {"tso-dekker-fenced",          false, 30000, true , DFS, ""},
    {"tso-peterson",               true , 20000, false, DFS, ""},
    {"tso-peterson-fenced",        true , 20000, false, DFS, "relaxed turn: an SC fence on each side does not order the turn writes"},
    {"tso-task-pool",              true , 20000, false, DFS, ""},
    {"tso-thm2-left",              false, 30000, true , DFS, ""},
    {"tso-thm2-right",             false, 30000, true , DFS, ""},
    {"ws-setxy",                   true , 20000, false, DFS, ""},
    {"ws-setxy-locked",            false, 30000, true , DFS, ""},
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
  o.stop_on_failure = true;
  o.max_executions = std::getenv("ATOMCHECK_SANITIZED") && !row.exhaustive ? row.budget / 10 : row.budget;
  o.time_limit_seconds = 120;
  const ExploreResult r = explore(info->body, o);
  ASSERT_TRUE(r.error.empty()) << r.error;
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

INSTANTIATE_TEST_SUITE_P(Library, ModelsRc11, ::testing::ValuesIn(kRows), [](const auto& info) {
  std::string name = info.param.model;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
});

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
