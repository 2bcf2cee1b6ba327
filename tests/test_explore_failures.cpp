// Failures are found and reported with a schedule that replays them: assertion (lost
// update), deadlock (lock-order inversion), exception escaping a thread, step bound on a
// spin loop, API misuse; and the API refuses to be used outside an exploration.
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <stdexcept>

#include "tests/support/options.hpp"
#include "scheduler/runtime/api.hpp"

namespace atomcheck {
namespace {

Program registered(const char* name) {
  const ProgramInfo* p = find_program(name);
  EXPECT_NE(p, nullptr) << name;
  return p ? Program(p->body) : Program([] {});
}

TEST(ExploreFailures, LostUpdateFoundByCheck) {
  ExploreResult r = explore(registered("lost-update"), testing_support::every_schedule());
  EXPECT_TRUE(r.exhausted());
  EXPECT_GT(r.failed, 0u);
  EXPECT_GT(r.completed, 0u);  // the serial schedules pass
  ASSERT_FALSE(r.failures.empty());
  const Failure& f = r.failures[0];
  EXPECT_EQ(f.kind, FailureKind::assertion);
  EXPECT_NE(f.message.find("assertion failed: lost update"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("classics.cpp"), std::string::npos) << f.message;
  // The schedule replays to the same failure.
  ReplayResult rep = replay(registered("lost-update"), f.schedule);
  EXPECT_TRUE(rep.failed);
  EXPECT_EQ(rep.failure.kind, FailureKind::assertion);
  EXPECT_EQ(rep.failure.message, f.message);
}

TEST(ExploreFailures, LockedCounterPasses) {
  ExploreResult r = explore(registered("locked-counter"), testing_support::every_schedule());
  EXPECT_TRUE(r.ok()) << (r.failures.empty() ? "" : r.failures[0].message);
  EXPECT_GT(r.executions, 1u);
  EXPECT_EQ(r.completed, r.executions);
}

TEST(ExploreFailures, LockInversionDeadlockReplays) {
  ExploreResult r = explore(registered("lock-inversion"), testing_support::every_schedule());
  EXPECT_TRUE(r.exhausted());
  EXPECT_GT(r.deadlocks, 0u);
  EXPECT_GT(r.completed, 0u);
  ASSERT_FALSE(r.failures.empty());
  const Failure& f = r.failures[0];
  EXPECT_EQ(f.kind, FailureKind::deadlock);
  EXPECT_NE(f.message.find("T1 waits for b (held by T2)"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("T2 waits for a (held by T1)"), std::string::npos) << f.message;
  ReplayResult rep = replay(registered("lock-inversion"), f.schedule);
  EXPECT_TRUE(rep.failed);
  EXPECT_EQ(rep.failure.kind, FailureKind::deadlock);
  EXPECT_EQ(rep.failure.message, f.message);
  // The deadlocked execution ends with both acquisitions of the first locks.
  int acquires = 0;
  for (const Event& e : rep.trace.events) acquires += e.op == Op::acquire;
  EXPECT_EQ(acquires, 2);
}

TEST(ExploreFailures, StopOnFailureStopsEarly) {
  ExploreOptions o = testing_support::every_schedule();
  o.stop_on_failure = true;
  ExploreResult r = explore(registered("lost-update"), o);
  EXPECT_EQ(r.stop, StopReason::failure);
  EXPECT_EQ(r.failed, 1u);
  ExploreResult all = explore(registered("lost-update"), testing_support::every_schedule());
  EXPECT_LT(r.executions, all.executions);
}

TEST(ExploreFailures, ExceptionEscapingThreadIsReported) {
  ExploreResult r = explore([] {
    atomic<int> x(0);
    thread t([&] {
      if (x.load() == 1) throw std::runtime_error("boom");
    });
    x.store(1);
    t.join();
  }, testing_support::every_schedule());
  EXPECT_EQ(r.executions, 2u);
  EXPECT_EQ(r.failed, 1u);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].kind, FailureKind::exception);
  EXPECT_EQ(r.failures[0].message, "exception escaping thread T1: boom");
  EXPECT_EQ(r.failures[0].thread, 1u);
}

TEST(ExploreFailures, SpinLoopHitsStepBound) {
  ExploreOptions o = testing_support::every_schedule();
  // Without the spin diagnosis, DFS tries "the spinner runs once more" ever deeper: the
  // path that spins forever is cut at the bound, after which the search is exhausted.
  o.max_steps = 200;
  o.spin_threshold = 0;
  ExploreResult r = explore(
      [] {
        atomic<int> flag(0);
        thread t([&] {
          while (flag.load() == 0) {
          }
        });
        flag.store(1);
        t.join();
      },
      o);
  EXPECT_GT(r.step_bounded, 0u);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0].kind, FailureKind::step_bound);
  EXPECT_EQ(r.failures[0].message,
            "did not terminate within 200 steps (a spin loop without yield()? use spin_until; "
            "raise with --max-steps or max_steps)");
  EXPECT_TRUE(r.exhausted());
}

