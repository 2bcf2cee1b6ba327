// A fatal signal in a test thread prints the execution's schedule and how to replay it
// before the process dies (issue 21, item 6). Death tests: the process must die, of the
// same signal, with the report on stderr.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>
#include <cstdlib>

#include "atomcheck/atomcheck.hpp"
#include "scheduler/runtime/crash_report.hpp"
#include "scheduler/search/strategy.hpp"

namespace atomcheck {
namespace {

// Killed by `sig`, or, under a sanitizer whose handler our report hands the signal on to,
// exited with its error code.
struct DiesOf {
  int sig;
  bool operator()(int status) const {
    if (WIFSIGNALED(status)) return WTERMSIG(status) == sig;
    return std::getenv("ATOMCHECK_SANITIZED") != nullptr && WIFEXITED(status) && WEXITSTATUS(status) != 0;
  }
};

// T1 crashes only when it reads T0's store: the report must name a schedule where T0's
// store comes first, and replaying that schedule must reach the crash again.
void crashes_after_store() {
  atomic<int> x(0, "x");
  thread t0([&] { x.store(1); });
  thread t1([&] {
    if (x.load() == 1) std::raise(SIGSEGV);
  });
  t0.join();
  t1.join();
}

TEST(CrashReportDeathTest, SegfaultPrintsTheScheduleAndTheReplayCall) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(explore(crashes_after_store), DiesOf{SIGSEGV},
              "atomcheck: SIGSEGV in a test thread; the execution's schedule so far: '[0-9a-z!\\[\\]]*'\n"
              "  replay it: atomcheck::replay\\(body, \"");
}

// The schedule printed is the one that reaches the crash: the same body with check(false)
// in place of the crash fails first at the same point of the same search, and its
// failure's schedule (which replays it) is what the report must print.
TEST(CrashReportDeathTest, ThePrintedScheduleIsTheCrashingOne) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ExploreResult r = explore([] {
    atomic<int> x(0, "x");
    thread t0([&] { x.store(1); });
    thread t1([&] { check(x.load() != 1, "stands for the crash"); });
    t0.join();
    t1.join();
  });
  ASSERT_FALSE(r.failures.empty());
  ASSERT_FALSE(r.failures[0].schedule.empty());
  std::string escaped;
  for (char c : r.failures[0].schedule) {
    if (c == '[' || c == ']' || c == '{' || c == '}') escaped += '\\';
    escaped += c;
  }
  EXPECT_EXIT(explore(crashes_after_store), DiesOf{SIGSEGV},
              "schedule so far: '" + escaped + "'\n  replay it: atomcheck::replay\\(body, \"" + escaped +
                  "\", options\\) with the search's options\n");
}

// The library's hint carries the options that shape the execution, as the CLI's does.
TEST(CrashReportDeathTest, TheLibraryHintNamesTheSearchsOptions) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ExploreOptions o;
  o.memory = MemoryModelKind::tso;
  o.race_check = false;
  EXPECT_EXIT(explore(crashes_after_store, o), DiesOf{SIGSEGV},
              "  replay it: atomcheck::replay\\(body, \"[^\"]*\", options\\) with the search's options "
              "\\(--memory tso --no-race-check\\)\n");
}

TEST(CrashReportDeathTest, AbortAndTheHintOfTheCli) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        detail::CrashScope outer("atomcheck run my-program --memory tso");
        explore([] {
          thread t([] { std::abort(); });
          t.join();
        });
      },
      DiesOf{SIGABRT}, "SIGABRT in a test thread.*\n  replay it: atomcheck run my-program --memory tso --replay '");
}

TEST(CrashReportDeathTest, StackOverflowOfAFiberIsReported) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      explore([] {
        thread t([] {
          // Deep enough for any fiber stack; volatile so the frames stay.
          struct Rec {
            static int down(int n) {
              volatile char pad[1024];
              pad[0] = static_cast<char>(n);
              return n == 0 ? pad[0] : down(n - 1) + pad[0];
            }
          };
          Rec::down(1 << 20);
        });
        t.join();
      }),
      DiesOf{SIGSEGV}, "SIGSEGV in a test thread");
}

// The handlers are only there while a search runs: afterwards a signal is handled as
// before (here: the default action, which the death test observes without a report).
TEST(CrashReportDeathTest, NoReportOutsideASearch) {
  if (std::getenv("ATOMCHECK_SANITIZED") != nullptr) GTEST_SKIP() << "a sanitizer reports the signal itself";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  explore([] {});
  EXPECT_EXIT(std::raise(SIGSEGV), ::testing::KilledBySignal(SIGSEGV), "^$");
}

// write_schedule is format_schedule without allocation; they agree, cut included.
TEST(CrashReport, WriteScheduleEqualsFormatSchedule) {
  std::vector<Transition> choices;
  for (ThreadId t : {0u, 0u, 0u, 0u, 0u, 0u, 1u, 40u, 40u, 40u, 12u, 12u})
    choices.push_back(Transition{t, Action::read, 0});
  choices.push_back(Transition{3, Action::flush, 0});
  choices.push_back(Transition{3, Action::flush, 0});
  std::string full = format_schedule(choices);
  EXPECT_EQ(full, "0[6]1{40}[3]cc!3!3");
  char buf[5];
  EXPECT_EQ(write_schedule(choices, buf, sizeof buf), full.size());
  EXPECT_EQ(std::string(buf, sizeof buf), full.substr(0, 5));
}

}  // namespace
}  // namespace atomcheck

namespace atomcheck {
namespace {

// A test thread that loops without ever calling the harness would hang the search for
// good (the step bound counts visible steps only). The watchdog reports it with its
// schedule after the step timeout and ends the process with exit code 3.
TEST(CrashReportDeathTest, AHungThreadIsReportedAfterTheStepTimeout) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ExploreOptions o;
  o.step_timeout_seconds = 0.5;
  EXPECT_EXIT(explore(
                  [] {
                    atomic<int> x(0, "x");
                    thread t([&] {
                      x.store(1);
                      volatile unsigned long spin = 0;
                      for (;;) spin = spin + 1;  // a side effect, so the loop stays
                    });
                    t.join();
                  },
                  o),
              ::testing::ExitedWithCode(3),
              "a test thread made no visible step for 0.5 s.*schedule so far: '.*'\n  replay it: atomcheck::replay");
}

// The same body, ended, is never reported: the watchdog only fires on a running execution
// that stopped stepping, not on a search that takes long overall.
TEST(CrashReport, AWatchedSearchThatStepsIsLeftAlone) {
  ExploreOptions o;
  o.step_timeout_seconds = 0.5;
  o.max_executions = 200000;  // about half a second here, longer under sanitizers
  ExploreResult r = explore(
      [] {
        atomic<int> x(0, "x");
        thread t([&] {
          for (int k = 0; k < 11; ++k) x.store(k);
        });
        for (int k = 0; k < 11; ++k) (void)x.load();
        t.join();
      },
      o);
  EXPECT_EQ(r.executions, 200000u);
}

}  // namespace
}  // namespace atomcheck
