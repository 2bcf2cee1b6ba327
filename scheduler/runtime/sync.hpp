// Semaphores, latch, barrier, atomic_flag, shared_mutex and condition_variable with the
// std signatures, built from atomcheck::atomic, spin_until and yield() (issue 22). Every
// wait is a spin_until await (or a yield() loop), so each is exact under dfs,
// dpor and optimal DPOR, SC and TSO, exactly as spin_until is (README "Waits"): a failed
// attempt only reads and blocks the thread for the rest of the execution, and the search
// explores the executions where it reads later writes instead. Under TSO every update is
// a locked read-modify-write (it drains the store buffer), as in the x86 mapping of the
// std implementations. In traces they show as the accesses of their counters, named
// after the object; a waiter nobody releases is a livelock report at the caller's line.
// Timed waits (try_acquire_for, ...) are a single try: time is not modelled, and "tried
// later and succeeded" is the schedule where the try comes after the release.
// condition_variable waits in a yield() loop (spurious wake-ups on, the default) or, with
// ExploreOptions::spurious_wakeups off, in a spin_until await on notify's tokens.
#pragma once

#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <source_location>
#include <string>
#include <string_view>

#include "api.hpp"

namespace atomcheck {

namespace detail {
// spin_until(cond) whose livelock report names the object: "T2 waits on latch done
// (f.cpp:9) with no count_down".
template <class Cond>
void await_on(Cond&& cond, const std::string& waits_on, const char* without, const CallSite& loc) {
  op_spin_begin();
  if (!cond()) op_spin_failed(loc, waits_on, without);
  op_spin_passed();
}
}  // namespace detail

// std::counting_semaphore: a counter; acquire waits until it is positive and takes one.
template <std::ptrdiff_t LeastMaxValue = INT_MAX>
class counting_semaphore {
 public:
  using Loc = std::source_location;
  static constexpr std::ptrdiff_t max() noexcept { return LeastMaxValue; }

  explicit counting_semaphore(std::ptrdiff_t desired, std::string_view name = "semaphore")
      : count_(desired, name), waits_on_("counting_semaphore " + std::string(name)) {}
  counting_semaphore(const counting_semaphore&) = delete;
  counting_semaphore& operator=(const counting_semaphore&) = delete;

  void release(std::ptrdiff_t update = 1, Loc loc = Loc::current()) {
    const std::ptrdiff_t old = count_.fetch_add(update, std::memory_order_seq_cst, loc);
    check(update >= 0 && old + update <= max(), "counting_semaphore::release beyond max() or negative", loc);
  }
  void acquire(Loc loc = Loc::current()) {
    detail::await_on([&] { return take(loc); }, waits_on_, "release", loc);
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
  std::string waits_on_;
};
using binary_semaphore = counting_semaphore<1>;

// std::latch: a single-use countdown.
class latch {
 public:
  using Loc = std::source_location;
  static constexpr std::ptrdiff_t max() noexcept { return PTRDIFF_MAX; }

  explicit latch(std::ptrdiff_t expected, std::string_view name = "latch")
      : count_(expected, name), waits_on_("latch " + std::string(name)) {}
  latch(const latch&) = delete;
  latch& operator=(const latch&) = delete;

  void count_down(std::ptrdiff_t n = 1, Loc loc = Loc::current()) {
    const std::ptrdiff_t old = count_.fetch_sub(n, std::memory_order_seq_cst, loc);
    check(n >= 0 && old >= n, "latch::count_down below zero", loc);
  }
  // Not noexcept, as std::latch's is: its load is a step, and a step of an execution that
  // is abandoned (cut, or ended) unwinds the thread by an exception.
  bool try_wait(Loc loc = Loc::current()) const {
    return count_.load(std::memory_order_seq_cst, loc) == 0;
  }
  void wait(Loc loc = Loc::current()) const {
    detail::await_on([&] { return count_.load(std::memory_order_seq_cst, loc) == 0; }, waits_on_, "count_down", loc);
  }
  void arrive_and_wait(std::ptrdiff_t n = 1, Loc loc = Loc::current()) {
    count_down(n, loc);
    wait(loc);
  }

