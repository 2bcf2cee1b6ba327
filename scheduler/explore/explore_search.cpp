// The loop of one search (explore_search.hpp): it drives one Execution with a strategy
// until the strategy runs out or a limit cuts the search, hands every finished execution
// to the checkers and the caller's callback, tallies the result, and, in a parallel
// optimal search, carves units for other threads and processes and takes their runs in
// the one-job order. Its state is one Search; each step of the loop is one of its
// methods.
#include "scheduler/explore/explore_search.hpp"

#include <algorithm>
#include <any>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "scheduler/explore/cluster.hpp"
#include "scheduler/runtime/crash_report.hpp"
#include "scheduler/runtime/execution.hpp"
#include "scheduler/explore/explore_internal.hpp"
#include "scheduler/explore/explore_units.hpp"
#include "scheduler/explore/replay_flags.hpp"
#include "scheduler/search/strategy.hpp"

namespace atomcheck::detail {

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

using Clock = std::chrono::steady_clock;

// One search: its state, and the steps of its loop as methods.
class Search {
 public:
  Search(const Program& program, const ExploreOptions& given,
         const std::function<void(const ExecutionView&)>& on_execution, Cluster* cluster);
  ExploreResult run();

 private:
  void choose_equivalence();
  void make_strategy();
  bool resume();
  void walk(int times);
  void checkpoint(bool finished);
  bool checkpoint_due(Clock::time_point now) const {
    return options_.checkpoint && options_.checkpoint_every > 0 &&
           std::chrono::duration<double>(now - last_checkpoint_).count() >= options_.checkpoint_every;
  }
  StopReason time_or_interrupt() const;
  bool must_stop();
  void before_next();
  void give(std::unique_ptr<Strategy> st, std::uint64_t ahead);
  int carve_for(std::uint64_t ahead);
  void carve() { carve_for(r_.executions + (draining_ ? draining_->count - next_run_ : 0)); }
  bool next(UnitRun*& urun);
  UnitRun* reach(int at);
  bool take(const UnitRun& urun, EndKind& end, bool& redundant);
  bool run_own(EndKind& end, bool& redundant);
  bool report(UnitRun* urun, EndKind end, bool redundant);
  ExploreResult finish();

