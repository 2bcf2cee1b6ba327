// runtime/ owns what runs a test program: the fibers and threads of one execution
// (execution.*, stack_pool.*), the API a test is written against (this file, sync.hpp,
// std_types.hpp), the program registry and how an execution ends (program.*), crash
// reports and call sites. It may include memory/, search/, checkers/ (the declarations a
// program makes) and trace/; never explore/ (tests/test_layers.cpp).
//
// The API a test program is written against. It mirrors the standard library (atomic,
// mutex, thread, atomic_thread_fence), so a data structure templated on (or aliased to)
// its atomic, mutex and thread types runs unchanged under std:: in production and under
// the harness in tests. Every object here calls into the current execution, found
// through a thread_local pointer set while explore() runs; local computation between
// visible operations runs natively.
//
// Rules for test authors:
//  - No state outlives one execution. Every execution re-runs the program body from the
//    start, so all shared objects (atomic, shared, mutex, thread) are created inside the
//    body (or inside the threads it starts). Globals and statics that the body mutates
//    make executions depend on each other and break replay.
//  - Constructing or using these objects outside an exploration throws UsageError; using
//    one that was created by an earlier execution fails the execution.
//  - Abandoned executions (failure, deadlock, step bound) are unwound by throwing an
//    internal exception through each suspended thread. A catch (...) in a test program
//    must rethrow what it does not recognise, or the unwinding is swallowed.
//  - Threads must be joined before their thread object is destroyed, as with std::thread.
//
// Scheduling convention: a thread yields to the scheduler only before operations that
// can conflict with another thread's operation (loads, stores, read-modify-writes,
// seq_cst fences, mutex lock/try_lock/unlock; under TSO also buffer flushes). Thread
// creation, join (once the child has finished), begin/end of atomic blocks, outcome
// recording and thread exit run eagerly as part of the current thread's step.
#pragma once

#include <atomic>
#include <barrier>
#include <climits>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <latch>
#include <mutex>
#include <semaphore>
#include <shared_mutex>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../memory/rmw.hpp"
#include "program.hpp"
#include "std_types.hpp"

namespace atomcheck {

// Misuse of the API outside what an execution can report (e.g. an object constructed
// outside an exploration).
struct UsageError : std::logic_error {
  using std::logic_error::logic_error;
};

namespace detail {

class Execution;

// A handle to one object of one execution: which execution (by serial number, unique
// in the process) and the object's dense id within it.
struct Handle {
  std::uint64_t serial = 0;
  std::uint32_t id = kNoId;
};

enum class ObjKind : std::uint8_t { atomic_var, plain_var, mutex };

// Values travel as 64-bit patterns; these convert both ways for integers, bool, enums,
// pointers and other trivially copyable types of at most 8 bytes.
template <class T>
inline constexpr bool kStorable = std::is_trivially_copyable_v<T> && sizeof(T) <= 8;

template <class T>
std::int64_t to_bits(T v) {
  static_assert(kStorable<T>, "atomcheck values must be trivially copyable and at most 8 bytes");
  if constexpr (std::is_integral_v<T>) {
    return static_cast<std::int64_t>(v);
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<std::int64_t>(static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_pointer_v<T>) {
    return static_cast<std::int64_t>(reinterpret_cast<std::intptr_t>(v));
  } else {
    std::int64_t out = 0;
    std::memcpy(&out, &v, sizeof(T));
    return out;
  }
}

template <class T>
T from_bits(std::int64_t b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(b);
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(static_cast<std::underlying_type_t<T>>(b));
  } else if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<T>(static_cast<std::intptr_t>(b));
  } else {
    T out;
    std::memcpy(&out, &b, sizeof(T));
    return out;
  }
}

// Where in the test program an operation was called (Event::loc, shown as file:line).
// Most operations take a defaulted std::source_location. The operators that cannot take
// one (conversion, increment, the thread constructor's parameter pack) pass the address
// they return to instead: it lies in the caller's code, and the report symbolizes it
// from the binary's line tables (scheduler/call_sites.hpp).
struct CallSite {
  const char* file = nullptr;
  std::uint32_t line = 0;
  const void* pc = nullptr;

