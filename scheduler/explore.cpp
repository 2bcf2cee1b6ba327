// explore(): drives one Execution with a strategy until the strategy runs out or a limit
// cuts the search, hands every finished execution to the checkers (created once, reset
// per execution) and to the caller's callback, and tallies the result. Also replay(),
// the program registry and the small formatting helpers of explore.hpp.
#include "scheduler/explore.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <stdexcept>
#include <tuple>

#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "scheduler/cluster.hpp"
#include "scheduler/crash_report.hpp"
#include "scheduler/equivalence.hpp"
#include "scheduler/execution.hpp"
#include "scheduler/explore_samples.hpp"
#include "scheduler/strategy.hpp"
#include "scheduler/strategy_words.hpp"

namespace atomcheck {

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
  std::size_t po = 0, no = 0;  // into prev.options, now.options
  for (std::size_t i = 0; i < n; ++i) {
    auto a = prev.enabled_at(i), b = now.enabled_at(i);
    if (!std::equal(a.begin(), a.end(), b.begin(), b.end()))
      return fmt::format("the program is not deterministic: at step {} the enabled transitions were "
                         "[{}] in the previous execution and are [{}] now, after the same steps "
                         "(does some state outlive an execution?)",
                         i, text_of(a), text_of(b));
    if (!(prev.chosen[i] == now.chosen[i])) break;
    // The memory model's choices in this step must agree too (RC11).
    bool same_options = true;
    for (; po < prev.options.size() && prev.options[po].first == i; ++po, ++no)
      same_options = same_options && no < now.options.size() && now.options[no] == prev.options[po];
    if (!same_options || (no < now.options.size() && now.options[no].first == i)) break;
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
struct alignas(64) Judges {
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
  char pad_[64] = {};  // no neighbour shares its last cache line
};

// A depth-cut execution is a prefix, a pruned one is discarded: no checker judges them.
bool judged_end(detail::EndKind end) {
  return end != detail::EndKind::pruned && end != detail::EndKind::depth_cut &&
         end != detail::EndKind::spin_blocked && end != detail::EndKind::redundant;
}
bool failed_end(detail::EndKind end) {
  return end == detail::EndKind::failed || end == detail::EndKind::deadlock ||
         end == detail::EndKind::step_bound;
}

// The class keys of the execution `exec` holds (count_classes).
std::pair<std::uint64_t, std::uint64_t> class_keys_of(const detail::Execution& exec, bool tso,
                                                      Equivalence eq) {
  // Under RC11 the interleaving decides neither rf nor mo: the graph is the class.
  if (const std::uint64_t g = exec.graph_hash()) return {g, g};
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

// The reduction's wait outside its model, named for ExploreResult::reduction_incomplete_by.
std::string wait_text(const History& h) {
  const std::string at = detail::call_site_name(h.wait_site);
  return fmt::format("{}{}", h.wait_construct, at.empty() ? "" : " at " + at);
}

// An Execution with the search's settings: the search's, its estimator's, a unit thread's.
std::unique_ptr<detail::Execution> execution_for(const ExploreOptions& o) {
  auto x = std::make_unique<detail::Execution>(o.memory, o.stack_size, o.max_steps, o.spin_threshold);
  x->set_spurious_wakeups(o.spurious_wakeups);
  x->set_race_check(o.race_check);
  x->set_depth_bound(o.depth_bound);
  x->set_graph_reduction(o.memory == MemoryModelKind::rc11 && o.strategy == StrategyKind::optimal);
  return x;
}

// atomcheck-mpi. Runs per `runs` message: a few kB, so a unit's runs reach the search while it runs
// (the bound on what units hold for the search counts them) at one message per
// hundreds of executions.
constexpr std::size_t kRunsPerMessage = 256;
// Executions between two probes for messages, on rank 0 and in a unit: a stop waits for
// at most this many executions.
constexpr std::uint64_t kPollEvery = 4;
// Outcomes a unit's messages name by index (the rest are sent whole each time).
constexpr std::size_t kOutcomesSent = 64;

// What a unit's run needs beyond UnitRun's words: a failure, a schedule, a checker's
// verdicts, a trace for the callback, ... (most runs of `run` have none of it).
struct UnitRunRest {
  RunFacts facts;
  std::string spin_wait;   // the run spun in a wait the reduction does not model: which
  std::string error;       // the run stopped the unit: the strategy's error or the determinism check's
  // With names, when the caller's callback needs it (behind a pointer: a rest without it
  // is a quarter of the size; a reused rest keeps it).
  std::unique_ptr<Trace> trace;
  std::any prepared;       // ExploreOptions::make_prepare's result
};

// One execution a unit ran, with all the search needs to take it as its own. A unit may
// hold tens of thousands for the search (lastzero-15: 58,000 at once), so a run whose
// facts are counts, hashes and an outcome the unit saw before is these few words (48
// bytes); the rest, when there is any, is behind `rest` (issue 38: with every run a
// RunFacts, 344 bytes, two jobs peaked at 2.4x one job's memory on lastzero-15).
struct UnitRun {
  detail::EndKind end = detail::EndKind::completed;
  bool redundant = false;  // ExecutionView::sleep_blocked
  bool full = false;       // the facts are rest->facts, else these words and Unit::outcomes
  std::uint32_t outcome = 0;  // completed: its index in Unit::outcomes
  std::uint64_t class_hash = 0, rf_co_hash = 0;
  std::uint64_t steps = 0, events = 0;
  std::unique_ptr<UnitRunRest> rest;  // kept when the run is reused, for its capacity
};
// A pending branch of the search explored ahead of it (Strategy::carve_unit): its
// strategy and what it ran. Written by the unit's thread until `done`, then read by the
// search's.
struct alignas(64) Unit {
  std::unique_ptr<Strategy> strategy;
  std::uint64_t most = 0;           // executions it may run (what is left of the budget)
  // Its runs, run(0) to run(count - 1), in chunks that go to later units when the search
  // is done with them (Units::recycle): one growing vector took fresh pages at every
  // doubling (3,400 page faults on lastzero-12 where one job has 1,000), and a reused
  // run keeps its buffers' capacity.
  static constexpr std::size_t kChunk = 64;
  std::vector<std::unique_ptr<UnitRun[]>> chunks;
  std::size_t count = 0;
  UnitRun& run(std::size_t i) { return chunks[i / kChunk][i % kChunk]; }
  // The distinct outcomes of its compact runs (UnitRun::outcome), at most kOutcomes.
  static constexpr std::size_t kOutcomes = 16;
  std::vector<Outcome> outcomes;
  std::size_t held = 0;             // the bytes its runs count against Units::bound_
  bool complete = false;            // it ran the whole branch
  std::exception_ptr thrown;        // the body or make_prepare's function threw after `runs`
  // Its first and last executions that were not aborted: the search compares the first
  // with its own previous one, and compares its next one with the last.
  bool has_first = false, has_last = false;
  History first, last;
  std::vector<Event> first_events, last_events;
  std::atomic<bool> stop{false};    // the search reached it: stop after the current execution
  std::atomic<bool> done{false};
  bool started = false;             // a thread took it (guarded by Units' lock)
  bool remote = false;              // another process explores it (atomcheck-mpi)
  std::vector<Outcome> sent_outcomes;  // a remote unit's outcomes, as its messages number them
  bool changed = false;             // its branch changed (the search's; Units::cancel)
  char pad_[64] = {};  // no neighbour shares its last cache line
};

// The facts of `u`'s compact run `run`, into `f` (the search's scratch).
RunFacts& unpack(const UnitRun& run, const Unit& u, RunFacts& f) {
  f.end = run.end;
  f.class_hash = run.class_hash;
  f.rf_co_hash = run.rf_co_hash;
  f.steps = run.steps;
  f.events = run.events;
  if (run.end == detail::EndKind::completed) f.outcome = u.outcomes[run.outcome];
  f.verdicts.clear();
  f.schedule.clear();
  f.unmarked_spin.clear();
  return f;
}

// The threads of a parallel optimal search (ExploreOptions::jobs > 1). The search runs on
// the calling thread as with one job; when a unit thread is idle, the search carves a
// pending branch of its tree into a unit (plain data: a prefix, a sleep set, a wakeup
// subtree), which that thread explores with the sequential algorithm. When the search
// reaches the branch it takes the unit's executions, in the unit's order, through the
// same per-execution steps as its own (limits, determinism check, tally, callbacks), so
// the report is the one-job search's; if the unit is still running, it stops after its
// current execution and the search takes over the rest of the branch. Executions are
// handed over in batches, not one by one: per-execution hand-over cost the search about
// as much as running the executions (README, "Exploring on several cores").
class Units {
 public:
  // `cluster`: other processes that explore units too (atomcheck-mpi), each one at a time.
  Units(const Program& program, const ExploreOptions& options, bool tso, Equivalence eq, bool want_trace,
        detail::Cluster* cluster)
      : program_(program), options_(options), tso_(tso), eq_(eq), want_trace_(want_trace),
        cluster_(options.units_inline ? nullptr : cluster) {
    // More threads than cores only take cores from each other.
    const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
    const unsigned n = options.units_inline ? 0 : std::min(options.jobs, cores) - 1;
    if (cluster_)
      for (int r = 1; r < cluster_->size(); ++r) remote_.push_back(RemoteSlot{r});
    const unsigned workers = n + static_cast<unsigned>(remote_.size());
    remote_idle_ = static_cast<unsigned>(remote_.size());
    max_carved_ = options.units_inline ? 2 * options.jobs : kCarvedPerThread * workers;
    bound_ = options.units_held_bytes ? options.units_held_bytes
                                      : (want_trace ? kHeldTracedPerThread : kHeldPerThread) * std::max(workers, 1u);
    idle_.store(workers);
    if (options.units_inline) {
      inline_exec_ = execution_for(options);
      inline_judges_ = std::make_unique<Judges>(options);
    }
    for (unsigned w = 0; w < n; ++w) threads_.emplace_back([this] { work(); });
  }
  ~Units() {
    if (cluster_) {
      end_remote();
      cluster_->search_cpu += detail::thread_cpu_seconds() - cpu_at_start_;
      cluster_->search_waited += cluster_->waited - waited_at_start_;
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      stop_.store(true);
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  // Whether the search should carve a unit now: a thread waits for work.
  // Asked once per execution: idle_ first, which changes once per unit (held_ changes
  // once per run and lives on another cache line).
  bool hungry(std::size_t carved) const {
    return (inline_exec_ || idle_.load(std::memory_order_relaxed) > 0) && carved < max_carved_ &&
           queued_.load(std::memory_order_relaxed) == 0 && held_.load(std::memory_order_relaxed) < bound_;
  }
  void give(Unit* u) {
    if (inline_exec_) {  // ExploreOptions::units_inline: the unit runs now, here
      u->most = std::min<std::uint64_t>(u->most, options_.units_inline);
      u->started = true;
      try {
        run(*u, *inline_exec_, *inline_judges_, inline_facts_);
      } catch (...) {
        u->thrown = std::current_exception();
      }
      u->done = true;
      return;
    }
    // Another process when no thread of this one is idle: a thread costs no message.
    if (remote_idle_ > 0 && idle_.load(std::memory_order_relaxed) == remote_idle_) {
      send_unit(*u);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      queue_.push_back(u);
      queued_.store(queue_.size(), std::memory_order_relaxed);
    }
    work_cv_.notify_one();
  }
  // `u`'s branch changed (Strategy::changed_units): the search will explore it itself, so
  // a thread that runs it stops after its current execution, and a queued one is dropped.
  void cancel(Unit& u) {
    if (u.remote) {
      stop_remote(u);
      return;
    }
    std::lock_guard<std::mutex> lock(m_);
    if (u.started) {
      u.stop.store(true, std::memory_order_relaxed);
      return;
    }
    withdraw(u);
    u.started = true;  // reach() then finds it done, with no runs
    u.done.store(true, std::memory_order_relaxed);
  }
  // The search reached `u`: false when no thread had taken it (it is withdrawn); else
  // true once it is done (stopped after its current execution if still running).
  bool reach(Unit& u) {
    if (u.remote) {
      stop_remote(u);
      while (!u.done.load(std::memory_order_relaxed)) receive(true);
      return true;
    }
    std::unique_lock<std::mutex> lock(m_);
    if (!u.started) {
      withdraw(u);
      return false;
    }
    u.stop.store(true, std::memory_order_relaxed);
    done_cv_.wait(lock, [&] { return u.done.load(std::memory_order_relaxed); });
    return true;
  }
  // ExploreResult::Parallel's figures of the bound.
  void report(ExploreResult::Parallel& p) const {
    p.most_held = most_held_.load(std::memory_order_relaxed);
    p.largest_run = largest_run_.load(std::memory_order_relaxed);
    p.held_stops = held_stops_.load(std::memory_order_relaxed);
    p.held_bound = bound_;
    p.remote_units = remote_units_;
    p.remote_executions = remote_executions_;
    p.replayed = replayed_;
    if (cluster_) {
      p.messages = cluster_->messages - messages_before_;
      p.bytes = cluster_->bytes - bytes_before_;
    }
  }
  // Takes what other processes sent (their runs, their ended units), without waiting.
  // Every message comes from a busy process, and a probe costs a system call under some
  // transports (Open MPI yields the core in each probe when ranks share cores), so the
  // search probes only while some process explores a unit, every kPollEvery executions.
  void poll() {
    if (!cluster_ || remote_idle_ == remote_.size() || ++polls_ % kPollEvery != 0) return;
    while (receive(false)) {
    }
  }
  bool remote() const { return cluster_ != nullptr; }
  // The search took unit `u`'s runs.
  void taken(const Unit& u) { held_.fetch_sub(u.held, std::memory_order_relaxed); }
  // The search is done with `u`: its runs' storage goes to later units, and its strategy
  // is freed by a unit thread, whose malloc arena holds most of its memory (freed here,
  // that memory would come back through this thread's cache of free blocks and be
  // reused by the search beside memory the unit threads write).
  void recycle(Unit& u) {
    std::lock_guard<std::mutex> lock(m_);
    for (auto& c : u.chunks) spare_.push_back(std::move(c));
    u.chunks.clear();
    // (A unit another process explored was loaded here: nothing to hand back.)
    if (!inline_exec_ && u.strategy && !u.remote && !threads_.empty()) graveyard_.push_back(std::move(u.strategy));
    else u.strategy.reset();
  }

 private:
  void withdraw(Unit& u) {  // under m_
    queue_.erase(std::find(queue_.begin(), queue_.end(), &u));
    queued_.store(queue_.size(), std::memory_order_relaxed);
  }
  // ---- units in other processes (atomcheck-mpi, docs/mpi.md) --------------------------
  // A process explores one unit at a time: the search sends it the unit's words
  // (Strategy::save_unit), the process sends back its runs in batches, as the words of
  // UnitRun (encode_run in serve()), and at the end the unit's state, which the search
  // loads into its copy of the unit's strategy, so that it takes the runs, takes over
  // and joins exactly as for a thread. A run whose facts do not fit in words (a failure,
  // a verdict, a trace for the callback, a spin) comes as its schedule, and the search
  // runs it again here: the program is deterministic (the search checks it), and these
  // runs are few unless checkers judge every run.
  struct RemoteSlot {
    int rank = 0;
    Unit* unit = nullptr;    // the unit it explores (nullptr: idle)
    std::uint64_t id = 0;    // that unit's number in this search's messages
    bool stop_sent = false;
  };
  void send_unit(Unit& u) {
    RemoteSlot* s = nullptr;
    for (RemoteSlot& r : remote_)
      if (!r.unit) s = &r;
    words_.assign({cluster_->serial, ++next_id_, u.most});
    if (!u.strategy->save_unit(words_)) throw std::logic_error("a unit that cannot travel");
    cluster_->send(s->rank, detail::ClusterTag::unit, words_);
    {
      std::lock_guard<std::mutex> lock(m_);
      u.started = true;
    }
    u.remote = true;
    *s = RemoteSlot{s->rank, &u, next_id_, false};
    --remote_idle_;
    idle_.fetch_sub(1);
    ++remote_units_;
  }
  void stop_remote(Unit& u) {
    for (RemoteSlot& r : remote_)
      if (r.unit == &u && !r.stop_sent) {
        r.stop_sent = true;
        const std::uint64_t w[] = {cluster_->serial, r.id};
        cluster_->send(r.rank, detail::ClusterTag::stop, w);
      }
  }
  // One message, if one came (or, with `wait`, once one comes); false if none came.
  bool receive(bool wait) {
    int from = 0;
    detail::ClusterTag tag{};
    if (!cluster_->receive(from, tag, msg_, wait)) return false;
    RemoteSlot* s = nullptr;
    for (RemoteSlot& r : remote_)
      if (r.rank == from) s = &r;
    // A message of an earlier search, or of a unit already ended, is dropped.
    if (!s || !s->unit || msg_.size() < 2 || msg_[0] != cluster_->serial || msg_[1] != s->id) return true;
    Unit& u = *s->unit;
    detail::WordReader in{msg_};
    in.at = 2;
    if (tag == detail::ClusterTag::runs) {
      while (in.left() > 0)
        if (!take_run(u, in)) {
          u.thrown = std::make_exception_ptr(std::runtime_error(fmt::format("rank {} sent a damaged run", from)));
          break;
        }
    } else if (tag == detail::ClusterTag::done) {
      take_end(u, in, from);
      s->unit = nullptr;
      ++remote_idle_;
      idle_.fetch_add(1);
      u.done.store(true, std::memory_order_relaxed);
    }
    return true;
  }
  // Appends the run `in` holds to u's runs: false when the words are not a run.
  bool take_run(Unit& u, detail::WordReader& in) {
    std::uint64_t head = 0, ch = 0, rf = 0, steps = 0, events = 0;
    if (!in.word(head) || !in.word(ch) || !in.word(rf) || !in.word(steps) || !in.word(events) ||
        (head & 0xff) > static_cast<std::uint64_t>(detail::EndKind::redundant))
      return false;
    if (u.count == u.chunks.size() * Unit::kChunk) u.chunks.push_back(chunk());
    UnitRun& run = u.run(u.count++);
    run.end = static_cast<detail::EndKind>(head & 0xff);
    run.redundant = (head >> 8) & 1;
    run.full = false;
    run.class_hash = ch;
    run.rf_co_hash = rf;
    run.steps = steps;
    run.events = events;
    ++remote_executions_;
    const bool again = (head >> 9) & 1, error = (head >> 10) & 1, has_outcome = (head >> 11) & 1;
    facts_.outcome.clear();
    if (has_outcome) {
      std::uint64_t k = 0;
      if (!in.word(k) || k > u.sent_outcomes.size()) return false;
      if (k < u.sent_outcomes.size()) {
        facts_.outcome = u.sent_outcomes[k];
      } else {
        std::uint64_t n = 0;
        if (!in.word(n) || n > in.left()) return false;
        facts_.outcome.resize(n);
        for (auto& [name, value] : facts_.outcome) {
          std::uint64_t v = 0;
          if (!in.text(name) || !in.word(v)) return false;
          value = static_cast<std::int64_t>(v);
        }
        if (u.sent_outcomes.size() < kOutcomesSent) u.sent_outcomes.push_back(facts_.outcome);
      }
    }
    if (again || error) {
      if (!in.transitions(choices_)) return false;
    }
    if (error) {
      if (!in.text(make_full(run).error)) return false;
    } else if (again) {
      run_again(u, run);
    } else {
      facts_.end = run.end;
      if (!compact(u, run, facts_)) {
        RunFacts& f = make_full(run).facts;
        f = RunFacts{};
        f.end = run.end;
        f.class_hash = ch;
        f.rf_co_hash = rf;
        f.steps = steps;
        f.events = events;
        f.outcome = facts_.outcome;
      } else {
        run.rest.reset();
      }
    }
    if (hold(u, run)) stop_remote(u);
    return true;
  }
  // Runs choices_ here, for the facts its words do not carry.
  void run_again(Unit& u, UnitRun& run) {
    const detail::EndKind end = replay_choices();
    ++replayed_;
    UnitRunRest& rest = make_full(run);
    const History& h = replay_exec_->history();
    if (end != run.end) {
      rest.error = fmt::format(
          "the program is not deterministic: an execution another process ran ended differently when run "
          "again (schedule {})",
          format_schedule(choices_));
      return;
    }
    if (h.spins) rest.spin_wait = wait_text(h);
    collect(facts_, end, *replay_exec_, *replay_judges_, options_, tso_, eq_, want_trace_, true);
    std::swap(rest.facts, facts_);
    if (want_trace_) {
      replay_exec_->materialize_names();
      if (!rest.trace) rest.trace = std::make_unique<Trace>();
      *rest.trace = replay_exec_->trace();
      if (replay_judges_->prepare) replay_judges_->prepare(view_of(rest.facts, end, *rest.trace, 0), rest.prepared);
    }
    (void)u;
  }
  detail::EndKind replay_choices() {
    if (!replay_exec_) {
      replay_exec_ = execution_for(options_);
      replay_judges_ = std::make_unique<Judges>(options_);
    }
    const std::unique_ptr<Strategy> again = make_replay_strategy(format_schedule(choices_));
    again->begin_execution();
    return replay_exec_->run(program_, *again);
  }
  // The unit ended: its state, its first and last executions (run again here for the
  // determinism checks), whether it ran the whole branch, and what it threw.
  void take_end(Unit& u, detail::WordReader& in, int from) {
    std::uint64_t complete = 0, thrown = 0, first = 0, last = 0;
    std::string what;
    auto bad = [&] {
      u.thrown = std::make_exception_ptr(std::runtime_error(fmt::format("rank {} sent a damaged unit", from)));
    };
    if (!in.word(complete) || !in.word(thrown) || (thrown && !in.text(what))) return bad();
    if (!in.word(first) || (first && !in.transitions(choices_))) return bad();
    if (first) {
      replay_choices();
      replay_exec_->swap_record(u.first, u.first_events);
      u.has_first = true;
    }
    if (!in.word(last) || (last && !in.transitions(choices_))) return bad();
    if (last) {
      replay_choices();
      replay_exec_->swap_record(u.last, u.last_events);
      u.has_last = true;
    }
    if (!u.strategy->load_unit(in.in.subspan(in.at))) return bad();
    u.complete = complete != 0;
    if (thrown) u.thrown = std::make_exception_ptr(std::runtime_error(what));
  }
  // The search ended: each process drops its unit and says when nothing more will come.
  void end_remote() {
    const std::uint64_t w[] = {cluster_->serial};
    for (RemoteSlot& r : remote_) cluster_->send(r.rank, detail::ClusterTag::end, w);
    std::size_t ended = 0;
    int from = 0;
    detail::ClusterTag tag{};
    while (ended < remote_.size()) {
      cluster_->receive(from, tag, msg_, true);
      if (tag == detail::ClusterTag::ended && !msg_.empty() && msg_[0] == cluster_->serial) ++ended;
    }
  }

  // Runs at most u.most of the unit's executions with the search's per-execution checks.
  // `facts`: this thread's scratch, copied into a run only when it cannot be compact.
  void run(Unit& u, detail::Execution& x, Judges& judges, RunFacts& facts) {
    std::uint64_t blocked = 0;
    const Deadline deadline = options_.checker_options.deadline;
    for (;;) {
      if (u.stop.load(std::memory_order_relaxed) || stop_.load(std::memory_order_relaxed) ||
          u.count >= u.most || *deadline.expired())
        return;
      if (!u.strategy->begin_execution()) {
        u.complete = true;
        return;
      }
      const detail::EndKind end = x.run(program_, *u.strategy);
      if (u.count == u.chunks.size() * Unit::kChunk) u.chunks.push_back(chunk());
      UnitRun& run = u.run(u.count++);
      run.end = end;
      run.full = false;
      const History& h = x.history();
      std::string why = u.strategy->error();
      if (why.empty() && end != detail::EndKind::aborted) {
        if (u.has_last) {
          why = compare_with_previous(u.last, u.last_events, h, x.trace().events);
        } else {
          u.first = h;
          u.first_events = x.trace().events;
          u.has_first = true;
        }
      }
      if (h.spins || !why.empty()) {
        UnitRunRest& rest = make_full(run);
        if (h.spins) rest.spin_wait = wait_text(h);
        if (!why.empty()) {
          rest.error = std::move(why);
          hold(u, run);
          return;
        }
      }
      const std::uint64_t blocked_now = u.strategy->sleep_blocked();
      run.redundant = blocked_now != blocked;
      blocked = blocked_now;
      collect(facts, end, x, judges, options_, tso_, eq_, want_trace_, true);
      run.class_hash = facts.class_hash;
      run.rf_co_hash = facts.rf_co_hash;
      run.steps = facts.steps;
      run.events = facts.events;
      if (run.full || !compact(u, run, facts)) std::swap(make_full(run).facts, facts);
      else run.rest.reset();  // no memory held but what is counted
      if (want_trace_) {
        x.materialize_names();
        UnitRunRest& rest = *run.rest;  // full: compact() refuses a run the callback sees
        if (!rest.trace) rest.trace = std::make_unique<Trace>();
        *rest.trace = x.trace();
        if (judges.prepare) judges.prepare(view_of(rest.facts, end, *rest.trace, 0), rest.prepared);
      }
      if (end != detail::EndKind::aborted) {
        x.swap_record(u.last, u.last_events);
        u.has_last = true;
      }
      // Runs kept for the search are bounded: past the bound the unit stops, and the
      // search takes over what is left of the branch when it gets there.
      if (hold(u, run)) return;
      if (options_.stop_on_failure && failed_end(end)) return;
    }
  }
  // `run` keeps more than UnitRun's words (cleared for this run, capacity kept).
  static UnitRunRest& make_full(UnitRun& run) {
    if (!run.full) {
      if (!run.rest) run.rest = std::make_unique<UnitRunRest>();
      run.rest->spin_wait.clear();
      run.rest->error.clear();
      run.rest->prepared.reset();
      run.full = true;
    }
    return *run.rest;
  }
  // Whether `f` fits in `run`'s words: nothing for a callback, no failure, no schedule,
  // no verdict, and an outcome among the unit's first kOutcomes distinct ones.
  bool compact(Unit& u, UnitRun& run, const RunFacts& f) const {
    if (want_trace_ || failed_end(f.end) || !f.schedule.empty() || !f.unmarked_spin.empty() ||
        !f.verdicts.empty())
      return false;
    if (f.end != detail::EndKind::completed) return true;
    const auto it = std::find(u.outcomes.begin(), u.outcomes.end(), f.outcome);
    if (it == u.outcomes.end() && u.outcomes.size() == Unit::kOutcomes) return false;
    run.outcome = static_cast<std::uint32_t>(it - u.outcomes.begin());
    if (it == u.outcomes.end()) u.outcomes.push_back(f.outcome);
    return true;
  }
  // The bytes of a name table: its strings, their characters past the in-place buffer,
  // and its hash map's nodes (a string, an id, a link, a cached hash) and buckets.
  static std::size_t bytes_of(const NameTable& t) {
    std::size_t n = t.names.capacity() * sizeof(std::string) + t.ids.bucket_count() * sizeof(void*) +
                    t.ids.size() * (2 * sizeof(std::string) + 3 * sizeof(void*));
    for (const std::string& s : t.names) n += s.capacity() > 15 ? 2 * (s.capacity() + 1) : 0;
    return n;
  }
  // The bytes `run` holds: its words and the buffers that grow with the program (a
  // verdict's details and the callback's prepared work, opaque here, are left out).
  static std::size_t bytes_of(const UnitRun& run) {
    std::size_t n = sizeof(UnitRun);
    if (!run.full) return n;
    const UnitRunRest& r = *run.rest;
    const RunFacts& f = r.facts;
    n += sizeof(UnitRunRest) + f.failure.message.capacity() + f.failure.schedule.capacity() +
         f.outcome.capacity() * sizeof(Outcome::value_type) + f.verdicts.capacity() * sizeof(Verdict) +
         f.schedule.capacity() + f.unmarked_spin.capacity() + r.spin_wait.capacity() + r.error.capacity();
    if (r.trace) {
      const Names& m = r.trace->names;
      n += sizeof(Trace) + r.trace->events.capacity() * sizeof(Event) + bytes_of(m.threads) + bytes_of(m.vars) +
           bytes_of(m.locks) + bytes_of(m.labels) + bytes_of(m.locs);
    }
    return n;
  }
  // Counts `run` against the bound: true when the unit must stop.
  bool hold(Unit& u, const UnitRun& run) {
    const std::size_t cost = bytes_of(run);
    u.held += cost;
    const std::size_t now = held_.fetch_add(cost, std::memory_order_relaxed) + cost;
    for (std::size_t m = most_held_.load(std::memory_order_relaxed);
         now > m && !most_held_.compare_exchange_weak(m, now, std::memory_order_relaxed);) {
    }
    for (std::size_t m = largest_run_.load(std::memory_order_relaxed);
         cost > m && !largest_run_.compare_exchange_weak(m, cost, std::memory_order_relaxed);) {
    }
    if (now < bound_) return false;
    held_stops_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  void work() {
    // The checkers are made here, not by the search's thread: they are written at every
    // event, and made there they would sit in its malloc arena beside its own memory.
    // (The search made its own Judges from the same options first, so this cannot throw
    // for a bad checker name; if it throws all the same, this thread takes no units.)
    std::unique_ptr<Judges> made;
    try {
      made = std::make_unique<Judges>(options_);
    } catch (...) {
      idle_.fetch_sub(1);
      return;
    }
    Judges& judges = *made;
    RunFacts facts;
    detail::ensure_alt_stack();
    const std::unique_ptr<detail::Execution> own = execution_for(options_);
    detail::Execution& x = *own;
    for (;;) {
      Unit* u;
      std::vector<std::unique_ptr<Strategy>> dead;
      {
        spin_for_work();
        std::unique_lock<std::mutex> lock(m_);
        work_cv_.wait(lock, [&] { return stop_.load() || !queue_.empty(); });
        if (stop_.load()) return;
        dead.swap(graveyard_);
        u = queue_.front();
        queue_.pop_front();
        queued_.store(queue_.size(), std::memory_order_relaxed);
        u->started = true;
        idle_.fetch_sub(1);
      }
      dead.clear();
      try {
        run(*u, x, judges, facts);
      } catch (...) {
        u->thrown = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(m_);
        u->done.store(true, std::memory_order_relaxed);
        idle_.fetch_add(1);
      }
      done_cv_.notify_all();
    }
  }
  // Storage for Unit::kChunk more runs, recycled if some is.
  std::unique_ptr<UnitRun[]> chunk() {
    {
      std::lock_guard<std::mutex> lock(m_);
      if (!spare_.empty()) {
        auto c = std::move(spare_.back());
        spare_.pop_back();
        return c;
      }
    }
    return std::make_unique<UnitRun[]>(Unit::kChunk);
  }
  // Waits for a unit without sleeping, for a while: a futex wake-up took 30-300 us in
  // this VM (its idle vCPU halted), a spinning thread sees the unit within a microsecond,
  // and lastzero-12 has 10 to 30 such waits, some in stretches of several ms where the
  // search has nothing to carve. Bounded, as OpenMP's spin-wait before it blocks
  // (KMP_BLOCKTIME), so a search that has no more work to give does not hold the core.
  void spin_for_work() const {
    const auto until = std::chrono::steady_clock::now() + kSpinFor;
    for (unsigned i = 1; queued_.load(std::memory_order_relaxed) == 0 && !stop_.load(std::memory_order_relaxed); ++i) {
      pause();
      if (i % 256 == 0 && std::chrono::steady_clock::now() >= until) return;
    }
  }
  static void pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  // What the units may hold for the search, in bytes per unit thread (bytes_of()): past
  // it, units stop and no more are carved until the search takes some. Issue 38 asks N
  // jobs to stay within N times one job's peak memory. `run lastzero-15` (147,456
  // executions): its units held up to 2.9 MB of compact runs, so 8 MiB does not stop them,
  // and a smaller bound cost more than it saved (1 MiB: more units and take-overs, whose
  // strategies peaked higher: 68 MB against 58 MB). With a callback a run keeps its trace
  // and the callback's prepared work, which bytes_of() cannot see (validate's checkers'
  // answers: about two thirds of what a run holds), so the bound is smaller: `validate
  // lastzero-12` with the 12 polynomial checkers peaked at 19 MB with 2 jobs against 10 MB
  // with one (36 MB with 8 MiB; 100 MB with the previous bound, 2^21 runs plus events).
  static constexpr std::size_t kHeldPerThread = std::size_t{8} << 20;
  static constexpr std::size_t kHeldTracedPerThread = std::size_t{2} << 20;
  static constexpr std::size_t kCarvedPerThread = 64;
  static constexpr std::chrono::milliseconds kSpinFor{20};
  const Program& program_;
  const ExploreOptions& options_;
  bool tso_;
  Equivalence eq_;
  bool want_trace_;
  std::size_t max_carved_ = 0;
  std::mutex m_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<Unit*> queue_;
  std::vector<std::unique_ptr<UnitRun[]>> spare_;  // chunks of runs for reuse
  std::vector<std::unique_ptr<Strategy>> graveyard_;  // joined units' strategies (recycle())
  std::atomic<std::size_t> queued_{0};
  std::atomic<unsigned> idle_{0};
  std::size_t bound_ = 0;
  alignas(64) std::atomic<std::size_t> held_{0};
  std::atomic<std::size_t> most_held_{0}, largest_run_{0}, held_stops_{0};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
  std::unique_ptr<detail::Execution> inline_exec_;  // units_inline's
  std::unique_ptr<Judges> inline_judges_;
  RunFacts inline_facts_;
  // Other processes (atomcheck-mpi): used by the search's thread only.
  detail::Cluster* cluster_ = nullptr;
  std::vector<RemoteSlot> remote_;
  unsigned remote_idle_ = 0;
  std::uint64_t next_id_ = 0, polls_ = 0;
  std::uint64_t remote_units_ = 0, remote_executions_ = 0, replayed_ = 0;
  double cpu_at_start_ = cluster_ ? detail::thread_cpu_seconds() : 0;
  double waited_at_start_ = cluster_ ? cluster_->waited : 0;
  std::uint64_t messages_before_ = cluster_ ? cluster_->messages : 0;
  std::uint64_t bytes_before_ = cluster_ ? cluster_->bytes : 0;
  std::vector<std::uint64_t> words_, msg_;
  std::vector<Transition> choices_;
  RunFacts facts_;
  std::unique_ptr<detail::Execution> replay_exec_;  // runs again what a run's words do not carry
  std::unique_ptr<Judges> replay_judges_;
};

// ---- a process other than rank 0 (atomcheck-mpi) ---------------------------------------
// It runs the command as rank 0 does up to the main search, then serves the searches
// rank 0 distributes (join ... end) until rank 0 says quit. Kinds of search:
enum : std::uint64_t { kJoinUnits = 0, kJoinSamples = 1 };

void serve_samples(const Program& program, const ExploreOptions& o, detail::Cluster& c,
                   const std::vector<std::uint64_t>& join) {
  c.serial = join[0];
  const double cpu_at_join = detail::thread_cpu_seconds(), waited_at_join = c.waited;
  detail::explore_split_samples(program, o, nullptr, &c);
  c.search_cpu += detail::thread_cpu_seconds() - cpu_at_join;
  c.search_waited += c.waited - waited_at_join;
}

// Explores the unit `msg` holds (serial, id, most, words) as a unit thread would
// (Units::run), sending its runs in batches and its state at the end. True when the
// search ended meanwhile (its `end` came).
bool serve_unit(const Program& program, const ExploreOptions& o, detail::Cluster& c, detail::Execution& x,
                const std::vector<std::uint64_t>& msg, bool tso, Equivalence eq, bool again_all) {
  const std::uint64_t serial = msg[0], id = msg[1], most = msg[2];
  auto st = make_optimal_strategy(eq, tso);
  std::string thrown;
  if (!st->load_unit(std::span<const std::uint64_t>(msg).subspan(3)))
    thrown = "a unit's words do not fit this process's search (do all ranks run the same build?)";
  std::vector<std::uint64_t> batch{serial, id}, in;
  std::size_t in_batch = 0;
  auto flush = [&] {
    if (in_batch == 0) return;
    c.send(0, detail::ClusterTag::runs, batch);
    batch.resize(2);
    in_batch = 0;
  };
  History last;
  std::vector<Event> last_events;
  std::vector<Transition> first_choices, last_choices;
  std::vector<Outcome> outcomes;  // sent so far, by index (the search keeps the same list)
  bool has_first = false, has_last = false, complete = false, stopped = false, ended = false;
  std::uint64_t count = 0, blocked = st->sleep_blocked();
  int from = 0;
  detail::ClusterTag tag{};
  while (thrown.empty()) {
    while (count % kPollEvery == 0 && c.receive(from, tag, in, false)) {
      if (in.empty() || in[0] != serial) continue;
      if (tag == detail::ClusterTag::end) ended = stopped = true;
      if (tag == detail::ClusterTag::stop && in.size() >= 2 && in[1] == id) stopped = true;
    }
    if (stopped || count >= most) break;
    if (!st->begin_execution()) {
      complete = true;
      break;
    }
    detail::EndKind end{};
    try {
      end = x.run(program, *st);
    } catch (const std::exception& e) {
      thrown = e.what();
      break;
    } catch (...) {
      thrown = "an exception that is not a std::exception";
      break;
    }
    ++count;
    ++c.executions;
    const History& h = x.history();
    std::string why = st->error();
    if (why.empty() && end != detail::EndKind::aborted) {
      if (has_last) {
        why = compare_with_previous(last, last_events, h, x.trace().events);
      } else {
        has_first = true;
        first_choices = x.choices();
      }
    }
    const std::uint64_t blocked_now = st->sleep_blocked();
    std::uint64_t head = static_cast<std::uint64_t>(end) | (blocked_now != blocked ? 1u << 8 : 0u);
    blocked = blocked_now;
    std::uint64_t ch = 0, rf = 0;
    if (why.empty() && o.count_classes && end != detail::EndKind::aborted) std::tie(ch, rf) = class_keys_of(x, tso, eq);
    const bool again = failed_end(end) || h.spins || !h.unmarked_spin.empty() || again_all;
    const bool outcome = !again && why.empty() && end == detail::EndKind::completed;
    head |= !why.empty() ? 1u << 10 : again ? 1u << 9 : outcome ? 1u << 11 : 0u;
    batch.insert(batch.end(), {head, ch, rf, x.steps(), x.trace().size()});
    if (outcome) {  // its index among the unit's outcomes, and the outcome the first time
      Outcome out = x.outcome();
      const auto it = std::find(outcomes.begin(), outcomes.end(), out);
      batch.push_back(static_cast<std::uint64_t>(it - outcomes.begin()));
      if (it == outcomes.end()) {
        batch.push_back(out.size());
        for (const auto& [name, value] : out) {
          detail::push_string(batch, name);
          batch.push_back(static_cast<std::uint64_t>(value));
        }
        if (outcomes.size() < kOutcomesSent) outcomes.push_back(std::move(out));
      }
    }
    if (again || !why.empty()) detail::push_transitions(batch, x.choices());
    if (!why.empty()) detail::push_string(batch, why);
    ++in_batch;
    if (!why.empty()) break;
    if (end != detail::EndKind::aborted) {
      last_choices = x.choices();
      x.swap_record(last, last_events);
      has_last = true;
    }
    if (in_batch >= kRunsPerMessage) flush();
    if (o.stop_on_failure && failed_end(end)) break;
  }
  flush();
  std::vector<std::uint64_t> done{serial, id, complete ? 1u : 0u, thrown.empty() ? 0u : 1u};
  if (!thrown.empty()) detail::push_string(done, thrown);
  done.push_back(has_first ? 1u : 0u);
  if (has_first) detail::push_transitions(done, first_choices);
  done.push_back(has_last ? 1u : 0u);
  if (has_last) detail::push_transitions(done, last_choices);
  st->save_unit(done);
  c.send(0, detail::ClusterTag::done, done);
  return ended;
}

[[noreturn]] void serve(const Program& program, const ExploreOptions& given, detail::Cluster& c) {
  detail::ensure_alt_stack();
  std::vector<std::uint64_t> msg;
  int from = 0;
  detail::ClusterTag tag{};
  for (;;) {
    c.receive(from, tag, msg, true);
    if (tag == detail::ClusterTag::quit) c.leave();
    if (tag != detail::ClusterTag::join || msg.size() < 6) continue;  // of a search already ended
    const std::uint64_t serial = msg[0];
    ExploreOptions o = given;
    o.memory = static_cast<MemoryModelKind>(msg[2]);
    const auto eq = static_cast<Equivalence>(msg[3]);
    const bool tso = msg[4] != 0, again_all = msg[5] != 0;
    if (msg[1] == kJoinSamples) {
      serve_samples(program, o, c, msg);
      continue;
    }
    const double cpu_at_join = detail::thread_cpu_seconds(), waited_at_join = c.waited;
    const std::unique_ptr<detail::Execution> x = execution_for(o);
    for (bool ended = false; !ended;) {
      c.receive(from, tag, msg, true);
      if (tag == detail::ClusterTag::quit) c.leave();
      if (msg.empty() || msg[0] != serial) continue;
      if (tag == detail::ClusterTag::unit && msg.size() >= 3) ended = serve_unit(program, o, c, *x, msg, tso, eq, again_all);
      else ended = tag == detail::ClusterTag::end;
    }
    c.search_cpu += detail::thread_cpu_seconds() - cpu_at_join;
    c.search_waited += c.waited - waited_at_join;
    const std::uint64_t w[] = {serial};
    c.send(0, detail::ClusterTag::ended, w);
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
    if (options.checkpoint && options.checkpoint_every > 0 && !draining) {
      const auto now = Clock::now();
      if (std::chrono::duration<double>(now - last_checkpoint).count() >= options.checkpoint_every) {
        last_checkpoint = now;
        checkpoint(false);
      }
    }
    if (limit && r.executions >= limit) r.stop = StopReason::max_executions;
    else if (options.time_limit_seconds > 0 &&
             std::chrono::duration<double>(Clock::now() - start).count() >= options.time_limit_seconds)
      r.stop = StopReason::time_limit;
    else if (options.interrupt && options.interrupt->load(std::memory_order_relaxed))
      r.stop = StopReason::interrupted;
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
    auto carve = [&] {
      if (!units->hungry(carved.size())) return;
      if (auto st = strategy->carve_unit())
        give(std::move(st), r.executions + (draining ? draining->count - next_run : 0));
    };
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
              strategy->continue_unit(at, *u->strategy);
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
