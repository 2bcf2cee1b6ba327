// atomcheck::model / check_model / EXPECT_ATOMCHECK (scheduler/model.hpp, atomcheck/gtest.hpp):
// a failing, deadlocking or flagged execution is reported as per-thread columns with its
// schedule, the replay call and the command line, and the report's schedule replays it;
// the environment variables override the options and a malformed one is one clear line.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "atomcheck/cli.hpp"
#include "atomcheck/gtest.hpp"
#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

// Sets an environment variable for the scope of one test.
struct EnvVar {
  std::string name;
  EnvVar(const char* n, const char* value) : name(n) { ::setenv(n, value, 1); }
  ~EnvVar() { ::unsetenv(name.c_str()); }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Two unlocked increments of x in atomic blocks, from two threads.
void increment_twice(atomic<int>& x) {
  auto inc = [&] {
    atomic_block b("inc");
    x.store(x.load() + 1);
  };
  thread t1(inc), t2(inc);
  t1.join();
  t2.join();
}

// The README's counter.
void lost_update() {
  atomic<int> x(0, "x");
  increment_twice(x);
  check(x.load() == 2, "lost update");
}

void unlocked_increments() {  // no check: only a checker can object
  atomic<int> x(0, "x");
  increment_twice(x);
}

void locked_counter() {
  atomic<int> x(0, "x");
  mutex m("m");
  auto inc = [&] {
    std::lock_guard<mutex> g(m);
    x.store(x.load() + 1);
  };
  thread t1(inc), t2(inc);
  t1.join();
  t2.join();
  check(x.load() == 2, "lost update");
}

void inversion() {
  mutex a("a"), b("b");
  thread t1([&] {
    std::lock_guard<mutex> ga(a);
    std::lock_guard<mutex> gb(b);
  });
  thread t2([&] {
    std::lock_guard<mutex> gb(b);
    std::lock_guard<mutex> ga(a);
  });
  t1.join();
  t2.join();
}

// Store buffering: under TSO both loads can read 0.
void store_buffering() {
  atomic<int> x(0, "x"), y(0, "y");
  int r0 = -1, r1 = -1;
  thread t1([&] {
    x.store(1, std::memory_order_relaxed);
    r0 = y.load(std::memory_order_relaxed);
  });
  thread t2([&] {
    y.store(1, std::memory_order_relaxed);
    r1 = x.load(std::memory_order_relaxed);
  });
  t1.join();
  t2.join();
  check(r0 == 1 || r1 == 1, "both loads read 0");
}

ATOMCHECK_PROGRAM("model-test-lost-update", "test_model.cpp: the README's counter") { lost_update(); }

TEST(Model, FailureReportsColumnsScheduleReplayAndCli) {
  ModelReport rep = check_model(lost_update, {.strategy = StrategyKind::dfs, .stop_on_failure = false});
  ASSERT_FALSE(rep.ok);
  const std::string& t = rep.text;
  EXPECT_TRUE(contains(t, "assertion failed: lost update")) << t;
  EXPECT_TRUE(contains(t, "6 executions, 4 failed (dfs, sc, exhausted)")) << t;
  // One column per thread, events on their own lines.
  EXPECT_TRUE(contains(t, "step | T0 ")) << t;
  EXPECT_TRUE(contains(t, "| T1 ")) << t;
  EXPECT_TRUE(contains(t, "| T2 ")) << t;
  EXPECT_TRUE(contains(t, "begin inc")) << t;
  EXPECT_TRUE(contains(t, "read x = 0")) << t;
  ASSERT_FALSE(rep.schedule.empty());
  EXPECT_TRUE(contains(t, "schedule: " + rep.schedule + "\n")) << t;
  EXPECT_TRUE(contains(t, "replay:   atomcheck::replay(body, \"" + rep.schedule + "\")\n")) << t;
  EXPECT_TRUE(contains(t, "ATOMCHECK_REPLAY='" + rep.schedule + "'")) << t;
  EXPECT_TRUE(contains(t, "cli:      run NAME --replay '" + rep.schedule + "'")) << t;
  // The schedule in the report replays the failure.
  ReplayResult again = replay(lost_update, rep.schedule);
  EXPECT_TRUE(again.failed);
  EXPECT_EQ(again.failure.message, rep.result.failures.at(0).message);
}

// A failing thread stops and the others run on: the columns mark where it failed.
TEST(Model, TheColumnsMarkWhereAThreadFailed) {
  ModelReport rep = check_model([] {
    atomic<int> x(0, "x");
    thread t1([&] { check(x.load() == 1, "x not set yet"); });
    thread t2([&] { x.store(1); });
    t1.join();
    t2.join();
  });
  ASSERT_FALSE(rep.ok);
  const std::size_t marker = rep.text.find("---- T1 failed here; the other threads ran on");
  ASSERT_NE(marker, std::string::npos) << rep.text;
  EXPECT_LT(rep.text.find("read x = 0"), marker) << rep.text;
  EXPECT_GT(rep.text.find("write x = 1"), marker) << rep.text;
}

TEST(Model, ColumnsPutEachEventInItsThreadsColumn) {
  ModelReport rep = check_model(lost_update);
  ASSERT_FALSE(rep.ok);
  ReplayResult again = replay(lost_update, rep.schedule);
  // Every event row has the event in the column of its thread: count the separators
  // before the text of each row's event.
  std::istringstream lines(rep.text);
  std::string line;
  std::size_t rows = 0;
  while (std::getline(lines, line)) {
    std::size_t bar = line.find(" | ");
    if (bar == std::string::npos || line.find("step") != std::string::npos) continue;
    std::string step = line.substr(0, bar);
    if (step.find_first_not_of(' ') == std::string::npos) continue;
    std::size_t index = std::stoul(step);
    ASSERT_LT(index, again.trace.events.size());
    ThreadId thread = again.trace.events[index].thread;
    std::size_t column = 0, pos = bar + 3;
    while (line.compare(pos, 1, " ") == 0 || line.compare(pos, 1, "|") == 0) {
      if (line.compare(pos, 1, "|") == 0) ++column;
      ++pos;
    }
    EXPECT_EQ(column, thread) << line;
    ++rows;
  }
  EXPECT_EQ(rows, again.trace.events.size());
}

TEST(Model, ModelThrowsTheReport) {
  try {
    model(lost_update);
    FAIL() << "model() did not throw";
  } catch (const ModelFailure& e) {
    EXPECT_EQ(std::string(e.what()), e.report.text);
    EXPECT_TRUE(contains(e.what(), "schedule: ")) << e.what();
  }
  ExploreResult r = model(locked_counter);
  EXPECT_TRUE(r.ok());
  EXPECT_GT(r.executions, 1u);
}

TEST(Model, CheckerFlagWithoutFailure) {
  ModelReport rep = check_model(unlocked_increments, {.checkers = {"velodrome", "oracle"}});
  ASSERT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "checker velodrome flags execution #")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "checker velodrome: not serializable, cycle T")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "atomcheck::replay(body, \"" + rep.schedule +
                                     "\", {.checkers = {\"velodrome\", \"oracle\"}})"))
      << rep.text;
  EXPECT_TRUE(contains(rep.text, "--checker velodrome,oracle")) << rep.text;
  ReplayResult again = replay(unlocked_increments, rep.schedule, rep.options);
  ASSERT_EQ(again.verdicts.size(), 2u);
  EXPECT_FALSE(again.verdicts[0].serializable);
}

