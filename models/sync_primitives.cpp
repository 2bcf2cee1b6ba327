// Data-structure shapes built on the std synchronisation that scheduler/sync.hpp
// models, each in a correct and a broken variant with a known answer under SC and TSO:
// a semaphore-bounded pool, a barrier between two phases, a readers-writer cache, a
// blocking queue on one condition variable.
#include <mutex>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/lin_test.hpp"
#include "scheduler/runtime/sync.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::check;
using atomcheck::shared;
using atomcheck::thread;

// Three users share two slots; the semaphore holds the permits. The broken pool hands
// out three permits.
void pool(int permits) {
  atomcheck::counting_semaphore<3> sem(permits, "slots");
  atomic<int> in_use(0, "in_use");
  auto user = [&] {
    sem.acquire();
    check(in_use.fetch_add(1) < 2, "more users than slots");
    in_use.fetch_sub(1);
    sem.release();
  };
  thread a(user), b(user), c(user);
  a.join();
  b.join();
  c.join();
}

// Two workers each fill their half, meet at the barrier, then read the other half, and
// meet once more (the barrier resets). The broken one reads before the barrier.
void phases(bool read_early) {
  atomcheck::barrier sync(2, "phase");
  atomic<int> half0(0, "half0"), half1(0, "half1");
  auto worker = [&](atomic<int>& mine, atomic<int>& other) {
    mine.store(1);
    int seen = read_early ? other.load() : -1;
    sync.arrive_and_wait();
    if (!read_early) seen = other.load();
    check(seen == 1, "read the other half before its phase ended");
    sync.arrive_and_wait();  // a second phase: the barrier resets
  };
  thread t1([&] { worker(half0, half1); }), t2([&] { worker(half1, half0); });
  t1.join();
  t2.join();
}

// A cache entry (key, value) updated by a writer in two stores and read by two readers,
// who must see a matching pair. The broken writer takes the lock shared.
void cache(bool writer_shared) {
  atomcheck::shared_mutex rw("rw");
  atomic<int> key(0, "key"), value(0, "value");
  thread w([&] {
    if (writer_shared) rw.lock_shared(); else rw.lock();
    key.store(1);
    value.store(10);
    if (writer_shared) rw.unlock_shared(); else rw.unlock();
  });
  auto reader = [&] {
    rw.lock_shared();
    const int k = key.load(), v = value.load();
    check(v == 10 * k, "a reader saw a key without its value");
    rw.unlock_shared();
  };
  thread r1(reader), r2(reader);
  w.join();
  r1.join();
  r2.join();
}

// A blocking queue of capacity 1 on one mutex and one condition variable: a producer puts
// 1 and 2, a consumer must take 1 then 2. The broken queue has the classic lost wake-up:
// the producer publishes the item outside the lock (then notifies), and the consumer
// waits with `if` instead of `while`. With spurious wake-ups (the default) the consumer's
// wait returns before the item is there; without them (--no-spurious-wakeups) the notify
// can come between the consumer's check and its wait, and both threads then wait forever.
void blocking_queue(bool broken) {
  atomcheck::mutex m("m");
  atomcheck::condition_variable cv("cv");
  shared<int> slot(0, "slot"), full(0, "full");
  thread producer([&] {
    for (int item = 1; item <= 2; ++item) {
      atomcheck::lin::operation op("queue", "enqueue", item);
      std::unique_lock<atomcheck::mutex> lk(m);
      cv.wait(lk, [&] { return full == 0; });
      if (broken) lk.unlock();
      slot = item;
      full = 1;
      if (!broken) lk.unlock();
      cv.notify_all();
    }
  });
  thread consumer([&] {
    for (int want = 1; want <= 2; ++want) {
      // The item is taken inside the dequeue operation and checked after it returned, so
      // that a wrong item is a wrong result in the history too. A blocking take never finds
      // the queue empty: one that does returns whatever the slot holds, a value the queue
      // does not have.
      int was_full = 0, got = 0;
      {
        atomcheck::lin::operation op("queue", "dequeue");
        std::unique_lock<atomcheck::mutex> lk(m);
        if (broken) {
          if (full == 0) cv.wait(lk);
        } else {
          cv.wait(lk, [&] { return full == 1; });
        }
        was_full = full;
        got = slot;
        full = 0;
        lk.unlock();
        cv.notify_all();
        op.returns(got);
      }
      check(was_full == 1, "took from an empty queue");
      check(got == want, "items lost or out of order");
    }
  });
  producer.join();
  consumer.join();
}

}  // namespace

ATOMCHECK_PROGRAM("cv-queue", "blocking queue, capacity 1, one condition_variable: items arrive in order") {
  blocking_queue(false);
}
ATOMCHECK_PROGRAM("cv-queue-broken", "the same queue publishing outside the lock and waiting with if: lost wake-up") {
  blocking_queue(true);
}
ATOMCHECK_PROGRAM("sem-pool", "three users, two slots, a counting_semaphore of 2: never more users than slots") {
  pool(2);
}
ATOMCHECK_PROGRAM("sem-pool-broken", "the same pool with 3 permits: a third user gets in") { pool(3); }
ATOMCHECK_PROGRAM("barrier-phase", "fill a half, barrier, read the other half: always filled") { phases(false); }
ATOMCHECK_PROGRAM("barrier-phase-broken", "reads the other half before the barrier: may see it empty") {
  phases(true);
}
ATOMCHECK_PROGRAM("rw-cache", "a shared_mutex cache: readers see a key with its value") { cache(false); }
ATOMCHECK_PROGRAM("rw-cache-broken", "the writer takes the lock shared: a reader sees a half update") {
  cache(true);
}
