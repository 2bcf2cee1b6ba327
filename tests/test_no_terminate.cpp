// No crash on a failure anywhere (issue 57 item 3): atomcheck abandons an execution by
// unwinding its threads, and an unwinding that meets a noexcept frame (a destructor, a
// std::lock_guard's unlock, a noexcept function) calls std::terminate. Each place is
// reproduced here; each must end in a report, never in the process aborting (which would
// take the whole test binary down: these tests then do not fail, they crash).
#include <gtest/gtest.h>

#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"

namespace atomcheck {
namespace {

constexpr auto rlx = std::memory_order_relaxed;
const MemoryModelKind kModels[] = {MemoryModelKind::sc, MemoryModelKind::tso, MemoryModelKind::rc11};

ExploreOptions options(MemoryModelKind m) {
  ExploreOptions o;
  o.memory = m;
  o.stop_on_failure = false;
  o.keep_failures = 50;
  return o;
}

bool has_kind(const ExploreResult& r, FailureKind k, const std::string& part = {}) {
  for (const Failure& f : r.failures)
    if (f.kind == k && f.message.find(part) != std::string::npos) return true;
  return false;
}

// A block whose destructor writes its payload: a visible operation inside a noexcept
// destructor, where an abandoned execution unwinds.
struct Block {
  atomic<int> refs{2, "refs"};
  shared<int> payload{42, "payload"};
  ~Block() { payload = 0; }
};

// The intrusive refcount of the issue: T1 drops its reference, then reads the payload;
// T0 drops the last one and deletes the block, whose destructor writes the payload. With
// untracked memory only the destructor's write can show it (a race on the payload); the
// abandoned executions unwind through ~Block. Under every model: a report, no abort. (The
// destructor runs in place, not through delete, so the late read stays inside live memory
// for the ASan build.)
TEST(NoTerminate, RefcountUseAfterReleaseWithoutTheAllocatorModel) {
  for (MemoryModelKind m : kModels) {
    const ExploreResult r = explore(
        [] {
          alignas(Block) unsigned char storage[sizeof(Block)];
          Block* b = new (storage) Block;
          thread t1([&] {
            b->refs.fetch_sub(1, std::memory_order_acq_rel);
            (void)static_cast<int>(b->payload);  // after dropping the reference
          });
          if (b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) b->~Block();
          t1.join();
        },
        options(m));
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_FALSE(r.failures.empty()) << memory_model_name(m);
  }
}

// The same with make/destroy: the read after the free is named as a use after free
// (under rc11, as a race with the free when happens-before does not order them).
TEST(NoTerminate, RefcountUseAfterReleaseWithMakeAndDestroy) {
  for (MemoryModelKind m : kModels) {
    const ExploreResult r = explore(
        [] {
          Block* b = make<Block>();
          thread t1([&] {
            if (b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy(b);
            else (void)static_cast<int>(b->payload);
            (void)static_cast<int>(b->payload);
          });
          if (b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy(b);
          t1.join();
        },
        options(m));
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(has_kind(r, FailureKind::use_after_free) || has_kind(r, FailureKind::data_race, "free"))
        << memory_model_name(m) << ": " << (r.failures.empty() ? "" : r.failures.front().message);
  }
}

// A failed check() inside a destructor: the thread stops there, and the abandoned
// execution later unwinds it out of the destructor.
TEST(NoTerminate, FailureInsideADestructorIsReported) {
  struct Checks {
    atomic<int>* flag;
    ~Checks() { check(flag->load(rlx) == 0, "flag set when the guard ends"); }
  };
  for (MemoryModelKind m : kModels) {
    const ExploreResult r = explore(
        [] {
          atomic<int> flag(0, "flag");
          thread t([&] { flag.store(1, rlx); });
          {
            Checks c{&flag};
          }
          t.join();
        },
        options(m));
    EXPECT_TRUE(has_kind(r, FailureKind::assertion, "flag set when the guard ends")) << memory_model_name(m);
  }
}

// A program's own exception leaving a noexcept function is std::terminate in production:
// reported as an exception failure, the other threads run on.
[[gnu::noinline]] void boom() { throw std::runtime_error("boom"); }
void throws_in_noexcept(atomic<int>& x) noexcept {
  if (x.load(rlx) == 1) boom();
}
TEST(NoTerminate, AnExceptionLeavingANoexceptFunctionIsAFailure) {
  for (MemoryModelKind m : kModels) {
    const ExploreResult r = explore(
        [] {
          atomic<int> x(0, "x");
          thread t([&] { x.store(1, rlx); });
          throws_in_noexcept(x);
          t.join();
        },
        options(m));
    EXPECT_TRUE(has_kind(r, FailureKind::exception, "boom")) << memory_model_name(m);
    EXPECT_TRUE(has_kind(r, FailureKind::exception, "noexcept")) << memory_model_name(m);
    EXPECT_GT(r.completed, 0u);
  }
}

// std::lock_guard's destructor unlocks: a thread suspended at that unlock when another
// thread fails is unwound from inside ~lock_guard, which is noexcept.
TEST(NoTerminate, AbandonedAtALockGuardsUnlock) {
  for (MemoryModelKind m : kModels) {
    const ExploreResult r = explore(
        [] {
          mutex mu("mu");
          atomic<int> x(0, "x");
          thread t([&] {
            std::lock_guard<mutex> g(mu);
            x.store(1, rlx);
          });
          check(x.load(rlx) == 0, "x written");
          t.join();
        },
        options(m));
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(has_kind(r, FailureKind::assertion, "x written")) << memory_model_name(m);
    EXPECT_GT(r.completed, 0u);
  }
}

// Searches that abandon many executions inside destructors neither crash nor run out of
// fiber stacks: each dropped fiber gives its stack back to the pool.
TEST(NoTerminate, ManyDroppedFibersReuseTheirStacks) {
  struct Checks {
    atomic<int>* x;
    ~Checks() { check(x->load(rlx) != 2, "saw the other destructor's write"); }
  };
  struct Writes {
    atomic<int>* x;
    ~Writes() { x->store(2, rlx); }
  };
  ExploreOptions o = options(MemoryModelKind::sc);
  o.strategy = StrategyKind::dfs;
  const ExploreResult r = explore(
      [] {
        atomic<int> x(0, "x");
        thread a([&] {
          Writes w{&x};
          x.store(1, rlx);
          x.store(3, rlx);
        });
        thread b([&] {
          Checks c{&x};
          (void)x.load(rlx);
          (void)x.load(rlx);
        });
        a.join();
        b.join();
      },
      o);
  std::size_t failed = 0;
  for (const Failure& f : r.failures) failed += f.kind == FailureKind::assertion;
  EXPECT_GE(failed, 5u);
}

}  // namespace
}  // namespace atomcheck
