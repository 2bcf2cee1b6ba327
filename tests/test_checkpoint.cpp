// `atomcheck run --checkpoint FILE` / `--resume FILE` (docs/checkpoint.md): a search
// stopped anywhere (a budget, the time limit, Ctrl-C, SIGTERM) and resumed, once or in a
// chain, prints the uninterrupted search's summary; a checkpoint of another program or
// other options, or a damaged one, is refused in one line with exit 2; a failed write
// never replaces a good checkpoint. A parallel optimal search (--jobs 2) stopped anywhere,
// inside the runs it takes from a unit too, resumes with any job count to the one-job
// search's summary and executions.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/checkpoint.hpp"
#include "tests/support/result_summary.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"
#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

using testing::CliResult;
using testing::run_cli;

constexpr int kExitOk = 0, kExitProblem = 1, kExitBadInput = 2, kExitBudget = 3;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// The --json summary without what depends on the clock.
nlohmann::json summary(const CliResult& r) {
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
  if (j.is_object()) {
    j.erase("elapsed_seconds");
    j.erase("executions_per_second");
  }
  return j;
}

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// 1390 DFS executions, 1320 of them failing (10 kept, in order), outcomes.
const std::vector<std::string> kBank = {"run", "bank-split-locks", "--strategy", "dfs", "--json", "--quiet"};
// 20 DFS executions, two checkers that flag some of them.
const std::vector<std::string> kChecked = {"run",      "bank-check-then-lock", "--strategy", "dfs",
                                           "--checker", "velodrome,atomic-set", "--json",    "--quiet"};

// Runs `cmd` stopped after k executions with a checkpoint, then resumed without a
// budget: the resumed summary must be `full`'s, its exit code `full_exit`.
void stop_and_resume(const std::vector<std::string>& cmd, std::uint64_t k, const nlohmann::json& full,
                     int full_exit) {
  SCOPED_TRACE("k = " + std::to_string(k));
  const std::string file = testing::temp_dir() + "/search.ckpt";
  // k = 0 cannot be a budget (--max-executions 0 is no limit): a time limit that has run
  // out before the first execution stops there.
  const std::vector<std::string> stop = k == 0 ? std::vector<std::string>{"--time-limit", "1e-9"}
                                               : std::vector<std::string>{"--max-executions", std::to_string(k)};
  CliResult stopped = run_cli(with(with(cmd, stop), {"--checkpoint", file}));
  const nlohmann::json part = summary(stopped);
  ASSERT_EQ(part.value("executions", ~0ull), k) << stopped.out << stopped.err;
  ASSERT_EQ(part.value("stop", ""), k == 0 ? "time" : "budget");
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
  EXPECT_NE(stopped.err.find(file + ": search saved after " + std::to_string(k) + " executions; go on with --resume"),
            std::string::npos)
      << stopped.err;
  CliResult resumed = run_cli(with(cmd, {"--resume", file}));
  EXPECT_EQ(resumed.exit_code, full_exit) << resumed.err;
  EXPECT_EQ(summary(resumed), full) << "resumed:\n" << resumed.out << "\nuninterrupted:\n" << full.dump(2);
}

TEST(Checkpoint, DfsBudgetStopsResumeToTheUninterruptedSummary) {
  const CliResult whole = run_cli(kBank);
  const nlohmann::json full = summary(whole);
  ASSERT_EQ(full.value("executions", 0ull), 1390u) << whole.out;
  ASSERT_EQ(full.value("stop", ""), "exhausted");
  ASSERT_EQ(full["failures"].size(), 10u);
  for (std::uint64_t k : {0ull, 1ull, 2ull, 17ull, 64ull, 65ull, 695ull, 1389ull, 1390ull})
    stop_and_resume(kBank, k, full, whole.exit_code);
}

TEST(Checkpoint, DfsWithCheckersResumesFromEveryExecution) {
  const CliResult whole = run_cli(kChecked);
  const nlohmann::json full = summary(whole);
  ASSERT_EQ(full.value("executions", 0ull), 20u) << whole.out;
  ASSERT_EQ(full["checkers"].size(), 2u);
  ASSERT_GT(full["checkers"][0].value("flagged", 0ull), 0u);
  for (std::uint64_t k = 0; k <= 20; ++k) stop_and_resume(kChecked, k, full, whole.exit_code);
}