// The default options cannot hang a test on a spin loop without yield(): the step bound
// (Loom's branch limit) reports it, with the cure in the message, and the search ends.
// Issue 18, item 2: with the default options a loop that reads the same thing over and
// over without yield() is said once, with its thread, variable, value and line, and from
// the 100th identical read on blocks as a yield() loop repeating itself would: the search
// is finite and no execution is cut by the step bound.
TEST(ExploreFailures, DefaultOptionsReportASpinLoop) {
  ExploreOptions o = testing_support::every_schedule();
  EXPECT_EQ(o.max_steps, kDefaultMaxSteps);
  EXPECT_EQ(kDefaultMaxSteps, 1000u);
  EXPECT_EQ(o.spin_threshold, 100u);
  const auto body = [] {
    atomic<int> flag(0, "flag");
    thread t([&] {
      while (flag.load() == 0) {
      }
    });
    flag.store(1);
    t.join();
  };
  const int spin_line = __LINE__ - 6;
  ExploreResult r = explore(body, testing_support::every_schedule());
  EXPECT_EQ(r.step_bounded, 0u);
  EXPECT_TRUE(r.failures.empty());
  EXPECT_TRUE(r.exhausted());
  EXPECT_EQ(r.completed, 100u);  // the store before each of the 100 reads
  EXPECT_EQ(r.pruned, 1u);       // or after them: T1 blocked, the store changed what it read
  EXPECT_EQ(r.unmarked_spins, 1u);
  EXPECT_EQ(r.unmarked_spin,
            "T1 read flag = 0 at test_explore_failures.cpp:" + std::to_string(spin_line) + " 100 times in a row");
  // The reported schedule replays the spinning execution.
  ReplayResult rep = replay(body, r.unmarked_spin_schedule);
  EXPECT_FALSE(rep.failed);
  std::size_t reads = 0;
  for (const Event& e : rep.trace.events) reads += e.op == Op::read && e.thread == 1;
  EXPECT_EQ(reads, 100u);
  EXPECT_TRUE(rep.blocked);
  // A threshold a bounded loop stays below changes nothing: 50 identical reads complete.
  ExploreResult bounded = explore([] {
    atomic<int> x(0, "x");
    thread t([&] {
      for (int i = 0; i < 50; ++i) (void)x.load();
    });
    x.store(1);
    t.join();
  }, testing_support::every_schedule());
  EXPECT_EQ(bounded.unmarked_spins, 0u);
  EXPECT_EQ(bounded.completed, 51u);
}

// Without the diagnosis (spin_threshold 0) the default step bound reports the spin.
TEST(ExploreFailures, StepBoundReportsASpinLoopWithoutTheDiagnosis) {
  ExploreOptions o = testing_support::every_schedule();
  o.spin_threshold = 0;
  ExploreResult r = explore([] {
    atomic<int> flag(0);
    thread t([&] {
      while (flag.load() == 0) {
      }
    });
    flag.store(1);
    t.join();
  }, o);
  EXPECT_GT(r.step_bounded, 0u);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0].kind, FailureKind::step_bound);
  EXPECT_NE(r.failures[0].message.find("did not terminate within 1000 steps"), std::string::npos);
  EXPECT_NE(r.failures[0].message.find("spin_until"), std::string::npos) << r.failures[0].message;
  EXPECT_TRUE(r.exhausted());
}

