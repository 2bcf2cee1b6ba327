// The atomic-set oracle (Hammer et al., ICSE 2008, 2.2): conflict serializability of the
// projection of the trace onto each atomic set, by building each set's graph of units of
// work and searching it for a cycle. Deliberately simple and independent of the
// checker's automata; quadratic in the accesses of a set.
#include <algorithm>
#include <map>

#include <fmt/core.h>

#include "checkers/atomic_set.hpp"

namespace atomcheck {

AtomicSetOracle::AtomicSetOracle(const CheckerOptions& options) : sets_(options.atomic_sets) {}

namespace {

struct Access {
  EventIndex at;
  ThreadId thread;
  VarId var;
  bool writes;
  EventIndex unit;  // first event of its unit of work
};

struct Edge {
  int to;
  EventIndex from_event, to_event;
};

// Finds a cycle by depth-first search; fills `cycle` with its edges in order.
bool find_cycle(const std::vector<std::vector<Edge>>& adj, const std::vector<EventIndex>& unit_of,
                const std::vector<ThreadId>& thread_of, std::vector<CycleEdge>& cycle) {
  const int n = static_cast<int>(adj.size());
  std::vector<int> color(n, 0), parent(n, -1);
  std::vector<Edge> via(n);
  for (int root = 0; root < n; ++root) {
    if (color[root]) continue;
    // Iterative DFS: (node, next edge index).
    std::vector<std::pair<int, std::size_t>> stack{{root, 0}};
    color[root] = 1;
    while (!stack.empty()) {
      auto& [v, i] = stack.back();
      if (i == adj[v].size()) {
        color[v] = 2;
        stack.pop_back();
        continue;
      }
      const Edge e = adj[v][i++];
      auto ref = [&](int x) { return TxnRef{thread_of[x], unit_of[x]}; };
      if (color[e.to] == 1) {
        // Back edge v -> e.to closes the cycle e.to -> ... -> v -> e.to.
        std::vector<CycleEdge> rev{CycleEdge{ref(v), ref(e.to), e.from_event, e.to_event}};
        for (int x = v; x != e.to; x = parent[x])
          rev.push_back(CycleEdge{ref(parent[x]), ref(x), via[x].from_event, via[x].to_event});
        cycle.assign(rev.rbegin(), rev.rend());
        return true;
      }
      if (color[e.to] == 0) {
        color[e.to] = 1;
        parent[e.to] = v;
        via[e.to] = e;
        stack.push_back({e.to, 0});
      }
    }
  }
  return false;
}

}  // namespace

Verdict AtomicSetOracle::verdict() {
  Verdict v;
  v.checker = "atomic-set-oracle";
  v.answers_serializability = true;

  std::vector<std::vector<std::pair<LabelId, EventIndex>>> stacks;
  std::vector<std::vector<Access>> by_set(AtomicSets::kImplicitSet + 1);
  for (EventIndex i = 0; i < events_.size(); ++i) {
    const Event& e = events_[i];
    if (e.thread >= stacks.size()) stacks.resize(e.thread + 1);
    auto& stack = stacks[e.thread];
    if (e.op == Op::begin) {
      stack.push_back({e.target, i});
      continue;
    }
    if (e.op == Op::end) {
      if (!stack.empty()) stack.pop_back();
      continue;
    }
    if (!is_access(e.op)) continue;
    const std::uint32_t set = sets_.set_of(e.target);
    EventIndex unit = i;
    for (const auto& [label, begin] : stack)
      if (sets_.units_of(label) >> set & 1) {
        unit = begin;
        break;
      }
    by_set[set].push_back(Access{i, e.thread, e.target, e.op != Op::read, unit});
  }
  for (const auto& s : stacks) v.open_at_end |= !s.empty();

  for (std::uint32_t set = 0; set < by_set.size(); ++set) {
    const std::vector<Access>& acc = by_set[set];
    if (acc.empty()) continue;
    std::map<EventIndex, int> node;
    std::vector<EventIndex> unit_of;
    std::vector<ThreadId> thread_of;
    for (const Access& a : acc)
      if (node.emplace(a.unit, static_cast<int>(unit_of.size())).second) {
        unit_of.push_back(a.unit);
        thread_of.push_back(a.thread);
      }
    std::vector<std::vector<Edge>> adj(unit_of.size());
    // Program order: a thread's units in the order it ran them.
    std::map<ThreadId, const Access*> last;
    for (const Access& a : acc) {
      const Access*& prev = last[a.thread];
      if (prev && prev->unit != a.unit) adj[node[prev->unit]].push_back(Edge{node[a.unit], prev->at, a.at});
      prev = &a;
    }
    for (std::size_t i = 0; i < acc.size(); ++i)
      for (std::size_t j = i + 1; j < acc.size(); ++j) {
        const Access &a = acc[i], &b = acc[j];
        if (a.thread == b.thread || a.var != b.var || !(a.writes || b.writes)) continue;
        adj[node[a.unit]].push_back(Edge{node[b.unit], a.at, b.at});
      }
    std::vector<CycleEdge> cycle;
    if (find_cycle(adj, unit_of, thread_of, cycle)) {
      v.serializable = false;
      v.cycle = std::move(cycle);
      EventIndex last_event = 0;
      for (const CycleEdge& e : v.cycle) last_event = std::max(last_event, std::max(e.from_event, e.to_event));
      v.detected_at = last_event;
      v.note = fmt::format("projection on atomic set {} is not conflict serializable ({} units in the cycle)",
                           atomic_set_name(sets_, set), v.cycle.size());
      return v;
    }
  }
  return v;
}

}  // namespace atomcheck
