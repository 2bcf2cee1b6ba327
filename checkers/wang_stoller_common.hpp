// What both Wang-Stoller algorithms read off a trace: its transactions (as
// assign_transactions numbers them), the locks each thread holds at every event (with
// the acquire that took each lock, so "held continuously from e1 to e2" is exact), and
// short printable names for events in notes. Internal to checkers/wang_stoller_*.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "../trace/event.hpp"
#include "../trace/transactions.hpp"

namespace atomcheck::ws {

// A lock held by a thread, and the acquire event that took it.
struct Hold {
  LockId lock = kNoId;
  EventIndex acquired_at = kNoEvent;
  bool operator==(const Hold&) const = default;
};

struct Model {
  std::vector<Event> ev;
  Transactions tx;
  std::vector<std::vector<EventIndex>> txn_events;  // per transaction, in trace order
  std::vector<std::uint32_t> pos_in_txn;            // per event: index in txn_events
  // Per event: locks held by its thread just before and just after it (an acquire's own
  // lock is only in `after`, a release's only in `before`). Locks acquired in an earlier
  // transaction of the thread count (held across the transaction boundary).
  std::vector<std::vector<Hold>> before, after;
};

Model build_model(std::span<const Event> events);

// held(e) of the paper: the locks held while e executes (before and after together).
std::vector<LockId> held(const Model& m, EventIndex e);
// Locks held continuously from before e1 until after e2 (e1 before e2, one thread).
std::vector<LockId> held_between(const Model& m, EventIndex e1, EventIndex e2);
bool intersects(const std::vector<LockId>& a, const std::vector<LockId>& b);

// "w(v3)@7": op, target and event index, for notes.
std::string describe(const Event& e, EventIndex i);
// "T1@4": the transaction's thread and first event.
std::string describe_txn(const Model& m, TxnId t);

}  // namespace atomcheck::ws