// The text summary prints the first flagged verdict's note, which --json leaves out.
TEST(Checkpoint, TextSummaryOfAResumedSearchIsTheUninterruptedOne) {
  std::vector<std::string> cmd = kChecked;
  cmd.erase(std::find(cmd.begin(), cmd.end(), "--json"));
  auto without_elapsed = [](const std::string& out) {
    std::string kept;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("elapsed", 0) != 0) kept += line + "\n";
    return kept;
  };
  const CliResult whole = run_cli(cmd);
  const std::string file = testing::temp_dir() + "/text.ckpt";
  ASSERT_EQ(run_cli(with(cmd, {"--max-executions", "7", "--checkpoint", file})).exit_code, kExitProblem);
  const CliResult resumed = run_cli(with(cmd, {"--resume", file}));
  EXPECT_EQ(without_elapsed(resumed.out), without_elapsed(whole.out));
  EXPECT_NE(whole.out.find("flagged execution"), std::string::npos) << whole.out;
}

TEST(Checkpoint, AChainOfThreeResumesInOneFile) {
  const CliResult whole = run_cli(kBank);
  const std::string file = testing::temp_dir() + "/chain.ckpt";
  CliResult r = run_cli(with(kBank, {"--max-executions", "100", "--checkpoint", file}));
  ASSERT_EQ(summary(r).value("executions", 0ull), 100u) << r.err;
  // The budget counts the executions of every run, not of this one.
  r = run_cli(with(kBank, {"--max-executions", "500", "--resume", file, "--checkpoint", file}));
  ASSERT_EQ(summary(r).value("executions", 0ull), 500u) << r.err;
  r = run_cli(with(kBank, {"--max-executions", "1000", "--resume", file, "--checkpoint", file}));
  ASSERT_EQ(summary(r).value("executions", 0ull), 1000u) << r.err;
  r = run_cli(with(kBank, {"--resume", file, "--checkpoint", file}));
  EXPECT_EQ(r.exit_code, whole.exit_code) << r.err;
  EXPECT_EQ(summary(r), summary(whole));
  // The search has ended: resuming its checkpoint gives the result again, at once.
  r = run_cli(with(kBank, {"--resume", file}));
  EXPECT_EQ(summary(r), summary(whole));
}

TEST(Checkpoint, PreemptionBoundAndDepthBoundResume) {
  const std::vector<std::string> cmd = with(kBank, {"--preemption-bound", "1", "--depth-bound", "30"});
  const CliResult whole = run_cli(cmd);
  const nlohmann::json full = summary(whole);
  ASSERT_EQ(full.value("stop", ""), "bound") << whole.out << whole.err;
  const std::uint64_t n = full.value("executions", 0ull);
  ASSERT_GT(n, 10u);
  for (std::uint64_t k : std::vector<std::uint64_t>{1, n / 3, n - 1}) stop_and_resume(cmd, k, full, whole.exit_code);
}

// The default strategy, optimal DPOR: its wakeup trees and sleep sets along the path are
// the state; source-DPOR's are its backtrack and sleep sets (and the sleep-blocked count).
// Under SC and TSO, with checkers that need the issue order.
TEST(Checkpoint, DporBudgetStopsResumeToTheUninterruptedSummary) {
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"run", "lastzero-8", "--jobs", "1", "--json", "--quiet"},
        std::vector<std::string>{"run", "lastzero-8", "--strategy", "dpor", "--json", "--quiet"},
        std::vector<std::string>{"run", "hammer-account-unlocked", "--strategy", "dpor", "--checker", "velodrome",
                                 "--json", "--quiet"},
        std::vector<std::string>{"run", "lastzero-8", "--memory", "tso", "--jobs", "1", "--json", "--quiet"},
        std::vector<std::string>{"run", "hammer-account-unlocked", "--checker", "velodrome,tso-exec", "--jobs", "1", "--memory",
                                 "tso", "--json", "--quiet"}}) {
    SCOPED_TRACE(cmd[1] + " " + cmd[3]);
    const CliResult whole = run_cli(cmd);
    const nlohmann::json full = summary(whole);
    ASSERT_EQ(full.value("stop", ""), "exhausted") << whole.out << whole.err;
    const std::uint64_t n = full.value("executions", 0ull);
    ASSERT_GT(n, 300u);
    for (std::uint64_t k : std::vector<std::uint64_t>{0, 1, 2, 65, n / 2, n - 1, n})
      stop_and_resume(cmd, k, full, whole.exit_code);
  }
}

// RC11: TruSt's work stack of plans (strategy_trust.cpp), on one job (two: the parallel
// test below).
TEST(Checkpoint, Rc11ResumesToTheUninterruptedSummary) {
  const std::vector<std::string> cmd = {"run", "seqlock-weak-reader", "--memory", "rc11", "--jobs", "1", "--json", "--quiet"};
  const CliResult whole = run_cli(cmd);
  const nlohmann::json full = summary(whole);
  ASSERT_EQ(full.value("stop", ""), "exhausted") << whole.out << whole.err;
  ASSERT_GT(full.value("failed", 0ull), 0u);
  const std::uint64_t n = full.value("executions", 0ull);
  ASSERT_GT(n, 20u);  // optimal: one execution per graph, plus the ones cut short
  for (std::uint64_t k : std::vector<std::uint64_t>{1, n / 3, n - 1}) stop_and_resume(cmd, k, full, whole.exit_code);
}

