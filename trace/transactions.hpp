// Which transaction every event belongs to (DESIGN.md "Conflicts for the SC checkers"):
// an outermost begin/end block of a thread is one transaction (nested blocks count only
// at the outermost level), an event outside every block is a unary transaction of its
// own (never merged with its neighbours), a commit belongs to the transaction of its
// write-issue, and a block still open at the end of the trace is judged as ended there.
// Two forms: a whole-trace assignment for oracles and tests, and a tiny streaming helper
// that every streaming checker uses to follow the per-thread nesting depth.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "event.hpp"
#include "trace.hpp"

namespace atomcheck {

using TxnId = std::uint32_t;

// One transaction of an assignment. `first` is the outermost begin (or the single event
// of a unary transaction); `last` is the largest event index in the transaction (its
// outermost end, or a later commit of one of its writes, or the last event of its thread
// when it is still open at the end).
struct TxnInfo {
  ThreadId thread = 0;
  EventIndex first = kNoEvent;
  EventIndex last = kNoEvent;
  bool unary = false;        // an event outside every block
  bool open_at_end = false;  // its outermost end never came; judged as ended at the end
};

// The transaction of every event of one trace: txn_of[i] indexes txns. Transactions are
// numbered in order of their first event.
struct Transactions {
  std::vector<TxnId> txn_of;
  std::vector<TxnInfo> txns;
  bool any_open_at_end = false;
};

// Assigns transactions to a whole trace. Tolerates malformed nesting: an `end` with no
// open block is a unary event of its own. A commit whose `issue` is not an earlier event
// falls back to its thread's current transaction (a unary one outside blocks).
Transactions assign_transactions(std::span<const Event> events);
inline Transactions assign_transactions(const Trace& trace) {
  return assign_transactions(std::span<const Event>(trace.events));
}

// Streaming helper: follows the begin/end nesting depth of every thread and says, for
// each event, how it sits in its transaction. Grows its per-thread array on demand, so
// no allocation per event once warm. Commits are classified by their thread's current
// depth; checkers that need the exact commit rule use assign_transactions.
class NestingTracker {
 public:
  enum class Role : std::uint8_t {
    unary,        // outside every block: a one-event transaction
    outer_begin,  // opens a transaction
    outer_end,    // closes a transaction
    inside,       // strictly inside a transaction (including nested begin/end)
  };

  Role on_event(const Event& e) {
    ThreadId t = e.thread;
    if (t >= depth_.size()) depth_.resize(static_cast<std::size_t>(t) + 1, 0);
    std::uint32_t& d = depth_[t];
    if (e.op == Op::begin) {
      ++d;
      if (d == 1) {
        ++open_;
        return Role::outer_begin;
      }
      return Role::inside;
    }
    if (e.op == Op::end) {
      if (d == 0) return Role::unary;  // stray end: malformed, harmless on its own
      --d;
      if (d == 0) {
        --open_;
        return Role::outer_end;
      }
      return Role::inside;
    }
    return d == 0 ? Role::unary : Role::inside;
  }

  // Nesting depth of a thread right now (0 outside every block).
  std::uint32_t depth(ThreadId t) const { return t < depth_.size() ? depth_[t] : 0; }
  bool in_transaction(ThreadId t) const { return depth(t) > 0; }
  // Some thread is inside a block: if the trace ends now, that transaction is open.
  bool any_open() const { return open_ > 0; }

  void reset() {
    std::fill(depth_.begin(), depth_.end(), 0);
    open_ = 0;
  }

 private:
  std::vector<std::uint32_t> depth_;
  std::uint32_t open_ = 0;
};

}  // namespace atomcheck
