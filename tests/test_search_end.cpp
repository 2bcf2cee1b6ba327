// One vocabulary for how a search ended (issue 21, item 4): each reason is produced by a
// search that really ends that way, named by search_end()/search_end_text(), and shown
// with the same word by `run --json`, specs and `validate`, with the README's exit codes
// (0 exhausted or sampled, 1 a problem found, 2 a broken program, 3 cut short).
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/options.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"
#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

using testing::run_cli;

// Two unsynchronised stores: 2 threads, a few interleavings, no failure.
void two_writers() {
  atomic<int> x(0, "x");
  thread t([&] { x.store(1); });
  x.store(2);
  t.join();
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(SearchEnd, ExhaustedAndSampled) {
  ExploreResult r = explore(two_writers, testing_support::every_schedule());
  EXPECT_EQ(search_end(r), SearchEnd::exhausted);
  EXPECT_EQ(search_end_text(r), "exhausted");
  EXPECT_FALSE(search_end_cut(search_end(r)));
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::random;
  o.max_executions = 20;
  r = explore(two_writers, o);
  EXPECT_EQ(search_end(r), SearchEnd::sampled);
  EXPECT_EQ(search_end_text(r), "sampled: 20 executions drawn");
  EXPECT_FALSE(search_end_cut(search_end(r)));
}

TEST(SearchEnd, BudgetTimeAndInterruptAreCuts) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::dfs;
  o.max_executions = 1;
  ExploreResult r = explore(two_writers, o);
  EXPECT_EQ(search_end(r), SearchEnd::budget);
  EXPECT_TRUE(search_end_text(r).ends_with("budget: the execution budget ran out after 1 execution")) << search_end_text(r);
  EXPECT_TRUE(search_end_cut(search_end(r)));

  o.max_executions.reset();
  o.time_limit_seconds = 1e-9;
  r = explore(two_writers, o);
  EXPECT_EQ(search_end(r), SearchEnd::time);
  EXPECT_TRUE(has(search_end_text(r), "time: the time limit ran out")) << search_end_text(r);
  EXPECT_TRUE(search_end_cut(search_end(r)));

  o.time_limit_seconds = 0;
  std::atomic<bool> stop{true};
  o.interrupt = &stop;
  r = explore(two_writers, o);
  EXPECT_EQ(search_end(r), SearchEnd::interrupted);
  EXPECT_TRUE(search_end_cut(search_end(r)));
}

TEST(SearchEnd, BoundNamesWhichBound) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::dfs;
  o.preemption_bound = 0;
  ExploreResult r = explore([] {
    atomic<int> x(0, "x");
    thread t([&] { x.store(1); x.store(2); });
    x.store(3);
    x.store(4);
    t.join();
  }, o);
  EXPECT_EQ(search_end(r), SearchEnd::bound);
  EXPECT_EQ(search_end_text(r), "bound: the preemption bound 0 pruned schedules");
  EXPECT_TRUE(search_end_cut(search_end(r)));
}

// The construct DPOR does not model is named with its call site.
// The one wait left outside the reductions' model (issue 18): a yield() loop whose
// repeated iteration stores, so it cannot be deleted and must wait for a change.
TEST(SearchEnd, ReductionIncompleteNamesTheConstructAndItsLine) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::optimal;
  const int yield_line = __LINE__ + 6;
  ExploreResult r = explore([] {
    atomic<int> flag(0, "flag"), mark(0, "mark");
    thread t([&] { flag.store(1); });
    while (flag.load() == 0) {
      mark.store(1);
      this_thread::yield();
    }
    t.join();
  }, o);
  EXPECT_EQ(search_end(r), SearchEnd::reduction_incomplete);
  EXPECT_TRUE(has(search_end_text(r), "reduction-incomplete: yield() (a repeated iteration that stores) at "
                                      "test_search_end.cpp:" + std::to_string(yield_line)))
      << search_end_text(r);
  EXPECT_TRUE(search_end_cut(search_end(r)));
}

