// Delta debugging of traces (`validate --minimise`): the smallest trace, within a budget
// of tests, on which a checker still disagrees with its judge the same way. First whole
// transactions are removed, then single events; a candidate that is not well formed
// (trace/validate.hpp) is skipped without being tested, so every trace the predicate
// sees is one a checker may be given. Deterministic: the same trace and predicate give
// the same result.
#pragma once

#include <cstddef>
#include <functional>

#include "../trace/trace.hpp"

namespace atomcheck::cli {

// What minimise_trace found.
struct MinimiseResult {
  Trace trace;             // the smallest trace found (the input when nothing could go)
  std::size_t tests = 0;   // calls of the predicate
  bool budget_hit = false; // stopped by the budget: smaller traces may exist
};

// `keeps(t)` says whether t still shows the disagreement; it is true of `start`. At most
// `budget` calls. Commits' issue indices are renumbered as events go.
MinimiseResult minimise_trace(const Trace& start, const std::function<bool(const Trace&)>& keeps,
                              std::size_t budget);

// The trace made of the events of `t` at `keep` (ascending indices), names kept.
Trace subtrace(const Trace& t, const std::vector<std::size_t>& keep);

}  // namespace atomcheck::cli