TEST(Model, Deadlock) {
  ModelReport rep = check_model(inversion);
  ASSERT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "atomcheck::model: failure (deadlock) in execution #")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "lock a")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "lock b")) << rep.text;
}

TEST(Model, TsoFlushesAreLinesOfTheirOwn) {
  ModelReport sc = check_model(store_buffering);
  EXPECT_TRUE(sc.ok) << sc.text;
  ModelReport rep = check_model(store_buffering, {.memory = MemoryModelKind::tso});
  ASSERT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "flush x = 1 (write #")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "flush y = 1 (write #")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "{.memory = atomcheck::MemoryModelKind::tso}")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "--memory tso")) << rep.text;
  // Each flush is its own row: no line holds two events.
  std::istringstream lines(rep.text);
  std::string line;
  int flush_rows = 0;
  while (std::getline(lines, line))
    if (contains(line, "flush ")) {
      ++flush_rows;
      EXPECT_EQ(line.find("flush "), line.rfind("flush ")) << line;
    }
  EXPECT_EQ(flush_rows, 2);
  ReplayResult again = replay(store_buffering, rep.schedule, {.memory = MemoryModelKind::tso});
  EXPECT_TRUE(again.failed);
}

TEST(Model, RegisteredBodyNamesTheCliLine) {
  const ProgramInfo* p = find_program("model-test-lost-update");
  ASSERT_NE(p, nullptr);
  ModelReport rep = check_model(p->body);
  ASSERT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "cli:      run model-test-lost-update --replay '" + rep.schedule + "'"))
      << rep.text;
  ModelReport named = check_model(lost_update, {}, "my-counter");
  EXPECT_TRUE(contains(named.text, "run my-counter --replay")) << named.text;
}

TEST(Model, GtestMacrosAddTheReportAsFailure) {
  EXPECT_NONFATAL_FAILURE(EXPECT_ATOMCHECK(lost_update), "schedule: ");
  EXPECT_NONFATAL_FAILURE(EXPECT_ATOMCHECK(lost_update), "atomcheck::replay(body, \"");
  EXPECT_FATAL_FAILURE(ASSERT_ATOMCHECK(lost_update), "assertion failed: lost update");
  EXPECT_ATOMCHECK(locked_counter);
  EXPECT_ATOMCHECK(locked_counter, {.checkers = {"velodrome", "oracle"}}) << "not reached";
  ASSERT_ATOMCHECK(locked_counter, {.memory = MemoryModelKind::tso}, "locked");
}

// ---- environment overrides ---------------------------------------------------------