  const Program& program_;
  const std::function<void(const ExecutionView&)>& on_execution_;
  Cluster* cluster_;
  const Clock::time_point start_ = Clock::now();
  const ExploreOptions options_;
  // A fatal signal in the body prints the execution's schedule before the process dies.
  CrashScope crash_report_;
  ExploreResult r_;
  Judges judges_;
  bool tso_ = false;
  bool finished_ = false;  // resumed from a state of an ended search: r_ is its result
  std::unique_ptr<Strategy> strategy_;
  std::uint64_t limit_ = 0;
  std::unique_ptr<Execution> exec_;
  // Size estimate of exhaustive searches (Knuth's estimator over the DFS tree, with the
  // same bounds): a few walks first, then one walk every 64 executions refines it. For
  // DPOR the DFS size is an upper bound on the executions the reduction will run.
  bool exhaustive_ = false;
  std::unique_ptr<Execution> walker_;
  std::unique_ptr<EstimateStrategy> estimator_;
  // The estimator before the walks made at `walked_at_` executions: a checkpoint taken
  // where a unit is reached (reach()) is of the state before that execution's walks,
  // which the resumed search makes again.
  std::vector<std::uint64_t> unwalked_;
  double unwalked_estimate_ = 0;
  std::uint64_t walked_at_ = std::numeric_limits<std::uint64_t>::max();
  // Parallel (optimal): units carved from the search, in the order carved, not yet
  // reached; the one whose runs the search is taking (declared before `units_`, whose
  // threads use them: destroyed after it).
  std::vector<std::unique_ptr<Unit>> carved_;
  std::unique_ptr<Unit> draining_;
  int draining_id_ = 0;  // Strategy::unit_reached()'s; its slot in `carved_` stays (empty) until joined
  std::size_t next_run_ = 0;
  bool draining_compared_ = false;  // its first unaborted run was compared with `previous_`
  std::vector<std::size_t> changed_;  // Strategy::changed_units
  std::unique_ptr<Units> units_;
  KeySet class_set_, rf_co_set_;
  // While the search takes a unit's runs its state is no one-job search's (it holds the
  // unit's nodes but not yet the insertions the unit made above its root), so a
  // checkpoint then is `reached_`, the state where it reached the unit, before the
  // unit's runs were tallied; the resumed search explores that branch itself. Its keys
  // are the live ones less those the unit's runs added: copying every key at every unit
  // reached would cost a search of millions of classes more than this.
  bool keep_reached_ = false;
  SearchState reached_;  // all but the keys
  std::vector<std::uint64_t> reached_new_classes_, reached_new_rf_co_;
  bool checkpointed_stop_ = false;  // a stop it can resume from was saved
  Clock::time_point last_checkpoint_ = start_;
  std::uint64_t blocked_before_ = 0;  // the strategy's count of sleep-blocked runs (a resumed DPOR's)
  // The previous execution, for the determinism check.
  History previous_;
  std::vector<Event> previous_events_;
  bool have_previous_ = false, last_is_strategy_run_ = false;
  RunFacts facts_;
  std::any prepared_;  // judges.prepare's result for an execution run here
  Clock::time_point last_progress_ = start_;
};

Search::Search(const Program& program, const ExploreOptions& given,
               const std::function<void(const ExecutionView&)>& on_execution, Cluster* cluster)
    : program_(program),
      on_execution_(on_execution),
      cluster_(cluster),
      options_(with_deadline(given, start_)),
      crash_report_({}, options_.step_timeout_seconds,
                    (options_.memory == MemoryModelKind::sc ? std::string()
                                                            : " --memory " + std::string(memory_model_name(options_.memory))) +
                        replay_flags(options_)),
      judges_(options_) {
  ensure_alt_stack();
  for (const std::string& name : options_.checkers) r_.checkers.emplace_back().name = name;
  tso_ = options_.memory == MemoryModelKind::tso;
  choose_equivalence();
  make_strategy();
  if (options_.resume && !resume()) return;
  exec_ = execution_for(options_);
  exhaustive_ = options_.strategy == StrategyKind::dfs || options_.strategy == StrategyKind::dpor ||
                options_.strategy == StrategyKind::optimal;
  if (exhaustive_) {
    walker_ = execution_for(options_);
    estimator_ = std::make_unique<EstimateStrategy>(options_.seed, options_.preemption_bound);
    if (options_.resume && !estimator_->load(options_.resume->estimator))
      throw std::invalid_argument("the checkpoint's size estimate does not fit the search (damaged?)");
  }
  if (cluster_) {
    ++cluster_->serial;
    const std::uint64_t join[] = {cluster_->serial, kJoinUnits, static_cast<std::uint64_t>(options_.memory),
                                  static_cast<std::uint64_t>(r_.equivalence), tso_ ? 1u : 0u,
                                  (on_execution_ ? 1u : 0u) | (options_.checkers.empty() ? 0u : 2u)};
    for (int k = 1; k < cluster_->size(); ++k) cluster_->send(k, ClusterTag::join, join);
  }
  if ((options_.jobs > 1 || cluster_) && options_.strategy == StrategyKind::optimal)
    units_ = std::make_unique<Units>(program_, options_, tso_, r_.equivalence, bool(on_execution_), cluster_);
  if (options_.resume) {
    for (std::uint64_t k : options_.resume->class_keys) class_set_.insert(k);
    for (std::uint64_t k : options_.resume->rf_co_keys) rf_co_set_.insert(k);
    if (options_.count_classes && (class_set_.size() != r_.classes || rf_co_set_.size() != r_.rf_co_classes))
      throw std::invalid_argument("the checkpoint's class keys do not match its class counts (damaged?)");
  }
  keep_reached_ = options_.checkpoint && units_;
  blocked_before_ = strategy_->sleep_blocked();
}

// The coarsest equivalence the observers allow: rf+co, unless a checker reads the trace
// tau of a TSO execution (its verdict depends on the order of issues). Under SC the two
// coincide. Source-DPOR keeps its own, finer relation under TSO.
void Search::choose_equivalence() {
  ExploreResult& r = r_;
  r.equivalence = options_.equivalence;
  r.sampled = strategy_samples(options_.strategy);
  r.preemption_bound = options_.preemption_bound;
  if (r.equivalence == Equivalence::automatic || r.equivalence == Equivalence::step_order) {
    r.equivalence = Equivalence::rf_co;
    for (const std::string& name : options_.checkers)
      if (checker_needs_issue_order(name)) r.equivalence = Equivalence::issue_order;
    // The trace TSO deciders were seen to change verdict within an issue-order class (a
    // random program with failed compare-exchanges; tests/test_dpor_optimal.cpp): until
    // that is understood they get the step order, the relation of the previous releases.
    for (const std::string& name : options_.checkers)
      if (name.rfind("trace-tso", 0) == 0) r.equivalence = Equivalence::step_order;
  }
  if (!tso_) r.equivalence = Equivalence::rf_co;
  if (tso_ && options_.strategy == StrategyKind::dpor) r.equivalence = Equivalence::step_order;
}

void Search::make_strategy() {
  const ExploreOptions& options = options_;
  limit_ = options.max_executions.value_or(kDefaultMaxExecutions);
  // Random and pct read the count as their sample size: it is the strategy's natural end,
  // not a cut. 0 (unlimited) samples until the time limit or an interrupt.
  const std::uint64_t samples = options.max_executions.value_or(kDefaultSamples);
  StrategyParams p;
  p.seed = options.seed;
  p.samples = samples;
  p.preemption_bound = options.preemption_bound;
  p.pct_depth = options.pct_depth;
  p.replay = options.replay;
  p.equivalence = r_.equivalence;
  p.tso = tso_;
  p.check_units = options.units_inline > 0;
  // Under rc11 `optimal` is TruSt (or DFS over the choices with the Execution's graph cut).
  const bool rc11_optimal = options.strategy == StrategyKind::optimal && graph_memory(options);
  strategy_ = !rc11_optimal            ? atomcheck::make_strategy(options.strategy, p)
              : options.rc11_revisits ? atomcheck::make_trust_strategy()
                                      : atomcheck::make_strategy(StrategyKind::dfs, StrategyParams{});
  if (strategy_samples(options.strategy)) limit_ = 0;
  // A preemption bound prunes DPOR's backtrack sets unsoundly (a bounded execution may
  // be the only representative of its class; Coons et al., OOPSLA 2013), so it is a
  // DFS-only option; sampling strategies have no bound to respect.
  if (options.preemption_bound >= 0 && options.strategy != StrategyKind::dfs &&
      options.strategy != StrategyKind::replay)
    throw std::invalid_argument(
        "the preemption bound applies to the dfs strategy only (set ExploreOptions::strategy = "
        "StrategyKind::dfs; the default is optimal DPOR)");
  // Checkpoints: refused for a strategy that cannot save its state, before any work.
  if (options.checkpoint || options.resume) {
    std::vector<std::uint64_t> probe;
    if (!strategy_->save(probe))
      throw std::invalid_argument(fmt::format("the {} strategy cannot be checkpointed",
                                              strategy_name(options.strategy)));
  }
}

// The tallies and the strategy's state from options_.resume. False: the search had
// ended, and r_ is its result.
bool Search::resume() {
  const SearchState& from = *options_.resume;
  ExploreResult& r = r_;
  if (from.result.checkers.size() != options_.checkers.size())
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
    if (options_.checkpoint) options_.checkpoint(from);
    finished_ = true;
    return false;
  }
  if (!strategy_->load(from.strategy))
    throw std::invalid_argument(fmt::format("the checkpoint's {} state does not fit the search (damaged?)",
                                            strategy_name(options_.strategy)));
  r.stop = StopReason::none;
  r.error.clear();
  return true;
}

