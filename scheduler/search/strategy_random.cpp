// Uniform random choice at every choice point, from a seeded generator of our own
// (splitmix64), so a seed names the same executions on every platform.
#include "scheduler/search/strategy.hpp"
#include "scheduler/search/splitmix.hpp"

namespace atomcheck {

namespace {

class RandomStrategy final : public Strategy {
 public:
  RandomStrategy(std::uint64_t seed, std::uint64_t executions)
      : state_(seed), executions_(executions) {}

  bool begin_execution() override { return done_++ < executions_; }

  std::size_t choose(std::span<const Transition> enabled, const History&) override {
    return static_cast<std::size_t>(next() % enabled.size());
  }

  // The generator and the samples run: the next sample's choices follow from them alone.
  bool save(std::vector<std::uint64_t>& out) const override {
    out.insert(out.end(), {state_, done_});
    return true;
  }
  bool load(std::span<const std::uint64_t> in) override {
    if (in.size() != 2) return false;
    state_ = in[0];
    done_ = in[1];
    return true;
  }

 private:
  std::uint64_t next() { return detail::splitmix64_next(state_); }
  std::uint64_t state_;
  std::uint64_t executions_;
  std::uint64_t done_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_random_strategy(std::uint64_t seed, std::uint64_t executions) {
  return std::make_unique<RandomStrategy>(seed, executions);
}

}  // namespace atomcheck
