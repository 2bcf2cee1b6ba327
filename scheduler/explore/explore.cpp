// explore(): settles where a search runs (this thread, split samples, other processes
// under atomcheck-mpi) and runs it (the loop of one search is explore_search.cpp's).
// Also replay(), the program registry and the small formatting helpers of explore.hpp.
// The units a parallel search carves (threads, other processes) are in
// explore_units.cpp, the steps of one execution both share in explore_internal.cpp.
#include "scheduler/explore/explore.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "scheduler/explore/cluster.hpp"
#include "scheduler/explore/explore_samples.hpp"
#include "scheduler/explore/explore_search.hpp"
#include "scheduler/explore/explore_units.hpp"

namespace atomcheck {

using detail::kJoinSamples;
using detail::serve;


SearchEnd search_end(const ExploreResult& r) {
  // A wait outside the reductions' model makes a replayed prefix diverge: the wait is
  // the cause to name, not the divergence it caused.
  if (r.reduction_incomplete && r.stop == StopReason::nondeterministic) return SearchEnd::reduction_incomplete;
  switch (r.stop) {
    case StopReason::nondeterministic: return SearchEnd::nondeterministic;
    case StopReason::bad_schedule: return SearchEnd::bad_schedule;
    case StopReason::interrupted: return SearchEnd::interrupted;
    case StopReason::time_limit: return SearchEnd::time;
    case StopReason::max_executions: return SearchEnd::budget;
    case StopReason::failure: return SearchEnd::stop_on_failure;
    case StopReason::none: break;
  }
  if (r.reduction_incomplete) return SearchEnd::reduction_incomplete;
  if (r.bounded || r.bound_cut) return SearchEnd::bound;
  return r.sampled ? SearchEnd::sampled : SearchEnd::exhausted;
}

std::string_view search_end_name(SearchEnd end) {
  switch (end) {
    case SearchEnd::exhausted: return "exhausted";
    case SearchEnd::sampled: return "sampled";
    case SearchEnd::budget: return "budget";
    case SearchEnd::time: return "time";
    case SearchEnd::interrupted: return "interrupted";
    case SearchEnd::bound: return "bound";
    case SearchEnd::reduction_incomplete: return "reduction-incomplete";
    case SearchEnd::nondeterministic: return "nondeterministic";
    case SearchEnd::stop_on_failure: return "stop-on-failure";
    case SearchEnd::bad_schedule: return "bad-schedule";
  }
  return "?";
}

std::string search_end_text(const ExploreResult& r) {
  const SearchEnd end = search_end(r);
  const char* s = r.executions == 1 ? "" : "s";
  const std::string_view name = search_end_name(end);
  switch (end) {
    case SearchEnd::exhausted: return std::string(name);
    case SearchEnd::sampled: return fmt::format("{}: {} execution{} drawn", name, r.executions, s);
    case SearchEnd::budget:
      return fmt::format("{}: the execution budget ran out after {} execution{}", name, r.executions, s);
    case SearchEnd::time: return fmt::format("{}: the time limit ran out after {:.1f} s", name, r.elapsed_seconds);
    case SearchEnd::interrupted: return fmt::format("{}: after {} execution{}", name, r.executions, s);
    case SearchEnd::bound:
      return r.bound_cut ? fmt::format("{}: the depth bound cut {} executions", name, r.bound_cut)
                         : fmt::format("{}: the preemption bound {} pruned schedules", name, r.preemption_bound);
    case SearchEnd::reduction_incomplete:
      return fmt::format("{}: {} (DPOR does not model this wait; --strategy dfs explores it)", name,
                         r.reduction_incomplete_by.empty() ? "a wait" : r.reduction_incomplete_by);
    case SearchEnd::nondeterministic:
    case SearchEnd::bad_schedule: return fmt::format("{}: {}", name, r.error);
    case SearchEnd::stop_on_failure: return fmt::format("{}: after the first failing or flagged execution", name);
  }
  return std::string(name);
}

bool search_end_cut(SearchEnd end) {
  return end == SearchEnd::budget || end == SearchEnd::time || end == SearchEnd::interrupted ||
         end == SearchEnd::bound || end == SearchEnd::reduction_incomplete;
}

std::string_view equivalence_name(Equivalence e) {
  switch (e) {
    case Equivalence::automatic: return "automatic";
    case Equivalence::rf_co: return "rf+co";
    case Equivalence::issue_order: return "issue-order";
    case Equivalence::step_order: return "step-order";
  }
  return "?";
}





bool ExploreResult::any_checker_flagged() const {
  return std::any_of(checkers.begin(), checkers.end(),
                     [](const CheckerSummary& c) { return c.flagged > 0; });
}
bool ExploreResult::any_checker_undecided() const {
  return std::any_of(checkers.begin(), checkers.end(),
                     [](const CheckerSummary& c) { return c.undecided > 0; });
}

namespace {
// RC11's choices are no thread's steps, which the DPOR strategies reduce over: TruSt
// explores them under `optimal` (docs/rc11.md). The TSO checkers judge TSO executions.
ExploreOptions for_memory_model(const ExploreOptions& o) {
  if (!graph_memory(o)) return o;
  for (const std::string& name : o.checkers)
    if (o.memory == MemoryModelKind::rc11 && !checker_judges_rc11(name))
      throw std::invalid_argument(fmt::format(
          "checker '{}' judges TSO executions; under rc11 the other checkers run (see `atomcheck checkers`)",
          name));
  ExploreOptions out = o;
  // `optimal` is TruSt (strategy_trust.cpp), whose work items are the units of a parallel
  // search; `dpor` is the same; `dfs` runs every interleaving, and the interleavings with
  // their graph cut (rc11_revisits off) run on one job.
  if (out.strategy == StrategyKind::dpor) out.strategy = StrategyKind::optimal;
  if ((out.strategy == StrategyKind::optimal && !out.rc11_revisits) || out.strategy == StrategyKind::dfs) out.jobs = 1;
  return out;
}
}  // namespace

ExploreResult explore(const Program& program, const ExploreOptions& asked,
                      const std::function<void(const ExecutionView&)>& on_execution) {
  const ExploreOptions given = for_memory_model(asked);
  // Split samples are N searches with N generators, which one state cannot hold. (A
  // parallel optimal search checkpoints its own state; dfs and dpor ignore jobs.)
  if ((given.checkpoint || given.resume) && given.jobs > 1 &&
      strategy_samples(given.strategy))
    throw std::invalid_argument("checkpoints of split samples need one job (jobs = 1)");
  // atomcheck-mpi: a process other than rank 0 serves rank 0's searches from here on.
  detail::Cluster* cluster = given.distribute ? detail::claim_cluster() : nullptr;
  struct Claim {
    detail::Cluster* c;
    ~Claim() {
      if (c) detail::release_cluster();
    }
  } claim{cluster};
  if (cluster && cluster->rank() != 0) serve(program, given, *cluster);
  const bool sampling = strategy_samples(given.strategy);
  // Samples split across ranks without a callback: their results travel as counts,
  // failures, outcomes and the checkers' summaries (explore_samples.cpp).
  // (A checkpoint holds one sampler's state: with one, rank 0 samples alone.)
  if (cluster && sampling && !on_execution && !given.checkpoint && !given.resume) {
    ++cluster->serial;
    const std::uint64_t join[] = {cluster->serial, kJoinSamples, static_cast<std::uint64_t>(given.memory), 0, 0, 0};
    for (int k = 1; k < cluster->size(); ++k) cluster->send(k, detail::ClusterTag::join, join);
    ExploreResult r = detail::explore_split_samples(program, given, on_execution, cluster);
    r.parallel.messages = cluster->messages;
    r.parallel.bytes = cluster->bytes;
    return r;
  }
  // Units go to other processes under optimal (DPOR, or TruSt under rc11 when its revisits
  // are on), not the tests' inline units.
  if (cluster && (given.strategy != StrategyKind::optimal ||
                  (graph_memory(given) && !given.rc11_revisits) || given.units_inline))
    cluster = nullptr;
  // Samples split across cores; optimal takes `jobs` below (Units).
  if (given.jobs > 1 && strategy_samples(given.strategy))
    return detail::explore_split_samples(program, given, on_execution);
  return detail::run_search(program, given, on_execution, cluster);
}

ReplayResult replay(const Program& program, std::string_view schedule,
                    const ExploreOptions& options) {
  ExploreOptions o = options;
  o.strategy = StrategyKind::replay;
  o.replay = std::string(schedule);
  o.max_executions = 0;
  o.time_limit_seconds = 0;
  o.interrupt = nullptr;
  ReplayResult out;
  bool seen = false;
  ExploreResult r = explore(program, o, [&](const ExecutionView& v) {
    seen = true;
    out.trace = *v.trace;
    if (v.failure) {
      out.failed = true;
      out.failure = *v.failure;
    }
    if (v.outcome) out.outcome = *v.outcome;
    out.blocked = !v.failure && !v.outcome;
    out.verdicts = *v.verdicts;
  });
  if (!r.error.empty()) throw std::invalid_argument(r.error);
  if (!seen) throw std::invalid_argument("schedule does not fit the program");
  return out;
}

// ---- registry ---------------------------------------------------------------------


}  // namespace atomcheck