  CallSite() = default;
  CallSite(const std::source_location& l)  // NOLINT(google-explicit-constructor)
      : file(l.file_name()), line(l.line()) {}
  explicit CallSite(const void* return_address) : pc(return_address) {}
  // Both: the location names the site unless it lies in the standard library (a
  // std::lock_guard calling mutex::lock), where the return address leads to the user's
  // line (call_sites.hpp).
  CallSite(const std::source_location& l, const void* return_address)
      : file(l.file_name()), line(l.line()), pc(return_address) {}
};
// The caller's CallSite, for a function marked noinline (inlined, it would be its caller's).
#define ATOMCHECK_RETURN_SITE_ \
  ::atomcheck::detail::CallSite(__builtin_extract_return_addr(__builtin_return_address(0)))
// The location `l` with the caller's return address beside it (see the two-argument CallSite).
#define ATOMCHECK_LOCATED_SITE_(l) \
  ::atomcheck::detail::CallSite((l), __builtin_extract_return_addr(__builtin_return_address(0)))

// A value with the location of the expression it was converted at: the parameter type
// of assignment operators, which cannot take a defaulted std::source_location. The
// implicit conversion, and so its default argument, happens at the caller's `x = v`.
template <class T>
struct Located {
  T value;
  std::source_location loc;
  Located(T v, std::source_location l = std::source_location::current())  // NOLINT(google-explicit-constructor)
      : value(v), loc(l) {}
};


// The failure order of a compare-exchange given one order ([atomics.types.operations]).
constexpr std::memory_order cas_failure_order(std::memory_order mo) {
  return mo == std::memory_order_acq_rel   ? std::memory_order_acquire
         : mo == std::memory_order_release ? std::memory_order_relaxed
                                           : mo;
}

struct RmwResult {
  std::int64_t old_value;
  bool wrote;
};

// Entry points into the current execution (scheduler/runtime/execution.cpp). Each throws
// UsageError when no exploration is running on this OS thread.
// An object without a name is named after `declared_at` (file:line) in reports.
// `self`: the object's address, so that an object built inside a block of make() belongs
// to it (use after free); nullptr for objects of no block.
// (An integer, not a pointer: GCC takes a `const void*` to a member under construction
// for a read of it, -Wmaybe-uninitialized.)
Handle create_object(ObjKind kind, std::int64_t initial, std::string_view name, const CallSite& declared_at = {},
                     std::uintptr_t self = 0);
// Renames an object of the current execution (model_types::name).
void op_set_name(const Handle& h, ObjKind kind, std::string_view name);
std::int64_t op_load(const Handle& h, std::memory_order mo, const CallSite& at);
void op_store(const Handle& h, std::int64_t value, std::memory_order mo, const CallSite& at);
RmwResult op_rmw(const Handle& h, RmwFn fn, std::memory_order mo, const CallSite& at);
void op_fence(std::memory_order mo, const CallSite& at);
void op_lock(const Handle& h, const CallSite& at);
bool op_try_lock(const Handle& h, const CallSite& at);
void op_unlock(const Handle& h, const CallSite& at);
// Starts a thread running entry(arg); entry must move what arg points to onto its own
// stack before its first visible operation (the spawning frame is then gone).
ThreadId op_spawn(void (*entry)(void*), void* arg, const CallSite& at);
void op_join(ThreadId child, const CallSite& at);
// Called from ~thread: a joinable thread fails the execution (std::thread would
// terminate), except while an abandoned execution is being unwound.
void op_thread_dropped(ThreadId child);
LabelId op_begin(std::string_view label, const CallSite& at);
void op_end(LabelId label, const CallSite& at);
void op_check_failed(std::string_view message, const std::source_location& where);
void op_assume_failed(const CallSite& at);
void op_outcome(std::string_view name, std::int64_t value);
// `waits_on` (e.g. "condition_variable cv") and `without` (a static string, "notifier"):
// a livelock report says "T2 waits on condition_variable cv (f.cpp:9) with no notifier";
// empty for a plain yield() or spin_until.
void op_yield(const CallSite& at, std::string_view waits_on = {}, const char* without = "notifier");
void op_spin_begin();
void op_spin_failed(const CallSite& at, std::string_view waits_on = {}, const char* without = "notifier");
// After a successful attempt: what the enclosing yield() iteration read before it counts again.
void op_spin_passed();
// cas_loop: its head, the end of a failed attempt, and its exit.
void op_loop_head(const CallSite& at);
void op_loop_retry(const CallSite& at);
void op_loop_exit();
// cas_loop's compare-exchange failed: its attempt ends (as op_loop_retry).
void op_loop_confirm_failed(const CallSite& at);
// Tests only: every compare-exchange in a cas_loop attempt is taken for cas_loop's own,
// whose failure ends the attempt: the mutant the loop reduction's judge must catch.
void every_cas_confirms(bool on);
// Tests only: a failed cas_loop attempt blocks its thread even when it wrote: the mutant
// the linearizability verdicts' judge must catch.
void loop_reduction_blocks_writers(bool on);
// ExploreOptions::spurious_wakeups of the running exploration.
bool op_spurious_wakeups();
ThreadId op_current_thread();
// The allocator model (make/destroy): a block of `size` bytes for a `type` made at `at`,
// then, once constructed, op_made. op_destroy_begin says whether to run the destructor (false:
// a double free or a pointer make() never returned, reported); op_destroy_end frees the block.
void* op_make_block(std::size_t size, std::size_t align, std::string_view type, const CallSite& at);
void op_made(void* block);
bool op_destroy_begin(void* block, const CallSite& at);
void op_destroy_end(void* block, const CallSite& at);
// A constructor that threw: the block goes back unfreed and untracked.
void op_make_failed(void* block);
// The readable name of T, for reports ("Node", "ms::Queue<int>::Node").
template <class T>
constexpr std::string_view type_name() {
  std::string_view f = __PRETTY_FUNCTION__;
  const std::size_t b = f.find("T = ") + 4;
  const std::size_t e = f.find_first_of(";]", b);
  return f.substr(b, e - b);
}
// Declarations for the atomic-set checkers (scheduler/declare.cpp).
void op_atomic_set(std::string_view name, const VarId* vars, std::size_t n);
void op_unit_of_work(std::string_view label, const std::string_view* sets, std::size_t n);
// True when called inside an exploration (any execution on this OS thread).
bool in_exploration();

}  // namespace detail