TEST(Checkpoint, OptimalChainOfResumes) {
  const std::vector<std::string> cmd = {"run", "lastzero-10", "--memory", "tso", "--jobs", "1", "--json", "--quiet"};
  const CliResult whole = run_cli(cmd);
  const std::string file = testing::temp_dir() + "/optimal.ckpt";
  CliResult r = run_cli(with(cmd, {"--max-executions", "333", "--checkpoint", file}));
  ASSERT_EQ(summary(r).value("executions", 0ull), 333u) << r.err;
  for (const char* budget : {"1000", "2000", "3000"}) {
    r = run_cli(with(cmd, {"--max-executions", budget, "--resume", file, "--checkpoint", file}));
    ASSERT_EQ(summary(r).value("executions", 0ull), std::stoull(budget)) << r.err;
  }
  r = run_cli(with(cmd, {"--resume", file, "--checkpoint", file}));
  EXPECT_EQ(r.exit_code, whole.exit_code) << r.err;
  EXPECT_EQ(summary(r), summary(whole));
}

// Ctrl-C and SIGTERM stop a search at some execution, whichever: the resumed summary
// does not depend on where.
TEST(Checkpoint, CtrlCAndSigtermStopsResume) {
  const std::vector<std::string> cmd = {"run", "treiber-stack", "--strategy", "dfs", "--no-loop-reduction", "--json", "--quiet"};
  const CliResult whole = run_cli(cmd);
  const nlohmann::json full = summary(whole);
  ASSERT_EQ(full.value("stop", ""), "exhausted") << whole.out;
  for (int sig : {SIGINT, SIGTERM}) {
    SCOPED_TRACE(sig == SIGINT ? "SIGINT" : "SIGTERM");
    const std::string file = testing::temp_dir() + "/signal.ckpt";
    const CliResult stopped = testing::run_cli_signalled(with(cmd, {"--checkpoint", file}), 200, sig);
    ASSERT_EQ(stopped.exit_code, kExitBudget) << stopped.err;
    ASSERT_EQ(summary(stopped).value("stop", ""), "interrupted");
    const CliResult resumed = run_cli(with(cmd, {"--resume", file}));
    EXPECT_EQ(resumed.exit_code, whole.exit_code) << resumed.err;
    EXPECT_EQ(summary(resumed), full);
  }
}

// Without --checkpoint SIGTERM keeps its default action: the process ends at once.
TEST(Checkpoint, SigtermWithoutCheckpointEndsTheProcess) {
  const CliResult r = testing::run_cli_signalled({"run", "treiber-stack", "--strategy", "dfs", "--no-loop-reduction", "--quiet"}, 100, SIGTERM);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);
}

TEST(Checkpoint, RandomAndPctResumeFromATimeStop) {
  for (const char* strategy : {"random", "pct"}) {
    SCOPED_TRACE(strategy);
    const std::vector<std::string> cmd = {"run",        "bank-split-locks", "--strategy", strategy, "--seed", "7",
                                          "--max-executions", "3000", "--json", "--quiet"};
    const CliResult whole = run_cli(cmd);
    const nlohmann::json full = summary(whole);
    ASSERT_EQ(full.value("executions", 0ull), 3000u) << whole.out;
    // A time limit past before the first sample, then one that may stop anywhere (or
    // not at all on a fast machine: then the checkpoint is a finished one).
    const std::string file = testing::temp_dir() + "/sample.ckpt";
    CliResult r = run_cli(with(cmd, {"--time-limit", "1e-9", "--checkpoint", file}));
    ASSERT_EQ(summary(r).value("executions", ~0ull), 0u) << r.out << r.err;
    r = run_cli(with(cmd, {"--time-limit", "0.05", "--resume", file, "--checkpoint", file}));
    ASSERT_LE(summary(r).value("executions", ~0ull), 3000u) << r.err;
    r = run_cli(with(cmd, {"--resume", file}));
    EXPECT_EQ(r.exit_code, whole.exit_code) << r.err;
    EXPECT_EQ(summary(r), full);
  }
}

