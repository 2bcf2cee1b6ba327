// Everything a user sees of a search, as one comparable string: the tests that require
// two ways of running one search (threads, ranks, checkpoints) to agree compare these.
#pragma once

#include <string>

#include <fmt/core.h>

#include "scheduler/explore/explore.hpp"

namespace atomcheck::testing_support {

inline std::string result_summary(const ExploreResult& r) {
  std::string s = fmt::format("exec {} completed {} failed {} deadlocks {} stepb {} pruned {} blocked {} "
                              "classes {} rf_co {} steps {} events {} stop {} error '{}' incomplete {}",
                              r.executions, r.completed, r.failed, r.deadlocks, r.step_bounded, r.pruned,
                              r.sleep_blocked, r.classes, r.rf_co_classes, r.steps, r.events,
                              stop_reason_name(r.stop), r.error, r.reduction_incomplete);
  for (const Failure& f : r.failures)
    s += fmt::format("\n  failure {} {} {} {}", f.execution, failure_kind_name(f.kind), f.message, f.schedule);
  for (const auto& [o, n] : r.outcomes) s += fmt::format("\n  outcome {} x{}", format_outcome(o), n);
  for (const CheckerSummary& c : r.checkers)
    s += fmt::format("\n  {} flagged {} first {} {}", c.name, c.flagged, c.first_execution, c.first_schedule);
  return s;
}

}  // namespace atomcheck::testing_support
