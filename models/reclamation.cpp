// Memory reclamation for lock-free structures, on the allocator model (atomcheck::make and
// destroy): hazard pointers and epoch-based reclamation under a Treiber stack, an intrusive
// reference count, and the ABA of an untagged stack with its tagged fix. Each scheme comes
// correct and broken, so that each failure of the allocator model (use after free, double
// free, leak, and the data race of a free that happens-before does not order) has a model
// that shows it and a correct twin that proves the scheme, under sc, tso and rc11.
// Nodes are real heap blocks here, unlike data_structures.cpp's preallocated arrays: the
// bugs are frees, so the blocks must be made and destroyed.
#include <array>
#include <cstdint>

#include "scheduler/runtime/api.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::cas_loop;
using atomcheck::check;
using atomcheck::destroy;
using atomcheck::make;
using atomcheck::shared;
using atomcheck::thread;

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;
constexpr auto acq_rel = std::memory_order_acq_rel;
constexpr auto sc = std::memory_order_seq_cst;

// The payload is a shared<int>: a pop that reads it unordered with its push is a data race.
struct Node {
  shared<int> value;
  atomic<Node*> next;
  Node(int v, Node* n) : value(v, "node.value"), next(n, "node.next") {}
};

// The stack every scheme below starts from: A (value 1) above B (value 2), made by the main
// thread before any other thread starts.
void push_initial(atomic<Node*>& head) {
  Node* b = make<Node>(2, nullptr);
  head.store(make<Node>(1, b), rlx);
}

// What is left on the stack once the threads are joined (nothing runs concurrently then),
// destroyed; returns how many nodes there were.
int drain(atomic<Node*>& head) {
  int n = 0;
  for (Node* h = head.load(acq); h != nullptr; ++n) {
    Node* next = h->next.load(rlx);
    destroy(h);
    h = next;
  }
  head.store(nullptr, rlx);
  return n;
}

// ---- hazard pointers (Michael 2004) ----------------------------------------------------
//
// Two threads pop one node each from [A, B]. A pop publishes the head it read as its hazard
// pointer, then reads head again: if head still is that node, the node was not unlinked
// before the hazard was visible, so no scan that misses the hazard can free it. The winner
// of the CAS retires the node and scans: it frees the node unless the other thread's
// hazard names it; a node kept is freed by the main thread after the join (the retired
// list a real implementation hands over at thread exit).
//
// The hazard store, the re-read of head, the CAS and the scan's hazard load are seq_cst:
// under RC11 a release store and an acquire load form store buffering, and the scan could
// miss a hazard that a validation already relied on.
//
// hp-stack-unvalidated: the pop checks its hazard by reading the hazard back, not head.
// T1 reads head = A; T2 pops A, scans (T1's hazard still null) and frees A; T1 publishes A,
// "validates" it and reads A->next: use after free (under rc11 with race detection on, a
// data race with the free, which no happens-before orders).
//
// hp-stack-leak: a pop that never retires its node: the node is never freed.
enum class Hp { correct, unvalidated, leak };

void hp_stack(Hp kind) {
  atomic<Node*> head(nullptr, "head");
  std::array<atomic<Node*>, 2> hazard{atomic<Node*>(nullptr, "hazard0"), atomic<Node*>(nullptr, "hazard1")};
  push_initial(head);
  auto pop = [&](int me) -> Node* {
    Node* h = nullptr;
    for (cas_loop loop;; loop.retry()) {
      h = head.load(acq);
      if (h == nullptr) break;
      hazard[me].store(h, sc);
      if ((kind == Hp::unvalidated ? hazard[me].load(sc) : head.load(sc)) != h) continue;
      if (head.compare_exchange_strong(h, h->next.load(rlx), sc, rlx)) break;
    }
    hazard[me].store(nullptr, rel);
    return h;
  };
  std::array<int, 2> popped{0, 0};
  std::array<Node*, 2> kept{nullptr, nullptr};
  auto worker = [&](int me) {
    Node* n = pop(me);
    if (n == nullptr) return;
    popped[me] = n->value.get();
    if (kind == Hp::leak) return;
    // Retire and scan, with one node retired: free it unless the other pop protects it.
    if (hazard[1 - me].load(sc) == n) kept[me] = n;
    else destroy(n);
  };
  thread t1(worker, 0), t2(worker, 1);
  t1.join();
  t2.join();
  for (Node* n : kept) destroy(n);
  check(drain(head) == 0 && popped[0] + popped[1] == 3, "two pops did not take A and B");
}

