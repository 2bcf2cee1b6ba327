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

// An execution or trace: events in scheduled order.
struct Trace {
  std::vector<Event> events;
  Names names;

  std::size_t size() const { return events.size(); }
  void clear() {
    events.clear();
    names = Names{};
  }
};

// The trace tau of an execution eta: eta without its commit events (DESIGN.md). The
// `issue` indices of the remaining events are meaningless in tau and are reset.
Trace drop_commits(const Trace& execution);

}  // namespace atomcheck
