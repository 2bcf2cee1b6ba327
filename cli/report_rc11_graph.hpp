// The execution graph of an RC11 execution, the picture GenMC's --dump-error-graph gives:
// one node per memory event and the relations RC11 is defined with (po, rf, mo, sw, hb;
// Lahav et al., PLDI 2017). Computed from the trace alone (each access's order,
// Event::issue as rf, Event::mo_pos as mo), not by asking the memory model, so the picture
// is a second reading of the execution; docs/rc11.md "The execution graph" says which
// edges are drawn. `run --memory rc11 --dot/--html` writes it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "report_html.hpp"
#include "../trace/trace.hpp"

namespace atomcheck::report {

// A node: a memory event of the trace (read, write, rmw, fence, lock acquire or release),
// or, with event == kNoEvent, the initial value of `var` when some read reads it.
struct Rc11Node {
  EventIndex event = kNoEvent;
  VarId var = kNoId;            // accesses and initial values
  ThreadId thread = kNoId;      // kNoId for an initial value
  std::uint32_t in_thread = 0;  // 1-based position among its thread's nodes (0: initial value)
};

// po: consecutive nodes of a thread; rf: a write to a read of it; mo: consecutive writes
// of a variable; sw: RC11's synchronises-with (and a mutex's release to its next
// acquire), between threads; hb: the edges of hb's transitive reduction that are neither
// po nor sw (what thread start and join, which are no nodes, order).
enum class Rc11Rel : std::uint8_t { po, rf, mo, sw, hb };
std::string_view rc11_rel_name(Rc11Rel rel);

struct Rc11Edge {
  std::uint32_t from = 0, to = 0;  // node indices
  Rc11Rel rel = Rc11Rel::po;
};

struct Rc11Graph {
  std::vector<Rc11Node> nodes;         // initial values first, then events in trace order
  std::vector<std::uint32_t> node_of;  // per trace event: its node, kNoId when none
  std::vector<Rc11Edge> edges;
  // Per variable id: its writes in modification order, the initial value first as
  // kNoEvent; empty for a variable without writes or whose order the trace does not
  // record (listed in mo_unknown, and drawn without mo edges).
  std::vector<std::vector<EventIndex>> mo;
  std::vector<VarId> mo_unknown;
  // hb as vector clocks: clock[n][t] counts the nodes of thread t that happen before
  // node n, or are it.
  std::vector<std::vector<std::uint32_t>> clock;

  // Does node a happen before node b? An initial value happens before every event.
  bool hb(std::uint32_t a, std::uint32_t b) const;
  // Is there an edge `rel` from event `from` to event `to` (kNoEvent: the initial value of
  // `to`'s variable)?
  bool has_edge(EventIndex from, EventIndex to, Rc11Rel rel) const;
};

// The graph of an execution made under `--memory rc11` (commits and trace files carry no
// orders or rf: the result is then the bare po).
Rc11Graph build_rc11_graph(const Trace& trace);

// A node's text: "#7 w(flag) = 1" and, when it has one, its order ("release"); an
// initial value: "x = 0".
std::string rc11_node_text(const Trace& trace, const Rc11Graph& g, const Rc11Node& n);
std::string rc11_node_order(const Trace& trace, const Rc11Node& n);

// Graphviz: threads as clusters (columns), po down each, the other relations coloured and
// labelled; the ending and the failure in the label, the failure as a red node.
std::string render_rc11_dot(const Trace& trace, const HtmlHeader& header);

}  // namespace atomcheck::report