// A fresh search needs no fixed name; these hold for every refused combination.
void expect_refused(const CliResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, kExitBadInput) << r.out << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Checkpoint, AnotherProgramOrOtherSearchOptionsAreRefused) {
  const std::string dir = testing::temp_dir();
  const std::string file = dir + "/bank.ckpt";
  const std::vector<std::string> cmd = {"run", "bank-split-locks", "--strategy", "dfs", "--quiet"};
  ASSERT_EQ(run_cli(with(cmd, {"--max-executions", "5", "--checkpoint", file})).exit_code, kExitBudget);
  const std::string good = slurp(file);
  CliResult r = run_cli({"run", "lost-update", "--strategy", "dfs", "--resume", file});
  expect_refused(r, file + ": checkpoint of 'bank-split-locks' --memory sc --strategy dfs, not of 'lost-update' "
                           "--memory sc --strategy dfs");
  r = run_cli(with(cmd, {"--resume", file, "--memory", "tso"}));
  expect_refused(r, "checkpoint of 'bank-split-locks' --memory sc --strategy dfs, not of 'bank-split-locks' "
                    "--memory tso --strategy dfs");
  r = run_cli(with(cmd, {"--resume", file, "--seed", "3"}));
  expect_refused(r, "--strategy dfs --seed 0, not of 'bank-split-locks' --memory sc --strategy dfs --seed 3");
  r = run_cli(with(cmd, {"--resume", file, "--max-steps", "50"}));
  expect_refused(r, "--max-steps 50");
  r = run_cli(with(cmd, {"--resume", file, "--preemption-bound", "2"}));
  expect_refused(r, "--preemption-bound 2");
  r = run_cli(with(cmd, {"--resume", file, "--checker", "velodrome"}));
  expect_refused(r, "--checker velodrome");
  r = run_cli(with(cmd, {"--resume", file, "--no-race-check"}));
  expect_refused(r, "not of 'bank-split-locks' --memory sc --strategy dfs --no-race-check");
  r = run_cli({"run", "bank-split-locks", "--strategy", "random", "--resume", file});
  expect_refused(r, "--strategy random");
  // Budgets and the output are no part of the search.
  r = run_cli(with(cmd, {"--resume", file, "--max-executions", "10", "--time-limit", "100", "--json", "--stack-kib", "128"}));
  EXPECT_EQ(r.exit_code, kExitBudget) << r.err;
  EXPECT_EQ(summary(r).value("executions", 0ull), 10u);
  EXPECT_EQ(slurp(file), good);  // read, never written without --checkpoint
}

TEST(Checkpoint, UnsupportedCombinationsAreRefusedInOneLine) {
  const std::string file = testing::temp_dir() + "/x.ckpt";
  expect_refused(run_cli({"run", testing::data_path("litmus/sb.litmus"), "--checkpoint", file}),
                 "registered programs, not to files");
  expect_refused(run_cli({"run", "lost-update", "--strategy", "random", "--jobs", "2", "--checkpoint", file}),
                 "--checkpoint of split samples needs one job; drop --jobs 2");
  expect_refused(run_cli({"run", "lost-update", "--strategy", "pct", "--jobs", "2", "--resume", file}),
                 "--resume of split samples needs one job");
  expect_refused(run_cli({"run", "lost-update", "--strategy", "dfs", "--checkpoint-every", "5"}), "needs --checkpoint");
  expect_refused(run_cli({"run", "lost-update", "--replay", "0", "--checkpoint", file}), "--replay");
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
  expect_refused(run_cli({"run", "lost-update", "--strategy", "dfs", "--resume", file}), file + ": cannot read");
}

// A real checkpoint, mid-search, with failures, outcomes and checkers in it.
std::string real_checkpoint(std::string& dir) {
  dir = testing::temp_dir();
  const std::string file = dir + "/real.ckpt";
  const CliResult r = run_cli(with(kChecked, {"--max-executions", "9", "--checkpoint", file}));
  EXPECT_EQ(r.exit_code, kExitProblem) << r.err;
  return slurp(file);
}

TEST(Checkpoint, EveryTruncationIsRefused) {
  std::string dir;
  const std::string text = real_checkpoint(dir);
  ASSERT_GT(text.size(), 500u);
  cli::SearchIdentity id;
  SearchState state;
  ASSERT_EQ(cli::parse_checkpoint(text, id, state), "");
  ASSERT_EQ(state.result.executions, 9u);
  // The final newline is no part of the JSON: cutting it changes nothing.
  for (std::size_t n = 0; n + 1 < text.size(); ++n) {
    const std::string e = cli::parse_checkpoint(std::string_view(text).substr(0, n), id, state);
    EXPECT_FALSE(e.empty()) << "a checkpoint cut to " << n << " bytes was taken";
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  // Through the command: one line naming the file, exit 2, for a few lengths.
  const std::string file = dir + "/cut.ckpt";
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, text.size() / 2, text.size() - 2}) {
    spit(file, text.substr(0, n));
    const CliResult r = run_cli(with(kChecked, {"--resume", file}));
    expect_refused(r, "atomcheck: " + file + ": ");
  }
}

