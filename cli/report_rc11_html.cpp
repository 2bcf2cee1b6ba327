// Renders the RC11 execution graph as an HTML page: one column per thread (the initial
// values first), one row per event in trace order, edges coloured by relation.
#include "cli/report_rc11_html.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "cli/report_graph.hpp"
#include "cli/report_rc11_graph.hpp"

namespace atomcheck::report {

namespace {

constexpr int kLeft = 20;
constexpr int kTop = 44;    // room for the column names
constexpr int kColW = 250;  // a column: a node and room for arrows beside it
constexpr int kRowH = 56;
constexpr int kNodeW = 180;
constexpr int kNodeH = 36;

const char* kStyle = R"(
.picture { border: 1px solid #ddd; margin: 1em 0; overflow-x: auto; }
label.rel { margin-right: 1.2em; font-weight: bold; }
label.rel.po { color: #777; } label.rel.rf { color: #2a8a2a; } label.rel.mo { color: #c07000; }
label.rel.sw { color: #1f5fbf; } label.rel.hb { color: #8a3ab9; }
#show-po:not(:checked) ~ .picture .po, #show-rf:not(:checked) ~ .picture .rf,
#show-mo:not(:checked) ~ .picture .mo, #show-sw:not(:checked) ~ .picture .sw,
#show-hb:not(:checked) ~ .picture .hb { display: none; }
svg text { font-size: 11px; font-family: Menlo, Consolas, monospace; }
svg .column-name { font-size: 12px; font-weight: bold; fill: #333; font-family: Helvetica, Arial, sans-serif; }
svg .column-bg { fill: #fafafa; stroke: #e4e4e4; }
svg .node rect { fill: #fff; stroke: #555; stroke-width: 1.2; }
svg .node.init rect { stroke-dasharray: 4 3; fill: #f6f6f6; }
svg .node.cas-fail rect { stroke: #b00; }
svg .node.racing rect { stroke: #c00; stroke-width: 2.5; fill: #fde8e8; }
svg .node .order { fill: #1a4f8a; font-size: 10px; }
svg .edge { fill: none; stroke-width: 1.4; }
svg .edge.po { stroke: #999; }
svg .edge.rf { stroke: #2a8a2a; }
svg .edge.mo { stroke: #c07000; stroke-dasharray: 5 3; }
svg .edge.sw { stroke: #1f5fbf; stroke-width: 2.4; }
svg .edge.hb { stroke: #8a3ab9; stroke-dasharray: 2 3; }
svg .edge-label { font-size: 10px; font-family: Helvetica, Arial, sans-serif; }
svg .edge-label.rf { fill: #2a8a2a; } svg .edge-label.mo { fill: #c07000; }
svg .edge-label.sw { fill: #1f5fbf; } svg .edge-label.hb { fill: #8a3ab9; }
svg .failure rect { fill: #fde8e8; stroke: #c00; stroke-width: 2; }
svg .failure text { fill: #c00; font-weight: bold; }
)";

const char* kColours[] = {"#999", "#2a8a2a", "#c07000", "#1f5fbf", "#8a3ab9"};  // by Rc11Rel

// Where each node sits: its column (the initial values' column is 0 when there is one)
// and its row (the initial values, then events in trace order with the failure in its
// place among them).
struct Layout {
  std::vector<int> col, row;
  std::map<ThreadId, int> col_of_thread;
  bool has_init = false;
  int failure_row = -1;
  int ncols = 0, nrows = 0;

  static int cx(int c) { return kLeft + c * kColW + kColW / 2; }
  static int cy(int r) { return kTop + r * kRowH + kRowH / 2; }
};

Layout lay_out(const Rc11Graph& g, const HtmlHeader& header) {
  Layout L;
  const bool failure = header.failure_event != kNoEvent && header.failure_thread != kNoId;
  for (const Rc11Node& n : g.nodes)
    if (n.thread == kNoId) L.has_init = true;
    else L.col_of_thread[n.thread] = 0;
  if (failure) L.col_of_thread[header.failure_thread] = 0;
  int c = L.has_init ? 1 : 0;
  for (auto& [t, col] : L.col_of_thread) col = c++;
  L.ncols = c;
  // The initial values one above the other at the top, then the events.
  int r = 0;
  for (const Rc11Node& n : g.nodes) {
    if (failure && L.failure_row < 0 && n.event != kNoEvent && n.event >= header.failure_event) L.failure_row = r++;
    L.col.push_back(n.thread == kNoId ? 0 : L.col_of_thread[n.thread]);
    L.row.push_back(r++);
  }
  if (failure && L.failure_row < 0) L.failure_row = r++;
  L.nrows = r;
  return L;
}

// An edge's path: straight down a column for po, a bow out to the right between two
// nodes of one column, else a curve from the side of one node to the facing side of the
// other. Returns the path and where its label goes.
std::pair<std::string, std::pair<int, int>> edge_path(const Layout& L, std::uint32_t a, std::uint32_t b, Rc11Rel rel) {
  const int ax = Layout::cx(L.col[a]), ay = Layout::cy(L.row[a]);
  const int bx = Layout::cx(L.col[b]), by = Layout::cy(L.row[b]);
  if (rel == Rc11Rel::po) return {fmt::format("M{},{} L{},{}", ax, ay + kNodeH / 2, bx, by - kNodeH / 2), {ax, ay}};
  if (L.col[a] == L.col[b]) {
    const int x = ax + kNodeW / 2, bow = 24 + std::abs(by - ay) / 8;
    return {fmt::format("M{},{} C{},{} {},{} {},{}", x, ay, x + bow, ay, x + bow, by, x + 2, by),
            {x + bow - 4, (ay + by) / 2}};
  }
  const int dir = bx > ax ? 1 : -1;
  const int x0 = ax + dir * kNodeW / 2, x1 = bx - dir * (kNodeW / 2 + 2);
  const int mx = (x0 + x1) / 2;
  return {fmt::format("M{},{} C{},{} {},{} {},{}", x0, ay, mx, ay, mx, by, x1, by), {mx, (ay + by) / 2 - 3}};
}

std::string node_title(const Trace& trace, const Rc11Graph& g, const Rc11Node& n) {
  if (n.event == kNoEvent) return fmt::format("the initial value of {}", trace.names.var(n.var));
  const Event& e = trace.events[n.event];
  std::string s = fmt::format("event {}: {} {}", n.event, trace.names.thread(e.thread), rc11_node_text(trace, g, n));
  s += rc11_note(e);
  if (e.loc) s += fmt::format(" at {}", trace.names.loc(e.loc));
  return s;
}

std::string picture(const Trace& trace, const Rc11Graph& g, const Layout& L, const HtmlHeader& header) {
  const int width = kLeft * 2 + L.ncols * kColW, height = kTop + L.nrows * kRowH + 20;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n<defs>", width,
      height, width, height);
  for (int rel = 0; rel < 5; ++rel)
    svg += fmt::format(
        "<marker id=\"arrow-{}\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
        "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"{}\"/></marker>",
        rc11_rel_name(static_cast<Rc11Rel>(rel)), kColours[rel]);
  svg += "</defs>\n";
  // Column backgrounds and names.
  auto column = [&](int c, const std::string& name) {
    svg += fmt::format(
        "<rect class=\"column-bg\" x=\"{}\" y=\"4\" width=\"{}\" height=\"{}\"/>"
        "<text class=\"column-name\" x=\"{}\" y=\"26\" text-anchor=\"middle\">{}</text>\n",
        kLeft + c * kColW + 6, kColW - 12, height - 8, Layout::cx(c), html_escape(name));
  };
  if (L.has_init) column(0, "initial values");
  for (const auto& [t, c] : L.col_of_thread) column(c, trace.names.thread(t));
  // Edges under the nodes.
  for (const Rc11Edge& e : g.edges) {
    const std::string rel(rc11_rel_name(e.rel));
    const auto [d, at] = edge_path(L, e.from, e.to, e.rel);
    svg += fmt::format(
        "<g class=\"{}\"><path class=\"edge {}\" d=\"{}\" marker-end=\"url(#arrow-{})\">"
        "<title>{}: {} &#8594; {}</title></path>",
        rel, rel, d, rel, rel, html_escape(rc11_node_text(trace, g, g.nodes[e.from])),
        html_escape(rc11_node_text(trace, g, g.nodes[e.to])));
    if (e.rel != Rc11Rel::po)
      svg += fmt::format("<text class=\"edge-label {}\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", rel,
                         at.first, at.second, rel);
    svg += "</g>\n";
  }
  for (std::uint32_t k = 0; k < g.nodes.size(); ++k) {
    const Rc11Node& n = g.nodes[k];
    std::string cls = "node";
    if (n.event == kNoEvent) cls += " init";
    else if (trace.events[n.event].failed_cas) cls += " cas-fail";
    if (n.event != kNoEvent && (n.event == header.race_first || n.event == header.race_second)) cls += " racing";
    const int x = Layout::cx(L.col[k]), y = Layout::cy(L.row[k]);
    const std::string id = n.event == kNoEvent ? fmt::format("init{}", n.var) : fmt::format("e{}", n.event);
    svg += fmt::format(
        "<g class=\"{}\" id=\"{}\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"5\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>"
        "<text class=\"order\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text></g>\n",
        cls, id, html_escape(node_title(trace, g, n)), x - kNodeW / 2, y - kNodeH / 2, kNodeW, kNodeH, x, y - 3,
        html_escape(rc11_node_text(trace, g, n)), x, y + 12, html_escape(rc11_node_order(trace, n)));
  }
  if (L.failure_row >= 0) {
    const int x = Layout::cx(L.col_of_thread.at(header.failure_thread)), y = Layout::cy(L.failure_row);
    svg += fmt::format(
        "<g class=\"failure\" id=\"failure\"><title>{} failed here: {}</title>"
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"12\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} failed</text></g>\n",
        html_escape(trace.names.thread(header.failure_thread)), html_escape(header.failure_message), x - kNodeW / 2,
        y - kNodeH / 2, kNodeW, kNodeH, x, y + 4, html_escape(trace.names.thread(header.failure_thread)));
  }
  svg += "</svg>\n";
  return svg;
}

std::string page_top(const HtmlHeader& header, std::size_t events) {
  std::string out = page_head(header.title, kStyle);
  out += fmt::format("<h1>{}: RC11 execution graph</h1>\n", html_escape(header.title));
  if (!header.ending.empty())
    out += fmt::format("<p>Execution: <span class=\"verdict {}\">{}</span></p>\n", header.ending_bad ? "bad" : "ok",
                       html_escape(header.ending));
  if (!header.failed_at.empty()) out += fmt::format("<p>{}</p>\n", html_escape(header.failed_at));
  if (header.race_first < events && header.race_second < events)
    out += fmt::format(
        "<p class=\"race\">The racing accesses, #{} and #{}, are outlined in red: no hb path joins them.</p>\n",
        header.race_first, header.race_second);
  out += fmt::format("<p>{} events.</p>\n", events);
  if (!header.schedule.empty())
    out += fmt::format("<p>Schedule: <code class=\"schedule\">{}</code></p>\n", html_escape(header.schedule));
  if (!header.command.empty())
    out += fmt::format("<p>Reproduce with:</p><pre class=\"command\">{}</pre>\n", html_escape(header.command));
  return out;
}

// The relations' checkboxes, siblings of the picture so that CSS alone hides an unchecked one.
std::string toggles() {
  static const char* kWhat[] = {"po: program order", "rf: the write a read reads", "mo: modification order",
                                "sw: synchronises-with", "hb: happens-before not shown by po and sw"};
  std::string out;
  for (int rel = 0; rel < 5; ++rel) {
    const std::string_view name = rc11_rel_name(static_cast<Rc11Rel>(rel));
    out += fmt::format(
        "<input type=\"checkbox\" id=\"show-{}\" checked><label class=\"rel {}\" for=\"show-{}\">{}</label>\n", name,
        name, name, kWhat[rel]);
  }
  return out;
}

// Below the picture: each variable's modification order in words.
std::string mo_lists(const Trace& trace, const Rc11Graph& g) {
  std::string out = "<h2>Modification order</h2>\n<ul class=\"mo\">\n";
  for (VarId v = 0; v < g.mo.size(); ++v) {
    if (g.mo[v].empty()) continue;
    std::string line;
    for (EventIndex w : g.mo[v]) {
      if (!line.empty()) line += " &#8594; ";
      if (w == kNoEvent) {
        line += "initial";
        continue;
      }
      const Event& e = trace.events[w];
      line += fmt::format("#{} ({} writes {})", w, html_escape(trace.names.thread(e.thread)),
                          html_escape(format_value(e.op == Op::rmw ? e.value2 : e.value)));
    }
    out += fmt::format("<li>{}: {}</li>\n", html_escape(trace.names.var(v)), line);
  }
  for (VarId v : g.mo_unknown)
    out += fmt::format("<li>{}: not recorded in the trace</li>\n", html_escape(trace.names.var(v)));
  return out + "</ul>\n";
}

}  // namespace

std::string render_rc11_html(const Trace& trace, const HtmlHeader& header) {
  const Rc11Graph g = build_rc11_graph(trace);
  const Layout L = lay_out(g, header);
  std::string out = page_top(header, trace.events.size());
  out += "<div class=\"graph\">\n" + toggles() + "<div class=\"picture\">\n" + picture(trace, g, L, header) +
         "</div></div>\n";
  out += mo_lists(trace, g);
  out +=
      "<p>sw is RC11's synchronises-with between threads (a release write or fence, through the release sequence, "
      "to an acquire read or fence), and a mutex's unlock to its next lock. hb edges are those of happens-before's "
      "transitive reduction that are neither po nor sw: thread start and join.</p>\n";
  out += "</body></html>\n";
  return out;
}

}  // namespace atomcheck::report
