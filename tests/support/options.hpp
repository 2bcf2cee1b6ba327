// The options most of the suite explores with: every schedule (DFS) and every failure
// counted. Those tests compare counts of schedules and failures with brute force or with
// published figures, which the library's defaults (optimal DPOR, one execution per class,
// stopping at the first failure) would change; the defaults have tests of their own
// (tests/test_model.cpp, ModelDefaults).
#pragma once

#include "scheduler/explore/explore.hpp"

namespace atomcheck::testing_support {

inline ExploreOptions every_schedule() {
  ExploreOptions o;
  o.strategy = StrategyKind::dfs;
  o.stop_on_failure = false;
  return o;
}

}  // namespace atomcheck::testing_support
