// explore(): drives one Execution with a strategy until the strategy runs out or a limit
// cuts the search, hands every finished execution to the checkers (created once, reset
// per execution) and to the caller's callback, and tallies the result. Also replay(),
// the program registry and the small formatting helpers of explore.hpp. The units a
// parallel search carves (threads, other processes) are in explore_units.cpp, the steps
// of one execution both share in explore_internal.cpp.
#include "scheduler/explore.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <limits>
#include <stdexcept>

#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "scheduler/cluster.hpp"
#include "scheduler/crash_report.hpp"
#include "scheduler/execution.hpp"
#include "scheduler/explore_internal.hpp"
#include "scheduler/explore_samples.hpp"
#include "scheduler/explore_units.hpp"
#include "scheduler/strategy.hpp"

namespace atomcheck {

// The pieces explore_internal.hpp and explore_units.hpp share, as explore() names them.
using detail::collect;
using detail::compare_with_previous;
using detail::execution_for;
using detail::failed_end;
using detail::Judges;
using detail::RunFacts;
using detail::serve;
using detail::unpack;
using detail::Unit;
using detail::UnitRun;
using detail::UnitRunRest;
using detail::Units;
using detail::view_of;
using detail::wait_text;
using detail::kJoinSamples;
using detail::kJoinUnits;

std::string_view failure_kind_name(FailureKind kind) {
  switch (kind) {
    case FailureKind::assertion: return "assertion";
    case FailureKind::exception: return "exception";
    case FailureKind::deadlock: return "deadlock";
    case FailureKind::step_bound: return "step bound";
    case FailureKind::usage: return "usage";
    case FailureKind::data_race: return "data race";
  }
  return "?";
}

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::none: return "exhausted";
    case StopReason::max_executions: return "max-executions";
    case StopReason::time_limit: return "time-limit";
    case StopReason::interrupted: return "interrupted";
    case StopReason::failure: return "stop-on-failure";
    case StopReason::bad_schedule: return "bad schedule";
    case StopReason::nondeterministic: return "nondeterministic program";
  }
  return "?";
}

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

bool resumable_stop(StopReason reason) {
  return reason == StopReason::none || reason == StopReason::max_executions ||
         reason == StopReason::time_limit || reason == StopReason::interrupted;
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

std::string_view strategy_name(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::dfs: return "dfs";
    case StrategyKind::random: return "random";
    case StrategyKind::replay: return "replay";
    case StrategyKind::dpor: return "dpor";
    case StrategyKind::optimal: return "optimal";
    case StrategyKind::pct: return "pct";
  }
  return "?";
}

std::optional<StrategyKind> strategy_from_name(std::string_view name) {
  if (name == "dfs") return StrategyKind::dfs;
  if (name == "dpor") return StrategyKind::dpor;
  if (name == "optimal") return StrategyKind::optimal;
  if (name == "random") return StrategyKind::random;
  if (name == "pct") return StrategyKind::pct;
  return std::nullopt;
}

std::optional<MemoryModelKind> memory_model_from_name(std::string_view name) {
  if (name == "sc") return MemoryModelKind::sc;
  if (name == "tso") return MemoryModelKind::tso;
  if (name == "rc11") return MemoryModelKind::rc11;
  return std::nullopt;
}

std::string_view memory_model_name(MemoryModelKind kind) {
  switch (kind) {
    case MemoryModelKind::sc: return "sc";
    case MemoryModelKind::tso: return "tso";
    case MemoryModelKind::rc11: return "rc11";
  }
  return "?";
}

std::string format_outcome(const Outcome& outcome) {
  std::string out;
  for (const auto& [name, value] : outcome) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", name, value);
  }
  return out;
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

// Walks before the search: enough for an order of magnitude on the trees we meet
// (the estimator's variance is large on unbalanced trees; later walks refine it).
constexpr int kInitialWalks = 16;


