// The progress line of long explorations: driven in a pseudo-terminal (util-linux
// `script`, or forkpty when it is missing) it updates in place at least twice and is
// cleared before the summary; with stderr piped there is no progress noise at all.
#include <gtest/gtest.h>

#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "cli/progress.hpp"
#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

// Runs the atomcheck binary with stdout and stderr on a terminal; returns what the
// terminal received.
std::string run_in_terminal(const std::vector<std::string>& args) {
  std::string command = ATOMCHECK_BIN;
  for (const std::string& a : args) command += " '" + a + "'";
  for (const char* script : {"/usr/bin/script", "/bin/script"}) {
    if (access(script, X_OK) != 0) continue;
    std::string line = std::string(script) + " -qfec \"" + command + "\" /dev/null </dev/null";
    FILE* p = popen(line.c_str(), "r");
    if (p == nullptr) break;
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
    return out;
  }
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  if (pid < 0) return "";
  if (pid == 0) {
    std::vector<std::string> storage{ATOMCHECK_BIN};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    execv(ATOMCHECK_BIN, argv.data());
    _exit(127);
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(master, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  return out;
}

// The execution counts of every progress line drawn ("\rN executions  ...").
std::vector<std::uint64_t> progress_counts(const std::string& out) {
  std::vector<std::uint64_t> counts;
  for (std::size_t i = out.find('\r'); i != std::string::npos; i = out.find('\r', i + 1)) {
    std::size_t j = i + 1;
    std::uint64_t n = 0;
    bool digits = false;
    while (j < out.size() && out[j] >= '0' && out[j] <= '9') {
      n = n * 10 + static_cast<std::uint64_t>(out[j] - '0');
      digits = true;
      ++j;
    }
    if (digits && out.compare(j, 13, " executions  ") == 0) counts.push_back(n);
  }
  return counts;
}

// Everything written to the temporary file `f`, which is closed.
std::string read_and_close(std::FILE* f) {
  std::rewind(f);
  std::string out;
  char buf[512];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
  std::fclose(f);
  return out;
}

const std::vector<std::string> kLongRun = {"run", "tso-peterson", "--memory", "tso", "--strategy", "dfs",
                                           "--checker", "oracle,velodrome", "--time-limit", "2.5"};

TEST(ProgressCli, UpdatesInPlaceOnATerminal) {
  std::string out = run_in_terminal(kLongRun);
  auto counts = progress_counts(out);
  std::set<std::uint64_t> distinct(counts.begin(), counts.end());
  EXPECT_GE(distinct.size(), 2u) << out;
  for (std::size_t i = 1; i < counts.size(); ++i) EXPECT_GE(counts[i], counts[i - 1]);
  // The line is wiped before the summary, which is printed in full.
  std::size_t summary = out.find("elapsed        ");
  ASSERT_NE(summary, std::string::npos) << out;
  std::size_t last_progress = out.rfind(" executions  ");
  ASSERT_NE(last_progress, std::string::npos);
  std::size_t wipe = out.find("   \r", last_progress);
  EXPECT_LT(wipe, summary) << out;
  EXPECT_NE(out.find("/s  elapsed "), std::string::npos);
  EXPECT_NE(out.find("  depth "), std::string::npos);
}

TEST(ProgressCli, ValidateShowsProgressToo) {
  std::string out = run_in_terminal({"validate", "tso-peterson", "--memory", "tso", "--checker",
                                     "velodrome", "--time-limit", "2"});
  std::set<std::uint64_t> distinct;
  for (auto n : progress_counts(out)) distinct.insert(n);
  EXPECT_GE(distinct.size(), 2u) << out;
  EXPECT_NE(out.find("result: "), std::string::npos) << out;
}

TEST(ProgressCli, PipedStderrHasNoProgressNoise) {
  std::vector<std::string> args = kLongRun;
  args.back() = "1.5";
  auto r = testing::run_cli(args);
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_EQ(r.err.find(" executions  "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("elapsed        "), std::string::npos);  // the summary is always there
}

TEST(ProgressCli, LineFormat) {
  ExploreProgress p;
  p.executions = 5000;
  p.elapsed_seconds = 2.0;
  p.depth = 17;
  std::string line = cli::ProgressDisplay::format(p);
  EXPECT_EQ(line, "5000 executions  2500/s  elapsed 2.0 s  depth 17");
  p.estimate = 20000;
  line = cli::ProgressDisplay::format(p, "tso: ");
  EXPECT_EQ(line, "tso: 5000 executions  2500/s  elapsed 2.0 s  depth 17  estimate 20000 (25%)  ~6 s left");
}

TEST(ProgressCli, DrawsOnlyAfterASecondAndClears) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    cli::ProgressDisplay d(f, cli::ProgressMode::terminal);
    auto cb = d.callback();
    ASSERT_TRUE(static_cast<bool>(cb));
    ExploreProgress p;
    p.executions = 10;
    p.elapsed_seconds = 0.5;
    cb(p);  // too early: nothing
    p.executions = 1000;
    p.elapsed_seconds = 1.5;
    cb(p);
    p.executions = 9;  // a shorter line must cover the longer one
    p.elapsed_seconds = 1.75;
    cb(p);
  }
  std::string out = read_and_close(f);
  auto counts = progress_counts(out);
  ASSERT_EQ(counts, (std::vector<std::uint64_t>{1000, 9})) << out;
  const std::string first = "1000 executions  667/s  elapsed 1.5 s  depth 0";
  EXPECT_NE(out.find("\r9 executions  5/s  elapsed 1.8 s  depth 0" +
                     std::string(first.size() - std::string("9 executions  5/s  elapsed 1.8 s  depth 0").size(), ' ')),
            std::string::npos)
      << out;
  EXPECT_EQ(out.back(), '\r');  // cleared: the cursor is back at the start of a blank line
  // Off (--quiet): no callback at all.
  std::FILE* g = std::tmpfile();
  cli::ProgressDisplay quiet(g, cli::ProgressMode::off);
  EXPECT_FALSE(quiet.active());
  EXPECT_FALSE(static_cast<bool>(quiet.callback()));
  std::fclose(g);
}

// Not a terminal (a file, a pipe): plain lines, one per kProgressLineSeconds, no \r, so
// a long search in CI says it is alive.
TEST(ProgressCli, PipedGetsAPlainLineEveryTenSeconds) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    cli::ProgressDisplay d(f);  // automatic: a file is not a terminal
    auto cb = d.callback();
    ASSERT_TRUE(static_cast<bool>(cb));
    ExploreProgress p;
    for (double t : {0.5, 9.9, 10.2, 12.0, 19.0, 31.0, 32.0}) {
      p.elapsed_seconds = t;
      p.executions = static_cast<std::uint64_t>(std::llround(t * 100));
      cb(p);
    }
  }
  std::string out = read_and_close(f);
  EXPECT_EQ(out, "1020 executions  100/s  elapsed 10.2 s  depth 0\n"
                 "3100 executions  100/s  elapsed 31.0 s  depth 0\n");
}

TEST(ProgressCli, QuietSilencesTheTerminalLine) {
  std::vector<std::string> args = kLongRun;
  args.push_back("--quiet");
  std::string out = run_in_terminal(args);
  EXPECT_TRUE(progress_counts(out).empty()) << out;
  EXPECT_NE(out.find("elapsed        "), std::string::npos) << out;
}

}  // namespace
}  // namespace atomcheck
