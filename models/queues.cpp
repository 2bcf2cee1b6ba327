// Lock-free queues as models: the Michael–Scott queue (and a broken enqueue that links
// its node with a plain store instead of a CAS), and the Chase–Lev work-stealing deque
// (with the store->load fence its `take` needs under x86-TSO, and without it). Nodes and
// slots are preallocated arrays indexed by small integers, since atomcheck values are at
// most 8 bytes and everything must be created inside the program body. Each model is
// two threads of one or two operations, small enough for an exhaustive search.
//
// Intended atomic blocks and expected results (asserted by tests/test_models_library.cpp;
// the blocks are the objects' operations, atomcheck::lin::operation, which the
// linearizability checker reads as histories: tests/test_lin_models.cpp):
// - ms-queue: blocks "queue.enqueue" and "queue.dequeue". Linearizable, so no check fails under SC or
//   TSO; the blocks are not conflict serializable (a CAS that fails read a value another
//   block wrote after this block's earlier reads), so the "oracle" flags executions.
// - ms-queue-racy-link: same blocks; an element is lost under SC and TSO.
// - ms-queue-weak-link, chase-lev-weak-push: one release weakened to relaxed, the payload a
//   relaxed atomic: every execution passes under SC and TSO; fails under RC11 only.
// - chase-lev: blocks "deque.pop_bottom" (take) and "deque.steal". Every element is taken exactly once, under SC
//   and TSO.
// - chase-lev-unfenced: correct under SC; under TSO the owner's `bottom` store sits in
//   its store buffer while it reads `top`, so the thief and the owner both take the last
//   element (the classic bug the mfence in `take` prevents).
#include <algorithm>
#include <array>
#include <cstddef>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/lin_test.hpp"
#include "models/payload.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::check;
using atomcheck::shared;
using atomcheck::thread;
using atomcheck::cas_loop;
using atomcheck::lin::operation;

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;
constexpr auto acq_rel = std::memory_order_acq_rel;
constexpr int kNull = -1;
constexpr int kEmpty = -1;

// An operation returns v, recorded as kNone (the specifications' "empty") for kEmpty.
int returned(operation& op, int v) {
  op.returns(v == kEmpty ? atomcheck::lin::kNone : v);
  return v;
}

using atomcheck::models::read_payload;  // models/payload.hpp
using atomcheck::models::write_payload;

// Michael–Scott queue over nodes 0..2: node 0 is the initial dummy; thread i enqueues
// node i+1 (value i+1) and then dequeues once. No node is reused, so there is no ABA and
// the consistency re-reads of `tail` in enqueue are left out (they only save work);
// dequeue keeps its re-read of `head`, which makes (head, tail, next) a consistent
// snapshot. Each dequeue follows its own thread's enqueue, so neither may find the queue
// empty, and together they must return exactly {1, 2}.
//
// ms-queue-weak-link: the CAS that links a node into next[t] is relaxed instead of
// release. Fails under RC11 only, when the other thread moves the tail: T1 stores
// value[1] = 1 and links node 1 (next[0]: kNull -> 1, relaxed) and stops before it moves
// the tail. T2 enqueues: it reads next[0] = 1 (acquire, from the relaxed CAS: no
// synchronisation), helps the tail 0 -> 1, links node 2 and moves the tail 1 -> 2. T2
// dequeues: head = 0, tail = 2 (its own CAS), next[0] = 1, again read from T1's relaxed
// CAS. T1 has made no release write yet, so nothing of T1 happens before T2's load of
// value[1], which may read the initial 0: "dequeued a node's value before its enqueue
// published it". The missing pair: T1's link CAS (release) -> T2's next[0].load
// (acquire) reading it. (Had T1 moved the tail itself, its tail CAS, a release, read by
// T2's acquire tail load, would publish value[1]: the helping path is the one exposed.)
// Under SC and TSO value[1] = 1 reaches memory before the link: every execution passes.
enum class Link { cas, racy, weak };

