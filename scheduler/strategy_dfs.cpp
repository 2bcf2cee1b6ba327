// Exhaustive depth-first search, stateless: the choice stack holds, for every choice
// point of the current execution, how many transitions were enabled and which one was
// taken. The next execution replays the prefix up to the deepest choice point with an
// untried alternative and takes that alternative.
#include <fmt/core.h>

#include "scheduler/strategy.hpp"

namespace atomcheck {

namespace {

class DfsStrategy final : public Strategy {
 public:
  DfsStrategy() { stack_.reserve(1024); }
  bool begin_execution() override {
    depth_ = 0;
    if (!started_) {
      started_ = true;
      return true;
    }
    while (!stack_.empty() && stack_.back().pick + 1 >= stack_.back().enabled) stack_.pop_back();
    if (stack_.empty()) return false;
    ++stack_.back().pick;
    return true;
  }

  std::size_t choose(std::span<const Transition> enabled, const History&) override {
    if (depth_ < stack_.size()) {
      Node& n = stack_[depth_++];
      if (n.enabled != enabled.size()) {
        error_ = fmt::format(
            "the program is not deterministic: choice point {} had {} enabled transitions "
            "before and {} now (does some state outlive an execution?)",
            depth_, n.enabled, enabled.size());
        return 0;
      }
      return n.pick;
    }
    stack_.push_back(Node{static_cast<std::uint32_t>(enabled.size()), 0});
    ++depth_;
    return 0;
  }

  void end_execution(const History&) override {
    // Only an error can leave the prefix unconsumed; never backtrack into stale nodes.
    if (depth_ < stack_.size() && error_.empty()) {
      error_ = "the program is not deterministic: an execution ended earlier than before";
    }
  }

  std::string error() const override { return error_; }

 private:
  struct Node {
    std::uint32_t enabled;
    std::uint32_t pick;
  };
  std::vector<Node> stack_;
  std::size_t depth_ = 0;
  bool started_ = false;
  std::string error_;
};

}  // namespace

std::unique_ptr<Strategy> make_dfs_strategy() { return std::make_unique<DfsStrategy>(); }

}  // namespace atomcheck
