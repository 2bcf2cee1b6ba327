// Builds the execution graph of an RC11 execution from its trace (po, rf, mo, sw, hb as
// Lahav et al., PLDI 2017, define them) and renders it for Graphviz.
#include "cli/report_rc11_graph.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/core.h>

#include "cli/report_graph.hpp"

namespace atomcheck::report {

namespace {

bool atomic_order(std::uint8_t o) { return o <= 5; }  // not plain, not kNoOrder
std::uint8_t read_order(const Event& e) { return e.op == Op::rmw ? rmw_read_order(e.order) : e.order; }
std::uint8_t write_order(const Event& e) { return e.op == Op::rmw ? rmw_write_order(e.order) : e.order; }

bool is_node_op(Op op) {
  return op == Op::read || op == Op::write || op == Op::rmw || op == Op::fence || op == Op::acquire ||
         op == Op::release;
}
bool reads(Op op) { return op == Op::read || op == Op::rmw; }
bool writes(Op op) { return op == Op::write || op == Op::rmw; }

void join_into(std::vector<std::uint32_t>& into, const std::vector<std::uint32_t>& from) {
  for (std::size_t i = 0; i < from.size() && i < into.size(); ++i) into[i] = std::max(into[i], from[i]);
}

// mo of every variable: each write inserted at its recorded place, in trace order.
void rebuild_mo(const Trace& trace, Rc11Graph& g) {
  const std::vector<Event>& ev = trace.events;
  std::vector<std::uint8_t> unknown;
  for (EventIndex i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (!writes(e.op) || e.target == kNoId) continue;
    if (e.target >= g.mo.size()) {
      g.mo.resize(e.target + 1);
      unknown.resize(e.target + 1, 0);
    }
    std::vector<EventIndex>& list = g.mo[e.target];
    if (list.empty()) list.push_back(kNoEvent);
    if (e.mo_pos == kNoMoPos || e.mo_pos == 0 || e.mo_pos > list.size()) unknown[e.target] = 1;
    if (!unknown[e.target]) list.insert(list.begin() + e.mo_pos, i);
  }
  for (VarId v = 0; v < unknown.size(); ++v)
    if (unknown[v]) {
      g.mo[v].clear();
      g.mo_unknown.push_back(v);
    }
}

// Each thread's events in po, and each event's place among them.
struct ByThread {
  std::vector<std::vector<EventIndex>> events;
  std::vector<std::size_t> at;
  explicit ByThread(const std::vector<Event>& ev) : at(ev.size()) {
    for (EventIndex i = 0; i < ev.size(); ++i) {
      if (ev[i].thread >= events.size()) events.resize(ev[i].thread + 1);
      at[i] = events[ev[i].thread].size();
      events[ev[i].thread].push_back(i);
    }
  }
};

// The writes whose release sequence holds write w (rs = [W]; po|loc?; [W⊒rlx]; (rf; rmw)*)
// are found backwards: the rmw chain w reads through, and for each atomic write s of it
// every write of s's variable po-before s in s's thread. The sw sources are those heads
// that are release writes, and the release fences po-before a head (([F]; po)?).
std::set<EventIndex> sw_sources(const std::vector<Event>& ev, const ByThread& by, EventIndex w) {
  std::set<EventIndex> out;
  for (EventIndex s = w; s < ev.size() && writes(ev[s].op); s = ev[s].op == Op::rmw ? ev[s].issue : kNoEvent) {
    if (!atomic_order(write_order(ev[s]))) continue;
    const std::vector<EventIndex>& mine = by.events[ev[s].thread];
    for (std::size_t k = 0; k <= by.at[s]; ++k) {
      const EventIndex h = mine[k];
      const Event& e = ev[h];
      if (writes(e.op) && e.target == ev[s].target && order_releases(write_order(e))) out.insert(h);
      if (e.op == Op::fence && h < s && order_releases(e.order)) out.insert(h);
    }
  }
  return out;
}

// sw between threads: sw = [E⊒rel]; ([F]; po)?; rs; rf; [R⊒rlx]; (po; [F])?; [E⊒acq], and a
// mutex's release to the acquire after it. Within a thread sw adds nothing to po.
std::vector<std::pair<EventIndex, EventIndex>> sync_edges(const std::vector<Event>& ev) {
  const ByThread by(ev);
  std::set<std::pair<EventIndex, EventIndex>> sw;
  std::vector<EventIndex> last_release;
  for (EventIndex r = 0; r < ev.size(); ++r) {
    const Event& e = ev[r];
    if (e.op == Op::release) {
      if (e.target >= last_release.size()) last_release.resize(e.target + 1, kNoEvent);
      last_release[e.target] = r;
    } else if (e.op == Op::acquire && e.target < last_release.size() && last_release[e.target] != kNoEvent &&
               ev[last_release[e.target]].thread != e.thread) {
      sw.emplace(last_release[e.target], r);
    }
    if (!reads(e.op) || !atomic_order(read_order(e)) || e.issue >= r || !writes(ev[e.issue].op)) continue;
    std::vector<EventIndex> targets;
    if (order_acquires(read_order(e))) targets.push_back(r);
    const std::vector<EventIndex>& mine = by.events[e.thread];
    for (std::size_t k = by.at[r] + 1; k < mine.size(); ++k)
      if (ev[mine[k]].op == Op::fence && order_acquires(ev[mine[k]].order)) targets.push_back(mine[k]);
    if (targets.empty()) continue;
    for (EventIndex s : sw_sources(ev, by, e.issue))
      if (ev[s].thread != e.thread)
        for (EventIndex t : targets) sw.emplace(s, t);
  }
  return {sw.begin(), sw.end()};
}

// Lower-case label of a node's order, "" when it has none.
std::string order_text(const Event& e) { return std::string(order_name(e.order)); }

std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' || c == '\r' ? ' ' : c;
  }
  return out;
}

}  // namespace