// An atomic variable, with the member functions of std::atomic<T>. Under SC every
// memory order behaves as seq_cst; under TSO, non-seq_cst stores are buffered, seq_cst
// stores and read-modify-writes drain the buffer and act on memory, loads are plain.
// A failing compare_exchange records a `read` event (marked as a failed CAS, with the
// value it expected, for reports); a succeeding one an `rmw`.
// compare_exchange_weak never fails spuriously.
template <class T>
class atomic;
namespace detail {
// For the library's own front ends: a C litmus test's plain location is an atomic whose
// accesses under rc11 choose like relaxed ones and synchronise nothing (as rc11.cat reads a
// racy plain access; specs/litmus_c_run.cpp). No effect under sc and tso.
void op_unsynchronised(const Handle& h);
struct AtomicInternals {
  template <class T>
  static void unsynchronised(const atomic<T>& a) { op_unsynchronised(a.h_); }
};
}  // namespace detail
template <class T>
class atomic {
 public:
  using value_type = T;
  using Loc = std::source_location;

  // Without a name, reports name the object after its declaration ("stack.hpp:12"):
  // code templated on its types cannot pass std::atomic a name (model_types::name can).
  // A class member is named after the constructor that builds it: that is where
  // std::source_location puts a default member initializer.
  atomic(Loc loc = Loc::current()) : h_(make(T{}, {}, loc, reinterpret_cast<std::uintptr_t>(this))) {}  // NOLINT(google-explicit-constructor)
  // Not explicit, so `atomic<int> x = 0;` compiles as it does for std::atomic.
  atomic(T initial, Loc loc = Loc::current())  // NOLINT(google-explicit-constructor)
      : h_(make(initial, {}, loc, reinterpret_cast<std::uintptr_t>(this))) {}
  // `name` shows in traces and reports.
  atomic(T initial, std::string_view name, Loc loc = Loc::current()) : h_(make(initial, name, loc, reinterpret_cast<std::uintptr_t>(this))) {}
  atomic(const atomic&) = delete;
  // Takes a non-const reference so that it cannot bind the temporary `atomic(v)`: with
  // `const atomic&`, `x = 1` would be ambiguous between it and operator=(Located<T>).
  atomic& operator=(atomic&) = delete;

  T load(std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) const {
    return detail::from_bits<T>(detail::op_load(h_, mo, loc));
  }
  void store(T v, std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) {
    detail::op_store(h_, detail::to_bits(v), mo, loc);
  }
  // Reads through the conversion: `int v = x;`. noinline so that the return address
  // is in the caller (see CallSite).
  [[gnu::noinline]] operator T() const {  // NOLINT(google-explicit-constructor)
    return detail::from_bits<T>(detail::op_load(h_, std::memory_order_seq_cst, ATOMCHECK_RETURN_SITE_));
  }
  T operator=(detail::Located<T> v) {
    store(v.value, std::memory_order_seq_cst, v.loc);
    return v.value;
  }

  T exchange(T v, std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) {
    return rmw([v](T) { return v; }, mo, loc);
  }