void Search::walk(int times) {
  if (options_.checkpoint) {
    unwalked_.clear();
    estimator_->save(unwalked_);
    unwalked_estimate_ = r_.estimate;
    walked_at_ = r_.executions;
  }
  for (int i = 0; i < times; ++i) {
    estimator_->begin_execution();
    walker_->run(program_, *estimator_);
  }
  r_.estimate = estimator_->mean();
}

// The state between two executions (where every stop is taken): the tallies, the
// strategy's and the estimator's state, the keys.
void Search::checkpoint(bool finished) {
  if (draining_ && !finished) {
    auto keys_before = [](const KeySet& live, std::vector<std::uint64_t>& added, std::vector<std::uint64_t>& out) {
      std::sort(added.begin(), added.end());
      live.append_to(out);
      std::erase_if(out, [&](std::uint64_t k) { return std::binary_search(added.begin(), added.end(), k); });
    };
    SearchState st = reached_;
    st.result.stop = r_.stop;
    keys_before(class_set_, reached_new_classes_, st.class_keys);
    keys_before(rf_co_set_, reached_new_rf_co_, st.rf_co_keys);
    options_.checkpoint(st);
    return;
  }
  SearchState st;
  st.result = r_;
  st.result.elapsed_seconds = 0;
  st.finished = finished;
  strategy_->save(st.strategy);
  if (estimator_) estimator_->save(st.estimator);
  class_set_.append_to(st.class_keys);
  rf_co_set_.append_to(st.rf_co_keys);
  options_.checkpoint(st);
}

