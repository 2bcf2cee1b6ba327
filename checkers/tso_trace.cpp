// EG_tau, CG_tau and the three deciders of trace TSO-serializability (see tso_trace.hpp).
#include "checkers/tso_trace.hpp"

#include <algorithm>
#include <deque>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <fmt/core.h>

#include "checkers/tso_conflict.hpp"

namespace atomcheck::tso {

namespace {

std::uint64_t key(std::uint64_t a, std::uint64_t b) { return (a << 32) | b; }

// Fixed-size bit set over node indices.
struct Bits {
  std::vector<std::uint64_t> w;
  explicit Bits(std::size_t n = 0) : w((n + 63) / 64, 0) {}
  void set(std::size_t i) { w[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool test(std::size_t i) const { return (w[i / 64] >> (i % 64)) & 1u; }
  bool merge(const Bits& o) {
    bool changed = false;
    for (std::size_t k = 0; k < w.size(); ++k) {
      std::uint64_t x = w[k] | o.w[k];
      changed |= x != w[k];
      w[k] = x;
    }
    return changed;
  }
};

bool same_thread_conflict(std::span<const Event> tau, const ExecFacts& f, std::size_t i, std::size_t j) {
  const Event& a = tau[i];
  const Event& b = tau[j];
  if (is_block_op(a.op) || is_block_op(b.op)) return false;  // not events of ⊚TSO
  if (a.op == Op::write && b.op == Op::read && a.target != b.target) return false;
  if (a.op == Op::read && b.op == Op::read && a.target != b.target && f.source[i] != kNoEvent) return false;
  return true;
}

}  // namespace

TraceGraph event_graph(std::span<const Event> tau) {
  TraceGraph g;
  const std::size_t n = tau.size();
  g.n = n;
  g.tx = assign_transactions(tau);
  ExecFacts f = analyse(tau);
  g.next_drain.assign(n, static_cast<std::uint32_t>(n));
  {
    std::vector<std::uint32_t> cur;
    for (std::size_t k = n; k-- > 0;) {
      const Event& e = tau[k];
      std::size_t need = std::max<std::size_t>(e.thread, is_thread_op(e.op) ? e.target : 0) + 1;
      if (cur.size() < need) cur.resize(need, static_cast<std::uint32_t>(n));
      g.next_drain[k] = cur[e.thread];
      if (is_drain(e.op)) cur[e.thread] = static_cast<std::uint32_t>(k);
      if (e.op == Op::join) cur[e.target] = static_cast<std::uint32_t>(k);
    }
  }
  auto fence_separated = [&](std::size_t i, std::size_t j) { return g.next_drain[i] < j; };
  std::unordered_map<std::uint64_t, std::uint32_t> var_of;  // independent edge -> variable
  auto undirected = [&](std::size_t i, std::size_t j) {
    std::uint32_t v = g.vars++;
    var_of[key(i, j)] = v;
    g.undirected.push_back(UEdge{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), v, false});
  };
  auto directed = [&](std::size_t i, std::size_t j) {
    g.directed.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j)});
  };
  for (std::size_t j = 0; j < n; ++j) {
    const Event& b = tau[j];
    if (b.op == Op::commit) continue;
    for (std::size_t i = 0; i < j; ++i) {
      const Event& a = tau[i];
      if (a.op == Op::commit) continue;
      if (a.thread == b.thread) {
        // Program order is the same in every execution: the same-thread conflicts of
        // ⊚TSO are directed (a write stands for its issue here; its commit adds nothing
        // a thread's later events would not already be ordered by).
        if (same_thread_conflict(tau, f, i, j)) directed(i, j);
        continue;
      }
      if ((a.op == Op::fork && a.target == b.thread) || (b.op == Op::join && b.target == a.thread) ||
          (a.op == Op::release && b.op == Op::acquire && a.target == b.target)) {
        directed(i, j);
        continue;
      }
      if (!is_access(a.op) || !is_access(b.op) || a.target != b.target) continue;
      if (a.op == Op::read && b.op == Op::read) continue;
      if (a.op == Op::write) {
        // The commit of a may land after b unless a drain of a's thread comes first.
        if (fence_separated(i, j)) {
          directed(i, j);
        } else {
          undirected(i, j);
          EventIndex s = b.op == Op::read ? f.source[j] : kNoEvent;
          auto it = s == kNoEvent ? var_of.end() : var_of.find(key(std::min<EventIndex>(s, i), std::max<EventIndex>(s, i)));
          if (it != var_of.end()) {
            UEdge& e = g.undirected.back();
            e.semi = true;
            e.base = it->second;
            e.source = static_cast<std::uint32_t>(s);
            e.base_lo_is_write = i < s;
          }
        }
      } else if (a.op == Op::rmw) {
        directed(i, j);  // reaches memory at once; b (or b's commit) comes later
      } else {
        // a is a read, b a write or rmw. A read from memory precedes b's commit; a read
        // that may be served by its buffer is ordered like its buffered write.
        EventIndex s = f.source[i];
        if (s == kNoEvent || fence_separated(i, j)) {
          directed(i, j);
        } else {
          auto it = var_of.find(key(s, j));
          if (it == var_of.end()) {
            directed(i, j);  // cannot happen: (s, j) is an earlier undirected pair
          } else {
            g.undirected.push_back(
                UEdge{static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j), it->second, true});
          }
        }
      }
    }
  }
  return g;
}