// The class keys seen, counted once per execution on the search's critical path: open
// addressing over one flat array (std::unordered_set allocated a node per key, a few
// percent of a parallel search's coordinator).
class KeySet {
 public:
  void insert(std::uint64_t k) {
    if (k == 0) {
      zero_ = true;
      return;
    }
    if (2 * (n_ + 1) > slots_.size()) grow();
    if (place(slots_, k)) ++n_;
  }
  std::size_t size() const { return n_ + (zero_ ? 1 : 0); }
  void append_to(std::vector<std::uint64_t>& out) const {
    if (zero_) out.push_back(0);
    for (std::uint64_t k : slots_)
      if (k != 0) out.push_back(k);
  }

 private:
  static bool place(std::vector<std::uint64_t>& slots, std::uint64_t k) {
    const std::size_t mask = slots.size() - 1;
    for (std::size_t i = (k ^ (k >> 29)) & mask;; i = (i + 1) & mask) {
      if (slots[i] == k) return false;
      if (slots[i] == 0) {
        slots[i] = k;
        return true;
      }
    }
  }
  void grow() {
    std::vector<std::uint64_t> bigger(slots_.empty() ? 1024 : 2 * slots_.size(), 0);
    for (std::uint64_t k : slots_)
      if (k != 0) place(bigger, k);
    slots_.swap(bigger);
  }
  std::vector<std::uint64_t> slots_;
  std::size_t n_ = 0;
  bool zero_ = false;
};

// Adds one execution to the result. `counted` keeps the class keys seen.
void tally(ExploreResult& r, const ExploreOptions& options, std::uint64_t index, RunFacts& f,
           KeySet& class_set, KeySet& rf_co_set) {
  if (options.count_classes && f.end != detail::EndKind::aborted && f.end != detail::EndKind::redundant) {
    class_set.insert(f.class_hash);
    rf_co_set.insert(f.rf_co_hash);
    r.classes = class_set.size();
    r.rf_co_classes = rf_co_set.size();
  }
  r.steps += f.steps;
  r.events += f.events;
  switch (f.end) {
    case detail::EndKind::completed: ++r.completed; break;
    case detail::EndKind::failed: ++r.failed; break;
    case detail::EndKind::deadlock: ++r.deadlocks; break;
    case detail::EndKind::step_bound: ++r.step_bounded; break;
    case detail::EndKind::pruned:
    case detail::EndKind::spin_blocked: ++r.pruned; break;
    case detail::EndKind::aborted: break;
    case detail::EndKind::redundant: ++r.sleep_blocked; break;
    case detail::EndKind::depth_cut:
      ++r.bound_cut;
      r.bounded = true;
      break;
  }
  if (failed_end(f.end)) {
    f.failure.execution = index;
    if (r.failures.size() < options.keep_failures) r.failures.push_back(f.failure);
  }
  if (f.end == detail::EndKind::completed) ++r.outcomes[f.outcome];
  if (!f.unmarked_spin.empty() && r.unmarked_spins++ == 0) {
    r.unmarked_spin = f.unmarked_spin;
    r.unmarked_spin_schedule = f.schedule;
  }
  for (std::size_t k = 0; k < f.verdicts.size(); ++k) {
    CheckerSummary& s = r.checkers[k];
    if (!f.verdicts[k].decided() && s.undecided++ == 0) s.first_undecided = f.verdicts[k].undecided;
    if (!f.verdicts[k].flags()) continue;
    if (s.flagged++ == 0) {
      s.first_schedule = f.schedule;
      s.first_execution = index;
      s.first_verdict = f.verdicts[k];
    }
  }
}

}  // namespace

namespace {
// The options with the checkers' deadline set from the search's interrupt and time
// limit, so an exponential checker stops with the search instead of after it.
ExploreOptions with_deadline(const ExploreOptions& given, std::chrono::steady_clock::time_point start) {
  ExploreOptions o = given;
  Deadline& d = o.checker_options.deadline;
  Deadline search = Deadline::after(given.time_limit_seconds, given.interrupt, start);
  if (d.interrupt == nullptr) d.interrupt = search.interrupt;
  d.at = std::min(d.at, search.at);
  return o;
}
}  // namespace