template <class Cell>
void ms_queue(Link kind) {
  const bool cas_link = kind != Link::racy;
  const auto link_order = kind == Link::weak ? rlx : rel;
  std::array<Cell, 3> value{Cell(0, "val0"), Cell(0, "val1"), Cell(0, "val2")};
  std::array<atomic<int>, 3> next{atomic<int>(kNull, "next0"), atomic<int>(kNull, "next1"),
                                   atomic<int>(kNull, "next2")};
  atomic<int> head(0, "head"), tail(0, "tail");
  std::array<int, 2> got{kEmpty, kEmpty};

  auto enqueue = [&](int node) {
    operation b("queue", "enqueue", node);
    write_payload(value[static_cast<std::size_t>(node)], node);
    for (cas_loop loop;; loop.retry()) {
      int t = tail.load(acq);
      int n = next[static_cast<std::size_t>(t)].load(acq);
      if (n == kNull) {
        if (cas_link) {
          if (next[static_cast<std::size_t>(t)].compare_exchange_strong(n, node, link_order, rlx)) {
            tail.compare_exchange_strong(t, node, rel, rlx);
            return;
          }
        } else {
          // Broken: another enqueuer may have linked its node since the load above.
          next[static_cast<std::size_t>(t)].store(node, rel);
          tail.compare_exchange_strong(t, node, rel, rlx);
          return;
        }
      } else {
        tail.compare_exchange_strong(t, n, rel, rlx);  // help a lagging tail along
      }
    }
  };
  auto dequeue = [&]() -> int {
    operation b("queue", "dequeue");
    for (cas_loop loop;; loop.retry()) {
      int h = head.load(acq);
      int t = tail.load(acq);
      int n = next[static_cast<std::size_t>(h)].load(acq);
      if (h != head.load(acq)) continue;
      if (h == t) {
        if (n == kNull) return returned(b, kEmpty);
        tail.compare_exchange_strong(t, n, rel, rlx);
        continue;
      }
      // Only the broken enqueue can leave head short of tail with no successor (the
      // node tail points to was unlinked); a real queue would follow a null pointer.
      if (n == kNull) return returned(b, kEmpty);
      const int v = read_payload(value[static_cast<std::size_t>(n)]);
      if (head.compare_exchange_strong(h, n, acq_rel, rlx)) {
        // Every enqueued value is nonzero: 0 is a node's value before its enqueue.
        if (kind == Link::weak) check(v != 0, "dequeued a node's value before its enqueue published it");
        return returned(b, v);
      }
    }
  };
  auto worker = [&](int i) {
    enqueue(i + 1);
    got[static_cast<std::size_t>(i)] = dequeue();
  };
  thread t1(worker, 0), t2(worker, 1);
  t1.join();
  t2.join();
  // The main thread's dequeue shows, in the history, what was left: nothing.
  const int left = dequeue();
  check(left == kEmpty, "an element was left in the queue");
  check(got[0] != kEmpty && got[1] != kEmpty, "dequeue found the queue empty after an enqueue");
  std::array<int, 2> sorted = got;
  std::sort(sorted.begin(), sorted.end());
  check(sorted == std::array<int, 2>{1, 2}, "queue lost or duplicated an element");
}

// Chase–Lev deque holding two tasks (slots 0 and 1, top = 0, bottom = 2) before the
// threads start; buffer growth is left out. The owner takes once from the bottom, the
// thief steals twice from the top. Under TSO the owner's store `bottom = b` must reach
// memory before it reads `top` (store->load, the one order x86 relaxes): without the
// mfence the owner reads top = 0 and takes slot 1 without a CAS (two tasks left, as far
// as it knows), while the thief, still seeing bottom = 2, steals slot 0 and then slot 1.
// The thief's two loads need no fence on x86 (loads are not reordered with loads).
//
// Under RC11 the steal needs Lê et al.'s seq_cst fence between its loads of top and
// bottom (x86 does not: loads are not reordered with loads). Without it the owner's
// "bottom = 1; fence; read top = 0" and the thief's "CAS top 0 -> 1; read bottom = 2
// (initial)" is store buffering with an SC fence on one side only, which RC11's psc
// allows, and owner and thief both take task 11 ("a task was taken twice").
//
// chase-lev-weak-push: here nothing is published while the threads run (both tasks are
// in the buffer before they start), so this variant has the owner push task 11 itself,
// then take, with Chase and Lev's push: write the slot, then `bottom = b + 1` as a
// release store, weakened to relaxed. Fails under RC11 only: the owner pushes (buf[1] =
// 11, bottom 1 -> 2, relaxed); the thief steals task 10 (slot 0, filled before it
// started), then reads top = 1 and bottom = 2 (acquire, from the relaxed store: no
// synchronisation), loads buf[1], which may read its initial 0 (the owner's store does
// not happen before it), and wins its CAS (top 1 -> 2) while the owner's take has not
// run: "stole a task before its push was visible". The missing pair: the push's
// bottom.store(b + 1, release) -> the steal's bottom.load (acquire) reading it or a
// later store of the owner to bottom (RC11's release sequence). Under SC and TSO the slot store reaches memory
// before the bottom store: every execution passes.
enum class Deque { fenced, unfenced, weak_push };

