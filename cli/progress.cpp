// Progress display for explorations (see progress.hpp). The line is redrawn in place
// with \r and padded with spaces so a shorter line fully covers a longer one.
#include "cli/progress.hpp"

#include <unistd.h>

#include <fmt/core.h>

namespace atomcheck::cli {

namespace {
ProgressMode resolve(std::FILE* out, ProgressMode mode) {
  if (out == nullptr) return ProgressMode::off;
  if (mode != ProgressMode::automatic) return mode;
  return ::isatty(::fileno(out)) == 1 ? ProgressMode::terminal : ProgressMode::lines;
}
}  // namespace

ProgressDisplay::ProgressDisplay(std::FILE* out, ProgressMode mode)
    : out_(out), mode_(resolve(out, mode)), next_line_at_(kProgressLineSeconds) {}

ProgressDisplay::~ProgressDisplay() { clear(); }

std::function<void(const ExploreProgress&)> ProgressDisplay::callback() {
  if (!active()) return {};
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
  if (mode_ == ProgressMode::lines) {
    if (p.elapsed_seconds < next_line_at_) return;
    while (next_line_at_ <= p.elapsed_seconds) next_line_at_ += kProgressLineSeconds;
    fmt::print(out_, "{}\n", format(p, label_));
    std::fflush(out_);
    return;
  }
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