TEST(Checkpoint, ByteFlipsAreRefused) {
  std::string dir;
  const std::string text = real_checkpoint(dir);
  cli::SearchIdentity id;
  SearchState state;
  std::size_t checksum_caught = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    for (unsigned char bit : {0x01, 0x20, 0x80}) {
      std::string bad = text;
      bad[i] = static_cast<char>(bad[i] ^ bit);
      const std::string e = cli::parse_checkpoint(bad, id, state);
      EXPECT_FALSE(e.empty()) << "byte " << i << " ^ " << int(bit) << " was taken";
      checksum_caught += e.find("checksum") != std::string::npos;
    }
  }
  // Most flips keep the JSON well formed: the checksum is what catches them.
  EXPECT_GT(checksum_caught, text.size());
  const std::string file = dir + "/flip.ckpt";
  std::string bad = text;
  bad[text.size() / 2] = static_cast<char>(bad[text.size() / 2] ^ 0x01);
  spit(file, bad);
  expect_refused(run_cli(with(kChecked, {"--resume", file})), "atomcheck: " + file + ": damaged checkpoint");
}

// A checkpoint whose checksum holds but whose strategy state cannot be DFS's (written by
// hand, or by another version): refused by the strategy, not followed out of bounds.
TEST(Checkpoint, AStrategyStateThatDoesNotFitIsRefused) {
  std::string dir;
  const std::string text = real_checkpoint(dir);
  cli::SearchIdentity id;
  SearchState state;
  ASSERT_EQ(cli::parse_checkpoint(text, id, state), "");
  ASSERT_GE(state.strategy.size(), 7u);
  const std::string file = dir + "/forged.ckpt";
  const std::vector<std::uint64_t> good = state.strategy;
  // The top node's pick past its alternatives; then a node count past the words.
  std::vector<std::vector<std::uint64_t>> forged = {good, good, good, {1, 0, 1000}};
  forged[0][6] = forged[0][5];
  forged[1][3] = 0;  // a node with no enabled transition
  forged[2].push_back(3);  // a word after the nodes of an unbounded search
  for (const auto& words : forged) {
    state.strategy = words;
    spit(file, cli::checkpoint_text(id, state));
    expect_refused(run_cli(with(kChecked, {"--resume", file})), "atomcheck: " + file + ": the checkpoint's dfs state");
  }
}

// The same for the DPOR strategies' nodes: a state cut short or padded is refused.
TEST(Checkpoint, ADporStateThatDoesNotFitIsRefused) {
  for (const char* strategy : {"optimal", "dpor"}) {
    SCOPED_TRACE(strategy);
    const std::string dir = testing::temp_dir();
    const std::string file = dir + "/dpor.ckpt";
    const std::vector<std::string> cmd = {"run", "lastzero-5", "--strategy", strategy, "--jobs", "1", "--quiet"};
    ASSERT_EQ(run_cli(with(cmd, {"--max-executions", "20", "--checkpoint", file})).exit_code, kExitBudget);
    cli::SearchIdentity id;
    SearchState state;
    ASSERT_EQ(cli::parse_checkpoint(slurp(file), id, state), "");
    const std::vector<std::uint64_t> good = state.strategy;
    ASSERT_GT(good.size(), 20u);
    std::vector<std::vector<std::uint64_t>> forged = {good, good, good};
    forged[0].pop_back();
    forged[1].push_back(0);
    forged[2][2] = good.size();  // optimal: the blocked tally, dpor: the node count
    if (std::string(strategy) == "optimal") forged[2][3] = good.size();  // the node count
    for (const auto& words : forged) {
      state.strategy = words;
      spit(file, cli::checkpoint_text(id, state));
      expect_refused(run_cli(with(cmd, {"--resume", file})),
                     "atomcheck: " + file + ": the checkpoint's " + strategy + " state does not fit");
    }
  }
}

