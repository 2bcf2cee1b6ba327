// The progress of long explorations on stderr (executions, executions/s, elapsed, depth,
// estimate): on a terminal one self-overwriting line once a search has run for a second;
// piped (ctest, CI, `| tee`), a plain line every kProgressLineSeconds, so a long search
// is never silent until its budget ends; nothing with --quiet.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "../scheduler/explore/explore.hpp"

namespace atomcheck::cli {

// One display per command. Hand callback() to ExploreOptions::progress; the destructor
// (or clear()) wipes the line so the summary that follows starts on a clean line.
enum class ProgressMode {
  automatic,  // terminal when `out` is one (isatty), else lines
  terminal,   // one line redrawn in place with \r
  lines,      // a new line every kProgressLineSeconds
  off,
};

class ProgressDisplay {
 public:
  explicit ProgressDisplay(std::FILE* out = stderr, ProgressMode mode = ProgressMode::automatic);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  bool active() const { return mode_ != ProgressMode::off; }
  // Empty when inactive, so the explorer does not even poll the clock for it.
  std::function<void(const ExploreProgress&)> callback();
  // A text prefix for the line ("sc: ") when one command runs several searches.
  void set_label(std::string label) { label_ = std::move(label); }
  void clear();

  // The line drawn for `p` (without \r), exposed for tests.
  static std::string format(const ExploreProgress& p, const std::string& label = "");

 private:
  void draw(const ExploreProgress& p);
  std::FILE* out_;
  ProgressMode mode_;
  double next_line_at_ = 0;  // lines mode: elapsed seconds of the next line
  std::size_t drawn_ = 0;  // width of the line on screen; 0: nothing drawn
  std::string label_;
};

// Seconds before the first progress line: shorter searches never show one.
inline constexpr double kProgressDelaySeconds = 1.0;
// Seconds between the plain lines written when stderr is not a terminal.
inline constexpr double kProgressLineSeconds = 10.0;

}  // namespace atomcheck::cli