// Unset, max_executions is the strategy's default: a budget for exhaustive searches, a
// sample count for random and pct; 0 is no limit.
TEST(ExploreFailures, DefaultBudgets) {
  ExploreOptions o = testing_support::every_schedule();
  EXPECT_FALSE(o.max_executions.has_value());
  EXPECT_EQ(o.time_limit_seconds, kDefaultTimeLimit);
  auto body = [] {
    atomic<int> x(0);
    thread t([&] { x.store(1); });
    (void)x.load();
    t.join();
  };
  o.strategy = StrategyKind::random;
  EXPECT_EQ(explore(body, o).executions, kDefaultSamples);
  o.max_executions = 7;
  ExploreResult seven = explore(body, o);
  EXPECT_EQ(seven.executions, 7u);
  EXPECT_EQ(seven.stop, StopReason::none);  // a sample's end, not a cut
  // Unlimited sampling runs until stopped; here by an interrupt past the default count.
  std::atomic<bool> stop{false};
  o.max_executions = 0;
  o.interrupt = &stop;
  ExploreResult unlimited = explore(body, o, [&stop](const ExecutionView& v) {
    if (v.index > kDefaultSamples) stop = true;
  });
  EXPECT_EQ(unlimited.stop, StopReason::interrupted);
  EXPECT_GT(unlimited.executions, kDefaultSamples);
  ExploreOptions dfs = testing_support::every_schedule();
  dfs.max_executions = 1;
  EXPECT_EQ(explore(body, dfs).stop, StopReason::max_executions);
}

TEST(ExploreFailures, YieldMakesSpinLoopsFinite) {
  ExploreResult r = explore([] {
    atomic<int> flag(0), data(0);
    thread t([&] {
      while (flag.load() == 0) this_thread::yield();
      check(data.load() == 42, "data not published");
    });
    data.store(42);
    flag.store(1);
    t.join();
  }, testing_support::every_schedule());
  EXPECT_TRUE(r.exhausted());
  EXPECT_TRUE(r.ok()) << (r.failures.empty() ? "" : r.failures[0].message);
  EXPECT_GT(r.executions, 2u);
  EXPECT_LT(r.executions, 100u);
}

// Peterson's lock spins on two variables: the other thread may write between the first
// read and the yield() call. Blocking only on writes after the call lost that wake-up
// and reported false deadlocks ("T2 spins in yield() and nothing can change memory").
TEST(ExploreFailures, YieldKeepsWakeUpsFromDuringTheSpinIteration) {
  ExploreResult r = explore([] {
    atomic<int> flag0(0, "flag0"), flag1(0, "flag1"), turn(0, "turn");
    shared<int> in_cs(0, "in_cs");
    auto side = [&](int me) {
      atomic<int>& mine = me == 0 ? flag0 : flag1;
      atomic<int>& other = me == 0 ? flag1 : flag0;
      mine.store(1);
      turn.store(1 - me);
      while (other.load() == 1 && turn.load() == 1 - me) this_thread::yield();
      in_cs = in_cs + 1;
      check(in_cs == 1, "mutual exclusion");
      in_cs = in_cs - 1;
      mine.store(0);
    };
    thread t0(side, 0), t1(side, 1);
    t0.join();
    t1.join();
  }, testing_support::every_schedule());
  EXPECT_TRUE(r.exhausted());
  EXPECT_EQ(r.deadlocks, 0u) << (r.failures.empty() ? "" : r.failures[0].message);
  EXPECT_TRUE(r.ok()) << (r.failures.empty() ? "" : r.failures[0].message);
}

