// The classic small programs every model checker starts with: the litmus tests SB, MP,
// LB, IRIW and 2+2W (outcomes recorded as r0, r1, ... and final memory values), a lost
// update on an unlocked x++, a lock-order inversion, and a correctly locked counter.
// Each runs as `atomcheck run NAME`. Litmus registers are recorded with outcome(), so
// the set of reachable outcomes is the answer (under SC and, with --memory tso, x86-TSO).
#include <array>
#include "scheduler/runtime/api.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::check;
using atomcheck::mutex;
using atomcheck::outcome;
using atomcheck::thread;

constexpr auto rlx = std::memory_order_relaxed;

}  // namespace

// Store buffering (Dekker's core): under SC at least one thread sees the other's store;
// under TSO both may read 0.
ATOMCHECK_PROGRAM("sb", "store buffering: x=1; r0=y || y=1; r1=x (TSO allows r0=r1=0)") {
  atomic<int> x(0, "x"), y(0, "y");
  thread t1([&] {
    x.store(1, rlx);
    outcome("r0", y.load(rlx));
  });
  thread t2([&] {
    y.store(1, rlx);
    outcome("r1", x.load(rlx));
  });
  t1.join();
  t2.join();
}

// Store buffering with mfence between the store and the load: SC outcomes only, also
// under TSO.
ATOMCHECK_PROGRAM("sb+fences", "store buffering with seq_cst fences: r0=r1=0 unreachable") {
  atomic<int> x(0, "x"), y(0, "y");
  thread t1([&] {
    x.store(1, rlx);
    atomcheck::atomic_thread_fence(std::memory_order_seq_cst);
    outcome("r0", y.load(rlx));
  });
  thread t2([&] {
    y.store(1, rlx);
    atomcheck::atomic_thread_fence(std::memory_order_seq_cst);
    outcome("r1", x.load(rlx));
  });
  t1.join();
  t2.join();
}

// Message passing: seeing the flag implies seeing the data (SC and TSO).
ATOMCHECK_PROGRAM("mp", "message passing: x=1; y=1 || r0=y; r1=x (r0=1, r1=0 unreachable)") {
  atomic<int> x(0, "x"), y(0, "y");
  thread t1([&] {
    x.store(1, rlx);
    y.store(1, rlx);
  });
  thread t2([&] {
    outcome("r0", y.load(rlx));
    outcome("r1", x.load(rlx));
  });
  t1.join();
  t2.join();
}

// Message passing of an atomic datum through a relaxed flag: no data race (both are
// atomics), and SC and TSO never show the flag without the data; RC11 does (nothing
// orders the reader's two loads after the writer's two stores), so the check fails under
// --memory rc11 only. With release on the flag store and acquire on its load it passes.
ATOMCHECK_PROGRAM("mp-relaxed", "message passing with relaxed atomics: the stale datum fails under rc11 only") {
  atomic<int> data(0, "data"), flag(0, "flag");
  thread t1([&] {
    data.store(42, rlx);
    flag.store(1, rlx);
  });
  thread t2([&] {
    if (flag.load(rlx) == 1) check(data.load(rlx) == 42, "saw the flag but not the data");
  });
  t1.join();
  t2.join();
}

// A ring of four release/acquire message passings (the relaxed-heavy shape of the RC11
// speed figure, bench/rc11_speed.sh): thread i publishes data[i] (relaxed) with flag[i]
// (release) and reads its neighbour's flag (acquire), then data (relaxed), which must be
// published. Correct under every model; under RC11 each relaxed load may read stale
// values wherever the orders allow it, which is what the choices cost.
ATOMCHECK_PROGRAM("mp-ring-4", "a ring of 4 release/acquire message passings: every published datum is seen") {
  constexpr int n = 4;
  std::array<atomic<int>, n> data{atomic<int>(0, "d0"), atomic<int>(0, "d1"), atomic<int>(0, "d2"), atomic<int>(0, "d3")};
  std::array<atomic<int>, n> flag{atomic<int>(0, "f0"), atomic<int>(0, "f1"), atomic<int>(0, "f2"), atomic<int>(0, "f3")};
  auto body = [&](int i) {
    data[static_cast<std::size_t>(i)].store(1, rlx);
    flag[static_cast<std::size_t>(i)].store(1, std::memory_order_release);
    const auto j = static_cast<std::size_t>((i + 1) % n);
    if (flag[j].load(std::memory_order_acquire) == 1) check(data[j].load(rlx) == 1, "saw a flag without its datum");
  };
  thread t0(body, 0), t1(body, 1), t2(body, 2), t3(body, 3);
  t0.join();
  t1.join();
  t2.join();
  t3.join();
}

