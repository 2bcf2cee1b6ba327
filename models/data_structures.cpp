// Small concurrent data structures as models: a Treiber stack (and a broken push that
// reads and writes the head in two steps), double-checked lazy initialisation, a
// seqlock, a single-producer single-consumer ring buffer, and check-then-act on a
// shared map (broken, and under a lock). Nodes and slots are preallocated arrays indexed
// by small integers, since atomcheck values are at most 8 bytes and everything must be
// created inside the program body.
#include <algorithm>
#include <array>
#include <cstddef>
#include <mutex>

#include "scheduler/api.hpp"
#include "scheduler/lin_test.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::atomic_block;
using atomcheck::check;
using atomcheck::mutex;
using atomcheck::shared;
using atomcheck::thread;
using atomcheck::lin::operation;

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;
constexpr int kNull = -1;

// Treiber stack over nodes 0..2: node 0 (value 100) is on the stack initially; thread i
// pushes node i+1 (value i+1) and then pops once. No node is pushed twice, so there is
// no ABA here. At the end the two popped values and the one left on the stack must be
// exactly {100, 1, 2}. The push and pop operations (atomcheck::lin::operation: atomic
// blocks the linearizability checker reads as a stack's history) are linearizable but not conflict
// serializable: a CAS that fails (or succeeds after head went 0 -> 1 -> 0) read a head
// another block wrote after this block's first read, a cycle the "oracle" flags.
void treiber(bool cas_push) {
  std::array<shared<int>, 3> value{shared<int>(100, "val0"), shared<int>(0, "val1"),
                                   shared<int>(0, "val2")};
  std::array<atomic<int>, 3> next{atomic<int>(kNull, "next0"), atomic<int>(kNull, "next1"),
                                   atomic<int>(kNull, "next2")};
  atomic<int> head(0, "head");
  // Node 0 is on the stack before the threads start: a push(100) that returned before any
  // other operation was called, in the history the linearizability checker judges.
  { operation init("stack", "push", 100); }
  auto push = [&](int node) {
    operation op("stack", "push", node);
    value[node].set(node);
    int h = head.load(rlx);
    if (cas_push) {
      do {
        next[node].store(h, rlx);
      } while (!head.compare_exchange_weak(h, node, rel, rlx));
    } else {
      next[node].store(h, rlx);
      head.store(node, rel);  // a lost push when another thread moved head meanwhile
    }
  };
  auto pop = [&]() -> int {
    operation op("stack", "pop");
    int h = head.load(acq);
    while (h != kNull && !head.compare_exchange_weak(h, next[h].load(rlx), acq, acq)) {
    }
    const int v = h == kNull ? kNull : value[h].get();
    op.returns(v == kNull ? atomcheck::lin::kNone : v);
    return v;
  };
  std::array<int, 2> popped{kNull, kNull};
  auto worker = [&](int i) {
    push(i + 1);
    popped[i] = pop();
  };
  thread t1(worker, 0), t2(worker, 1);
  t1.join();
  t2.join();
  // The main thread empties the stack with pops, so that the history shows what was left.
  std::array<int, 4> all{popped[0], popped[1], kNull, kNull};
  all[2] = pop();
  if (all[2] != kNull) all[3] = pop();
  check(all[3] == kNull || pop() == kNull, "more than one element left on the stack");
  std::sort(all.begin(), all.end());
  check(all == std::array<int, 4>{kNull, 1, 2, 100}, "stack lost or duplicated an element");
}

// The ABA problem of a Treiber stack without tags, with node reuse (a free list of one):
// the stack holds A (node 1) above B (node 2). Thread 1 pops: it reads head = A and
// next(A) = B, and is preempted before its CAS. Thread 2 pops A, pops B, and pushes A
// again (node 1 reused, now above nothing). Thread 1's CAS(head: A -> B) succeeds, since
// head is A again, and installs B, which was popped, so the main thread's last pop
// returns B a second time. Every step is a correct CAS and the program asserts nothing:
// the linearizability checker finds it, from the history alone.
void treiber_aba() {
  std::array<shared<int>, 3> value{shared<int>(0, "val0"), shared<int>(1, "valA"), shared<int>(2, "valB")};
  std::array<atomic<int>, 3> next{atomic<int>(kNull, "next0"), atomic<int>(2, "nextA"),
                                   atomic<int>(kNull, "nextB")};
  atomic<int> head(1, "head");
  {
    operation b("stack", "push", 2);
  }
  {
    operation a("stack", "push", 1);
  }
  auto pop = [&]() -> int {
    operation op("stack", "pop");
    int h = head.load(acq);
    while (h != kNull && !head.compare_exchange_weak(h, next[h].load(rlx), acq, acq)) {
    }
    const int v = h == kNull ? kNull : value[h].get();
    op.returns(h == kNull ? atomcheck::lin::kNone : v);
    return h;
  };
  auto push = [&](int node) {  // reuses a node popped before (no tag on head)
    operation op("stack", "push", value[node].get());
    int h = head.load(rlx);
    do {
      next[node].store(h, rlx);
    } while (!head.compare_exchange_weak(h, node, rel, rlx));
  };
  thread t1([&] { pop(); });
  thread t2([&] {
    const int a = pop();
    pop();
    if (a != kNull) push(a);
  });
  t1.join();
  t2.join();
  pop();  // after the ABA, head is B again although B was popped: popped a second time
}

}  // namespace

ATOMCHECK_PROGRAM("treiber-stack", "Treiber stack, 2 threads each push (CAS) then pop") {
  treiber(true);
}

ATOMCHECK_PROGRAM("treiber-stack-aba",
                  "Treiber stack without tags, a popped node pushed again: ABA, an element popped twice "
                  "(only the linearizability checker sees it)") {
  treiber_aba();
}

