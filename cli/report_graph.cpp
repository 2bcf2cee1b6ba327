// Builds the transaction graph of a counterexample and renders it for Graphviz.
#include "cli/report_graph.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <unordered_map>

#include <fmt/core.h>

namespace atomcheck::report {

namespace {

std::uint64_t pair_key(std::uint32_t a, std::uint32_t b) {
  return (static_cast<std::uint64_t>(a) << 32) | b;
}

// Finds the transaction a checker named, adding a placeholder when the trace has none
// there, so every witness edge still gets drawn.
std::uint32_t find_txn(TxnGraph& g, const Trace& trace, const TxnRef& ref) {
  if (ref.first < trace.events.size()) {
    std::uint32_t t = g.txn_of[ref.first];
    if (t != kNoId && g.txns[t].thread == ref.thread) return t;
  }
  for (std::uint32_t t = 0; t < g.txns.size(); ++t)
    if (g.txns[t].first == kNoEvent && g.txns[t].thread == ref.thread) return t;
  TxnNode n;
  n.thread = ref.thread;
  g.txns.push_back(n);
  return static_cast<std::uint32_t>(g.txns.size() - 1);
}

// dot string literal content: quotes and backslashes escaped, no raw newlines.
std::string dot_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string event_text(const Trace& trace, const Event& e) {
  const Names& n = trace.names;
  switch (e.op) {
    case Op::read: return fmt::format("{}({})", e.failed_cas ? "cas-fail" : "r", n.var(e.target));
    case Op::write: return fmt::format("w({})", n.var(e.target));
    case Op::commit: return fmt::format("commit({})", n.var(e.target));
    case Op::rmw: return fmt::format("rmw({})", n.var(e.target));
    case Op::fence: return "fence";
    case Op::acquire: return fmt::format("acq({})", n.lock(e.target));
    case Op::release: return fmt::format("rel({})", n.lock(e.target));
    case Op::fork: return fmt::format("fork({})", n.thread(e.target));
    case Op::join: return fmt::format("join({})", n.thread(e.target));
    case Op::begin:
      return e.target == kNoId ? std::string("begin") : fmt::format("begin {}", n.label(e.target));
    case Op::end:
      return e.target == kNoId ? std::string("end") : fmt::format("end {}", n.label(e.target));
  }
  return std::string(op_name(e.op));
}

namespace {
std::string short_value(std::int64_t v) {
  if (v > -65536 && v < 65536) return fmt::format("{}", v);
  return v < 0 ? fmt::format("-{:#x}", 0 - static_cast<std::uint64_t>(v)) : fmt::format("{:#x}", v);
}
}  // namespace

std::string value_text(const Event& e) {
  if (e.op == Op::read && e.failed_cas) return fmt::format("saw {}, not {}", short_value(e.value), short_value(e.value2));
  if (e.op == Op::rmw) return fmt::format("{} -> {}", short_value(e.value), short_value(e.value2));
  if (is_access(e.op)) return "= " + short_value(e.value);
  return {};
}

std::string txn_text(const Trace& trace, const TxnNode& t) {
  std::string s = t.first == kNoEvent ? fmt::format("{}@?", trace.names.thread(t.thread))
                                      : fmt::format("{}@{}", trace.names.thread(t.thread), t.first);
  if (t.label != kNoId) {
    s += ' ';
    s += trace.names.label(t.label);
  }
  return s;
}

TxnGraph build_graph(const Trace& trace, const Verdict& verdict) {
  TxnGraph g;
  const std::vector<Event>& ev = trace.events;
  const std::size_t n = ev.size();
  g.txn_of.assign(n, kNoId);
  g.interfering.assign(n, false);

  // Transactions: outermost begin/end blocks; every other event is unary; a commit joins
  // the transaction of its issue.
  std::vector<std::uint32_t> depth, open;
  bool has_commits = false;
  auto unary = [&](EventIndex i) {
    TxnNode t;
    t.thread = ev[i].thread;
    t.first = t.last = i;
    g.txns.push_back(t);
    return static_cast<std::uint32_t>(g.txns.size() - 1);
  };
  for (EventIndex i = 0; i < n; ++i) {
    const Event& e = ev[i];
    if (e.thread >= depth.size()) {
      depth.resize(e.thread + 1, 0);
      open.resize(e.thread + 1, kNoId);
    }
    if (e.op == Op::commit) {
      has_commits = true;
      g.txn_of[i] = e.issue < i && g.txn_of[e.issue] != kNoId ? g.txn_of[e.issue] : unary(i);
      continue;
    }
    std::uint32_t& d = depth[e.thread];
    if (e.op == Op::begin) {
      if (d++ == 0) {
        open[e.thread] = unary(i);
        g.txns[open[e.thread]].label = e.target;
      }
    } else if (d == 0) {
      g.txn_of[i] = unary(i);
      continue;
    }
    std::uint32_t t = open[e.thread];
    g.txn_of[i] = t;
    g.txns[t].last = i;
    if (e.op == Op::end && --d == 0) open[e.thread] = kNoId;
  }

  // Conflict edges between transactions of different threads, the first pair of events
  // found for each ordered pair of transactions. Under TSO a write issue is invisible to
  // other threads; its commit is the conflicting write.
  std::unordered_map<std::uint64_t, std::uint32_t> edge_of;
  auto add_edge = [&](EventIndex a, EventIndex b) {
    std::uint32_t ta = g.txn_of[a], tb = g.txn_of[b];
    if (ta == tb || ev[a].thread == ev[b].thread) return;
    auto [it, fresh] = edge_of.emplace(pair_key(ta, tb), static_cast<std::uint32_t>(g.edges.size()));
    if (fresh) g.edges.push_back(TxnEdge{ta, tb, a, b, false});
  };
  std::unordered_map<std::uint32_t, EventIndex> last_write, last_release;
  std::unordered_map<std::uint32_t, std::vector<EventIndex>> reads_since;
  std::vector<EventIndex> last_event, pending_fork;
  for (EventIndex i = 0; i < n; ++i) {
    const Event& e = ev[i];
    if (e.thread >= last_event.size()) {
      last_event.resize(e.thread + 1, kNoEvent);
      pending_fork.resize(e.thread + 1, kNoEvent);
    }
    if (last_event[e.thread] == kNoEvent && pending_fork[e.thread] != kNoEvent)
      add_edge(pending_fork[e.thread], i);
    bool writes = is_write_like(e.op) && !(has_commits && e.op == Op::write);
    bool reads = (e.op == Op::read && !e.buffered) || e.op == Op::rmw;
    if (is_access(e.op) && (reads || writes)) {
      auto w = last_write.find(e.target);
      if (w != last_write.end()) add_edge(w->second, i);
      std::vector<EventIndex>& rs = reads_since[e.target];
      if (writes) {
        for (EventIndex r : rs) add_edge(r, i);
        rs.clear();
        last_write[e.target] = i;
      } else {
        rs.push_back(i);
      }
    } else if (e.op == Op::acquire) {
      auto r = last_release.find(e.target);
      if (r != last_release.end()) add_edge(r->second, i);
    } else if (e.op == Op::release) {
      last_release[e.target] = i;
    } else if (e.op == Op::fork) {
      if (e.target >= pending_fork.size()) {
        last_event.resize(e.target + 1, kNoEvent);
        pending_fork.resize(e.target + 1, kNoEvent);
      }
      pending_fork[e.target] = i;
    } else if (e.op == Op::join) {
      if (e.target < last_event.size() && last_event[e.target] != kNoEvent)
        add_edge(last_event[e.target], i);
    }
    last_event[e.thread] = i;
  }

  // The witness: each cycle edge is marked on the conflict edge between the same two
  // transactions (taking the checker's events), or added when there is none.
  std::uint32_t pos = 0;
  for (const CycleEdge& c : verdict.cycle) {
    ++pos;
    std::uint32_t a = find_txn(g, trace, c.from), b = find_txn(g, trace, c.to);
    g.txns[a].in_cycle = g.txns[b].in_cycle = true;
    auto [it, fresh] = edge_of.emplace(pair_key(a, b), static_cast<std::uint32_t>(g.edges.size()));
    if (fresh) g.edges.push_back(TxnEdge{a, b, kNoEvent, kNoEvent, false});
    TxnEdge& edge = g.edges[it->second];
    edge.in_cycle = true;
    if (edge.cycle_pos == 0) edge.cycle_pos = pos;
    if (c.from_event < n && c.to_event < n) {
      edge.from_event = c.from_event;
      edge.to_event = c.to_event;
    }
  }
  for (const Blame& b : verdict.blamed) {
    g.txns[find_txn(g, trace, b.txn)].blamed = true;
    if (b.interfering < n) g.interfering[b.interfering] = true;
  }
  return g;
}

Verdict verdict_on_execution(const Trace& execution, Verdict v) {
  std::vector<EventIndex> index;  // tau index -> execution index
  for (EventIndex i = 0; i < execution.events.size(); ++i)
    if (execution.events[i].op != Op::commit) index.push_back(i);
  auto map = [&](EventIndex& i) {
    if (i != kNoEvent) i = i < index.size() ? index[i] : kNoEvent;
  };
  for_each_event_index(v, map);
  return v;
}

std::string render_dot(const Trace& trace, const Verdict& verdict, const std::string& ending) {
  TxnGraph g = build_graph(trace, verdict);
  std::string out = "digraph transactions {\n";
  std::string label = ending.empty() ? "" : "execution " + ending;
  if (!verdict.checker.empty()) {
    if (!label.empty()) label += "; ";
    label += fmt::format("{}: {}", verdict.checker,
                         !verdict.serializable       ? (verdict.checker.rfind("linearizability", 0) == 0 ? "not linearizable" : "not serializable")
                         : !verdict.blamed.empty()   ? "atomicity violation"
                                                     : "no violation");
  }
  out += fmt::format("  label=\"{}\";\n", dot_escape(label));
  out += "  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n";
  out += "  edge [fontname=\"Helvetica\", fontsize=10];\n";
  for (std::uint32_t t = 0; t < g.txns.size(); ++t) {
    const TxnNode& x = g.txns[t];
    std::string attrs = fmt::format("label=\"{}\"", dot_escape(txn_text(trace, x)));
    if (x.blamed) attrs += ", style=filled, fillcolor=\"#f4b6b6\"";
    if (x.in_cycle) attrs += ", color=red, penwidth=2";
    out += fmt::format("  t{} [{}];\n", t, attrs);
  }
  for (const TxnEdge& e : g.edges) {
    std::string label;
    if (e.from_event != kNoEvent && e.to_event != kNoEvent)
      label = fmt::format("{}@{} -> {}@{}", event_text(trace, trace.events[e.from_event]),
                          e.from_event, event_text(trace, trace.events[e.to_event]), e.to_event);
    std::string attrs = fmt::format("label=\"{}\"", dot_escape(label));
    if (e.in_cycle) attrs += ", color=red, fontcolor=red, penwidth=2";
    out += fmt::format("  t{} -> t{} [{}];\n", e.from, e.to, attrs);
  }
  out += "}\n";
  return out;
}

bool write_text_file(const std::string& path, const std::string& text, std::string& error) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (f) f.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (f) f.close();
  if (!f) {
    error = fmt::format("{}: cannot write: {}", path, std::strerror(errno));
    return false;
  }
  return true;
}

}  // namespace atomcheck::report
