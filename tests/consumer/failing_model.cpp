// Fails on purpose: scripts/test-consumer.sh checks that the test runner's output holds
// the interleaving, the schedule and the replay call.
#include <gtest/gtest.h>
#include <atomcheck/gtest.hpp>

TEST(Counter, UnlockedIncrementsLoseUpdates) {
  EXPECT_ATOMCHECK([] {
    atomcheck::atomic<int> x(0, "x");
    auto inc = [&] { atomcheck::atomic_block b("inc"); x.store(x.load() + 1); };
    atomcheck::thread t1(inc), t2(inc);
    t1.join(); t2.join();
    atomcheck::check(x.load() == 2, "lost update");
  }, {.checkers = {"velodrome"}});
}

TEST(Counter, ModelThrowsTheReport) {
  atomcheck::model([] {
    atomcheck::atomic<int> x(0, "x"), y(0, "y");
    int r0 = -1, r1 = -1;
    atomcheck::thread t1([&] { x.store(1, std::memory_order_relaxed); r0 = y.load(); });
    atomcheck::thread t2([&] { y.store(1, std::memory_order_relaxed); r1 = x.load(); });
    t1.join(); t2.join();
    atomcheck::check(r0 == 1 || r1 == 1, "both loads read 0");
  }, {.memory = atomcheck::MemoryModelKind::tso});
}
