// An unqualified atomic_thread_fence(std::memory_order_seq_cst) in a test body is
// atomcheck's, not std's: the argument's type makes argument-dependent lookup find
// std::atomic_thread_fence, which would either make the call ambiguous or run a real
// fence the harness never sees (store buffering then reaches r0 = r1 = 0 under TSO).
// The using-directive sits at namespace scope, as in a user's test file.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"

using namespace atomcheck;

namespace {

constexpr auto rlx = std::memory_order_relaxed;

// Store buffering, with or without a fence between each thread's store and its load.
ExploreResult store_buffering(bool fenced, std::uint64_t* fences_seen) {
  ExploreOptions o{.memory = MemoryModelKind::tso};
  return explore(
      [fenced] {
        atomic<int> x(0, "x"), y(0, "y");
        thread t1([&] {
          x.store(1, rlx);
          if (fenced) atomic_thread_fence(std::memory_order_seq_cst);
          outcome("r0", y.load(rlx));
        });
        thread t2([&] {
          y.store(1, rlx);
          if (fenced) atomic_thread_fence(std::memory_order_seq_cst);
          outcome("r1", x.load(rlx));
        });
        t1.join();
        t2.join();
      },
      o,
      [fences_seen](const ExecutionView& v) {
        for (const Event& e : v.trace->events) *fences_seen += e.op == Op::fence;
      });
}

bool reaches_both_zero(const ExploreResult& r) {
  return r.outcomes.contains(Outcome{{"r0", 0}, {"r1", 0}});
}

TEST(FenceUnqualified, StoreBufferingWithoutFencesReachesBothZero) {
  std::uint64_t fences = 0;
  ExploreResult r = store_buffering(false, &fences);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r.exhausted());
  EXPECT_TRUE(reaches_both_zero(r));
  EXPECT_EQ(fences, 0u);
}

TEST(FenceUnqualified, UnqualifiedFencesForbidBothZeroUnderTso) {
  std::uint64_t fences = 0;
  ExploreResult r = store_buffering(true, &fences);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r.exhausted());
  EXPECT_FALSE(reaches_both_zero(r));
  EXPECT_GT(fences, 0u);  // the harness saw the fences: they were atomcheck's
}

}  // namespace

// A using-declaration in a namespace without the using-directive works the same way.
namespace declared_only {
using atomcheck::atomic_thread_fence;

TEST(FenceUnqualified, UsingDeclarationMakesTheCallOurs) {
  std::uint64_t fences = 0;
  ExploreResult r = atomcheck::explore(
      [] {
        atomcheck::atomic<int> x(0);
        atomcheck::thread t([&] {
          x.store(1, std::memory_order_relaxed);
          atomic_thread_fence(std::memory_order_seq_cst);
        });
        t.join();
      },
      {.memory = atomcheck::MemoryModelKind::tso},
      [&fences](const atomcheck::ExecutionView& v) {
        for (const atomcheck::Event& e : v.trace->events) fences += e.op == atomcheck::Op::fence;
      });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(fences, r.executions);  // one fence event in every execution
}

}  // namespace declared_only
