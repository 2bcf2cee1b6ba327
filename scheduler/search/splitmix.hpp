// SplitMix64 (Steele, Lea and Flood, OOPSLA 2014), the one copy the scheduler uses: the
// random and pct strategies' and the estimator's generators, the sample workers' seeds,
// the class keys and the fingerprint of a carved wakeup subtree. Chosen for being small
// and portable: the same seed gives the same schedules on every platform and compiler.
#pragma once

#include <cstdint>

namespace atomcheck::detail {

// The finaliser: spreads every bit of `z` over the result (a bijection on 64 bits).
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The generator's increment (the golden ratio's 64-bit fraction).
inline constexpr std::uint64_t kSplitMix64Gamma = 0x9e3779b97f4a7c15ULL;

// The generator: advances `state` and returns the next number.
constexpr std::uint64_t splitmix64_next(std::uint64_t& state) { return splitmix64_mix(state += kSplitMix64Gamma); }

}  // namespace atomcheck::detail