TEST(ModelEnv, BudgetStrategyAndSeed) {
  {
    EnvVar v("ATOMCHECK_MAX_EXECUTIONS", "1");
    ModelReport rep = check_model(locked_counter);
    EXPECT_FALSE(rep.ok) << rep.text;  // a cut search is no pass (SearchesCutShort...)
    EXPECT_EQ(rep.result.executions, 1u);
    EXPECT_EQ(rep.result.stop, StopReason::max_executions);
    EXPECT_TRUE(contains(rep.text, "budget: the execution budget ran out")) << rep.text;
  }
  {
    EnvVar s("ATOMCHECK_STRATEGY", "optimal");
    EnvVar all("ATOMCHECK_STOP_ON_FAILURE", "0");
    ModelReport rep = check_model(lost_update, {.strategy = StrategyKind::dfs});
    EXPECT_EQ(rep.options.strategy, StrategyKind::optimal);
    EXPECT_EQ(rep.result.executions, 4u);  // one per class, where DFS runs 6
  }
  {
    EnvVar s("ATOMCHECK_STRATEGY", "random");
    EnvVar seed("ATOMCHECK_SEED", "7");
    EnvVar n("ATOMCHECK_MAX_EXECUTIONS", "5");
    ModelReport rep = check_model(locked_counter);
    EXPECT_EQ(rep.options.seed, 7u);
    EXPECT_EQ(rep.result.executions, 5u);
  }
  {
    EnvVar t("ATOMCHECK_TIME_LIMIT", "2.5");
    EnvVar m("ATOMCHECK_MEMORY", "tso");
    EnvVar j("ATOMCHECK_JOBS", "2");
    ModelReport rep = check_model(locked_counter);
    EXPECT_DOUBLE_EQ(rep.options.time_limit_seconds, 2.5);
    EXPECT_EQ(rep.options.memory, MemoryModelKind::tso);
    EXPECT_EQ(rep.options.jobs, 2u);
    ModelEnvironment e;
    ExploreOptions o;
    std::string error;
    ASSERT_TRUE(apply_model_environment(o, e, error)) << error;
    EXPECT_EQ(e.jobs, 2u);
  }
  {
    EnvVar b("ATOMCHECK_PREEMPTION_BOUND", "0");
    ModelReport rep = check_model(lost_update, {.strategy = StrategyKind::optimal});
    EXPECT_EQ(rep.options.strategy, StrategyKind::dfs);  // a bound asks for DFS
    EXPECT_EQ(rep.options.preemption_bound, 0);
    EXPECT_TRUE(rep.result.bounded);
  }
}

TEST(ModelEnv, MalformedValuesAreOneClearLine) {
  const char* cases[][3] = {
      {"ATOMCHECK_STRATEGY", "fastest", "ATOMCHECK_STRATEGY='fastest': expected one of dfs, dpor, optimal, random, pct"},
      {"ATOMCHECK_MAX_EXECUTIONS", "-3", "ATOMCHECK_MAX_EXECUTIONS='-3': expected a non-negative integer"},
      {"ATOMCHECK_MAX_EXECUTIONS", "10k", "ATOMCHECK_MAX_EXECUTIONS='10k': expected a non-negative integer"},
      {"ATOMCHECK_SEED", "x", "ATOMCHECK_SEED='x': expected a non-negative integer"},
      {"ATOMCHECK_TIME_LIMIT", "soon", "ATOMCHECK_TIME_LIMIT='soon': expected a non-negative number of seconds"},
      {"ATOMCHECK_TIME_LIMIT", "-1", "ATOMCHECK_TIME_LIMIT='-1': expected a non-negative number of seconds"},
      {"ATOMCHECK_MEMORY", "arm", "ATOMCHECK_MEMORY='arm': expected sc, tso or rc11"},
      {"ATOMCHECK_JOBS", "0", "ATOMCHECK_JOBS='0': expected a number of threads from 1 to 4096"},
      {"ATOMCHECK_PREEMPTION_BOUND", "two", "ATOMCHECK_PREEMPTION_BOUND='two': expected a non-negative integer"},
  };
  for (const auto& c : cases) {
    EnvVar v(c[0], c[1]);
    ModelReport rep = check_model(locked_counter);
    EXPECT_FALSE(rep.ok) << c[0];
    EXPECT_EQ(rep.text, std::string("atomcheck::model: ") + c[2] + "\n");
    EXPECT_EQ(rep.result.executions, 0u);
    EXPECT_THROW(model(locked_counter), ModelFailure);
  }
}

TEST(ModelEnv, ReplayRunsOneExecutionAndShowsIt) {
  ModelReport first = check_model(lost_update);
  ASSERT_FALSE(first.ok);
  {
    EnvVar r("ATOMCHECK_REPLAY", first.schedule.c_str());
    ModelReport rep = check_model(lost_update);
    EXPECT_TRUE(rep.replayed);
    EXPECT_FALSE(rep.ok);
    EXPECT_EQ(rep.result.executions, 1u);
    EXPECT_EQ(rep.schedule, first.schedule);
    EXPECT_TRUE(contains(rep.text, "replayed schedule '" + first.schedule + "'")) << rep.text;
    EXPECT_TRUE(contains(rep.text, "assertion failed: lost update")) << rep.text;
    EXPECT_TRUE(contains(rep.text, "step | T0")) << rep.text;
  }
  std::string passing;  // a schedule whose execution completes
  explore(lost_update, {}, [&](const ExecutionView& v) {
    if (!v.failure && passing.empty()) passing = std::string(v.schedule);
  });
  ASSERT_FALSE(passing.empty());
  {
    EnvVar r("ATOMCHECK_REPLAY", passing.c_str());
    ModelReport rep = check_model(lost_update);
    EXPECT_TRUE(rep.replayed);
    EXPECT_TRUE(rep.ok) << rep.text;
    EXPECT_TRUE(contains(rep.text, "completed, nothing flagged")) << rep.text;
  }
  {
    EnvVar r("ATOMCHECK_REPLAY", "9");
    ModelReport rep = check_model(lost_update);
    EXPECT_FALSE(rep.ok);
    EXPECT_TRUE(contains(rep.text, "atomcheck::model: ATOMCHECK_REPLAY='9': ")) << rep.text;
  }
}

