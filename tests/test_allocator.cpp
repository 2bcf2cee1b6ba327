// The allocator model (issue 57, api.hpp make/destroy, execution_heap.cpp): use after
// free, double free and leaks found as such, under sc, tso and rc11; objects made inside
// threads keep their ids across schedules (runtime/object_ids.hpp), so DPOR explores
// programs that allocate in several threads; reuse_freed hands a freed block out again.
#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <string>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"

namespace atomcheck {
namespace {

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto rel = std::memory_order_release;
constexpr auto acq = std::memory_order_acquire;

ExploreOptions options(MemoryModelKind memory, StrategyKind strategy = StrategyKind::optimal) {
  ExploreOptions o;
  o.memory = memory;
  o.strategy = strategy;
  o.stop_on_failure = false;
  o.keep_failures = 100;
  return o;
}

const Failure* first_of(const ExploreResult& r, FailureKind kind) {
  for (const Failure& f : r.failures)
    if (f.kind == kind) return &f;
  return nullptr;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

struct Node {
  atomic<int> value{0, "node.value"};
  atomic<Node*> next{nullptr, "node.next"};
  explicit Node(int v) { value.store(v, rlx); }
};

const MemoryModelKind kModels[] = {MemoryModelKind::sc, MemoryModelKind::tso, MemoryModelKind::rc11};

// T1 takes the published node and reads it; T0 frees it right after publishing. Some
// schedule reads after the free: a use after free (or under rc11 a race with the free).
void publish_then_free() {
  atomic<Node*> slot(nullptr, "slot");
  thread reader([&] {
    Node* n = slot.load(acq);
    if (n) (void)n->value.load(rlx);
  });
  Node* n = make<Node>(7);
  slot.store(n, rel);
  destroy(n);
  reader.join();
}

TEST(Allocator, UseAfterFreeNamesTheFreeAndTheAccess) {
  for (MemoryModelKind m : kModels) {
    const ExploreResult r = explore(publish_then_free, options(m));
    ASSERT_TRUE(r.error.empty()) << r.error;
    const Failure* f = first_of(r, FailureKind::use_after_free);
    if (m == MemoryModelKind::rc11 && !f) f = first_of(r, FailureKind::data_race);
    ASSERT_NE(f, nullptr) << memory_model_name(m);
    EXPECT_TRUE(has(f->message, "freed by T0") || has(f->message, "free by T0")) << f->message;
    EXPECT_TRUE(has(f->message, "T1 reads node.value")) << f->message;
    EXPECT_TRUE(has(f->message, "step")) << f->message;
    EXPECT_TRUE(has(f->message, "Node made by T0 at")) << f->message;
  }
}

// The same with the free after the reader is joined: nothing to report.
// A node guarded by a mutex of its own: T1 takes the published node and locks it while T0
// frees it. The free is a step on the mutex too, so DPOR runs the lock after the free in
// some schedule (a use after free naming the mutex), and before it in another (passes).
struct Locked {
  mutex m{"node.lock"};
};

void lock_a_freed_node() {
  atomic<Locked*> slot(nullptr, "slot");
  atomic<int> taken(0, "taken");
  thread user([&] {
    Locked* n = slot.load(acq);
    if (!n) return;
    std::lock_guard<mutex> g(n->m);
    taken.store(1, rlx);
  });
  Locked* n = make<Locked>();
  slot.store(n, rel);
  destroy(n);
  user.join();
}

TEST(Allocator, LockingAMutexOfAFreedBlockIsAUseAfterFree) {
  for (MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::tso}) {
    SCOPED_TRACE(std::string(memory_model_name(m)));
    const ExploreResult r = explore(lock_a_freed_node, options(m));
    EXPECT_TRUE(r.exhausted()) << stop_reason_name(r.stop) << " " << r.error;
    const Failure* f = first_of(r, FailureKind::use_after_free);
    ASSERT_NE(f, nullptr) << (r.failures.empty() ? "no failure" : r.failures.front().message);
    EXPECT_TRUE(has(f->message, "use after free: T1 locks node.lock")) << f->message;
    EXPECT_TRUE(has(f->message, "freed by T0")) << f->message;
    EXPECT_GT(r.completed, 0u);  // the lock and unlock before the free
    const ReplayResult again = replay(lock_a_freed_node, f->schedule, options(m));
    EXPECT_EQ(again.failure.message, f->message);
  }
}

TEST(Allocator, FreeAfterJoinPasses) {
  for (MemoryModelKind m : kModels) {
    const ExploreResult r = explore(
        [] {
          atomic<Node*> slot(nullptr, "slot");
          Node* n = make<Node>(7);
          slot.store(n, rel);
          thread reader([&] {
            Node* p = slot.load(acq);
            if (p) (void)p->value.load(rlx);
          });
          reader.join();
          destroy(n);
        },
        options(m));
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_TRUE(r.failures.empty()) << memory_model_name(m) << ": " << r.failures.front().message;
    EXPECT_GT(r.completed, 0u);
  }
}

// Under rc11 a free that a relaxed hand-off does not order after the reader's access
// races with it (not "after" it: happens-before decides); release/acquire on `done`
// orders them, and nothing is reported.
ExploreResult hand_off(std::memory_order signal, std::memory_order wait) {
  return explore(
      [signal, wait] {
        atomic<Node*> slot(nullptr, "slot");
        atomic<int> done(0, "done");
        Node* n = make<Node>(7);
        slot.store(n, rel);
        thread reader([&] {
          Node* p = slot.load(acq);
          (void)p->value.load(rlx);
          done.store(1, signal);
        });
        while (done.load(wait) == 0) this_thread::yield();
        destroy(n);
        reader.join();
      },
      options(MemoryModelKind::rc11));
}

TEST(Allocator, Rc11RelaxedHandOffRacesWithTheFree) {
  const ExploreResult r = hand_off(rlx, rlx);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const Failure* f = first_of(r, FailureKind::data_race);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->message, "free")) << f->message;
  const ExploreResult ok = hand_off(rel, acq);
  EXPECT_TRUE(ok.failures.empty()) << ok.failures.front().message;
}