TraceConflictGraph conflict_graph(const TraceGraph& g) {
  TraceConflictGraph cg;
  cg.txns = g.tx.txns.size();
  std::unordered_set<std::uint64_t> seen_d, seen_u;
  for (auto [u, v] : g.directed) {
    TxnId a = g.tx.txn_of[u], b = g.tx.txn_of[v];
    if (a != b && seen_d.insert(key(a, b)).second) cg.directed.push_back({a, b});
  }
  for (const UEdge& e : g.undirected) {
    TxnId a = g.tx.txn_of[e.lo], b = g.tx.txn_of[e.hi];
    if (a == b) continue;
    if (a > b) std::swap(a, b);
    if (seen_u.insert(key(a, b)).second) cg.undirected.push_back({a, b});
  }
  return cg;
}

namespace {

// The realisability graph of a (partial) orientation: nodes are tau's events
// (0..n-1, a write standing for its issue) and the commits (n + w for write w). Edges:
// tau's order, issue before commit, FIFO commits, a commit before its thread's next
// drain, and every cross-thread edge of EG_tau with a write replaced by its commit. A
// tied edge pointing back (the write's commit before the earlier read) needs no edge:
// it holds through the read's own write, whose commit comes later. An orientation is
// realised by an execution of tau iff this graph is acyclic (any topological order is
// such an execution).
std::vector<std::vector<std::uint32_t>> realisability_graph(std::span<const Event> tau, const TraceGraph& g,
                                                            const std::vector<int>& o) {
  const std::size_t n = tau.size();
  auto c = [&](std::uint32_t w) { return static_cast<std::uint32_t>(n + w); };
  auto at = [&](std::uint32_t k) { return tau[k].op == Op::write ? c(k) : k; };
  std::vector<std::vector<std::uint32_t>> succ(2 * n);
  std::vector<std::uint32_t> last_write;
  for (std::uint32_t k = 0; k < n; ++k) {
    const Event& e = tau[k];
    if (k + 1 < n) succ[k].push_back(k + 1);
    if (e.op != Op::write) continue;
    succ[k].push_back(c(k));
    if (g.next_drain[k] < n) succ[c(k)].push_back(g.next_drain[k]);
    if (e.thread >= last_write.size()) last_write.resize(e.thread + 1, kNoId);
    if (last_write[e.thread] != kNoId) succ[c(last_write[e.thread])].push_back(c(k));
    last_write[e.thread] = k;
  }
  for (auto [u, v] : g.directed)
    if (tau[u].thread != tau[v].thread) succ[at(u)].push_back(at(v));
  for (const UEdge& e : g.undirected) {
    if (e.semi) {
      // lo (a write) -> hi (a read): before the read, unless lo -> W* already (then
      // nothing to add). hi -> lo: after the read and after W*'s commit.
      int b = o[e.base];
      bool w_first = b != -1 && ((b == 1) == e.base_lo_is_write);
      if (o[e.var] == 1 && !w_first) succ[c(e.lo)].push_back(e.hi);
      if (o[e.var] == 0) {
        succ[e.hi].push_back(c(e.lo));
        succ[c(e.source)].push_back(c(e.lo));
      }
      continue;
    }
    if (o[e.var] == 1) succ[at(e.lo)].push_back(at(e.hi));
    else if (o[e.var] == 0 && !e.tied) succ[at(e.hi)].push_back(at(e.lo));
  }
  return succ;
}

std::vector<int> as_partial(const std::vector<bool>& o) {
  std::vector<int> p(o.size());
  for (std::size_t k = 0; k < o.size(); ++k) p[k] = o[k] ? 1 : 0;
  return p;
}

// Kahn's topological order of the graph restricted to `live` nodes (smallest first);
// shorter than the live count when there is a cycle.
std::vector<std::uint32_t> topo_order(const std::vector<std::vector<std::uint32_t>>& succ,
                                      const std::vector<bool>& live) {
  const std::size_t n = succ.size();
  std::vector<std::uint32_t> indeg(n, 0);
  for (std::uint32_t u = 0; u < n; ++u)
    if (live[u])
      for (std::uint32_t v : succ[u]) ++indeg[v];
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
  for (std::uint32_t u = 0; u < n; ++u)
    if (live[u] && indeg[u] == 0) ready.push(u);
  std::vector<std::uint32_t> order;
  while (!ready.empty()) {
    std::uint32_t u = ready.top();
    ready.pop();
    order.push_back(u);
    for (std::uint32_t v : succ[u])
      if (--indeg[v] == 0) ready.push(v);
  }
  return order;
}

std::vector<bool> live_nodes(std::span<const Event> tau) {
  const std::size_t n = tau.size();
  std::vector<bool> live(2 * n, false);
  for (std::size_t k = 0; k < n; ++k) {
    live[k] = true;
    live[n + k] = tau[k].op == Op::write;
  }
  return live;
}

}  // namespace

