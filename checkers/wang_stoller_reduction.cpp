// Reduction-based Wang-Stoller checker (see the header). Quadratic in the number of
// accesses for Theorem 4.3, linear for Theorem 4.4, as the paper's §4 estimates.
#include "checkers/wang_stoller_reduction.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "checkers/wang_stoller_common.hpp"

namespace atomcheck {

std::vector<WangStollerReduction::Mover> WangStollerReduction::classify() const {
  ws::Model m = ws::build_model(events_);
  const std::size_t n = events_.size();
  std::vector<Mover> cls(n, Mover::both);
  std::vector<std::vector<LockId>> held(n);
  std::map<VarId, std::vector<EventIndex>> accesses;
  for (EventIndex i = 0; i < n; ++i) {
    if (!is_access(events_[i].op)) continue;
    held[i] = ws::held(m, i);
    accesses[events_[i].target].push_back(i);
  }
  for (const auto& [var, list] : accesses) {
    if (theorem_ == 44) {
      std::vector<LockId> common = held[list.front()];
      for (EventIndex i : list) {
        std::vector<LockId> keep;
        for (LockId l : common)
          if (std::find(held[i].begin(), held[i].end(), l) != held[i].end()) keep.push_back(l);
        common = std::move(keep);
      }
      if (common.empty())
        for (EventIndex i : list) cls[i] = Mover::non;
      continue;
    }
    for (EventIndex i : list) {
      bool i_writes = is_write_like(events_[i].op);
      for (EventIndex j : list) {
        if (events_[j].thread == events_[i].thread) continue;
        if (!i_writes && !is_write_like(events_[j].op)) continue;
        if (!ws::intersects(held[i], held[j])) {
          cls[i] = Mover::non;
          break;
        }
      }
    }
  }
  for (EventIndex i = 0; i < n; ++i) {
    switch (events_[i].op) {
      case Op::acquire:
      case Op::join: cls[i] = Mover::right; break;
      case Op::release:
      case Op::fork: cls[i] = Mover::left; break;
      default: break;
    }
  }
  return cls;
}

Verdict WangStollerReduction::verdict() {
  Verdict v;
  v.checker = std::string(name());
  v.answers_serializability = true;
  ws::Model m = ws::build_model(events_);
  v.open_at_end = m.tx.any_open_at_end;
  std::vector<Mover> cls = classify();
  auto letter = [](Mover c) {
    switch (c) {
      case Mover::both: return 'B';
      case Mover::left: return 'L';
      case Mover::right: return 'R';
      default: return 'N';
    }
  };
  for (TxnId t = 0; t < m.txn_events.size(); ++t) {
    EventIndex commit = kNoEvent;  // the event that ended the (R+B)* phase
    for (EventIndex i : m.txn_events[t]) {
      Mover c = cls[i];
      if (commit == kNoEvent) {
        if (c == Mover::non || c == Mover::left) commit = i;
        continue;
      }
      if (c == Mover::right || c == Mover::non) {
        v.serializable = false;
        v.blamed.push_back(Blame{TxnRef{m.tx.txns[t].thread, m.tx.txns[t].first}, commit, i});
        if (v.note.empty()) {
          std::string shape;
          for (EventIndex k : m.txn_events[t]) shape += letter(cls[k]);
          v.note = fmt::format("{}: {} ({}) then {} ({}): not (R+B)*N?(L+B)*, the transaction reads {}",
                               ws::describe_txn(m, t), ws::describe(events_[commit], commit),
                               letter(cls[commit]), ws::describe(events_[i], i), letter(c), shape);
        }
        break;
      }
    }
    if (!v.serializable && !options_.all) break;
  }
  if (v.open_at_end) {
    if (!v.note.empty()) v.note += "; ";
    v.note += "a transaction was still open at the end of the trace; judged as ended there";
  }
  return v;
}

}  // namespace atomcheck