std::string_view rc11_rel_name(Rc11Rel rel) {
  switch (rel) {
    case Rc11Rel::po: return "po";
    case Rc11Rel::rf: return "rf";
    case Rc11Rel::mo: return "mo";
    case Rc11Rel::sw: return "sw";
    case Rc11Rel::hb: return "hb";
  }
  return "?";
}

bool Rc11Graph::hb(std::uint32_t a, std::uint32_t b) const {
  if (a == b || a >= nodes.size() || b >= nodes.size()) return false;
  if (nodes[a].thread == kNoId) return nodes[b].thread != kNoId;
  if (nodes[b].thread == kNoId) return false;
  const std::vector<std::uint32_t>& c = clock[b];
  return nodes[a].thread < c.size() && c[nodes[a].thread] >= nodes[a].in_thread;
}

bool Rc11Graph::has_edge(EventIndex from, EventIndex to, Rc11Rel rel) const {
  if (to >= node_of.size() || node_of[to] == kNoId) return false;
  const std::uint32_t b = node_of[to];
  std::uint32_t a = kNoId;
  if (from == kNoEvent) {
    for (std::uint32_t k = 0; k < nodes.size() && nodes[k].thread == kNoId; ++k)
      if (nodes[k].var == nodes[b].var) a = k;
  } else if (from < node_of.size()) {
    a = node_of[from];
  }
  if (a == kNoId) return false;
  return std::any_of(edges.begin(), edges.end(),
                     [&](const Rc11Edge& e) { return e.from == a && e.to == b && e.rel == rel; });
}