// A failed test-and-set writes back the 1 it read: the spinning thread's own writes
// change nothing it can read, so they must not keep yield() from blocking (the search
// was unbounded: every spin iteration was a fresh step).
TEST(ExploreFailures, YieldIgnoresTheSpinnersOwnWrites) {
  ExploreOptions o = testing_support::every_schedule();
  o.max_steps = 200;
  o.max_executions = 2000;  // the old rule needs far more: fail, do not hang
  ExploreResult r = explore([] {
    atomic<int> flag(0, "flag");
    shared<int> in_cs(0, "in_cs");
    auto side = [&] {
      while (flag.exchange(1) == 1) this_thread::yield();
      in_cs = in_cs + 1;
      check(in_cs == 1, "mutual exclusion");
      in_cs = in_cs - 1;
      flag.store(0);
    };
    thread t0(side), t1(side);
    t0.join();
    t1.join();
  }, o);
  EXPECT_TRUE(r.exhausted());
  EXPECT_TRUE(r.ok()) << (r.failures.empty() ? "" : r.failures[0].message);
  EXPECT_LT(r.executions, 200u);
}

// A failing thread stops where it failed and the others run on, so DPOR's race analysis
// sees their later operations. Cutting the execution at the failure hid T1's store to d
// from it: dpor and optimal ran only the failing execution and never the one where the
// check passes (DFS: one completed execution with a = 1).
TEST(ExploreFailures, AFailureStopsItsThreadAndTheOthersRunOn) {
  const Program p = [] {
    atomic<int> a(0, "a"), d(0, "d");
    thread t1([&] {
      a.store(1);
      d.store(1);
    });
    check(d.load() == 1, "d not yet set");
    outcome("a", a.load());
    t1.join();
  };
  for (MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::tso}) {
    for (StrategyKind s : {StrategyKind::dfs, StrategyKind::dpor, StrategyKind::optimal}) {
      SCOPED_TRACE(static_cast<int>(s) * 10 + static_cast<int>(m));
      ExploreOptions o = testing_support::every_schedule();
      o.strategy = s;
      o.memory = m;
      const ExploreResult r = explore(p, o);
      EXPECT_TRUE(r.exhausted());
      EXPECT_EQ(r.completed, 1u);
      ASSERT_EQ(r.outcomes.size(), 1u);
      EXPECT_EQ(r.outcomes.begin()->first, (Outcome{{"a", 1}}));
      ASSERT_FALSE(r.failures.empty());
      EXPECT_NE(r.failures[0].message.find("d not yet set"), std::string::npos);
      // The failing execution ran T1 to its end after T0 stopped.
      const ReplayResult again = replay(p, r.failures[0].schedule, o);
      ASSERT_TRUE(again.failed);
      std::size_t t1_after = 0;
      for (std::size_t e = again.failure.event; e < again.trace.events.size(); ++e)
        t1_after += again.trace.events[e].thread == 1;
      EXPECT_GT(t1_after, 0u);
    }
  }
}

TEST(ExploreFailures, YieldWithNobodyToWakeIsLivelock) {
  ExploreResult r = explore([] {
    atomic<int> flag(0);
    while (flag.load() == 0) this_thread::yield();
  }, testing_support::every_schedule());
  EXPECT_EQ(r.deadlocks, 1u);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_NE(r.failures[0].message.find("spins forever in a yield() loop"), std::string::npos);
}