bool valid_orientation(std::span<const Event> tau, const TraceGraph& g, const std::vector<bool>& o) {
  std::vector<bool> live = live_nodes(tau);
  std::size_t count = 0;
  for (bool b : live) count += b;
  return topo_order(realisability_graph(tau, g, as_partial(o)), live).size() == count;
}

bool for_each_execution(
    std::span<const Event> tau, std::uint64_t limit,
    const std::function<bool(const std::vector<Event>&, const std::vector<EventIndex>&)>& visit) {
  const std::size_t n = tau.size();
  std::uint32_t threads = 0;
  for (const Event& e : tau) threads = std::max({threads, e.thread + 1, is_thread_op(e.op) ? e.target + 1 : 0});
  std::vector<std::vector<EventIndex>> queue(threads);  // eta indices of pending writes
  std::vector<std::size_t> head(threads, 0);
  std::vector<Event> eta;
  std::vector<EventIndex> tidx;
  eta.reserve(2 * n);
  tidx.reserve(2 * n);
  std::uint64_t count = 0;
  bool stop = false, limited = false;
  auto pending = [&](ThreadId t) { return head[t] < queue[t].size(); };
  std::function<void(std::size_t)> rec = [&](std::size_t i) {
    if (stop) return;
    bool any = false;
    for (ThreadId t = 0; t < threads; ++t) {
      if (!pending(t)) continue;
      any = true;
      EventIndex w = queue[t][head[t]];
      Event c = eta[w];
      c.op = Op::commit;
      c.buffered = false;
      c.issue = w;
      ++head[t];
      eta.push_back(c);
      tidx.push_back(tidx[w]);
      rec(i);
      eta.pop_back();
      tidx.pop_back();
      --head[t];
      if (stop) return;
    }
    if (i < n) {
      const Event& e = tau[i];
      bool ok = e.op != Op::commit && !(is_drain(e.op) && pending(e.thread)) &&
                !(e.op == Op::join && pending(e.target));
      if (e.op == Op::commit) {
        rec(i + 1);  // commits of the input are re-placed, never kept
        return;
      }
      // Canonical placement: a run of commits ends right before an event the last of
      // them is ordered with (an access of its variable, a drain or join of its
      // thread). Any execution becomes one of these by moving each commit later past
      // events it does not conflict with, which changes no conflict (not even a
      // buffered read's window), so no conflict graph is lost.
      if (ok && !eta.empty() && eta.back().op == Op::commit) {
        const Event& c = eta.back();
        ok = (is_access(e.op) && e.target == c.target) || (e.thread == c.thread && is_drain(e.op)) ||
             (e.op == Op::join && e.target == c.thread);
      }
      if (ok) {
        Event x = e;
        x.issue = kNoEvent;
        x.buffered = false;
        eta.push_back(x);
        tidx.push_back(i);
        if (e.op == Op::write) queue[e.thread].push_back(eta.size() - 1);
        rec(i + 1);
        if (e.op == Op::write) queue[e.thread].pop_back();
        eta.pop_back();
        tidx.pop_back();
      }
      return;
    }
    if (!any) {
      ++count;
      if (!visit(eta, tidx)) stop = true;
      else if (limit != 0 && count >= limit) stop = limited = true;
    }
  };
  rec(0);
  return !limited;
}