Rc11Graph build_rc11_graph(const Trace& trace) {
  Rc11Graph g;
  const std::vector<Event>& ev = trace.events;
  const std::size_t n = ev.size();
  std::size_t nthreads = 0;
  for (const Event& e : ev) {
    nthreads = std::max<std::size_t>(nthreads, e.thread + 1);
    if (is_thread_op(e.op)) nthreads = std::max<std::size_t>(nthreads, e.target + 1);
  }

  // Nodes: the initial value of each variable some read reads, then the memory events.
  std::vector<std::uint32_t> init_of;
  for (const Event& e : ev)
    if (reads(e.op) && e.issue == kNoEvent && e.order != kNoOrder && e.target != kNoId) {
      if (e.target >= init_of.size()) init_of.resize(e.target + 1, kNoId);
      if (init_of[e.target] != kNoId) continue;
      init_of[e.target] = static_cast<std::uint32_t>(g.nodes.size());
      g.nodes.push_back(Rc11Node{kNoEvent, e.target, kNoId, 0});
    }
  std::sort(g.nodes.begin(), g.nodes.end(), [](const Rc11Node& a, const Rc11Node& b) { return a.var < b.var; });
  for (std::uint32_t k = 0; k < g.nodes.size(); ++k) init_of[g.nodes[k].var] = k;
  const std::size_t ninit = g.nodes.size();
  g.node_of.assign(n, kNoId);
  std::vector<std::vector<std::uint32_t>> of_thread(nthreads);  // nodes of each thread, in po
  for (EventIndex i = 0; i < n; ++i) {
    const Event& e = ev[i];
    if (!is_node_op(e.op)) continue;
    g.node_of[i] = static_cast<std::uint32_t>(g.nodes.size());
    of_thread[e.thread].push_back(g.node_of[i]);
    g.nodes.push_back(Rc11Node{i, is_access(e.op) ? e.target : kNoId, e.thread,
                               static_cast<std::uint32_t>(of_thread[e.thread].size())});
  }
  auto add = [&](std::uint32_t a, std::uint32_t b, Rc11Rel rel) {
    if (a != kNoId && b != kNoId) g.edges.push_back(Rc11Edge{a, b, rel});
  };

  for (const std::vector<std::uint32_t>& list : of_thread)
    for (std::size_t k = 1; k < list.size(); ++k) add(list[k - 1], list[k], Rc11Rel::po);

  for (EventIndex i = 0; i < n; ++i) {
    const Event& e = ev[i];
    if (!reads(e.op) || e.order == kNoOrder) continue;
    if (e.issue == kNoEvent) add(init_of[e.target], g.node_of[i], Rc11Rel::rf);
    else if (e.issue < i && writes(ev[e.issue].op) && ev[e.issue].target == e.target)
      add(g.node_of[e.issue], g.node_of[i], Rc11Rel::rf);
  }

  rebuild_mo(trace, g);
  for (VarId v = 0; v < g.mo.size(); ++v) {
    const std::vector<EventIndex>& list = g.mo[v];
    for (std::size_t k = 1; k < list.size(); ++k) {
      if (k == 1 && (v >= init_of.size() || init_of[v] == kNoId)) continue;  // no initial node drawn
      add(k == 1 ? init_of[v] : g.node_of[list[k - 1]], g.node_of[list[k]], Rc11Rel::mo);
    }
  }

  // hb = (po ∪ sw ∪ thread start and join)+, as vector clocks over the nodes, in trace
  // order: every source of an edge precedes its target in the trace.
  const auto sw = sync_edges(ev);
  std::vector<std::vector<EventIndex>> sw_into(n);
  for (const auto& [a, b] : sw) {
    add(g.node_of[a], g.node_of[b], Rc11Rel::sw);
    sw_into[b].push_back(a);
  }
  g.clock.assign(g.nodes.size(), {});
  std::vector<std::vector<std::uint32_t>> now(nthreads, std::vector<std::uint32_t>(nthreads, 0));
  for (EventIndex i = 0; i < n; ++i) {
    const Event& e = ev[i];
    std::vector<std::uint32_t>& c = now[e.thread];
    if (e.op == Op::fork) now[e.target] = c;
    if (e.op == Op::join) join_into(c, now[e.target]);
    const std::uint32_t k = g.node_of[i];
    if (k == kNoId) continue;
    for (EventIndex s : sw_into[i]) join_into(c, g.clock[g.node_of[s]]);
    c[e.thread] = g.nodes[k].in_thread;
    g.clock[k] = c;
  }

  // hb's transitive reduction: a node's immediate predecessors are the maximal ones among
  // the last node of each thread before it. Those that are no po or sw edge are drawn.
  std::set<std::pair<std::uint32_t, std::uint32_t>> drawn;
  for (const Rc11Edge& e : g.edges)
    if (e.rel == Rc11Rel::sw) drawn.emplace(e.from, e.to);
  for (std::uint32_t b = static_cast<std::uint32_t>(ninit); b < g.nodes.size(); ++b) {
    std::vector<std::uint32_t> last;
    for (std::size_t t = 0; t < nthreads; ++t) {
      std::uint32_t c = g.clock[b][t];
      if (t == g.nodes[b].thread) --c;  // b itself
      if (c > 0) last.push_back(of_thread[t][c - 1]);
    }
    for (std::uint32_t a : last) {
      if (g.nodes[a].thread == g.nodes[b].thread || drawn.count({a, b})) continue;
      const bool implied = std::any_of(last.begin(), last.end(), [&](std::uint32_t c) { return g.hb(a, c); });
      if (!implied) add(a, b, Rc11Rel::hb);
    }
  }
  return g;
}

std::string rc11_node_text(const Trace& trace, const Rc11Graph& g, const Rc11Node& n) {
  if (n.event == kNoEvent) {
    // Every read of the initial value read the same value: take the first one's.
    for (const Rc11Edge& e : g.edges)
      if (e.rel == Rc11Rel::rf && g.nodes[e.from].event == kNoEvent && g.nodes[e.from].var == n.var)
        return fmt::format("{} = {}", trace.names.var(n.var), format_value(trace.events[g.nodes[e.to].event].value));
    return trace.names.var(n.var);
  }
  const Event& e = trace.events[n.event];
  std::string s = fmt::format("#{} {}", n.event, event_text(trace, e));
  const std::string v = value_text(e);
  if (!v.empty()) s += " " + v;
  return s;
}

std::string rc11_node_order(const Trace& trace, const Rc11Node& n) {
  return n.event == kNoEvent ? std::string("initial value") : order_text(trace.events[n.event]);
}

