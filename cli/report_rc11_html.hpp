// The RC11 execution graph (report_rc11_graph.hpp) as a self-contained HTML page: inline
// SVG and CSS, no script. Threads are columns and events rows in trace order, so po runs
// down and every rf, sw and hb arrow points down; mo arrows may point up. A checkbox per
// relation hides or shows it. Written by `run --memory rc11 --html`.
#pragma once

#include <string>

#include "report_html.hpp"
#include "../trace/trace.hpp"

namespace atomcheck::report {

std::string render_rc11_html(const Trace& trace, const HtmlHeader& header);

}  // namespace atomcheck::report
