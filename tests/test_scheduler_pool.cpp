// The hot path does not allocate once warm: fiber stacks come from a pool that grows to
// the largest number of simultaneous threads and is reused, and a warm execution (trace,
// history, choice stack, per-thread state) performs no heap allocation at all.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/runtime/execution.hpp"
#include "scheduler/search/strategy.hpp"

namespace {
std::atomic<std::uint64_t> g_allocations{0};
}  // namespace

// Counting replacements of the global allocation functions (this test binary only).
// GCC cannot see that operator new below is malloc-based when it inlines delete.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace atomcheck {
namespace {

void program() {
  atomic<int> x(0, "x");
  shared<int> y(0, "y");
  mutex m("m");
  auto body = [&](int id) {
    atomic_block b("work");
    x.fetch_add(id);
    {
      std::lock_guard<mutex> g(m);
      y = y + 1;
    }
    (void)x.load();
  };
  thread t1(body, 1), t2(body, 2), t3(body, 3);
  t1.join();
  t2.join();
  t3.join();
  outcome("x", x.load());
}

TEST(SchedulerPool, WarmExecutionsDoNotAllocate) {
  for (MemoryModelKind memory : {MemoryModelKind::sc, MemoryModelKind::tso}) {
    detail::Execution exec(memory, 0, 100000);
    auto dfs = make_dfs_strategy();
    Program p(program);
    int runs = 0;
    while (runs < 50 && dfs->begin_execution()) {
      exec.run(p, *dfs);
      ++runs;
    }
    ASSERT_EQ(runs, 50);
    EXPECT_EQ(exec.stacks_allocated(), 4u);  // main + three threads, reused ever since
    std::uint64_t before = g_allocations.load();
    int more = 0;
    while (more < 200 && dfs->begin_execution()) {
      exec.run(p, *dfs);
      ++more;
    }
    std::uint64_t after = g_allocations.load();
    EXPECT_GT(more, 100);
    EXPECT_EQ(after - before, 0u) << "allocations in " << more << " warm executions";
    EXPECT_EQ(exec.stacks_allocated(), 4u);
  }
}

TEST(SchedulerPool, StackSizeIsConfigurable) {
  ExploreOptions o;
  o.stack_size = 256 * 1024;
  // A program with a large local array needs a larger stack than the default.
  ExploreResult r = explore(
      [] {
        volatile char big[150 * 1024];
        big[0] = 1;
        big[sizeof(big) - 1] = 2;
        atomic<int> x(0);
        thread t([&] { x.store(big[0]); });
        t.join();
      },
      o);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.executions, 1u);
}

}  // namespace
}  // namespace atomcheck
