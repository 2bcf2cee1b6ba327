// Concurrent objects registered for `atomcheck lincheck NAME` (scheduler/lin_test.hpp
// ATOMCHECK_LIN_OBJECT): a Treiber stack, the same stack whose pop gives up when its CAS
// fails, a counter incremented by fetch_add and by a load and a store, Vyukov's bounded
// MPMC queue (models/lin_structures.hpp), which is not linearizable, and an SPSC ring whose
// scenarios have one producer and one consumer (Op::group). lincheck
// generates scenarios of their operations, explores each exhaustively and shrinks the
// first that fails: the command-line form of EXPECT_LINEARIZABLE.
#include <cstddef>
#include <cstdint>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/lin_test.hpp"
#include "models/lin_structures.hpp"

namespace {

using atomcheck::lin::kNone;

// Nodes from a bump allocator per thread (never reused: no ABA), linked by index; -1 is
// null. Per thread, as malloc's arenas are: a shared allocation counter would order every
// two pushes and multiply the executions by orders that are not the stack's.
template <bool kRetry>
class TreiberStack {
 public:
  void push(int v) {
    const std::size_t t = atomcheck::this_thread::get_id();
    atomcheck::check(t < kThreads && used_[t] < kPerThread, "treiber-stack: more pushes than its node pool holds");
    const int n = static_cast<int>(t * kPerThread + used_[t]++);
    value_[n].store(v);
    int h = head_.load();
    atomcheck::cas_loop loop;
    do {
      next_[n].store(h);
    } while (!loop.compare_exchange_weak(head_, h, n));
  }
  std::int64_t pop() {
    int h = head_.load();
    for (atomcheck::cas_loop loop; h >= 0; loop.retry()) {
      // The broken variant gives up after a failure: a plain compare-exchange, whose
      // failure does not end the attempt (cas_loop::compare_exchange_weak's would).
      const int nx = next_[h].load();
      if (kRetry ? loop.compare_exchange_weak(head_, h, nx) : head_.compare_exchange_weak(h, nx)) return value_[h].load();
      if (!kRetry) return kNone;  // gives up although the stack may still hold elements
    }
    return kNone;
  }

 private:
  static constexpr std::size_t kThreads = 5, kPerThread = 4, kNodes = kThreads * kPerThread;
  atomcheck::atomic<int> head_{-1, "head"};
  atomcheck::atomic<int> value_[kNodes]{}, next_[kNodes]{};
  std::size_t used_[kThreads]{};  // each thread's own: no shared memory
};

template <bool kAtomic>
class Counter {
 public:
  std::int64_t increment() {
    if (kAtomic) return value_.fetch_add(1);
    const int v = value_.load();  // a load and a store: two increments may both return v
    value_.store(v + 1);
    return v;
  }
  std::int64_t get() { return value_.load(); }

 private:
  atomcheck::atomic<int> value_{0, "value"};
};

// Michael and Scott's queue (PODC 1996): nodes by index from per-thread pools (never
// reused: no ABA), node 0 the first dummy, -1 null; tail may lag one node behind, and
// both operations help it along.
class MsQueue {
 public:
  void enqueue(int v) {
    const std::size_t th = atomcheck::this_thread::get_id();
    atomcheck::check(th < kThreads && used_[th] < kPerThread, "ms-queue: more enqueues than its node pool holds");
    const int node = static_cast<int>(1 + th * kPerThread + used_[th]++);
    value_[node].store(v);
    for (atomcheck::cas_loop loop;; loop.retry()) {
      int t = tail_.load();
      int n = next_[t].load();
      if (t != tail_.load()) continue;
      if (n != -1) {
        loop.compare_exchange_strong(tail_, t, n);  // help a lagging tail along
        continue;
      }
      if (loop.compare_exchange_strong(next_[t], n, node)) {
        tail_.compare_exchange_strong(t, node);  // may fail: another thread helped
        return;
      }
    }
  }
  std::int64_t dequeue() {
    for (atomcheck::cas_loop loop;; loop.retry()) {
      int h = head_.load();
      int t = tail_.load();
      int n = next_[h].load();
      if (h != head_.load()) continue;
      if (h == t) {
        if (n == -1) return kNone;
        loop.compare_exchange_strong(tail_, t, n);
        continue;
      }
      const int v = value_[n].load();
      if (loop.compare_exchange_strong(head_, h, n)) return v;
    }
  }

