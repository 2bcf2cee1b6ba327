// Two bounded queues templated on their primitives (atomcheck::model_types under the
// harness, atomcheck::std_types in production), for linearizability tests: Dmitry Vyukov's
// bounded MPMC queue and a single-producer single-consumer ring. Neither declares its
// operations: a panel program wraps each call in an atomcheck::lin::operation block
// (models/lin_models.cpp), and check_scenario(s) records the calls itself.
//
// VyukovQueue is not linearizable as a FIFO queue: an enqueue that claimed a cell (its CAS
// on enqueue_pos) and has not yet published it hides every later cell, so a dequeue after
// another enqueue returned may answer empty. `T1: enqueue(1) dequeue() | T2: enqueue(2)`:
// T2 claims cell 0 and stalls, T1 fills cell 1, and T1's dequeue finds cell 0 unpublished
// and answers empty, although its own enqueue(1) returned before it was called. Every
// memory model (sc, tso, rc11) has that execution. SpscRing is linearizable with one
// producer and one consumer.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "scheduler/runtime/api.hpp"
#include "checkers/linearizability.hpp"

namespace atomcheck::models {

// Dmitry Vyukov's bounded MPMC queue (1024cores.net, "Bounded MPMC queue"): cell i's
// `sequence` is i when free for the enqueue at position i, pos + 1 once that enqueue
// published its value, and pos + Capacity once the dequeue at pos freed it for the next
// lap. Positions advance by a relaxed CAS in a retry loop; sequence loads acquire and
// stores release, which publish the value (a plain shared<T>) from enqueuer to dequeuer
// and back. enqueue returns false when full, dequeue kNone when empty.
template <std::size_t Capacity, class Types = atomcheck::model_types>
class VyukovQueue {
  static_assert(Capacity >= 2 && (Capacity & (Capacity - 1)) == 0, "a power of two, at least 2");
  static constexpr std::int64_t kMask = static_cast<std::int64_t>(Capacity) - 1;
  static constexpr auto rlx = std::memory_order_relaxed;
  static constexpr auto acq = std::memory_order_acquire;
  static constexpr auto rel = std::memory_order_release;

 public:
  // Each cell's sequence starts at its index as it is built: no store, so the search has no
  // step (and under TSO no buffered store) before the threads start.
  VyukovQueue() : cells_(make_cells(std::make_index_sequence<Capacity>{})) {
    Types::name(enqueue_pos_, "enqueue_pos");
    Types::name(dequeue_pos_, "dequeue_pos");
    for (std::size_t i = 0; i < Capacity; ++i) {
      Types::name(cells_[i].sequence, "sequence" + std::to_string(i));
      Types::name(cells_[i].value, "value" + std::to_string(i));
    }
  }

  bool enqueue(int v) {
    std::int64_t pos = enqueue_pos_.load(rlx);
    Cell* cell = nullptr;
    for (typename Types::cas_loop loop;; loop.retry()) {
      cell = &cells_[static_cast<std::size_t>(pos & kMask)];
      const std::int64_t seq = cell->sequence.load(acq);
      const std::int64_t dif = seq - pos;
      if (dif == 0) {
        if (loop.compare_exchange_weak(enqueue_pos_, pos, pos + 1, rlx, rlx)) break;  // pos reloaded on failure
      } else if (dif < 0) {
        return false;  // the cell still holds the value of the previous lap: full
      } else {
        pos = enqueue_pos_.load(rlx);  // another enqueue took pos
      }
    }
    cell->value = v;
    cell->sequence.store(pos + 1, rel);
    return true;
  }

  std::int64_t dequeue() {
    std::int64_t pos = dequeue_pos_.load(rlx);
    Cell* cell = nullptr;
    for (typename Types::cas_loop loop;; loop.retry()) {
      cell = &cells_[static_cast<std::size_t>(pos & kMask)];
      const std::int64_t seq = cell->sequence.load(acq);
      const std::int64_t dif = seq - (pos + 1);
      if (dif == 0) {
        if (loop.compare_exchange_weak(dequeue_pos_, pos, pos + 1, rlx, rlx)) break;
      } else if (dif < 0) {
        return atomcheck::lin::kNone;  // the cell at pos is not published (yet): empty
      } else {
        pos = dequeue_pos_.load(rlx);  // another dequeue took pos
      }
    }
    const int v = cell->value;
    cell->sequence.store(pos + kMask + 1, rel);
    return v;
  }

 private:
  struct Cell {
    explicit Cell(std::int64_t index) : sequence(index), value(0) {}
    typename Types::template atomic<std::int64_t> sequence;
    typename Types::template shared<int> value;
  };
  template <std::size_t... I>
  static std::array<Cell, Capacity> make_cells(std::index_sequence<I...>) {
    return {Cell(static_cast<std::int64_t>(I))...};
  }
  std::array<Cell, Capacity> cells_;
  typename Types::template atomic<std::int64_t> enqueue_pos_{0}, dequeue_pos_{0};
};

// A single-producer single-consumer ring: the producer owns `tail`, the consumer `head`.
// The producer writes the slot, then publishes it with tail (release), which the consumer
// reads with acquire; the consumer reads the slot, then frees it with head (release), which
// the producer reads with acquire before reusing it. enqueue returns false when full,
// dequeue kNone when empty. Correct only with one producer thread and one consumer thread.
template <std::size_t Capacity, class Types = atomcheck::model_types>
class SpscRing {
  static_assert(Capacity >= 1);
  static constexpr auto rlx = std::memory_order_relaxed;
  static constexpr auto acq = std::memory_order_acquire;
  static constexpr auto rel = std::memory_order_release;
  static constexpr std::int64_t kCapacity = static_cast<std::int64_t>(Capacity);

 public:
  SpscRing() {
    Types::name(head_, "head");
    Types::name(tail_, "tail");
    for (std::size_t i = 0; i < Capacity; ++i) Types::name(slots_[i], "slot" + std::to_string(i));
  }

  bool enqueue(int v) {
    const std::int64_t t = tail_.load(rlx);  // the producer's own index
    if (t - head_.load(acq) == kCapacity) return false;
    slots_[static_cast<std::size_t>(t % kCapacity)] = v;
    tail_.store(t + 1, rel);
    return true;
  }

  std::int64_t dequeue() {
    const std::int64_t h = head_.load(rlx);  // the consumer's own index
    if (tail_.load(acq) == h) return atomcheck::lin::kNone;
    const int v = slots_[static_cast<std::size_t>(h % kCapacity)];
    head_.store(h + 1, rel);
    return v;
  }

 private:
  typename Types::template shared<int> slots_[Capacity]{};
  typename Types::template atomic<std::int64_t> head_{0}, tail_{0};
};

}  // namespace atomcheck::models
