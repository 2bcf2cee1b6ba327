// The progress line of long explorations: on a terminal, one self-overwriting stderr
// line (executions, executions/s, elapsed, depth, estimate) once a search has run for a
// second; nothing at all when stderr is not a terminal, so piped output stays clean.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "../scheduler/explore.hpp"

namespace atomcheck::cli {

// One display per command. Hand callback() to ExploreOptions::progress; the destructor
// (or clear()) wipes the line so the summary that follows starts on a clean line.
class ProgressDisplay {
 public:
  // Draws only when `out` is a terminal (isatty), unless `force` (tests).
  explicit ProgressDisplay(std::FILE* out = stderr, bool force = false);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  bool active() const { return active_; }
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
  bool active_;
  std::size_t drawn_ = 0;  // width of the line on screen; 0: nothing drawn
  std::string label_;
};

// Seconds before the first progress line: shorter searches never show one.
inline constexpr double kProgressDelaySeconds = 1.0;

}  // namespace atomcheck::cli
