// The README's example inside the tree: a user's GoogleTest test calls explore() and
// asserts on counts, failures with schedules and checker verdicts; and the
// std_types/model_types bundles let one data structure run under both. The README quotes
// tests/consumer/my_tests.cpp, which scripts/test-consumer.sh builds from outside the
// tree with <atomcheck/...> includes (what this in-tree test cannot check), and shows
// Counter and SameCodeUnderStdAndHarness below verbatim (tests/test_readme_snippets.cpp
// fails when they drift).
#include <gtest/gtest.h>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"

namespace {

TEST(Readme, CounterLosesUpdates) {
  // The README's program, named once so the replay below runs the same body.
  auto counter = [] {
    atomcheck::atomic<int> x(0, "x");
    auto inc = [&] {
      atomcheck::atomic_block b("inc");
      x.store(x.load() + 1);
    };
    atomcheck::thread t1(inc), t2(inc);
    t1.join();
    t2.join();
    atomcheck::check(x.load() == 2, "lost update");
  };
  atomcheck::ExploreResult r = atomcheck::explore(
      counter,
      {.checkers = {"oracle"}, .stop_on_failure = false});
  EXPECT_EQ(r.executions, 4u);  // optimal DPOR, the default: one per class (DFS runs 6)
  EXPECT_EQ(r.failed, 2u);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.checkers[0].flagged, 2u);
  atomcheck::ReplayResult again = atomcheck::replay(
      counter,
      r.failures[0].schedule);
  EXPECT_TRUE(again.failed);
}

// A data structure written once against a type bundle.
template <class Types>
struct Counter {
  typename Types::template atomic<int> value{0};
  typename Types::mutex m;
  int next() {
    std::lock_guard<typename Types::mutex> g(m);
    int v = value.load(std::memory_order_relaxed);
    value.store(v + 1, std::memory_order_relaxed);
    return v;
  }
};

TEST(Readme, SameCodeUnderStdAndHarness) {
  Counter<atomcheck::std_types> production;
  EXPECT_EQ(production.next(), 0);
  EXPECT_EQ(production.next(), 1);
  atomcheck::ExploreResult r = atomcheck::explore([] {
    Counter<atomcheck::model_types> c;
    int a = -1, b = -1;
    atomcheck::thread t([&] { a = c.next(); });
    b = c.next();
    t.join();
    atomcheck::check(a != b, "two callers got the same ticket");
  });
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.executions, 2u);
}

}  // namespace
