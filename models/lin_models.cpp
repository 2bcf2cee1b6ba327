// The queues of models/lin_structures.hpp as programs for the panel's `linearizability`
// checker: each call is wrapped in an atomcheck::lin::operation block here (the structures
// declare nothing themselves, so that check_scenario can record the same calls).
//
// vyukov-queue: Vyukov's bounded MPMC queue, `T1: enqueue(1) dequeue() | T2: enqueue(2)`.
// T2 claims cell 0 (its CAS on enqueue_pos) and stalls before publishing it; T1's enqueue
// takes cell 1 and returns; T1's dequeue finds cell 0 unpublished and answers empty,
// although T1's own enqueue(1) returned before it: no FIFO order gives that. The program
// asserts nothing; only the history shows it, under sc, tso and rc11 alike.
//
// spsc-ring-4: a correct SPSC ring of 4 slots, producer `enqueue(1) enqueue(2)`, consumer
// `dequeue() dequeue()`, and the main thread drains it with two dequeues after the joins,
// so that a lost or duplicated element is a wrong result. Linearizable under every model.
#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/lin_test.hpp"
#include "models/lin_structures.hpp"

namespace {

using atomcheck::check;
using atomcheck::thread;
using atomcheck::lin::operation;

template <class Queue>
void enqueue(Queue& q, int v) {
  operation op("queue", "enqueue", v);
  check(q.enqueue(v), "queue full");  // the spec's queue is unbounded: the models never fill theirs
}

template <class Queue>
std::int64_t dequeue(Queue& q) {
  operation op("queue", "dequeue");
  return op.returns(q.dequeue());
}

}  // namespace

ATOMCHECK_PROGRAM("vyukov-queue",
                  "Vyukov's bounded MPMC queue: a dequeue answers empty behind a stalled enqueue "
                  "(only the linearizability checker sees it)") {
  atomcheck::models::VyukovQueue<4> q;
  thread t1([&] {
    enqueue(q, 1);
    dequeue(q);
  });
  thread t2([&] { enqueue(q, 2); });
  t1.join();
  t2.join();
}

ATOMCHECK_PROGRAM("spsc-ring-4", "SPSC ring of 4 slots: producer enqueues 1, 2; consumer dequeues twice; main drains") {
  atomcheck::models::SpscRing<4> q;
  thread producer([&] {
    enqueue(q, 1);
    enqueue(q, 2);
  });
  thread consumer([&] {
    dequeue(q);
    dequeue(q);
  });
  producer.join();
  consumer.join();
  dequeue(q);
  dequeue(q);
}