// spin_until: a failed attempt blocks its thread for good; the execution is discarded
// (pruned) when another thread later changed what the attempt read, and is a livelock
// when nothing did. The search is the same for every strategy.
TEST(ExploreFailures, SpinUntilAwaitsWithoutRepeatingAttempts) {
  Program p = [] {
    atomic<int> flag(0, "flag"), data(0, "data");
    thread t([&] {
      spin_until([&] { return flag.load() == 1; });
      check(data.load() == 42, "data not published");
    });
    data.store(42);
    flag.store(1);
    t.join();
  };
  for (StrategyKind s : {StrategyKind::dfs, StrategyKind::dpor, StrategyKind::optimal}) {
    ExploreOptions o = testing_support::every_schedule();
    o.strategy = s;
    ExploreResult r = explore(p, o);
    EXPECT_TRUE(r.exhausted()) << static_cast<int>(s);
    EXPECT_TRUE(r.ok()) << (r.failures.empty() ? "" : r.failures[0].message);
    // The flag read after the store completes; read before it, the attempt fails and
    // the execution is discarded (DFS also places that read before and after the data
    // store, which DPOR does not tell apart).
    EXPECT_EQ(r.completed, 1u) << static_cast<int>(s);
    EXPECT_EQ(r.pruned, s == StrategyKind::dfs ? 2u : 1u) << static_cast<int>(s);
    EXPECT_FALSE(r.reduction_incomplete);
  }
}

TEST(ExploreFailures, SpinUntilNobodyChangesIsLivelock) {
  ExploreResult r = explore([] {
    atomic<int> flag(0, "flag");
    thread t([&] { flag.store(2); });
    spin_until([&] { return flag.load() == 1; });
    t.join();
  }, testing_support::every_schedule());
  EXPECT_GT(r.deadlocks, 0u);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].message.find("spins forever in spin_until"), std::string::npos)
      << r.failures[0].message;
}

TEST(ExploreFailures, SpinUntilRejectsAFailedAttemptThatWrites) {
  ExploreResult r = explore([] {
    atomic<int> flag(1, "flag");
    thread t([&] { flag.store(0); });
    spin_until([&] { return flag.exchange(1) == 0; });
    t.join();
  }, testing_support::every_schedule());
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0].kind, FailureKind::usage);
  EXPECT_NE(r.failures[0].message.find("its condition must only read"), std::string::npos)
      << r.failures[0].message;
}

TEST(ExploreFailures, AssumePrunes) {
  ExploreResult r = explore([] {
    atomic<int> x(0);
    thread t([&] { x.store(1); });
    int v = x.load();
    assume(v == 1);
    check(v == 1);
    t.join();
  }, testing_support::every_schedule());
  EXPECT_EQ(r.executions, 2u);
  EXPECT_EQ(r.pruned, 1u);
  EXPECT_EQ(r.completed, 1u);
  EXPECT_TRUE(r.ok());
}

TEST(ExploreFailures, UnjoinedThreadIsUsageFailure) {
  ExploreResult r = explore([] {
    atomic<int> x(0);
    thread t([&] { x.store(1); });
  }, testing_support::every_schedule());
  EXPECT_GT(r.failed, 0u);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0].kind, FailureKind::usage);
  EXPECT_NE(r.failures[0].message.find("while joinable"), std::string::npos);
}

TEST(ExploreFailures, UnlockByNonOwnerAndRelockAreUsageFailures) {
  ExploreResult r1 = explore([] {
    mutex m;
    m.unlock();
  }, testing_support::every_schedule());
  ASSERT_EQ(r1.failures.size(), 1u);
  EXPECT_NE(r1.failures[0].message.find("which it does not hold"), std::string::npos);
  ExploreResult r2 = explore([] {
    mutex m;
    m.lock();
    m.lock();
  }, testing_support::every_schedule());
  ASSERT_EQ(r2.failures.size(), 1u);
  EXPECT_NE(r2.failures[0].message.find("which it already holds"), std::string::npos);
}

TEST(ExploreFailures, ObjectsOutsideExplorationThrow) {
  EXPECT_THROW(atomic<int> x(0), UsageError);
  EXPECT_THROW(mutex m, UsageError);
  EXPECT_THROW(shared<int> s(0), UsageError);
  EXPECT_NO_THROW(check(true));
  EXPECT_THROW(check(false, "x"), UsageError);
  try {
    atomic<int> x(0);
    FAIL() << "no exception";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("outside an exploration"), std::string::npos);
  }
}

