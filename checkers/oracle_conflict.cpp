// Brute-force conflict serializability and Theorem-2 blame (see oracle_conflict.hpp).
// The transaction graph grows one event at a time, so the first event at which a cycle
// exists (the shortest non-serializable prefix) is known exactly: fast checkers are
// compared against it.
#include "checkers/oracle_conflict.hpp"

#include <algorithm>
#include <cstdint>

#include "trace/transactions.hpp"

namespace atomcheck {

namespace {

// Bit set over event indices, for the happens-before closure.
struct Bits {
  std::vector<std::uint64_t> w;
  explicit Bits(std::size_t n) : w((n + 63) / 64, 0) {}
  void set(std::size_t i) { w[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool test(std::size_t i) const { return (w[i / 64] >> (i % 64)) & 1u; }
  void merge(const Bits& o) {
    for (std::size_t k = 0; k < w.size(); ++k) w[k] |= o.w[k];
  }
};

}  // namespace

Verdict ConflictOracle::verdict() {
  Verdict v;
  v.checker = "oracle";
  v.answers_serializability = true;
  v.answers_blame = true;
  const std::size_t n = events_.size();
  Transactions tx = assign_transactions(std::span<const Event>(events_));
  auto ref = [&](TxnId t) { return TxnRef{tx.txns[t].thread, tx.txns[t].first}; };
  v.open_at_end = tx.any_open_at_end;
  const std::size_t m = tx.txns.size();

  // (a) Transaction graph, built event by event. edge[a][b] holds the first pair of
  // conflicting events that put transaction a before b (kNoEvent: no edge yet).
  struct EdgeWitness {
    EventIndex from = kNoEvent, to = kNoEvent;
  };
  std::vector<std::vector<EdgeWitness>> edge(m, std::vector<EdgeWitness>(m));
  std::vector<std::vector<TxnId>> succ(m);
  // Finds a path src ->* dst by DFS; returns it as a list of transactions.
  auto find_path = [&](TxnId src, TxnId dst, std::vector<TxnId>& path) {
    std::vector<TxnId> parent(m, static_cast<TxnId>(-1));
    std::vector<char> seen(m, 0);
    std::vector<TxnId> stack{src};
    seen[src] = 1;
    while (!stack.empty()) {
      TxnId a = stack.back();
      stack.pop_back();
      if (a == dst) {
        path.clear();
        for (TxnId c = dst; c != src; c = parent[c]) path.push_back(c);
        path.push_back(src);
        std::reverse(path.begin(), path.end());
        return true;
      }
      for (TxnId b : succ[a]) {
        if (!seen[b]) {
          seen[b] = 1;
          parent[b] = a;
          stack.push_back(b);
        }
      }
    }
    return false;
  };
  for (std::size_t j = 0; j < n && v.serializable; ++j) {
    TxnId b = tx.txn_of[j];
    for (std::size_t i = 0; i < j; ++i) {
      TxnId a = tx.txn_of[i];
      if (a == b || edge[a][b].from != kNoEvent) continue;
      if (!sc_conflict(events_[i], events_[j])) continue;
      edge[a][b] = {i, j};
      succ[a].push_back(b);
      std::vector<TxnId> path;
      if (find_path(b, a, path)) {
        // Cycle a -> b -> ... -> a.
        v.serializable = false;
        v.detected_at = j;
        path.push_back(b);  // close: path is b ... a, then a -> b
        for (std::size_t k = 0; k + 1 < path.size(); ++k) {
          TxnId f = path[k], t = path[k + 1];
          v.cycle.push_back(CycleEdge{ref(f), ref(t), edge[f][t].from, edge[f][t].to});
        }
        break;
      }
    }
  }

  // (b) Blame by Theorem 2: tx is blamed iff tx.begin -> e_x -> e_m for an e_x of
  // another thread and an e_m in tx, -> being conflict-happens-before. before[j] is the
  // set of events strictly before j in that order.
  std::vector<Bits> before(n, Bits(n));
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      if (before[j].test(i) || !sc_conflict(events_[i], events_[j])) continue;
      before[j].merge(before[i]);
      before[j].set(i);
    }
  }
  for (TxnId t = 0; t < m; ++t) {
    const TxnInfo& info = tx.txns[t];
    if (info.unary) continue;  // begin -> e_x -> begin is impossible
    bool found = false;
    for (std::size_t mi = info.first + 1; mi < n && !found; ++mi) {
      if (tx.txn_of[mi] != t) continue;
      for (std::size_t x = info.first + 1; x < mi && !found; ++x) {
        if (events_[x].thread == info.thread) continue;
        if (before[x].test(info.first) && before[mi].test(x)) {
          v.blamed.push_back(Blame{ref(t), x, mi});
          found = true;
        }
      }
    }
  }
  if (v.open_at_end)
    v.note = "a transaction was still open at the end of the trace; judged as ended there";
  (void)options_;
  return v;
}

}  // namespace atomcheck
