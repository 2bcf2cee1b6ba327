// View-serializability oracle and the exhaustive interleaving judge (see the header).
// Simplest code that is obviously right, plus just enough pruning for the paper's
// examples and the property tests' small random traces.
#include "checkers/view_serializability.hpp"

#include <algorithm>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

namespace atomcheck {

namespace {

constexpr bool reads(Op op) { return op == Op::read || op == Op::rmw; }
constexpr bool writes(Op op) { return op == Op::write || op == Op::rmw || op == Op::commit; }

// Dense remap of the variables a trace accesses.
std::vector<std::uint32_t> dense_vars(std::span<const Event> ev, std::size_t& count) {
  std::vector<VarId> ids;
  for (const Event& e : ev)
    if (is_access(e.op)) ids.push_back(e.target);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  count = ids.size();
  std::vector<std::uint32_t> out(ev.size(), kNoId);
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (is_access(ev[i].op))
      out[i] = static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), ev[i].target) - ids.begin());
  return out;
}

struct SerialSearch {
  struct Txn {
    std::vector<std::pair<std::uint32_t, EventIndex>> ext_reads;  // (var, required writer)
    std::vector<std::pair<std::uint32_t, EventIndex>> last_writes;  // (var, its last write)
    std::vector<TxnId> preds;
    bool consistent = true;  // every read after an own write reads the last such write
  };
  std::vector<Txn> txns;
  std::vector<EventIndex> final_write;  // per var
  std::vector<TxnId> final_txn;         // per var: the transaction holding it
  std::size_t nvars = 0;
  std::uint64_t budget = 0, nodes = 0;
  bool out_of_budget = false;
  Deadline deadline;
  const char* expired = "";  // out_of_budget because the deadline expired

  std::vector<std::uint64_t> placed;  // bit set over transactions
  std::vector<EventIndex> lastw;      // per var: last write of the serial prefix
  std::vector<TxnId> order;
  std::unordered_set<std::string> failed;

  bool is_placed(TxnId t) const { return (placed[t / 64] >> (t % 64)) & 1u; }
  void flip(TxnId t) { placed[t / 64] ^= std::uint64_t{1} << (t % 64); }

  std::string key() const {
    std::string k(reinterpret_cast<const char*>(placed.data()), placed.size() * sizeof(std::uint64_t));
    k.append(reinterpret_cast<const char*>(lastw.data()), lastw.size() * sizeof(EventIndex));
    return k;
  }

  bool can_place(TxnId t) const {
    const Txn& x = txns[t];
    for (TxnId p : x.preds)
      if (!is_placed(p)) return false;
    for (auto [v, w] : x.ext_reads)
      if (lastw[v] != w) return false;
    // A write after the transaction holding the final write would overwrite it.
    for (auto [v, w] : x.last_writes)
      if (final_txn[v] != t && final_txn[v] != kNoId && is_placed(final_txn[v])) return false;
    return true;
  }

  bool dfs() {
    if (order.size() == txns.size()) {
      for (std::size_t v = 0; v < nvars; ++v)
        if (lastw[v] != final_write[v]) return false;
      return true;
    }
    if (++nodes > budget || ((nodes & 1023) == 0 && *(expired = deadline.expired()) != '\0')) {
      out_of_budget = true;
      return false;
    }
    std::string k = key();
    if (failed.count(k)) return false;
    for (TxnId t = 0; t < txns.size(); ++t) {
      if (is_placed(t) || !can_place(t)) continue;
      std::vector<EventIndex> saved;
      for (auto [v, w] : txns[t].last_writes) {
        saved.push_back(lastw[v]);
        lastw[v] = w;
      }
      flip(t);
      order.push_back(t);
      if (dfs()) return true;
      if (out_of_budget) return false;
      order.pop_back();
      flip(t);
      for (std::size_t i = 0; i < saved.size(); ++i) lastw[txns[t].last_writes[i].first] = saved[i];
    }
    failed.insert(std::move(k));
    return false;
  }
};

}  // namespace