std::vector<Event> execution_of(std::span<const Event> tau, const std::vector<EventIndex>& order) {
  std::vector<Event> eta;
  std::unordered_map<EventIndex, EventIndex> issued;
  for (EventIndex i : order) {
    auto it = issued.find(i);
    Event e = tau[i];
    e.buffered = false;
    if (it == issued.end()) {
      e.issue = kNoEvent;
      if (e.op == Op::write) issued[i] = eta.size();
    } else {
      e.op = Op::commit;
      e.issue = it->second;
    }
    eta.push_back(e);
  }
  return eta;
}

std::optional<std::vector<bool>> induced_orientation(std::span<const Event> tau, const TraceGraph& g,
                                                     std::span<const Event> eta,
                                                     std::span<const EventIndex> tidx) {
  const std::size_t n = tau.size();
  ExecFacts f = analyse(eta);
  // Every conflict of eta must be an edge of EG_tau.
  std::unordered_set<std::uint64_t> allowed;
  for (auto [u, v] : g.directed) allowed.insert(key(u, v));
  for (const UEdge& e : g.undirected) {
    allowed.insert(key(e.lo, e.hi));
    allowed.insert(key(e.hi, e.lo));
  }
  for (std::size_t j = 0; j < eta.size(); ++j)
    for (std::size_t i = 0; i < j; ++i) {
      std::uint32_t a = static_cast<std::uint32_t>(tidx[i]), b = static_cast<std::uint32_t>(tidx[j]);
      if (a != b && conflict(eta, f, i, j) && !allowed.count(key(a, b))) return std::nullopt;
    }
  // Where each tau event sits in eta; a write at its commit.
  std::vector<std::size_t> at(n, 0);
  for (std::size_t k = 0; k < eta.size(); ++k) at[tidx[k]] = k;  // a commit comes after its issue
  std::vector<int> o(g.vars, -1);
  auto set = [&](std::uint32_t var, bool val) {
    if (o[var] != -1 && o[var] != static_cast<int>(val)) return false;
    o[var] = val;
    return true;
  };
  for (const UEdge& e : g.undirected) {
    if (e.tied) continue;
    bool val = e.semi ? at[e.lo] < std::max(at[e.hi], at[e.source]) : at[e.lo] < at[e.hi];
    if (!set(e.var, val)) return std::nullopt;
  }
  for (const UEdge& e : g.undirected)
    if (e.tied && o[e.var] == -1) return std::nullopt;  // a tied edge shares a set variable
  std::vector<bool> out(g.vars);
  for (std::uint32_t v = 0; v < g.vars; ++v) out[v] = o[v] == 1;
  return out;
}

bool orientation_has_cycle(const TraceGraph& g, const std::vector<bool>& o) {
  std::vector<std::vector<std::uint32_t>> succ(g.tx.txns.size());
  std::unordered_set<std::uint64_t> seen;
  auto add = [&](std::uint32_t u, std::uint32_t v) {
    TxnId a = g.tx.txn_of[u], b = g.tx.txn_of[v];
    if (a != b && seen.insert(key(a, b)).second) succ[a].push_back(b);
  };
  for (auto [u, v] : g.directed) add(u, v);
  for (const UEdge& e : g.undirected) {
    if (o[e.var]) add(e.lo, e.hi);
    else add(e.hi, e.lo);
  }
  return !find_cycle(succ).empty();
}

