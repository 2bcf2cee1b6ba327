// A Trace is a flat vector of events plus the name tables that map dense ids back to
// the names of the input (thread, variable, lock and label names), kept for printing.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "event.hpp"

namespace atomcheck {

// Hash for heterogeneous lookup: a std::string_view finds a std::string key without
// building a temporary string, so the trace readers look names up without allocating.
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept {
    return std::hash<std::string_view>{}(s);
  }
};

// Interns names to dense ids 0, 1, 2, ... in order of first appearance.
struct NameTable {
  std::vector<std::string> names;
  std::unordered_map<std::string, std::uint32_t, NameHash, std::equal_to<>> ids;

  std::uint32_t intern(std::string_view name);
  // kNoId when absent.
  std::uint32_t find(std::string_view name) const;
  const std::string& name(std::uint32_t id) const { return names[id]; }
  std::size_t size() const { return names.size(); }
  void clear() {
    names.clear();
    ids.clear();
  }
};

// The name tables of one trace or of one stream of events.
struct Names {
  NameTable threads, vars, locks, labels;
  // Event::loc -> "file:line": locs.names[loc] when present and not empty. Filled for
  // executions of C++ test programs (scheduler/call_sites.hpp); trace files carry bare
  // numbers, as RAPID's location field.
  NameTable locs;

  // A printable name for an id, falling back to a synthetic one ("T3", "v7", ...) when
  // the table does not have it (events built in code without names).
  std::string thread(ThreadId id) const;
  std::string var(VarId id) const;
  std::string lock(LockId id) const;
  std::string label(LabelId id) const;
  // "file:line", else "loc N" for a bare number; empty for 0 (no location).
  std::string loc(std::uint32_t id) const;
};

// A value as reports print it: decimal, and past 2^16 in magnitude also hex beside it
// ("1311768467 (0x4e2f0f93)"), since large values are mostly pointers and packed words.
std::string format_value(std::int64_t v);

// What the C++ memory model turns on, for a report of an RC11 execution: an access's or a
// fence's memory order and, for a read or read-modify-write, the write event it read
// (Event::issue under rc11): " (acquire, reads #12)", " (relaxed, reads the initial
// value)", " (release)"; "" for an event without an order.
std::string rc11_note(const Event& e);
// Event::order's name ("relaxed", ..., "seq_cst", "plain"); "" for kNoOrder.
std::string_view order_name(std::uint8_t order);

// A pointer into the allocator model's heap (make()), as events record it: the thread whose
// arena holds the block and the offset in that arena, the same in every execution (and every
// --jobs worker and replay) that made the same allocations before it, where the address is
// not. The low 48 bits are replaced, the high 16 kept (a tagged pointer's counter): bits
// 44..47 are 0xA, above any user-space address, thread in 36..43, offset below.
// format_value prints an untagged one as "&T1+64".
inline constexpr std::int64_t kHeapValueTag = std::int64_t{0xa} << 44;
inline constexpr std::int64_t kHeapValueMask = std::int64_t{0xf} << 44;
inline constexpr std::int64_t kHeapPointerBits = (std::int64_t{1} << 48) - 1;
constexpr std::int64_t heap_value(std::int64_t high, std::uint32_t thread, std::uint64_t offset) {
  return (high & ~kHeapPointerBits) | kHeapValueTag | static_cast<std::int64_t>(thread & 0xffu) << 36 |
         static_cast<std::int64_t>(offset & ((std::uint64_t{1} << 36) - 1));
}
constexpr bool is_heap_value(std::int64_t v) { return (v & ~kHeapPointerBits) == 0 && (v & kHeapValueMask) == kHeapValueTag; }

// Something an execution did that is no event of the trace (the allocator model's free: a
// free is no access, so no checker sees it), kept so that a report can show where it
// happened: before event `before`, by `thread`, at source location `loc`.
struct TraceNote {
  EventIndex before = 0;
  ThreadId thread = 0;
  std::uint32_t loc = 0;
  std::string text;
};

// An execution or trace: events in scheduled order.
struct Trace {
  std::vector<Event> events;
  Names names;
  std::vector<TraceNote> notes{};  // in the order of `before`

  std::size_t size() const { return events.size(); }
  void clear() {
    events.clear();
    names = Names{};
    notes.clear();
  }
};

// The trace tau of an execution eta: eta without its commit events (DESIGN.md). The
// `issue` indices of the remaining events are meaningless in tau and are reset.
Trace drop_commits(const Trace& execution);

}  // namespace atomcheck