template <class Cell>
void chase_lev(Deque kind) {
  const bool fenced = kind != Deque::unfenced;
  const bool owner_pushes = kind == Deque::weak_push;
  std::array<Cell, 2> buf{Cell(10, "buf0"), Cell(owner_pushes ? 0 : 11, "buf1")};
  atomic<int> top(0, "top"), bottom(owner_pushes ? 1 : 2, "bottom");
  int owner_took = kEmpty;                      // ghost results
  std::array<int, 2> thief_took{kEmpty, kEmpty};

  // The two tasks were pushed at the bottom before the threads start (weak_push: task 10).
  {
    operation p0("deque", "push_bottom", 10);
  }
  if (!owner_pushes) {
    operation p1("deque", "push_bottom", 11);
  }
  auto push = [&](int x) {
    operation blk("deque", "push_bottom", x);
    const int b = bottom.load(rlx);
    write_payload(buf[static_cast<std::size_t>(b)], x);
    bottom.store(b + 1, rlx);  // Chase and Lev: release
  };
  auto take = [&]() -> int {
    operation blk("deque", "pop_bottom");
    const int b = bottom.load(rlx) - 1;
    bottom.store(b, rlx);
    if (fenced) atomcheck::atomic_thread_fence(std::memory_order_seq_cst);
    int t = top.load(rlx);
    if (t > b) {  // empty: restore bottom
      bottom.store(b + 1, rlx);
      return returned(blk, kEmpty);
    }
    int x = read_payload(buf[static_cast<std::size_t>(b)]);
    if (t == b) {  // the last task: race the thieves for it
      if (!top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, rlx)) x = kEmpty;
      bottom.store(b + 1, rlx);
    }
    return returned(blk, x);
  };
  // A steal that loses its CAS returns empty (Chase and Lev's ABORT): the task went to
  // the owner or another thief, so the deque was empty of it when the steal took effect.
  auto steal = [&]() -> int {
    operation blk("deque", "steal");
    int t = top.load(acq);
    atomcheck::atomic_thread_fence(std::memory_order_seq_cst);  // RC11 (comment above)
    const int b = bottom.load(acq);
    if (t >= b) return returned(blk, kEmpty);
    const int x = read_payload(buf[static_cast<std::size_t>(t)]);
    if (!top.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, rlx)) return returned(blk, kEmpty);
    // Every pushed task is nonzero: 0 is a slot before its push.
    if (owner_pushes) check(x != 0, "stole a task before its push was visible");
    return returned(blk, x);
  };

  thread owner([&] {
    if (owner_pushes) push(11);
    owner_took = take();
  });
  thread thief([&] {
    thief_took[0] = steal();
    thief_took[1] = steal();
  });
  owner.join();
  thief.join();
  const std::array<int, 3> took{owner_took, thief_took[0], thief_took[1]};
  for (int task : {10, 11}) {
    const auto n = std::count(took.begin(), took.end(), task);
    check(n <= 1, "a task was taken twice (owner and thief both got it)");
    // A task nobody took must still be in the deque.
    const int t = top.load(), b = bottom.load();
    const int slot = task - 10;
    check(n == 1 || (t <= slot && slot < b), "a task was lost");
  }
}

}  // namespace

ATOMCHECK_PROGRAM("ms-queue", "Michael-Scott queue, 2 threads each enqueue (CAS) then dequeue") {
  ms_queue<shared<int>>(Link::cas);
}

ATOMCHECK_PROGRAM("ms-queue-weak-link",
                  "Michael-Scott queue whose link CAS is relaxed, not release: a dequeue reads the node's value "
                  "before the enqueue's store (fails under rc11 only)") {
  ms_queue<atomic<int>>(Link::weak);
}

ATOMCHECK_PROGRAM("ms-queue-racy-link",
                  "Michael-Scott queue whose enqueue links the node with a store, not a CAS: lost element") {
  ms_queue<shared<int>>(Link::racy);
}

ATOMCHECK_PROGRAM("chase-lev",
                  "Chase-Lev deque, owner take || thief steals twice, mfence in take: holds under TSO") {
  chase_lev<shared<int>>(Deque::fenced);
}

ATOMCHECK_PROGRAM("chase-lev-weak-push",
                  "Chase-Lev deque, owner push then take || thief steals twice, push stores bottom relaxed, not "
                  "release: the thief steals the slot before the task (fails under rc11 only)") {
  chase_lev<atomic<int>>(Deque::weak_push);
}

ATOMCHECK_PROGRAM("chase-lev-unfenced",
                  "Chase-Lev deque without the mfence in take: under TSO owner and thief take the same task") {
  chase_lev<shared<int>>(Deque::unfenced);
}
