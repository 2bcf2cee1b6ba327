// Renders one counterexample as a self-contained HTML page with an inline SVG: threads
// (and TSO store buffers) are horizontal swimlanes, events sit left to right in trace
// order, so every arrow of the witness cycle points forward in time.
#include "cli/report_html.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include <fmt/core.h>

#include "cli/report_graph.hpp"

namespace atomcheck::report {

namespace {

constexpr int kLeft = 150;     // room for lane names
constexpr int kStep = 84;      // horizontal distance between consecutive events (room for a value)
constexpr int kLaneH = 88;     // room for an event's name and value inside its box
constexpr int kTop = 40;       // room above the first lane for arcs

const char* kStyle = R"(
.picture { display: flex; border: 1px solid #ddd; margin: 1em 0; }
.picture .names { flex: none; border-right: 1px solid #ddd; }
.scroll { overflow-x: auto; }
svg text { font-size: 11px; font-family: Menlo, Consolas, monospace; }
svg .lane-bg { fill: #fafafa; stroke: #e4e4e4; }
svg .lane-bg.buffer { fill: #f1f5fb; }
svg .lane-name { font-size: 12px; font-weight: bold; fill: #333; }
svg .txn { fill: #e9f0ff; stroke: #7896c8; stroke-width: 1.2; }
svg .txn.in-cycle { stroke: #c00; stroke-width: 2; }
svg .txn.blamed { fill: #f9c7c7; stroke: #c00; stroke-width: 2.5; }
svg .event circle { fill: #fff; stroke: #333; stroke-width: 1.2; }
svg .event.endpoint circle { fill: #c00; stroke: #800; }
svg .event.interfering circle { fill: #f80; stroke: #a50; }
svg .event .idx { fill: #888; font-size: 9px; }
svg .event .val { fill: #1a4f8a; font-size: 10px; }
svg .event.cas-fail .val { fill: #b00; }
svg .failure line { stroke: #c00; stroke-width: 2.5; }
svg .failure text { fill: #c00; font-size: 11px; font-weight: bold; }
svg .conflict-edge { fill: none; stroke: #999; stroke-width: 1; stroke-dasharray: 3 3; }
svg .cycle-edge { fill: none; stroke: #c00; stroke-width: 2.2; }
svg .edge-label { fill: #c00; font-size: 10px; }
.legend span { display: inline-block; margin-right: 1.5em; }
.sw { display: inline-block; width: 1em; height: 0.8em; vertical-align: middle; border: 1px solid #777; margin-right: 0.3em; }
)";

struct Lane {
  ThreadId thread;
  bool buffer;
};

// Where everything sits in the picture: one lane per thread (and store buffer), events
// left to right; computed once, read by every section of the page.
struct Layout {
  const Trace& trace;
  const TxnGraph& g;
  const std::vector<Event>& ev;
  const std::size_t n;
  std::map<std::pair<ThreadId, bool>, int> lane_of;
  std::vector<Lane> lanes;
  int width = 0, height = 0;
  // The failing thread stopped between the event before `failure_event` and it.
  bool failure_marked = false;
  int failure_x = 0;
  std::vector<bool> endpoint;  // per event: an end of a witness cycle edge

  Layout(const Trace& tr, const TxnGraph& graph, const HtmlHeader& header);
  int lane_y(ThreadId t, bool buffer) const {
    auto it = lane_of.find({t, buffer});
    int l = it == lane_of.end() ? 0 : it->second;
    return kTop + l * kLaneH + kLaneH / 2;
  }
  static int ex(EventIndex i) { return kLeft + 30 + static_cast<int>(i) * kStep; }
  int ey(EventIndex i) const { return lane_y(ev[i].thread, ev[i].op == Op::commit); }
  // Where an edge starts or ends: its event, else its transaction's first event, else
  // the left margin of the transaction's lane.
  std::pair<int, int> point(EventIndex e, std::uint32_t txn) const {
    if (e < n) return {ex(e), ey(e)};
    const TxnNode& t = g.txns[txn];
    if (t.first < n) return {ex(t.first), ey(t.first)};
    return {kLeft - 10, lane_y(t.thread, false)};
  }
};

Layout::Layout(const Trace& tr, const TxnGraph& graph, const HtmlHeader& header)
    : trace(tr), g(graph), ev(tr.events), n(tr.events.size()) {
  // Lanes: every thread seen (events or named by the verdict), then its store buffer
  // right below it when it has commits.
  for (const Event& e : ev) lane_of[{e.thread, e.op == Op::commit}] = 0;
  for (const TxnNode& t : g.txns) lane_of[{t.thread, false}] = 0;
  // A started thread has a lane even before its first event (one blocked from the
  // start), and so has a thread that failed before any.
  for (const Event& e : ev)
    if (e.op == Op::fork) lane_of[{e.target, false}] = 0;
  if (header.failure_event != kNoEvent && header.failure_thread != kNoId) lane_of[{header.failure_thread, false}] = 0;
  for (auto& [key, idx] : lane_of) {
    idx = static_cast<int>(lanes.size());
    lanes.push_back(Lane{key.first, key.second});
  }
  width = kLeft + 60 + static_cast<int>(n) * kStep;
  height = kTop + static_cast<int>(lanes.size()) * kLaneH + 20;

  failure_marked = header.failure_event != kNoEvent && header.failure_event <= n &&
                   header.failure_thread != kNoId;
  failure_x = failure_marked ? ex(header.failure_event) - kStep / 2 : 0;

  endpoint.assign(n, false);
  for (const TxnEdge& e : g.edges)
    if (e.in_cycle) {
      if (e.from_event < n) endpoint[e.from_event] = true;
      if (e.to_event < n) endpoint[e.to_event] = true;
    }
}

// The path of an arrow from a to b; bent upward so arrows between events of one lane
// stay visible.
std::string arc(std::pair<int, int> a, std::pair<int, int> b) {
  int mx = (a.first + b.first) / 2;
  int my = std::min(a.second, b.second) - 28 - std::abs(b.first - a.first) / 12;
  if (a.second != b.second) my = (a.second + b.second) / 2;
  return fmt::format("M{},{} Q{},{} {},{}", a.first, a.second - 9, mx, my, b.first,
                     b.second + (b.second > a.second ? -9 : b.second < a.second ? 9 : -9));
}

// One background band and name per lane, `width` wide: drawn twice, in the picture and
// in the name column that stays in view while the picture scrolls.
std::string lane_rows(const Layout& L, int width) {
  std::string out;
  for (std::size_t l = 0; l < L.lanes.size(); ++l) {
    int top = kTop + static_cast<int>(l) * kLaneH;
    std::string name = L.trace.names.thread(L.lanes[l].thread);
    if (L.lanes[l].buffer) name += " buffer";
    out += fmt::format(
        "<rect class=\"lane-bg{}\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\"/>"
        "<text class=\"lane-name\" x=\"8\" y=\"{}\">{}</text>\n",
        L.lanes[l].buffer ? " buffer" : "", top, width, kLaneH, top + kLaneH / 2 + 4, html_escape(name));
  }
  return out;
}

// The lane names again, in a column that stays in view while the picture scrolls.
std::string names_column(const Layout& L) {
  std::string names_svg = fmt::format(
      "<svg class=\"names\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n", kLeft - 40,
      L.height);
  names_svg += lane_rows(L, kLeft - 40);
  names_svg += "</svg>\n";
  return names_svg;
}

// Transactions: a box around their events in the thread's lane.
std::string txn_boxes(const Layout& L) {
  std::string svg;
  for (const TxnNode& t : L.g.txns) {
    if (t.first == kNoEvent) continue;
    int x0 = L.ex(t.first) - 26, x1 = L.ex(t.last) + 26;
    int y = L.lane_y(t.thread, false) - kLaneH / 2 + 6;
    std::string cls = "txn";
    if (t.in_cycle) cls += " in-cycle";
    if (t.blamed) cls += " blamed";
    svg += fmt::format(
        "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"8\"><title>transaction {}{}</title></rect>\n",
        cls, x0, y, x1 - x0, kLaneH - 12, html_escape(txn_text(L.trace, t)), t.blamed ? " (blamed)" : "");
  }
  return svg;
}

// Conflict edges outside the witness, faint, drawn under the events.
std::string conflict_edges(const Layout& L) {
  std::string svg;
  for (const TxnEdge& e : L.g.edges) {
    if (e.in_cycle) continue;
    svg += fmt::format("<path class=\"conflict-edge\" d=\"{}\" marker-end=\"url(#arrow-grey)\"/>\n",
                       arc(L.point(e.from_event, e.from), L.point(e.to_event, e.to)));
  }
  return svg;
}

// Every event: a circle with its name, value and index, and a hover title saying all.
std::string event_marks(const Layout& L) {
  const Trace& trace = L.trace;
  std::string svg;
  for (std::size_t l = 0; l < L.n; ++l) {
    const Event& e = L.ev[l];
    std::string cls = "event";
    if (L.endpoint[l]) cls += " endpoint";
    if (L.g.interfering[l]) cls += " interfering";
    if (e.failed_cas) cls += " cas-fail";
    std::string text = event_text(trace, e);
    std::string value = value_text(e);
    std::string title = fmt::format("event {}: {} {}", l, trace.names.thread(e.thread), text);
    if (e.failed_cas)
      title += fmt::format(" (a failed compare-exchange: expected {}, saw {})", format_value(e.value2),
                           format_value(e.value));
    else if (e.op == Op::rmw)
      title += fmt::format(" {} -> {}", format_value(e.value), format_value(e.value2));
    else if (is_access(e.op))
      title += fmt::format(" = {}", format_value(e.value));
    if (e.loc) title += fmt::format(" (at {})", trace.names.loc(e.loc));
    int x = L.ex(l), y = L.ey(l);
    // The value on the page, under the event's name: hover titles are invisible on paper.
    svg += fmt::format(
        "<g class=\"{}\"><title>{}</title><circle cx=\"{}\" cy=\"{}\" r=\"7\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>"
        "<text class=\"val\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>"
        "<text class=\"idx\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>\n",
        cls, html_escape(title), x, y, x, y + 22, html_escape(text), x, y + 34, html_escape(value), x, y - 12, l);
  }
  return svg;
}

// The witness cycle on top, in red; numbered as in the witness list below the picture,
// not in graph order.
std::string cycle_edges(const Layout& L) {
  std::string svg;
  for (const TxnEdge& e : L.g.edges) {
    if (!e.in_cycle) continue;
    auto a = L.point(e.from_event, e.from), b = L.point(e.to_event, e.to);
    svg += fmt::format(
        "<path class=\"cycle-edge\" d=\"{}\" marker-end=\"url(#arrow-red)\"><title>{} must precede {}</title></path>\n",
        arc(a, b), html_escape(txn_text(L.trace, L.g.txns[e.from])), html_escape(txn_text(L.trace, L.g.txns[e.to])));
    svg += fmt::format("<text class=\"edge-label\" x=\"{}\" y=\"{}\">{}</text>\n",
                       (a.first + b.first) / 2, std::min(a.second, b.second) - 14, e.cycle_pos);
  }
  return svg;
}

// A cross where the failing thread stopped (empty when nothing failed).
std::string failure_mark(const Layout& L, const HtmlHeader& header) {
  if (!L.failure_marked) return "";
  const Trace& trace = L.trace;
  const int failure_x = L.failure_x;
  const int y = L.lane_y(header.failure_thread, false);
  return fmt::format(
      "<g class=\"failure\" id=\"failure\"><title>{} failed here: {}</title>"
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} failed</text></g>\n",
      html_escape(trace.names.thread(header.failure_thread)), html_escape(header.failure_message), failure_x - 7,
      y - 7, failure_x + 7, y + 7, failure_x - 7, y + 7, failure_x + 7, y - 7, failure_x, y - 24,
      html_escape(trace.names.thread(header.failure_thread)));
}

// The scrolling picture: lanes, transactions, edges, events and the failure, in the
// order they are painted (later on top).
std::string picture(const Layout& L, const HtmlHeader& header) {
  std::string svg;
  svg += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n",
      L.width, L.height, L.width, L.height);
  svg +=
      "<defs><marker id=\"arrow-red\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" "
      "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#c00\"/>"
      "</marker><marker id=\"arrow-grey\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" "
      "markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#999\"/>"
      "</marker></defs>\n";
  svg += lane_rows(L, L.width);
  svg += txn_boxes(L);
  svg += conflict_edges(L);
  svg += event_marks(L);
  svg += cycle_edges(L);
  svg += failure_mark(L, header);
  svg += "</svg>\n";
  return svg;
}

// The page above the picture: title, how the execution ended, the checker's verdict,
// the schedule and the command that reproduces it.
std::string page_top(const Verdict& verdict, const HtmlHeader& header, std::size_t n) {
  std::string verdict_text;
  bool bad = !verdict.serializable || !verdict.blamed.empty();
  if (!verdict.serializable) verdict_text = "not conflict serializable";
  if (!verdict.blamed.empty()) {
    if (!verdict_text.empty()) verdict_text += "; ";
    verdict_text += fmt::format("{} transaction(s) blamed", verdict.blamed.size());
  }
  if (!bad) verdict_text = "no violation found";

  std::string out = page_head(header.title, kStyle);
  out += fmt::format("<h1>{}</h1>\n", html_escape(header.title));
  if (!header.ending.empty())
    out += fmt::format("<p>Execution: <span class=\"verdict {}\">{}</span></p>\n",
                       header.ending_bad ? "bad" : "ok", html_escape(header.ending));
  if (!header.failed_at.empty()) out += fmt::format("<p>{}</p>\n", html_escape(header.failed_at));
  if (!header.pending.empty()) {
    out += fmt::format("<p>Still in a store buffer {} (issued, not committed):</p>\n<ul class=\"pending\">\n",
                       header.failed_at.empty() ? "at the end" : "when it failed");
    for (const std::string& p : header.pending) out += "<li>" + html_escape(p) + "</li>\n";
    out += "</ul>\n";
  }
  if (verdict.checker.empty())
    out += fmt::format("<p>No checker attached; {} events.</p>\n", n);
  else
    out += fmt::format("<p>Checker <b>{}</b>: <span class=\"verdict {}\">{}</span>; {} events.</p>\n",
                       html_escape(verdict.checker), bad ? "bad" : "ok", html_escape(verdict_text), n);
  if (!header.schedule.empty())
    out += fmt::format("<p>Schedule: <code class=\"schedule\">{}</code></p>\n", html_escape(header.schedule));
  if (!header.command.empty())
    out += fmt::format("<p>Reproduce with:</p><pre class=\"command\">{}</pre>\n", html_escape(header.command));
  out +=
      "<p class=\"legend\"><span><i class=\"sw\" style=\"background:#e9f0ff\"></i>transaction</span>"
      "<span><i class=\"sw\" style=\"background:#f9c7c7\"></i>blamed transaction</span>"
      "<span><i class=\"sw\" style=\"background:#c00\"></i>witness cycle edge (numbered)</span>"
      "<span><i class=\"sw\" style=\"background:#f80\"></i>interfering event</span>"
      "<span><i class=\"sw\" style=\"background:#999\"></i>other conflict (dashed)</span>"
      "<span><b style=\"color:#c00\">&#x2715;</b> where the failing thread stopped</span></p>\n";
  return out;
}

// Open on what went wrong: the failure, else the first event of the witness (one line
// of script; empty when that is already in view).
std::string scroll_script(const Layout& L) {
  int focus = L.failure_marked ? L.failure_x : -1;
  for (std::size_t l = 0; l < L.n && focus < 0; ++l)
    if (L.endpoint[l] || L.g.interfering[l]) focus = L.ex(l);
  if (focus > kLeft + 4 * kStep)
    return fmt::format("<script>document.getElementById('picture').scrollLeft = {};</script>\n",
                       focus - kLeft - 4 * kStep);
  return "";
}

// Below the picture: the witness cycle and the blamed transactions, in words.
std::string witness_lists(const Trace& trace, const Verdict& verdict) {
  const std::vector<Event>& ev = trace.events;
  const std::size_t n = ev.size();
  std::string out;
  auto ev_name = [&](EventIndex i) {
    if (i >= n) return std::string("?");
    return fmt::format("event {} ({} {})", i, trace.names.thread(ev[i].thread), event_text(trace, ev[i]));
  };
  if (!verdict.cycle.empty()) {
    out += "<h2>Witness cycle</h2>\n<ol class=\"cycle\">\n";
    for (const CycleEdge& c : verdict.cycle) {
      TxnNode a, b;
      a.thread = c.from.thread;
      a.first = c.from.first;
      b.thread = c.to.thread;
      b.first = c.to.first;
      std::string line = fmt::format("{} &rarr; {}", html_escape(txn_text(trace, a)), html_escape(txn_text(trace, b)));
      if (c.from_event < n && c.to_event < n)
        line += fmt::format(": {} before {}", html_escape(ev_name(c.from_event)), html_escape(ev_name(c.to_event)));
      out += "<li>" + line + "</li>\n";
    }
    out += "</ol>\n";
  }
  if (!verdict.blamed.empty()) {
    out += "<h2>Blamed transactions</h2>\n<ul class=\"blame\">\n";
    for (const Blame& b : verdict.blamed) {
      TxnNode t;
      t.thread = b.txn.thread;
      t.first = b.txn.first;
      out += fmt::format("<li>{}: {} interferes, reaching {}</li>\n", html_escape(txn_text(trace, t)),
                         html_escape(ev_name(b.interfering)), html_escape(ev_name(b.at)));
    }
    out += "</ul>\n";
  }
  return out;
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string page_head(std::string_view title, std::string_view style) {
  static constexpr std::string_view kShared = R"(
body { font-family: Helvetica, Arial, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; margin-bottom: 0.2em; }
pre, code { background: #f4f4f4; padding: 0.15em 0.4em; border-radius: 3px; }
pre { padding: 0.6em; overflow-x: auto; }
.verdict.bad { color: #b00; font-weight: bold; }
.verdict.ok { color: #070; font-weight: bold; })";
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>atomcheck: {}</title>\n"
      "<style>{}{}</style></head><body>\n",
      html_escape(title), kShared, style);
}

// The page: its top, the picture with its name column, the scroll, the witness in words.
std::string render_html(const Trace& trace, const Verdict& verdict, const HtmlHeader& header) {
  const TxnGraph g = build_graph(trace, verdict);
  const Layout L(trace, g, header);
  std::string out = page_top(verdict, header, L.n);
  out += "<div class=\"picture\">\n" + names_column(L) + "<div class=\"scroll\" id=\"picture\">\n" +
         picture(L, header) + "</div></div>\n";
  out += scroll_script(L);
  out += witness_lists(trace, verdict);
  if (!verdict.note.empty()) out += fmt::format("<p>Note: {}</p>\n", html_escape(verdict.note));
  out += "</body></html>\n";
  return out;
}

}  // namespace atomcheck::report