ViewResult view_serializable(std::span<const Event> ev, const ViewLimits& limits) {
  ViewResult res;
  Transactions tx = assign_transactions(ev);
  if (tx.txns.size() > limits.max_transactions) {
    res.serializable = Tri::unknown;
    res.undecided = fmt::format("{}{} transactions, more than the {} the serial-order search takes",
                                Verdict::kInputTooLarge, tx.txns.size(), limits.max_transactions);
    return res;
  }
  SerialSearch s;
  s.budget = limits.max_nodes;
  s.deadline = limits.deadline;
  std::vector<std::uint32_t> var = dense_vars(ev, s.nvars);
  const std::size_t m = tx.txns.size();
  s.txns.resize(m);
  s.final_write.assign(s.nvars, kNoEvent);
  s.final_txn.assign(s.nvars, kNoId);

  std::vector<EventIndex> last_global(s.nvars, kNoEvent);
  // Per transaction and variable: its last write so far (small maps as flat vectors).
  std::vector<std::vector<std::pair<std::uint32_t, EventIndex>>> own(m);
  auto own_last = [&](TxnId t, std::uint32_t v) -> EventIndex* {
    for (auto& [x, w] : own[t])
      if (x == v) return &w;
    return nullptr;
  };
  std::vector<TxnId> last_of_thread;
  std::vector<TxnId> fork_txn_of_child, first_seen;
  for (EventIndex i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    TxnId t = tx.txn_of[i];
    if (is_access(e.op)) {
      std::uint32_t v = var[i];
      if (reads(e.op)) {
        EventIndex* mine = own_last(t, v);
        if (mine) {
          if (*mine != last_global[v]) s.txns[t].consistent = false;
        } else {
          s.txns[t].ext_reads.push_back({v, last_global[v]});
        }
      }
      if (writes(e.op)) {
        if (EventIndex* mine = own_last(t, v)) *mine = i;
        else own[t].push_back({v, i});
        last_global[v] = i;
      }
    }
  }
  for (TxnId t = 0; t < m; ++t) s.txns[t].last_writes = own[t];
  for (std::size_t v = 0; v < s.nvars; ++v) {
    s.final_write[v] = last_global[v];
    if (last_global[v] != kNoEvent) s.final_txn[v] = tx.txn_of[last_global[v]];
  }
  // Order constraints: thread order, fork before the child, the child before the join.
  std::vector<std::vector<TxnId>> of_thread;
  for (TxnId t = 0; t < m; ++t) {
    ThreadId th = tx.txns[t].thread;
    if (th >= of_thread.size()) of_thread.resize(th + 1);
    if (!of_thread[th].empty()) s.txns[t].preds.push_back(of_thread[th].back());
    of_thread[th].push_back(t);
  }
  for (EventIndex i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (!is_thread_op(e.op) || e.target >= of_thread.size()) continue;
    for (TxnId c : of_thread[e.target]) {
      if (c == tx.txn_of[i]) continue;
      if (e.op == Op::fork) s.txns[c].preds.push_back(tx.txn_of[i]);
      else s.txns[tx.txn_of[i]].preds.push_back(c);
    }
  }
  for (const auto& x : s.txns)
    if (!x.consistent) {
      res.serializable = Tri::no;
      return res;
    }
  s.placed.assign((m + 63) / 64, 0);
  s.lastw.assign(s.nvars, kNoEvent);
  bool ok = s.dfs();
  res.nodes = s.nodes;
  if (ok) {
    res.serializable = Tri::yes;
    res.order = s.order;
  } else {
    res.serializable = s.out_of_budget ? Tri::unknown : Tri::no;
    if (s.out_of_budget)
      res.undecided = *s.expired != '\0' ? fmt::format("{} after {} nodes of the serial-order search", s.expired, s.nodes)
                                          : fmt::format("node budget: the serial-order search stopped after {} nodes", s.nodes);
  }
  return res;
}

