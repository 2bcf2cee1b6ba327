// Progress display for explorations (see progress.hpp). The line is redrawn in place
// with \r and padded with spaces so a shorter line fully covers a longer one.
#include "cli/progress.hpp"

#include <unistd.h>

#include <fmt/core.h>

namespace atomcheck::cli {

ProgressDisplay::ProgressDisplay(std::FILE* out, bool force)
    : out_(out), active_(force || (out != nullptr && ::isatty(::fileno(out)) == 1)) {}

ProgressDisplay::~ProgressDisplay() { clear(); }

std::function<void(const ExploreProgress&)> ProgressDisplay::callback() {
  if (!active_) return {};
  return [this](const ExploreProgress& p) { draw(p); };
}

std::string ProgressDisplay::format(const ExploreProgress& p, const std::string& label) {
  double rate = p.elapsed_seconds > 0 ? static_cast<double>(p.executions) / p.elapsed_seconds : 0;
  std::string line = fmt::format("{}{} executions  {:.0f}/s  elapsed {:.1f} s  depth {}", label,
                                 p.executions, rate, p.elapsed_seconds, p.depth);
  if (p.estimate > 0) {
    double pct = 100.0 * static_cast<double>(p.executions) / p.estimate;
    line += fmt::format("  estimate {:.0f} ({:.0f}%)", p.estimate, pct < 100 ? pct : 100.0);
    if (rate > 0 && p.estimate > static_cast<double>(p.executions))
      line += fmt::format("  ~{:.0f} s left", (p.estimate - static_cast<double>(p.executions)) / rate);
  }
  return line;
}

void ProgressDisplay::draw(const ExploreProgress& p) {
  if (p.elapsed_seconds < kProgressDelaySeconds) return;
  std::string line = format(p, label_);
  if (line.size() < drawn_) line.append(drawn_ - line.size(), ' ');
  fmt::print(out_, "\r{}", line);
  std::fflush(out_);
  drawn_ = line.size();
}

void ProgressDisplay::clear() {
  if (drawn_ == 0) return;
  fmt::print(out_, "\r{}\r", std::string(drawn_, ' '));
  std::fflush(out_);
  drawn_ = 0;
}

}  // namespace atomcheck::cli
