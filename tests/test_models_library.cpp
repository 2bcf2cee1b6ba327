// The model library (models/locks.cpp, models/bank.cpp, models/data_structures.cpp):
// every model's expected result under SC and under TSO, asserted. For each model and
// memory model the table says whether a failing execution (check failure, deadlock) must
// be found and whether the "oracle" checker must flag a non-serializable execution of
// the model's atomic blocks. Every failure found is replayed from its schedule to the
// same failure, and every flagged execution is replayed to the same verdict.
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "scheduler/api.hpp"
#include "support/cli_runner.hpp"

namespace {

using namespace atomcheck;

constexpr MemoryModelKind SC = MemoryModelKind::sc;
constexpr MemoryModelKind TSO = MemoryModelKind::tso;

struct Expectation {
  const char* model;
  MemoryModelKind memory;
  bool expect_failure;
  bool expect_nonserializable;
  // DFS with this budget; `exhaustive` says the budget covers the whole space (so "no
  // failure" is a proof, not a sample). Where DFS cannot finish within the budget and
  // the model must hold, `random` samples the whole space instead of one deep corner of
  // it (seed 1: deterministic); such a "holds" is evidence, not a proof.
  std::uint64_t max_executions;
  bool exhaustive;
  bool random = false;
};

// clang-format off
const std::vector<Expectation> kTable = {
    // model                        memory fail   nonser  budget   exhaustive random
    {"lock-tas",                    SC,  false, false, 20000,  true},
    {"lock-tas",                    TSO, false, false, 20000,  true},
    {"lock-tas-broken",             SC,  true,  false, 20000,  true},
    {"lock-tas-broken",             TSO, true,  false, 2000,   false},
    {"lock-ttas",                   SC,  false, false, 20000,  true},
    {"lock-ttas",                   TSO, false, false, 20000,  true},
    {"lock-ticket",                 SC,  false, false, 20000,  true},
    {"lock-ticket",                 TSO, false, false, 20000,  true},
    {"lock-bakery",                 SC,  false, false, 5000,   false, true},
    {"lock-bakery",                 TSO, true,  false, 2000,   false},
    {"lock-bakery-fenced",          SC,  false, false, 5000,   false, true},
    {"lock-bakery-fenced",          TSO, false, false, 5000,   false, true},
    {"bank-locked",                 SC,  false, false, 20000,  true},
    {"bank-locked",                 TSO, false, false, 20000,  true},
    {"bank-check-then-lock",        SC,  true,  true,  20000,  true},
    {"bank-check-then-lock",        TSO, true,  true,  20000,  true},
    {"bank-split-locks",            SC,  true,  true,  20000,  true},
    {"bank-split-locks",            TSO, true,  true,  20000,  true},
    {"treiber-stack",               SC,  false, true,  5000,   false, true},
    {"treiber-stack",               TSO, false, true,  5000,   false, true},
    {"treiber-stack-racy-push",     SC,  true,  true,  2000,   false},
    {"treiber-stack-racy-push",     TSO, true,  true,  2000,   false},
    {"dcl-init",                    SC,  false, true,  20000,  true},
    {"dcl-init",                    TSO, false, true,  20000,  true},
    {"seqlock",                     SC,  false, true,  20000,  true},
    {"seqlock",                     TSO, false, true,  5000,   false, true},
    {"spsc-ring",                   SC,  false, false, 5000,   false, true},
    {"spsc-ring",                   TSO, false, false, 5000,   false, true},
    {"map-check-then-act",          SC,  true,  true,  20000,  true},
    {"map-check-then-act",          TSO, true,  true,  20000,  true},
    {"map-check-then-act-locked",   SC,  false, false, 20000,  true},
    {"map-check-then-act-locked",   TSO, false, false, 20000,  true},
};
// clang-format on

const char* memory_name(MemoryModelKind m) { return m == SC ? "sc" : "tso"; }

ExploreOptions options_for(const Expectation& e) {
  ExploreOptions o;
  o.memory = e.memory;
  o.strategy = e.random ? StrategyKind::random : StrategyKind::dfs;
  o.seed = 1;
  o.max_executions = e.max_executions;
  o.time_limit_seconds = 60;  // a safety net; each search takes well under a second
  o.checkers = {"oracle"};
  return o;
}

class ModelLibrary : public ::testing::TestWithParam<Expectation> {};

TEST_P(ModelLibrary, MeetsItsExpectation) {
  const Expectation& e = GetParam();
  const ProgramInfo* info = find_program(e.model);
  ASSERT_NE(info, nullptr) << "program not registered: " << e.model;
  EXPECT_FALSE(info->description.empty());
  const Program program = info->body;
  const ExploreOptions o = options_for(e);
  const ExploreResult r = explore(program, o);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.checkers.size(), 1u);
  std::printf("[model] %-26s %-3s executions=%llu completed=%llu failed=%llu deadlocks=%llu "
              "oracle_flagged=%llu exhausted=%d time=%.3fs\n",
              e.model, memory_name(e.memory), static_cast<unsigned long long>(r.executions),
              static_cast<unsigned long long>(r.completed),
              static_cast<unsigned long long>(r.failed),
              static_cast<unsigned long long>(r.deadlocks),
              static_cast<unsigned long long>(r.checkers[0].flagged), r.exhausted() ? 1 : 0,
              r.elapsed_seconds);
  if (e.exhaustive) {
    EXPECT_TRUE(r.exhausted()) << "budget too small for an exhaustive search";
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

std::string case_name(const ::testing::TestParamInfo<Expectation>& info) {
  std::string n = std::string(info.param.model) + "_" + memory_name(info.param.memory);
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Table, ModelLibrary, ::testing::ValuesIn(kTable), case_name);

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

}  // namespace