namespace {

// Are two events of different threads independent (adjacent ones may swap without
// changing feasibility, reads-from or final writes)?
bool dependent(const Event& a, const Event& b) {
  if (a.thread == b.thread) return true;
  if (is_access(a.op) && is_access(b.op) && a.target == b.target && (writes(a.op) || writes(b.op))) return true;
  if (is_lock_op(a.op) && is_lock_op(b.op) && a.target == b.target) return true;
  if (is_thread_op(a.op) && a.target == b.thread) return true;
  if (is_thread_op(b.op) && b.target == a.thread) return true;
  return false;
}

struct Enumerator {
  std::span<const Event> ev;
  InterleavingLimits limits;
  std::vector<std::vector<EventIndex>> prog;  // per dense thread
  std::vector<ThreadId> thread_ids;           // dense -> original
  std::vector<std::size_t> pos;
  std::vector<char> needs_fork, started;
  std::vector<ThreadId> lock_owner;  // per dense lock, kNoId when free
  std::vector<std::uint32_t> lock_of;  // per event: dense lock
  std::vector<std::uint32_t> dense_thread_of_target;  // per event: dense thread of fork/join target
  std::vector<EventIndex> seq;
  std::set<std::vector<EventIndex>> seen_flows;
  InterleavingResult res;
  bool stop = false;

  std::uint32_t dense_thread(ThreadId t) const {
    auto it = std::lower_bound(thread_ids.begin(), thread_ids.end(), t);
    if (it == thread_ids.end() || *it != t) return kNoId;
    return static_cast<std::uint32_t>(it - thread_ids.begin());
  }

  bool enabled(std::size_t k) const {
    if (pos[k] >= prog[k].size()) return false;
    if (needs_fork[k] && !started[k]) return false;
    EventIndex i = prog[k][pos[k]];
    const Event& e = ev[i];
    if (e.op == Op::acquire && lock_owner[lock_of[i]] != kNoId) return false;
    if (e.op == Op::join) {
      std::uint32_t u = dense_thread_of_target[i];
      if (u != kNoId && pos[u] < prog[u].size()) return false;
    }
    return true;
  }

  // Judges one complete interleaving; identical data flows are judged once.
  void judge() {
    // The data flow: (read, its writer) pairs, then the final write of each variable.
    std::vector<EventIndex> flow;
    std::vector<std::pair<VarId, EventIndex>> last;
    auto find = [&](VarId v) -> EventIndex* {
      for (auto& [x, w] : last)
        if (x == v) return &w;
      return nullptr;
    };
    std::vector<std::pair<EventIndex, EventIndex>> rf;
    last.clear();
    for (EventIndex i : seq) {
      const Event& e = ev[i];
      if (!is_access(e.op)) continue;
      EventIndex* w = find(e.target);
      if (reads(e.op)) rf.push_back({i, w ? *w : kNoEvent});
      if (writes(e.op)) {
        if (w) *w = i;
        else last.push_back({e.target, i});
      }
    }
    std::sort(rf.begin(), rf.end());
    std::sort(last.begin(), last.end());
    for (auto [r, w] : rf) {
      flow.push_back(r);
      flow.push_back(w);
    }
    for (auto [v, w] : last) flow.push_back(w);
    if (!seen_flows.insert(flow).second) return;
    ++res.interleavings;
    std::vector<Event> perm;
    perm.reserve(seq.size());
    for (EventIndex i : seq) perm.push_back(ev[i]);
    ViewResult v = view_serializable(perm, limits.view);
    if (v.serializable == Tri::no) {
      res.all_serializable = Tri::no;
      res.witness = seq;
      stop = true;
    } else if (v.serializable == Tri::unknown) {
      res.all_serializable = Tri::unknown;
      if (res.undecided.empty()) res.undecided = v.undecided;
    }
  }

