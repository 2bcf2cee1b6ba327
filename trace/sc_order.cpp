// sc_order (sc_order.hpp): the graph's edges, in one flat list and then compressed rows,
// between consecutive events where that is enough (po, each variable's mo, each mutex's
// operations), rf from each read's write and fr from each read to the mo-successor of its
// write; then Kahn's algorithm taking the smallest run index first, so that an SC
// execution keeps the run's order where it can.
#include "trace/sc_order.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include <fmt/core.h>

namespace atomcheck {

namespace {

using Edge = std::pair<EventIndex, EventIndex>;

// The edges as adjacency lists in one flat array (compressed rows): the targets of a
// (or, `reverse`, the sources into a) are adj[at[a] .. at[a+1]).
void adjacency(const std::vector<Edge>& edges, std::size_t n, bool reverse, std::vector<EventIndex>& at,
               std::vector<EventIndex>& adj) {
  at.assign(n + 1, 0);
  for (const Edge& e : edges) ++at[(reverse ? e.second : e.first) + 1];
  for (std::size_t i = 0; i < n; ++i) at[i + 1] += at[i];
  adj.resize(edges.size());
  std::vector<EventIndex> fill(at.begin(), at.end() - 1);
  for (const Edge& e : edges) adj[fill[reverse ? e.second : e.first]++] = reverse ? e.first : e.second;
}

// A cycle among the events Kahn's algorithm could not place (each has a predecessor
// among them): walk predecessors until one repeats.
std::vector<EventIndex> find_cycle(const std::vector<Edge>& edges, const std::vector<std::uint32_t>& indeg) {
  EventIndex e = kNoEvent;
  for (EventIndex i = 0; i < indeg.size() && e == kNoEvent; ++i)
    if (indeg[i] > 0) e = i;
  if (e == kNoEvent) return {};
  std::vector<EventIndex> from, preds;
  adjacency(edges, indeg.size(), true, from, preds);
  std::vector<std::uint8_t> seen(indeg.size(), 0);
  std::vector<EventIndex> path;
  while (!seen[e]) {
    seen[e] = 1;
    path.push_back(e);
    for (EventIndex k = from[e]; k < from[e + 1]; ++k)
      if (indeg[preds[k]] > 0) {
        e = preds[k];
        break;
      }
  }
  // path walks backwards; the cycle is its part from `e`, reversed into forward order.
  std::vector<EventIndex> cycle(std::find(path.begin(), path.end(), e), path.end());
  std::reverse(cycle.begin(), cycle.end());
  return cycle;
}

}  // namespace

ScOrder sc_order(const Trace& trace) {
  const std::vector<Event>& ev = trace.events;
  const std::size_t n = ev.size();
  ScOrder out;
  std::vector<Edge> edges;
  edges.reserve(3 * n);
  auto edge = [&](EventIndex a, EventIndex b) {
    if (a != b) edges.emplace_back(a, b);
  };
  std::vector<EventIndex> last_of_thread, first_of_thread, last_of_lock;
  std::vector<std::vector<EventIndex>> mo;  // per variable: its writes in mo
  auto grow = [](std::vector<EventIndex>& v, std::size_t i) {
    if (v.size() <= i) v.resize(i + 1, kNoEvent);
  };
  for (EventIndex i = 0; i < n; ++i) {
    const Event& e = ev[i];
    grow(last_of_thread, e.thread);
    grow(first_of_thread, e.thread);
    if (last_of_thread[e.thread] != kNoEvent) edge(last_of_thread[e.thread], i);
    else first_of_thread[e.thread] = i;
    last_of_thread[e.thread] = i;
    if (e.op == Op::commit) {
      out.known = false;
      out.why = "a store buffer's commit (not an rc11 execution)";
      return out;
    }
    if (is_lock_op(e.op)) {
      grow(last_of_lock, e.target);
      if (last_of_lock[e.target] != kNoEvent) edge(last_of_lock[e.target], i);
      last_of_lock[e.target] = i;
    }
    if ((e.op == Op::read || e.op == Op::rmw) && e.issue != kNoEvent) {
      if (e.issue >= i) {
        out.known = false;
        out.why = fmt::format("event {} reads event {}, not an earlier one", i, e.issue);
        return out;
      }
      edge(e.issue, i);
    }
    if (e.op == Op::write || e.op == Op::rmw) {
      if (e.mo_pos == kNoMoPos || e.mo_pos == 0) {
        out.known = false;
        out.why = fmt::format("event {} has no place in its variable's modification order", i);
        return out;
      }
      if (mo.size() <= e.target) mo.resize(e.target + 1);
      std::vector<EventIndex>& order = mo[e.target];
      const std::size_t at = std::min<std::size_t>(e.mo_pos - 1u, order.size());  // mo_pos 0: initial
      order.insert(order.begin() + static_cast<std::ptrdiff_t>(at), i);
    }
  }
  // fork: the parent's fork before the child's first event; join: the child's last before it.
  for (EventIndex i = 0; i < n; ++i) {
    const Event& e = ev[i];
    if (!is_thread_op(e.op) || e.target >= first_of_thread.size()) continue;
    if (e.op == Op::fork && first_of_thread[e.target] != kNoEvent) edge(i, first_of_thread[e.target]);
    if (e.op == Op::join && last_of_thread[e.target] != kNoEvent) edge(last_of_thread[e.target], i);
  }
  // mo, and fr: a read before the write after the one it read (an rmw before the one after its own).
  std::vector<std::size_t> pos(n, 0);
  for (const std::vector<EventIndex>& order : mo)
    for (std::size_t p = 0; p < order.size(); ++p) {
      pos[order[p]] = p + 1;  // 0: the initial write
      if (p > 0) edge(order[p - 1], order[p]);
    }
  for (EventIndex i = 0; i < n; ++i) {
    const Event& e = ev[i];
    if (e.op != Op::read && e.op != Op::rmw) continue;
    const std::vector<EventIndex>* order = e.target < mo.size() ? &mo[e.target] : nullptr;
    if (!order) continue;
    const std::size_t read_pos = e.issue == kNoEvent ? 0 : pos[e.issue];
    std::size_t next = read_pos;  // index in `order` of the write after the one read
    if (next < order->size() && (*order)[next] == i) ++next;  // an rmw's own write
    if (next < order->size()) edge(i, (*order)[next]);
  }
  std::vector<EventIndex> from, succ;
  adjacency(edges, n, false, from, succ);
  std::vector<std::uint32_t> indeg(n, 0);
  for (const Edge& e : edges) ++indeg[e.second];
  std::priority_queue<EventIndex, std::vector<EventIndex>, std::greater<>> ready;
  for (EventIndex i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push(i);
  out.order.reserve(n);
  while (!ready.empty()) {
    const EventIndex i = ready.top();
    ready.pop();
    out.order.push_back(i);
    for (EventIndex k = from[i]; k < from[i + 1]; ++k)
      if (--indeg[succ[k]] == 0) ready.push(succ[k]);
  }
  if (out.order.size() != n) {
    out.cycle = find_cycle(edges, indeg);
    out.order.clear();
  }
  return out;
}

void in_sc_order(const Trace& trace, const ScOrder& order, std::vector<Event>& out) {
  std::vector<EventIndex> at(trace.events.size(), kNoEvent);
  for (EventIndex i = 0; i < order.order.size(); ++i) at[order.order[i]] = i;
  out.clear();
  for (EventIndex old : order.order) {
    out.push_back(trace.events[old]);
    if (out.back().issue != kNoEvent && out.back().issue < at.size()) out.back().issue = at[out.back().issue];
  }
}

}  // namespace atomcheck
