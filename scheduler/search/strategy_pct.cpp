// PCT, probabilistic concurrency testing (Burckhardt, Kothari, Musuvathi, Nagarakatte,
// ASPLOS 2010). Each execution gives every process a random distinct initial priority
// above d - 1 and draws d - 1 change points uniformly from steps 1..k; at every step the
// enabled process of highest priority runs, and at change point i the process about to
// run drops to priority i (then the highest enabled one is chosen again), so a bug of
// depth d is hit with probability at least 1/(n k^(d-1)) per execution.
//
// Processes: every program thread, and under TSO every store buffer's flush process
// (it gets its own random priority and can be demoted like a thread, so a flush is
// delayed or hurried exactly as a thread is preempted; n counts these processes).
// n is never needed by the algorithm: priorities are drawn lazily as processes first
// appear (random keys give a uniformly random order). k, the number of steps, is learnt
// as the paper does in practice: the largest step count of the executions run so far
// (the first execution has no change points, it only learns k). Steps are all
// scheduling steps (flushes included), choice points or not.
#include <algorithm>

#include "scheduler/search/strategy.hpp"
#include "scheduler/search/splitmix.hpp"

namespace atomcheck {

namespace {

class PctStrategy final : public Strategy {
 public:
  PctStrategy(std::uint64_t seed, unsigned depth, std::uint64_t executions)
      : state_(seed), depth_(depth == 0 ? 1 : depth), executions_(executions) {}

  bool begin_execution() override {
    if (done_++ >= executions_) return false;
    priority_.clear();
    change_.clear();
    if (k_ > 0)
      for (unsigned i = 1; i < depth_; ++i)
        change_.push_back(Change{1 + next() % k_, static_cast<std::uint64_t>(i)});
    std::sort(change_.begin(), change_.end(),
              [](const Change& a, const Change& b) { return a.step < b.step; });
    next_change_ = 0;
    return true;
  }

  std::size_t choose(std::span<const Transition> enabled, const History& history) override {
    // A memory model's choice is no process's: priorities say nothing, so it is uniform.
    if (enabled.front().choice) return next() % enabled.size();
    const std::uint64_t step = history.steps() + 1;  // 1-based number of this step
    // Change points that fell on steps with one enabled process demote the process
    // that took the step.
    while (next_change_ < change_.size() && change_[next_change_].step < step) {
      const Change& c = change_[next_change_++];
      priority_of(process(history.chosen[c.step - 1])) = c.priority;
    }
    std::size_t best = highest(enabled);
    while (next_change_ < change_.size() && change_[next_change_].step == step) {
      priority_of(process(enabled[best])) = change_[next_change_++].priority;
      best = highest(enabled);
    }
    return best;
  }

  void end_execution(const History& history) override {
    k_ = std::max<std::uint64_t>(k_, history.steps());
  }

  // Priorities and change points are drawn afresh by begin_execution: between executions
  // the generator, the samples run and the learnt k are all there is.
  bool save(std::vector<std::uint64_t>& out) const override {
    out.insert(out.end(), {state_, done_, k_});
    return true;
  }
  bool load(std::span<const std::uint64_t> in) override {
    if (in.size() != 3) return false;
    state_ = in[0];
    done_ = in[1];
    k_ = in[2];
    return true;
  }

 private:
  struct Change {
    std::uint64_t step;
    std::uint64_t priority;
  };
  static std::size_t process(const Transition& t) {
    return 2 * static_cast<std::size_t>(t.thread) + (t.action == Action::flush ? 1 : 0);
  }
  std::uint64_t& priority_of(std::size_t p) {
    if (p >= priority_.size()) priority_.resize(p + 1, 0);
    // Initial priorities sit above every change-point priority (1..d-1).
    if (priority_[p] == 0) priority_[p] = (std::uint64_t{1} << 63) | (next() >> 1);
    return priority_[p];
  }
  std::size_t highest(std::span<const Transition> enabled) {
    std::size_t best = 0;
    std::uint64_t best_priority = 0;
    for (std::size_t i = 0; i < enabled.size(); ++i) {
      std::uint64_t pr = priority_of(process(enabled[i]));
      if (pr > best_priority) {
        best_priority = pr;
        best = i;
      }
    }
    return best;
  }
  std::uint64_t next() { return detail::splitmix64_next(state_); }

  std::uint64_t state_;
  unsigned depth_;
  std::uint64_t executions_;
  std::uint64_t done_ = 0;
  std::uint64_t k_ = 0;
  std::vector<std::uint64_t> priority_;  // per process; 0: not drawn yet this execution
  std::vector<Change> change_;
  std::size_t next_change_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_pct_strategy(std::uint64_t seed, unsigned depth,
                                            std::uint64_t executions) {
  return std::make_unique<PctStrategy>(seed, depth, executions);
}

}  // namespace atomcheck
