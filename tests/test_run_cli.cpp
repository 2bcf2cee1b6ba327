// `atomcheck list` and `atomcheck run` end to end: summaries, replay of a reported
// schedule, JSON output, limits with exit 3 (including Ctrl-C), and the exit codes and
// one-line messages for bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

using testing::run_cli;
using testing::run_cli_interrupted;
using testing::shell_words;

TEST(RunCli, ListShowsProgramsWithDescriptions) {
  auto r = run_cli({"list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("lost-update"), std::string::npos);
  EXPECT_NE(r.out.find("store buffering"), std::string::npos);
  auto j = run_cli({"list", "--json"});
  EXPECT_EQ(j.exit_code, 0);
  auto parsed = nlohmann::json::parse(j.out);
  EXPECT_GE(parsed.size(), 8u);
}

// The DFS estimate bounds DPOR's executions under sc and tso; under rc11 TruSt also counts
// the revisits the memory model refuses, which no DFS leaf matches, and the summary says
// so instead of "bound".
TEST(RunCli, TheEstimateIsCalledABoundOnlyWhereItIsOne) {
  auto sc = run_cli({"run", "refcount-double-free"});
  EXPECT_NE(sc.out.find("(DFS tree size: an upper bound for DPOR)"), std::string::npos) << sc.out;
  auto rc = run_cli({"run", "refcount-double-free", "--memory", "rc11"});
  EXPECT_EQ(rc.out.find("upper bound"), std::string::npos) << rc.out;
  EXPECT_NE(rc.out.find("not a bound: TruSt"), std::string::npos) << rc.out;
}

TEST(RunCli, LostUpdateFailsAndItsScheduleReplays) {
  auto r = run_cli({"run", "lost-update", "--strategy", "dfs", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["executions"], 6);
  ASSERT_FALSE(j["failures"].empty());
  std::string schedule = j["failures"][0]["schedule"];
  auto rep = run_cli({"run", "lost-update", "--replay", schedule});
  EXPECT_EQ(rep.exit_code, 1) << rep.err;
  EXPECT_NE(rep.out.find("assertion failed: lost update"), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("write x = 1"), std::string::npos) << rep.out;
  auto table = run_cli({"run", "lost-update", "--strategy", "dfs"});
  EXPECT_EQ(table.exit_code, 1);
  EXPECT_NE(table.out.find("--replay '" + schedule + "'"), std::string::npos) << table.out;
}

// dcl-init passes its checks under SC but races on its payload (docs/data-races.md): a
// failure naming both accesses, whose replay command carries --no-race-check only when
// it was given; with it the run passes.
TEST(RunCli, DataRaceFailsAndNoRaceCheckTurnsItOff) {
  auto r = run_cli({"run", "dcl-init", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["failures"].empty()) << r.out;
  const std::string message = j["failures"][0]["message"];
  EXPECT_NE(message.find("data race on payload: T1 writes 42 at data_structures.cpp:"), std::string::npos)
      << message;
  auto rep = run_cli({"run", "dcl-init", "--replay", j["failures"][0]["schedule"], "--json"});
  EXPECT_EQ(rep.exit_code, 1) << rep.err;
  auto jr = nlohmann::json::parse(rep.out);
  EXPECT_EQ(jr["failure"]["kind"], "data race");
  EXPECT_EQ(jr["failure"]["message"], message);
  auto off = run_cli({"run", "dcl-init", "--no-race-check"});
  EXPECT_EQ(off.exit_code, 0) << off.out << off.err;
  EXPECT_EQ(off.out.find("data race"), std::string::npos) << off.out;
  auto racy_off = run_cli({"run", "lock-tas-broken", "--no-race-check"});
  EXPECT_EQ(racy_off.exit_code, 1);
  EXPECT_NE(racy_off.out.find("--no-race-check"), std::string::npos) << racy_off.out;
}

// Issue 57, item 4: the command printed for a failure carries the memory model and every
// flag that shapes its execution, and run as printed it reproduces the failure, which it
// does not without the memory model.
TEST(RunCli, ReplayCommandsCarryTheOptionsThatShapeTheExecution) {
  struct Case {
    std::vector<std::string> args;
    std::string flags;  // as the command must print them
    std::string message;
  };
  const Case cases[] = {
      {{"run", "tso-dekker", "--memory", "tso", "--max-steps", "900", "--spin-threshold", "90",
        "--no-spurious-wakeups"},
       " --memory tso --max-steps 900 --spin-threshold 90 --no-spurious-wakeups",
       "mutual exclusion violated"},
      {{"run", "mp-relaxed", "--memory", "rc11", "--depth-bound", "100", "--no-loop-reduction", "--no-race-check"},
       " --memory rc11 --no-loop-reduction --no-race-check --depth-bound 100",
       "saw the flag but not the data"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args[1]);
    auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const std::size_t arrow = r.out.find("  ->  atomcheck run ");
    ASSERT_NE(arrow, std::string::npos) << r.out;
    const std::size_t begin = arrow + 6;
    const std::string command = r.out.substr(begin, r.out.find('\n', begin) - begin);
    EXPECT_EQ(command.substr(command.rfind('\'') + 1), c.flags) << command;
    std::vector<std::string> words = shell_words(command);
    words.erase(words.begin());  // the tool's name
    auto again = run_cli(words);
    EXPECT_EQ(again.exit_code, 1) << command << "\n" << again.out << again.err;
    EXPECT_NE(again.out.find(c.message), std::string::npos) << again.out;
    const auto memory = std::find(words.begin(), words.end(), "--memory");
    ASSERT_NE(memory, words.end());
    words.erase(memory, memory + 2);
    auto dropped = run_cli(words);
    EXPECT_FALSE(dropped.exit_code == 1 && dropped.out.find(c.message) != std::string::npos) << dropped.out;
  }
}

// The allocator model's options from the command line: --reuse-freed makes the stale
// pointer of an untagged stack reach a reused node, the printed replay command carries
// it, and --no-leak-check quiets a model whose pop never retires its node.
TEST(RunCli, AllocatorFlagsReachTheSearchAndItsReplayCommand) {
  auto r = run_cli({"run", "treiber-untagged-reuse", "--reuse-freed", "--jobs", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("use after free"), std::string::npos) << r.out;
  const std::size_t arrow = r.out.find("  ->  atomcheck run ");
  ASSERT_NE(arrow, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--reuse-freed", arrow), std::string::npos) << r.out;
  auto leak = run_cli({"run", "hp-stack-leak", "--jobs", "1"});
  EXPECT_EQ(leak.exit_code, 1) << leak.out;
  EXPECT_NE(leak.out.find("leak"), std::string::npos) << leak.out;
  auto quiet = run_cli({"run", "hp-stack-leak", "--jobs", "1", "--no-leak-check"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.out << quiet.err;
}

TEST(RunCli, LockInversionDeadlockReplays) {
  auto r = run_cli({"run", "lock-inversion", "--json"});
  EXPECT_EQ(r.exit_code, 1);
  auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["deadlocks"].get<int>(), 0);
  std::string schedule = j["failures"][0]["schedule"];
  auto rep = run_cli({"run", "lock-inversion", "--replay", schedule, "--json"});
  EXPECT_EQ(rep.exit_code, 1);
  auto jr = nlohmann::json::parse(rep.out);
  EXPECT_EQ(jr["failure"]["kind"], "deadlock");
  EXPECT_EQ(jr["failure"]["message"], j["failures"][0]["message"]);
}

TEST(RunCli, CorrectProgramExitsZeroWithOutcomes) {
  auto r = run_cli({"run", "locked-counter"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(exhausted)"), std::string::npos);
  auto sb = run_cli({"run", "sb", "--strategy", "dfs", "--json"});
  EXPECT_EQ(sb.exit_code, 0);
  auto j = nlohmann::json::parse(sb.out);
  EXPECT_EQ(j["executions"], 6);
  EXPECT_EQ(j["outcomes"].size(), 3u);
  auto tso = run_cli({"run", "sb", "--strategy", "dfs", "--memory", "tso", "--json"});
  EXPECT_EQ(tso.exit_code, 0);
  auto jt = nlohmann::json::parse(tso.out);
  EXPECT_EQ(jt["executions"], 140);  // tests/test_tso.cpp, StoreBufferingHas140Schedules
  EXPECT_EQ(jt["outcomes"].size(), 4u);
}

TEST(RunCli, CheckersAreCountedPerExecution) {
  auto r = run_cli({"run", "lost-update", "--strategy", "dfs", "--checker", "oracle", "--json"});
  EXPECT_EQ(r.exit_code, 1);
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["checkers"].size(), 1u);
  // The increments are atomic blocks: the interleaved executions are not serializable.
  EXPECT_EQ(j["checkers"][0]["flagged"], 4);
  EXPECT_FALSE(j["checkers"][0]["first_schedule"].get<std::string>().empty());
}

TEST(RunCli, LimitsCutTheSearchWithExit3) {
  auto r = run_cli({"run", "iriw", "--strategy", "dfs", "--max-executions", "5"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("stopped: budget"), std::string::npos) << r.out;
  auto t = run_cli({"run", "iriw", "--strategy", "random", "--max-executions", "1000000000",
                    "--time-limit", "0.2"});
  EXPECT_EQ(t.exit_code, 3) << t.out;
  EXPECT_NE(t.out.find("stopped: time"), std::string::npos) << t.out;
  auto rnd = run_cli({"run", "iriw", "--strategy", "random", "--seed", "3", "--max-executions",
                      "100"});
  EXPECT_EQ(rnd.exit_code, 0) << rnd.out;  // the sample size is the strategy's natural end
}

TEST(RunCli, SpinLoopReportsStepBound) {
  auto r = run_cli({"run", "spin", "--max-steps", "50"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("did not terminate within 50 steps"), std::string::npos) << r.out;
  auto y = run_cli({"run", "spin-yield"});
  EXPECT_EQ(y.exit_code, 0) << y.out;
}

// Issue 18, item 2: with the default options the unmarked spin is diagnosed once, with
// its line, the search ends (exit 3: the result rests on the diagnosis), and the
// command it prints replays the spinning execution. Without the diagnosis the default
// step bound (Loom's 1000 branches) reports it as a failure.
TEST(RunCli, SpinLoopIsDiagnosedWithDefaultOptions) {
  for (const char* memory : {"sc", "tso"}) {
    auto r = run_cli({"run", "spin", "--memory", memory});
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.out.find("*** SPIN WITHOUT yield(): T1 read flag = 0 at classics.cpp:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("100 times in a row (in "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("write the loop with spin_until or yield()"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("step-bounded 0"), r.out.find("step-bounded")) << r.out;
    const std::string marker = "first such execution: atomcheck run spin --replay '";
    const std::size_t at = r.out.find(marker);
    ASSERT_NE(at, std::string::npos) << r.out;
    const std::size_t begin = at + marker.size();
    const std::string schedule = r.out.substr(begin, r.out.find('\'', begin) - begin);
    auto rep = run_cli({"run", "spin", "--memory", memory, "--replay", schedule});
    EXPECT_EQ(rep.exit_code, 0) << rep.out << rep.err;
    EXPECT_NE(rep.out.find("execution blocked in a wait"), std::string::npos) << rep.out;
    auto j = nlohmann::json::parse(run_cli({"run", "spin", "--memory", memory, "--json"}).out);
    EXPECT_GT(j["unmarked_spins"].get<int>(), 0);
    EXPECT_EQ(j["unmarked_spin_schedule"], schedule);
  }
  auto off = run_cli({"run", "spin", "--spin-threshold", "0"});
  EXPECT_EQ(off.exit_code, 1) << off.out << off.err;
  EXPECT_NE(off.out.find("[step bound] did not terminate within 1000 steps (a spin loop without yield()? "
                         "use spin_until;"),
            std::string::npos)
      << off.out;
}

TEST(RunCli, BadInputExits2WithOneLine) {
  auto r = run_cli({"run", "no-such-program"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "no-such-program: unknown program (see `atomcheck list`)\n");
  auto c = run_cli({"run", "sb", "--checker", "nope"});
  EXPECT_EQ(c.exit_code, 2);
  EXPECT_NE(c.err.find("nope: unknown checker"), std::string::npos);
  auto s = run_cli({"run", "lost-update", "--replay", "7"});
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_NE(s.err.find("does not fit the program"), std::string::npos) << s.err;
  auto syntax = run_cli({"run", "lost-update", "--replay", "1?"});
  EXPECT_EQ(syntax.exit_code, 2);
  EXPECT_NE(syntax.err.find("bad schedule"), std::string::npos) << syntax.err;
  auto m = run_cli({"run", "sb", "--memory", "pso"});
  EXPECT_EQ(m.exit_code, 2);
}

// The small slips a newcomer hit (issue 21, item 8): each is one short line and exit 2.
TEST(RunCli, SlipsGetOneShortLine) {
  auto steps = run_cli({"run", "sb", "--max-steps", "0"});
  EXPECT_EQ(steps.exit_code, 2);
  EXPECT_NE(steps.err.find("--max-steps: '0' is not a whole number of at least 1"), std::string::npos)
      << steps.err;
  EXPECT_LT(steps.err.size(), 120u) << steps.err;
  auto seed = run_cli({"run", "sb", "--strategy", "random", "--seed", "-1"});
  EXPECT_EQ(seed.exit_code, 2) << seed.out;
  EXPECT_NE(seed.err.find("--seed: '-1' is not a non-negative whole number"), std::string::npos)
      << seed.err;
  std::string dir = testing::temp_dir();
  auto d = run_cli({"run", dir});
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_EQ(d.err, dir + ": is a directory, not a program, .litmus or .json file\n");
  auto check = run_cli({"check-trace", "--help"});
  EXPECT_NE(check.out.find("default: every SC conflict checker"), std::string::npos) << check.out;
}

TEST(RunCli, CtrlCPrintsPartialSummaryAndExits3) {
  auto r = run_cli_interrupted({"run", "iriw", "--strategy", "random", "--max-executions", "1000000000"}, 300);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("stopped: interrupted"), std::string::npos) << r.out;
}

// ---- issue 38, item 4: messages a person can act on ---------------------------------

// A binary calling cli_main under another name prints replay commands under that name.
TEST(RunCliReadable, ReplayHintsNameTheRunningBinary) {
  const std::string dir = testing::temp_dir();
  const std::string tool = dir + "/my-stack-tests";
  std::filesystem::remove(tool);
  std::filesystem::create_symlink(ATOMCHECK_BIN, tool);
  std::string out;
  FILE* p = ::popen((tool + " run lost-update --strategy dfs --quiet 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::array<char, 4096> buf;
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  ::pclose(p);
  EXPECT_NE(out.find("->  my-stack-tests run lost-update --replay '"), std::string::npos) << out;
  EXPECT_EQ(out.find("atomcheck run"), std::string::npos) << out;
}

// A program name that is close to one registered gets a suggestion.
TEST(RunCliReadable, UnknownProgramSuggestsTheClosestName) {
  auto r = run_cli({"run", "treiber"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treiber: unknown program; did you mean treiber-stack? (see `atomcheck list`)\n");
  r = run_cli({"run", "lost-updte"});
  EXPECT_NE(r.err.find("did you mean lost-update?"), std::string::npos) << r.err;
}

// DPOR's search cut short is not "explored N of an estimated M": the estimate is the
// size of the DFS tree, an upper bound. The summary says how many jobs explored.
TEST(RunCliReadable, CutDporSearchCallsTheEstimateADfsBoundAndSaysTheJobs) {
  auto r = run_cli({"run", "iriw", "--strategy", "optimal", "--max-executions", "1", "--jobs", "1"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_EQ(r.out.find("of an estimated"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("*** explored 1 execution (DFS would take about "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("an upper bound, not optimal's size"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("strategy optimal   jobs 1\n"), std::string::npos) << r.out;
  r = run_cli({"run", "iriw", "--strategy", "dfs", "--max-executions", "5"});
  EXPECT_NE(r.out.find("*** explored 5 of an estimated "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("strategy dfs   jobs 1\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace atomcheck
