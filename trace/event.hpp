// The event vocabulary shared by the scheduler, the trace files and every checker
// (DESIGN.md "Events"). An Event is plain data of fixed size with dense integer ids, so
// a trace is one flat vector and checkers index flat arrays by thread, variable or lock.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace atomcheck {

using ThreadId = std::uint32_t;
using VarId = std::uint32_t;
using LockId = std::uint32_t;
using LabelId = std::uint32_t;
using EventIndex = std::uint64_t;

inline constexpr std::uint32_t kNoId = std::numeric_limits<std::uint32_t>::max();
inline constexpr EventIndex kNoEvent = std::numeric_limits<EventIndex>::max();

inline constexpr std::uint8_t kPlainOrder = 6;  // Event::order of a non-atomic access
inline constexpr std::uint8_t kNoOrder = 0xff;
inline constexpr std::uint16_t kNoMoPos = 0xffff;  // Event::mo_pos not recorded

// Event::order holds std::memory_order's value (relaxed 0, consume 1, acquire 2, release 3,
// acq_rel 4, seq_cst 5): what happens-before turns on, for whoever rebuilds it from a trace.
inline constexpr bool order_acquires(std::uint8_t o) { return o == 1 || o == 2 || o == 4 || o == 5; }
inline constexpr bool order_releases(std::uint8_t o) { return o == 3 || o == 4 || o == 5; }
// An RMW's order names both halves: its read half acquires at most, its write half
// releases at most.
inline constexpr std::uint8_t rmw_read_order(std::uint8_t o) { return o == 3 ? 0 : o == 4 ? 2 : o; }
inline constexpr std::uint8_t rmw_write_order(std::uint8_t o) { return o == 1 || o == 2 ? 0 : o == 4 ? 3 : o; }

// What an event does. Under TSO `write` is the write-issue into the store buffer and
// `commit` is the moment that write reaches memory.
enum class Op : std::uint8_t {
  read,
  write,
  commit,
  fence,
  rmw,
  acquire,
  release,
  fork,
  join,
  begin,
  end,
};
inline constexpr int kOpCount = 11;

// One event. `target` is interpreted by `op`: the variable of read/write/commit/rmw,
// the lock of acquire/release, the child thread of fork/join, the label of begin/end
// (kNoId when the block has no label). Transactions are not stored: they follow from
// the begin/end nesting of each thread (outermost blocks; everything else is unary),
// and a commit belongs to the transaction of its issue.
struct Event {
  Op op = Op::read;
  bool buffered = false;   // read served by the thread's own store buffer (TSO)
  ThreadId thread = 0;
  std::uint32_t target = kNoId;
  std::int64_t value = 0;   // read/write/commit: the value; rmw: the old value
  std::int64_t value2 = 0;  // rmw: the new value; failed_cas read: the expected value
  EventIndex issue = kNoEvent;  // commit: index (in the execution) of its write-issue
  std::uint32_t loc = 0;    // source location, as RAPID's third field; 0 when unknown
  // A read that is a failed compare-exchange: reports show it with the value it
  // expected (value2). Checkers see a plain read; trace files do not keep it. Last, in
  // the padding after `loc`, so positional initialisers and the size are unchanged.
  bool failed_cas = false;
  // The access's or fence's memory order as the program gave it (std::memory_order's
  // value; kPlainOrder for a non-atomic shared<T>, kNoOrder where none applies), in the
  // padding too. Under rc11 a read's or rmw's `issue` is the index of the write event it
  // read (kNoEvent: the variable's initial value): with the orders, the events then say
  // RC11's happens-before (docs/linearizability.md). Trace files keep neither.
  std::uint8_t order = kNoOrder;
  // Under rc11, a write's or rmw's index in its variable's modification order when it was
  // made (the initial value is 0): inserting each write at its mo_pos, in trace order,
  // rebuilds the execution's mo (GenMC's co). kNoMoPos elsewhere, and past 65,534 writes
  // of one variable. Trace files do not keep it. In the padding too.
  std::uint16_t mo_pos = kNoMoPos;
};

constexpr bool is_access(Op op) {
  return op == Op::read || op == Op::write || op == Op::commit || op == Op::rmw;
}
// Does this access change memory as seen by an SC checker reading the trace?
constexpr bool is_write_like(Op op) {
  return op == Op::write || op == Op::commit || op == Op::rmw;
}
constexpr bool is_lock_op(Op op) { return op == Op::acquire || op == Op::release; }
constexpr bool is_thread_op(Op op) { return op == Op::fork || op == Op::join; }
constexpr bool is_block_op(Op op) { return op == Op::begin || op == Op::end; }

// Do events a (earlier) and b (later) of a trace conflict for the SC checkers? (AeroDrome
// §2 with rmw and commit counting as writes; DESIGN.md "Conflicts for the SC checkers".)
constexpr bool sc_conflict(const Event& a, const Event& b) {
  if (a.thread == b.thread) return true;
  if (a.op == Op::fork && a.target == b.thread) return true;
  if (b.op == Op::join && b.target == a.thread) return true;
  if (is_access(a.op) && is_access(b.op) && a.target == b.target && (is_write_like(a.op) || is_write_like(b.op)))
    return true;
  return a.op == Op::release && b.op == Op::acquire && a.target == b.target;
}

// Lower-case names used by the JSON-lines format and in reports.
std::string_view op_name(Op op);
// Parses an op_name; returns false when the name is unknown.
bool parse_op(std::string_view name, Op& out);

}  // namespace atomcheck
