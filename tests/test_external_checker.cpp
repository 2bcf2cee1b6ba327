// External checkers (`validate --external`, `check-trace --external`, issue 42): a shell
// script judged by the oracle shows its false negatives; a wrapper around the oracle
// itself agrees everywhere; crashing, hanging and garbage-printing checkers are counted
// as errors with every execution accounted for, in bounded time; --minimise shrinks a
// disagreement to the conflicting transactions; --traces judges a directory of files;
// batch mode gives the same matrix as one process per trace; bad options exit 2.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"
#include "trace/trace_io.hpp"
#include "trace/transactions.hpp"

namespace atomcheck {
namespace {

using testing::data_path;
using testing::run_cli;
using testing::temp_dir;

// Writes an executable script and returns its path.
std::string script(const std::string& dir, const std::string& name, const std::string& body) {
  const std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
  return path;
}

// The one checker row of a validate --json run with a single --external.
const nlohmann::json& question(const nlohmann::json& j) { return j["runs"][0]["checkers"][0]["questions"][0]; }

std::uint64_t judged(const nlohmann::json& j) { return j["runs"][0]["judged"].get<std::uint64_t>(); }

std::uint64_t accounted(const nlohmann::json& q) {
  std::uint64_t n = 0;
  for (const char* k : {"tp", "fp", "tn", "fn", "undecided", "left_out", "errors"}) n += q[k].get<std::uint64_t>();
  return n;
}

// Violations the oracle finds among the executions validate explores: velodrome is exact
// for serializability, so its TP+FN against the oracle is the oracle's positive count.
std::uint64_t oracle_positives(const std::string& target) {
  auto r = run_cli({"validate", target, "--checker", "velodrome", "--json", "--quiet"});
  auto j = nlohmann::json::parse(r.out);
  for (const auto& q : j["runs"][0]["checkers"][0]["questions"])
    if (q["question"] == "serializability") return q["tp"].get<std::uint64_t>() + q["fn"].get<std::uint64_t>();
  ADD_FAILURE() << r.out;
  return 0;
}

// A checker that always answers "serializable", in five lines.
std::string always_serializable(const std::string& dir) {
  return script(dir, "always.sh",
                "# Never finds a violation, whatever the trace.\n"
                "trace=\"$1\"\n"
                "test -r \"$trace\" || exit 2\n"
                "exit 0\n");
}

TEST(ExternalChecker, AlwaysSerializableMissesEveryViolationOfLostUpdate) {
  const std::string dir = temp_dir();
  const std::string always = always_serializable(dir);
  auto r = run_cli({"validate", "lost-update", "--external", "always=" + always + " {trace}", "--json", "--quiet",
                    "--external-dir", dir + "/traces"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& q = question(j);
  const std::uint64_t positives = oracle_positives("lost-update");
  ASSERT_GT(positives, 0u);
  EXPECT_EQ(q["fn"], positives);
  EXPECT_EQ(q["tp"], 0);
  EXPECT_EQ(q["fp"], 0);
  EXPECT_EQ(q["errors"], 0);
  EXPECT_EQ(q["tn"].get<std::uint64_t>() + positives, judged(j));
  // The first false negative's input is kept and its replay shows both answers.
  const std::string replay = q["first_disagreement"]["replay"];
  EXPECT_NE(replay.find("check-trace"), std::string::npos) << replay;
  EXPECT_NE(replay.find("--external"), std::string::npos) << replay;
  EXPECT_EQ(j["external_dir"], dir + "/traces");
}

TEST(ExternalChecker, OracleWrapperAgreesOnModelLibraryRuns) {
  const std::string dir = temp_dir();
  const std::string wrapper = script(dir, "oracle.sh", "exec " + std::string(ATOMCHECK_BIN) +
                                                           " check-trace \"$1\" --checker oracle >/dev/null\n");
  for (const char* target : {"lost-update", "bank-check-then-lock", "locked-counter"}) {
    auto r = run_cli({"validate", target, "--external", "oracle-wrapper=" + wrapper + " {trace}", "--json", "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << target << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    const auto& q = question(j);
    EXPECT_EQ(q["fn"], 0) << target;
    EXPECT_EQ(q["fp"], 0) << target;
    EXPECT_EQ(q["errors"], 0) << target;
    EXPECT_EQ(q["undecided"], 0) << target;
    EXPECT_EQ(accounted(q), judged(j)) << target;
    EXPECT_EQ(q["tp"], oracle_positives(target)) << target;
    EXPECT_FALSE(j.contains("external_dir")) << "nothing to keep, nothing left behind";
  }
}

// A failing checker: every judged execution is an error, none a verdict, each input kept.
void expect_all_errors(const std::vector<std::string>& extra, const std::string& body, double max_seconds,
                       const std::string& why, const std::string& prefix = "") {
  const std::string dir = temp_dir();
  const std::string bad = script(dir, "bad.sh", body);
  std::vector<std::string> args = {"validate", "lost-update", "--json", "--quiet", "--external-dir", dir + "/kept",
                                   "--external", "bad=" + prefix + bad + " {trace}"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli(args);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, max_seconds) << "no hang";
  ASSERT_TRUE(r.exit_code == 1 || r.exit_code == 3) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& q = question(j);
  ASSERT_GT(judged(j), 0u);
  EXPECT_EQ(q["errors"], judged(j)) << r.out;
  EXPECT_EQ(accounted(q), judged(j)) << "nothing lost";
  EXPECT_NE(q["first_error"]["checker"].get<std::string>().find(why), std::string::npos) << q["first_error"];
  std::size_t kept = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/kept")) kept += e.is_regular_file();
  EXPECT_EQ(kept, judged(j));
}

TEST(ExternalChecker, CrashIsAnErrorNotAVerdict) { expect_all_errors({}, "kill -SEGV $$\n", 60, "signal 11"); }

TEST(ExternalChecker, OtherExitCodeIsAnError) { expect_all_errors({}, "echo oops >&2\nexit 7\n", 60, "exit 7"); }

TEST(ExternalChecker, HangIsKilledAtTheTimeout) {
  // Three executions of a checker that sleeps: 0.3 s each, not 30.
  expect_all_errors({"--external-timeout", "0.3", "--max-executions", "3"}, "sleep 30\n", 15, "timeout");
}

TEST(ExternalChecker, CheckerIgnoringSigtermGetsSigkill) {
  // The process itself (exec: no /bin/sh in between) ignores SIGTERM, and a background
  // child holds the output pipe: SIGKILL to the group a second after SIGTERM.
  expect_all_errors({"--external-timeout", "0.3", "--max-executions", "2"}, "trap '' TERM\nsleep 30 &\nsleep 30\n",
                    15, "timeout", "exec ");
}

TEST(ExternalChecker, GarbageOutputIsAnError) {
  expect_all_errors({"--external-violation", "^VIOLATION", "--external-serializable", "^OK"},
                    "echo 'Exception in thread main'\nexit 0\n", 60, "unparseable");
}

TEST(ExternalChecker, GarbageBatchAnswerIsAnError) {
  const std::string dir = temp_dir();
  const std::string bad = script(dir, "bad.sh", "while read p; do echo 'maybe?'; done\n");
  auto r = run_cli({"validate", "lost-update", "--json", "--quiet", "--external-batch", "--external", "bad=" + bad});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(question(j)["errors"], judged(j));
  EXPECT_NE(question(j)["first_error"]["checker"].get<std::string>().find("unparseable"), std::string::npos);
}

TEST(ExternalChecker, HangingBatchProcessIsKilledAndRestarted) {
  // It answers nothing: each trace times out, the process is killed and started again.
  const std::string dir = temp_dir();
  const std::string hang = script(dir, "hang.sh", "trap '' TERM\nwhile read p; do sleep 30; done\n");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli({"validate", "lost-update", "--json", "--quiet", "--external-batch", "--external-timeout", "0.3",
                    "--max-executions", "3", "--external", "h=exec " + hang});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(question(j)["errors"], judged(j));
  EXPECT_NE(question(j)["first_error"]["checker"].get<std::string>().find("timeout"), std::string::npos);
}

TEST(ExternalChecker, BatchProcessThatOutlivesItsInputIsStopped) {
  // Answers, then ignores the end of its input and SIGTERM: validate still ends.
  const std::string dir = temp_dir();
  const std::string stubborn = script(dir, "stubborn.sh", "trap '' TERM\nwhile read p; do echo 0; done\nsleep 30\n");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli({"validate", "lost-update", "--json", "--quiet", "--external-batch", "--external", "s=exec " + stubborn});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(question(j)["errors"], 0);
  EXPECT_EQ(question(j)["fn"], oracle_positives("lost-update"));
}

TEST(ExternalChecker, RegexAnswersForToolsThatAlwaysExitZero) {
  const std::string dir = temp_dir();
  const std::string oracle = script(dir, "rapid-like.sh",
                                    std::string(ATOMCHECK_BIN) + " check-trace \"$1\" --checker oracle >/dev/null && "
                                    "echo 'No violation' || echo 'Atomicity violation detected'\nexit 0\n");
  auto r = run_cli({"validate", "lost-update", "--json", "--quiet", "--external", "r=" + oracle + " {trace}",
                    "--external-violation", "^Atomicity violation detected"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(question(j)["tp"], oracle_positives("lost-update"));
  EXPECT_EQ(question(j)["fp"], 0);
}

TEST(ExternalChecker, BatchGivesTheSameMatrixAsOneProcessPerTrace) {
  const std::string dir = temp_dir();
  const std::string bin = ATOMCHECK_BIN;
  const std::string per = script(dir, "per.sh", "exec " + bin + " check-trace \"$1\" --checker oracle >/dev/null\n");
  const std::string batch = script(dir, "batch.sh",
                                   "while read p; do " + bin + " check-trace \"$p\" --checker oracle >/dev/null; "
                                   "echo $?; done\n");
  auto a = run_cli({"validate", "lost-update", "--json", "--quiet", "--external", "o=" + per + " {trace}"});
  auto b = run_cli({"validate", "lost-update", "--json", "--quiet", "--external-batch", "--external", "o=" + batch});
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  for (const char* k : {"tp", "fp", "tn", "fn", "errors"}) EXPECT_EQ(question(ja)[k], question(jb)[k]) << k;
}

TEST(ExternalChecker, MinimiseKeepsTheTwoConflictingTransactions) {
  const std::string dir = temp_dir();
  const std::string always = always_serializable(dir);
  auto r = run_cli({"validate", "lost-update", "--external", "always=" + always + " {trace}", "--json", "--quiet",
                    "--minimise", "--external-dir", dir + "/out"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& d = question(j)["first_disagreement"];
  const std::string file = d["minimised_file"];
  ASSERT_FALSE(file.empty()) << d;
  Trace min = read_trace(file);
  EXPECT_EQ(d["minimised_events"], min.events.size());
  // At most the two conflicting transactions (each with at least two events: a cycle
  // needs two accesses in each).
  Transactions tx = assign_transactions(min);
  EXPECT_LE(tx.txns.size(), 2u) << to_std_string(min);
  std::set<ThreadId> threads;
  for (const Event& e : min.events) threads.insert(e.thread);
  EXPECT_EQ(threads.size(), 2u);
  // Still the disagreement: the oracle flags it, the script does not.
  auto oracle = run_cli({"check-trace", file, "--checker", "oracle"});
  EXPECT_EQ(oracle.exit_code, 1) << oracle.out;
  const std::string cmd = d["minimised_command"];
  EXPECT_NE(cmd.find("check-trace " + file), std::string::npos) << cmd;
  auto again = run_cli({"check-trace", file, "--checker", "oracle", "--external", "always=" + always + " {trace}"});
  EXPECT_EQ(again.exit_code, 1) << again.out;
  EXPECT_NE(again.out.find("external always: serializable"), std::string::npos) << again.out;
}

TEST(ExternalChecker, MinimiseIsDeterministic) {
  const std::string dir = temp_dir();
  const std::string always = always_serializable(dir);
  std::string first;
  for (int i = 0; i < 2; ++i) {
    auto r = run_cli({"validate", "bank-check-then-lock", "--external", "always=" + always + " {trace}", "--json",
                      "--quiet", "--minimise", "--external-dir", dir + "/run" + std::to_string(i)});
    auto j = nlohmann::json::parse(r.out);
    std::string text;
    for (const auto& c : j["runs"][0]["checkers"])
      for (const auto& q : c["questions"])
        if (!q["first_disagreement"].is_null() && !q["first_disagreement"]["minimised_file"].get<std::string>().empty())
          text += to_std_string(read_trace(q["first_disagreement"]["minimised_file"]));
    ASSERT_FALSE(text.empty()) << r.out;
    if (i == 0)
      first = text;
    else
      EXPECT_EQ(text, first);
  }
}

// The STD traces of tests/data/traces carry their label ("# expect: serializable=no").
TEST(ExternalChecker, CorpusModeLabelsFilesByTheOracle) {
  const std::string dir = temp_dir();
  std::filesystem::create_directory(dir + "/corpus");
  std::uint64_t violations = 0, files = 0;
  for (const auto& e : std::filesystem::directory_iterator(data_path("traces"))) {
    if (e.path().extension() != ".std") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    violations += text.str().find("# expect: serializable=no") != std::string::npos;
    ++files;
    std::filesystem::copy_file(e.path(), dir + "/corpus/" + e.path().filename().string());
  }
  ASSERT_GT(violations, 0u);
  ASSERT_LT(violations, files);
  const std::string always = always_serializable(dir);
  auto r = run_cli({"validate", "--traces", dir + "/corpus", "--external", "always=" + always + " {trace}",
                    "--checker", "velodrome", "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(judged(j), files);
  for (const auto& c : j["runs"][0]["checkers"]) {
    const auto& q = c["questions"][0];
    if (c["name"] == "always") {
      EXPECT_EQ(q["fn"], violations);
      EXPECT_EQ(q["tn"], files - violations);
      EXPECT_EQ(q["first_disagreement"]["schedule"].get<std::string>().rfind(dir + "/corpus/", 0), 0u)
          << q["first_disagreement"];
    } else {
      EXPECT_EQ(q["tp"], violations) << c;
      EXPECT_EQ(q["tn"], files - violations) << c;
    }
  }
}

TEST(ExternalChecker, CheckTraceAsksTheExternalChecker) {
  const std::string dir = temp_dir();
  const std::string wrapper = script(dir, "oracle.sh", "exec " + std::string(ATOMCHECK_BIN) +
                                                           " check-trace \"$1\" --checker oracle >/dev/null\n");
  const std::string violating = data_path("traces/regiontrack-fig1a-alpha1.std");
  auto r = run_cli({"check-trace", violating, "--external", "o=" + wrapper + " {trace}", "--external-format", "jsonl"});
  auto oracle = run_cli({"check-trace", violating, "--checker", "oracle"});
  EXPECT_EQ(r.exit_code, oracle.exit_code) << r.out << r.err;
  EXPECT_NE(r.out.find(oracle.exit_code == 1 ? "external o: violation" : "external o: serializable"),
            std::string::npos)
      << r.out;
}

TEST(ExternalChecker, BlameQuestionIsJudgedByTheOraclesBlame) {
  // A wrapper around regiontrack-blame (exact for blame on these models) answers the
  // blame question: its yes/no per execution is the oracle's.
  const std::string dir = temp_dir();
  const std::string wrapper = script(dir, "blame.sh", "exec " + std::string(ATOMCHECK_BIN) +
                                                          " check-trace \"$1\" --checker regiontrack-blame >/dev/null\n");
  auto r = run_cli({"validate", "lost-update", "--json", "--quiet", "--external-question", "blame", "--external",
                    "b=" + wrapper + " {trace}", "--checker", "regiontrack-blame"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  const nlohmann::json* builtin = nullptr;
  const nlohmann::json* external = nullptr;
  for (const auto& c : j["runs"][0]["checkers"]) (c["name"] == "b" ? external : builtin) = &c;
  ASSERT_TRUE(builtin && external);
  const auto& qe = (*external)["questions"][0];
  EXPECT_EQ(qe["question"], "blame");
  for (const char* k : {"tp", "fp", "tn", "fn"}) EXPECT_EQ(qe[k], (*builtin)["questions"][0][k]) << k;
  EXPECT_GT(qe["tp"].get<std::uint64_t>(), 0u);
}

TEST(ExternalChecker, JobsGiveTheOneJobMatrix) {
  const std::string dir = temp_dir();
  const std::string always = always_serializable(dir);
  std::vector<std::string> args = {"validate", "bank-check-then-lock", "--json", "--quiet", "--strategy", "optimal",
                                   "--external", "always=" + always + " {trace}", "--external-dir", dir + "/kept"};
  auto one = run_cli(args);
  args.insert(args.end(), {"--jobs", "2"});
  auto two = run_cli(args);
  auto j1 = nlohmann::json::parse(one.out), j2 = nlohmann::json::parse(two.out);
  for (const char* k : {"tp", "fp", "tn", "fn", "errors"}) EXPECT_EQ(question(j1)[k], question(j2)[k]) << k;
  // Only the two first disagreements' inputs are kept; every other file was removed.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/kept")) files += e.is_regular_file();
  EXPECT_EQ(files, 2u);
}

TEST(ExternalChecker, HelpListsEveryOption) {
  for (const char* cmd : {"validate", "check-trace"}) {
    auto r = run_cli({cmd, "--help"});
    for (const char* opt : {"--external ", "--external-format", "--external-violation", "--external-serializable",
                            "--external-timeout", "--external-question", "--external-batch", "--external-dir"})
      EXPECT_NE(r.out.find(opt), std::string::npos) << cmd << " " << opt;
  }
  auto r = run_cli({"validate", "--help"});
  for (const char* opt : {"--minimise", "--minimise-budget", "--traces"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

TEST(ExternalChecker, BadOptionsExitTwoWithOneLine) {
  const std::vector<std::vector<std::string>> bad = {
      {"--external", "no-command"},
      {"--external", "=cmd {trace}"},
      {"--external", "x=true"},  // no {trace}
      {"--external", "x=cat {trace}", "--external-format", "csv"},
      {"--external", "x=cat {trace}", "--external-question", "why"},
      {"--external", "x=cat {trace}", "--external-violation", "("},
      {"--external", "oracle=cat {trace}"},  // a registered checker's name
      {"--external-format", "jsonl"},        // options without a checker
  };
  for (const auto& extra : bad) {
    for (const char* cmd : {"validate", "check-trace"}) {
      std::vector<std::string> args = {cmd, std::string(cmd) == "validate" ? "lost-update"
                                                                            : data_path("traces/aerodrome-fig1-rho1.std")};
      args.insert(args.end(), extra.begin(), extra.end());
      auto r = run_cli(args);
      EXPECT_EQ(r.exit_code, 2) << extra[0] << " " << extra[1] << ": " << r.out << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
}

}  // namespace
}  // namespace atomcheck