TEST(ModelEnv, ReportFileCollectsFailureReports) {
  std::string path = ::testing::TempDir() + "atomcheck_model_report.txt";
  std::remove(path.c_str());
  {
    EnvVar f("ATOMCHECK_REPORT_FILE", path.c_str());
    ModelReport ok = check_model(locked_counter);
    EXPECT_TRUE(ok.ok);
    ModelReport bad = check_model(lost_update);
    ASSERT_FALSE(bad.ok);
    ModelReport again = check_model(inversion);
    ASSERT_FALSE(again.ok);
    std::ifstream in(path);
    std::stringstream all;
    all << in.rdbuf();
    // Each report is headed by the test it is from: one file collects a suite's reports.
    const std::string head = "==== ModelEnv.ReportFileCollectsFailureReports ====\n";
    EXPECT_EQ(all.str(), head + bad.text + "\n" + head + again.text + "\n");
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace atomcheck

namespace atomcheck {
namespace {

// A step-bound failure found under a raised bound replays only under that bound: the
// report's C++ call and command line both carry it.
// The spin threshold too: with the default one the loop is taken for a wait, and the
// execution the schedule names is not the one that failed.
TEST(Model, ReplayLinesCarryANonDefaultStepBound) {
  auto spin = [] {
    atomic<int> flag(0);
    thread t([&] {
      while (flag.load() == 0) {
      }
    });
    flag.store(1);
    t.join();
  };
  ModelReport rep = check_model(spin, {.max_steps = 300, .spin_threshold = 0});
  ASSERT_FALSE(rep.ok);
  EXPECT_NE(rep.text.find("did not terminate within 300 steps"), std::string::npos) << rep.text;
  EXPECT_NE(rep.text.find(".max_steps = 300, .spin_threshold = 0}"), std::string::npos) << rep.text;
  EXPECT_NE(rep.text.find("--max-steps 300 --spin-threshold 0"), std::string::npos) << rep.text;
  EXPECT_TRUE(replay(spin, rep.schedule, {.max_steps = 300, .spin_threshold = 0}).failed);
  for (const ExploreOptions& dropped : {ExploreOptions{.max_steps = 300}, ExploreOptions{.spin_threshold = 0}}) {
    bool failed = false;
    try {
      failed = replay(spin, rep.schedule, dropped).failed;
    } catch (const std::invalid_argument&) {  // the schedule does not fit: not the same execution
    }
    EXPECT_FALSE(failed);
  }
}

// A loop taken for a spin (issue 18, item 2) passes, and the report says what it rests on.
TEST(Model, ReportSaysASpinWasTakenForAWait) {
  ModelReport rep = check_model([] {
    atomic<int> flag(0, "flag");
    thread t([&] {
      while (flag.load() == 0) {
      }
    });
    flag.store(1);
    t.join();
  });
  EXPECT_TRUE(rep.ok) << rep.text;
  EXPECT_NE(rep.text.find("spin without yield(): T1 read flag = 0 at test_model.cpp:"), std::string::npos) << rep.text;
  EXPECT_NE(rep.text.find("write the loop with spin_until or yield()"), std::string::npos) << rep.text;
}

// ---- issue 38, item 4: reports of templated code a person can read ----------------

// Production code templated on its types, as the README recommends: under std_types the
// naming helper costs nothing (no member, no call), under model_types it names the
// object; an object left unnamed is named after its declaration.
// (Members are named after the constructor that builds them, where std::source_location
// puts default member initializers.)
template <class Types>
struct Stats {
  typename Types::template atomic<int> hits{0};
  typename Types::template atomic<int> misses{0};  // left unnamed
  typename Types::mutex lock;                      // unnamed too
  Stats() { Types::name(hits, "hits"); }
};
static_assert(sizeof(Stats<std_types>) == 2 * sizeof(std::atomic<int>) + sizeof(std::mutex));
constexpr int kStatsLine = __LINE__ - 3;  // the constructor's

// A plain declaration is named after its own line.
void unnamed_local() {
  atomic<int> counter(0);
  check(counter.load() == 1, "never counted");
}
constexpr int kCounterLine = __LINE__ - 3;

TEST(ModelReadable, TemplatedCodeNamesItsObjects) {
  Stats<std_types> production;  // compiles and runs under std
  production.hits.fetch_add(1);
  EXPECT_EQ(production.hits.load(), 1);

  ModelReport rep = check_model([] {
    Stats<model_types> s;
    thread t([&] {
      std::lock_guard<model_types::mutex> g(s.lock);
      s.misses.fetch_add(1);
    });
    s.hits.fetch_add(1);
    t.join();
    check(s.hits.load() + s.misses.load() == 3, "counted wrong");
  });
  ASSERT_FALSE(rep.ok);
  const std::string ctor = "test_model.cpp:" + std::to_string(kStatsLine);
  EXPECT_TRUE(contains(rep.text, "rmw hits: 0 -> 1")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "rmw " + ctor + ": 0 -> 1")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "lock " + ctor + " ")) << rep.text;
  EXPECT_FALSE(contains(rep.text, " x1")) << rep.text;
  EXPECT_FALSE(contains(rep.text, " m0")) << rep.text;

  rep = check_model(unnamed_local);
  ASSERT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "read test_model.cpp:" + std::to_string(kCounterLine) + " = 0")) << rep.text;
}

