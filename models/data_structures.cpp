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

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/lin_test.hpp"
#include "models/payload.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::atomic_block;
using atomcheck::cas_loop;
using atomcheck::check;
using atomcheck::mutex;
using atomcheck::shared;
using atomcheck::thread;
using atomcheck::lin::operation;

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;
constexpr int kNull = -1;

using atomcheck::models::read_payload;  // models/payload.hpp
using atomcheck::models::write_payload;

// Treiber stack over nodes 0..2: node 0 (value 100) is on the stack initially; thread i
// pushes node i+1 (value i+1) and then pops once. No node is pushed twice, so there is
// no ABA here. At the end the two popped values and the one left on the stack must be
// exactly {100, 1, 2}. The push and pop operations (atomcheck::lin::operation: atomic
// blocks the linearizability checker reads as a stack's history) are linearizable but not conflict
// serializable: a CAS that fails (or succeeds after head went 0 -> 1 -> 0) read a head
// another block wrote after this block's first read, a cycle the "oracle" flags.
//
// treiber-stack-weak-push: the push's successful CAS is relaxed instead of release, so
// nothing on `head` is a release write (the pops' CASes are acquire only). Fails under
// RC11 only: T1 pushes node 1 (head 0 -> 1); T2 pushes node 2 (value[2] = 2, next[2] = 1,
// CAS head 1 -> 2, relaxed); T1's pop reads head = 2 with acquire, but from a relaxed
// write, so it synchronises with nothing: T2's stores to value[2] and next[2] do not
// happen before T1's reads of them, which may read their initial values, 0 and kNull
// (coherence allows it). A value 0 fails "pop returned a node's value before its push
// published it"; next[2] = kNull makes T1's CAS set head 2 -> kNull, dropping nodes 1
// and 0 ("stack lost or duplicated an element"). The missing pair: the push CAS (release) -> the pop's head.load or CAS
// (acquire) reading it or a later CAS of its release sequence. Under SC and TSO a
// load reads the latest store, so value[2] = 2 is seen: every execution passes.
enum class Push { cas, racy, weak };

