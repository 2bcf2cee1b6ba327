// The naive judge of data races (tests only), written from RC11's definitions (Lahav et
// al., PLDI 2017) and sharing no code with scheduler/race.cpp: given one execution's
// events in the order they ran, with memory orders and the values read and written, it
// builds reads-from (every write of a variable writes a distinct value), program order,
// synchronises-with (thread start and join, unlock to later lock, release sequences read
// by acquire reads, with fences) as a boolean matrix, closes it transitively
// (Floyd-Warshall) and lists the racing pairs of non-atomic accesses.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

namespace atomcheck::testing_support {

struct JudgeEvent {
  enum Kind { read, write, rmw, fence, lock, unlock, spawn, join } kind = read;
  int thread = 0;
  int target = 0;       // variable; lock; child thread of spawn and join
  bool atomic = false;  // accesses: an atomic<T> (else a shared<T>)
  std::memory_order mo = std::memory_order_relaxed;
  std::int64_t value = 0;  // read: the value read; write: the value written; rmw: written
  std::int64_t old = 0;    // rmw: the value read
  bool init = false;       // a variable's initial value (a write by its creator)
};

// Every pair (a, b), a < b, of non-atomic accesses to one variable by different threads,
// one a write, with neither a hb b nor b hb a. Throws std::logic_error when a read's
// value was written by no write of its variable.
std::vector<std::pair<std::size_t, std::size_t>> racing_pairs(const std::vector<JudgeEvent>& events);

}  // namespace atomcheck::testing_support
