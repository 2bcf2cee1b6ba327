#include <gtest/gtest.h>
#include <atomcheck/atomcheck.hpp>
#include <atomcheck/gtest.hpp>

// Two threads increment x inside atomic blocks, without a lock.
void counter() {
  atomcheck::atomic<int> x(0, "x");
  auto inc = [&] { atomcheck::atomic_block b("inc"); x.store(x.load() + 1); };
  atomcheck::thread t1(inc), t2(inc);
  t1.join(); t2.join();
  atomcheck::check(x.load() == 2, "lost update");
}

TEST(Counter, LostUpdate) {
  atomcheck::ExploreResult r =
      atomcheck::explore(counter, {.checkers = {"velodrome"}, .stop_on_failure = false});
  EXPECT_EQ(r.executions, 4u);              // optimal DPOR: one per class (DFS runs 6)
  EXPECT_EQ(r.failed, 2u);                  // r.failures[0].schedule replays one
  EXPECT_EQ(r.checkers[0].flagged, 2u);     // non-serializable executions
  atomcheck::ReplayResult again = atomcheck::replay(counter, r.failures[0].schedule);
  EXPECT_TRUE(again.failed);
}

TEST(Counter, LockedCounterHolds) {
  EXPECT_ATOMCHECK([] {                     // fails the test with the report if not
    atomcheck::atomic<int> x(0, "x");
    atomcheck::mutex m;
    auto inc = [&] { std::lock_guard<atomcheck::mutex> g(m); x.store(x.load() + 1); };
    atomcheck::thread t1(inc), t2(inc);
    t1.join(); t2.join();
    atomcheck::check(x.load() == 2, "lost update");
  }, {.memory = atomcheck::MemoryModelKind::tso});
}