// ---- epoch-based reclamation (Fraser 2004; crossbeam-epoch) ----------------------------
//
// A global epoch, and per thread the epoch it announced when it pinned (kQuiescent when
// unpinned). A pop runs pinned; the node it unlinks is retired with the global epoch read
// after the unlink, r. The epoch advances from e to e+1 only when every pinned thread has
// announced e; so a thread that could still hold the node (pinned before the unlink, at an
// epoch <= r) keeps the epoch below r+2, and a node retired at r is freed once the epoch
// reaches r+2: the grace period. After its pop each thread tries twice to advance the epoch
// and frees its node if the grace period is over; otherwise the main thread frees it after
// the join. The seq_cst fences are crossbeam's: after the announcement (pin) and before
// reading the announcements (advance), or under RC11 the two sides form store buffering.
//
// ebr-stack-early-free: frees at r+1, one epoch too early. T1 pins at 0 and reads head =
// A; T2 pins at 0, pops A, unpins, retires A at 0 and advances the epoch to 1 (T1 announced
// 0, so it may) and frees A; T1 reads A->next: use after free.
enum class Ebr { correct, early_free };

void ebr_stack(Ebr kind) {
  constexpr int kQuiescent = -1;
  atomic<int> epoch(0, "epoch");
  std::array<atomic<int>, 2> announced{atomic<int>(kQuiescent, "announced0"), atomic<int>(kQuiescent, "announced1")};
  atomic<Node*> head(nullptr, "head");
  push_initial(head);
  auto pop = [&]() -> Node* {
    Node* h = head.load(acq);
    for (cas_loop loop; h != nullptr && !head.compare_exchange_weak(h, h->next.load(rlx), acq_rel, acq);
         loop.retry()) {
    }
    return h;
  };
  // One attempt to move the epoch on; returns the epoch after it.
  auto try_advance = [&](int me) -> int {
    atomcheck::atomic_thread_fence(sc);
    int e = epoch.load(rlx);
    const int other = announced[1 - me].load(rlx);
    if (other != kQuiescent && other != e) return e;
    return epoch.compare_exchange_strong(e, e + 1, acq_rel, rlx) ? e + 1 : e;
  };
  const int grace = kind == Ebr::early_free ? 1 : 2;
  std::array<int, 2> popped{0, 0};
  std::array<Node*, 2> kept{nullptr, nullptr};
  auto worker = [&](int me) {
    announced[me].store(epoch.load(rlx), rlx);  // pin
    atomcheck::atomic_thread_fence(sc);
    Node* n = pop();
    const int retired_at = epoch.load(rlx);
    if (n != nullptr) popped[me] = n->value.get();
    announced[me].store(kQuiescent, rel);  // unpin
    if (n == nullptr) return;
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (try_advance(me) >= retired_at + grace) {
        destroy(n);
        return;
      }
    }
    kept[me] = n;
  };
  thread t1(worker, 0), t2(worker, 1);
  t1.join();
  t2.join();
  for (Node* n : kept) destroy(n);
  check(drain(head) == 0 && popped[0] + popped[1] == 3, "two pops did not take A and B");
}

// ---- an intrusive reference count (Boost.Atomic's usage example) -----------------------
//
// The main thread T0 and T1 share one object (two references). T1 updates the payload and
// drops its reference; T0 drops its own; whoever drops the last destroys the object, whose
// destructor reads the payload (a final flush: it must see every owner's update) and then
// poisons it. Every access through a reference must happen before the delete: the
// decrement releases what this owner did and the last one acquires all of it, so
// fetch_sub(1, acq_rel).
//
// refcount-relaxed: fetch_sub(1, relaxed). Nothing orders T1's update before T0's
// delete. Under RC11 (race detection off) the destructor in T0 reads the payload T1
// overwrote, 1, not 2. With race detection on the free races with T1's update under every
// memory model (happens-before is C++'s, whatever the hardware); under SC and TSO with it
// off every execution passes, since the hardware keeps T1's store before its decrement.
//
// refcount-premature: T1 drops its reference, then reads the payload. When T0 drops the
// last one in between, its destructor poisons the payload and frees the block: T1's read
// is a use after free, under every memory model (under rc11 with race detection on, a
// data race with the free). When T1 drops last, it frees the block itself and reads it.
//
// refcount-double-free: the count is tested by a separate load after the decrement. Both
// threads decrement (2, 1, 0), both load 0, both destroy: a double free. The count lives in
// a control block that outlives the object (as std::shared_ptr's does), so nothing reads
// the freed block between the two destroys, and the double free is the failure under
// every memory model: an intrusive count read after the other owner's destroy would be a
// use after free first (under rc11, a race with the free), which refcount-premature shows.
enum class Rc { correct, relaxed, premature, double_free };