// A thread that fails holding a lock stops there; the threads it blocks are still shown
// (here T2 never gets the lock, so it has no event of its own: it used to have no column).
TEST(ModelReadable, AFailingLockHolderStillShowsTheOtherThreads) {
  ModelReport rep = check_model(
      [] {
        mutex m("m");
        condition_variable cv("cv");
        atomic<int> ready(0, "ready");
        thread t1([&] {
          std::unique_lock<mutex> lk(m);
          ready.store(1);
          check(false, "gave up holding m");
        });
        thread t2([&] {
          std::unique_lock<mutex> lk(m);
          cv.wait(lk, [&] { return ready.load() == 1; });
        });
        t1.join();
        t2.join();
      },
      {.strategy = StrategyKind::dfs});
  ASSERT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "gave up holding m")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "| T1 ")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "| T2 ")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "spawn T2")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "T2 ran no operation of its own")) << rep.text;
}

// A failed compare-exchange is not a plain read: it says what it expected and saw.
TEST(ModelReadable, FailedCompareExchangeShowsExpectedAndSeen) {
  ModelReport rep = check_model([] {
    atomic<int> owner(0, "owner");
    thread t([&] { owner.store(2); });
    t.join();
    int expected = 0;
    const bool won = owner.compare_exchange_strong(expected, 1);
    check(won, "lost the race");
  });
  ASSERT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "failed cas owner: expected 0, saw 2")) << rep.text;
  EXPECT_FALSE(contains(rep.text, "read owner = 2")) << rep.text;
  // Checkers still see a read: the event vocabulary is unchanged.
  std::vector<Event> events;
  explore(
      [] {
        atomic<int> v(5, "v");
        int e = 4;
        v.compare_exchange_strong(e, 6);
      },
      {}, [&](const ExecutionView& v) { events = v.trace->events; });
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].op, Op::read);
  EXPECT_TRUE(events[0].failed_cas);
  EXPECT_EQ(events[0].value, 5);
  EXPECT_EQ(events[0].value2, 4);
}

// Pointers and packed words are read in hex; small values stay plain.
TEST(ModelReadable, LargeValuesPrintHexBesideDecimal) {
  ModelReport rep = check_model([] {
    atomic<std::int64_t> word(0, "word");
    word.store(0x12345678);
    word.store(65535);
    check(word.load() == 0, "stored");
  });
  ASSERT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "write word = 305419896 (0x12345678)")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "write word = 65535\n") || contains(rep.text, "write word = 65535 ")) << rep.text;
  EXPECT_EQ(format_value(-70000), "-70000 (-0x11170)");
  EXPECT_EQ(format_value(65536), "65536 (0x10000)");
  EXPECT_EQ(format_value(-65535), "-65535");
}

// One execution is "1 execution".
TEST(ModelReadable, OneExecutionIsSingular) {
  ModelReport rep = check_model([] { check(false, "always"); });
  ASSERT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "\n1 execution, 1 failed")) << rep.text;
  EXPECT_FALSE(contains(rep.text, "1 executions")) << rep.text;
}

// ATOMCHECK_REPLAY with a prefix of a schedule says what it takes.
TEST(ModelReadable, ReplayOfAPrefixExplainsItself) {
  ModelReport first = check_model(lost_update);
  ASSERT_FALSE(first.ok);
  ASSERT_GT(first.schedule.size(), 2u);
  ASSERT_NE(first.schedule[1], '[') << first.schedule;  // the first character is one whole choice
  const std::string prefix = first.schedule.substr(0, 1);
  EnvVar r("ATOMCHECK_REPLAY", prefix.c_str());
  ModelReport rep = check_model(lost_update);
  EXPECT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "ATOMCHECK_REPLAY takes a whole schedule")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "'" + prefix + "' is only a prefix")) << rep.text;
}

}  // namespace
}  // namespace atomcheck

namespace atomcheck {
namespace {

// ---- defaults, searches cut short, Ctrl-C ------------------------------------------

// Four threads of five stores each: about 10^10 schedules, so any budget cuts it.
void big_program() {
  atomic<int> x(0, "x");
  auto stores = [&] {
    for (int i = 0; i < 5; ++i) x.store(i, std::memory_order_relaxed);
  };
  thread a(stores), b(stores), c(stores), d(stores);
  a.join();
  b.join();
  c.join();
  d.join();
}

TEST(ModelDefaults, OptimalDporAndStopAtTheFirstFailure) {
  const ExploreOptions o;
  EXPECT_EQ(o.strategy, StrategyKind::optimal);
  EXPECT_TRUE(o.stop_on_failure);
  ModelReport rep = check_model(lost_update);
  EXPECT_FALSE(rep.ok);
  EXPECT_EQ(rep.result.stop, StopReason::failure);
  EXPECT_EQ(rep.result.failures_total(), 1u);
  EXPECT_TRUE(contains(rep.text, "stop-on-failure")) << rep.text;
  // Every failure, when asked: optimal DPOR's 4 classes of lost_update, 2 of them failing.
  EnvVar all("ATOMCHECK_STOP_ON_FAILURE", "0");
  ModelReport every = check_model(lost_update);
  EXPECT_FALSE(every.ok);
  EXPECT_EQ(every.result.executions, 4u);
  EXPECT_EQ(every.result.failures_total(), 2u);
  EXPECT_TRUE(contains(every.text, "4 executions, 2 failed")) << every.text;
}

TEST(ModelDefaults, TheFirstFlaggedExecutionStopsTheSearchToo) {
  ModelReport rep = check_model(unlocked_increments, {.checkers = {"oracle"}});
  EXPECT_FALSE(rep.ok);
  EXPECT_EQ(rep.result.stop, StopReason::failure);
  ASSERT_EQ(rep.result.checkers.size(), 1u);
  EXPECT_EQ(rep.result.checkers[0].flagged, 1u);
}

TEST(ModelIncomplete, ABudgetCutIsNoPass) {
  ModelReport rep = check_model(big_program, {.strategy = StrategyKind::dfs, .max_executions = 50});
  EXPECT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "search incomplete")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "no problem found in the 50 executions explored")) << rep.text;
  EXPECT_TRUE(contains(rep.text, "ATOMCHECK_MAX_EXECUTIONS=0")) << rep.text;  // how to widen
  EXPECT_TRUE(contains(rep.text, "allow_incomplete")) << rep.text;            // how to accept
  EXPECT_TRUE(rep.note.empty());
  EXPECT_THROW(model(big_program, {.strategy = StrategyKind::dfs, .max_executions = 50}), ModelFailure);
  // It fails the test, so it goes to the report file as a failure does.
  const std::string path = ::testing::TempDir() + "atomcheck_incomplete_report.txt";
  std::remove(path.c_str());
  {
    EnvVar file("ATOMCHECK_REPORT_FILE", path.c_str());
    check_model(big_program, {.strategy = StrategyKind::dfs, .max_executions = 50});
  }
  std::ifstream in(path);
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_TRUE(contains(got.str(), rep.text)) << got.str();
}