namespace {
// RC11's choices are no thread's steps, which the DPOR strategies reduce over: DFS
// explores them, with the graph reduction under `optimal` (docs/rc11.md). The atomicity
// checkers read SC and TSO traces.
ExploreOptions for_memory_model(const ExploreOptions& o) {
  if (o.memory != MemoryModelKind::rc11) return o;
  if (!o.checkers.empty())
    throw std::invalid_argument(fmt::format(
        "checker '{}' judges SC and TSO executions; under rc11 the search reports failures, data "
        "races and outcomes only",
        o.checkers.front()));
  ExploreOptions out = o;
  // `optimal` is DFS over the choices with one execution per graph (the graph
  // reduction, memory_rc11.cpp); `dpor` is the same; `dfs` runs every interleaving.
  if (out.strategy == StrategyKind::dpor) out.strategy = StrategyKind::optimal;
  if (out.strategy == StrategyKind::optimal || out.strategy == StrategyKind::dfs) out.jobs = 1;
  return out;
}
}  // namespace

ExploreResult explore(const Program& program, const ExploreOptions& asked,
                      const std::function<void(const ExecutionView&)>& on_execution) {
  const ExploreOptions given = for_memory_model(asked);
  // Split samples are N searches with N generators, which one state cannot hold. (A
  // parallel optimal search checkpoints its own state; dfs and dpor ignore jobs.)
  if ((given.checkpoint || given.resume) && given.jobs > 1 &&
      (given.strategy == StrategyKind::random || given.strategy == StrategyKind::pct))
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
  const bool sampling = given.strategy == StrategyKind::random || given.strategy == StrategyKind::pct;
  // Samples split across ranks without checkers or a callback: their results travel as
  // counts, failures and outcomes (explore_samples.cpp).
  // (A checkpoint holds one sampler's state: with one, rank 0 samples alone.)
  if (cluster && sampling && !on_execution && given.checkers.empty() && !given.checkpoint && !given.resume) {
    ++cluster->serial;
    const std::uint64_t join[] = {cluster->serial, kJoinSamples, static_cast<std::uint64_t>(given.memory), 0, 0, 0};
    for (int k = 1; k < cluster->size(); ++k) cluster->send(k, detail::ClusterTag::join, join);
    ExploreResult r = detail::explore_split_samples(program, given, on_execution, cluster);
    r.parallel.messages = cluster->messages;
    r.parallel.bytes = cluster->bytes;
    return r;
  }
  // Units go to other processes under optimal DPOR (not rc11's, nor the tests' inline units).
  if (cluster && (given.strategy != StrategyKind::optimal || given.memory == MemoryModelKind::rc11 ||
                  given.units_inline))
    cluster = nullptr;
  // Samples split across cores; optimal takes `jobs` below (Units).
  if (given.jobs > 1 && (given.strategy == StrategyKind::random || given.strategy == StrategyKind::pct))
    return detail::explore_split_samples(program, given, on_execution);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const ExploreOptions options = with_deadline(given, start);
  // A fatal signal in the body prints the execution's schedule before the process dies.
  detail::CrashScope crash_report({}, options.step_timeout_seconds);
  detail::ensure_alt_stack();
  ExploreResult r;

  Judges judges(options);
  for (const std::string& name : options.checkers) r.checkers.emplace_back().name = name;

  // The coarsest equivalence the observers allow: rf+co, unless a checker reads the
  // trace tau of a TSO execution (its verdict depends on the order of issues). Under SC
  // the two coincide. Source-DPOR keeps its own, finer relation under TSO.
  const bool tso = options.memory == MemoryModelKind::tso;
  r.equivalence = options.equivalence;
  r.sampled = options.strategy == StrategyKind::random || options.strategy == StrategyKind::pct;
  r.preemption_bound = options.preemption_bound;
  if (r.equivalence == Equivalence::automatic || r.equivalence == Equivalence::step_order) {
    r.equivalence = Equivalence::rf_co;
    for (const std::string& name : options.checkers)
      if (checker_needs_issue_order(name)) r.equivalence = Equivalence::issue_order;
    // The trace TSO deciders were seen to change verdict within an issue-order class (a
    // random program with failed compare-exchanges; tests/test_dpor_optimal.cpp): until
    // that is understood they get the step order, the relation of the previous releases.
    for (const std::string& name : options.checkers)
      if (name.rfind("trace-tso", 0) == 0) r.equivalence = Equivalence::step_order;
  }
  if (!tso) r.equivalence = Equivalence::rf_co;
  if (tso && options.strategy == StrategyKind::dpor) r.equivalence = Equivalence::step_order;

  std::unique_ptr<Strategy> strategy;
  std::uint64_t limit = options.max_executions.value_or(kDefaultMaxExecutions);
  // Random and pct read the count as their sample size: it is the strategy's natural end,
  // not a cut. 0 (unlimited) samples until the time limit or an interrupt.
  const std::uint64_t samples = options.max_executions.value_or(kDefaultSamples);
  const std::uint64_t no_end = std::numeric_limits<std::uint64_t>::max();
  switch (options.strategy) {
    case StrategyKind::dfs: strategy = make_dfs_strategy(options.preemption_bound); break;
    case StrategyKind::random:
      strategy = make_random_strategy(options.seed, samples ? samples : no_end);
      limit = 0;
      break;
    case StrategyKind::replay: strategy = make_replay_strategy(options.replay); break;
    case StrategyKind::dpor: strategy = make_dpor_strategy(); break;
    case StrategyKind::optimal:
      if (options.memory == MemoryModelKind::rc11) {
        strategy = make_dfs_strategy(-1);  // with the Execution's graph reduction
        break;
      }
      strategy = make_optimal_strategy(r.equivalence, tso, options.units_inline > 0);
      break;
    case StrategyKind::pct:
      strategy = make_pct_strategy(options.seed, options.pct_depth, samples ? samples : no_end);
      limit = 0;
      break;

  }
  // A preemption bound prunes DPOR's backtrack sets unsoundly (a bounded execution may
  // be the only representative of its class; Coons et al., OOPSLA 2013), so it is a
  // DFS-only option; sampling strategies have no bound to respect.
  if (options.preemption_bound >= 0 && options.strategy != StrategyKind::dfs &&
      options.strategy != StrategyKind::replay)
    throw std::invalid_argument(
        "the preemption bound applies to the dfs strategy only (set ExploreOptions::strategy = "
        "StrategyKind::dfs; the default is optimal DPOR)");

  // Checkpoints: refused for a strategy that cannot save its state, before any work.
  const bool checkpointing = options.checkpoint || options.resume;
  if (checkpointing) {
    std::vector<std::uint64_t> probe;
    if (!strategy->save(probe))
      throw std::invalid_argument(fmt::format("the {} strategy cannot be checkpointed",
                                              strategy_name(options.strategy)));
  }
  if (options.resume) {
    const SearchState& from = *options.resume;
    if (from.result.checkers.size() != options.checkers.size())
      throw std::invalid_argument("the checkpoint's checkers are not the search's");
    // Tallies from the state; what follows from the options from the options.
    const Equivalence eq = r.equivalence;
    const bool sampled = r.sampled;
    const int bound = r.preemption_bound;
    r = from.result;
    r.equivalence = eq;
    r.sampled = sampled;
    r.preemption_bound = bound;
    r.elapsed_seconds = 0;
    r.parallel = {};
    if (from.finished) {  // the search had ended: its result, again (and in the new file)
      if (options.checkpoint) options.checkpoint(from);
      return r;
    }
    if (!strategy->load(from.strategy))
      throw std::invalid_argument(fmt::format("the checkpoint's {} state does not fit the search (damaged?)",
                                              strategy_name(options.strategy)));
    r.stop = StopReason::none;
    r.error.clear();
  }

  const std::unique_ptr<detail::Execution> search_exec = execution_for(options);
  detail::Execution& exec = *search_exec;

  // Size estimate of exhaustive searches (Knuth's estimator over the DFS tree, with the
  // same bounds): a few walks first, then one walk every 64 executions refines it. For
  // DPOR the DFS size is an upper bound on the executions the reduction will run.
  const bool exhaustive = options.strategy == StrategyKind::dfs ||
                          options.strategy == StrategyKind::dpor ||
                          options.strategy == StrategyKind::optimal;
  std::unique_ptr<detail::Execution> walker;
  std::unique_ptr<EstimateStrategy> estimator;
  // The estimator before the walks made at `walked_at` executions: a checkpoint taken
  // where a unit is reached (below) is of the state before that execution's walks, which
  // the resumed search makes again.
  std::vector<std::uint64_t> unwalked;
  double unwalked_estimate = 0;
  std::uint64_t walked_at = no_end;
  auto walk = [&](int times) {
    if (options.checkpoint) {
      unwalked.clear();
      estimator->save(unwalked);
      unwalked_estimate = r.estimate;
      walked_at = r.executions;
    }
    for (int i = 0; i < times; ++i) {
      estimator->begin_execution();
      walker->run(program, *estimator);
    }
    r.estimate = estimator->mean();
  };
  if (exhaustive) {
    walker = execution_for(options);
    estimator = std::make_unique<EstimateStrategy>(options.seed, options.preemption_bound);
    if (options.resume && !estimator->load(options.resume->estimator))
      throw std::invalid_argument("the checkpoint's size estimate does not fit the search (damaged?)");
  }
  // Parallel (optimal): units carved from the search, in the order carved, not yet
  // reached; the one whose runs the search is taking (declared before `units`, whose
  // threads use them: destroyed after it).
  std::vector<std::unique_ptr<Unit>> carved;
  std::unique_ptr<Unit> draining;
  int draining_id = 0;  // Strategy::unit_reached()'s; its slot in `carved` stays (empty) until joined
  std::size_t next_run = 0;
  bool draining_compared = false;  // its first unaborted run was compared with `previous`
  std::vector<std::size_t> changed;  // Strategy::changed_units
  std::unique_ptr<Units> units;
  if (cluster) {
    ++cluster->serial;
    const std::uint64_t join[] = {cluster->serial, kJoinUnits, static_cast<std::uint64_t>(options.memory),
                                  static_cast<std::uint64_t>(r.equivalence), tso ? 1u : 0u,
                                  on_execution || !options.checkers.empty() ? 1u : 0u};
    for (int k = 1; k < cluster->size(); ++k) cluster->send(k, detail::ClusterTag::join, join);
  }
  if ((options.jobs > 1 || cluster) && options.strategy == StrategyKind::optimal)
    units = std::make_unique<Units>(program, options, tso, r.equivalence, bool(on_execution), cluster);
  KeySet class_set, rf_co_set;
  if (options.resume) {
    for (std::uint64_t k : options.resume->class_keys) class_set.insert(k);
    for (std::uint64_t k : options.resume->rf_co_keys) rf_co_set.insert(k);
    if (options.count_classes && (class_set.size() != r.classes || rf_co_set.size() != r.rf_co_classes))
      throw std::invalid_argument("the checkpoint's class keys do not match its class counts (damaged?)");
  }
  // While the search takes a unit's runs its state is no one-job search's (it holds the
  // unit's nodes but not yet the insertions the unit made above its root), so a
  // checkpoint then is `reached`, the state where it reached the unit, before the
  // unit's runs were tallied; the resumed search explores that branch itself. Its keys
  // are the live ones less those the unit's runs added: copying every key at every unit
  // reached would cost a search of millions of classes more than this.
  const bool keep_reached = options.checkpoint && units;
  SearchState reached;  // all but the keys
  std::vector<std::uint64_t> reached_new_classes, reached_new_rf_co;
  auto keys_before = [](const KeySet& live, std::vector<std::uint64_t>& added, std::vector<std::uint64_t>& out) {
    std::sort(added.begin(), added.end());
    live.append_to(out);
    std::erase_if(out, [&](std::uint64_t k) { return std::binary_search(added.begin(), added.end(), k); });
  };
  // The state between two executions (where every stop below is taken): the tallies,
  // the strategy's and the estimator's state, the keys.
  auto checkpoint = [&](bool finished) {
    if (draining && !finished) {
      SearchState st = reached;
      st.result.stop = r.stop;
      keys_before(class_set, reached_new_classes, st.class_keys);
      keys_before(rf_co_set, reached_new_rf_co, st.rf_co_keys);
      options.checkpoint(st);
      return;
    }
    SearchState st;
    st.result = r;
    st.result.elapsed_seconds = 0;
    st.finished = finished;
    strategy->save(st.strategy);
    if (estimator) estimator->save(st.estimator);
    class_set.append_to(st.class_keys);
    rf_co_set.append_to(st.rf_co_keys);
    options.checkpoint(st);
  };
  bool checkpointed_stop = false;  // a stop it can resume from was saved
  auto last_checkpoint = start;
  const auto checkpoint_due = [&](Clock::time_point now) {
    return options.checkpoint && options.checkpoint_every > 0 &&
           std::chrono::duration<double>(now - last_checkpoint).count() >= options.checkpoint_every;
  };
  // Why the search must stop now, but for its budget of executions (none: StopReason::none).
  const auto time_or_interrupt = [&] {
    if (options.time_limit_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() >= options.time_limit_seconds)
      return StopReason::time_limit;
    if (options.interrupt && options.interrupt->load(std::memory_order_relaxed)) return StopReason::interrupted;
    return StopReason::none;
  };
  std::uint64_t blocked_before = strategy->sleep_blocked();  // a resumed DPOR's count
  // The previous execution, for the determinism check.
  History previous;
  std::vector<Event> previous_events;
  bool have_previous = false, last_is_strategy_run = false;
  RunFacts facts;
  std::any prepared;  // judges.prepare's result for an execution run here
  auto last_progress = start;

  for (;;) {
    if (options.progress && (r.executions & 15) == 0) {
      const auto now = Clock::now();
      if (std::chrono::duration<double>(now - last_progress).count() >= options.progress_interval) {
        last_progress = now;
        ExploreProgress p;
        p.executions = r.executions;
        p.elapsed_seconds = std::chrono::duration<double>(now - start).count();
        p.depth = exec.steps();
        p.estimate = r.estimate;
        options.progress(p);
      }
    }
    // Not while taking a unit's runs: `reached` is older than the last checkpoint may be.
    if (!draining) {
      const auto now = Clock::now();
      if (checkpoint_due(now)) {
        last_checkpoint = now;
        checkpoint(false);
      }
    }
    if (limit && r.executions >= limit) r.stop = StopReason::max_executions;
    else r.stop = time_or_interrupt();
    if (r.stop != StopReason::none) {
      // Saved before the estimator's walk after the loop, which a resumed search makes
      // where the uninterrupted one makes it.
      if (options.checkpoint) {
        checkpoint(false);
        checkpointed_stop = true;
      }
      break;
    }
    // The walks start after the first execution, so that one is the program's very
    // first run (a program that is not deterministic is caught on the second); a few
    // first, the rest once the search proves not tiny, so small searches pay little.
    // The last execution becomes the previous one: swapped, not copied (the search's
    // inner loop), before any estimator walk reuses the execution's buffers.
    if (last_is_strategy_run) {
      exec.swap_record(previous, previous_events);
      have_previous = true;
      last_is_strategy_run = false;
    }
    if (estimator && r.executions == 1) walk(4);
    if (estimator && r.executions == 16) walk(kInitialWalks - 4);
    if (estimator && r.executions > 64 && r.executions % 64 == 0) walk(1);
    if (units) units->poll();
    // The next execution: a unit's next run, or the strategy's (maybe a unit's first).
    if (draining && next_run == draining->count) {
      if (draining->thrown) std::rethrow_exception(draining->thrown);
      if (draining->has_last) {
        // Copied, not swapped: the unit's buffers live in its thread's malloc arena, and
        // the search rewrites `previous` every execution (swap_record), beside memory
        // that thread writes (false sharing; see OptimalStrategy::join_unit).
        previous = draining->last;
        previous_events = draining->last_events;
        have_previous = true;
      }
      strategy->join_unit(draining_id, draining->strategy.get());
      carved.erase(carved.begin() + (std::abs(draining_id) - 1));
      blocked_before = strategy->sleep_blocked();
      units->recycle(*draining);
      draining.reset();
    }
    // A unit for an idle thread. Also while the search takes a unit's runs: the strategy
    // stands where it reached the unit (it joins it after the last run), a point where it
    // may carve, and a thread that stopped for the search would otherwise wait out the
    // whole hand-over. With the carving at a take-over (carve_from_unit) and the spin
    // before a thread sleeps, lastzero-12's unit thread waits 2-5 ms per run, not 8-16.
    // `ahead`: the executions the search takes before the unit's.
    auto give = [&](std::unique_ptr<Strategy> st, std::uint64_t ahead) {
      auto u = std::make_unique<Unit>();
      u->strategy = std::move(st);
      u->most = !limit ? std::numeric_limits<std::uint64_t>::max() : limit > ahead ? limit - ahead : 0;
      units->give(u.get());
      carved.push_back(std::move(u));
    };
    // 1: gave one; 0: a thread or rank is idle and there is nothing to carve; -1: none is.
    auto carve_for = [&](std::uint64_t ahead) {
      if (!units->hungry(carved.size())) return -1;
      auto st = strategy->carve_unit();
      if (!st) return 0;
      give(std::move(st), ahead);
      return 1;
    };
    auto carve = [&] { carve_for(r.executions + (draining ? draining->count - next_run : 0)); };
    UnitRun* urun = nullptr;
    if (draining) {
      carve();
      urun = &draining->run(next_run++);
    } else {
      if (!strategy->begin_execution()) break;
      if (units) {
        strategy->changed_units(changed);
        for (std::size_t i : changed) {
          carved[i]->changed = true;
          units->cancel(*carved[i]);
        }
        changed.clear();
        carve();
        if (const int at = strategy->unit_reached()) {
          const auto i = static_cast<std::size_t>(std::abs(at) - 1);
          if (at > 0)
            units->wait_for(
                *carved[i], [&] { return carve_for(r.executions + carved[i]->count); },
                [&] { return time_or_interrupt() != StopReason::none || checkpoint_due(Clock::now()); });
          std::unique_ptr<Unit> u = std::move(carved[i]);
          const bool ran = units->reach(*u);
          if (at > 0 && ran && !u->count && u->thrown) std::rethrow_exception(u->thrown);
          units->taken(*u);
          if (at < 0 || !ran || !u->count) {  // the search explores the branch itself
            strategy->join_unit(at, nullptr);
            carved.erase(carved.begin() + static_cast<std::ptrdiff_t>(i));
            units->recycle(*u);
            ++r.parallel.discarded;
            r.parallel.cancelled += u->changed;
          } else {
            if (keep_reached) {
              reached = SearchState{};
              reached.result = r;
              reached.result.elapsed_seconds = 0;
              strategy->save_begun(reached.strategy);
              if (walked_at == r.executions) {
                reached.estimator = unwalked;
                reached.result.estimate = unwalked_estimate;
              } else if (estimator) {
                estimator->save(reached.estimator);
              }
              reached_new_classes.clear();
              reached_new_rf_co.clear();
            }
            ++r.parallel.units;
            r.parallel.unit_executions += u->count;
            if (!u->complete) {
              ++r.parallel.taken_over;
              // (Not from a unit whose body threw: its strategy stopped inside an
              // execution, and the search rethrows once it has taken the runs before.)
              if (!u->thrown && units->hungry(carved.size()))
                if (auto st = strategy->carve_from_unit(*u->strategy)) give(std::move(st), r.executions + u->count);
              strategy->continue_unit(at, *u->strategy, u->remote);
            }
            draining = std::move(u);
            draining_id = at;
            next_run = 0;
            draining_compared = false;
            urun = &draining->run(next_run++);
          }
        }
      }
    }

    detail::EndKind end;
    bool redundant;
    if (urun) {
      // A unit's run: the unit made the checks between its own runs; its first is
      // compared here with the search's previous one, as one job would.
      end = urun->end;
      const UnitRunRest* rest = urun->full ? urun->rest.get() : nullptr;
      if (rest && !rest->spin_wait.empty() && !r.reduction_incomplete) {
        r.reduction_incomplete = true;
        r.reduction_incomplete_by = rest->spin_wait;
      }
      if (rest && !rest->error.empty()) {
        r.error = rest->error;
        r.stop = StopReason::nondeterministic;
        break;
      }
      if (end != detail::EndKind::aborted && !draining_compared) {
        draining_compared = true;
        if (have_previous) {
          std::string why = compare_with_previous(previous, previous_events, draining->first, draining->first_events);
          if (!why.empty()) {
            r.error = std::move(why);
            r.stop = StopReason::nondeterministic;
            break;
          }
        }
      }
      redundant = urun->redundant;
    } else {
      end = exec.run(program, *strategy);
      const History& h = exec.history();
      const std::vector<Event>& events = exec.trace().events;
      if ((options.strategy == StrategyKind::dpor || options.strategy == StrategyKind::optimal) &&
          h.spins && !r.reduction_incomplete) {
        r.reduction_incomplete = true;
        r.reduction_incomplete_by = wait_text(h);
      }
      if (!strategy->error().empty()) {
        r.error = strategy->error();
        r.stop = exhaustive ? StopReason::nondeterministic : StopReason::bad_schedule;
        break;
      }
      if (end != detail::EndKind::aborted && options.strategy != StrategyKind::replay) {
        if (have_previous) {
          std::string why = compare_with_previous(previous, previous_events, h, events);
          if (!why.empty()) {
            r.error = std::move(why);
            r.stop = StopReason::nondeterministic;
            break;
          }
        }
        last_is_strategy_run = true;
      }
      const std::uint64_t blocked_now = strategy->sleep_blocked();
      redundant = blocked_now != blocked_before;
      blocked_before = blocked_now;
      collect(facts, end, exec, judges, options, tso, r.equivalence, bool(on_execution),
                std::any_of(r.checkers.begin(), r.checkers.end(),
                            [](const CheckerSummary& c) { return c.flagged == 0; }));
    }
    const std::uint64_t index = r.executions++;
    RunFacts& f = !urun ? facts : urun->full ? urun->rest->facts : unpack(*urun, *draining, facts);
    const std::size_t classes_before = class_set.size(), rf_co_before = rf_co_set.size();
    tally(r, options, index, f, class_set, rf_co_set);
    if (urun && keep_reached) {
      if (class_set.size() != classes_before) reached_new_classes.push_back(f.class_hash);
      if (rf_co_set.size() != rf_co_before) reached_new_rf_co.push_back(f.rf_co_hash);
    }

    if (on_execution) {
      if (!urun) exec.materialize_names();
      ExecutionView view = view_of(f, end, urun ? *urun->rest->trace : exec.trace(), index);
      if (urun) {
        if (judges.prepare) view.prepared = &urun->rest->prepared;
      } else if (judges.prepare) {
        prepared.reset();
        judges.prepare(view, prepared);
        view.prepared = &prepared;
      }
      view.sleep_blocked = redundant;
      on_execution(view);
    }

    if (options.stop_on_failure &&
        (failed_end(end) || std::any_of(f.verdicts.begin(), f.verdicts.end(),
                                        [](const Verdict& v) { return v.flags(); }))) {
      r.stop = StopReason::failure;
      break;
    }
  }
  if (units) units->report(r.parallel);
  if (cluster) {
    cluster->units += r.parallel.remote_units;
    cluster->taken_over += r.parallel.taken_over;
    cluster->replayed += r.parallel.replayed;
  }
  units.reset();  // stops the units still running
  if (r.error.empty() && !strategy->error().empty()) {
    r.error = strategy->error();
    r.stop = StopReason::bad_schedule;
  }
  if (estimator && estimator->walks() == 0 && r.executions == 1 && r.error.empty()) walk(4);
  r.sleep_blocked += strategy->sleep_blocked();
  r.bounded = r.bounded || strategy->bounded();
  if (options.checkpoint && !checkpointed_stop) checkpoint(true);
  r.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
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

namespace {
// Filled by ProgramRegistrar during static initialisation only; read-only afterwards.
std::vector<ProgramInfo>& registry() {
  static std::vector<ProgramInfo> programs;
  return programs;
}
}  // namespace

detail::ProgramRegistrar::ProgramRegistrar(const char* name, const char* description,
                                           void (*body)(), const char* file, int line) {
  registry().push_back(ProgramInfo{name, description, body, file, line});
}

std::vector<const ProgramInfo*> registered_programs() {
  std::vector<const ProgramInfo*> out;
  for (const ProgramInfo& p : registry()) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(),
                   [](const ProgramInfo* a, const ProgramInfo* b) { return a->name < b->name; });
  return out;
}

const ProgramInfo* find_program(std::string_view name) {
  for (const ProgramInfo& p : registry())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace atomcheck
