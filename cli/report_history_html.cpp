// Renders a non-linearizable recorded history (see report_history_html.hpp).
#include "cli/report_history_html.hpp"

#include <algorithm>

#include <fmt/core.h>

#include "cli/report_html.hpp"

namespace atomcheck::report {

namespace {

constexpr int kLeft = 10;   // room before the first call
constexpr int kNames = 90;  // the fixed column of client names
constexpr int kLaneH = 34;
constexpr int kTop = 30;

const char* kHistoryStyle = R"(
.picture { display: flex; border: 1px solid #ddd; margin: 1em 0; }
.picture .names { flex: none; border-right: 1px solid #ddd; }
.scroll { overflow-x: auto; }
svg text { font-size: 10px; font-family: Menlo, Consolas, monospace; }
svg .lane-bg { fill: #fafafa; stroke: #e4e4e4; }
svg .lane-name { font-size: 12px; font-weight: bold; fill: #333; }
svg .op rect { fill: #e9f0ff; stroke: #7896c8; stroke-width: 1; }
svg .op.linearized rect { fill: #c9ecc9; stroke: #3a8a3a; }
svg .op.failing rect { fill: #f9c7c7; stroke: #c00; stroke-width: 2.5; }
svg .op.later rect { fill: #f2f2f2; stroke: #bbb; }
svg .op.open rect { stroke-dasharray: 4 3; }
svg .op text { fill: #1a3050; }
svg .op.later text { fill: #999; }
svg .cut line { stroke: #c00; stroke-width: 2; stroke-dasharray: 6 3; }
svg .cut text { fill: #c00; font-size: 11px; font-weight: bold; }
.legend span { display: inline-block; margin-right: 1.5em; }
.sw { display: inline-block; width: 1em; height: 0.8em; vertical-align: middle; border: 1px solid #777; margin-right: 0.3em; }
)";

}  // namespace

std::string render_history_html(const lin::RecordedHistory& r, const lin::BoundHistory& b, const HistoryPicture& p) {
  const std::uint64_t events = std::max<std::uint64_t>(r.events, 1);
  const double step = std::clamp(16000.0 / static_cast<double>(events), 3.0, 90.0);
  auto x = [&](std::uint64_t pos) { return kLeft + static_cast<double>(pos) * step; };
  const int width = static_cast<int>(x(events)) + 40;
  const int height = kTop + kLaneH * static_cast<int>(std::max<std::size_t>(r.clients.size(), 1)) + 20;
  std::vector<std::uint8_t> in_prefix(b.history.size(), 0), linearized(b.history.size(), 0);
  for (std::uint32_t i : p.prefix_ops) in_prefix[i] = 1;
  for (std::uint32_t i : p.longest)
    if (i < linearized.size()) linearized[i] = 1;
  std::uint64_t cut = 0;
  if (p.failing_op < b.history.size() && !b.history[p.failing_op].pending()) cut = b.history[p.failing_op].ret;

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n", width, height,
      width, height);
  std::string names = fmt::format(
      "<svg class=\"names\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">\n", kNames, height);
  for (std::size_t c = 0; c < r.clients.size(); ++c) {
    const int y = kTop + kLaneH * static_cast<int>(c);
    svg += fmt::format("<rect class=\"lane-bg\" x=\"0\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", y, width, kLaneH);
    names += fmt::format("<text class=\"lane-name\" x=\"8\" y=\"{}\">client {}</text>\n", y + kLaneH / 2 + 4,
                         html_escape(r.clients[c]));
  }
  names += "</svg>\n";
  for (std::uint32_t i = 0; i < b.history.size(); ++i) {
    const lin::Operation& op = b.history[i];
    const lin::RecordedOp& rop = r.ops[b.recorded[i]];
    const bool open = op.pending();
    const double x0 = x(op.call), x1 = open ? x(events) : x(op.ret);
    const int y = kTop + kLaneH * static_cast<int>(op.thread) + 6;
    std::string cls = "op";
    if (i == p.failing_op && cut) {
      cls += " failing";
    } else if (!in_prefix[i]) {
      cls += " later";
    } else if (linearized[i]) {
      cls += " linearized";
    }
    if (open) cls += " open";
    const std::string label = lin::describe_op(rop, *r.values);
    svg += fmt::format(
        "<g class=\"{}\"><title>{} (line {}{})</title><rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
        "rx=\"3\"/>",
        cls, html_escape(label), rop.call_line, rop.ret_line ? fmt::format("-{}", rop.ret_line) : "", x0, y,
        std::max(2.0, x1 - x0), kLaneH - 12);
    // A label only where it fits, about 6 px a character.
    const std::size_t fits = static_cast<std::size_t>(std::max(0.0, (x1 - x0 - 6) / 6.1));
    if (fits >= 4)
      svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\">{}</text>", x0 + 3, y + kLaneH / 2 - 2,
                         html_escape(label.size() <= fits ? label : label.substr(0, fits - 1) + "…"));
    svg += "</g>\n";
  }
  if (cut)
    svg += fmt::format(
        "<g class=\"cut\"><line x1=\"{0:.1f}\" y1=\"12\" x2=\"{0:.1f}\" y2=\"{1}\"/><text x=\"{2:.1f}\" y=\"20\">"
        "shortest failing prefix ends here (line {3})</text></g>\n",
        x(cut), height - 10, x(cut) + 4, p.failing_line);
  svg += "</svg>\n";

  std::string out = page_head(p.title, kHistoryStyle);
  out += fmt::format("<h1>{}</h1>\n", html_escape(p.title));
  out += fmt::format(
      "<p><span class=\"verdict bad\">not linearizable</span> as a {} ({} operations, {} clients, {} format). The "
      "shortest failing prefix has {} operations; it fails at the return on line {}: no order of the operations "
      "before it gives every one its result.</p>\n",
      html_escape(p.spec), b.history.size(), r.clients.size(), lin::history_format_name(r.format), p.prefix_ops.size(),
      p.failing_line);
  out +=
      "<p class=\"legend\"><span><i class=\"sw\" style=\"background:#c9ecc9\"></i>in the longest linearizable order "
      "found</span><span><i class=\"sw\" style=\"background:#e9f0ff\"></i>in the failing prefix</span>"
      "<span><i class=\"sw\" style=\"background:#f9c7c7\"></i>the return that cannot be placed</span>"
      "<span><i class=\"sw\" style=\"background:#f2f2f2\"></i>after the prefix</span>"
      "<span>dashed: no known result (pending or timed out)</span></p>\n";
  out += "<div class=\"picture\">\n" + names + "<div class=\"scroll\" id=\"pic\">\n" + svg + "</div></div>\n";
  if (cut)
    out += fmt::format(
        "<script>var p = document.getElementById('pic'); p.scrollLeft = Math.max(0, {:.0f} - p.clientWidth * 0.7);</script>\n",
        x(cut));
  out += "</body></html>\n";
  return out;
}

}  // namespace atomcheck::report