TEST(Checkpoint, AFailedWriteNeverReplacesAGoodCheckpoint) {
  const std::string dir = testing::temp_dir();
  const std::string file = dir + "/good.ckpt";
  ASSERT_EQ(cli::write_checkpoint_file(file, "good\n"), "");
  ASSERT_EQ(slurp(file), "good\n");
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
  // FILE.tmp cannot be created (a directory is in the way): FILE stays.
  std::filesystem::create_directory(file + ".tmp");
  std::string e = cli::write_checkpoint_file(file, "bad\n");
  EXPECT_NE(e.find("cannot create " + file + ".tmp"), std::string::npos) << e;
  EXPECT_EQ(slurp(file), "good\n");
  std::filesystem::remove(file + ".tmp");
  // The rename fails (FILE is a directory that is not empty): the new text is not left
  // behind as FILE.tmp either.
  const std::string blocked = dir + "/blocked";
  std::filesystem::create_directories(blocked + "/inside");
  e = cli::write_checkpoint_file(blocked, "new\n");
  EXPECT_NE(e.find("cannot rename"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(blocked + ".tmp"));
  // A directory that does not exist.
  e = cli::write_checkpoint_file(dir + "/missing/x.ckpt", "new\n");
  EXPECT_NE(e.find("No such file or directory"), std::string::npos) << e;
  EXPECT_FALSE(std::filesystem::exists(dir + "/missing"));
}

TEST(Checkpoint, ACheckpointThatCannotBeWrittenIsSaidBeforeTheSearch) {
  const std::string dir = testing::temp_dir();
  const std::string file = dir + "/run.ckpt";
  std::vector<std::string> cmd = {"run", "bank-split-locks", "--strategy", "dfs", "--quiet"};
  ASSERT_EQ(run_cli(with(cmd, {"--max-executions", "5", "--checkpoint", file})).exit_code, kExitBudget);
  const std::string good = slurp(file);
  std::filesystem::create_directory(file + ".tmp");
  expect_refused(run_cli(with(cmd, {"--resume", file, "--checkpoint", file})), "cannot create " + file + ".tmp");
  EXPECT_EQ(slurp(file), good);
  expect_refused(run_cli(with(cmd, {"--checkpoint", dir + "/no/such/dir.ckpt"})), "No such file or directory");
}

// A periodic checkpoint is one a crash can leave: a run killed (SIGKILL, no handler)
// after some of them resumes to the uninterrupted summary.
TEST(Checkpoint, PeriodicCheckpointsSurviveAKill) {
  const std::vector<std::string> cmd = {"run", "treiber-stack", "--strategy", "dfs", "--no-loop-reduction", "--json", "--quiet"};
  const CliResult whole = run_cli(cmd);
  const std::string file = testing::temp_dir() + "/periodic.ckpt";
  const CliResult killed =
      testing::run_cli_signalled(with(cmd, {"--checkpoint", file, "--checkpoint-every", "0.02"}), 300, SIGKILL);
  ASSERT_EQ(killed.exit_code, 128 + SIGKILL) << killed.err;
  ASSERT_TRUE(std::filesystem::exists(file));
  cli::SearchIdentity id;
  SearchState state;
  ASSERT_EQ(cli::parse_checkpoint(slurp(file), id, state), "");
  EXPECT_FALSE(state.finished);
  EXPECT_EQ(state.result.stop, StopReason::none);
  EXPECT_GT(state.result.executions, 0u);
  const CliResult resumed = run_cli(with(cmd, {"--resume", file}));
  EXPECT_EQ(resumed.exit_code, whole.exit_code) << resumed.err;
  EXPECT_EQ(summary(resumed), summary(whole));
}

// ---- a parallel optimal search (--jobs N) --------------------------------------------

// The summary without the clock and the job count, which the search's answer does not
// depend on.
nlohmann::json summary_any_jobs(const CliResult& r) {
  nlohmann::json j = summary(r);
  if (j.is_object()) j.erase("jobs");
  return j;
}

// A parallel search stopped at k executions saves its own state, or, when the stop fell
// in the runs it was taking from a unit, the state where it reached that unit (fewer than
// k executions). Resumed with either job count the summary is the uninterrupted one-job
// search's; resumed with the same budget it is the stopped run's, so a budget still cuts
// at the same execution.
TEST(Checkpoint, ParallelOptimalStopsResumeWithEitherJobCount) {
  std::uint64_t stops = 0, in_units = 0;
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"run", "lastzero-10", "--json", "--quiet"},
        std::vector<std::string>{"run", "hammer-account-unlocked", "--memory", "tso", "--checker",
                                 "velodrome,tso-exec", "--json", "--quiet"},
        std::vector<std::string>{"run", "lastzero-12", "--memory", "rc11", "--json", "--quiet"}}) {
    SCOPED_TRACE(cmd[1]);
    const CliResult whole = run_cli(with(cmd, {"--jobs", "1"}));
    const nlohmann::json full = summary_any_jobs(whole);
    ASSERT_EQ(full.value("stop", ""), "exhausted") << whole.out << whole.err;
    const std::uint64_t n = full.value("executions", 0ull);
    ASSERT_GT(n, 2000u);
    const std::string file = testing::temp_dir() + "/parallel.ckpt";
    for (std::uint64_t k : std::vector<std::uint64_t>{1, n / 3, n / 2, n - 1}) {
      SCOPED_TRACE("k = " + std::to_string(k));
      const std::string budget = std::to_string(k);
      const CliResult stopped = run_cli(with(cmd, {"--jobs", "2", "--max-executions", budget, "--checkpoint", file}));
      ASSERT_EQ(summary(stopped).value("executions", ~0ull), k) << stopped.out << stopped.err;
      cli::SearchIdentity id;
      SearchState state;
      ASSERT_EQ(cli::parse_checkpoint(slurp(file), id, state), "");
      ASSERT_LE(state.result.executions, k);
      EXPECT_NE(stopped.err.find(file + ": search saved after " + std::to_string(state.result.executions) +
                                 " executions; go on with --resume"),
                std::string::npos)
          << stopped.err;
      ++stops;
      in_units += state.result.executions < k;
      for (const char* jobs : {"2", "1"}) {
        const CliResult resumed = run_cli(with(cmd, {"--jobs", jobs, "--resume", file}));
        EXPECT_EQ(resumed.exit_code, whole.exit_code) << "--jobs " << jobs << ": " << resumed.err;
        EXPECT_EQ(summary_any_jobs(resumed), full) << "--jobs " << jobs << ", resumed:\n" << resumed.out;
      }
      const CliResult again = run_cli(with(cmd, {"--jobs", "2", "--max-executions", budget, "--resume", file}));
      EXPECT_EQ(summary_any_jobs(again), summary_any_jobs(stopped));
    }
  }
  // Where the stops fall depends on the threads' timing; the library test below makes
  // them fall inside a unit's runs for sure.
  std::printf("%llu of %llu stops fell in the runs the search took from a unit\n",
              static_cast<unsigned long long>(in_units), static_cast<unsigned long long>(stops));
}

