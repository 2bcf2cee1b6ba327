// Lock holdings and transactions for the Wang-Stoller checkers (see the header).
#include "checkers/wang_stoller_common.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace atomcheck::ws {

Model build_model(std::span<const Event> events) {
  Model m;
  m.ev.assign(events.begin(), events.end());
  m.tx = assign_transactions(events);
  m.txn_events.resize(m.tx.txns.size());
  m.pos_in_txn.resize(events.size());
  m.before.resize(events.size());
  m.after.resize(events.size());
  std::vector<std::vector<Hold>> holding;  // per thread
  for (EventIndex i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    TxnId t = m.tx.txn_of[i];
    m.pos_in_txn[i] = static_cast<std::uint32_t>(m.txn_events[t].size());
    m.txn_events[t].push_back(i);
    if (e.thread >= holding.size()) holding.resize(static_cast<std::size_t>(e.thread) + 1);
    std::vector<Hold>& h = holding[e.thread];
    m.before[i] = h;
    if (e.op == Op::acquire) {
      h.push_back(Hold{e.target, i});
    } else if (e.op == Op::release) {
      auto it = std::find_if(h.begin(), h.end(), [&](const Hold& x) { return x.lock == e.target; });
      if (it != h.end()) h.erase(it);
    }
    m.after[i] = h;
  }
  return m;
}

std::vector<LockId> held(const Model& m, EventIndex e) {
  std::vector<LockId> out;
  for (const Hold& h : m.before[e]) out.push_back(h.lock);
  for (const Hold& h : m.after[e]) out.push_back(h.lock);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<LockId> held_between(const Model& m, EventIndex e1, EventIndex e2) {
  std::vector<LockId> out;
  for (const Hold& h : m.before[e1])
    if (std::find(m.after[e2].begin(), m.after[e2].end(), h) != m.after[e2].end()) out.push_back(h.lock);
  std::sort(out.begin(), out.end());
  return out;
}

bool intersects(const std::vector<LockId>& a, const std::vector<LockId>& b) {
  for (LockId x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

std::string describe(const Event& e, EventIndex i) {
  switch (e.op) {
    case Op::read: return fmt::format("r(v{})@{}", e.target, i);
    case Op::write: return fmt::format("w(v{})@{}", e.target, i);
    case Op::rmw: return fmt::format("rmw(v{})@{}", e.target, i);
    case Op::acquire: return fmt::format("acq(l{})@{}", e.target, i);
    case Op::release: return fmt::format("rel(l{})@{}", e.target, i);
    case Op::fork: return fmt::format("fork(T{})@{}", e.target, i);
    case Op::join: return fmt::format("join(T{})@{}", e.target, i);
    default: return fmt::format("{}@{}", op_name(e.op), i);
  }
}

std::string describe_txn(const Model& m, TxnId t) {
  return fmt::format("T{}@{}", m.tx.txns[t].thread, m.tx.txns[t].first);
}

}  // namespace atomcheck::ws