// Load buffering: r0=r1=1 would need a load to see a later store (never under SC/TSO).
ATOMCHECK_PROGRAM("lb", "load buffering: r0=x; y=1 || r1=y; x=1 (r0=r1=1 unreachable)") {
  atomic<int> x(0, "x"), y(0, "y");
  thread t1([&] {
    outcome("r0", x.load(rlx));
    y.store(1, rlx);
  });
  thread t2([&] {
    outcome("r1", y.load(rlx));
    x.store(1, rlx);
  });
  t1.join();
  t2.join();
}

// Independent reads of independent writes: the two readers agree on the order of the
// writes (multi-copy atomicity, SC and TSO).
ATOMCHECK_PROGRAM("iriw",
                  "independent reads of independent writes: readers never disagree on the "
                  "order of x=1 and y=1") {
  atomic<int> x(0, "x"), y(0, "y");
  thread w1([&] { x.store(1, rlx); });
  thread w2([&] { y.store(1, rlx); });
  thread r1([&] {
    outcome("r0", x.load(rlx));
    outcome("r1", y.load(rlx));
  });
  thread r2([&] {
    outcome("r2", y.load(rlx));
    outcome("r3", x.load(rlx));
  });
  w1.join();
  w2.join();
  r1.join();
  r2.join();
}

// 2+2W: x=1; y=2 || y=1; x=2. The final values x=1, y=1 would need a cycle in the
// coherence order (unreachable under SC and TSO).
ATOMCHECK_PROGRAM("2+2w", "two writers, two variables: final x=1 and y=1 unreachable") {
  atomic<int> x(0, "x"), y(0, "y");
  thread t1([&] {
    x.store(1, rlx);
    y.store(2, rlx);
  });
  thread t2([&] {
    y.store(1, rlx);
    x.store(2, rlx);
  });
  t1.join();
  t2.join();
  outcome("x", x.load(rlx));
  outcome("y", y.load(rlx));
}

// The lost update: two threads increment x with a separate load and store and no lock.
ATOMCHECK_PROGRAM("lost-update", "x++ from two threads without a lock: an update can be lost") {
  atomic<int> x(0, "x");
  auto inc = [&] {
    atomcheck::atomic_block b("increment");
    int v = x.load();
    x.store(v + 1);
  };
  thread t1(inc), t2(inc);
  t1.join();
  t2.join();
  check(x.load() == 2, "lost update: x != 2 after two increments");
}

// Lock-order inversion: T1 takes a then b, T2 takes b then a; some schedules deadlock.
ATOMCHECK_PROGRAM("lock-inversion", "two mutexes taken in opposite orders: deadlock") {
  mutex a("a"), b("b");
  atomic<int> x(0, "x");
  thread t1([&] {
    std::lock_guard<mutex> ga(a);
    std::lock_guard<mutex> gb(b);
    x.fetch_add(1);
  });
  thread t2([&] {
    std::lock_guard<mutex> gb(b);
    std::lock_guard<mutex> ga(a);
    x.fetch_add(1);
  });
  t1.join();
  t2.join();
}

// The fixed counter: x++ under a mutex never loses an update.
ATOMCHECK_PROGRAM("locked-counter", "x++ from two threads under a mutex: always 2") {
  mutex m("m");
  atomcheck::shared<int> x(0, "x");
  auto inc = [&] {
    std::lock_guard<mutex> g(m);
    atomcheck::atomic_block b("increment");
    x = x + 1;
  };
  thread t1(inc), t2(inc);
  t1.join();
  t2.join();
  check(x == 2, "lost update under a mutex");
}

// A spin loop without this_thread::yield(): after --spin-threshold identical reads the
// run says so and takes the loop for a wait (exit 3: the result rests on that); with
// --spin-threshold 0 the schedule where the spinner runs forever reaches the step bound.
ATOMCHECK_PROGRAM("spin", "a spin loop without yield(): some schedule never terminates") {
  atomic<int> flag(0, "flag");
  thread t([&] {
    while (flag.load(rlx) == 0) {
    }
  });
  flag.store(1, rlx);
  t.join();
}

// The same loop with this_thread::yield(): an iteration that repeats the previous one
// blocks the spinner, so the search is finite, and DPOR exact.
ATOMCHECK_PROGRAM("spin-yield", "a spin loop with yield(): finite search, always terminates") {
  atomic<int> flag(0, "flag");
  thread t([&] {
    while (flag.load(rlx) == 0) atomcheck::this_thread::yield();
  });
  flag.store(1, rlx);
  t.join();
}