TEST(ModelIncomplete, ATimeLimitCutIsNoPass) {
  ModelReport rep = check_model(big_program, {.strategy = StrategyKind::dfs, .time_limit_seconds = 0.05});
  EXPECT_FALSE(rep.ok);
  EXPECT_EQ(rep.result.stop, StopReason::time_limit);
  EXPECT_TRUE(contains(rep.text, "search incomplete (dfs, sc, time")) << rep.text;
}

TEST(ModelIncomplete, AskedForPartialSearchesPassWithANote) {
  {
    ModelReport rep = check_model(
        big_program, {.strategy = StrategyKind::dfs, .max_executions = 50, .allow_incomplete = true});
    EXPECT_TRUE(rep.ok) << rep.text;
    EXPECT_TRUE(contains(rep.note, "budget")) << rep.note;
  }
  {
    EnvVar allow("ATOMCHECK_ALLOW_INCOMPLETE", "1");
    ModelReport rep = check_model(big_program, {.strategy = StrategyKind::dfs, .max_executions = 50});
    EXPECT_TRUE(rep.ok) << rep.text;
    EXPECT_FALSE(rep.note.empty());
  }
  {
    ModelReport rep = check_model(locked_counter, {.strategy = StrategyKind::random, .max_executions = 5});
    EXPECT_TRUE(rep.ok) << rep.text;
    EXPECT_TRUE(contains(rep.note, "sampled")) << rep.note;
  }
  {
    ModelReport rep = check_model(big_program, {.strategy = StrategyKind::dfs, .preemption_bound = 0});
    EXPECT_TRUE(rep.ok) << rep.text;
    EXPECT_TRUE(contains(rep.note, "preemption bound")) << rep.note;
  }
  // An exhaustive pass has nothing to note.
  ModelReport full = check_model(locked_counter);
  EXPECT_TRUE(full.ok) << full.text;
  EXPECT_TRUE(full.note.empty()) << full.note;
}

void cut_by_budget() { EXPECT_ATOMCHECK(big_program, {.strategy = StrategyKind::dfs, .max_executions = 20}); }

TEST(ModelIncomplete, TheGtestMacrosFailACutSearch) {
  EXPECT_NONFATAL_FAILURE(cut_by_budget(), "search incomplete");
  // Allowed: passes, with the note printed and recorded as the test's property.
  ::testing::internal::CaptureStderr();
  EXPECT_ATOMCHECK(big_program, {.strategy = StrategyKind::dfs, .max_executions = 20, .allow_incomplete = true});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(err, "budget: the execution budget ran out")) << err;
}

TEST(ModelIncomplete, MalformedSwitchesAreOneClearLine) {
  EnvVar v("ATOMCHECK_ALLOW_INCOMPLETE", "yes");
  ModelReport rep = check_model(locked_counter);
  EXPECT_FALSE(rep.ok);
  EXPECT_EQ(rep.text, "atomcheck::model: ATOMCHECK_ALLOW_INCOMPLETE='yes': expected 0 or 1\n");
}

TEST(ModelIncomplete, LongSearchesPrintProgress) {
  EnvVar p("ATOMCHECK_PROGRESS", "0.2");
  ::testing::internal::CaptureStderr();
  ModelReport rep = check_model(big_program, {.strategy = StrategyKind::dfs, .time_limit_seconds = 0.7});
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(rep.ok);
  EXPECT_TRUE(contains(err, "atomcheck::model: ")) << err;
  EXPECT_TRUE(contains(err, " executions in ")) << err;
}

// Ctrl-C inside a test: the partial report on stderr, then the interrupt ends the
// process (as on the command line). A death test: the interrupt would end this run too.
TEST(ModelIncompleteDeathTest, CtrlCPrintsThePartialReport) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::thread([] {
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          ::kill(::getpid(), SIGINT);
        }).detach();
        check_model(big_program, {.strategy = StrategyKind::dfs, .max_executions = 0, .time_limit_seconds = 0});
        std::exit(0);  // not reached: the search ran to its end without the interrupt
      },
      ::testing::KilledBySignal(SIGINT), "search incomplete \\(dfs, sc, interrupted[^\n]*\n[^\n]*interrupted: Ctrl-C");
}

}  // namespace
}  // namespace atomcheck