template <class Cell>
void treiber(Push kind) {
  const bool cas_push = kind != Push::racy;
  const auto push_order = kind == Push::weak ? rlx : rel;
  std::array<Cell, 3> value{Cell(100, "val0"), Cell(0, "val1"), Cell(0, "val2")};
  std::array<atomic<int>, 3> next{atomic<int>(kNull, "next0"), atomic<int>(kNull, "next1"),
                                   atomic<int>(kNull, "next2")};
  atomic<int> head(0, "head");
  // Node 0 is on the stack before the threads start: a push(100) that returned before any
  // other operation was called, in the history the linearizability checker judges.
  { operation init("stack", "push", 100); }
  auto push = [&](int node) {
    operation op("stack", "push", node);
    write_payload(value[node], node);
    int h = head.load(rlx);
    if (cas_push) {
      cas_loop loop;
      do {
        next[node].store(h, rlx);
      } while (!loop.compare_exchange_weak(head, h, node, push_order, rlx));
    } else {
      next[node].store(h, rlx);
      head.store(node, rel);  // a lost push when another thread moved head meanwhile
    }
  };
  auto pop = [&]() -> int {
    operation op("stack", "pop");
    int h = head.load(acq);
    for (cas_loop loop; h != kNull && !loop.compare_exchange_weak(head, h, next[h].load(rlx), acq, acq);) {
    }
    const int v = h == kNull ? kNull : read_payload(value[h]);
    op.returns(v == kNull ? atomcheck::lin::kNone : v);
    // Every pushed value is nonzero: 0 is a node's value before its push.
    if (kind == Push::weak) check(v != 0, "pop returned a node's value before its push published it");
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
    for (cas_loop loop; h != kNull && !loop.compare_exchange_weak(head, h, next[h].load(rlx), acq, acq);) {
    }
    const int v = h == kNull ? kNull : value[h].get();
    op.returns(h == kNull ? atomcheck::lin::kNone : v);
    return h;
  };
  auto push = [&](int node) {  // reuses a node popped before (no tag on head)
    operation op("stack", "push", value[node].get());
    int h = head.load(rlx);
    cas_loop loop;
    do {
      next[node].store(h, rlx);
    } while (!loop.compare_exchange_weak(head, h, node, rel, rlx));
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
  treiber<shared<int>>(Push::cas);
}

ATOMCHECK_PROGRAM("treiber-stack-weak-push",
                  "Treiber stack whose push CAS is relaxed, not release: a pop reads the node's value "
                  "before the push's store (fails under rc11 only)") {
  treiber<atomic<int>>(Push::weak);
}

ATOMCHECK_PROGRAM("treiber-stack-aba",
                  "Treiber stack without tags, a popped node pushed again: ABA, an element popped twice "
                  "(only the linearizability checker sees it)") {
  treiber_aba();
}

ATOMCHECK_PROGRAM("treiber-stack-racy-push",
                  "Treiber stack whose push stores the head without CAS: lost element") {
  treiber<shared<int>>(Push::racy);
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
//
// The fences are Boehm's ("Can seqlocks get along with programming language memory
// models?", MSPC 2012), needed under RC11 only (x86 orders loads with loads and stores
// with stores; neither fence is an instruction there): without them the reader's
// relaxed loads of a and b may read the writer's stores while its loads of seq read the
// initial 0 (an acquire load orders the loads after it, not before), and s1 = 0, a = 1,
// b = 0, s2 = 0 fails "inconsistent snapshot". The release fence after seq = 1 and the
// acquire fence before the second seq load make a read of a = 1 imply s2 = 1 or 2.
//
// seqlock-weak-reader: the reader's first seq load is relaxed instead of acquire. It may
// then read seq = 2, the writer's last (release) store, without synchronising with it,
// and read a = 0 (initial, stale) and b = 1; the acquire fence then synchronises with
// that release, but it orders only the loads after it, so the torn pair (0, 1) is
// taken with s1 = s2 = 2. The missing pair: the writer's seq.store(2, release) -> the
// reader's first seq.load (acquire) reading it. The original cannot fail this way under
// RC11 (an acquire load reading 2 makes both data stores happen before the data loads),
// so the variant checks it with a message of its own before the torn-pair check. Under
// SC and TSO, seq = 2 is read only after the stores to a and b reached memory.
namespace {

void seqlock(bool weak_reader) {
  constexpr int kTorn = -1;
  atomic<int> seq(0, "seq");
  atomic<int> a(0, "a"), b(0, "b");
  thread writer([&] {
    operation blk("register", "write", 1);
    seq.store(1, rlx);
    atomcheck::atomic_thread_fence(rel);
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
      const int s1 = seq.load(weak_reader ? rlx : acq);
      if (s1 % 2 != 0) {
        atomcheck::this_thread::yield();
        continue;
      }
      const int ra = a.load(rlx), rb = b.load(rlx);
      atomcheck::atomic_thread_fence(acq);
      if (seq.load(rlx) == s1) {
        blk.returns(ra == rb ? ra : kTorn);
        if (weak_reader) check(s1 != 2 || (ra == 1 && rb == 1), "read seq = 2 but not the pair written before it");
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

}  // namespace

ATOMCHECK_PROGRAM("seqlock", "seqlock: one writer, one retrying reader, consistent snapshot") { seqlock(false); }

ATOMCHECK_PROGRAM("seqlock-weak-reader",
                  "seqlock whose reader loads seq first relaxed, not acquire: it reads seq = 2 and a stale pair "
                  "(fails under rc11 only)") {
  seqlock(true);
}

namespace {

// Single-producer single-consumer ring buffer of capacity 1; two items go through it, in
// order, so the slot is reused: the producer may overwrite it only after the consumer
// has read it and moved `head`. Indices grow without wrapping (slot = index % capacity).
// The producer's slot write must reach the consumer before the tail index that
// publishes it (stores stay in order under SC and TSO). Capacity 2 with 3 items has the
// same shapes but ~10^5 DPOR executions under TSO, too many for an exhaustive test. As an
// object it is a queue: each push and pop is an operation.
//
// spsc-ring-weak-tail: the producer publishes `tail` with a relaxed store instead of a
// release one, so no write to `tail` is a release write. Fails under RC11 only: the
// consumer's tail.load (acquire) reads tail = 1 from the relaxed store, synchronises
// with nothing, and its slot load may read the slot's initial 0 rather than item 1 (the
// producer's slot store does not happen before it); with item 2 it may read the stale 1.
// Either way "ring buffer delivered out of order". The missing pair: the producer's
// tail.store(t + 1, release) -> the consumer's tail.load (acquire) reading it. (The
// consumer's head.store release -> the producer's head.load acquire, which keeps the
// producer from overwriting a slot not yet read, is intact.) Under SC and TSO the slot
// store reaches memory before the tail store: every execution passes.
template <class Cell>
void spsc_ring(bool weak_tail) {
  constexpr int kCapacity = 1, kItems = 2;
  std::array<Cell, kCapacity> slot{Cell(0, "slot0")};
  atomic<int> head(0, "head"), tail(0, "tail");
  thread producer([&] {
    for (int item = 1; item <= kItems; ++item) {
      operation op("queue", "enqueue", item);
      const int t = tail.load(rlx);
      atomcheck::spin_until([&] { return t - head.load(acq) != kCapacity; });
      write_payload(slot[static_cast<std::size_t>(t % kCapacity)], item);
      tail.store(t + 1, weak_tail ? rlx : rel);
    }
  });
  thread consumer([&] {
    for (int expected = 1; expected <= kItems; ++expected) {
      int got = 0;
      {
        operation op("queue", "dequeue");
        const int h = head.load(rlx);
        atomcheck::spin_until([&] { return tail.load(acq) != h; });
        got = read_payload(slot[static_cast<std::size_t>(h % kCapacity)]);
        head.store(h + 1, rel);
        op.returns(got);
      }
      check(got == expected, "ring buffer delivered out of order");
    }
  });
  producer.join();
  consumer.join();
}

}  // namespace

ATOMCHECK_PROGRAM("spsc-ring", "SPSC ring buffer, capacity 1, 2 items (slot reused), FIFO order checked") {
  spsc_ring<shared<int>>(false);
}

ATOMCHECK_PROGRAM("spsc-ring-weak-tail",
                  "SPSC ring whose producer stores tail relaxed, not release: the consumer reads the slot "
                  "before the item (fails under rc11 only)") {
  spsc_ring<atomic<int>>(true);
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