 private:
  atomic<std::ptrdiff_t> count_;
  std::string waits_on_;
};

// std::barrier without a completion function: arrive_and_wait blocks until the phase's
// expected number of threads arrived; the last one opens the next phase.
class barrier {
 public:
  using Loc = std::source_location;

  explicit barrier(std::ptrdiff_t expected, std::string_view name = "barrier")
      : expected_(expected, std::string(name) + ".expected"),
        left_(expected, std::string(name) + ".left"),
        phase_(0, std::string(name) + ".phase"),
        waits_on_("barrier " + std::string(name)) {}
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
    detail::await_on([&] { return phase_.load(std::memory_order_seq_cst, loc) != phase; }, waits_on_, "arrival", loc);
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
  std::string waits_on_;
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

  explicit shared_mutex(std::string_view name = "shared_mutex")
      : state_(0, name), waits_on_("shared_mutex " + std::string(name)) {}
  shared_mutex(const shared_mutex&) = delete;
  shared_mutex& operator=(const shared_mutex&) = delete;

  // noinline: through std::unique_lock or std::shared_lock, `loc` is in a libstdc++
  // header, and the return address beside it finds the user's line (call_sites.hpp).
  [[gnu::noinline]] void lock(Loc loc = Loc::current()) {
    const detail::CallSite at = ATOMCHECK_LOCATED_SITE_(loc);
    detail::await_on([&] { return try_lock_at(at); }, waits_on_, "unlock", at);
  }
  [[gnu::noinline]] bool try_lock(Loc loc = Loc::current()) { return try_lock_at(ATOMCHECK_LOCATED_SITE_(loc)); }
  [[gnu::noinline]] void unlock(Loc loc = Loc::current()) {
    check(state_.exchange_at(0, ATOMCHECK_LOCATED_SITE_(loc)) == -1, "shared_mutex::unlock without lock()", loc);
  }
  [[gnu::noinline]] void lock_shared(Loc loc = Loc::current()) {
    const detail::CallSite at = ATOMCHECK_LOCATED_SITE_(loc);
    detail::await_on([&] { return try_lock_shared_at(at); }, waits_on_, "unlock", at);
  }
  [[gnu::noinline]] bool try_lock_shared(Loc loc = Loc::current()) {
    return try_lock_shared_at(ATOMCHECK_LOCATED_SITE_(loc));
  }
  [[gnu::noinline]] void unlock_shared(Loc loc = Loc::current()) {
    check(state_.add(-1, ATOMCHECK_LOCATED_SITE_(loc)) > 0, "shared_mutex::unlock_shared without lock_shared()", loc);
  }

 private:
  bool try_lock_at(const detail::CallSite& at) {
    if (state_.load_at(std::memory_order_seq_cst, at) != 0) return false;
    int free = 0;
    return state_.cas_at(free, -1, std::memory_order_seq_cst, at);
  }
  bool try_lock_shared_at(const detail::CallSite& at) {
    int s = state_.load_at(std::memory_order_seq_cst, at);
    return s >= 0 && state_.cas_at(s, s + 1, std::memory_order_seq_cst, at);
  }

