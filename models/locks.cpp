// Spin locks from the textbook, as models: test-and-set, test-and-test-and-set, a ticket
// lock and Lamport's bakery (with and without the fences it needs under TSO), plus a
// broken "check then set" lock. Each guards a plain shared counter incremented by two
// threads inside an atomic block "critical"; mutual exclusion is checked twice: a claim
// of the section that must still be the thread's own when it leaves, and the final
// counter value (a lost update). As objects, the locks are mutexes: each thread's
// acquisition is an operation lock() and its release an operation unlock()
// (atomcheck::lin::operation), so the linearizability checker sees two critical sections
// overlap as two locks without an unlock between them.
// Spin loops whose failed iterations only read are spin_until() awaits: the search stays
// finite and every strategy, DPOR included, explores them exactly.
#include <algorithm>
#include <array>
#include <optional>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/lin_test.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::atomic_block;
using atomcheck::check;
using atomcheck::shared;
using atomcheck::thread;

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;

void mfence() { atomcheck::atomic_thread_fence(std::memory_order_seq_cst); }

// The protected state: a racy counter (read and write are separate steps), and the
// claim: a thread entering writes its id to `owner` with a locked exchange (it reaches
// memory at once) and checks on leaving that the claim is still its own. A ghost count
// kept natively was tried first: the reduction cannot see native state, so an assertion
// over it is not a function of the execution's class, and rf+co DPOR, which runs one
// execution per class, missed completed classes whose representative failed it.
struct Section {
  atomic<int> owner{0, "owner"};  // 1 + the thread that last entered
  shared<int> counter{0, "counter"};
  // Per thread: the lock() operation from the thread's start to its critical section,
  // then the unlock() operation from the section's end to the thread's end.
  std::array<std::optional<atomcheck::lin::operation>, 2> op;

  void enter_and_increment(int i) {
    op[i].reset();  // lock() returns: the thread is in
    enter_and_increment_locked(i);
    op[i].emplace("mutex", "unlock");
  }
  void enter_and_increment_locked(int i) {
    atomic_block b("critical");
    (void)owner.exchange(i + 1);
    counter += 1;
    check(owner.load(std::memory_order_relaxed) == i + 1,
          "mutual exclusion violated: two threads in the critical section");
  }
  void check_final() { check(counter.get() == 2, "lost update: counter != 2"); }
};

// Runs `body(i)` in two threads, then checks the counter.
template <class Body>
void two_threads(Section& s, Body body) {
  thread t1([&] {
    s.op[0].emplace("mutex", "lock");
    body(0);
    s.op[0].reset();
  });
  thread t2([&] {
    s.op[1].emplace("mutex", "lock");
    body(1);
    s.op[1].reset();
  });
  t1.join();
  t2.join();
  s.check_final();
}

}  // namespace

ATOMCHECK_PROGRAM("lock-tas", "test-and-set spinlock (exchange) around a shared counter") {
  Section s;
  atomic<int> flag(0, "flag");
  two_threads(s, [&](int i) {
    // An assume() on the exchange: a thread that finds the lock taken stops, and the
    // executions where it tries after the release cover it (a yield() loop around the
    // exchange would do the same: a failed exchange writes back what it read).
    atomcheck::assume(flag.exchange(1, acq) == 0);
    s.enter_and_increment(i);
    flag.store(0, rel);
  });
}

// Broken on purpose: the test and the set are two steps, so both threads can see the
// lock free and both take it (fails under SC already).
ATOMCHECK_PROGRAM("lock-tas-broken", "spinlock whose test and set are separate steps: broken") {
  Section s;
  atomic<int> flag(0, "flag");
  two_threads(s, [&](int i) {
    atomcheck::spin_until([&] { return flag.load(acq) == 0; });
    flag.store(1, rlx);
    s.enter_and_increment(i);
    flag.store(0, rel);
  });
}

ATOMCHECK_PROGRAM("lock-ttas", "test-and-test-and-set spinlock around a shared counter") {
  Section s;
  atomic<int> flag(0, "flag");
  two_threads(s, [&](int i) {
    for (;;) {
      atomcheck::spin_until([&] { return flag.load(rlx) == 0; });
      if (flag.exchange(1, acq) == 0) break;
    }
    s.enter_and_increment(i);
    flag.store(0, rel);
  });
}

ATOMCHECK_PROGRAM("lock-ticket", "ticket lock (fetch_add ticket, spin on now-serving)") {
  Section s;
  atomic<int> next(0, "next"), serving(0, "serving");
  two_threads(s, [&](int i) {
    const int mine = next.fetch_add(1, rlx);
    atomcheck::spin_until([&] { return serving.load(acq) == mine; });
    s.enter_and_increment(i);
    serving.store(mine + 1, rel);
  });
}

namespace {

// Lamport's bakery for two threads. Under TSO the plain stores to choosing[i] and
// number[i] sit in the store buffer while the thread reads the other's entries (the
// store->load reordering); `fenced` puts an mfence after each of the two stores that a
// later read of the other thread's entries must not overtake. `yield_loops` waits with
// loops that call this_thread::yield() instead of spin_until awaits (issue 18's bakery).
void bakery(bool fenced, bool yield_loops = false) {
  Section s;
  std::array<atomic<int>, 2> choosing{atomic<int>(0, "choosing0"), atomic<int>(0, "choosing1")};
  std::array<atomic<int>, 2> number{atomic<int>(0, "number0"), atomic<int>(0, "number1")};
  two_threads(s, [&](int i) {
    const int j = 1 - i;
    choosing[i].store(1, rlx);
    if (fenced) mfence();
    const int mine = 1 + std::max(number[0].load(rlx), number[1].load(rlx));
    number[i].store(mine, rlx);
    choosing[i].store(0, rlx);
    if (fenced) mfence();
    const auto my_turn = [&] {
      const int theirs = number[j].load(rlx);
      return theirs == 0 || theirs > mine || (theirs == mine && j > i);
    };
    if (yield_loops) {
      while (choosing[j].load(rlx) != 0) atomcheck::this_thread::yield();
      while (!my_turn()) atomcheck::this_thread::yield();
    } else {
      atomcheck::spin_until([&] { return choosing[j].load(rlx) == 0; });
      atomcheck::spin_until(my_turn);
    }
    s.enter_and_increment(i);
    number[i].store(0, rlx);
  });
}

}  // namespace

ATOMCHECK_PROGRAM("lock-bakery", "Lamport's bakery, 2 threads, no fences (broken under TSO)") {
  bakery(false);
}

ATOMCHECK_PROGRAM("lock-bakery-fenced", "Lamport's bakery, 2 threads, mfence after choosing/number stores") {
  bakery(true);
}

ATOMCHECK_PROGRAM("lock-bakery-yield", "Lamport's bakery, fenced, waiting in yield() loops instead of spin_until") {
  bakery(true, true);
}
