// Knuth's estimator of a search tree's size, used by explore() before and during an
// exhaustive search: a walk from the root picks uniformly among the alternatives DFS
// would try at each choice point (the preemption bound applied as DFS applies it); the
// product of the numbers of alternatives along the walk has expectation equal to the
// number of leaves, i.e. of DFS executions. Depth-cut walks are leaves too, as in DFS.
#include <bit>

#include "scheduler/search/strategy.hpp"
#include "scheduler/search/splitmix.hpp"

namespace atomcheck {

EstimateStrategy::EstimateStrategy(std::uint64_t seed, int preemption_bound)
    : state_(seed ^ 0x5851f42d4c957f2dULL), bound_(preemption_bound) {}

bool EstimateStrategy::begin_execution() {
  product_ = 1;
  preemptions_ = 0;
  return true;
}

std::size_t EstimateStrategy::choose(std::span<const Transition> enabled, const History& history) {
  allowed_.clear();
  for (std::size_t i = 0; i < enabled.size(); ++i)
    if (bound_ < 0 || preemptions_ < bound_ || !is_preemption(enabled[i], enabled, history))
      allowed_.push_back(static_cast<std::uint32_t>(i));
  product_ *= static_cast<double>(allowed_.size());
  const std::uint64_t z = detail::splitmix64_next(state_);
  std::size_t pick = allowed_[z % allowed_.size()];
  if (bound_ >= 0 && is_preemption(enabled[pick], enabled, history)) ++preemptions_;
  return pick;
}

void EstimateStrategy::end_execution(const History&) {
  sum_ += product_;
  ++walks_;
}

bool EstimateStrategy::save(std::vector<std::uint64_t>& out) const {
  out.insert(out.end(), {state_, std::bit_cast<std::uint64_t>(sum_), walks_});
  return true;
}

bool EstimateStrategy::load(std::span<const std::uint64_t> in) {
  if (in.size() != 3) return false;
  state_ = in[0];
  sum_ = std::bit_cast<double>(in[1]);
  walks_ = in[2];
  return true;
}

}  // namespace atomcheck