TEST(Allocator, DoubleFreeNamesBothFrees) {
  for (MemoryModelKind m : kModels) {
    const ExploreResult r = explore(
        [] {
          Node* n = make<Node>(1);
          thread t([&] { destroy(n); });
          t.join();
          destroy(n);
        },
        options(m));
    const Failure* f = first_of(r, FailureKind::double_free);
    ASSERT_NE(f, nullptr) << memory_model_name(m);
    EXPECT_TRUE(has(f->message, "freed by T1")) << f->message;
    EXPECT_TRUE(has(f->message, "again by T0")) << f->message;
  }
}

TEST(Allocator, LeakIsReportedUnlessTurnedOff) {
  auto leaky = [] {
    Node* kept = make<Node>(1);
    (void)kept;
    Node* freed = make<Node>(2);
    destroy(freed);
  };
  ExploreOptions o = options(MemoryModelKind::sc);
  const ExploreResult r = explore(leaky, o);
  const Failure* f = first_of(r, FailureKind::leak);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->message, "Node made by T0 at test_allocator.cpp")) << f->message;
  o.leak_check = false;
  const ExploreResult quiet = explore(leaky, o);
  EXPECT_TRUE(quiet.failures.empty());
  EXPECT_EQ(quiet.completed, 1u);
}

TEST(Allocator, DestroyOfAPointerMakeDidNotReturnIsAUsageFailure) {
  const ExploreResult r = explore(
      [] {
        Node* n = make<Node>(1);
        destroy(reinterpret_cast<Node*>(reinterpret_cast<char*>(n) + 8));
        destroy(n);
      },
      options(MemoryModelKind::sc));
  const Failure* f = first_of(r, FailureKind::usage);
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(has(f->message, "that make() did not return")) << f->message;
}

// Without reuse a new block never lies where a freed one did; with it, the last freed
// block of the size is the next one made (a LIFO free list).
TEST(Allocator, ReuseFreedHandsOutTheLastFreedBlock) {
  for (bool reuse : {false, true}) {
    ExploreOptions o = options(MemoryModelKind::sc);
    o.reuse_freed = reuse;
    const ExploreResult r = explore(
        [] {
          Node* a = make<Node>(1);
          Node* b = make<Node>(2);
          destroy(a);
          destroy(b);
          Node* c = make<Node>(3);
          outcome("reused_b", c == b ? 1 : 0);
          outcome("reused_a", c == a ? 1 : 0);
          destroy(c);
        },
        o);
    ASSERT_EQ(r.outcomes.size(), 1u);
    const Outcome& out = r.outcomes.begin()->first;
    EXPECT_EQ(out.at(0).second, 0);  // reused_a
    EXPECT_EQ(out.at(1).second, reuse ? 1 : 0) << reuse;
  }
}

// Two threads push nodes they make onto a Treiber stack: which thread makes its node
// first changes between schedules. The objects keep their ids, so optimal DPOR replays
// its prefixes and finds the outcomes DFS finds.
void two_pushers() {
  atomic<Node*> head(nullptr, "head");
  auto push = [&](int v) {
    Node* n = make<Node>(v);
    Node* h = head.load(rlx);
    for (cas_loop loop;; loop.retry()) {
      n->next.store(h, rlx);
      if (head.compare_exchange_weak(h, n, rel, rlx)) break;
    }
  };
  thread a([&] { push(1); }), b([&] { push(2); });
  a.join();
  b.join();
  Node* top = head.load(acq);
  outcome("top", top->value.load(rlx));
  while (top) {
    Node* next = top->next.load(rlx);
    destroy(top);
    top = next;
  }
}

TEST(Allocator, ObjectsMadeInThreadsKeepTheirIdsAcrossSchedules) {
  for (MemoryModelKind m : kModels) {
    const ExploreResult opt = explore(two_pushers, options(m));
    ASSERT_TRUE(opt.error.empty()) << memory_model_name(m) << ": " << opt.error;
    EXPECT_EQ(search_end(opt), SearchEnd::exhausted) << memory_model_name(m);
    EXPECT_TRUE(opt.failures.empty()) << opt.failures.front().message;
    ExploreOptions d = options(m, StrategyKind::dfs);
    const ExploreResult dfs = explore(two_pushers, d);
    std::set<Outcome> a, b;
    for (const auto& [o, n] : opt.outcomes) a.insert(o);
    for (const auto& [o, n] : dfs.outcomes) b.insert(o);
    EXPECT_EQ(a, b) << memory_model_name(m);
    EXPECT_EQ(a.size(), 2u) << memory_model_name(m);
  }
}

// Outside an exploration make() says so, as every API object does.
TEST(Allocator, MakeOutsideAnExplorationThrowsUsageError) {
  EXPECT_THROW((void)make<int>(1), UsageError);
}

}  // namespace
}  // namespace atomcheck