  void dfs() {
    if (stop) return;
    if (seq.size() == ev.size()) {
      judge();
      return;
    }
    const char* expired = "";
    if (++res.nodes > limits.max_nodes ||
        ((res.nodes & 1023) == 0 && *(expired = limits.view.deadline.expired()) != '\0')) {
      if (res.all_serializable == Tri::yes) res.all_serializable = Tri::unknown;
      res.undecided = *expired != '\0' ? fmt::format("{} after {} nodes of the interleaving enumeration", expired, res.nodes)
                                        : fmt::format("node budget: the interleaving enumeration stopped after {} nodes", res.nodes);
      stop = true;
      return;
    }
    for (std::size_t k = 0; k < prog.size() && !stop; ++k) {
      if (!enabled(k)) continue;
      EventIndex i = prog[k][pos[k]];
      // Keep only the lexicographically least member of each Mazurkiewicz class: never
      // put an event right after an independent one of a higher-numbered thread.
      if (!seq.empty()) {
        const Event& p = ev[seq.back()];
        if (dense_thread(p.thread) > k && !dependent(p, ev[i])) continue;
      }
      const Event& e = ev[i];
      std::uint32_t forked = kNoId;
      if (e.op == Op::acquire) lock_owner[lock_of[i]] = static_cast<ThreadId>(k);
      if (e.op == Op::release) lock_owner[lock_of[i]] = kNoId;
      if (e.op == Op::fork) {
        forked = dense_thread_of_target[i];
        if (forked != kNoId && started[forked]) forked = kNoId;
        if (forked != kNoId) started[forked] = 1;
      }
      ++pos[k];
      seq.push_back(i);
      dfs();
      seq.pop_back();
      --pos[k];
      if (forked != kNoId) started[forked] = 0;
      if (e.op == Op::acquire) lock_owner[lock_of[i]] = kNoId;
      if (e.op == Op::release) lock_owner[lock_of[i]] = static_cast<ThreadId>(k);
    }
  }
};

}  // namespace

InterleavingResult every_interleaving_view_serializable(std::span<const Event> ev,
                                                        const InterleavingLimits& limits) {
  Enumerator en;
  en.ev = ev;
  en.limits = limits;
  for (const Event& e : ev) en.thread_ids.push_back(e.thread);
  std::sort(en.thread_ids.begin(), en.thread_ids.end());
  en.thread_ids.erase(std::unique(en.thread_ids.begin(), en.thread_ids.end()), en.thread_ids.end());
  const std::size_t nt = en.thread_ids.size();
  en.prog.resize(nt);
  en.pos.assign(nt, 0);
  en.needs_fork.assign(nt, 0);
  en.started.assign(nt, 0);
  std::vector<LockId> locks;
  for (const Event& e : ev)
    if (is_lock_op(e.op)) locks.push_back(e.target);
  std::sort(locks.begin(), locks.end());
  locks.erase(std::unique(locks.begin(), locks.end()), locks.end());
  en.lock_owner.assign(locks.size(), kNoId);
  en.lock_of.assign(ev.size(), kNoId);
  en.dense_thread_of_target.assign(ev.size(), kNoId);
  for (EventIndex i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    en.prog[en.dense_thread(e.thread)].push_back(i);
    if (is_lock_op(e.op))
      en.lock_of[i] = static_cast<std::uint32_t>(std::lower_bound(locks.begin(), locks.end(), e.target) - locks.begin());
    if (is_thread_op(e.op)) {
      std::uint32_t u = en.dense_thread(e.target);
      en.dense_thread_of_target[i] = u;
      // A thread forked in the trace acts only after its fork (if the fork comes first).
      if (e.op == Op::fork && u != kNoId && en.prog[u].empty()) en.needs_fork[u] = 1;
    }
  }
  en.dfs();
  return en.res;
}

Verdict ViewOracle::verdict() {
  Verdict v;
  v.checker = "view-oracle";
  v.answers_serializability = true;
  Transactions tx = assign_transactions(std::span<const Event>(events_));
  v.open_at_end = tx.any_open_at_end;
  ViewLimits limits;
  limits.deadline = deadline_;
  ViewResult r = view_serializable(events_, limits);
  v.serializable = r.serializable != Tri::no;
  v.undecided = r.undecided;
  if (r.serializable == Tri::no)
    v.note = fmt::format("no serial order of the {} transactions has the same reads-from and final writes",
                         tx.txns.size());
  if (v.open_at_end) {
    if (!v.note.empty()) v.note += "; ";
    v.note += "a transaction was still open at the end of the trace; judged as ended there";
  }
  return v;
}

}  // namespace atomcheck
