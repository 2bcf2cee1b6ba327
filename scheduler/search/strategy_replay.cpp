// Replay: one execution, following a printed schedule choice by choice. A choice that
// names a transition that is not enabled, a schedule that runs out, or choices left
// over at the end mean the schedule does not fit the program: error() says where.
#include <fmt/core.h>

#include "scheduler/search/strategy.hpp"

namespace atomcheck {

namespace {

std::string describe(const ScheduleChoice& c) {
  if (c.option) return fmt::format("option {}", c.thread);
  return fmt::format("{}T{}", c.flush ? "flush of " : "", c.thread);
}
ScheduleChoice as_choice(const Transition& t) {
  if (t.choice) return ScheduleChoice{t.seq, false, true};
  return ScheduleChoice{t.thread, t.action == Action::flush, false};
}

class ReplayStrategy final : public Strategy {
 public:
  explicit ReplayStrategy(std::string_view schedule) {
    std::string err;
    if (!parse_schedule(schedule, choices_, err)) error_ = "bad schedule: " + err;
  }

  bool begin_execution() override {
    if (started_ || !error_.empty()) return false;
    started_ = true;
    return true;
  }

  std::size_t choose(std::span<const Transition> enabled, const History&) override {
    if (next_ >= choices_.size()) {
      error_ = fmt::format(
          "schedule does not fit the program: it has {} choices but the execution needs more",
          choices_.size());
      return 0;
    }
    const ScheduleChoice& c = choices_[next_];
    for (std::size_t i = 0; i < enabled.size(); ++i) {
      const ScheduleChoice e = as_choice(enabled[i]);
      if (e.thread == c.thread && e.flush == c.flush && e.option == c.option) {
        ++next_;
        return i;
      }
    }
    std::string options;
    for (const Transition& t : enabled) options += (options.empty() ? "" : ", ") + describe(as_choice(t));
    error_ = fmt::format(
        "schedule does not fit the program: choice {} is {}, which is not enabled (enabled: {})",
        next_ + 1, describe(c), options);
    return 0;
  }

  void end_execution(const History&) override {
    if (error_.empty() && next_ < choices_.size())
      error_ = fmt::format(
          "schedule does not fit the program: the execution ended after {} of its {} choices",
          next_, choices_.size());
  }

  std::string error() const override { return error_; }
  bool consumed_all() const override { return next_ == choices_.size(); }

 private:
  std::vector<ScheduleChoice> choices_;
  std::size_t next_ = 0;
  bool started_ = false;
  std::string error_;
};

}  // namespace

std::unique_ptr<Strategy> make_replay_strategy(std::string_view schedule) {
  return std::make_unique<ReplayStrategy>(schedule);
}

}  // namespace atomcheck
