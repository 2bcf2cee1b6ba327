// explore(): drives one Execution with a strategy until the strategy runs out or a limit
// cuts the search, hands every finished execution to the checkers (created once, reset
// per execution) and to the caller's callback, and tallies the result. Also replay(),
// the program registry and the small formatting helpers of explore.hpp.
#include "scheduler/explore.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <stdexcept>
#include <tuple>

#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "scheduler/crash_report.hpp"
#include "scheduler/equivalence.hpp"
#include "scheduler/execution.hpp"
#include "scheduler/explore_samples.hpp"
#include "scheduler/strategy.hpp"

namespace atomcheck {

std::string_view failure_kind_name(FailureKind kind) {
  switch (kind) {
    case FailureKind::assertion: return "assertion";
    case FailureKind::exception: return "exception";
    case FailureKind::deadlock: return "deadlock";
    case FailureKind::step_bound: return "step bound";
    case FailureKind::usage: return "usage";
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
  const std::string_view name = search_end_name(end);
  switch (end) {
    case SearchEnd::exhausted: return std::string(name);
    case SearchEnd::sampled: return fmt::format("{}: {} executions drawn", name, r.executions);
    case SearchEnd::budget: return fmt::format("{}: the execution budget ran out after {} executions", name, r.executions);
    case SearchEnd::time: return fmt::format("{}: the time limit ran out after {:.1f} s", name, r.elapsed_seconds);
    case SearchEnd::interrupted: return fmt::format("{}: after {} executions", name, r.executions);
    case SearchEnd::bound:
      return r.bound_cut ? fmt::format("{}: the depth bound cut {} executions", name, r.bound_cut)
                         : fmt::format("{}: the preemption bound {} pruned schedules", name, r.preemption_bound);
    case SearchEnd::reduction_incomplete:
      return fmt::format("{}: {} (DPOR does not model this wait; --strategy dfs explores it)", name,
                         r.reduction_incomplete_by.empty() ? "a wait" : r.reduction_incomplete_by);
    case SearchEnd::nondeterministic:
    case SearchEnd::bad_schedule: return fmt::format("{}: {}", name, r.error);
    case SearchEnd::stop_on_failure: return fmt::format("{}: after the first failure", name);
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

std::optional<StrategyKind> strategy_from_name(std::string_view name) {
  if (name == "dfs") return StrategyKind::dfs;
  if (name == "dpor") return StrategyKind::dpor;
  if (name == "optimal") return StrategyKind::optimal;
  if (name == "random") return StrategyKind::random;
  if (name == "pct") return StrategyKind::pct;
  return std::nullopt;
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

std::string transition_text(const Transition& t) {
  return fmt::format("T{} {} #{}", t.thread, action_name(t.action), t.target);
}
std::string events_text(const std::vector<Event>& ev, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < ev.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += fmt::format("T{} {} #{}", ev[i].thread, op_name(ev[i].op), ev[i].target);
    if (is_access(ev[i].op)) out += fmt::format(" = {}", ev[i].value);
  }
  return out.empty() ? "nothing" : out;
}
bool same_event(const Event& a, const Event& b) {
  return a.op == b.op && a.thread == b.thread && a.target == b.target && a.value == b.value &&
         a.value2 == b.value2;
}

// The program must behave the same on the same schedule: while two executions take the
// same transitions, each step must offer the same enabled transitions and do the same
// things (events, values read). Comparing choice counts alone missed a body that changed
// a static: its second execution took a path with no choice at the point that differed.
// Returns a one-line error naming the step and both versions, or "".
std::string compare_with_previous(const History& prev, const std::vector<Event>& prev_ev,
                                  const History& now, const std::vector<Event>& now_ev) {
  const std::size_t n = std::min(prev.steps(), now.steps());
  auto text_of = [](std::span<const Transition> ts) {
    std::string out;
    for (const Transition& t : ts) out += (out.empty() ? "" : ", ") + transition_text(t);
    return out;
  };
  for (std::size_t i = 0; i < n; ++i) {
    auto a = prev.enabled_at(i), b = now.enabled_at(i);
    if (!std::equal(a.begin(), a.end(), b.begin(), b.end()))
      return fmt::format("the program is not deterministic: at step {} the enabled transitions were "
                         "[{}] in the previous execution and are [{}] now, after the same steps "
                         "(does some state outlive an execution?)",
                         i, text_of(a), text_of(b));
    if (!(prev.chosen[i] == now.chosen[i])) break;
    std::size_t pa = i ? prev.step_events_end[i - 1] : 0, pb = prev.step_events_end[i];
    std::size_t na = i ? now.step_events_end[i - 1] : 0, nb = now.step_events_end[i];
    bool same = pb - pa == nb - na;
    for (std::size_t k = 0; same && k < pb - pa; ++k) same = same_event(prev_ev[pa + k], now_ev[na + k]);
    if (!same)
      return fmt::format("the program is not deterministic: step {} ({}) did [{}] in the previous "
                         "execution and does [{}] now, after the same steps (does some state "
                         "outlive an execution?)",
                         i, transition_text(now.chosen[i]), events_text(prev_ev, pa, pb),
                         events_text(now_ev, na, nb));
  }
  return "";
}

// The checkers of one Execution (each exploring thread has its own), remade when the
// atomic sets a program declares change (in practice after its first execution only).
struct Judges {
  std::vector<std::unique_ptr<Checker>> checkers;
  CheckerOptions options;
  std::vector<Verdict> verdicts;
  Prepare prepare;  // this thread's ExploreOptions::make_prepare

  Judges(const ExploreOptions& o) : options(o.checker_options) {
    if (o.make_prepare) prepare = o.make_prepare();
    for (const std::string& name : o.checkers) {
      auto c = make_checker(name, o.checker_options);
      if (!c) throw std::invalid_argument(fmt::format("unknown checker '{}'", name));
      checkers.push_back(std::move(c));
    }
    verdicts.resize(checkers.size());
  }
  // Judges the execution (verdicts), or clears the verdicts of one no checker may judge.
  void judge(const ExploreOptions& o, detail::Execution& exec, bool judged) {
    verdicts.resize(checkers.size());  // collect() swaps them out
    if (!judged) {
      std::fill(verdicts.begin(), verdicts.end(), Verdict{});
      return;
    }
    if (!checkers.empty()) {
      const AtomicSets& declared = exec.atomic_sets();
      const AtomicSets& sets = declared == AtomicSets{} ? o.checker_options.atomic_sets : declared;
      if (!(sets == options.atomic_sets)) {
        options.atomic_sets = sets;
        for (std::size_t k = 0; k < checkers.size(); ++k) checkers[k] = make_checker(o.checkers[k], options);
      }
    }
    // SC checkers read the trace tau: the execution without its commits; TSO checkers
    // read the execution eta.
    for (std::size_t k = 0; k < checkers.size(); ++k) {
      Checker& c = *checkers[k];
      c.reset();
      for (const Event& e : exec.trace().events)
        if (e.op != Op::commit || c.wants_commits()) c.on_event(e);
      verdicts[k] = c.verdict();
    }
  }
};

// A depth-cut execution is a prefix, a pruned one is discarded: no checker judges them.
bool judged_end(detail::EndKind end) {
  return end != detail::EndKind::pruned && end != detail::EndKind::depth_cut &&
         end != detail::EndKind::spin_blocked;
}
bool failed_end(detail::EndKind end) {
  return end == detail::EndKind::failed || end == detail::EndKind::deadlock ||
         end == detail::EndKind::step_bound;
}

// The class keys of the execution `exec` holds (count_classes).
std::pair<std::uint64_t, std::uint64_t> class_keys_of(const detail::Execution& exec, bool tso,
                                                      Equivalence eq) {
  const std::uint64_t rf_co_hash = rf_co_key(exec.trace());
  // Under SC the reductions keep Mazurkiewicz's classes over dependent(), which are the
  // rf+co classes but for where a failed try_lock falls: count what they keep.
  switch (tso ? eq : Equivalence::step_order) {
    case Equivalence::step_order: return {class_key(exec.history()), rf_co_hash};
    case Equivalence::issue_order: return {issue_order_key(exec.history(), rf_co_hash), rf_co_hash};
    default: return {rf_co_hash, rf_co_hash};
  }
}

// What one execution adds to the result, wherever it ran.
struct RunFacts {
  detail::EndKind end = detail::EndKind::completed;
  std::uint64_t class_hash = 0, rf_co_hash = 0;
  std::uint64_t steps = 0, events = 0;
  Failure failure;          // failed ends: with its schedule
  Outcome outcome;          // completed ends
  std::vector<Verdict> verdicts;
  std::string schedule;     // set when a verdict flags, a callback needs it, or a spin was assumed
  std::string unmarked_spin;  // History::unmarked_spin
};

// What on_execution (and make_prepare's function) see of an execution.
ExecutionView view_of(const RunFacts& f, detail::EndKind end, const Trace& trace, std::uint64_t index) {
  ExecutionView view;
  view.index = index;
  view.trace = &trace;
  view.schedule = f.schedule;
  view.failure = failed_end(end) ? &f.failure : nullptr;
  view.outcome = end == detail::EndKind::completed ? &f.outcome : nullptr;
  view.verdicts = &f.verdicts;
  view.class_key = f.class_hash;
  view.rf_co_key = f.rf_co_hash;
  return view;
}

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
  if (options.count_classes && f.end != detail::EndKind::aborted) {
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

// Fills `f` from the execution `exec` just ran (checkers judged into `judges`).
// The schedule is formatted when `need_schedule`, or when a verdict flags and
// `want_flagged` (some checker has no first flagged execution yet).
void collect(RunFacts& f, detail::EndKind end, detail::Execution& exec, Judges& judges,
             const ExploreOptions& options, bool tso, Equivalence eq, bool need_schedule,
             bool want_flagged) {
  f.end = end;
  f.class_hash = f.rf_co_hash = 0;
  if (options.count_classes && end != detail::EndKind::aborted)
    std::tie(f.class_hash, f.rf_co_hash) = class_keys_of(exec, tso, eq);
  f.steps = exec.steps();
  f.events = exec.trace().size();
  if (failed_end(end)) {
    f.failure = exec.failure();
    f.failure.schedule = exec.schedule();
  }
  f.outcome.clear();
  if (end == detail::EndKind::completed) f.outcome = exec.outcome();
  judges.judge(options, exec, judged_end(end));
  std::swap(f.verdicts, judges.verdicts);
  f.schedule.clear();
  f.unmarked_spin = exec.history().unmarked_spin;
  if (need_schedule || !f.unmarked_spin.empty() || (want_flagged && std::any_of(f.verdicts.begin(), f.verdicts.end(), [](const Verdict& v) { return v.flags(); })))
    f.schedule = exec.schedule();
}

}  // namespace

namespace {

// A worker's run of a plan, waiting for the coordinator to take it. Records are
// recycled, so their vectors keep their capacity (allocating them per execution, on
// one thread and freeing them on another, cost more than the runs).
struct PlanRecord {
  Plan plan;
  std::atomic<bool> done{false};
  detail::EndKind end = detail::EndKind::completed;
  bool strategy_error = false;  // the worker's strategy stopped the run (not adoptable)
  bool speculative = false;     // a worker's guess (Strategy::speculate), not a prediction
  bool wanted = false;          // the coordinator waits for it: not to be evicted
  bool stale = false;           // refill(): queued, not (yet) in the latest prediction
  std::uint64_t key = 0;        // plan.key()
  History history;
  std::vector<Event> events;
  PlanNotes notes;
  RunFacts facts;
  Trace trace;  // with names, when the caller's callback needs it
  std::any prepared;  // ExploreOptions::make_prepare's result
};

// The coordinator of a parallel search (ExploreOptions::jobs > 1, a strategy with plans):
// the sequential search runs on the calling thread, unchanged, and takes each execution
// from a worker that ran its plan ahead of time when the strategy's adopt() accepts it
// (else it runs it itself). So the executions, their order, the counts and the report
// are those of one job; workers only move the cost of running programs, checkers, class
// keys and race analysis off the critical path. Workers take plans in the order the
// search will need them; plans live in a map by key (Plan::key, the forced prefix).
// The search's next execution is often a leaf that its last one inserted, which no
// prediction could name before adopting it: so a worker, after each run, also runs its
// guess at that leaf (Strategy::speculate). A guess is checked by adopt() exactly as a
// prediction is, so a wrong one costs a run, never a different answer.
class Pool {
 public:
  Pool(const Program& program, const ExploreOptions& options, const Strategy& strategy, bool tso,
       Equivalence eq, bool want_trace, detail::Execution& search_exec, Judges& search_judges)
      : program_(program), options_(options), strategy_(strategy), search_exec_(search_exec),
        search_judges_(search_judges), tso_(tso), eq_(eq), want_trace_(want_trace) {
    // More threads than cores only take cores from each other (the search waits for
    // workers that wait for a core): the answer is the same for every count, so the
    // workers are capped at the cores left beside the search's thread.
    const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
    for (unsigned w = 0; w + 1 < std::min(options.jobs, cores); ++w) {
      auto st = strategy.make_worker();
      auto judges = std::make_unique<Judges>(options);
      threads_.emplace_back([this, st = std::move(st), judges = std::move(judges)]() mutable {
        work(*st, *judges);
      });
    }
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_.store(true);
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  // Queues the plans of `strategy`'s next executions that no worker has yet, soonest
  // first: the queue is rebuilt in the order of the latest prediction (a run inserts
  // leaves that come before those predicted earlier; a worker taking the old order would
  // run far-off plans while the search runs the near ones itself). Queued plans that fell
  // out of the prediction stay behind it: they are still certain, only later.
  void refill(const Strategy& strategy) {
    strategy.predict(plans_, keys_, kAhead * threads_.size() + 2, held_fn_);
    std::size_t added = 0;
    {
      std::lock_guard<std::mutex> lock(m_);
      for (PlanRecord* r : queue_) r->stale = true;
      next_.clear();
      for (std::size_t i = 0; i < keys_.size(); ++i) {
        const std::uint64_t key = keys_[i];
        auto it = records_.find(key);
        if (it != records_.end()) {
          PlanRecord* r = it->second.get();
          if (r->stale) {
            r->stale = false;
            next_.push_back(r);
          }
          continue;
        }
        // Not held: predict() copied its plan (held_ names queued predictions only, all
        // in records_; a worker's guess of the same key is found above).
        next_.push_back(new_record(plans_[i], key, false));
        held_.insert(key);
        ++added;
      }
      for (PlanRecord* r : queue_) {
        if (!r->stale) continue;
        r->stale = false;
        if (next_.size() < kQueued * threads_.size()) {
          next_.push_back(r);
        } else {  // far off: withdrawn, to bound what waits (it is predicted again later)
          drop(r->key);
        }
      }
      queue_.assign(next_.begin(), next_.end());
      queued_.store(queue_.size(), std::memory_order_relaxed);
    }
    if (added) work_cv_.notify_all();
  }

  // The worker's run of `plan`, if one was queued: waits while it runs; nullptr when
  // no worker has it (it is then withdrawn from the queue).
  std::unique_ptr<PlanRecord> take(const Plan& plan) {
    const std::uint64_t key = plan.key();
    std::unique_lock<std::mutex> lock(m_);
    auto it = records_.find(key);
    if (it == records_.end() || !(it->second->plan.forced == plan.forced)) return nullptr;
    PlanRecord* rec = it->second.get();
    auto q = std::find(queue_.begin(), queue_.end(), rec);
    if (q != queue_.end()) {
      queue_.erase(q);
      queued_.store(queue_.size(), std::memory_order_relaxed);
      drop(key);
      return nullptr;
    }
    held_.erase(key);
    rec->wanted = true;  // a worker's guess: not to be evicted now
    // While a worker runs it, run the plan needed last (from the back of the queue), as
    // a worker would: waiting would leave this core idle. Runs are short (micro- to
    // milliseconds): with nothing queued, spin a little before sleeping.
    while (!rec->done.load(std::memory_order_acquire)) {
      if (!queue_.empty()) {
        PlanRecord* mine = queue_.back();
        queue_.pop_back();
        queued_.store(queue_.size(), std::memory_order_relaxed);
        lock.unlock();
        if (!helper_) helper_ = strategy_.make_worker();
        run_plan(*mine, search_exec_, *helper_, search_judges_);
        lock.lock();
        continue;
      }
      lock.unlock();
      for (int i = 0; i < spin_ && !rec->done.load(std::memory_order_acquire); ++i) pause();
      lock.lock();
      done_cv_.wait(lock, [&] { return rec->done.load(std::memory_order_acquire); });
    }
    it = records_.find(key);  // found again: workers' guesses may have rehashed the map
    std::unique_ptr<PlanRecord> out = std::move(it->second);
    records_.erase(it);
    return out;
  }
  // A record the coordinator has finished with, for reuse.
  void give_back(std::unique_ptr<PlanRecord> rec) {
    if (!rec) return;
    std::lock_guard<std::mutex> lock(m_);
    free_.push_back(std::move(rec));
  }

 private:
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  void work(Strategy& strategy, Judges& judges) {
    detail::ensure_alt_stack();
    detail::Execution exec(options_.memory, options_.stack_size, options_.max_steps, options_.spin_threshold);
    exec.set_spurious_wakeups(options_.spurious_wakeups);
    exec.set_depth_bound(options_.depth_bound);
    Plan spec_plan;
    std::vector<Plan> later;  // Strategy::later() of the runs since the last queue_later()
    std::deque<std::pair<std::uint64_t, PlanRecord*>> guesses;  // this worker's, oldest first
    for (;;) {
      PlanRecord* rec = nullptr;
      {
        for (int i = 0; i < spin_ && queued_.load(std::memory_order_relaxed) == 0 &&
                        !stop_.load(std::memory_order_relaxed);
             ++i)
          pause();
        std::unique_lock<std::mutex> lock(m_);
        work_cv_.wait(lock, [&] { return stop_.load() || !queue_.empty(); });
        if (stop_.load()) return;
        rec = queue_.front();
        queue_.pop_front();
        queued_.store(queue_.size(), std::memory_order_relaxed);
      }
      // Then the run's likely successor, and its successor, while the guesses last: the
      // search needs them next and could not have predicted them before adopting the run.
      bool guess = run_plan(*rec, exec, strategy, judges, &spec_plan, &later);
      for (int chain = 0; guess && chain < kChain && !stop_.load(std::memory_order_relaxed); ++chain) {
        PlanRecord* next = claim_guess(spec_plan, guesses);
        if (!next) break;
        guess = run_plan(*next, exec, strategy, judges, &spec_plan, &later);
      }
      queue_later(later);
    }
  }
  // Queues `plans` (later executions, certain if the runs that named them are the
  // search's) behind everything, for whoever would otherwise wait; at most kLater of
  // them are kept, the oldest forgotten first.
  void queue_later(std::vector<Plan>& plans) {
    if (plans.empty()) return;
    {
      std::lock_guard<std::mutex> lock(m_);
      for (Plan& p : plans) {
        const std::uint64_t key = p.key();
        if (records_.count(key)) continue;
        while (later_.size() >= kLater) {
          auto [old_key, old] = later_.front();
          auto it = live(old_key, old);
          const bool is_live = it != records_.end();
          auto q = is_live ? std::find(queue_.begin(), queue_.end(), old) : queue_.end();
          // Not now: the search waits for it, or someone is running it.
          if (is_live && (old->wanted || (q == queue_.end() && !old->done.load(std::memory_order_relaxed)))) break;
          later_.pop_front();
          if (!is_live) continue;
          if (q != queue_.end()) queue_.erase(q);
          release(it);
        }
        if (later_.size() >= kLater) break;
        PlanRecord* r = new_record(p, key, true);
        queue_.push_back(r);
        later_.emplace_back(key, r);
      }
      queued_.store(queue_.size(), std::memory_order_relaxed);
    }
    plans.clear();
    work_cv_.notify_all();  // for the other workers, if any wait
  }
  using Records = std::unordered_map<std::uint64_t, std::unique_ptr<PlanRecord>>;
  // The entry of record `r` under `key`, or end() when it was taken or its key reused.
  Records::iterator live(std::uint64_t key, const PlanRecord* r) {
    auto it = records_.find(key);
    return it != records_.end() && it->second.get() == r ? it : records_.end();
  }
  // Forgets a record (kept for reuse); m_ held.
  void release(Records::iterator it) {
    free_.push_back(std::move(it->second));
    records_.erase(it);
  }
  // Forgets the search's prediction of `key`; m_ held, search's thread only (held_).
  void drop(std::uint64_t key) {
    release(records_.find(key));
    held_.erase(key);
  }
  // A record for `plan` (taken from it) under `key`, recycled when one is free; m_ held.
  PlanRecord* new_record(Plan& plan, std::uint64_t key, bool speculative) {
    std::unique_ptr<PlanRecord> rec;
    if (free_.empty()) {
      rec = std::make_unique<PlanRecord>();
    } else {
      rec = std::move(free_.back());
      free_.pop_back();
    }
    std::swap(rec->plan, plan);
    rec->key = key;
    rec->done.store(false, std::memory_order_relaxed);
    rec->speculative = speculative;
    rec->wanted = false;
    rec->stale = false;
    PlanRecord* out = rec.get();
    records_.emplace(key, std::move(rec));
    return out;
  }
  // Registers `plan` as a worker's guess being run (unless it is known already), evicting
  // the worker's oldest guesses that the search never asked for.
  PlanRecord* claim_guess(Plan& plan, std::deque<std::pair<std::uint64_t, PlanRecord*>>& guesses) {
    const std::uint64_t key = plan.key();
    std::lock_guard<std::mutex> lock(m_);
    if (records_.count(key)) return nullptr;
    while (guesses.size() >= kGuesses) {
      auto [old_key, old] = guesses.front();
      guesses.pop_front();
      auto it = live(old_key, old);
      if (it != records_.end() && !old->wanted) release(it);
    }
    PlanRecord* out = new_record(plan, key, true);
    guesses.emplace_back(key, out);
    return out;
  }
  // Runs rec's plan; with `guess`, also asks the strategy for the likely next execution
  // (before the record is handed over: the search may take its history at once).
  bool run_plan(PlanRecord& rec, detail::Execution& exec, Strategy& strategy, Judges& judges,
                Plan* guess = nullptr, std::vector<Plan>* later = nullptr) {
    strategy.set_plan(rec.plan);
    rec.end = exec.run(program_, strategy);
    rec.strategy_error = !strategy.error().empty();
    rec.notes = strategy.notes();
    const bool guessed = guess && !rec.strategy_error && strategy.speculate(exec.history(), *guess);
    if (later && !rec.strategy_error) strategy.later(exec.history(), *later, kLaterPerRun);
    collect(rec.facts, rec.end, exec, judges, options_, tso_, eq_, want_trace_, true);
    if (want_trace_) {
      exec.materialize_names();
      rec.trace = exec.trace();
      rec.prepared.reset();
      if (judges.prepare) judges.prepare(view_of(rec.facts, rec.end, rec.trace, 0), rec.prepared);
    }
    exec.swap_record(rec.history, rec.events);
    {
      std::lock_guard<std::mutex> lock(m_);
      rec.done.store(true, std::memory_order_release);
    }
    done_cv_.notify_all();
    return guessed;
  }
  // Plans predicted per refill (and per worker), and queued at most (per worker); guesses
  // a worker runs in a row before it takes queued plans again, and keeps unasked. Tuned
  // on lastzero-12, readers-15 and indexer-15 (bench/jobs_scaling.sh): predicting further
  // ahead cost the search more than it saved the workers.
  static constexpr std::size_t kAhead = 2;
  static constexpr std::size_t kQueued = 64;
  static constexpr int kChain = 8;
  static constexpr std::size_t kGuesses = 16;
  static constexpr std::size_t kLaterPerRun = 2;
  static constexpr std::size_t kLater = 64;
  const Program& program_;
  const ExploreOptions& options_;
  const Strategy& strategy_;
  // Spin iterations before sleeping: none when there are more threads than cores (a
  // spinning thread would take the core of the one it waits for).
  int spin_ = std::thread::hardware_concurrency() >= std::min(options_.jobs, 2u) ? 20000 : 0;
  // The strategy of the plans the search's thread runs while it waits. It runs them in
  // the search's own execution, with its checkers (between the search's runs, whose
  // records have been handed on by then), so that thread keeps one set of fiber stacks,
  // buffers and checker state warm instead of two.
  std::unique_ptr<Strategy> helper_;
  detail::Execution& search_exec_;
  Judges& search_judges_;
  bool tso_;
  Equivalence eq_;
  bool want_trace_;
  std::vector<Plan> plans_;
  std::vector<std::uint64_t> keys_;
  // The keys of the predictions queued or run and not yet taken: their plans need not be
  // copied out again. Read and written by the search's thread only (workers add and
  // evict guesses, never predictions), so predict() runs without the lock.
  std::unordered_set<std::uint64_t> held_;
  std::function<bool(std::uint64_t)> held_fn_ = [this](std::uint64_t k) { return held_.count(k) > 0; };
  std::mutex m_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<PlanRecord*> queue_;
  std::vector<PlanRecord*> next_;
  std::atomic<std::size_t> queued_{0};
  Records records_;
  std::vector<std::unique_ptr<PlanRecord>> free_;
  std::deque<std::pair<std::uint64_t, PlanRecord*>> later_;  // queue_later()'s, oldest first
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

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

ExploreResult explore(const Program& program, const ExploreOptions& given,
                      const std::function<void(const ExecutionView&)>& on_execution) {
  // Samples split across cores; exhaustive strategies take `jobs` below (the Pool).
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
    case StrategyKind::pct:
      strategy = make_pct_strategy(options.seed, options.pct_depth, samples ? samples : no_end);
      limit = 0;
      break;
    case StrategyKind::optimal: strategy = make_optimal_strategy(r.equivalence, tso); break;
  }
  // A preemption bound prunes DPOR's backtrack sets unsoundly (a bounded execution may
  // be the only representative of its class; Coons et al., OOPSLA 2013), so it is a
  // DFS-only option; sampling strategies have no bound to respect.
  if (options.preemption_bound >= 0 && options.strategy != StrategyKind::dfs &&
      options.strategy != StrategyKind::replay)
    throw std::invalid_argument("the preemption bound applies to the dfs strategy only");

  detail::Execution exec(options.memory, options.stack_size, options.max_steps, options.spin_threshold);
  exec.set_spurious_wakeups(options.spurious_wakeups);
  exec.set_depth_bound(options.depth_bound);

  // Size estimate of exhaustive searches (Knuth's estimator over the DFS tree, with the
  // same bounds): a few walks first, then one walk every 64 executions refines it. For
  // DPOR the DFS size is an upper bound on the executions the reduction will run.
  const bool exhaustive = options.strategy == StrategyKind::dfs ||
                          options.strategy == StrategyKind::dpor ||
                          options.strategy == StrategyKind::optimal;
  std::unique_ptr<detail::Execution> walker;
  std::unique_ptr<EstimateStrategy> estimator;
  auto walk = [&](int times) {
    for (int i = 0; i < times; ++i) {
      estimator->begin_execution();
      walker->run(program, *estimator);
    }
    r.estimate = estimator->mean();
  };
  if (exhaustive) {
    walker = std::make_unique<detail::Execution>(options.memory, options.stack_size, options.max_steps,
                                                 options.spin_threshold);
    walker->set_spurious_wakeups(options.spurious_wakeups);
    walker->set_depth_bound(options.depth_bound);
    estimator = std::make_unique<EstimateStrategy>(options.seed, options.preemption_bound);
  }
  std::unique_ptr<Pool> pool;
  if (options.jobs > 1 && strategy->plans())
    pool = std::make_unique<Pool>(program, options, *strategy, tso, r.equivalence, bool(on_execution), exec, judges);
  KeySet class_set, rf_co_set;
  std::uint64_t blocked_before = 0;
  // The previous execution, for the determinism check.
  History previous;
  std::vector<Event> previous_events;
  bool have_previous = false, last_is_strategy_run = false;
  std::unique_ptr<PlanRecord> last_adopted;
  Plan plan;  // the next execution's, for the pool (its storage reused)
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
    if (limit && r.executions >= limit) {
      r.stop = StopReason::max_executions;
      break;
    }
    if (options.time_limit_seconds > 0 &&
        std::chrono::duration<double>(Clock::now() - start).count() >= options.time_limit_seconds) {
      r.stop = StopReason::time_limit;
      break;
    }
    if (options.interrupt && options.interrupt->load(std::memory_order_relaxed)) {
      r.stop = StopReason::interrupted;
      break;
    }
    // The walks start after the first execution, so that one is the program's very
    // first run (a program that is not deterministic is caught on the second); a few
    // first, the rest once the search proves not tiny, so small searches pay little.
    // The last execution becomes the previous one: swapped, not copied (the search's
    // inner loop), before any estimator walk reuses the execution's buffers.
    if (last_is_strategy_run) {
      if (last_adopted) {
        std::swap(previous, last_adopted->history);
        std::swap(previous_events, last_adopted->events);
        pool->give_back(std::move(last_adopted));
      } else {
        exec.swap_record(previous, previous_events);
      }
      have_previous = true;
      last_is_strategy_run = false;
    }
    if (estimator && r.executions == 1) walk(4);
    if (estimator && r.executions == 16) walk(kInitialWalks - 4);
    if (estimator && r.executions > 64 && r.executions % 64 == 0) walk(1);
    if (!strategy->begin_execution()) break;

    // Parallel: the worker's run of this execution, when the strategy accepts it.
    std::unique_ptr<PlanRecord> rec;
    if (pool) {
      pool->refill(*strategy);
      strategy->current_plan(plan);
      rec = pool->take(plan);
      if (rec) ++(rec->speculative ? r.parallel.guessed : r.parallel.taken);
      if (rec && (rec->strategy_error || !strategy->adopt(rec->history, rec->notes))) {
        ++(rec->speculative ? r.parallel.wrong_guesses : r.parallel.refused);
        pool->give_back(std::move(rec));
      }
    }
    detail::EndKind end;
    if (rec) {
      end = rec->end;
    } else {
      end = exec.run(program, *strategy);
    }
    const History& h = rec ? rec->history : exec.history();
    const std::vector<Event>& events = rec ? rec->events : exec.trace().events;
    if ((options.strategy == StrategyKind::dpor || options.strategy == StrategyKind::optimal) &&
        h.spins && !r.reduction_incomplete) {
      r.reduction_incomplete = true;
      const std::string at = detail::call_site_name(h.wait_site);
      r.reduction_incomplete_by = fmt::format("{}{}", h.wait_construct, at.empty() ? "" : " at " + at);
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
    const std::uint64_t index = r.executions++;
    const std::uint64_t blocked_now = strategy->sleep_blocked();
    const bool redundant = blocked_now != blocked_before;
    blocked_before = blocked_now;

    if (!rec)
      collect(facts, end, exec, judges, options, tso, r.equivalence, bool(on_execution),
              std::any_of(r.checkers.begin(), r.checkers.end(),
                          [](const CheckerSummary& c) { return c.flagged == 0; }));
    RunFacts& f = rec ? rec->facts : facts;
    tally(r, options, index, f, class_set, rf_co_set);

    if (on_execution) {
      if (!rec) exec.materialize_names();
      ExecutionView view = view_of(f, end, rec ? rec->trace : exec.trace(), index);
      if (rec) {
        if (judges.prepare) view.prepared = &rec->prepared;
      } else if (judges.prepare) {
        prepared.reset();
        judges.prepare(view, prepared);
        view.prepared = &prepared;
      }
      view.sleep_blocked = redundant;
      on_execution(view);
    }
    if (rec) last_adopted = std::move(rec);

    if (options.stop_on_failure && failed_end(end)) {
      r.stop = StopReason::failure;
      break;
    }
  }
  pool.reset();
  if (r.error.empty() && !strategy->error().empty()) {
    r.error = strategy->error();
    r.stop = StopReason::bad_schedule;
  }
  if (estimator && estimator->walks() == 0 && r.executions == 1 && r.error.empty()) walk(4);
  r.sleep_blocked = strategy->sleep_blocked();
  r.bounded = r.bounded || strategy->bounded();
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