// Why the search must stop now, but for its budget of executions (none: StopReason::none).
StopReason Search::time_or_interrupt() const {
  if (options_.time_limit_seconds > 0 &&
      std::chrono::duration<double>(Clock::now() - start_).count() >= options_.time_limit_seconds)
    return StopReason::time_limit;
  if (options_.interrupt && options_.interrupt->load(std::memory_order_relaxed)) return StopReason::interrupted;
  return StopReason::none;
}

// Before each execution: progress, a checkpoint due, and the stops (true: stop now).
bool Search::must_stop() {
  if (options_.progress && (r_.executions & 15) == 0) {
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_progress_).count() >= options_.progress_interval) {
      last_progress_ = now;
      ExploreProgress p;
      p.executions = r_.executions;
      p.elapsed_seconds = std::chrono::duration<double>(now - start_).count();
      p.depth = exec_->steps();
      p.estimate = r_.estimate;
      options_.progress(p);
    }
  }
  // Not while taking a unit's runs: `reached_` is older than the last checkpoint may be.
  if (!draining_) {
    const auto now = Clock::now();
    if (checkpoint_due(now)) {
      last_checkpoint_ = now;
      checkpoint(false);
    }
  }
  if (limit_ && r_.executions >= limit_) r_.stop = StopReason::max_executions;
  else r_.stop = time_or_interrupt();
  if (r_.stop == StopReason::none) return false;
  // Saved before the estimator's walk after the loop, which a resumed search makes where
  // the uninterrupted one makes it.
  if (options_.checkpoint) {
    checkpoint(false);
    checkpointed_stop_ = true;
  }
  return true;
}

// Between two executions: the previous one kept, the estimator's walks, other processes'
// messages, and the end of a unit whose runs are all taken.
void Search::before_next() {
  // The walks start after the first execution, so that one is the program's very first
  // run (a program that is not deterministic is caught on the second); a few first, the
  // rest once the search proves not tiny, so small searches pay little. The last
  // execution becomes the previous one: swapped, not copied (the search's inner loop),
  // before any estimator walk reuses the execution's buffers.
  if (last_is_strategy_run_) {
    exec_->swap_record(previous_, previous_events_);
    have_previous_ = true;
    last_is_strategy_run_ = false;
  }
  if (estimator_ && r_.executions == 1) walk(4);
  if (estimator_ && r_.executions == 16) walk(kInitialWalks - 4);
  if (estimator_ && r_.executions > 64 && r_.executions % 64 == 0) walk(1);
  if (units_) units_->poll();
  if (draining_ && next_run_ == draining_->count) {
    if (draining_->thrown) std::rethrow_exception(draining_->thrown);
    if (draining_->has_last) {
      // Copied, not swapped: the unit's buffers live in its thread's malloc arena, and
      // the search rewrites `previous_` every execution (swap_record), beside memory
      // that thread writes (false sharing; see OptimalStrategy::join_unit).
      previous_ = draining_->last;
      previous_events_ = draining_->last_events;
      have_previous_ = true;
    }
    strategy_->join_unit(draining_id_, draining_->strategy.get());
    carved_.erase(carved_.begin() + (std::abs(draining_id_) - 1));
    blocked_before_ = strategy_->sleep_blocked();
    units_->recycle(*draining_);
    draining_.reset();
  }
}

// A unit for an idle thread. Also while the search takes a unit's runs: the strategy
// stands where it reached the unit (it joins it after the last run), a point where it
// may carve, and a thread that stopped for the search would otherwise wait out the whole
// hand-over. With the carving at a take-over (carve_from_unit) and the spin before a
// thread sleeps, lastzero-12's unit thread waits 2-5 ms per run, not 8-16. `ahead`: the
// executions the search takes before the unit's.
void Search::give(std::unique_ptr<Strategy> st, std::uint64_t ahead) {
  auto u = std::make_unique<Unit>();
  u->strategy = std::move(st);
  u->most = !limit_ ? std::numeric_limits<std::uint64_t>::max() : limit_ > ahead ? limit_ - ahead : 0;
  units_->give(u.get());
  carved_.push_back(std::move(u));
}