std::vector<EventIndex> realise(std::span<const Event> tau, const TraceGraph& g,
                                const std::vector<bool>& o) {
  const std::size_t n = tau.size();
  std::vector<bool> live = live_nodes(tau);
  std::size_t count = 0;
  for (bool b : live) count += b;
  std::vector<std::uint32_t> order = topo_order(realisability_graph(tau, g, as_partial(o)), live);
  if (order.size() != count) return {};
  std::vector<EventIndex> out;
  for (std::uint32_t u : order) out.push_back(u < n ? u : u - n);
  return out;
}

namespace {

// Maps an execution's cycle (eta indices) to tau indices.
std::vector<CycleEdge> to_tau(const std::vector<CycleEdge>& cyc, const std::vector<EventIndex>& tidx) {
  std::vector<CycleEdge> out = cyc;
  for (CycleEdge& e : out) {
    e.from.first = tidx[e.from.first];
    e.to.first = tidx[e.to.first];
    e.from_event = tidx[e.from_event];
    e.to_event = tidx[e.to_event];
  }
  return out;
}

// Fills witness, cycle and (when missing) orientation from an orientation that induces a
// cycle: realise it, and check the execution is not TSO-serializable.
void witness_from_orientation(std::span<const Event> tau, const TraceGraph& g, TraceVerdict& v) {
  std::vector<EventIndex> order = realise(tau, g, v.orientation);
  if (order.empty()) return;
  std::vector<Event> eta = execution_of(tau, order);
  ExecVerdict ev = check_execution(eta);
  if (ev.serializable) return;
  v.witness = order;
  std::vector<EventIndex> tidx = order;
  if (v.cycle.empty()) v.cycle = to_tau(ev.cycle, tidx);
}

TxnRef ref_of(const TraceGraph& g, TxnId t) { return TxnRef{g.tx.txns[t].thread, g.tx.txns[t].first}; }

// A valid full orientation extending a realisable partial one: a topological order of
// its realisability graph orients the rest (a write at its commit).
std::vector<bool> complete_orientation(std::span<const Event> tau, const TraceGraph& g,
                                       const std::vector<int>& partial) {
  const std::size_t n = tau.size();
  std::vector<std::uint32_t> order = topo_order(realisability_graph(tau, g, partial), live_nodes(tau));
  std::vector<std::uint32_t> rank(2 * n, 0);
  for (std::uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
  auto at = [&](std::uint32_t k) { return tau[k].op == Op::write ? static_cast<std::uint32_t>(n + k) : k; };
  std::vector<bool> o(g.vars, true);
  for (const UEdge& e : g.undirected) {
    if (partial[e.var] != -1) o[e.var] = partial[e.var] == 1;
    else if (e.semi) o[e.var] = rank[at(e.lo)] < std::max(rank[e.hi], rank[at(e.source)]);
    else if (!e.tied) o[e.var] = rank[at(e.lo)] < rank[at(e.hi)];
  }
  // Tied edges follow their base.
  return o;
}

}  // namespace

TraceVerdict decide_brute(std::span<const Event> tau, std::uint64_t limit, const Deadline& deadline) {
  TraceVerdict v;
  TraceGraph g = event_graph(tau);
  const char* stopped = "";
  bool complete = for_each_execution(tau, limit, [&](const std::vector<Event>& eta, const std::vector<EventIndex>& tidx) {
    if ((++v.work & 1023) == 0 && *(stopped = deadline.expired()) != '\0') return false;
    ExecVerdict ev = check_execution(eta);
    if (ev.serializable) return true;
    v.serializable = false;
    v.cycle = to_tau(ev.cycle, tidx);
    v.witness = tidx;
    if (auto o = induced_orientation(tau, g, eta, tidx)) v.orientation = *o;
    return false;
  });
  if (v.serializable && *stopped != '\0')
    v.undecided = fmt::format("{} after {} executions of the trace", stopped, v.work);
  else if (v.serializable && !complete)
    v.undecided = fmt::format("budget: no violation among the first {} executions of the trace", v.work);
  return v;
}

namespace {

// The directed transaction edges of CG_tau, each with the event pair that witnesses it:
// apart because the cycle of directed edges (1) and the cycle the search finds (2) both
// name their edges through it.
struct TxnEdges {
  std::vector<std::vector<std::uint32_t>> succ;
  std::unordered_map<std::uint64_t, std::pair<EventIndex, EventIndex>> witness;
};

TxnEdges txn_edges(const TraceGraph& g, std::size_t m) {
  TxnEdges te;
  te.succ.resize(m);
  for (auto [a, b] : g.directed) {
    TxnId x = g.tx.txn_of[a], y = g.tx.txn_of[b];
    if (x != y && te.witness.try_emplace(key(x, y), a, b).second) te.succ[x].push_back(y);
  }
  return te;
}

// The cycle edge of the directed transaction edge x -> y, with its witness events.
CycleEdge txn_cycle_edge(const TraceGraph& g, const TxnEdges& te, TxnId x, TxnId y) {
  auto w = te.witness.at(key(x, y));
  return CycleEdge{ref_of(g, x), ref_of(g, y), w.first, w.second};
}

// ≼ on transactions, reflexive (tr1 ≼ tr2): CG_tau restricted to directed edges is a
// DAG. Transactions are numbered by their first event and directed edges go forward in
// tau, but a transaction edge may still point to a lower number (a long transaction),
// so it is closed along a topological order, in reverse.
std::vector<Bits> txn_reach(const std::vector<std::vector<std::uint32_t>>& tsucc) {
  const std::size_t m = tsucc.size();
  std::vector<Bits> treach(m, Bits(m));
  for (std::size_t t = 0; t < m; ++t) treach[t].set(t);
  std::vector<std::uint32_t> indeg(m, 0), topo;
  for (const auto& s : tsucc)
    for (std::uint32_t b : s) ++indeg[b];
  std::deque<std::uint32_t> q;
  for (std::uint32_t t = 0; t < m; ++t)
    if (indeg[t] == 0) q.push_back(t);
  while (!q.empty()) {
    std::uint32_t t = q.front();
    q.pop_front();
    topo.push_back(t);
    for (std::uint32_t b : tsucc[t])
      if (--indeg[b] == 0) q.push_back(b);
  }
  for (std::size_t k = topo.size(); k-- > 0;)
    for (std::uint32_t b : tsucc[topo[k]]) treach[topo[k]].merge(treach[b]);
  return treach;
}

// Strict reachability in the realisability graph of the empty orientation (a DAG:
// tau's order with commits after their issues), over events and commits.
std::vector<Bits> event_reach(std::span<const Event> tau, const TraceGraph& g) {
  const std::size_t n = g.n;
  std::vector<bool> live = live_nodes(tau);
  std::vector<std::vector<std::uint32_t>> base = realisability_graph(tau, g, std::vector<int>(g.vars, -1));
  std::vector<Bits> ereach(2 * n, Bits(2 * n));
  std::vector<std::uint32_t> topo = topo_order(base, live);
  for (std::size_t k = topo.size(); k-- > 0;)
    for (std::uint32_t b : base[topo[k]]) {
      ereach[topo[k]].set(b);
      ereach[topo[k]].merge(ereach[b]);
    }
  return ereach;
}

// Is there a path x ->* y in a closed base graph plus the chosen edges?
bool reaches_in(const std::vector<Bits>& closure, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& extra,
                std::uint32_t x, std::uint32_t y) {
  if (x == y) return true;
  Bits r = closure[x];
  r.set(x);
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto [a, b] : extra)
      if (r.test(a) && !r.test(b)) {
        r.set(b);
        r.merge(closure[b]);
        changed = true;
      }
  }
  return r.test(y);
}

