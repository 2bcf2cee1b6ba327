// A self-contained HTML page (inline SVG and CSS, no script, no network) showing one
// counterexample: one swimlane per thread (and per store buffer when the execution has
// commits), transactions as boxes, the witness cycle as red arrows, blamed transactions
// highlighted, and the command that replays it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "../checkers/checker.hpp"
#include "../trace/trace.hpp"

namespace atomcheck::report {

// What the page says above the picture.
struct HtmlHeader {
  std::string title;     // e.g. the program or file name
  std::string schedule;  // the replay string; empty for trace files
  std::string command;   // a command line that reproduces the verdict
  // How the execution ended ("completed", "failed (assertion): ...", ...), shown before
  // any checker verdict; empty for trace files. `ending_bad`: it is a problem.
  std::string ending;
  bool ending_bad = false;
  // Where the failing thread stopped ("T2 failed after event 12; ..."); empty if none.
  std::string failed_at;
  std::vector<std::string> pending;  // TSO: stores still in a buffer at the failure or end
};

// Escapes text for HTML element content and attribute values.
std::string html_escape(std::string_view s);

std::string render_html(const Trace& trace, const Verdict& verdict, const HtmlHeader& header);

}  // namespace atomcheck::report