// The payload first: a free frees the block's objects in order, so a race with the free is
// reported on the payload, the object the owners use, rather than on the count.
struct Counted {
  atomic<int> payload{1, "payload"};
  atomic<int> refs{2, "refs"};
  int* flushed;
  explicit Counted(int* flushed_to) : flushed(flushed_to) {}
  ~Counted() {
    *flushed = payload.load(rlx);
    payload.store(-1, rlx);  // poisoned: a stale reader would see it
  }
};

void refcount(Rc kind) {
  int flushed = 0;
  Counted* obj = make<Counted>(&flushed);
  atomic<int> control_refs{2, "control.refs"};
  auto drop = [&kind, &control_refs](Counted* o) {
    if (kind == Rc::double_free) {
      control_refs.fetch_sub(1, acq_rel);
      if (control_refs.load(acq) == 0) destroy(o);
    } else if (o->refs.fetch_sub(1, kind == Rc::relaxed ? rlx : acq_rel) == 1) {
      destroy(o);
    }
  };
  thread t1([&] {
    if (kind == Rc::premature) {
      drop(obj);
      (void)obj->payload.load(rlx);
    } else {
      obj->payload.store(2, rlx);
      drop(obj);
    }
  });
  drop(obj);
  t1.join();
  if (kind != Rc::premature)
    check(flushed == 2, "the destructor read the payload without T1's update: the last decrement did not acquire it");
}

// ---- ABA: an untagged Treiber stack, and the tag that fixes it --------------------------
//
// T1 pops once. T2 pops A, pops B, and pushes a node again; the main thread then pops what
// is left. T1's pop can read head = A and next = B, then wait while T2 runs: head is A
// again when T2's push put a node at A's address, and T1's CAS(head: A -> B) succeeds,
// installing B, which T2 popped and owns.
//
// treiber-untagged-recycle: T2 pushes its own node A back (a free list of one, as
// type-stable memory recycles nodes). After the ABA, B is both T2's and on the stack: the
// main thread destroys T2's B and the B it pops: a double free. Nothing is freed while
// the threads run, so that is the only failure.
//
// treiber-tagged-recycle: the same with a 16-bit counter beside the pointer in one 64-bit
// word (x86-64 pointers fit in 48 bits); every successful CAS increments it, so T1's CAS
// expects a counter T2 has moved on and fails. Passes. A tag only works with memory that
// stays allocated (recycled, as here): it tells a reused node from the old one, it does not
// make reading a freed node's `next` safe. For that, hazard pointers or epochs.
//
// treiber-untagged-reuse (explored with ExploreOptions::reuse_freed, the allocator's LIFO
// free list): T2 destroys A, makes a new node C, which the allocator puts at A's address
// (the one block freed so far), and destroys B. After the ABA the stack's head is B, freed,
// and the main thread's pop reads B->next: a use after free by T0. Freeing a node another
// thread may hold is a bug of its own: T1 or T2 reads the `next` of a node the other freed,
// a use after free with or without reuse_freed (under rc11 with race detection on, a data
// race with the free), and the only failure without it.
enum class Aba { untagged_recycle, tagged_recycle, untagged_reuse };

constexpr std::uint64_t kPointerBits = 48;
constexpr std::uint64_t kPointerMask = (std::uint64_t{1} << kPointerBits) - 1;
Node* pointer(std::uint64_t word) { return reinterpret_cast<Node*>(word & kPointerMask); }
std::uint64_t tagged(Node* p, std::uint64_t tag) {
  return reinterpret_cast<std::uintptr_t>(p) | (tag << kPointerBits);
}