// Steps: an undirected edge crossed in one direction, from event x to event y.
struct Step {
  std::uint32_t x, y, var;
  int val;
};

// The simple-cycle search of decide_fpt (2) and what it shares while it recurses: the
// closures, the partial orientation with the realisability edges it adds, and the path.
struct CycleSearch {
  std::span<const Event> tau;
  const TraceGraph& g;
  const std::vector<Bits>& treach;
  const std::vector<Bits>& ereach;
  const Deadline& deadline;
  // Edges of each orientation variable.
  std::vector<std::vector<std::uint32_t>> edges_of;
  std::vector<int> assign;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> chosen;  // realisability edges added
  std::vector<Step> steps;
  std::vector<const Step*> path;  // steps taken; path[0] leaves the last segment
  std::vector<TxnId> seg_txns;    // entry and exit transactions of closed segments
  bool found = false;
  const char* stopped = "";  // the deadline expired: unwind as if found, then say so
  std::uint64_t work = 0;

  CycleSearch(std::span<const Event> t, const TraceGraph& graph, const std::vector<Bits>& tr,
              const std::vector<Bits>& er, const Deadline& d);
  bool le(TxnId a, TxnId b) const { return treach[a].test(b); }
  bool comparable(TxnId a, TxnId b) const { return le(a, b) || le(b, a); }
  std::uint32_t at(std::uint32_t k) const {
    return tau[k].op == Op::write ? static_cast<std::uint32_t>(g.n + k) : k;
  }
  bool reaches(std::uint32_t x, std::uint32_t y) const { return reaches_in(ereach, chosen, x, y); }
  bool orient(std::uint32_t k, int val);
  void unorient(std::uint32_t k, std::size_t mark, bool was_unset);
  void extend(TxnId entry);
  void run();
};