struct LibrarySearch {
  ExploreResult result;
  std::vector<std::string> executions;  // per execution: index, class key, schedule, end, verdict
  std::vector<SearchState> saved;       // what ExploreOptions::checkpoint was given
};

LibrarySearch search_library(const Program& p, unsigned jobs, std::uint64_t units_inline, std::uint64_t max,
                             const SearchState* resume) {
  LibrarySearch out;
  ExploreOptions o;
  o.strategy = StrategyKind::optimal;
  o.stop_on_failure = false;
  o.count_classes = true;
  o.keep_failures = 1000000;
  o.checkers = {"velodrome"};
  o.jobs = jobs;
  o.units_inline = units_inline;
  o.max_executions = max;
  o.resume = resume;
  o.checkpoint = [&out](const SearchState& st) { out.saved.push_back(st); };
  out.result = explore(p, o, [&out](const ExecutionView& v) {
    std::string verdicts;
    for (const Verdict& d : *v.verdicts) verdicts += d.flags() ? 'f' : d.decided() ? 'd' : 'u';
    out.executions.push_back(fmt::format("{} {:x} {:x} {} {} {} {} {}", v.index, v.class_key, v.rf_co_key,
                                         v.schedule, v.failure ? v.failure->message : "-",
                                         v.outcome ? format_outcome(*v.outcome) : "-", verdicts,
                                         v.sleep_blocked));
  });
  return out;
}

// Everything the summary prints, as one comparable string, with the size estimate and
// what checkers left undecided.
std::string library_summary(const ExploreResult& r) {
  std::string s = testing_support::result_summary(r) + fmt::format("\n  estimate {} bounded {}", r.estimate, r.bounded);
  for (const CheckerSummary& c : r.checkers) s += fmt::format("\n  {} undecided {}", c.name, c.undecided);
  return s;
}