// 1: gave one; 0: a thread or rank is idle and there is nothing to carve; -1: none is.
int Search::carve_for(std::uint64_t ahead) {
  if (!units_->hungry(carved_.size())) return -1;
  auto st = strategy_->carve_unit();
  if (!st) return 0;
  give(std::move(st), ahead);
  return 1;
}

// The next execution: a unit's next run (`urun`), or the strategy's (maybe a unit's
// first, which makes it a unit's run). False: the strategy has nothing left.
bool Search::next(UnitRun*& urun) {
  if (draining_) {
    carve();
    urun = &draining_->run(next_run_++);
    return true;
  }
  if (!strategy_->begin_execution()) return false;
  if (!units_) return true;
  strategy_->changed_units(changed_);
  for (std::size_t i : changed_) {
    carved_[i]->changed = true;
    units_->cancel(*carved_[i]);
  }
  changed_.clear();
  carve();
  if (const int at = strategy_->unit_reached()) urun = reach(at);
  return true;
}

// The search reached unit `at` (Strategy::unit_reached()): its first run, or nullptr
// when the search explores the branch itself.
UnitRun* Search::reach(int at) {
  const auto i = static_cast<std::size_t>(std::abs(at) - 1);
  if (at > 0)
    units_->wait_for(
        *carved_[i], [&] { return carve_for(r_.executions + carved_[i]->count); },
        [&] { return time_or_interrupt() != StopReason::none || checkpoint_due(Clock::now()); });
  std::unique_ptr<Unit> u = std::move(carved_[i]);
  const bool ran = units_->reach(*u);
  if (at > 0 && ran && !u->count && u->thrown) std::rethrow_exception(u->thrown);
  units_->taken(*u);
  if (at < 0 || !ran || !u->count) {  // the search explores the branch itself
    strategy_->join_unit(at, nullptr);
    carved_.erase(carved_.begin() + static_cast<std::ptrdiff_t>(i));
    units_->recycle(*u);
    ++r_.parallel.discarded;
    r_.parallel.cancelled += u->changed;
    return nullptr;
  }
  if (keep_reached_) {
    reached_ = SearchState{};
    reached_.result = r_;
    reached_.result.elapsed_seconds = 0;
    strategy_->save_begun(reached_.strategy);
    if (walked_at_ == r_.executions) {
      reached_.estimator = unwalked_;
      reached_.result.estimate = unwalked_estimate_;
    } else if (estimator_) {
      estimator_->save(reached_.estimator);
    }
    reached_new_classes_.clear();
    reached_new_rf_co_.clear();
  }
  ++r_.parallel.units;
  r_.parallel.unit_executions += u->count;
  if (!u->complete) {
    ++r_.parallel.taken_over;
    // (Not from a unit whose body threw: its strategy stopped inside an execution, and
    // the search rethrows once it has taken the runs before.)
    if (!u->thrown && units_->hungry(carved_.size()))
      if (auto st = strategy_->carve_from_unit(*u->strategy)) give(std::move(st), r_.executions + u->count);
    strategy_->continue_unit(at, *u->strategy, u->remote);
  }
  draining_ = std::move(u);
  draining_id_ = at;
  next_run_ = 0;
  draining_compared_ = false;
  return &draining_->run(next_run_++);
}

// A unit's run: the unit made the checks between its own runs; its first is compared
// here with the search's previous one, as one job would. False: the search stops.
bool Search::take(const UnitRun& urun, EndKind& end, bool& redundant) {
  end = urun.end;
  const UnitRunRest* rest = urun.full ? urun.rest.get() : nullptr;
  if (rest && !rest->spin_wait.empty() && !r_.reduction_incomplete) {
    r_.reduction_incomplete = true;
    r_.reduction_incomplete_by = rest->spin_wait;
  }
  if (rest && !rest->error.empty()) {
    r_.error = rest->error;
    r_.stop = StopReason::nondeterministic;
    return false;
  }
  if (end != EndKind::aborted && !draining_compared_) {
    draining_compared_ = true;
    if (have_previous_) {
      std::string why = compare_with_previous(previous_, previous_events_, draining_->first, draining_->first_events);
      if (!why.empty()) {
        r_.error = std::move(why);
        r_.stop = StopReason::nondeterministic;
        return false;
      }
    }
  }
  redundant = urun.redundant;
  return true;
}

