// Exhaustive depth-first search, stateless: the choice stack holds, for every choice
// point of the current execution, how many transitions were enabled and which one was
// taken. The next execution replays the prefix up to the deepest choice point with an
// untried alternative and takes that alternative. Under a preemption bound a node also
// lists the alternatives the bound allows (flat, shared by all nodes), so backtracking
// never visits an execution with too many preemptions.
#include <limits>

#include <fmt/core.h>

#include "scheduler/search/strategy.hpp"

namespace atomcheck {

bool is_preemption(const Transition& candidate, std::span<const Transition> enabled,
                   const History& history) {
  if (candidate.action == Action::flush) return false;
  for (std::size_t i = history.chosen.size(); i-- > 0;) {
    const Transition& last = history.chosen[i];
    if (last.action == Action::flush) continue;
    if (last.thread == candidate.thread) return false;
    for (const Transition& e : enabled)
      if (e.thread == last.thread && e.action != Action::flush) return true;
    return false;
  }
  return false;
}

namespace {

class DfsStrategy final : public Strategy {
 public:
  explicit DfsStrategy(int bound) : bound_(bound) { stack_.reserve(1024); }
  bool begin_execution() override {
    depth_ = 0;
    preemptions_ = 0;
    if (!started_) {
      started_ = true;
      return true;
    }
    while (!stack_.empty() && stack_.back().pick + 1 >= stack_.back().count) {
      alts_.resize(stack_.back().begin);
      stack_.pop_back();
    }
    if (stack_.empty()) return false;
    ++stack_.back().pick;
    return true;
  }

  std::size_t choose(std::span<const Transition> enabled, const History& history) override {
    if (depth_ < stack_.size()) {
      Node& n = stack_[depth_++];
      if (n.enabled != enabled.size()) {
        error_ = fmt::format(
            "the program is not deterministic: choice point {} had {} enabled transitions "
            "before and {} now (does some state outlive an execution?)",
            depth_, n.enabled, enabled.size());
        return 0;
      }
      return take(n, enabled, history);
    }
    Node n{static_cast<std::uint32_t>(enabled.size()), 0, 0, 0};
    if (bound_ < 0) {
      n.count = n.enabled;
    } else {
      n.begin = static_cast<std::uint32_t>(alts_.size());
      for (std::size_t i = 0; i < enabled.size(); ++i) {
        if (preemptions_ >= bound_ && is_preemption(enabled[i], enabled, history)) {
          bounded_ = true;
          continue;
        }
        alts_.push_back(static_cast<std::uint32_t>(i));
      }
      n.count = static_cast<std::uint32_t>(alts_.size()) - n.begin;
    }
    stack_.push_back(n);
    ++depth_;
    return take(stack_.back(), enabled, history);
  }

  void end_execution(const History&) override {
    // Only an error can leave the prefix unconsumed; never backtrack into stale nodes.
    if (depth_ < stack_.size() && error_.empty()) {
      error_ = fmt::format("the program is not deterministic: an execution ended after choice point {} "
                           "where the previous one went on to choice point {}",
                           depth_, stack_.size());
    }
  }

  std::string error() const override { return error_; }
  bool bounded() const override { return bounded_; }

  // Layout: started, bounded, stack size, then per node (enabled, begin, count, pick),
  // then the bound's alternatives. depth_ and preemptions_ are per execution.
  bool save(std::vector<std::uint64_t>& out) const override {
    out.insert(out.end(), {started_ ? 1u : 0u, bounded_ ? 1u : 0u, stack_.size()});
    for (const Node& n : stack_) out.insert(out.end(), {n.enabled, n.begin, n.count, n.pick});
    out.insert(out.end(), alts_.begin(), alts_.end());
    return true;
  }
  // Checks every index the search will follow (pick < count, alternatives within the
  // enabled set, nodes' alternatives tiling alts_ in order), so a damaged state is
  // refused here instead of steering choose() out of bounds.
  bool load(std::span<const std::uint64_t> in) override {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint32_t>::max();
    if (in.size() < 3 || in[0] > 1 || in[1] > 1) return false;
    const std::uint64_t nodes = in[2];
    if (nodes > (in.size() - 3) / 4) return false;
    const std::size_t alts_at = 3 + 4 * static_cast<std::size_t>(nodes);
    const std::size_t alts = in.size() - alts_at;
    if (in[0] == 0 && (nodes != 0 || alts != 0)) return false;
    if (bound_ < 0 && alts != 0) return false;
    std::vector<Node> stack;
    stack.reserve(nodes);
    std::uint64_t next_begin = 0;
    for (std::size_t i = 0; i < nodes; ++i) {
      const std::uint64_t* w = &in[3 + 4 * i];
      if (w[0] < 1 || w[0] > kMax || w[3] >= w[2] || w[2] > w[0]) return false;
      if (bound_ < 0) {
        if (w[1] != 0 || w[2] != w[0]) return false;
      } else {
        if (w[1] != next_begin || w[1] + w[2] > alts) return false;
        for (std::uint64_t k = w[1]; k < w[1] + w[2]; ++k)
          if (in[alts_at + k] >= w[0]) return false;
        next_begin = w[1] + w[2];
      }
      stack.push_back(Node{static_cast<std::uint32_t>(w[0]), static_cast<std::uint32_t>(w[1]),
                           static_cast<std::uint32_t>(w[2]), static_cast<std::uint32_t>(w[3])});
    }
    if (bound_ >= 0 && next_begin != alts) return false;
    started_ = in[0] != 0;
    bounded_ = in[1] != 0;
    stack_ = std::move(stack);
    alts_.assign(in.begin() + static_cast<std::ptrdiff_t>(alts_at), in.end());
    return true;
  }

 private:
  struct Node {
    std::uint32_t enabled;
    std::uint32_t begin;  // bounded: first allowed alternative in alts_
    std::uint32_t count;  // alternatives to try (all enabled ones when unbounded)
    std::uint32_t pick;   // index among them
  };
  std::size_t take(const Node& n, std::span<const Transition> enabled, const History& history) {
    if (bound_ < 0) return n.pick;
    std::size_t i = alts_[n.begin + n.pick];
    if (is_preemption(enabled[i], enabled, history)) ++preemptions_;
    return i;
  }
  int bound_;
  int preemptions_ = 0;
  bool bounded_ = false;
  std::vector<Node> stack_;
  std::vector<std::uint32_t> alts_;
  std::size_t depth_ = 0;
  bool started_ = false;
  std::string error_;
};

}  // namespace

std::unique_ptr<Strategy> make_dfs_strategy() { return std::make_unique<DfsStrategy>(-1); }
std::unique_ptr<Strategy> make_dfs_strategy(int preemption_bound) {
  return std::make_unique<DfsStrategy>(preemption_bound);
}

}  // namespace atomcheck
