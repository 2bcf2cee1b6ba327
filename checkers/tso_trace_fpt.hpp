// Trace TSO-serializability in one pass over the trace (issue 39; docs/trace-tso-fpt.md).
//
// A forward search over Execs(tau) that keeps, after each event of tau, the set of
// distinct *summaries* of the executions of the prefix, not the executions: per
// summary, the pending store buffers, the transactions still able to receive a conflict
// edge (live), the reachability between them, and for each conflict class (which later
// events an event conflicts with, e.g. "commits and rmws of x by thread u") the live
// transactions that reach a transaction with an event of that class. A new event (or a
// commit placed before it) closes a cycle iff its transaction already reaches an
// earlier event it conflicts with; that is checked on the summary alone (Velodrome's
// rule, with ⊚TSO's exceptions as classes). Commits are placed only where moving them
// later would change a conflict (the canonical placements), equal summaries merge, and
// a summary that another dominates (the same buffers and larger sets, or fewer commits
// that, placed now, give larger sets) is dropped: it could close no cycle the other
// cannot.
//
// Cost: O(n * S * (L + classes)) word operations for n events, S summaries alive at
// once and L live transactions (one bit each, no cap), and memory O(S * L * (L +
// classes) / 64), independent of n. A buffer keeps, per variable, its oldest and newest
// pending write (bounded buffers), so S and L are bounded by the threads, the
// variables and the reads of a thread's own pending write, whatever the depth of the
// buffers; the dominance and the glue of commits
// that leave no trace keep S small on the measured traces. A prefix whose transactions
// all have one event has no cycle in any placement: it is kept as one summary
// (docs/trace-tso-fpt.md has the arguments and the measurements).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "tso_trace.hpp"

namespace atomcheck::tso {

struct StreamLimits {
  // Summaries alive at once before the decider gives up (undecided).
  std::size_t max_states = 200000;
  // Memory the summaries of one event may take (about: slot sets, classes, buffers)
  // before the decider gives up (undecided). The number of live transactions has no
  // cap of its own: a summary keeps one bit per live transaction in a slot set.
  std::size_t max_bytes = std::size_t{1} << 30;
  // Events of tau kept to print the witness (its cycle and commit placement); past
  // this a violation is still found, reported without them. The execution checker that
  // reads the cycle off the witness compares every pair of its events, and an unfenced
  // witness commits most writes together at the cycle, each against every earlier read
  // of its variable: 2^16 events took minutes and gigabytes there, 2^12 a fraction of
  // a second.
  std::uint64_t witness_events = 1u << 12;
  // Keep, per thread and variable, only the oldest and the newest pending write; a write
  // between them leaves the buffer without a commit (docs/trace-tso-fpt.md, "Bounded
  // buffers": every cycle through its commit also runs through one of those two). Off,
  // a buffer keeps every pending write (the exact search the tests compare it with).
  bool bounded_buffers = true;
};

class TraceStream {
 public:
  explicit TraceStream(StreamLimits limits = {});
  ~TraceStream();
  TraceStream(const TraceStream&) = delete;
  TraceStream& operator=(const TraceStream&) = delete;

  // tau's next event (a commit in the input is ignored: placements are searched).
  void on_event(const Event& e, const Deadline& deadline = {});
  // The end of tau: the answer. The stream can then be reset().
  TraceVerdict finish(const Deadline& deadline = {});
  void reset();

  // The events a later finish() can name (the cycle's events and transactions, once
  // found) and where the violation was seen (kNoEvent: none yet): Checker::live_events.
  void live_events(std::vector<EventIndex>& out, EventIndex& first_problem) const;

  // Largest number of summaries and of live transactions seen at once (for the bench).
  std::size_t peak_states() const;
  std::size_t peak_live() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The same on a whole trace.
TraceVerdict decide_stream(std::span<const Event> tau, const Deadline& deadline = {}, StreamLimits limits = {});

}  // namespace atomcheck::tso
