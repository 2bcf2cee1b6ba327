// A self-contained HTML page (inline SVG and CSS, no network) showing one counterexample:
// one swimlane per thread (and per store buffer when the execution has commits), every
// event with the value it read or wrote, transactions as boxes, the witness cycle as red
// arrows, blamed transactions highlighted, the failure marked, and the command that
// replays it. One line of script scrolls the picture to the failure or the witness, so
// the page does not open on the setup; without script it opens at the start.
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
  // The failure to mark in the picture: the failing thread stopped before this event
  // (Failure::event); kNoEvent when the execution did not fail.
  EventIndex failure_event = kNoEvent;
  ThreadId failure_thread = kNoId;
  std::string failure_message;
  // A data race's two accesses (Failure::race_first, race_second; kNoEvent when one is an
  // initialisation or a free): the RC11 execution graph marks them.
  EventIndex race_first = kNoEvent, race_second = kNoEvent;
};

// Escapes text for HTML element content and attribute values.
std::string html_escape(std::string_view s);

// The start of a self-contained page, up to <body>: its title and the style every report
// page shares (text, headings, code, verdicts) followed by the page's own `style`.
std::string page_head(std::string_view title, std::string_view style);

std::string render_html(const Trace& trace, const Verdict& verdict, const HtmlHeader& header);

}  // namespace atomcheck::report