  bool compare_exchange_strong(T& expected, T desired, std::memory_order success,
                               std::memory_order failure, Loc loc = Loc::current()) {
    return cas_at(expected, desired, success, loc, failure);
  }
  bool compare_exchange_strong(T& expected, T desired,
                               std::memory_order mo = std::memory_order_seq_cst,
                               Loc loc = Loc::current()) {
    return compare_exchange_strong(expected, desired, mo, detail::cas_failure_order(mo), loc);
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order success,
                             std::memory_order failure, Loc loc = Loc::current()) {
    return compare_exchange_strong(expected, desired, success, failure, loc);
  }
  bool compare_exchange_weak(T& expected, T desired,
                             std::memory_order mo = std::memory_order_seq_cst,
                             Loc loc = Loc::current()) {
    return compare_exchange_strong(expected, desired, mo, detail::cas_failure_order(mo), loc);
  }

  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T fetch_add(T d, std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) {
    return rmw([d](T old) { return static_cast<T>(old + d); }, mo, loc);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T fetch_sub(T d, std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) {
    return rmw([d](T old) { return static_cast<T>(old - d); }, mo, loc);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T fetch_and(T d, std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) {
    return rmw([d](T old) { return static_cast<T>(old & d); }, mo, loc);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T fetch_or(T d, std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) {
    return rmw([d](T old) { return static_cast<T>(old | d); }, mo, loc);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T fetch_xor(T d, std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) {
    return rmw([d](T old) { return static_cast<T>(old ^ d); }, mo, loc);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  [[gnu::noinline]] T operator++() {
    return static_cast<T>(add(1, ATOMCHECK_RETURN_SITE_) + 1);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  [[gnu::noinline]] T operator++(int) {
    return add(1, ATOMCHECK_RETURN_SITE_);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  [[gnu::noinline]] T operator--() {
    return static_cast<T>(add(static_cast<T>(-1), ATOMCHECK_RETURN_SITE_) - 1);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  [[gnu::noinline]] T operator--(int) {
    return add(static_cast<T>(-1), ATOMCHECK_RETURN_SITE_);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T operator+=(detail::Located<T> d) {
    return static_cast<T>(fetch_add(d.value, std::memory_order_seq_cst, d.loc) + d.value);
  }
  template <class U = T, class = std::enable_if_t<std::is_integral_v<U>>>
  T operator-=(detail::Located<T> d) {
    return static_cast<T>(fetch_sub(d.value, std::memory_order_seq_cst, d.loc) - d.value);
  }

  // std::atomic<T>::wait: returns once the value differs from `old`, as a spin_until
  // await (exact under every strategy). notify_one/notify_all do nothing, since the
  // waiter re-reads the value: a program that relies on a notify it forgot is not caught.
  void wait(T old, std::memory_order mo = std::memory_order_seq_cst, Loc loc = Loc::current()) const {
    spin_until([&] { return load(mo, loc) != old; }, loc);  // found by ADL (the closure's namespace)
  }
  void notify_one() noexcept {}
  void notify_all() noexcept {}

  // The variable's dense id in the current execution (its VarId in traces).
  VarId id() const { return h_.id; }
  // The name reports give it from now on (model_types::name).
  void set_name(std::string_view name) { detail::op_set_name(h_, detail::ObjKind::atomic_var, name); }

 private:
  static detail::Handle make(T initial, std::string_view name, const detail::CallSite& at, std::uintptr_t self) {
    return detail::create_object(detail::ObjKind::atomic_var, detail::to_bits(initial), name, at, self);
  }
  // The operations with a CallSite, for shared_mutex: called from std::shared_lock, its
  // site is the caller's return address beside a location in the library.
  friend class shared_mutex;
  friend class cas_loop;
  friend struct detail::AtomicInternals;
  T load_at(std::memory_order mo, const detail::CallSite& at) const {
    return detail::from_bits<T>(detail::op_load(h_, mo, at));
  }
  T exchange_at(T v, const detail::CallSite& at) {
    return rmw([v](T) { return v; }, std::memory_order_seq_cst, at);
  }
  // `confirming`: cas_loop's compare-exchange, whose failure ends its attempt.
  bool cas_at(T& expected, T desired, std::memory_order success, const detail::CallSite& loc,
              std::memory_order failure = std::memory_order_seq_cst, bool confirming = false) {
    struct Ctx {
      std::int64_t expected, desired;
    } ctx{detail::to_bits(expected), detail::to_bits(desired)};
    detail::RmwFn fn{[](const void* c, std::int64_t old, std::int64_t& out) {
                       auto* x = static_cast<const Ctx*>(c);
                       if (old != x->expected) return false;
                       out = x->desired;
                       return true;
                     },
                     &ctx, true, ctx.expected, failure};
    fn.confirming = confirming;
    detail::RmwResult r = detail::op_rmw(h_, fn, success, loc);
    if (!r.wrote) expected = detail::from_bits<T>(r.old_value);
    return r.wrote;
  }

  // A general read-modify-write: f(old) is computed natively and written atomically.
  T add(T d, const detail::CallSite& at) {
    return rmw([d](T old) { return static_cast<T>(old + d); }, std::memory_order_seq_cst, at);
  }
  template <class F>
  T rmw(F f, std::memory_order mo, const detail::CallSite& loc) {
    detail::RmwFn fn{[](const void* c, std::int64_t old, std::int64_t& out) {
                       out = detail::to_bits((*static_cast<const F*>(c))(detail::from_bits<T>(old)));
                       return true;
                     },
                     &f, false, 0, std::memory_order_seq_cst};
    return detail::from_bits<T>(detail::op_rmw(h_, fn, mo, loc).old_value);
  }

  detail::Handle h_;
};

// A plain (non-atomic) shared variable. Every read and write is a visible operation (a
// plain load/store, buffered under TSO), so `x = x + 1` on a shared<int> is two steps and
// can lose updates. Two accesses by different threads, one a write, not ordered by
// happens-before fail the execution as a data race (ExploreOptions::race_check,
// docs/data-races.md). In production code, alias it to T.
template <class T>
class shared {
 public:
  using Loc = std::source_location;

  // Unnamed, it is named after its declaration, as atomic is.
  shared(Loc loc = Loc::current()) : h_(make(T{}, {}, loc, reinterpret_cast<std::uintptr_t>(this))) {}  // NOLINT(google-explicit-constructor)
  shared(T initial, Loc loc = Loc::current())  // NOLINT(google-explicit-constructor)
      : h_(make(initial, {}, loc, reinterpret_cast<std::uintptr_t>(this))) {}
  shared(T initial, std::string_view name, Loc loc = Loc::current()) : h_(make(initial, name, loc, reinterpret_cast<std::uintptr_t>(this))) {}
  shared(const shared&) = delete;
  shared& operator=(shared&) = delete;  // non-const: see atomic's

  T get(Loc loc = Loc::current()) const { return read(loc); }
  void set(T v, Loc loc = Loc::current()) { write(v, loc); }
  // noinline: the return address is in the caller (see CallSite).
  [[gnu::noinline]] operator T() const {  // NOLINT(google-explicit-constructor)
    return read(ATOMCHECK_RETURN_SITE_);
  }
  shared& operator=(detail::Located<T> v) {
    write(v.value, v.loc);
    return *this;
  }
  // Read then write: two visible operations, like the compiled x += d.
  template <class U = T, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  shared& operator+=(detail::Located<T> d) {
    write(static_cast<T>(read(d.loc) + d.value), d.loc);
    return *this;
  }
  template <class U = T, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  shared& operator-=(detail::Located<T> d) {
    write(static_cast<T>(read(d.loc) - d.value), d.loc);
    return *this;
  }
  template <class U = T, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  [[gnu::noinline]] shared& operator++() {
    const detail::CallSite at = ATOMCHECK_RETURN_SITE_;
    write(static_cast<T>(read(at) + 1), at);
    return *this;
  }
  template <class U = T, class = std::enable_if_t<std::is_arithmetic_v<U>>>
  [[gnu::noinline]] T operator++(int) {
    const detail::CallSite at = ATOMCHECK_RETURN_SITE_;
    T old = read(at);
    write(static_cast<T>(old + 1), at);
    return old;
  }

  VarId id() const { return h_.id; }
  void set_name(std::string_view name) { detail::op_set_name(h_, detail::ObjKind::plain_var, name); }

 private:
  static detail::Handle make(T initial, std::string_view name, const detail::CallSite& at, std::uintptr_t self) {
    return detail::create_object(detail::ObjKind::plain_var, detail::to_bits(initial), name, at, self);
  }
  T read(const detail::CallSite& at) const {
    return detail::from_bits<T>(detail::op_load(h_, std::memory_order_relaxed, at));
  }
  void write(T v, const detail::CallSite& at) {
    detail::op_store(h_, detail::to_bits(v), std::memory_order_relaxed, at);
  }

  detail::Handle h_;
};

// std::atomic_thread_fence. seq_cst is a `fence` event (mfence under TSO: enabled only
// with an empty store buffer); weaker fences are no-ops, as on x86.
// An object, not a function: a std::memory_order argument makes argument-dependent
// lookup find std::atomic_thread_fence, which beside a function of ours is ambiguous
// (under `using namespace atomcheck;`) or silently std's real fence, invisible to the
// harness. When unqualified lookup finds an object, ADL is not performed
// ([basic.lookup.argdep]/3), so `atomic_thread_fence(mo)` is ours wherever our name is
// visible. Where only std's is visible, the call is still std's.
namespace detail {
struct atomic_thread_fence_fn {
  void operator()(std::memory_order mo,
                  std::source_location loc = std::source_location::current()) const {
    op_fence(mo, loc);
  }
};
}  // namespace detail
inline constexpr detail::atomic_thread_fence_fn atomic_thread_fence{};

// A mutex with std::mutex's members; works with std::lock_guard, std::unique_lock and
// std::scoped_lock. A thread waiting for a held mutex is not enabled. Locking a mutex
// the thread already holds, or unlocking one it does not hold, fails the execution.
class mutex {
 public:
  using Loc = std::source_location;

  // Unnamed, it is named after its declaration, as atomic is.
  explicit mutex(Loc loc = Loc::current()) : h_(detail::create_object(detail::ObjKind::mutex, 0, {}, loc, reinterpret_cast<std::uintptr_t>(this))) {}
  explicit mutex(std::string_view name, Loc loc = Loc::current())
      : h_(detail::create_object(detail::ObjKind::mutex, 0, name, loc, reinterpret_cast<std::uintptr_t>(this))) {}
  mutex(const mutex&) = delete;
  mutex& operator=(const mutex&) = delete;

  // noinline: called from std::lock_guard, std::unique_lock or std::scoped_lock, `loc`
  // is in a libstdc++ header, and the return address finds the user's line.
  [[gnu::noinline]] void lock(Loc loc = Loc::current()) { detail::op_lock(h_, ATOMCHECK_LOCATED_SITE_(loc)); }
  [[gnu::noinline]] bool try_lock(Loc loc = Loc::current()) {
    return detail::op_try_lock(h_, ATOMCHECK_LOCATED_SITE_(loc));
  }
  [[gnu::noinline]] void unlock(Loc loc = Loc::current()) { detail::op_unlock(h_, ATOMCHECK_LOCATED_SITE_(loc)); }

  LockId id() const { return h_.id; }
  void set_name(std::string_view name) { detail::op_set_name(h_, detail::ObjKind::mutex, name); }

 private:
  detail::Handle h_;
};

// A thread with std::thread's constructor, join and joinable. Starting it is a `fork`
// event of the current step; the new thread runs up to its first visible operation at
// once. join() waits (the caller is not enabled) until the child has finished and, under
// TSO, its store buffer has drained (pthread_join synchronises with all of the child).
class thread {
 public:
  thread() noexcept = default;
  // The usual `thread t(callable)`: the spawn site is a std::source_location, named in
  // every build. (Partial ordering prefers it to the variadic one below.)
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, thread>>>
  explicit thread(F&& f, std::source_location loc = std::source_location::current()) {
    start(std::tuple<std::decay_t<F>>(std::forward<F>(f)), loc);
  }
  // With arguments: a parameter pack cannot be followed by a defaulted source_location,
  // so the site is the return address (named from line tables; noinline keeps it the
  // caller's).
  template <class F, class A, class... Args,
            class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, thread>>>
  [[gnu::noinline]] explicit thread(F&& f, A&& a, Args&&... args) {
    start(std::tuple<std::decay_t<F>, std::decay_t<A>, std::decay_t<Args>...>(
              std::forward<F>(f), std::forward<A>(a), std::forward<Args>(args)...),
          ATOMCHECK_RETURN_SITE_);
  }
  thread(thread&& o) noexcept : id_(std::exchange(o.id_, kNoId)) {}
  thread& operator=(thread&& o) noexcept {
    if (joinable()) detail::op_thread_dropped(id_);
    id_ = std::exchange(o.id_, kNoId);
    return *this;
  }
  thread(const thread&) = delete;
  thread& operator=(const thread&) = delete;
  ~thread() {
    if (joinable()) detail::op_thread_dropped(id_);
  }

  bool joinable() const noexcept { return id_ != kNoId; }
  void join(std::source_location loc = std::source_location::current()) {
    if (!joinable()) throw std::invalid_argument("atomcheck::thread::join: thread not joinable");
    detail::op_join(std::exchange(id_, kNoId), loc);
  }
  // The child's dense thread id (T1, T2, ... in traces); kNoId when not joinable.
  ThreadId get_id() const noexcept { return id_; }

 private:
  template <class Bound>
  void start(Bound bound, const detail::CallSite& at) {
    id_ = detail::op_spawn(
        [](void* p) {
          Bound local(std::move(*static_cast<Bound*>(p)));
          std::apply([](auto& fn, auto&... a) { std::invoke(std::move(fn), std::move(a)...); },
                     local);
        },
        &bound, at);
  }

  ThreadId id_ = kNoId;
};

namespace this_thread {
// The calling thread's dense id (0 for the program body).
inline ThreadId get_id() { return detail::op_current_thread(); }
// A spin-loop hint with a meaning: it ends an iteration of a spin loop (the caller's
// operations since its last yield()). An iteration that repeats the end of the previous
// one, operation for operation with the same values, and wrote nothing (a failed
// test-and-set, a lock taken and released, count as nothing) blocks the caller for the
// rest of the execution: the search explores instead the executions where the iteration
// reads another thread's later write (GenMC's spin-assume), and one where nobody writes
// is reported as a deadlock (livelock). Calling it in every iteration of a spin loop
// makes exhaustive search of the loop finite, and DPOR exact. No event is recorded.
inline void yield(std::source_location loc = std::source_location::current()) {
  detail::op_yield(loc);
}
}  // namespace this_thread

// An await: `spin_until([&] { return flag.load() == 1; });` evaluates the condition until
// it is true, like a spin loop, but a failed attempt is never repeated: the thread blocks
// for the rest of that execution (which is then discarded and counted as pruned), and the
// search explores instead the executions in which the attempt reads later writes (GenMC's
// spin-assume). Every strategy treats it alike, and DPOR keeps its guarantees. Unlike a
// yield() loop, no failed attempt stays in the trace. The condition must only read in an attempt that fails
// (taking a lock with try_lock in a successful one is fine); if no thread ever changes
// what the failed attempt read, the execution is reported as a deadlock (livelock).
template <class Cond>
void spin_until(Cond&& cond, std::source_location loc = std::source_location::current()) {
  detail::op_spin_begin();
  if (!cond()) detail::op_spin_failed(loc);
  detail::op_spin_passed();
}

// A CAS-retry loop, explored once per order of its successful attempts (GenMC's
// spin-assume and confirmation-CAS reductions, docs/dpor.md "CAS-retry loops"):
//
//   for (atomcheck::cas_loop loop;; loop.retry()) {        // or: do { ... }
//     h = head.load();                                   // while (!head.compare_exchange_weak(h, n)
//     n->next.store(h);                                  //        && loop.retry());
//     if (head.compare_exchange_weak(h, n)) break;
//   }
//
// An attempt is the thread's steps since the loop began or since its last retry(). One that
// ends in retry() having written nothing (reads and failed CASes only) is deleted from the
// search: the thread blocks for good, the execution counts as blocked, and the search
// explores instead the executions where the attempt read the later values and succeeded.
// An attempt that wrote (a store, a CAS that won) runs on as written. The contract, as for
// GenMC's loops: what the next attempt does depends only on what this one read (the value
// a failed compare_exchange hands back counts), not on how many attempts ran. A blocked
// attempt that nothing ever changes is reported as a livelock. ExploreOptions::
// loop_reduction (`--no-loop-reduction`) turns it off; outside an exploration it is a
// plain loop.
class cas_loop {
 public:
  explicit cas_loop(std::source_location loc = std::source_location::current()) : at_(loc) {
    if (detail::in_exploration()) detail::op_loop_head(at_);
  }
  cas_loop(const cas_loop&) = delete;
  cas_loop& operator=(const cas_loop&) = delete;
  ~cas_loop() {
    if (detail::in_exploration()) detail::op_loop_exit();
  }
  // Ends a failed attempt; returns true (for `while (!cas(...) && loop.retry())`).
  bool retry() {
    if (detail::in_exploration()) detail::op_loop_retry(at_);
    return true;
  }

  // x.compare_exchange_strong(expected, desired, ...) that, failing, ends the attempt as
  // retry() does (a retry() right after it is then a no-op): the attempt's confirmation,
  // GenMC's confirmation-CAS. Its failure is known to end the attempt, so under rc11
  // (TruSt) the search also lets it fail only on x's latest write, and runs other threads
  // first while it would fail there, or when a revisit would make it fail: an attempt that
  // wrote nothing would only block (docs/waits.md).
  //   do { n->next.store(h); } while (!loop.compare_exchange_weak(head, h, n));
  template <class T>
  bool compare_exchange_strong(atomic<T>& x, T& expected, T desired, std::memory_order success,
                               std::memory_order failure,
                               std::source_location loc = std::source_location::current()) {
    if (!detail::in_exploration()) return x.compare_exchange_strong(expected, desired, success, failure, loc);
    if (x.cas_at(expected, desired, success, loc, failure, true)) return true;
    detail::op_loop_confirm_failed(at_);
    return false;
  }
  template <class T>
  bool compare_exchange_strong(atomic<T>& x, T& expected, T desired,
                               std::memory_order mo = std::memory_order_seq_cst,
                               std::source_location loc = std::source_location::current()) {
    return compare_exchange_strong(x, expected, desired, mo, detail::cas_failure_order(mo), loc);
  }
  // Never fails spuriously, as atomic<T>::compare_exchange_weak.
  template <class T>
  bool compare_exchange_weak(atomic<T>& x, T& expected, T desired, std::memory_order success,
                             std::memory_order failure,
                             std::source_location loc = std::source_location::current()) {
    return compare_exchange_strong(x, expected, desired, success, failure, loc);
  }
  template <class T>
  bool compare_exchange_weak(atomic<T>& x, T& expected, T desired,
                             std::memory_order mo = std::memory_order_seq_cst,
                             std::source_location loc = std::source_location::current()) {
    return compare_exchange_strong(x, expected, desired, mo, detail::cas_failure_order(mo), loc);
  }

 private:
  detail::CallSite at_;
};

// An atomic block: `atomic_block b("transfer");` records `begin` now and `end` when `b`
// goes out of scope. Blocks nest; only the outermost forms a transaction.
class atomic_block {
 public:
  explicit atomic_block(std::string_view label = {},
                        std::source_location loc = std::source_location::current())
      : at_(loc), label_(detail::op_begin(label, at_)) {}
  // A block that is also declared a unit of work on `unit_on` (see unit_of_work).
  atomic_block(std::string_view label, std::initializer_list<std::string_view> unit_on,
               std::source_location loc = std::source_location::current())
      : at_(loc), label_((detail::op_unit_of_work(label, unit_on.begin(), unit_on.size()),
                detail::op_begin(label, at_))) {}
  atomic_block(const atomic_block&) = delete;
  atomic_block& operator=(const atomic_block&) = delete;
  ~atomic_block() { detail::op_end(label_, at_); }

 private:
  detail::CallSite at_;
  LabelId label_;
};

// Atomic sets and units of work (Hammer et al., ICSE 2008), read by the "atomic-set"
// checkers: atomic_set("account", checking, savings) says the variables (atomic or
// shared objects) keep a consistency property together; unit_of_work("transfer",
// {"account"}) says every atomic block labelled "transfer" preserves it (is serializable
// on that set). Declare them in the program body, like the objects, every execution.
// An access belongs to the outermost open block of its thread that is a unit of work on
// its variable's set, or is a unit of its own. Without declarations: all variables are
// one set and every block is a unit of work on it. Variables not in any declared set
// form one set together; blocks whose label is declared nothing are units on every set.
template <class... Vars>
void atomic_set(std::string_view name, const Vars&... vars) {
  const VarId ids[] = {kNoId, vars.id()...};
  detail::op_atomic_set(name, ids + 1, sizeof...(Vars));
}
inline void unit_of_work(std::string_view label, std::initializer_list<std::string_view> sets) {
  detail::op_unit_of_work(label, sets.begin(), sets.size());
}

// Asserts a property of the execution: when `cond` is false the execution fails with
// "assertion failed: message (file:line)" and its schedule is reported.
inline void check(bool cond, std::string_view message = "check failed",
                  std::source_location loc = std::source_location::current()) {
  if (!cond) detail::op_check_failed(message, loc);
}

// When `cond` is false, stops the calling thread for the rest of the execution, which then
// counts as neither completed nor failed (pruned): for restricting a search to
// executions of interest. The other threads run on (GenMC's assume-blocking), so DPOR
// sees the writes that would have made `cond` true; a failure they hit is reported (it
// happened in a prefix that does not contain the assume).
inline void assume(bool cond, std::source_location loc = std::source_location::current()) {
  if (!cond) detail::op_assume_failed(loc);
}

// The allocator model (docs/api.md "Memory: make and destroy"). make<T>(args...) is
// `new T(args...)` whose block the execution tracks: an atomic, shared or mutex inside it
// that is used after destroy() fails the execution as a use after free (naming the free
// and the access, with their threads and steps), a second destroy() is a double free, and
// a block still allocated when the program ends is a leak (ExploreOptions::leak_check).
// Freed memory is not reused unless ExploreOptions::reuse_freed asks for it (the last block
// freed is the next one made, as a LIFO free list gives: the ABA of an untagged stack).
// destroy(p) runs ~T() and frees; destroy(nullptr) does nothing, as delete does.
// noinline: its return address names the caller's line (a pack takes no source_location).
template <class T, class... Args>
[[gnu::noinline]] T* make(Args&&... args) {
  void* block = detail::op_make_block(sizeof(T), alignof(T), detail::type_name<T>(), ATOMCHECK_RETURN_SITE_);
  try {
    T* p = ::new (block) T(std::forward<Args>(args)...);
    detail::op_made(block);
    return p;
  } catch (...) {
    detail::op_make_failed(block);
    throw;
  }
}
template <class T>
void destroy(T* p, std::source_location loc = std::source_location::current()) {
  if (p == nullptr) return;
  // A failure inside ~T() unwinds through here: the block stays allocated (no second report).
  if (detail::op_destroy_begin(static_cast<void*>(p), loc)) {
    p->~T();
    detail::op_destroy_end(static_cast<void*>(p), loc);
  }
}

// Records one component of the execution's final outcome (e.g. a register value of a
// litmus test). Recording the same name twice keeps the last value. Completed
// executions are grouped by outcome in ExploreResult::outcomes.
template <class T>
void outcome(std::string_view name, T value) {
  detail::op_outcome(name, detail::to_bits(value));
}

// Defined in sync.hpp (built on atomic and spin_until).
template <std::ptrdiff_t LeastMaxValue>
class counting_semaphore;
class latch;
class barrier;
class atomic_flag;
class shared_mutex;
class condition_variable;

// The bundle for code templated on its primitives under the harness; std_types
// (std_types.hpp) is the production one.
struct model_types {
  template <class T>
  using atomic = atomcheck::atomic<T>;
  template <class T>
  using shared = atomcheck::shared<T>;
  using mutex = atomcheck::mutex;
  using thread = atomcheck::thread;
  using shared_mutex = atomcheck::shared_mutex;
  template <std::ptrdiff_t LeastMaxValue = INT_MAX>
  using counting_semaphore = atomcheck::counting_semaphore<LeastMaxValue>;
  using binary_semaphore = atomcheck::counting_semaphore<1>;
  using latch = atomcheck::latch;
  using barrier = atomcheck::barrier;
  using atomic_flag = atomcheck::atomic_flag;
  using condition_variable = atomcheck::condition_variable;
  using cas_loop = atomcheck::cas_loop;
  static void fence(std::memory_order mo,
                    std::source_location loc = std::source_location::current()) {
    atomcheck::atomic_thread_fence(mo, loc);
  }
  // `new T(args...)` and `delete p` under the allocator model (atomcheck::make, destroy).
  template <class T, class... Args>
  [[gnu::always_inline]] static inline T* make(Args&&... args) {
    return atomcheck::make<T>(std::forward<Args>(args)...);
  }
  template <class T>
  static void destroy(T* p, std::source_location loc = std::source_location::current()) {
    atomcheck::destroy(p, loc);
  }
  // Names an atomic, shared or mutex in traces and reports (unnamed: its declaration's
  // file:line).
  template <class Object>
  static void name(Object& object, std::string_view name) {
    object.set_name(name);
  }
};

}  // namespace atomcheck

// Registers a test program under a name, so `atomcheck run NAME` finds it:
//   ATOMCHECK_PROGRAM("sb", "store buffering: can both threads read 0?") { ... }
// The body is the program's thread 0.
#define ATOMCHECK_CAT2_(a, b) a##b
#define ATOMCHECK_CAT_(a, b) ATOMCHECK_CAT2_(a, b)
#define ATOMCHECK_PROGRAM_IMPL_(id, name, description)                                      \
  static void ATOMCHECK_CAT_(atomcheck_program_body_, id)();                                \
  static const ::atomcheck::detail::ProgramRegistrar ATOMCHECK_CAT_(atomcheck_program_reg_, \
                                                                   id)(                     \
      name, description, &ATOMCHECK_CAT_(atomcheck_program_body_, id), __FILE__, __LINE__); \
  static void ATOMCHECK_CAT_(atomcheck_program_body_, id)()
#define ATOMCHECK_PROGRAM(name, description) \
  ATOMCHECK_PROGRAM_IMPL_(__COUNTER__, name, description)
