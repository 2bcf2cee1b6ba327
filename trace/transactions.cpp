// Whole-trace transaction assignment (see transactions.hpp for the rules).
#include "trace/transactions.hpp"

namespace atomcheck {

Transactions assign_transactions(std::span<const Event> events) {
  Transactions out;
  out.txn_of.resize(events.size(), 0);
  std::vector<std::uint32_t> depth;  // per thread
  std::vector<TxnId> current;        // per thread: its open outermost transaction
  auto grow = [&](ThreadId t) {
    if (t >= depth.size()) {
      depth.resize(static_cast<std::size_t>(t) + 1, 0);
      current.resize(static_cast<std::size_t>(t) + 1, 0);
    }
  };
  auto open_txn = [&](ThreadId t, EventIndex i, bool unary) {
    out.txns.push_back(TxnInfo{t, i, i, unary, false});
    return static_cast<TxnId>(out.txns.size() - 1);
  };
  for (EventIndex i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    ThreadId t = e.thread;
    grow(t);
    TxnId id;
    if (e.op == Op::commit && e.issue != kNoEvent && e.issue < i) {
      id = out.txn_of[e.issue];
    } else if (e.op == Op::begin) {
      if (depth[t]++ == 0) current[t] = open_txn(t, i, false);
      id = current[t];
    } else if (e.op == Op::end && depth[t] > 0) {
      id = current[t];
      --depth[t];
    } else if (depth[t] > 0) {
      id = current[t];
    } else {
      id = open_txn(t, i, true);
    }
    out.txn_of[i] = id;
    if (out.txns[id].last < i || out.txns[id].last == kNoEvent) out.txns[id].last = i;
  }
  for (ThreadId t = 0; t < depth.size(); ++t) {
    if (depth[t] > 0) {
      out.txns[current[t]].open_at_end = true;
      out.any_open_at_end = true;
    }
  }
  return out;
}

}  // namespace atomcheck
