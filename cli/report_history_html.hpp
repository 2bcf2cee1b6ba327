// A recorded history that is not linearizable as a self-contained HTML page (inline SVG
// and CSS, as report_html.hpp's pages): one lane per client, each operation a bar from
// its call to its return, the longest linearizable order the search found in green, the
// return at which the shortest failing prefix fails in red, and a line at that cut.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../checkers/lin_history_io.hpp"

namespace atomcheck::report {

// What the picture marks (indices into BoundHistory::history).
struct HistoryPicture {
  std::string title;  // the file
  std::string spec;
  std::vector<std::uint32_t> prefix_ops;  // the shortest failing prefix
  std::uint32_t failing_op = 0;           // its last return: the operation that cannot be placed
  std::uint32_t failing_line = 0;
  std::vector<std::uint32_t> longest;  // Answer::longest: the longest order found
};

std::string render_history_html(const lin::RecordedHistory& r, const lin::BoundHistory& b, const HistoryPicture& p);

}  // namespace atomcheck::report