// A yield() loop that only reads and an assume() are inside the model: DPOR exhausts them.
TEST(SearchEnd, YieldLoopsThatOnlyReadAndAssumeAreExhausted) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::optimal;
  ExploreResult r = explore([] {
    atomic<int> flag(0, "flag");
    thread t([&] { flag.store(1); });
    while (flag.load() == 0)
      this_thread::yield();
    t.join();
  }, o);
  EXPECT_EQ(search_end(r), SearchEnd::exhausted) << search_end_text(r);
  EXPECT_EQ(r.completed, 2u);  // the store before the first read, or between two reads
  r = explore([] {
    atomic<int> x(0, "x");
    thread t([&] { x.store(1); });
    assume(x.load() == 1);
    t.join();
  }, o);
  EXPECT_EQ(search_end(r), SearchEnd::exhausted) << search_end_text(r);
  EXPECT_EQ(r.completed, 1u);
  EXPECT_EQ(r.pruned, 1u);
}

TEST(SearchEnd, NondeterministicSaysWhere) {
  int runs = 0;
  ExploreResult r = explore([&] {
    atomic<int> x(0, "x");
    thread t([&] { x.store(1); });
    if (runs++ == 0) x.store(2);
    t.join();
  }, testing_support::every_schedule());
  EXPECT_EQ(search_end(r), SearchEnd::nondeterministic);
  EXPECT_TRUE(has(search_end_text(r), "nondeterministic: ")) << search_end_text(r);
  EXPECT_TRUE(has(search_end_text(r), "choice point ")) << search_end_text(r) << "\n" << r.error;
  EXPECT_FALSE(search_end_cut(search_end(r)));
}

TEST(SearchEnd, StopOnFailure) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::dfs;
  o.stop_on_failure = true;
  ExploreResult r = explore([] {
    atomic<int> x(0, "x");
    thread t([&] { x.store(1); });
    check(x.load() == 0, "saw the store");
    t.join();
  }, o);
  EXPECT_EQ(search_end(r), SearchEnd::stop_on_failure);
  EXPECT_FALSE(search_end_cut(search_end(r)));
}

// `run`: the JSON "stop" field and the exit code per reason.
TEST(SearchEnd, RunPrintsTheSameWordsWithTheReadmeExitCodes) {
  struct Case {
    std::vector<std::string> args;
    std::string stop;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {{"run", "locked-counter"}, "exhausted", 0},
      {{"run", "iriw", "--strategy", "random", "--max-executions", "10"}, "sampled", 0},
      {{"run", "iriw", "--strategy", "dfs", "--max-executions", "3"}, "budget", 3},
      {{"run", "iriw", "--strategy", "dfs", "--max-executions", "0", "--time-limit", "0.000001"}, "time", 3},
      {{"run", "iriw", "--preemption-bound", "0"}, "bound", 3},
      {{"run", "lost-update", "--strategy", "dfs", "--stop-on-failure"}, "stop-on-failure", 1},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.push_back("--json");
    auto r = run_cli(args);
    SCOPED_TRACE(args[1] + " " + c.stop);
    EXPECT_EQ(r.exit_code, c.exit_code) << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["stop"], c.stop);
    EXPECT_EQ(j["stop_detail"].get<std::string>().rfind(c.stop, 0), 0u) << j["stop_detail"];
    auto text = run_cli(c.args);
    EXPECT_TRUE(has(text.out, c.stop)) << text.out;
  }
  // No registered model waits outside the reductions' model any more: a spec does.
  auto y = run_cli({"run", testing::data_path("waits/yield-store.json"), "--strategy", "optimal"});
  EXPECT_EQ(y.exit_code, 3) << y.out << y.err;
  EXPECT_TRUE(has(y.out, "not exhaustive: reduction-incomplete: yield() (a repeated iteration that stores) at "
                         "yield-store.json:7")) << y.out;
}

// Specs and validate speak the same words.
TEST(SearchEnd, SpecsAndValidateUseTheSameWords) {
  const std::string spec = testing::data_path("../../specs/examples/sb.json");
  auto s = run_cli({"run", spec, "--strategy", "dfs", "--max-executions", "1"});
  EXPECT_EQ(s.exit_code, 3) << s.out << s.err;
  EXPECT_TRUE(has(s.out, "budget: the execution budget ran out after 1 execution")) << s.out;

  auto v = run_cli({"validate", "iriw", "--strategy", "dfs", "--max-executions", "2", "--json"});
  EXPECT_EQ(v.exit_code, 3) << v.out << v.err;
  auto j = nlohmann::json::parse(v.out);
  EXPECT_EQ(j["runs"][0]["stop"], "budget");
  auto vt = run_cli({"validate", "iriw", "--strategy", "dfs", "--max-executions", "2"});
  EXPECT_TRUE(has(vt.out, "(stopped: budget: ")) << vt.out;
}

}  // namespace
}  // namespace atomcheck
