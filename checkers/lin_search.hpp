// Internal to the linearizability deciders (linearizability.cpp, lin_wing_gong.cpp):
// what a search may spend and how it is counted, and a search of one part that can stop
// after a slice of steps and go on later, so that the parts of a split history are
// decided interleaved and an easy failing key is not hidden behind a hard one.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "linearizability.hpp"

namespace atomcheck::lin::detail {

// What a search may spend: steps, time, memo memory (shared by the parts searched at
// once), and a flag another part raises when it failed.
struct Budget {
  std::uint64_t max_steps = 0;  // counted against Answer::steps of the part
  bool timed = false;
  std::chrono::steady_clock::time_point deadline;
  std::uint64_t max_memory = 0;
  std::atomic<std::uint64_t>* memory = nullptr;
  const std::atomic<bool>* stop = nullptr;
};

inline constexpr const char* kStopped = "stopped: another part failed";

// Counts a search's steps and memo bytes against its budget; the slow checks (clock,
// shared memory, stop flag) run every 256 steps.
class Meter {
 public:
  Meter(const Budget& b, Answer& a) : b_(b), a_(a) {}
  ~Meter() { flush(); }
  Meter(const Meter&) = delete;
  Meter& operator=(const Meter&) = delete;
  // false when the search must stop (a.undecided says why).
  bool step() {
    if (++a_.steps > b_.max_steps) {
      a_.undecided = fmt::format("the linearizability search ran past its budget of {} steps", b_.max_steps);
      return false;
    }
    return (a_.steps & 255) != 0 || slow();
  }
  void grew(std::size_t bytes) { bytes_ += bytes; }
  const Budget& budget() const { return b_; }

 private:
  void flush() {
    if (b_.memory && bytes_) b_.memory->fetch_add(bytes_, std::memory_order_relaxed);
    total_ += bytes_;
    bytes_ = 0;
  }
  bool slow() {
    flush();
    if (b_.stop && b_.stop->load(std::memory_order_relaxed)) {
      a_.undecided = kStopped;
      return false;
    }
    if (b_.max_memory && (b_.memory ? b_.memory->load(std::memory_order_relaxed) : total_) > b_.max_memory) {
      a_.undecided =
          fmt::format("the linearizability search ran past its memory budget of {} MiB", b_.max_memory >> 20);
      return false;
    }
    if (b_.timed && std::chrono::steady_clock::now() > b_.deadline) {
      a_.undecided = "the linearizability search ran past its time limit";
      return false;
    }
    return true;
  }
  const Budget& b_;
  Answer& a_;
  std::uint64_t bytes_ = 0, total_ = 0;
};

// One part's search. run() goes on from where the last call stopped, for at most `slice`
// more steps; true when the part is decided or a budget ran out (`a` says which), false
// when the slice ended first.
class PartSearch {
 public:
  virtual ~PartSearch() = default;
  virtual bool run(Meter& meter, Answer& a, std::uint64_t slice) = 0;
};

// Wing and Gong's search with Lowe's memo (lin_wing_gong.cpp).
std::unique_ptr<PartSearch> make_wing_gong(const History& h, const std::vector<std::uint32_t>& ops, const Spec& spec);

}  // namespace atomcheck::lin::detail