std::string render_rc11_dot(const Trace& trace, const HtmlHeader& header) {
  const Rc11Graph g = build_rc11_graph(trace);
  std::string label = header.ending.empty() ? "RC11 execution graph" : "execution " + header.ending;
  if (!g.mo_unknown.empty()) {
    std::string vars;
    for (VarId v : g.mo_unknown) vars += (vars.empty() ? "" : ", ") + trace.names.var(v);
    label += fmt::format("; mo not recorded for {}", vars);
  }
  std::string out = "digraph execution {\n";
  out += fmt::format("  label=\"{}\";\n  labelloc=t;\n", dot_escape(label));
  out += "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=9];\n";
  auto id = [&](const Rc11Node& n) {
    return n.event == kNoEvent ? fmt::format("init{}", n.var) : fmt::format("e{}", n.event);
  };
  // Clusters: the initial values, then each thread in id order.
  std::vector<ThreadId> threads;
  for (const Rc11Node& n : g.nodes)
    if (n.thread != kNoId && std::find(threads.begin(), threads.end(), n.thread) == threads.end())
      threads.push_back(n.thread);
  const bool failure = header.failure_event != kNoEvent && header.failure_thread != kNoId;
  if (failure && std::find(threads.begin(), threads.end(), header.failure_thread) == threads.end())
    threads.push_back(header.failure_thread);
  std::sort(threads.begin(), threads.end());
  auto node_decl = [&](const Rc11Node& n) {
    std::string text = dot_escape(rc11_node_text(trace, g, n));
    const std::string order = rc11_node_order(trace, n);
    if (!order.empty()) text += "\\n" + dot_escape(order);
    std::string attrs = fmt::format("label=\"{}\"", text);
    if (n.event == kNoEvent) attrs += ", style=dashed";
    if (n.event != kNoEvent && (n.event == header.race_first || n.event == header.race_second))
      attrs += ", color=\"#c00000\", penwidth=2";
    return fmt::format("    {} [{}];\n", id(n), attrs);
  };
  if (!g.nodes.empty() && g.nodes.front().thread == kNoId) {
    out += "  subgraph cluster_init {\n    label=\"initial values\";\n    style=dashed;\n";
    for (const Rc11Node& n : g.nodes)
      if (n.thread == kNoId) out += node_decl(n);
    out += "  }\n";
  }
  std::string failure_edge;
  for (ThreadId t : threads) {
    out += fmt::format("  subgraph cluster_t{} {{\n    label=\"{}\";\n", t, dot_escape(trace.names.thread(t)));
    std::string last;
    for (const Rc11Node& n : g.nodes) {
      if (n.thread != t) continue;
      out += node_decl(n);
      if (failure && t == header.failure_thread && n.event < header.failure_event) last = id(n);
    }
    if (failure && t == header.failure_thread) {
      out += fmt::format(
          "    failure [shape=octagon, color=\"#c00000\", fontcolor=\"#c00000\", label=\"failed here: {}\"];\n",
          dot_escape(header.failure_message));
      if (!last.empty()) failure_edge = fmt::format("  {} -> failure [color=\"#c00000\"];\n", last);
    }
    out += "  }\n";
  }
  for (const Rc11Edge& e : g.edges) {
    const std::string a = id(g.nodes[e.from]), b = id(g.nodes[e.to]);
    switch (e.rel) {
      case Rc11Rel::po: out += fmt::format("  {} -> {} [weight=10];\n", a, b); break;
      case Rc11Rel::rf:
        out += fmt::format("  {} -> {} [label=\"rf\", color=\"#2a8a2a\", fontcolor=\"#2a8a2a\"];\n", a, b);
        break;
      case Rc11Rel::mo:
        // mo may run against the trace's order (and po ∪ mo may cycle): it places nothing.
        out += fmt::format(
            "  {} -> {} [label=\"mo\", color=\"#c07000\", fontcolor=\"#c07000\", style=dashed, constraint=false];\n",
            a, b);
        break;
      case Rc11Rel::sw:
        out += fmt::format("  {} -> {} [label=\"sw\", color=\"#1f5fbf\", fontcolor=\"#1f5fbf\", penwidth=2];\n", a,
                           b);
        break;
      case Rc11Rel::hb:
        out += fmt::format("  {} -> {} [label=\"hb\", color=\"#8a3ab9\", fontcolor=\"#8a3ab9\", style=dotted];\n", a,
                           b);
        break;
    }
  }
  out += failure_edge;
  // A data race: its two accesses, unordered by hb, joined by a red line.
  if (header.race_first < g.node_of.size() && header.race_second < g.node_of.size() &&
      g.node_of[header.race_first] != kNoId && g.node_of[header.race_second] != kNoId)
    out += fmt::format(
        "  e{} -> e{} [label=\"race\", color=\"#c00000\", fontcolor=\"#c00000\", dir=none, style=bold, "
        "constraint=false];\n",
        header.race_first, header.race_second);
  out += "}\n";
  return out;
}

}  // namespace atomcheck::report