 private:
  static constexpr std::size_t kThreads = 5, kPerThread = 4, kNodes = 1 + kThreads * kPerThread;
  atomcheck::atomic<int> head_{0, "head"}, tail_{0, "tail"};
  atomcheck::atomic<int> value_[kNodes]{};
  // Null links; stored as value - 1 would hide the null from reports, so each is spelled.
  atomcheck::atomic<int> next_[kNodes]{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                       -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
  std::size_t used_[kThreads]{};  // each thread's own: no shared memory
};

using Stack = TreiberStack<true>;
using StackNoRetry = TreiberStack<false>;
using AtomicCounter = Counter<true>;
using RacyCounter = Counter<false>;
// 16 cells, more than a scenario of the command's usual shapes enqueues: the queue
// specification is unbounded, so a full queue fails the execution instead of answering.
using Vyukov = atomcheck::models::VyukovQueue<16>;
using Spsc = atomcheck::models::SpscRing<16>;

}  // namespace

ATOMCHECK_LIN_OBJECT(treiber, "treiber-stack", "stack", "Treiber stack: push and pop retry their CAS", Stack,
                     {{"push", [](Stack& s, std::int64_t v) { return s.push(static_cast<int>(v)), kNone; }, 1, 3},
                      {"pop", [](Stack& s, std::int64_t) { return s.pop(); }}});

ATOMCHECK_LIN_OBJECT(treiber_no_retry, "treiber-stack-no-retry", "stack",
                     "Treiber stack whose pop returns empty when its CAS fails: not linearizable", StackNoRetry,
                     {{"push", [](StackNoRetry& s, std::int64_t v) { return s.push(static_cast<int>(v)), kNone; }, 1, 3},
                      {"pop", [](StackNoRetry& s, std::int64_t) { return s.pop(); }}});

ATOMCHECK_LIN_OBJECT(counter, "counter-fetch-add", "counter", "counter incremented by fetch_add", AtomicCounter,
                     {{"increment", [](AtomicCounter& c, std::int64_t) { return c.increment(); }},
                      {"get", [](AtomicCounter& c, std::int64_t) { return c.get(); }}});

ATOMCHECK_LIN_OBJECT(racy_counter, "counter-load-store", "counter",
                     "counter incremented by a load and a store: not linearizable", RacyCounter,
                     {{"increment", [](RacyCounter& c, std::int64_t) { return c.increment(); }},
                      {"get", [](RacyCounter& c, std::int64_t) { return c.get(); }}});

// A dequeue answers empty while an enqueue that claimed an earlier cell has not published
// it, though another enqueue returned before the dequeue was called (models/lin_models.cpp,
// vyukov-queue).
ATOMCHECK_LIN_OBJECT(vyukov_queue, "vyukov-queue", "queue",
                     "Vyukov's bounded MPMC queue: a dequeue answers empty behind a stalled enqueue, not linearizable",
                     Vyukov,
                     {{"enqueue",
                       [](Vyukov& q, std::int64_t v) {
                         atomcheck::check(q.enqueue(static_cast<int>(v)), "vyukov-queue: 16 cells full");
                         return kNone;
                       },
                       1, 3},
                      {"dequeue", [](Vyukov& q, std::int64_t) { return q.dequeue(); }}});

ATOMCHECK_LIN_OBJECT(ms_queue, "ms-queue", "queue", "Michael-Scott queue: enqueue and dequeue retry their CAS",
                     MsQueue,
                     {{"enqueue", [](MsQueue& q, std::int64_t v) { return q.enqueue(static_cast<int>(v)), kNone; }, 1, 3},
                      {"dequeue", [](MsQueue& q, std::int64_t) { return q.dequeue(); }}});

// An SPSC ring is correct only with one producer and one consumer: the groups give
// enqueue to one thread of the parallel part and dequeue to another (before and after,
// the main thread calls both); a third thread would get no operation and is left out.
ATOMCHECK_LIN_OBJECT(spsc_ring, "spsc-ring", "queue",
                     "single-producer single-consumer ring (producer and consumer groups)", Spsc,
                     {{"enqueue",
                       [](Spsc& q, std::int64_t v) {
                         atomcheck::check(q.enqueue(static_cast<int>(v)), "spsc-ring: 16 slots full");
                         return kNone;
                       },
                       1, 3, "producer"},
                      {"dequeue", [](Spsc& q, std::int64_t) { return q.dequeue(); }, 1, 0, "consumer"}});
