// Waits under DPOR (issue 18): yield() loops and assume() are blocked threads whose reads
// race with the writes that would release them. Each program here has a known set of
// outcomes that a wrong wait semantics or a reduction blind to the wait would change;
// every strategy (dfs, dpor, optimal) under SC and TSO must give exactly that set, with
// no fallback to DFS. The random-program properties are in test_dpor_optimal.cpp.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>

#include "tests/support/options.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"

namespace atomcheck {
namespace {

struct Seen {
  std::set<std::int64_t> values;  // of the outcome `name`
  std::uint64_t completed = 0;
  std::uint64_t pruned = 0;
  bool failed = false;
  std::string failure;  // the first failure's message, for the test's diagnostics
};

Seen run(const Program& p, StrategyKind s, MemoryModelKind m, const char* name) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = s;
  o.memory = m;
  o.max_executions = 100000;
  const ExploreResult r = explore(p, o);
  EXPECT_TRUE(r.exhausted()) << search_end_text(r);
  EXPECT_FALSE(r.reduction_incomplete) << r.reduction_incomplete_by;
  Seen out;
  for (const auto& [outcome, count] : r.outcomes)
    for (const auto& [n, v] : outcome)
      if (n == name) out.values.insert(v);
  out.completed = r.completed;
  out.pruned = r.pruned;
  out.failed = !r.failures.empty();
  if (out.failed) out.failure = r.failures.front().message + " [" + r.failures.front().schedule + "]";
  return out;
}

const char* memory_name(MemoryModelKind m) { return m == MemoryModelKind::sc ? "sc" : "tso"; }

constexpr StrategyKind kStrategies[] = {StrategyKind::dfs, StrategyKind::dpor, StrategyKind::optimal};
constexpr MemoryModelKind kMemories[] = {MemoryModelKind::sc, MemoryModelKind::tso};

// The waiter counts the changes of x it saw before x == 2. x goes 0 -> 1 -> 2, so it can
// see one change (0, then 1, then 2) or none. A semantics that blocked a waiter on any
// iteration with the same operations (ignoring the values read) would lose the 1; one
// that blocked it at its first failed iteration would too.
TEST(Waits, AYieldLoopSeesEveryChangeOfWhatItReads) {
  const Program p = [] {
    atomic<int> x(0, "x");
    thread w([&] { x.store(1); x.store(2); });
    int prev = -1, changes = 0;
    for (;;) {
      const int r = x.load();
      if (r == 2) break;
      changes += prev != -1 && r != prev;
      prev = r;
      this_thread::yield();
    }
    outcome("changes", changes);
    w.join();
  };
  for (MemoryModelKind m : kMemories)
    for (StrategyKind s : kStrategies) {
      SCOPED_TRACE(std::string(strategy_name(s)) + " " + memory_name(m));
      const Seen seen = run(p, s, m, "changes");
      EXPECT_EQ(seen.values, (std::set<std::int64_t>{0, 1}));
      EXPECT_GT(seen.pruned, 0u);  // the loop repeated itself, then x changed
    }
}

// The write that satisfies the assume comes after an unrelated operation of its thread.
// Cutting the execution at the failed assume hid that write from DPOR, which then never
// tried the order where the assume passes: no completed execution at all.
TEST(Waits, AFailedAssumeLetsTheOthersRunSoDporSeesTheWriteItNeeded) {
  const Program p = [] {
    atomic<int> x(0, "x"), y(0, "y");
    thread t([&] {
      y.store(1);
      x.store(1);
    });
    assume(x.load() == 1);
    outcome("y", y.load());
    t.join();
  };
  for (MemoryModelKind m : kMemories)
    for (StrategyKind s : kStrategies) {
      SCOPED_TRACE(std::string(strategy_name(s)) + " " + memory_name(m));
      const Seen seen = run(p, s, m, "y");
      EXPECT_EQ(seen.values, (std::set<std::int64_t>{1}));
      EXPECT_GT(seen.completed, 0u);
      EXPECT_GT(seen.pruned, 0u);
    }
}

// A test-and-set lock written as a yield() loop: a failed exchange writes back the 1 it
// read, which counts as writing nothing, so the loop blocks rather than spinning. Mutual
// exclusion holds; the broken variant (test, then set) is caught by every strategy.
TEST(Waits, ATestAndSetYieldLoopIsALock) {
  for (bool broken : {false, true}) {
    const Program p = [broken] {
      atomic<int> flag(0, "flag");
      shared<int> inside(0, "inside");
      auto body = [&] {
        if (broken) {
          while (flag.load() != 0) this_thread::yield();
          flag.store(1);
        } else {
          while (flag.exchange(1) != 0) this_thread::yield();
        }
        inside = inside + 1;
        check(inside == 1, "two threads inside");
        inside = inside - 1;
        flag.store(0);
      };
      thread a(body), b(body);
      a.join();
      b.join();
    };
    for (MemoryModelKind m : kMemories)
      for (StrategyKind s : kStrategies) {
        // The broken lock's DFS tree under TSO has over 10^6 executions.
        if (broken && m == MemoryModelKind::tso && s == StrategyKind::dfs) continue;
        SCOPED_TRACE(std::string(strategy_name(s)) + " " + memory_name(m) + (broken ? " broken" : ""));
        ExploreOptions o = testing_support::every_schedule();
        o.strategy = s;
        o.memory = m;
        const ExploreResult r = explore(p, o);
        EXPECT_TRUE(r.exhausted()) << search_end_text(r);
        EXPECT_EQ(r.failures.empty(), !broken) << (r.failures.empty() ? "" : r.failures[0].message);
        if (!broken) {
          EXPECT_GT(r.completed, 0u);
        }
      }
  }
}

// Polling under a mutex: lock, read, unlock, yield. The lock taken and released counts as
// nothing, so a repeated poll blocks, and the consumer always sees the producer's data.
TEST(Waits, PollingUnderAMutexBlocksAndSeesTheData) {
  const Program p = [] {
    mutex m("m");
    shared<int> ready(0, "ready"), data(0, "data");
    thread producer([&] {
      data = 7;
      std::lock_guard<mutex> g(m);
      ready = 1;
    });
    for (;;) {
      m.lock();
      const int r = ready;
      m.unlock();
      if (r == 1) break;
      this_thread::yield();
    }
    outcome("data", static_cast<int>(data));
    producer.join();
  };
  for (MemoryModelKind m : kMemories)
    for (StrategyKind s : kStrategies) {
      SCOPED_TRACE(std::string(strategy_name(s)) + " " + memory_name(m));
      const Seen seen = run(p, s, m, "data");
      EXPECT_EQ(seen.values, (std::set<std::int64_t>{7}));
      EXPECT_GT(seen.pruned, 0u);
    }
}

// A spin_until inside a yield() loop: the iteration blocks on everything it read, the
// read before the await included, so the later write of `a` ends the wait (the
// execution is pruned), and no livelock is reported.
TEST(Waits, AnAwaitInsideAYieldLoopKeepsTheIterationsReads) {
  const Program p = [] {
    atomic<int> a(0, "a"), b(1, "b");
    thread u([&] { a.store(1); });
    while (a.load() == 0) {
      spin_until([&] { return b.load() == 1; });
      this_thread::yield();
    }
    outcome("a", a.load());
    u.join();
  };
  for (MemoryModelKind m : kMemories)
    for (StrategyKind s : kStrategies) {
      SCOPED_TRACE(std::string(strategy_name(s)) + " " + memory_name(m));
      const Seen seen = run(p, s, m, "a");
      EXPECT_FALSE(seen.failed) << seen.failure;
      EXPECT_EQ(seen.values, (std::set<std::int64_t>{1}));
    }
}

}  // namespace
}  // namespace atomcheck
