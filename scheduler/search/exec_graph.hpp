// The execution graph of one run as a graph-based strategy reads it (TruSt,
// strategy_trust.cpp): plain data a memory model with choices (RC11) fills at the end of
// an execution, so that search/ decides revisits without knowing the memory model.
#pragma once

#include <cstdint>
#include <vector>

#include "../../trace/event.hpp"

namespace atomcheck {

// An event's identity across executions: its thread and its 1-based index in the
// thread (the thread re-creates it on replay). 0 names a variable's initial write.
inline std::uint64_t graph_key(ThreadId t, std::uint32_t n) {
  return (static_cast<std::uint64_t>(t) + 1) << 32 | n;
}

// An option key with this bit: an RMW that reads a write another RMW read, breaking
// atomicity (listed to graph strategies only, after the consistent options; never taken).
constexpr std::uint64_t kMootKey = std::uint64_t{1} << 63;

// One event, in the order it was added.
struct GraphEvent {
  enum class Kind : std::uint8_t { read, write, fence, other };
  ThreadId thread = 0;
  std::uint32_t n = 0;  // 1-based index in its thread
  Kind kind = Kind::other;
  bool rmw_write = false;  // the write half of an RMW (its read is the event before it)
  bool plain = false;      // a non-atomic access: its value is hb's, no choice
  // read: a mutex's acquire (lock words). It reads only a free lock: a revisit that would
  // make it read an RMW's write (an acquire's "held") makes its thread wait instead.
  bool lock = false;
  // read: a compare-exchange confirming a cas_loop attempt that wrote nothing (RmwFn::
  // confirming). A revisit that would make it fail makes its thread wait instead.
  bool confirming = false;
  // read: the read half of a read-modify-write, which writes when it reads `value` (cas)
  // or whatever it reads (always), both whether or not it wrote in this run.
  enum class Rmw : std::uint8_t { none, cas, always };
  Rmw rmw = Rmw::none;
  VarId var = kNoId;
  std::int64_t value = 0;    // write: the value written; cas read: the one expected
  std::uint32_t rf = ~0u;    // read: the event it reads (~0u: the initial write)
  std::uint32_t pred = ~0u;  // join: the child's last event; lock ops: the lock's last
  std::uint32_t step = ~0u;  // the History step that made it (~0u: a forced run)
  std::uint32_t mo_pos = 0;  // write: index in its variable's mo (0 is the initial write)
};

struct ExecGraph {
  std::vector<GraphEvent> events;
  std::vector<std::uint32_t> spawned_at;      // per thread: the parent's spawn event (~0u: none)
  std::vector<std::vector<std::uint32_t>> mo; // per variable: write events in mo (~0u: initial)
  // Keeps every vector's capacity, the inner ones' too: a graph is exported per execution.
  void clear() {
    events.clear();
    spawned_at.clear();
    for (std::vector<std::uint32_t>& m : mo) m.clear();
    mo.resize(0);
  }
};

}  // namespace atomcheck