// ---- issue 57, item 4: every replay hint carries the options that shape the execution ----

namespace atomcheck {
namespace {

// Message passing with relaxed atomics: only RC11 lets the reader see the flag and miss
// the datum (TSO keeps the stores in order).
void mp_relaxed() {
  atomic<int> data(0, "data"), flag(0, "flag");
  thread t1([&] {
    data.store(42, std::memory_order_relaxed);
    flag.store(1, std::memory_order_relaxed);
  });
  thread t2([&] {
    if (flag.load(std::memory_order_relaxed) == 1)
      check(data.load(std::memory_order_relaxed) == 42, "saw the flag but not the data");
  });
  t1.join();
  t2.join();
}

ATOMCHECK_PROGRAM("model-test-sb", "test_model.cpp: store buffering, fails under tso") { store_buffering(); }
ATOMCHECK_PROGRAM("model-test-mp-relaxed", "test_model.cpp: relaxed message passing, fails under rc11") {
  mp_relaxed();
}

// The hint of `report` on the line starting with `label` ("rerun:    "), without its
// label and without the explanation in parentheses that follows three blanks.
std::string hint_line(const std::string& report, const std::string& label) {
  std::size_t at = report.find("\n" + label);
  if (at == std::string::npos) return {};
  at += 1 + label.size();
  std::string line = report.substr(at, report.find('\n', at) - at);
  return line.substr(0, line.find("   ("));
}

// Sets the variables of a `rerun:` hint (NAME=VALUE words before `<this test>`) for the
// scope of one test.
struct RerunEnvironment {
  std::vector<std::unique_ptr<EnvVar>> vars;
  explicit RerunEnvironment(const std::string& rerun) {
    for (const std::string& w : atomcheck::testing::shell_words(rerun.substr(0, rerun.find(" <this test>")))) {
      const std::size_t eq = w.find('=');
      if (eq == std::string::npos) continue;
      vars.push_back(std::make_unique<EnvVar>(w.substr(0, eq).c_str(), w.substr(eq + 1).c_str()));
    }
  }
};

// A `cli:` hint run in this process by cli_main, as a binary of one's own would run it.
struct CliRun {
  int exit_code = -1;
  std::string out;
};
CliRun run_cli_line(const std::string& line) {
  std::vector<std::string> words = atomcheck::testing::shell_words(line);
  words.insert(words.begin(), "atomcheck");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  CliRun r;
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  r.exit_code = cli_main(static_cast<int>(words.size()), argv.data());
  r.out = ::testing::internal::GetCapturedStdout();
  r.out += ::testing::internal::GetCapturedStderr();
  return r;
}

bool same_failure(const ModelReport& again, const ModelReport& first) {
  return again.replayed && !again.result.failures.empty() && !first.result.failures.empty() &&
         again.result.failures[0].message == first.result.failures[0].message;
}

// A model given by the environment (CI's ATOMCHECK_MEMORY=tso), rc11 included: the rerun
// hint alone, applied to the test with its own (default) options, reproduces the failure,
// and so does the command line; neither does without the model.
TEST(ModelReplayHints, TheModelFromTheEnvironmentIsInEveryHint) {
  struct Case {
    const char* program;
    const char* memory;
    MemoryModelKind kind;
  };
  for (const Case& c : {Case{"model-test-sb", "tso", MemoryModelKind::tso},
                        Case{"model-test-mp-relaxed", "rc11", MemoryModelKind::rc11}}) {
    SCOPED_TRACE(c.memory);
    const ProgramInfo* p = find_program(c.program);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(check_model(p->body).ok);  // it fails under the weaker model only
    ModelReport first;
    {
      EnvVar m("ATOMCHECK_MEMORY", c.memory);
      first = check_model(p->body);
    }
    ASSERT_FALSE(first.ok) << first.text;
    EXPECT_EQ(first.options.memory, c.kind);
    const std::string rerun = hint_line(first.text, "rerun:    ");
    EXPECT_EQ(rerun, fmt::format("ATOMCHECK_MEMORY={} ATOMCHECK_REPLAY='{}' <this test>", c.memory, first.schedule));
    EXPECT_EQ(hint_line(first.text, "replay:   "),
              fmt::format("atomcheck::replay(body, \"{}\", {{.memory = atomcheck::MemoryModelKind::{}}})",
                          first.schedule, c.memory));
    {
      RerunEnvironment env(rerun);
      ModelReport again = check_model(p->body);
      EXPECT_TRUE(same_failure(again, first)) << again.text;
      // The replay's own report hints the same rerun.
      EXPECT_EQ(hint_line(again.text, "rerun:    "), rerun);
    }
    {
      EnvVar only_schedule("ATOMCHECK_REPLAY", first.schedule.c_str());
      EXPECT_FALSE(same_failure(check_model(p->body), first));
    }
    const std::string cli = hint_line(first.text, "cli:      ");
    EXPECT_EQ(cli, fmt::format("run {} --replay '{}' --memory {}", c.program, first.schedule, c.memory));
    CliRun run = run_cli_line(cli);
    EXPECT_EQ(run.exit_code, 1) << run.out;
    EXPECT_TRUE(contains(run.out, first.result.failures.at(0).message)) << run.out;
    CliRun without = run_cli_line(fmt::format("run {} --replay '{}'", c.program, first.schedule));
    EXPECT_FALSE(without.exit_code == 1 && contains(without.out, first.result.failures.at(0).message))
        << without.out;
  }
}

// The environment that put a test written for TSO back on SC is in the rerun hint too:
// without it the rerun would replay the schedule under the test's TSO.
TEST(ModelReplayHints, TheEnvironmentsScOverATestsTsoIsInTheRerun) {
  const ExploreOptions test_options{.memory = MemoryModelKind::tso};
  ModelReport first;
  {
    EnvVar m("ATOMCHECK_MEMORY", "sc");
    first = check_model(lost_update, test_options);
  }
  ASSERT_FALSE(first.ok);
  const std::string rerun = hint_line(first.text, "rerun:    ");
  EXPECT_EQ(rerun, "ATOMCHECK_MEMORY=sc ATOMCHECK_REPLAY='" + first.schedule + "' <this test>");
  RerunEnvironment env(rerun);
  ModelReport again = check_model(lost_update, test_options);
  EXPECT_EQ(again.options.memory, MemoryModelKind::sc);
  EXPECT_TRUE(same_failure(again, first)) << again.text;
}

// Options set by the test itself, every one that shapes an execution away from its
// default: the replay hint names each, in an order that compiles (this test compiles the
// very text it expects), and the command line carries every one it has a flag for.
#define ATOMCHECK_TEST_SHAPING_OPTIONS                                                                      \
  {.memory = atomcheck::MemoryModelKind::rc11, .max_steps = 500, .spin_threshold = 50,                     \
   .spurious_wakeups = false, .loop_reduction = false, .race_check = false, .leak_check = false,            \
   .reuse_freed = true, .depth_bound = 400}
#define ATOMCHECK_TEST_TEXT(...) #__VA_ARGS__
#define ATOMCHECK_TEST_STRINGIZE(...) ATOMCHECK_TEST_TEXT(__VA_ARGS__)

TEST(ModelReplayHints, EveryOptionThatShapesTheExecutionIsNamed) {
  const ExploreOptions options = ATOMCHECK_TEST_SHAPING_OPTIONS;
  const ProgramInfo* p = find_program("model-test-mp-relaxed");
  ASSERT_NE(p, nullptr);
  ModelReport first = check_model(p->body, options);
  ASSERT_FALSE(first.ok) << first.text;
  const std::string& s = first.schedule;
  EXPECT_EQ(hint_line(first.text, "replay:   "),
            "atomcheck::replay(body, \"" + s + "\", " ATOMCHECK_TEST_STRINGIZE(ATOMCHECK_TEST_SHAPING_OPTIONS) ")");
  ReplayResult again = replay(p->body, s, ATOMCHECK_TEST_SHAPING_OPTIONS);
  EXPECT_TRUE(again.failed);
  EXPECT_EQ(again.failure.message, first.result.failures.at(0).message);
  EXPECT_EQ(hint_line(first.text, "rerun:    "), "ATOMCHECK_MEMORY=rc11 ATOMCHECK_REPLAY='" + s + "' <this test>");
  const std::string cli = hint_line(first.text, "cli:      ");
  EXPECT_EQ(cli, "run model-test-mp-relaxed --replay '" + s +
                     "' --memory rc11 --max-steps 500 --spin-threshold 50 --no-spurious-wakeups"
                     " --no-loop-reduction --no-race-check --no-leak-check --reuse-freed --depth-bound 400");
  CliRun run = run_cli_line(cli);
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_TRUE(contains(run.out, "saw the flag but not the data")) << run.out;
}

// And sc as a graph model: its schedules name memory choices, which only a replay with
// sc_graphs can take, so the hint and the command line carry it.
#define ATOMCHECK_TEST_SC_GRAPHS_OPTIONS {.loop_reduction = false, .sc_graphs = true}

TEST(ModelReplayHints, ScGraphsIsNamed) {
  const ExploreOptions options = ATOMCHECK_TEST_SC_GRAPHS_OPTIONS;
  ModelReport first = check_model(lost_update, options);
  ASSERT_FALSE(first.ok) << first.text;
  const std::string& s = first.schedule;
  EXPECT_EQ(hint_line(first.text, "replay:   "),
            "atomcheck::replay(body, \"" + s + "\", " ATOMCHECK_TEST_STRINGIZE(ATOMCHECK_TEST_SC_GRAPHS_OPTIONS) ")");
  ReplayResult again = replay(lost_update, s, ATOMCHECK_TEST_SC_GRAPHS_OPTIONS);
  EXPECT_TRUE(again.failed);
  EXPECT_EQ(again.failure.message, first.result.failures.at(0).message);
  EXPECT_TRUE(contains(hint_line(first.text, "cli:      "), " --no-loop-reduction --sc-graphs")) << first.text;
}

TEST(ModelEnv, MemoryTakesRc11) {
  EnvVar m("ATOMCHECK_MEMORY", "rc11");
  ModelEnvironment e;
  ExploreOptions o;
  std::string error;
  ASSERT_TRUE(apply_model_environment(o, e, error)) << error;
  EXPECT_EQ(o.memory, MemoryModelKind::rc11);
  ModelReport rep = check_model(mp_relaxed);
  EXPECT_FALSE(rep.ok);
  EXPECT_TRUE(contains(rep.text, "(optimal, rc11, ")) << rep.text;
}

}  // namespace
}  // namespace atomcheck