void aba(Aba kind) {
  const std::uint64_t step = kind == Aba::tagged_recycle ? 1 : 0;
  atomic<std::uint64_t> top(0, "top");
  {
    Node* b = make<Node>(2, nullptr);
    top.store(tagged(make<Node>(1, b), 0), rlx);
  }
  auto pop = [&]() -> Node* {
    std::uint64_t old = top.load(acq);
    for (cas_loop loop; pointer(old) != nullptr &&
                        !top.compare_exchange_weak(
                            old, tagged(pointer(old)->next.load(rlx), (old >> kPointerBits) + step), acq, acq);
         loop.retry()) {
    }
    return pointer(old);
  };
  auto push = [&](Node* n) {
    std::uint64_t old = top.load(rlx);
    cas_loop loop;
    do {
      n->next.store(pointer(old), rlx);
    } while (!top.compare_exchange_weak(old, tagged(n, (old >> kPointerBits) + step), rel, rlx) && loop.retry());
  };
  Node* t1_took = nullptr;
  Node* t2_kept = nullptr;
  thread t1([&] {
    t1_took = pop();
    if (kind == Aba::untagged_reuse && t1_took) {
      (void)t1_took->value.get();
      destroy(t1_took);
      t1_took = nullptr;
    }
  });
  thread t2([&] {
    Node* a = pop();
    Node* b = pop();
    if (kind == Aba::untagged_reuse) {
      destroy(a);
      push(make<Node>(3, nullptr));
      destroy(b);
    } else {
      if (a) push(a);
      t2_kept = b;
    }
  });
  t1.join();
  t2.join();
  // The stack first: after the ABA the B on it is T2's B.
  while (Node* n = pop()) destroy(n);
  destroy(t1_took);
  destroy(t2_kept);
}

}  // namespace

ATOMCHECK_PROGRAM("hp-stack", "Treiber stack with hazard pointers: publish, re-read head, retire and scan") {
  hp_stack(Hp::correct);
}
ATOMCHECK_PROGRAM("hp-stack-unvalidated",
                  "hazard pointers validated by reading the hazard back, not head: a node freed before the "
                  "hazard is read (use after free)") {
  hp_stack(Hp::unvalidated);
}
ATOMCHECK_PROGRAM("hp-stack-leak", "hazard-pointer stack whose pop never retires its node (leak)") {
  hp_stack(Hp::leak);
}
ATOMCHECK_PROGRAM("ebr-stack", "Treiber stack with epoch-based reclamation: a node freed two epochs after its retire") {
  ebr_stack(Ebr::correct);
}
ATOMCHECK_PROGRAM("ebr-stack-early-free",
                  "epoch-based reclamation freeing one epoch after the retire, before the grace period ends "
                  "(use after free)") {
  ebr_stack(Ebr::early_free);
}
ATOMCHECK_PROGRAM("refcount", "intrusive reference count, fetch_sub(acq_rel): the last owner deletes") {
  refcount(Rc::correct);
}
ATOMCHECK_PROGRAM("refcount-relaxed",
                  "reference count decremented relaxed: the delete is unordered with the other owner's update "
                  "(stale payload under rc11; a data race under every model)") {
  refcount(Rc::relaxed);
}
ATOMCHECK_PROGRAM("refcount-premature",
                  "a thread drops its reference, then reads the payload (use after free under every model)") {
  refcount(Rc::premature);
}
ATOMCHECK_PROGRAM("refcount-double-free",
                  "reference count tested by a load after the decrement: both owners delete (double free)") {
  refcount(Rc::double_free);
}
ATOMCHECK_PROGRAM("treiber-untagged-recycle",
                  "untagged Treiber stack, a popped node pushed again: ABA, a node owned twice (double free)") {
  aba(Aba::untagged_recycle);
}
ATOMCHECK_PROGRAM("treiber-tagged-recycle",
                  "Treiber stack with a pointer+counter head, a popped node pushed again: no ABA") {
  aba(Aba::tagged_recycle);
}
ATOMCHECK_PROGRAM("treiber-untagged-reuse",
                  "untagged Treiber stack freeing popped nodes: use after free; with reuse_freed, the ABA "
                  "through a freed node's reused block") {
  aba(Aba::untagged_reuse);
}