TEST(ExploreFailures, ObjectFromEarlierExecutionFails) {
  std::optional<atomic<int>> stash;
  ExploreResult first = explore([&] { stash.emplace(0); }, testing_support::every_schedule());
  EXPECT_TRUE(first.ok());
  ExploreResult r = explore([&] { stash->store(3); }, testing_support::every_schedule());
  EXPECT_EQ(r.failed, 1u);
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].kind, FailureKind::usage);
  EXPECT_NE(r.failures[0].message.find("created by an earlier execution"), std::string::npos);
  stash.reset();  // destroying it outside an exploration is harmless
}

TEST(ExploreFailures, NondeterministicProgramIsReported) {
  int runs = 0;
  ExploreResult r = explore([&] {
    atomic<int> x(0);
    thread t([&] { x.store(1); });
    if (runs++ == 0) x.store(2);
    t.join();
  }, testing_support::every_schedule());
  EXPECT_EQ(r.stop, StopReason::nondeterministic);
  EXPECT_NE(r.error.find("not deterministic"), std::string::npos) << r.error;
}

// Issue 21, item 2: a body reading a counter that outlives the execution. When that
// changes which operations run (T1 stores only when the counter is odd) or only the
// values written (T1 stores the counter), every exhaustive strategy stops: the search
// compares what each step did with the previous execution's same step, values included.
// Comparing the number of enabled transitions at choice points caught the first kind
// only, and the second kind silently produced outcomes no single program has.
TEST(ExploreFailures, StateOutlivingAnExecutionIsCaughtByEveryStrategy) {
  for (bool values_only : {false, true}) {
    for (StrategyKind s : {StrategyKind::dfs, StrategyKind::dpor, StrategyKind::optimal}) {
      int counter = 0;
      ExploreOptions o = testing_support::every_schedule();
      o.strategy = s;
      ExploreResult r = explore(
          [&] {
            atomic<int> x(0, "x"), y(0, "y");
            const int now = ++counter;
            thread t1([&] {
              if (values_only)
                x.store(now);
              else if (now % 2 == 1)
                x.store(1);
              y.store(1);
            });
            thread t2([&] { outcome("y", y.load()); });
            t1.join();
            t2.join();
          },
          o);
      EXPECT_EQ(r.stop, StopReason::nondeterministic) << static_cast<int>(s) << ": " << r.executions;
      EXPECT_NE(r.error.find("not deterministic"), std::string::npos) << r.error;
      if (values_only) {
        // The estimator's random walks run the body too, so the second value is not 2.
        EXPECT_NE(r.error.find("step 0 (T1 write #0) did [T0 fork #1, T0 fork #2, T1 write #0 = 1] in "
                               "the previous execution and does [T0 fork #1, T0 fork #2, T1 write #0 = "),
                  std::string::npos) << r.error;
      }
    }
  }
}

TEST(ExploreFailures, UnknownCheckerThrows) {
  ExploreOptions o = testing_support::every_schedule();
  o.checkers = {"no-such-checker"};
  EXPECT_THROW(explore([] {}, o), std::invalid_argument);
}

// User code that catches std::exception must not swallow the unwinding of an abandoned
// execution (Unwind is not a std::exception).
TEST(ExploreFailures, AbandonedExecutionsUnwindThroughUserCatch) {
  int destroyed = 0, constructed = 0;
  struct Counted {
    int* d;
    ~Counted() { ++*d; }
  };
  ExploreResult r = explore([&] {
    mutex a("a"), b("b");
    auto body = [&](mutex& first, mutex& second) {
      try {
        ++constructed;
        Counted c{&destroyed};
        std::lock_guard<mutex> g1(first);
        std::lock_guard<mutex> g2(second);
      } catch (const std::exception&) {
        ADD_FAILURE() << "unwinding reached a std::exception handler";
      }
    };
    thread t1([&] { body(a, b); });
    thread t2([&] { body(b, a); });
    t1.join();
    t2.join();
  }, testing_support::every_schedule());
  EXPECT_GT(r.deadlocks, 0u);
  EXPECT_EQ(constructed, destroyed);
}

}  // namespace
}  // namespace atomcheck
