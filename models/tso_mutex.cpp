// Programs whose correctness depends on the memory model: Dekker's and Peterson's mutual
// exclusion (correct under SC, broken under x86-TSO by store buffering, repaired by one
// mfence per flag store), and the task pool of Fig. 1 of "Serializability for TSO with
// non-atomic writes" (every SC execution conflict serializable; under TSO both ends can
// take the same element).
//
// Mutual exclusion is observed through memory the explorer sees: a thread entering the
// critical section claims it with a locked exchange (x86 xchg: it reaches memory at once,
// so store buffering cannot hide it), yields inside, and checks that the claim is still
// its own. A ghost counter changed natively between visible operations would be invisible
// to the reduction: under TSO's rf+co equivalence two threads' buffered stores and reads
// commute, so nothing would order one thread's entry against the other's stay inside.
#include <array>

#include "scheduler/runtime/api.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::atomic_block;
using atomcheck::check;
using atomcheck::shared;
using atomcheck::thread;
constexpr auto relaxed = std::memory_order_relaxed;

struct CriticalSection {
  atomic<int> owner{0, "owner"};  // 1 + the thread that last entered
  shared<int> data{0, "data"};

  // A shared read in the middle, so another thread may be scheduled while this one is
  // inside.
  void run(int i) {
    (void)owner.exchange(i + 1);
    (void)data.get();
    check(owner.load(std::memory_order_relaxed) == i + 1,
          "mutual exclusion violated: two threads in the critical section");
  }
};

void mfence() { atomcheck::atomic_thread_fence(std::memory_order_seq_cst); }

// Spin loops are written as awaits (spin_until): a spin iteration that fails only reads,
// so every execution that spins is, for safety, equivalent to one in which the thread
// reads once, later, and succeeds.
//
// Dekker's algorithm with the turn variable. Stores are plain x86 MOVs (relaxed: they sit
// in the store buffer under TSO); the fences, when present, follow each raising of the
// own flag, before the other flag is read: the store->load pair TSO reorders.
void dekker(int i, std::array<atomic<int>, 2>& flag, atomic<int>& turn, CriticalSection& cs,
            bool fenced) {
  const int j = 1 - i;
  flag[i].store(1, relaxed);
  if (fenced) mfence();
  for (;;) {
    // While flag[j] is up and it is i's turn, an iteration only reads: await the flag
    // going down or the turn passing to j. In j's turn: back off, await the turn, raise
    // the flag again.
    bool back_off = false;
    atomcheck::spin_until([&] {
      if (flag[j].load(relaxed) == 0) return true;
      back_off = turn.load(relaxed) != i;
      return back_off;
    });
    if (!back_off) break;
    flag[i].store(0, relaxed);
    atomcheck::spin_until([&] { return turn.load(relaxed) == i; });
    flag[i].store(1, relaxed);
    if (fenced) mfence();
  }
  cs.run(i);
  turn.store(j, relaxed);
  flag[i].store(0, relaxed);
}

void run_dekker(bool fenced) {
  std::array<atomic<int>, 2> flag{atomic<int>(0, "flag0"), atomic<int>(0, "flag1")};
  atomic<int> turn(0, "turn");
  CriticalSection cs;
  thread t0([&] { dekker(0, flag, turn, cs, fenced); });
  thread t1([&] { dekker(1, flag, turn, cs, fenced); });
  t0.join();
  t1.join();
}

// Peterson's algorithm: the fence goes after both stores (flag, then turn) and before
// the loads of the spin condition.
void peterson(int i, std::array<atomic<int>, 2>& flag, atomic<int>& turn, CriticalSection& cs,
              bool fenced) {
  const int j = 1 - i;
  flag[i].store(1, relaxed);
  turn.store(j, relaxed);
  if (fenced) mfence();
  // await !(flag[j] && turn == j)
  atomcheck::spin_until([&] { return !(flag[j].load(relaxed) != 0 && turn.load(relaxed) == j); });
  cs.run(i);
  flag[i].store(0, relaxed);
}

void run_peterson(bool fenced) {
  std::array<atomic<int>, 2> flag{atomic<int>(0, "flag0"), atomic<int>(0, "flag1")};
  atomic<int> turn(0, "turn");
  CriticalSection cs;
  thread t0([&] { peterson(0, flag, turn, cs, fenced); });
  thread t1([&] { peterson(1, flag, turn, cs, fenced); });
  t0.join();
  t1.join();
}

}  // namespace

ATOMCHECK_PROGRAM("tso-dekker", "Dekker's mutual exclusion without fences: holds under SC, fails under TSO") {
  run_dekker(false);
}
ATOMCHECK_PROGRAM("tso-dekker-fenced", "Dekker's mutual exclusion with an mfence after each flag store: holds under TSO") {
  run_dekker(true);
}
ATOMCHECK_PROGRAM("tso-peterson", "Peterson's mutual exclusion without fences: holds under SC, fails under TSO") {
  run_peterson(false);
}
ATOMCHECK_PROGRAM("tso-peterson-fenced", "Peterson's mutual exclusion with an mfence before the spin loop: holds under TSO") {
  run_peterson(true);
}

// Fig. 1 of the TSO-serializability paper (the figure is lost from the text; rebuilt
// from its prose). A pool of tasks between `head` and `tail` (empty when head = tail);
// procedure (a) takes from the head, (b) from the tail. Each first moves its end in one
// transaction (interference tolerated afterwards), then, in a second transaction, checks
// that the pool still holds its element and takes it (reads the task, marks the slot).
// Under SC whichever thread checks last sees the other's move, so at most one takes the
// last element; under TSO both moves can sit in store buffers while both checks pass
// (the store-buffering shape), and both threads take pool[0].
ATOMCHECK_PROGRAM("tso-task-pool",
                  "TSO paper Fig. 1 task pool: SC executions serializable; under TSO both threads take the same element") {
  shared<int> head(0, "head"), tail(1, "tail");
  std::array<shared<int>, 2> pool{shared<int>(42, "pool0"), shared<int>(43, "pool1")};
  int took_a = -1, took_b = -1;  // ghost: which slot each thread took
  thread a([&] {
    int h;
    {
      atomic_block claim("take_head.claim");
      h = head;
      head = h + 1;
    }
    atomic_block take("take_head.take");
    if (h + 1 <= tail) {
      int task = pool[static_cast<std::size_t>(h)];
      pool[static_cast<std::size_t>(h)] = -1;  // mark the slot taken
      (void)task;
      took_a = h;
    }
  });
  thread b([&] {
    int t;
    {
      atomic_block claim("take_tail.claim");
      t = tail - 1;
      tail = t;
    }
    atomic_block take("take_tail.take");
    if (head <= t) {
      int task = pool[static_cast<std::size_t>(t)];
      pool[static_cast<std::size_t>(t)] = -1;
      (void)task;
      took_b = t;
    }
  });
  a.join();
  b.join();
  check(!(took_a >= 0 && took_a == took_b), "both threads took the same pool element");
}