  atomic<int> state_;
  std::string waits_on_;
};


// std::condition_variable, with std::unique_lock<atomcheck::mutex>. Two models, chosen by
// ExploreOptions::spurious_wakeups (`--no-spurious-wakeups`):
//  - on (the default, as the standard allows): wait() is unlock, this_thread::yield(),
//    lock, so it may return at any time and notify changes nothing it waits for. The
//    caller's `while (!pred) cv.wait(lk)` is a yield() loop: a repeated check blocks, and
//    one nobody can satisfy is a livelock naming the condition variable. An `if` instead
//    of the `while` is caught: the wait returns before the condition holds.
//  - off: wait() registers (under the lock, taking a ticket), unlocks and blocks (a
//    spin_until await) until it takes a token. notify_one hands out one token, stamped
//    with the tickets issued so far, when some waiter has none; notify_all one to each.
//    A waiter may take a token stamped after its ticket, so exactly the threads waiting
//    at a notify can be woken by it, and which of them notify_one wakes is the order in
//    which they try, which the search varies (taking the oldest token it may is no loss:
//    an older token is usable by fewer waiters). A notify with nobody waiting is lost, so
//    a forgotten or early notify is a livelock report: "T2 waits on condition_variable
//    cv (file:line) with no notifier".
// A timed wait may return at any time: cv_status::no_timeout if some notify came since
// it began, else timeout (time is not modelled; the predicate overloads return pred()).
// Every wait is a blocked thread whose reads race with the writes that release it, so
// each model is exact under dfs, dpor and optimal DPOR, SC and TSO (README "Waits").
class condition_variable {
 public:
  using Loc = std::source_location;

  explicit condition_variable(std::string_view name = "condition_variable")
      : waits_on_("condition_variable " + std::string(name)),
        state_(0, std::string(name) + ".waiters"),
        gen_(0, std::string(name) + ".notifies") {}
  condition_variable(const condition_variable&) = delete;
  condition_variable& operator=(const condition_variable&) = delete;

  void notify_one(Loc loc = Loc::current()) { notify(false, loc); }
  void notify_all(Loc loc = Loc::current()) { notify(true, loc); }

  void wait(std::unique_lock<mutex>& lk, Loc loc = Loc::current()) { wait_once(lk, loc, loc); }
  // For interpreters (JSON specs): wait until `pred`, with `at` (the spec's line) as the
  // wait's site in reports.
  template <class Pred>
  void wait_at(std::unique_lock<mutex>& lk, Pred pred, const detail::CallSite& at, Loc loc = Loc::current()) {
    while (!pred()) wait_once(lk, loc, at);
  }
  template <class Pred>
  void wait(std::unique_lock<mutex>& lk, Pred pred, Loc loc = Loc::current()) {
    while (!pred()) wait(lk, loc);
  }
  template <class Rep, class Period>
  std::cv_status wait_for(std::unique_lock<mutex>& lk, const std::chrono::duration<Rep, Period>&,
                          Loc loc = Loc::current()) {
    return timed_wait(lk, loc);
  }
  template <class Rep, class Period, class Pred>
  bool wait_for(std::unique_lock<mutex>& lk, const std::chrono::duration<Rep, Period>& d, Pred pred,
                Loc loc = Loc::current()) {
    while (!pred())
      if (wait_for(lk, d, loc) == std::cv_status::timeout) return pred();
    return true;
  }
  template <class Clock, class Duration>
  std::cv_status wait_until(std::unique_lock<mutex>& lk, const std::chrono::time_point<Clock, Duration>&,
                            Loc loc = Loc::current()) {
    return timed_wait(lk, loc);
  }
  template <class Clock, class Duration, class Pred>
  bool wait_until(std::unique_lock<mutex>& lk, const std::chrono::time_point<Clock, Duration>& t, Pred pred,
                  Loc loc = Loc::current()) {
    while (!pred())
      if (wait_until(lk, t, loc) == std::cv_status::timeout) return pred();
    return true;
  }

 private:
  // The blocking model's state, in one atomic so that every change is one locked rmw:
  // byte 0 the waiters not yet woken, byte 1 the tickets issued, bytes
  // 2-7 the stamps of the tokens handed out and not taken, ascending (0: no token).
  static constexpr int kSlots = 6;
  struct State {
    int waiting = 0;
    int tickets = 0;
    int stamps[kSlots] = {};
    int tokens() const {
      int n = 0;
      while (n < kSlots && stamps[n] != 0) ++n;
      return n;
    }
  };
  static State decode(std::int64_t v) {
    State s;
    s.waiting = static_cast<int>(v & 0xff);
    s.tickets = static_cast<int>((v >> 8) & 0xff);
    for (int i = 0; i < kSlots; ++i) s.stamps[i] = static_cast<int>((v >> (16 + 8 * i)) & 0xff);
    return s;
  }
  static std::int64_t encode(const State& s) {
    std::int64_t v = s.waiting | (std::int64_t{s.tickets} << 8);
    for (int i = 0; i < kSlots; ++i) v |= std::int64_t{s.stamps[i]} << (16 + 8 * i);
    return v;
  }

