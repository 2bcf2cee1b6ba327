// Semaphores, latch, barrier, atomic_flag and shared_mutex with the std signatures,
// built from atomcheck::atomic and spin_until (issue 22, the part that needs no new
// scheduler primitive). Every wait is a spin_until await, so each is exact under dfs,
// dpor and optimal DPOR, SC and TSO, exactly as spin_until is (README "Waits"): a failed
// attempt only reads and blocks the thread for the rest of the execution, and the search
// explores the executions where it reads later writes instead. Under TSO every update is
// a locked read-modify-write (it drains the store buffer), as in the x86 mapping of the
// std implementations. In traces they show as the accesses of their counters, named
// after the object; a waiter nobody releases is a livelock report at the caller's line.
// Timed waits (try_acquire_for, ...) are a single try: time is not modelled, and "tried
// later and succeeded" is the schedule where the try comes after the release.
#pragma once

#include <chrono>
#include <climits>
#include <cstddef>
#include <source_location>
#include <string>
#include <string_view>

#include "api.hpp"

namespace atomcheck {

// std::counting_semaphore: a counter; acquire waits until it is positive and takes one.
template <std::ptrdiff_t LeastMaxValue = INT_MAX>
class counting_semaphore {
 public:
  using Loc = std::source_location;
  static constexpr std::ptrdiff_t max() noexcept { return LeastMaxValue; }

  explicit counting_semaphore(std::ptrdiff_t desired, std::string_view name = "semaphore")
      : count_(desired, name) {}
  counting_semaphore(const counting_semaphore&) = delete;
  counting_semaphore& operator=(const counting_semaphore&) = delete;

  void release(std::ptrdiff_t update = 1, Loc loc = Loc::current()) {
    const std::ptrdiff_t old = count_.fetch_add(update, std::memory_order_seq_cst, loc);
    check(update >= 0 && old + update <= max(), "counting_semaphore::release beyond max() or negative", loc);
  }
  void acquire(Loc loc = Loc::current()) {
    spin_until([&] { return take(loc); }, loc);
  }
  bool try_acquire(Loc loc = Loc::current()) { return take(loc); }
  template <class Rep, class Period>
  bool try_acquire_for(const std::chrono::duration<Rep, Period>&, Loc loc = Loc::current()) {
    return take(loc);
  }
  template <class Clock, class Duration>
  bool try_acquire_until(const std::chrono::time_point<Clock, Duration>&, Loc loc = Loc::current()) {
    return take(loc);
  }

 private:
  // One attempt: a read, then (when positive) a compare-exchange; a failed attempt
  // writes nothing, as spin_until requires.
  bool take(const Loc& loc) {
    std::ptrdiff_t c = count_.load(std::memory_order_seq_cst, loc);
    return c > 0 && count_.compare_exchange_strong(c, c - 1, std::memory_order_seq_cst, loc);
  }

  atomic<std::ptrdiff_t> count_;
};
using binary_semaphore = counting_semaphore<1>;

// std::latch: a single-use countdown.
class latch {
 public:
  using Loc = std::source_location;
  static constexpr std::ptrdiff_t max() noexcept { return PTRDIFF_MAX; }

  explicit latch(std::ptrdiff_t expected, std::string_view name = "latch") : count_(expected, name) {}
  latch(const latch&) = delete;
  latch& operator=(const latch&) = delete;

  void count_down(std::ptrdiff_t n = 1, Loc loc = Loc::current()) {
    const std::ptrdiff_t old = count_.fetch_sub(n, std::memory_order_seq_cst, loc);
    check(n >= 0 && old >= n, "latch::count_down below zero", loc);
  }
  bool try_wait(Loc loc = Loc::current()) const noexcept {
    return count_.load(std::memory_order_seq_cst, loc) == 0;
  }
  void wait(Loc loc = Loc::current()) const {
    spin_until([&] { return count_.load(std::memory_order_seq_cst, loc) == 0; }, loc);
  }
  void arrive_and_wait(std::ptrdiff_t n = 1, Loc loc = Loc::current()) {
    count_down(n, loc);
    wait(loc);
  }

 private:
  atomic<std::ptrdiff_t> count_;
};

// std::barrier without a completion function: arrive_and_wait blocks until the phase's
// expected number of threads arrived; the last one opens the next phase.
class barrier {
 public:
  using Loc = std::source_location;