CycleSearch::CycleSearch(std::span<const Event> t, const TraceGraph& graph, const std::vector<Bits>& tr,
                         const std::vector<Bits>& er, const Deadline& d)
    : tau(t), g(graph), treach(tr), ereach(er), deadline(d), edges_of(graph.vars), assign(graph.vars, -1) {
  for (std::uint32_t k = 0; k < g.undirected.size(); ++k) edges_of[g.undirected[k].var].push_back(k);
  for (const UEdge& e : g.undirected) {
    if (g.tx.txn_of[e.lo] == g.tx.txn_of[e.hi]) continue;
    steps.push_back({e.lo, e.hi, e.var, 1});
    steps.push_back({e.hi, e.lo, e.var, 0});
  }
}

// Orients variable k (value val); false (and nothing changed) when the orientation
// stops being realisable.
bool CycleSearch::orient(std::uint32_t k, int val) {
  if (assign[k] != -1) return assign[k] == val;
  std::size_t mark = chosen.size();
  for (std::uint32_t ei : edges_of[k]) {
    const UEdge& e = g.undirected[ei];
    // The realisability edges this orientation adds (see realisability_graph; a
    // semi-tied lo -> hi is taken literally, commit before the read: when it holds
    // through W* instead, the cycle through W* and program order is found as well).
    std::pair<std::uint32_t, std::uint32_t> add[2];
    int count = 0;
    if (e.semi) {
      if (val == 1) add[count++] = {at(e.lo), e.hi};
      else {
        add[count++] = {e.hi, at(e.lo)};
        add[count++] = {at(e.source), at(e.lo)};
      }
    } else if (!(e.tied && val == 0)) {
      add[count++] = val ? std::pair{at(e.lo), at(e.hi)} : std::pair{at(e.hi), at(e.lo)};
    }
    bool bad = false;
    for (int q = 0; q < count && !bad; ++q) {
      bad = reaches(add[q].second, add[q].first);
      if (!bad) chosen.push_back(add[q]);
    }
    if (bad) {
      chosen.resize(mark);
      return false;
    }
  }
  assign[k] = val;
  return true;
}

// Undoes orient() of a variable it set (marks taken before the call).
void CycleSearch::unorient(std::uint32_t k, std::size_t mark, bool was_unset) {
  if (was_unset) {
    assign[k] = -1;
    chosen.resize(mark);
  }
}

// One more segment from transaction `entry`: closes the cycle when entry ≼ the
// transaction path[0] leaves, else crosses each admissible step and recurses.
void CycleSearch::extend(TxnId entry) {
  if ((++work & 4095) == 0 && *(stopped = deadline.expired()) != '\0') {
    found = true;
    return;
  }
  TxnId closing = g.tx.txn_of[path[0]->x];
  if (le(entry, closing)) {
    found = true;
    return;
  }
  for (const Step& st : steps) {
    TxnId exit = g.tx.txn_of[st.x], next = g.tx.txn_of[st.y];
    if (!le(entry, exit)) continue;
    bool ok = !comparable(exit, closing) && !comparable(next, exit) && !comparable(next, entry);
    for (TxnId t : seg_txns) ok = ok && !comparable(t, exit) && !comparable(t, next);
    if (!ok) continue;
    bool unset = assign[st.var] == -1;
    std::size_t mark = chosen.size();
    if (!orient(st.var, st.val)) continue;
    path.push_back(&st);
    seg_txns.push_back(entry);
    seg_txns.push_back(exit);
    extend(next);
    if (found) return;
    seg_txns.resize(seg_txns.size() - 2);
    path.pop_back();
    unorient(st.var, mark, unset);
  }
}