// Units run on the search's thread when carved (units_inline), so where the search takes
// a unit's runs does not depend on timing: a stop at every execution k, many of them
// inside those runs, checkpointed and resumed with one job and with units again, gives
// the uninterrupted search's executions in order and its summary (with the size
// estimate, whose walks the resumed search makes where the uninterrupted one does).
TEST(Checkpoint, ParallelStopsInsideAUnitsRunsResumeExactly) {
  std::uint64_t stops = 0, in_units = 0, at_walks = 0;
  // Two stores each by two threads, read by a third: 22 executions whose DFS tree is
  // uneven, so an extra estimator walk changes the estimate (in the increments' even
  // tree every walk gives the same).
  const Program stores = [] {
    atomic<int> x(0, "x"), y(0, "y");
    thread a([&] { x.store(1); y.store(1); });
    thread b([&] {
      const int r = y.load();
      const int s = x.load();
      outcome("r", r);
      outcome("s", s);
    });
    thread c([&] { x.store(2); y.store(2); });
    a.join();
    b.join();
    c.join();
  };
  // Five increments: 120 orders, each its own outcome, a failure in a fifth of them.
  const Program increments = [] {
    atomic<int> x(0, "x");
    std::vector<thread> ts;
    for (int i = 0; i < 5; ++i)
      ts.emplace_back([&, i] {
        const int seen = x.fetch_add(1);
        outcome(fmt::format("r{}", i), seen);
        check(i != 0 || seen != 4, "the first thread came last");
      });
    for (auto& t : ts) t.join();
  };
  const ProgramInfo* hammer = find_program("hammer-account-unlocked");
  ASSERT_NE(hammer, nullptr);
  // Units of at most 2 runs are mostly taken over (the search copies their nodes), whole
  // ones joined.
  for (auto [name, p, inline_runs] : {std::tuple<const char*, Program, std::uint64_t>{"stores", stores, 1},
                                      {"increments", increments, 2},
                                      {"increments", increments, 1000000},
                                      {"hammer-account-unlocked", hammer->body, 1000000}}) {
    const LibrarySearch one = search_library(p, 1, 0, 0, nullptr);
    const std::uint64_t n = one.result.executions;
    ASSERT_EQ(one.result.stop, StopReason::none);
    ASSERT_GE(n, 20u);
    ASSERT_EQ(one.executions.size(), n);
    {
      const LibrarySearch whole = search_library(p, 2, inline_runs, 0, nullptr);
      ASSERT_EQ(library_summary(whole.result), library_summary(one.result));
      std::printf("%s, units of at most %llu runs: %llu of %llu executions in units, %llu taken over\n", name,
                  static_cast<unsigned long long>(inline_runs),
                  static_cast<unsigned long long>(whole.result.parallel.unit_executions),
                  static_cast<unsigned long long>(n), static_cast<unsigned long long>(whole.result.parallel.taken_over));
      ASSERT_GT(whole.result.parallel.unit_executions, n / 4);
      // Every k of the small program; every third of hammer's 360, for the suite's time
      // (a stop costs a search and three resumes).
      for (std::uint64_t k = 1; k < n; k += n > 200 ? 3 : 1) {
        SCOPED_TRACE(fmt::format("{}, units of at most {} runs, stopped at {}", name, inline_runs, k));
        const LibrarySearch stopped = search_library(p, 2, inline_runs, k, nullptr);
        ASSERT_EQ(stopped.result.executions, k);
        ASSERT_EQ(stopped.saved.size(), 1u);
        const SearchState& state = stopped.saved.front();
        ASSERT_FALSE(state.finished);
        ASSERT_EQ(state.result.stop, StopReason::max_executions);
        const std::uint64_t at = state.result.executions;
        ASSERT_LE(at, k);
        ++stops;
        in_units += at < k;
        // Where the estimator walks (after executions 1, 16, 128, ...): the state saved
        // must be the one before the walks, which the resumed search makes again.
        at_walks += at < k && (at == 1 || at == 16 || (at > 64 && at % 64 == 0));
        const std::vector<std::string> before(one.executions.begin(),
                                              one.executions.begin() + static_cast<std::ptrdiff_t>(at));
        for (auto [jobs, units] : {std::pair<unsigned, std::uint64_t>{1, 0}, {2, inline_runs}}) {
          const LibrarySearch resumed = search_library(p, jobs, units, 0, &state);
          ASSERT_EQ(library_summary(resumed.result), library_summary(one.result)) << "resumed with " << jobs << " jobs";
          std::vector<std::string> all = before;
          all.insert(all.end(), resumed.executions.begin(), resumed.executions.end());
          ASSERT_EQ(all, one.executions) << "resumed with " << jobs << " jobs";
        }
        // The same budget again: the stopped search's summary, cut at the same execution.
        const LibrarySearch again = search_library(p, 2, inline_runs, k, &state);
        ASSERT_EQ(library_summary(again.result), library_summary(stopped.result));
      }
    }
  }
  EXPECT_GT(in_units, stops / 10) << "few stops fell in a unit's runs";
  EXPECT_GT(at_walks, 0u) << "no stop fell in the runs of a unit reached where the estimator walks";
  std::printf("%llu of %llu stops fell in the runs the search took from a unit\n",
              static_cast<unsigned long long>(in_units), static_cast<unsigned long long>(stops));
}

// SIGTERM (a batch system's pre-emption) stops a parallel search wherever its threads
// are, with periodic checkpoints on (each deferred while the search takes a unit's runs):
// the resumed summary is the one-job search's.
TEST(Checkpoint, SigtermStopsAParallelSearchThatResumes) {
  const std::vector<std::string> cmd = {"run", "readers-15", "--json", "--quiet"};
  const CliResult whole = run_cli(with(cmd, {"--jobs", "1"}));
  const nlohmann::json full = summary_any_jobs(whole);
  ASSERT_EQ(full.value("stop", ""), "exhausted") << whole.out;
  const std::string file = testing::temp_dir() + "/sigterm.ckpt";
  const CliResult stopped = testing::run_cli_signalled(
      with(cmd, {"--jobs", "2", "--checkpoint", file, "--checkpoint-every", "0.01"}), 150, SIGTERM);
  ASSERT_EQ(stopped.exit_code, kExitBudget) << stopped.err;
  ASSERT_EQ(summary(stopped).value("stop", ""), "interrupted");
  for (const char* jobs : {"2", "1"}) {
    const CliResult resumed = run_cli(with(cmd, {"--jobs", jobs, "--resume", file}));
    EXPECT_EQ(resumed.exit_code, whole.exit_code) << resumed.err;
    EXPECT_EQ(summary_any_jobs(resumed), full) << "--jobs " << jobs;
  }
}

}  // namespace
}  // namespace atomcheck
