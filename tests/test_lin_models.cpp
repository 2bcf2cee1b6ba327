// The `linearizability` checker of the panel on the model library's data structures
// (models/data_structures.cpp, models/queues.cpp): each row says whether some execution's
// history is not linearizable, under SC and under TSO, and on every execution explored the
// checker agrees with the `linearizability-oracle` judge (every order tried, no code
// shared with lin::check). Then the command line: the correct objects pass, the broken ones
// are flagged with the failing history and a schedule whose replay shows it again.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "checkers/registry.hpp"
#include "scheduler/explore/explore.hpp"
#include "tests/support/cli_runner.hpp"

#include <nlohmann/json.hpp>

namespace {

using atomcheck::ExploreOptions;
using atomcheck::ExploreResult;
using atomcheck::MemoryModelKind;

struct Row {
  const char* model;
  MemoryModelKind memory;
  bool linearizable;  // in every execution explored
};

constexpr MemoryModelKind SC = MemoryModelKind::sc, TSO = MemoryModelKind::tso, RC11 = MemoryModelKind::rc11;

// clang-format off
const Row kRows[] = {
    {"treiber-stack",           SC,  true},  {"treiber-stack",           TSO, true},
    {"treiber-stack-racy-push", SC,  false}, {"treiber-stack-racy-push", TSO, false},
    // The -weak- variants: a stale payload exists under RC11 only.
    {"treiber-stack-weak-push", SC,  true},  {"treiber-stack-weak-push", TSO, true},
    {"treiber-stack-aba",       SC,  false}, {"treiber-stack-aba",       TSO, false},
    {"ms-queue",                SC,  true},  {"ms-queue",                TSO, true},
    {"ms-queue-racy-link",      SC,  false}, {"ms-queue-racy-link",      TSO, false},
    {"ms-queue-weak-link",      SC,  true},  {"ms-queue-weak-link",      TSO, true},
    {"chase-lev",               SC,  true},  {"chase-lev",               TSO, true},
    {"chase-lev-weak-push",     SC,  true},  {"chase-lev-weak-push",     TSO, true},
    // The steal/take race of the missing fence exists under TSO only.
    {"chase-lev-unfenced",      SC,  true},  {"chase-lev-unfenced",      TSO, false},
    // A seqlock-protected pair as a register: under TSO the write returns when its last
    // store leaves the buffer, so a read after the write's block ended may still see 0.
    {"seqlock",                 SC,  true},  {"seqlock",                 TSO, true},
    {"seqlock-weak-reader",     SC,  true},  {"seqlock-weak-reader",     TSO, true},
    {"spsc-ring",               SC,  true},  {"spsc-ring",               TSO, true},
    {"spsc-ring-weak-tail",     SC,  true},  {"spsc-ring-weak-tail",     TSO, true},
    // The blocking queue: a consumer that waits with `if` takes from an empty slot.
    {"cv-queue",                SC,  true},  {"cv-queue",                TSO, true},
    {"cv-queue-broken",         SC,  false}, {"cv-queue-broken",         TSO, false},
    // The locks as mutexes: lock() and unlock() operations around each critical section.
    {"lock-tas",                SC,  true},  {"lock-tas",                TSO, true},
    {"lock-tas-broken",         SC,  false}, {"lock-tas-broken",         TSO, false},
    {"lock-ttas",               SC,  true},  {"lock-ttas",               TSO, true},
    {"lock-ticket",             SC,  true},  {"lock-ticket",             TSO, true},
    {"lock-bakery",             SC,  true},  {"lock-bakery",             TSO, false},
    {"lock-bakery-fenced",      SC,  true},  {"lock-bakery-fenced",      TSO, true},
    {"lock-bakery-yield",       SC,  true},  {"lock-bakery-yield",       TSO, true},
    // Vyukov's bounded queue: T2 claims cell 0 and stalls, T1 fills cell 1, and T1's
    // dequeue answers empty after its own enqueue, under every model.
    {"vyukov-queue",            SC,  false}, {"vyukov-queue",            TSO, false},
    {"spsc-ring-4",             SC,  true},  {"spsc-ring-4",             TSO, true},
    // Under RC11 "precedes" is happens-before (docs/linearizability.md).
    {"treiber-stack",           RC11, true},  {"treiber-stack-racy-push", RC11, false},
    // The relaxed push CAS publishes a node before its payload: a pop returns the stale value.
    {"treiber-stack-weak-push", RC11, false}, {"treiber-stack-aba",       RC11, false},
    {"ms-queue",                RC11, true},  {"ms-queue-racy-link",      RC11, false},
    // The stale read fails the model's assertion before the dequeue returns (pending).
    {"ms-queue-weak-link",      RC11, true},
    {"chase-lev",               RC11, true},  {"chase-lev-unfenced",      RC11, false},
    {"chase-lev-weak-push",     RC11, true},
    {"seqlock",                 RC11, true},  {"seqlock-weak-reader",     RC11, true},
    {"spsc-ring",               RC11, true},
    // The relaxed tail: the consumer reads a slot before its item.
    {"spsc-ring-weak-tail",     RC11, false},
    {"vyukov-queue",            RC11, false}, {"spsc-ring-4",             RC11, true},
};
// clang-format on

class LinModels : public ::testing::TestWithParam<Row> {};

TEST_P(LinModels, CheckerAgreesWithTheOracleOnEveryExecution) {
  const Row& row = GetParam();
  const atomcheck::ProgramInfo* info = atomcheck::find_program(row.model);
  ASSERT_NE(info, nullptr) << row.model;
  ExploreOptions o;
  o.memory = row.memory;
  o.stop_on_failure = false;
  o.max_executions = 100000;
  o.checkers = {"linearizability", "linearizability-oracle"};
  std::uint64_t flagged = 0, judged = 0;
  ExploreResult r = atomcheck::explore(info->body, o, [&](const atomcheck::ExecutionView& v) {
    ASSERT_EQ(v.verdicts->size(), 2u);
    const atomcheck::Verdict& checker = (*v.verdicts)[0];
    const atomcheck::Verdict& oracle = (*v.verdicts)[1];
    if (!checker.decided() && checker.checker.empty()) return;  // not judged (pruned, cut)
    ++judged;
    ASSERT_TRUE(checker.decided()) << checker.undecided;
    ASSERT_TRUE(oracle.decided()) << oracle.undecided;
    EXPECT_EQ(checker.flags(), oracle.flags())
        << row.model << ": execution " << v.index << ", schedule '" << v.schedule << "'\n"
        << checker.note;
    if (checker.flags()) {
      ++flagged;
      EXPECT_NE(checker.note.find("not linearizable"), std::string::npos);
    }
  });
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.stop, atomcheck::StopReason::none);
  EXPECT_GT(judged, 0u);
  EXPECT_EQ(flagged == 0, row.linearizable) << row.model << ": " << flagged << " of " << judged
                                            << " executions not linearizable";
  std::printf("[lin] %-24s %-3s executions=%llu judged=%llu not-linearizable=%llu\n", row.model,
              std::string(atomcheck::memory_model_name(row.memory)).c_str(), static_cast<unsigned long long>(r.executions),
              static_cast<unsigned long long>(judged), static_cast<unsigned long long>(flagged));
}