// The strategy's execution, run here. False: the search stops.
bool Search::run_own(EndKind& end, bool& redundant) {
  Execution& exec = *exec_;
  end = exec.run(program_, *strategy_);
  const History& h = exec.history();
  const std::vector<Event>& events = exec.trace().events;
  if ((options_.strategy == StrategyKind::dpor || options_.strategy == StrategyKind::optimal) && h.spins &&
      !r_.reduction_incomplete) {
    r_.reduction_incomplete = true;
    r_.reduction_incomplete_by = wait_text(h);
  }
  if (!strategy_->error().empty()) {
    r_.error = strategy_->error();
    r_.stop = exhaustive_ ? StopReason::nondeterministic : StopReason::bad_schedule;
    return false;
  }
  if (end != EndKind::aborted && options_.strategy != StrategyKind::replay) {
    if (have_previous_) {
      std::string why = compare_with_previous(previous_, previous_events_, h, events);
      if (!why.empty()) {
        r_.error = std::move(why);
        r_.stop = StopReason::nondeterministic;
        return false;
      }
    }
    last_is_strategy_run_ = true;
  }
  const std::uint64_t blocked_now = strategy_->sleep_blocked();
  redundant = blocked_now != blocked_before_;
  blocked_before_ = blocked_now;
  collect(facts_, end, exec, judges_, options_, tso_, r_.equivalence, bool(on_execution_),
          std::any_of(r_.checkers.begin(), r_.checkers.end(), [](const CheckerSummary& c) { return c.flagged == 0; }));
  return true;
}

// Tallies an execution (a unit's run when `urun`) and hands it to the callback. False:
// the search stops on it.
bool Search::report(UnitRun* urun, EndKind end, bool redundant) {
  const std::uint64_t index = r_.executions++;
  RunFacts& f = !urun ? facts_ : urun->full ? urun->rest->facts : unpack(*urun, *draining_, facts_);
  const std::size_t classes_before = class_set_.size(), rf_co_before = rf_co_set_.size();
  tally(r_, options_, index, f, class_set_, rf_co_set_);
  if (urun && keep_reached_) {
    if (class_set_.size() != classes_before) reached_new_classes_.push_back(f.class_hash);
    if (rf_co_set_.size() != rf_co_before) reached_new_rf_co_.push_back(f.rf_co_hash);
  }
  if (on_execution_) {
    if (!urun) exec_->materialize_names();
    ExecutionView view = view_of(f, end, urun ? *urun->rest->trace : exec_->trace(), index);
    if (urun) {
      if (judges_.prepare) view.prepared = &urun->rest->prepared;
    } else if (judges_.prepare) {
      prepared_.reset();
      judges_.prepare(view, prepared_);
      view.prepared = &prepared_;
    }
    view.sleep_blocked = redundant;
    on_execution_(view);
  }
  return !(options_.stop_on_failure &&
           (failed_end(end) ||
            std::any_of(f.verdicts.begin(), f.verdicts.end(), [](const Verdict& v) { return v.flags(); })));
}

ExploreResult Search::run() {
  if (finished_) return std::move(r_);
  for (;;) {
    if (must_stop()) break;
    before_next();
    UnitRun* urun = nullptr;
    if (!next(urun)) break;
    EndKind end;
    bool redundant;
    if (urun ? !take(*urun, end, redundant) : !run_own(end, redundant)) break;
    if (!report(urun, end, redundant)) {
      r_.stop = StopReason::failure;
      break;
    }
  }
  return finish();
}

ExploreResult Search::finish() {
  ExploreResult& r = r_;
  if (units_) units_->report(r.parallel);
  if (cluster_) {
    cluster_->units += r.parallel.remote_units;
    cluster_->taken_over += r.parallel.taken_over;
    cluster_->replayed += r.parallel.replayed;
  }
  units_.reset();  // stops the units still running
  if (r.error.empty() && !strategy_->error().empty()) {
    r.error = strategy_->error();
    r.stop = StopReason::bad_schedule;
  }
  if (estimator_ && estimator_->walks() == 0 && r.executions == 1 && r.error.empty()) walk(4);
  r.sleep_blocked += strategy_->sleep_blocked();
  r.bounded = r.bounded || strategy_->bounded();
  if (options_.checkpoint && !checkpointed_stop_) checkpoint(true);
  r.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  return std::move(r);
}

}  // namespace

ExploreResult run_search(const Program& program, const ExploreOptions& given,
                         const std::function<void(const ExecutionView&)>& on_execution, Cluster* cluster) {
  return Search(program, given, on_execution, cluster).run();
}

}  // namespace atomcheck::detail