  void wait_once(std::unique_lock<mutex>& lk, const Loc& loc, const detail::CallSite& at) {
    mutex& m = held(lk, loc);
    if (detail::op_spurious_wakeups()) {
      m.unlock(loc);
      detail::op_yield(at, waits_on_);
      m.lock(loc);
      return;
    }
    const int ticket = enroll(loc);
    m.unlock(loc);
    detail::op_spin_begin();
    if (!take_token(ticket, loc)) detail::op_spin_failed(at, waits_on_);
    detail::op_spin_passed();
    m.lock(loc);
  }
  mutex& held(std::unique_lock<mutex>& lk, const Loc& loc) {
    check(lk.owns_lock(), "condition_variable::wait without holding the lock", loc);
    return *lk.mutex();
  }
  // Registers the caller as waiting; returns its ticket.
  int enroll(const Loc& loc) {
    for (;;) {
      std::int64_t v = state_.load(std::memory_order_seq_cst, loc);
      State s = decode(v);
      check(s.waiting < kSlots && s.tickets < 255, "condition_variable: more waits than atomcheck models", loc);
      const int ticket = s.tickets;
      ++s.waiting;
      ++s.tickets;
      if (state_.compare_exchange_strong(v, encode(s), std::memory_order_seq_cst, loc)) return ticket;
    }
  }
  // One attempt: a read, then (with a token stamped after `ticket`, the oldest such) a
  // compare-exchange that takes it; a failed attempt writes nothing, as spin_until needs.
  bool take_token(int ticket, const Loc& loc) {
    std::int64_t v = state_.load(std::memory_order_seq_cst, loc);
    State s = decode(v);
    int k = 0;
    while (k < kSlots && s.stamps[k] != 0 && s.stamps[k] <= ticket) ++k;
    if (k == kSlots || s.stamps[k] == 0) return false;
    for (int i = k; i + 1 < kSlots; ++i) s.stamps[i] = s.stamps[i + 1];
    s.stamps[kSlots - 1] = 0;
    --s.waiting;
    return state_.compare_exchange_strong(v, encode(s), std::memory_order_seq_cst, loc);
  }
  void notify(bool all, const Loc& loc) {
    gen_.fetch_add(1, std::memory_order_seq_cst, loc);
    if (detail::op_spurious_wakeups()) return;
    for (;;) {
      std::int64_t v = state_.load(std::memory_order_seq_cst, loc);
      State s = decode(v);
      int n = s.tokens();
      if (s.waiting <= n) return;  // every waiter has a token already: the notify is lost
      do s.stamps[n++] = s.tickets;  // stamps ascend: tickets only grow
      while (all && n < s.waiting);
      if (state_.compare_exchange_strong(v, encode(s), std::memory_order_seq_cst, loc)) return;
    }
  }
  // Returns at once after letting the others run (a wait that may time out whenever):
  // no_timeout when a notify came in between.
  std::cv_status timed_wait(std::unique_lock<mutex>& lk, const Loc& loc) {
    mutex& m = held(lk, loc);
    const std::int64_t before = gen_.load(std::memory_order_seq_cst, loc);
    m.unlock(loc);
    detail::op_yield(loc, waits_on_);
    m.lock(loc);
    return gen_.load(std::memory_order_seq_cst, loc) != before ? std::cv_status::no_timeout : std::cv_status::timeout;
  }

  std::string waits_on_;
  atomic<std::int64_t> state_;
  atomic<std::int64_t> gen_;
};

}  // namespace atomcheck
