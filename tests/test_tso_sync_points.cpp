// Synchronisation points under x86-TSO, litmus-style: every operation that is a
// synchronisation in C++ (thread start and join, mutex hand-over, semaphore, latch,
// barrier, condition variable, atomic wait/notify) publishes the stores made before it,
// and every one that is a locked instruction or a system call on x86 is a full barrier
// (store buffering through it is forbidden). Each test runs under dfs, dpor and optimal
// DPOR, so a strategy that missed the drain would show as a difference too.
// Starting a thread used to leave the creator's buffer undrained: the child read its
// creator's earlier stores as not yet made (SpawnPublishesCreatorsStores failed).
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/sync.hpp"
#include "specs/spec.hpp"

namespace atomcheck {
namespace {

struct Seen {
  std::set<Outcome> outcomes;
  std::uint64_t failures = 0;
  std::string first_failure;
};

Seen run(const Program& p, StrategyKind s, MemoryModelKind m) {
  ExploreOptions o;
  o.strategy = s;
  o.memory = m;
  ExploreResult r = explore(p, o);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_TRUE(r.exhausted()) << search_end_text(r);
  Seen seen;
  for (const auto& [out, n] : r.outcomes) seen.outcomes.insert(out);
  seen.failures = r.failures_total();
  if (!r.failures.empty()) seen.first_failure = r.failures[0].message;
  return seen;
}

// The outcomes under TSO, the same from every strategy, and no failed check.
std::set<Outcome> tso_outcomes(const Program& p) {
  const Seen dfs = run(p, StrategyKind::dfs, MemoryModelKind::tso);
  EXPECT_EQ(dfs.failures, 0u) << dfs.first_failure;
  for (StrategyKind s : {StrategyKind::dpor, StrategyKind::optimal}) {
    const Seen other = run(p, s, MemoryModelKind::tso);
    EXPECT_EQ(other.failures, 0u) << other.first_failure;
    EXPECT_EQ(other.outcomes, dfs.outcomes) << static_cast<int>(s);
  }
  return dfs.outcomes;
}

const Outcome kBothZero{{"r0", 0}, {"r1", 0}};

// Store buffering with `op` between each thread's store and load: r0 = r1 = 0 is
// reachable under TSO exactly when `op` lets the load overtake the store.
template <class Op>
Program sb_through(Op op) {
  return [op] {
    atomic<int> x(0, "x"), y(0, "y");
    thread t0([&] {
      x.store(1, std::memory_order_relaxed);
      op(0);
      outcome("r0", y.load(std::memory_order_relaxed));
    });
    thread t1([&] {
      y.store(1, std::memory_order_relaxed);
      op(1);
      outcome("r1", x.load(std::memory_order_relaxed));
    });
    t0.join();
    t1.join();
  };
}

TEST(TsoSyncPoints, StoreBufferingIsReachableWithoutABarrier) {
  // The control: without a barrier the TSO outcome is there, so the tests below that
  // find it absent are about the operation, not about the harness missing TSO.
  EXPECT_TRUE(tso_outcomes(sb_through([](int) {})).count(kBothZero));
}

TEST(TsoSyncPoints, SpawnPublishesCreatorsStores) {
  // The issue's minimal form: a relaxed store, then the thread that must see it.
  const Program p = [] {
    atomic<int> x(0, "x");
    x.store(1, std::memory_order_relaxed);
    thread t([&] { check(x.load(std::memory_order_relaxed) == 1, "child missed parent's store"); });
    t.join();
  };
  for (StrategyKind s : {StrategyKind::dfs, StrategyKind::dpor, StrategyKind::optimal}) {
    const Seen seen = run(p, s, MemoryModelKind::tso);
    EXPECT_EQ(seen.failures, 0u) << static_cast<int>(s) << ": " << seen.first_failure;
  }
}

TEST(TsoSyncPoints, SpawnFromAChildThreadDrainsThatChild) {
  // The creator is not the main thread, and another thread runs meanwhile.
  const Program p = [] {
    atomic<int> x(0, "x"), y(0, "y");
    thread other([&] { y.store(1, std::memory_order_relaxed); });
    thread creator([&] {
      x.store(1, std::memory_order_relaxed);
      thread child([&] { outcome("r0", x.load(std::memory_order_relaxed)); });
      child.join();
    });
    creator.join();
    other.join();
  };
  for (const Outcome& o : tso_outcomes(p)) EXPECT_EQ(o, (Outcome{{"r0", 1}}));
}

TEST(TsoSyncPoints, SpawnIsAFullBarrierForTheCreator) {
  // x86 starts a thread with a system call: the creator's later load cannot overtake its
  // earlier store, so SB with a spawn in each thread forbids r0 = r1 = 0.
  const Program p = sb_through([](int) { thread([] {}).join(); });
  EXPECT_FALSE(tso_outcomes(p).count(kBothZero));
}

TEST(TsoSyncPoints, JoinPublishesTheChildsStores) {
  const Program p = [] {
    atomic<int> x(0, "x");
    thread t([&] { x.store(1, std::memory_order_relaxed); });
    t.join();
    outcome("r0", x.load(std::memory_order_relaxed));
  };
  for (const Outcome& o : tso_outcomes(p)) EXPECT_EQ(o, (Outcome{{"r0", 1}}));
}

// Message passing through a synchronisation object: the data written before the
// release-side operation is seen after the acquire-side one. The object comes from
// make(), the two sides from the lambdas.
template <class Make, class Publish, class Receive>
Program mp_through(Make make, Publish publish, Receive receive) {
  return [=] {
    atomic<int> data(0, "data");
    auto obj = make();
    thread reader([&] {
      receive(*obj);
      outcome("r0", data.load(std::memory_order_relaxed));
    });
    thread writer([&] {
      data.store(1, std::memory_order_relaxed);
      publish(*obj);
    });
    writer.join();
    reader.join();
  };
}

void expect_only_published(const Program& p) {
  const std::set<Outcome> seen = tso_outcomes(p);
  ASSERT_FALSE(seen.empty());
  for (const Outcome& o : seen) EXPECT_EQ(o, (Outcome{{"r0", 1}}));
}

TEST(TsoSyncPoints, MutexHandOverPublishes) {
  // Received only when the flag, written under the lock, is seen under it.
  const Program p = [] {
    atomic<int> data(0, "data"), flag(0, "flag");
    mutex m("m");
    thread reader([&] {
      for (;;) {
        std::lock_guard<mutex> g(m);
        if (flag.load(std::memory_order_relaxed) == 1) break;
        assume(false);  // the schedules where the flag is not set yet say nothing here
      }
      outcome("r0", data.load(std::memory_order_relaxed));
    });
    thread writer([&] {
      data.store(1, std::memory_order_relaxed);
      std::lock_guard<mutex> g(m);
      flag.store(1, std::memory_order_relaxed);
    });
    writer.join();
    reader.join();
  };
  expect_only_published(p);
}

TEST(TsoSyncPoints, SemaphoreReleasePublishes) {
  expect_only_published(mp_through([] { return std::make_shared<binary_semaphore>(0, "sem"); },
                                    [](binary_semaphore& s) { s.release(); },
                                    [](binary_semaphore& s) { s.acquire(); }));
}

TEST(TsoSyncPoints, LatchCountDownPublishes) {
  expect_only_published(mp_through([] { return std::make_shared<latch>(1, "latch"); },
                                    [](latch& l) { l.count_down(); }, [](latch& l) { l.wait(); }));
}

TEST(TsoSyncPoints, BarrierArrivalPublishes) {
  expect_only_published(mp_through([] { return std::make_shared<barrier>(2, "barrier"); },
                                    [](barrier& b) { b.arrive_and_wait(); },
                                    [](barrier& b) { b.arrive_and_wait(); }));
}

TEST(TsoSyncPoints, AtomicWaitNotifyPublishes) {
  // The waiter returns once it sees the flag: FIFO buffers then show it the data too.
  expect_only_published(mp_through([] { return std::make_shared<atomic<int>>(0, "flag"); },
                                   [](atomic<int>& f) {
                                     f.store(1, std::memory_order_release);
                                     f.notify_one();
                                   },
                                   [](atomic<int>& f) { f.wait(0); }));
}

TEST(TsoSyncPoints, ConditionVariableNotifyPublishes) {
  const Program p = [] {
    atomic<int> data(0, "data"), ready(0, "ready");
    mutex m("m");
    condition_variable cv("cv");
    thread reader([&] {
      std::unique_lock<mutex> lk(m);
      while (ready.load(std::memory_order_relaxed) == 0) cv.wait(lk);
      outcome("r0", data.load(std::memory_order_relaxed));
    });
    thread writer([&] {
      data.store(1, std::memory_order_relaxed);
      {
        std::lock_guard<mutex> g(m);
        ready.store(1, std::memory_order_relaxed);
      }
      cv.notify_one();
    });
    writer.join();
    reader.join();
  };
  expect_only_published(p);
}

// The operations that are locked instructions on x86 are full barriers: store buffering
// through them is forbidden.
TEST(TsoSyncPoints, LockedOperationsAreFullBarriers) {
  {
    SCOPED_TRACE("semaphore release");
    EXPECT_FALSE(tso_outcomes(sb_through([](int) {
                   counting_semaphore<4> s(0, "s");
                   s.release();
                 })).count(kBothZero));
  }
  {
    SCOPED_TRACE("latch count_down");
    EXPECT_FALSE(tso_outcomes(sb_through([](int) {
                   latch l(1, "l");
                   l.count_down();
                 })).count(kBothZero));
  }
  {
    SCOPED_TRACE("barrier arrive");
    EXPECT_FALSE(tso_outcomes(sb_through([](int) {
                   barrier b(1, "b");
                   b.arrive_and_wait();
                 })).count(kBothZero));
  }
  {
    SCOPED_TRACE("condition_variable notify");
    EXPECT_FALSE(tso_outcomes(sb_through([](int) {
                   condition_variable cv("cv");
                   cv.notify_one();
                 })).count(kBothZero));
  }
  {
    SCOPED_TRACE("mutex lock/unlock");
    EXPECT_FALSE(tso_outcomes(sb_through([](int) {
                   mutex m("m");
                   std::lock_guard<mutex> g(m);
                 })).count(kBothZero));
  }
}

// atomic<T>::notify_one is no synchronisation in C++ ([atomics.wait]: only the value the
// waiter reads is), and libstdc++ compiles it, for an int with nobody waiting, to a
// seq_cst load of the waiter count (a plain mov on x86): no barrier. Modelled so, the
// store-buffering outcome stays reachable through it.
TEST(TsoSyncPoints, AtomicNotifyIsNoBarrier) {
  EXPECT_TRUE(tso_outcomes(sb_through([](int) {
                atomic<int> f(0, "f");
                f.notify_one();
              })).count(kBothZero));
}

TEST(TsoSyncPoints, SpecSpawnPublishesCreatorsStores) {
  // The same minimal form as a JSON spec: P0 stores x = 1, then spawns P1, which loads x.
  const spec::Spec s = spec::parse_spec(R"({
    "atomcheck": 1, "name": "spawn-publishes", "vars": {"x": 0},
    "threads": [
      {"name": "P0", "ops": [{"op": "store", "var": "x", "value": 1},
                             {"op": "spawn", "thread": "P1"}, {"op": "join", "thread": "P1"}]},
      {"name": "P1", "ops": [{"op": "load", "var": "x", "reg": "r0"}]}
    ],
    "expect": {"tso": {"reachable": [{"P1.r0": 1}], "unreachable": [{"P1.r0": 0}]}}
  })", "inline.json");
  for (StrategyKind strategy : {StrategyKind::dfs, StrategyKind::dpor, StrategyKind::optimal}) {
    spec::RunOptions o;
    o.strategy = strategy;
    const spec::RunReport r = spec::run_spec(s, o);
    EXPECT_EQ(r.exit_code(), 0) << static_cast<int>(strategy) << "\n" << spec::format_report(s, r);
  }
}

}  // namespace
}  // namespace atomcheck