INSTANTIATE_TEST_SUITE_P(Library, LinModels, ::testing::ValuesIn(kRows), [](const auto& info) {
  std::string n = std::string(info.param.model) + "_" + std::string(atomcheck::memory_model_name(info.param.memory));
  for (char& c : n)
    if (c == '-') c = '_';
  return n;
});

TEST(LinCli, CheckersListsLinearizability) {
  auto r = atomcheck::testing::run_cli({"checkers"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("linearizability "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("linearizability-oracle"), std::string::npos) << r.out;
}

TEST(LinCli, CorrectObjectsPass) {
  for (const char* model : {"treiber-stack", "ms-queue"})
    for (const char* memory : {"sc", "tso"}) {
      auto r = atomcheck::testing::run_cli({"run", model, "--memory", memory, "--checker", "linearizability"});
      EXPECT_EQ(r.exit_code, 0) << model << " " << memory << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find("linearizability flagged 0"), std::string::npos) << r.out;
    }
}

// A broken object: flagged, the shortest failing history printed with arguments and
// results, and the replay command shows the same history again.
TEST(LinCli, BrokenObjectsAreFlaggedWithTheirHistory) {
  for (const char* model : {"treiber-stack-racy-push", "ms-queue-racy-link", "treiber-stack-aba"})
    for (const char* memory : {"sc", "tso"}) {
      auto r = atomcheck::testing::run_cli({"run", model, "--memory", memory, "--checker", "linearizability"});
      EXPECT_EQ(r.exit_code, 1) << model << " " << memory << "\n" << r.out << r.err;
      const std::size_t at = r.out.find("checker linearizability flagged execution");
      ASSERT_NE(at, std::string::npos) << r.out;
      EXPECT_NE(r.out.find("the shortest failing history", at), std::string::npos) << r.out;
      EXPECT_NE(r.out.find(") -> ", at), std::string::npos) << r.out;
      // The replay command the report prints, run as printed.
      const std::size_t q1 = r.out.find("--replay '", at), q2 = r.out.find('\'', q1 + 10);
      ASSERT_NE(q1, std::string::npos);
      const std::string schedule = r.out.substr(q1 + 10, q2 - q1 - 10);
      auto replay = atomcheck::testing::run_cli(
          {"run", model, "--replay", schedule, "--memory", memory, "--checker", "linearizability"});
      EXPECT_EQ(replay.exit_code, 1) << replay.out << replay.err;
      EXPECT_NE(replay.out.find("checker linearizability: not linearizable"), std::string::npos) << replay.out;
      EXPECT_NE(replay.out.find("the shortest failing history"), std::string::npos) << replay.out;
    }
}

}  // namespace

namespace {

// `validate` pairs the checker with its judge and prints the confusion matrix.
TEST(LinCli, ValidateJudgesTheCheckerByItsOracle) {
  auto r = atomcheck::testing::run_cli(
      {"validate", "treiber-stack-aba", "--checker", "linearizability", "--strategy", "optimal", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& c = j["runs"][0]["checkers"][0];
  EXPECT_EQ(c["name"], "linearizability");
  EXPECT_EQ(c["judge"], "linearizability-oracle");
  const auto& q = c["questions"][0];
  EXPECT_GT(q["tp"].get<std::uint64_t>(), 0u);  // the ABA execution
  EXPECT_EQ(q["fp"].get<std::uint64_t>() + q["fn"].get<std::uint64_t>(), 0u);
  EXPECT_GT(q["tn"].get<std::uint64_t>(), 0u);
}

}  // namespace