  explicit barrier(std::ptrdiff_t expected, std::string_view name = "barrier")
      : expected_(expected, std::string(name) + ".expected"),
        left_(expected, std::string(name) + ".left"),
        phase_(0, std::string(name) + ".phase") {}
  barrier(const barrier&) = delete;
  barrier& operator=(const barrier&) = delete;

  // Returns the phase the thread arrived in (std returns an opaque token).
  std::int64_t arrive(std::ptrdiff_t n = 1, Loc loc = Loc::current()) {
    const std::int64_t phase = phase_.load(std::memory_order_seq_cst, loc);
    if (left_.fetch_sub(n, std::memory_order_seq_cst, loc) == n) {
      left_.store(expected_.load(std::memory_order_seq_cst, loc), std::memory_order_seq_cst, loc);
      phase_.fetch_add(1, std::memory_order_seq_cst, loc);
    }
    return phase;
  }
  void wait(std::int64_t phase, Loc loc = Loc::current()) const {
    spin_until([&] { return phase_.load(std::memory_order_seq_cst, loc) != phase; }, loc);
  }
  void arrive_and_wait(Loc loc = Loc::current()) { wait(arrive(1, loc), loc); }
  void arrive_and_drop(Loc loc = Loc::current()) {
    expected_.fetch_sub(1, std::memory_order_seq_cst, loc);
    arrive(1, loc);
  }

 private:
  atomic<std::ptrdiff_t> expected_;
  atomic<std::ptrdiff_t> left_;
  atomic<std::int64_t> phase_;
};

// std::atomic_flag. wait(old) returns once the flag differs from old; notify_one and
// notify_all do nothing, since the waiter re-reads the flag (a program that relies on
// a notify it forgot is not caught).
class atomic_flag {
 public:
  using Loc = std::source_location;

  explicit atomic_flag(std::string_view name = "flag") : v_(false, name) {}
  atomic_flag(const atomic_flag&) = delete;
  atomic_flag& operator=(const atomic_flag&) = delete;

  bool test_and_set(std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) {
    return v_.exchange(true, mo, loc);
  }
  void clear(std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) { v_.store(false, mo, loc); }
  bool test(std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) const {
    return v_.load(mo, loc);
  }
  void wait(bool old, std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) const {
    spin_until([&] { return v_.load(mo, loc) != old; }, loc);
  }
  void notify_one() noexcept {}
  void notify_all() noexcept {}

 private:
  atomic<bool> v_;
};

// std::shared_mutex over one counter: -1 held exclusively, n > 0 held by n readers.
// Misuse (unlocking what the thread does not hold) fails the execution when the
// counter shows it.
class shared_mutex {
 public:
  using Loc = std::source_location;

  explicit shared_mutex(std::string_view name = "shared_mutex") : state_(0, name) {}
  shared_mutex(const shared_mutex&) = delete;
  shared_mutex& operator=(const shared_mutex&) = delete;

  void lock(Loc loc = Loc::current()) {
    spin_until([&] { return try_lock(loc); }, loc);
  }
  bool try_lock(Loc loc = Loc::current()) {
    if (state_.load(std::memory_order_seq_cst, loc) != 0) return false;
    int free = 0;
    return state_.compare_exchange_strong(free, -1, std::memory_order_seq_cst, loc);
  }
  void unlock(Loc loc = Loc::current()) {
    check(state_.exchange(0, std::memory_order_seq_cst, loc) == -1, "shared_mutex::unlock without lock()", loc);
  }
  void lock_shared(Loc loc = Loc::current()) {
    spin_until([&] { return try_lock_shared(loc); }, loc);
  }
  bool try_lock_shared(Loc loc = Loc::current()) {
    int s = state_.load(std::memory_order_seq_cst, loc);
    return s >= 0 && state_.compare_exchange_strong(s, s + 1, std::memory_order_seq_cst, loc);
  }
  void unlock_shared(Loc loc = Loc::current()) {
    check(state_.fetch_sub(1, std::memory_order_seq_cst, loc) > 0, "shared_mutex::unlock_shared without lock_shared()",
          loc);
  }

 private:
  atomic<int> state_;
};

}  // namespace atomcheck
