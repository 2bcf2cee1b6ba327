// The transaction graph of a counterexample, shared by the Graphviz and HTML reports:
// transactions recovered from the begin/end nesting, the conflict edges between them
// (with the events on each edge) and the checker's witness cycle and blames laid over
// them, so a reader sees why the execution is not serializable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../checkers/checker.hpp"
#include "../trace/trace.hpp"

namespace atomcheck::report {

// One transaction: an outermost begin/end block or a unary event. A placeholder (for a
// witness transaction the trace does not contain) has first == kNoEvent.
struct TxnNode {
  ThreadId thread = 0;
  EventIndex first = kNoEvent;
  EventIndex last = kNoEvent;  // last event of the thread in the transaction (no commits)
  LabelId label = kNoId;
  bool blamed = false;
  bool in_cycle = false;
};

// An edge between two transactions: `from_event` precedes and conflicts with `to_event`
// (kNoEvent when the checker named no events).
struct TxnEdge {
  std::uint32_t from = 0, to = 0;
  EventIndex from_event = kNoEvent, to_event = kNoEvent;
  bool in_cycle = false;
  std::uint32_t cycle_pos = 0;  // 1-based position in the witness cycle (0: not on it)
};

// The graph of one trace and verdict. Event indices are those of `trace`.
struct TxnGraph {
  std::vector<TxnNode> txns;
  std::vector<std::uint32_t> txn_of;  // per event: index into txns
  std::vector<TxnEdge> edges;         // conflict edges, then cycle edges not among them
  std::vector<bool> interfering;      // per event: named by a blame as interfering
};

TxnGraph build_graph(const Trace& trace, const Verdict& verdict);

// A checker fed the trace without commits (as exploration does) names events by their
// index in that trace; this maps its verdict onto the indices of the full execution.
Verdict verdict_on_execution(const Trace& execution, Verdict tau_verdict);

// Short text of an event: "w(x)", "acq(l)", "begin name", ... (names unescaped).
std::string event_text(const Trace& trace, const Event& e);
// What an access read or wrote, short enough to sit under its event on the page: "= 1",
// "1 -> 2" (rmw), "saw 1, not 0" (a failed compare-exchange); values past 2^16 in hex.
// Empty for events without a value.
std::string value_text(const Event& e);
// "T1@3" style name of a transaction, with its label when it has one.
std::string txn_text(const Trace& trace, const TxnNode& t);

// The Graphviz rendering: one node per transaction, conflict edges labelled with their
// events, the witness cycle in red, blamed transactions filled.
// `ending`: how the execution ended, put in the graph's label before the verdict (empty
// for trace files).
std::string render_dot(const Trace& trace, const Verdict& verdict, const std::string& ending = "");

// Writes `text` to `path`; on failure returns false with a one-line reason in `error`.
bool write_text_file(const std::string& path, const std::string& text, std::string& error);

}  // namespace atomcheck::report