// Search for a simple cycle (Definition 6): segments of directed transaction paths
// joined by undirected edges. By Proposition 3 (ii) the transactions of different
// segments are pairwise incomparable under ≺, so a cycle visits every chain of a
// chain partition at most once (Proposition 5) and the search depth is bounded by the
// width of the transaction order (at most 2k + km by Dilworth, §6.2).
void CycleSearch::run() {
  for (const Step& st : steps) {
    std::size_t mark = chosen.size();
    if (!orient(st.var, st.val)) continue;
    path.push_back(&st);
    extend(g.tx.txn_of[st.y]);
    if (found) break;
    path.pop_back();
    unorient(st.var, mark, true);
  }
}

// A shortest directed transaction path from -> to (from ≼ to), by breadth-first search.
std::vector<TxnId> txn_path(const std::vector<std::vector<std::uint32_t>>& tsucc, TxnId from, TxnId to) {
  std::vector<TxnId> parent(tsucc.size(), kNoId), order{from};
  parent[from] = from;
  for (std::size_t k = 0; k < order.size() && parent[to] == kNoId; ++k)
    for (std::uint32_t b : tsucc[order[k]])
      if (parent[b] == kNoId) {
        parent[b] = order[k];
        order.push_back(b);
      }
  std::vector<TxnId> p;
  for (TxnId t = to; t != from; t = parent[t]) p.push_back(t);
  p.push_back(from);
  std::reverse(p.begin(), p.end());
  return p;
}

// The cycle the search found: each step, then the directed transaction path to the next
// step's exit.
std::vector<CycleEdge> cycle_of_path(const TraceGraph& g, const TxnEdges& te, const std::vector<const Step*>& path) {
  std::vector<CycleEdge> cycle;
  for (std::size_t k = 0; k < path.size(); ++k) {
    const Step* st = path[k];
    TxnId a = g.tx.txn_of[st->x], b = g.tx.txn_of[st->y];
    cycle.push_back(CycleEdge{ref_of(g, a), ref_of(g, b), st->x, st->y});
    TxnId exit = g.tx.txn_of[path[(k + 1) % path.size()]->x];
    std::vector<TxnId> p = txn_path(te.succ, b, exit);
    for (std::size_t q = 0; q + 1 < p.size(); ++q) cycle.push_back(txn_cycle_edge(g, te, p[q], p[q + 1]));
  }
  return cycle;
}

}  // namespace

// The phases: the transaction edges; (1) a cycle of directed edges alone; (2) the
// closures, then the simple-cycle search; the verdict with its cycle and witness.
TraceVerdict decide_fpt(std::span<const Event> tau, const Deadline& deadline) {
  TraceVerdict v;
  TraceGraph g = event_graph(tau);
  TraceConflictGraph cg = conflict_graph(g);
  const std::size_t m = cg.txns;
  // Directed transaction edges with a witness event pair.
  const TxnEdges te = txn_edges(g, m);
  // (1) A cycle of directed edges alone: every execution has it.
  if (std::vector<std::uint32_t> c = find_cycle(te.succ); !c.empty()) {
    v.serializable = false;
    for (std::size_t k = 0; k < c.size(); ++k) v.cycle.push_back(txn_cycle_edge(g, te, c[k], c[(k + 1) % c.size()]));
    v.orientation = complete_orientation(tau, g, std::vector<int>(g.vars, -1));
    witness_from_orientation(tau, g, v);
    return v;
  }
  // (2) CG_tau restricted to directed edges is a DAG: the simple-cycle search over its
  // closure and that of the realisability graph.
  const std::vector<Bits> treach = txn_reach(te.succ);
  const std::vector<Bits> ereach = event_reach(tau, g);
  CycleSearch search(tau, g, treach, ereach, deadline);
  search.run();
  v.work = search.work;
  if (*search.stopped != '\0') {
    v.undecided = fmt::format("{} after {} steps of the simple-cycle search", search.stopped, v.work);
    return v;
  }
  if (!search.found) return v;
  v.serializable = false;
  v.orientation = complete_orientation(tau, g, search.assign);
  v.cycle = cycle_of_path(g, te, search.path);
  witness_from_orientation(tau, g, v);
  return v;
}

}  // namespace atomcheck::tso
