// CAS-retry-loop benchmarks (issue 58), each the twin of a C program in bench/genmc/ that
// GenMC runs (bench/loop_reduction_vs_genmc.sh): 3 threads × 2 operations of a Vyukov
// bounded queue, a Treiber stack and a Michael–Scott queue, every retry loop a cas_loop.
// They count executions (completed and blocked) and time; correctness is the business of
// the model programs in data_structures.cpp, queues.cpp and lin_models.cpp.
#include <array>
#include <vector>

#include "models/lin_structures.hpp"
#include "scheduler/runtime/api.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::cas_loop;
using atomcheck::check;
using atomcheck::shared;
using atomcheck::thread;

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;
constexpr int kThreads = 3;

template <class F>
void three_threads(F body) {
  std::vector<thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([body, t] { body(t); });
  for (thread& t : threads) t.join();
}

// bench/genmc/vyukov_enq_3x2.c: every thread enqueues twice into a queue of 8 cells.
void vyukov_enqueues() {
  atomcheck::models::VyukovQueue<8> q;
  three_threads([&q](int t) {
    for (int k = 0; k < 2; ++k) check(q.enqueue(10 * (t + 1) + k), "an enqueue into a queue with room failed");
  });
}

// bench/genmc/treiber_3x2.c: node 0 (value 100) is on the stack; thread i pushes node
// i + 1 and then pops; main pops what is left. Nodes are preallocated, as in the twin.
void treiber() {
  constexpr int kNull = -1;
  std::array<shared<int>, 4> value{shared<int>(100), shared<int>(0), shared<int>(0), shared<int>(0)};
  std::array<atomic<int>, 4> next{atomic<int>(kNull), atomic<int>(kNull), atomic<int>(kNull), atomic<int>(kNull)};
  atomic<int> head(0);
  auto push = [&](int node) {
    value[static_cast<std::size_t>(node)] = node;
    int h = head.load(rlx);
    cas_loop loop;
    do {
      next[static_cast<std::size_t>(node)].store(h, rlx);
    } while (!loop.compare_exchange_weak(head, h, node, rel, rlx));
  };
  auto pop = [&]() -> int {
    int h = head.load(acq);
    for (cas_loop loop;
         h != kNull && !loop.compare_exchange_weak(head, h, next[static_cast<std::size_t>(h)].load(rlx), acq, acq);) {
    }
    return h == kNull ? kNull : static_cast<int>(value[static_cast<std::size_t>(h)]);
  };
  std::array<int, kThreads> popped{};
  three_threads([&](int t) {
    push(t + 1);
    popped[static_cast<std::size_t>(t)] = pop();
  });
  std::array<int, 4> seen{};
  for (int v : popped) {
    check(v != kNull, "a pop after its own push found the stack empty");
    ++seen[static_cast<std::size_t>(v == 100 ? 0 : v)];
  }
  const int last = pop();
  check(last != kNull && pop() == kNull, "not exactly one element left");
  ++seen[static_cast<std::size_t>(last == 100 ? 0 : last)];
  for (int n : seen) check(n == 1, "a value lost or popped twice");
}

// bench/genmc/msqueue_3x2.c: node 0 is the dummy; thread i enqueues node i + 1 and then
// dequeues; main dequeues once more (empty).
void ms_queue() {
  constexpr int kNull = -1;
  std::array<shared<int>, 4> value{shared<int>(0), shared<int>(0), shared<int>(0), shared<int>(0)};
  std::array<atomic<int>, 4> next{atomic<int>(kNull), atomic<int>(kNull), atomic<int>(kNull), atomic<int>(kNull)};
  atomic<int> head(0), tail(0);
  auto enqueue = [&](int node) {
    value[static_cast<std::size_t>(node)] = node;
    for (cas_loop loop;; loop.retry()) {
      int t = tail.load(acq);
      int n = next[static_cast<std::size_t>(t)].load(acq);
      if (n == kNull) {
        if (loop.compare_exchange_strong(next[static_cast<std::size_t>(t)], n, node, rel, rlx)) {
          tail.compare_exchange_strong(t, node, rel, rlx);
          return;
        }
      } else {
        loop.compare_exchange_strong(tail, t, n, rel, rlx);  // help a lagging tail along
      }
    }
  };
  auto dequeue = [&]() -> int {
    for (cas_loop loop;; loop.retry()) {
      int h = head.load(acq);
      int t = tail.load(acq);
      int n = next[static_cast<std::size_t>(h)].load(acq);
      if (h != head.load(acq)) continue;
      if (h == t) {
        if (n == kNull) return kNull;
        loop.compare_exchange_strong(tail, t, n, rel, rlx);
        continue;
      }
      if (n == kNull) return kNull;
      const int v = value[static_cast<std::size_t>(n)];
      if (loop.compare_exchange_strong(head, h, n, std::memory_order_acq_rel, rlx)) return v;
    }
  };
  std::array<int, kThreads> got{};
  three_threads([&](int t) {
    enqueue(t + 1);
    got[static_cast<std::size_t>(t)] = dequeue();
  });
  check(dequeue() == kNull, "something left in the queue");
  std::array<int, 4> seen{};
  for (int v : got) {
    check(v != kNull, "a dequeue after its own enqueue found the queue empty");
    if (v != kNull) ++seen[static_cast<std::size_t>(v)];
  }
  for (std::size_t n = 1; n < seen.size(); ++n) check(seen[n] == 1, "a value lost or dequeued twice");
}

}  // namespace

ATOMCHECK_PROGRAM("vyukov-enqueue-3x2", "DPOR benchmark: 3 threads enqueue twice each into a Vyukov queue (CAS loops)") {
  vyukov_enqueues();
}
ATOMCHECK_PROGRAM("treiber-push-pop-3x2", "DPOR benchmark: 3 threads push then pop a Treiber stack (CAS loops)") { treiber(); }
ATOMCHECK_PROGRAM("ms-queue-enq-deq-3x2", "DPOR benchmark: 3 threads enqueue then dequeue a Michael-Scott queue (CAS loops)") {
  ms_queue();
}