ATOMCHECK_PROGRAM("treiber-stack-racy-push",
                  "Treiber stack whose push stores the head without CAS: lost element") {
  treiber(false);
}

// Double-checked lazy initialisation with relaxed accesses: a fast-path read of the
// `ready` flag, then the lock and a second check. In C++ the relaxed flag store may be
// seen before the payload store (a data race, broken); SC and TSO keep stores in order,
// so under both every reader that sees ready=1 sees the payload. The atomic block is the
// whole get-instance-and-read.
ATOMCHECK_PROGRAM("dcl-init", "double-checked lazy init with relaxed flag (broken only in C++)") {
  atomic<int> ready(0, "ready");
  shared<int> payload(0, "payload");
  mutex m("init");
  auto get = [&] {
    atomic_block b("get-instance");
    if (ready.load(rlx) == 0) {
      std::scoped_lock<mutex> g(m);
      if (ready.load(rlx) == 0) {
        payload.set(42);
        ready.store(1, rlx);
      }
    }
    check(payload.get() == 42, "saw the flag before the payload");
  };
  thread t1(get), t2(get);
  t1.join();
  t2.join();
}

// Seqlock: one writer writes the pair (a, b) = (1, 1) under an odd sequence number; the
// reader retries until it read an even, unchanged sequence number and must then see a
// consistent pair. The reader's block "snapshot" spans its retries. As an object, the
// seqlock-protected pair is a register: the writer writes 1, the reader reads the pair's
// value, and a torn pair (never written) would read as kTorn.
ATOMCHECK_PROGRAM("seqlock", "seqlock: one writer, one retrying reader, consistent snapshot") {
  constexpr int kTorn = -1;
  atomic<int> seq(0, "seq");
  atomic<int> a(0, "a"), b(0, "b");
  thread writer([&] {
    operation blk("register", "write", 1);
    seq.store(1, rlx);
    a.store(1, rlx);
    b.store(1, rlx);
    seq.store(2, rel);
  });
  thread reader([&] {
    operation blk("register", "read");
    // The retries stay in the trace, inside the "snapshot" block, which is what makes it
    // not conflict serializable: a yield() loop, not a spin_until await (whose failed
    // attempts are discarded). A retry that repeats the previous one blocks the reader.
    for (;;) {
      const int s1 = seq.load(acq);
      if (s1 % 2 != 0) {
        atomcheck::this_thread::yield();
        continue;
      }
      const int ra = a.load(rlx), rb = b.load(rlx);
      if (seq.load(acq) == s1) {
        blk.returns(ra == rb ? ra : kTorn);
        check(ra == rb, "inconsistent snapshot");
        atomcheck::outcome("snapshot", ra);
        return;
      }
      atomcheck::this_thread::yield();
    }
  });
  writer.join();
  reader.join();
}

// Single-producer single-consumer ring buffer of capacity 1; two items go through it, in
// order, so the slot is reused: the producer may overwrite it only after the consumer
// has read it and moved `head`. Indices grow without wrapping (slot = index % capacity).
// The producer's slot write must reach the consumer before the tail index that
// publishes it (stores stay in order under SC and TSO). Capacity 2 with 3 items has the
// same shapes but ~10^5 DPOR executions under TSO, too many for an exhaustive test. As an
// object it is a queue: each push and pop is an operation.
ATOMCHECK_PROGRAM("spsc-ring", "SPSC ring buffer, capacity 1, 2 items (slot reused), FIFO order checked") {
  constexpr int kCapacity = 1, kItems = 2;
  std::array<shared<int>, kCapacity> slot{shared<int>(0, "slot0")};
  atomic<int> head(0, "head"), tail(0, "tail");
  thread producer([&] {
    for (int item = 1; item <= kItems; ++item) {
      operation op("queue", "enqueue", item);
      const int t = tail.load(rlx);
      atomcheck::spin_until([&] { return t - head.load(acq) != kCapacity; });
      slot[static_cast<std::size_t>(t % kCapacity)].set(item);
      tail.store(t + 1, rel);
    }
  });
  thread consumer([&] {
    for (int expected = 1; expected <= kItems; ++expected) {
      int got = 0;
      {
        operation op("queue", "dequeue");
        const int h = head.load(rlx);
        atomcheck::spin_until([&] { return tail.load(acq) != h; });
        got = slot[static_cast<std::size_t>(h % kCapacity)].get();
        head.store(h + 1, rel);
        op.returns(got);
      }
      check(got == expected, "ring buffer delivered out of order");
    }
  });
  producer.join();
  consumer.join();
}

namespace {

// A one-key map (slot 0 = absent) with an insert counter; "insert if absent" from two
// threads must insert once. The broken version checks outside the lock.
void check_then_act(bool locked) {
  shared<int> slot(0, "map[k]");
  mutex m("map");
  int inserts = 0;  // ghost
  auto insert_if_absent = [&](int v) {
    atomic_block b("insert-if-absent");
    if (locked) {
      std::scoped_lock<mutex> g(m);
      if (slot.get() == 0) {
        slot.set(v);
        ++inserts;
      }
      return;
    }
    if (slot.get() != 0) return;
    std::scoped_lock<mutex> g(m);
    slot.set(v);
    ++inserts;
  };
  thread t1(insert_if_absent, 1), t2(insert_if_absent, 2);
  t1.join();
  t2.join();
  check(inserts == 1, "key inserted twice");
}

}  // namespace

ATOMCHECK_PROGRAM("map-check-then-act", "insert-if-absent that checks outside the lock: broken") {
  check_then_act(false);
}

ATOMCHECK_PROGRAM("map-check-then-act-locked", "insert-if-absent with check and insert under one lock") {
  check_then_act(true);
}
