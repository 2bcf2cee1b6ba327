// explore/ owns the search over executions: explore() and replay(), the search loop
// (explore_search.*), the parallel units and samples, the MPI hook (cluster.*), model()
// and the reports (model.*), and linearizability scenarios (lin_test.*). It may include
// every other folder of the scheduler, checkers/ and trace/ (tests/test_layers.cpp).
//
// The harness as a library: explore(program, options) runs a test program under the
// cooperative scheduler, execution after execution, and returns counts, failures with
// their schedules, reachable outcomes and per-checker verdict counts. The program
// registry (ATOMCHECK_PROGRAM in scheduler/api.hpp) maps names to programs for the CLI.
#pragma once

#include <any>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../checkers/checker.hpp"
#include "../search/strategy.hpp"
#include "../../trace/trace.hpp"
#include "../memory/model_kind.hpp"
#include "../runtime/program.hpp"

namespace atomcheck {




// The equivalence the reduction (dpor, optimal) keeps: two executions of one class give
// every attached observer the same verdict, so one execution per class is explored.
//  - rf_co: which write each read reads (its own buffer's included), the order in which
//    writes reach memory per variable (commit order under TSO), the acquisition order per
//    lock. Outcomes, assertions, deadlocks, litmus conditions, spec expectations and the
//    TSO execution checkers are invariant under it.
//  - issue_order: rf_co plus the order in which conflicting operations were *issued*
//    (a TSO store's issue ordered against other threads' accesses of its variable), the
//    trace tau that SC checkers read from a TSO execution. Under SC it equals rf_co.
//  - automatic: the coarsest equivalence every attached checker declares it allows.
// (The enum lives in strategy.hpp, beside the strategies that keep it.)

// What a progress callback sees, about every ExploreOptions::progress_interval seconds.
struct ExploreProgress {
  std::uint64_t executions = 0;    // executions run so far
  double elapsed_seconds = 0;
  std::uint64_t depth = 0;         // scheduling steps of the latest execution
  double estimate = 0;             // estimated executions of the whole search; 0: unknown
};

// Default budgets, the same for explore() and the CLI, so that neither a GoogleTest nor
// `atomcheck run` can hang. A search too big for them stops with StopReason
// max_executions or time_limit (the CLI's exit 3), saying how far it got.
// Steps per execution: Loom's default branch limit (LOOM_MAX_BRANCHES). Every registered
// model and spec example ends well within it, and a spin loop without yield() is
// reported in seconds instead of after the whole time budget.
inline constexpr std::uint64_t kDefaultMaxSteps = 1000;
// Identical reads in a row (one thread, call site, variable and value, nothing else in
// between) after which a loop without yield() is taken for a spin (README "Waits").
inline constexpr std::uint32_t kDefaultSpinThreshold = 100;
// Seconds a running execution may go without a step (a test thread looping without
// calling the harness) before the watchdog reports it and ends the process (exit 3).
inline constexpr double kDefaultStepTimeout = 60;
// Executions of an exhaustive search (dfs, dpor, optimal) and its wall-clock budget.
inline constexpr std::uint64_t kDefaultMaxExecutions = 1000000;
inline constexpr double kDefaultTimeLimit = 600;
// Executions random and pct sample when no count is given.
inline constexpr std::uint64_t kDefaultSamples = 1000;

// Options of one exploration. The defaults explore every rf+co class once (optimal
// DPOR) under SC, within the default budgets above, and stop at the first failing or
// flagged execution (as Loom does: the first counterexample is what a test needs; set
// stop_on_failure = false to count them all). DFS is the strategy to ask for where an
// expectation counts schedules rather than classes.
struct ExecutionView;
struct SearchState;
// See ExploreOptions::make_prepare.
using Prepare = std::function<void(const ExecutionView&, std::any& out)>;

namespace detail {
struct ObjectIds;
}

struct ExploreOptions {
  StrategyKind strategy = StrategyKind::optimal;
  MemoryModelKind memory = MemoryModelKind::sc;
  std::uint64_t seed = 0;              // random strategy
  std::string replay{};                // replay strategy: a schedule string
  // Unset: kDefaultMaxExecutions (random, pct: kDefaultSamples samples); 0: unlimited.
  // Optional because random and pct read it as their sample count, whose default differs.
  std::optional<std::uint64_t> max_executions{};
  double time_limit_seconds = kDefaultTimeLimit;  // 0: unlimited
  std::uint64_t max_steps = kDefaultMaxSteps;     // scheduling steps per execution before
                                                  // "did not terminate within N steps"
  // A thread that reads the same variable at the same call site with the same value this
  // many times in a row, with no other operation in between, spins without yield(): it
  // is said once (ExploreResult::unmarked_spin) and blocks there, as a yield() loop that
  // repeats an iteration does, so the search stays finite. 0: never.
  std::uint32_t spin_threshold = kDefaultSpinThreshold;
  // condition_variable::wait may return without a notify (a spurious wake-up, which the
  // standard allows): on, a wait is unlock, yield(), lock, and notify changes nothing; off,
  // a wait blocks until a notify, so a forgotten notify is found (a livelock report
  // naming the condition variable). README "Condition variables".
  bool spurious_wakeups = true;
  // cas_loop's reduction (api.hpp): a failed attempt that wrote nothing blocks its thread,
  // and the search explores the executions where it succeeded instead (GenMC's spin-assume).
  // Off (`--no-loop-reduction`): every attempt runs, as in a plain loop.
  bool loop_reduction = true;
  // Under rc11, `optimal` explores graphs by TruSt's revisits (strategy_trust.cpp), never
  // starting an execution it throws away. Off: every interleaving runs until a step shows
  // it is not its graph's least one (docs/rc11.md), the judge TruSt is tested against.
  bool rc11_revisits = true;
  // Under sc: SC as GenMC's -sc runs it, a graph model (RC11 with every access seq_cst,
  // which RC11 makes SC), explored as rc11 is: `optimal` is TruSt, one execution per
  // (rf, mo) graph, fewer than optimal DPOR's classes where reads of one value or writes
  // nobody reads need not be ordered. Off (the default): optimal DPOR, whose counts are
  // Nidhugg's. The checkers read each execution as an SC trace (docs/rc11.md).
  bool sc_graphs = false;
  // Two accesses to a shared<T> (non-atomic) variable by different threads, one a write,
  // not ordered by happens-before (RC11's, from the memory orders given at the API) fail
  // the execution as a "data race" (docs/data-races.md). Off: for programs that race on
  // purpose (atomicity examples written with shared<T>).
  bool race_check = true;
  // The allocator model (atomcheck::make/destroy, docs/api.md): a block still allocated when
  // the program ends fails the execution as a leak. Off (`--no-leak-check`): for code that
  // leaks by design (a bump allocator, nodes a test never reclaims).
  bool leak_check = true;
  // A make() takes the block the last destroy() of that size freed (a LIFO free list), so
  // a stale pointer reaches a new object as ABA does; off, freed memory is never reused.
  bool reuse_freed = false;
  // Internal: the object ids every execution of one search shares (runtime/object_ids.hpp),
  // set when the search starts; leave it empty.
  std::shared_ptr<detail::ObjectIds> object_ids{};
  // Wall-clock seconds without a step before a hung test thread is reported with its
  // schedule and the process ends (exit 3); 0: no watchdog (see crash_report.hpp).
  double step_timeout_seconds = kDefaultStepTimeout;
  std::vector<std::string> checkers{};  // names for make_checker(); empty: count only
  CheckerOptions checker_options{};
  std::size_t stack_size = 0;          // bytes per fiber stack; 0: 64 KiB (256 KiB under ASan)
  bool stop_on_failure = true;         // stop at the first failing (or checker-flagged)
                                       // execution; false: run on and count every one
  // A search that a budget (max_executions, time_limit_seconds) or a reduction gap cut
  // short, finding nothing, is not a pass for check_model(), model() and the GoogleTest
  // macros (it says how far it got and how to widen it) unless this is set: then it
  // passes with a note. Bounded (preemption_bound, depth_bound) and sampled (random,
  // pct) searches were asked to be partial and pass with a note either way.
  bool allow_incomplete = false;
  std::size_t keep_failures = 10;      // failures kept with their schedules (all are counted)
  // Polled between executions: when it becomes true the search stops with a partial
  // result (the CLI sets it from SIGINT).
  const std::atomic<bool>* interrupt = nullptr;
  // Bounded search. A bound that cuts off part of the space sets ExploreResult::bounded.
  int preemption_bound = -1;           // -1: none; else at most this many preemptions
                                       // per execution (iterative context bounding)
  std::uint64_t depth_bound = 0;       // 0: none; else executions are cut after this
                                       // many scheduling steps (not a failure)
  unsigned pct_depth = 3;              // PCT: the bug depth d targeted (d - 1 change points)
  // Count the reduction's equivalence classes and the rf+co classes of the executions
  // explored (costs a canonical key per execution).
  bool count_classes = false;
  // The equivalence dpor and optimal reduce by (see Equivalence).
  Equivalence equivalence = Equivalence::automatic;
  // Called from the exploring thread every progress_interval seconds (never when unset).
  std::function<void(const ExploreProgress&)> progress{};
  double progress_interval = 0.25;
  // Threads exploring (--jobs): 1 explores on the calling thread alone. With optimal
  // DPOR more add threads that explore branches of the search ahead of it, and the result
  // is the same for every value (Units in explore_units.cpp, strategy_optimal.cpp); random and
  // pct split their samples across that many searches with derived seeds, reproducibly
  // for a given (seed, jobs) (explore_samples.hpp); dfs and dpor use one thread.
  unsigned jobs = 1;
  // Testing the parallel search without timing: with jobs > 1 and optimal, no threads
  // start; each unit runs on the search's thread when carved, for at most this many
  // executions (the search takes over the rest), so a test chooses how units end.
  std::uint64_t units_inline = 0;
  // Under atomcheck-mpi (docs/mpi.md): the other processes of the job may share this
  // search (optimal DPOR: they explore units; random and pct: they take shares of the
  // samples). Set by the command line for its one main search; elsewhere the processes
  // other than rank 0 do not take part, and a search runs in its own process.
  bool distribute = false;
  // With jobs > 1 and optimal: the bytes of executions the units may hold for the search
  // at once (the runs they ran ahead of it); past it a unit stops and the search takes
  // over its branch. 0: 8 MiB per unit thread, 2 MiB with a callback (Units in
  // explore_units.cpp), which keep two jobs within twice one job's peak memory on lastzero-15
  // (bench/jobs_memory.sh).
  std::size_t units_held_bytes = 0;
  // Work on each execution that needs nothing of the search, done by the thread that ran
  // it (with --jobs, a worker) so that it scales with the jobs, before on_execution sees
  // the execution in the search's order with what was stored in ExecutionView::prepared.
  // The view it gets has index 0 and sleep_blocked false (both known only to the search).
  // Called once per exploring thread, possibly from several threads at once; used only
  // when explore() has an on_execution. `validate` runs its checkers here.
  std::function<Prepare()> make_prepare{};
  // Checkpoints (docs/checkpoint.md; the CLI's --checkpoint and --resume). When set,
  // called on the search's thread with its state: between executions every
  // checkpoint_every seconds (0: never), when a budget, the time limit or the interrupt
  // stops the search (the state it can go on from), and once when it ends any other way
  // (a finished state: resuming it gives this result again). Every strategy but replay;
  // random and pct with one job only (explore() throws std::invalid_argument otherwise).
  // A parallel optimal search stopped while it takes a unit's runs saves the state where
  // it reached the unit, before those runs (docs/checkpoint.md).
  std::function<void(const SearchState&)> checkpoint{};
  double checkpoint_every = 0;
  // Goes on from this state (one `checkpoint` saw with the same options, budgets aside)
  // instead of starting afresh: the result is the uninterrupted search's but for
  // elapsed_seconds (this run's) and the parallel counters. max_executions counts the
  // executions of all runs; time_limit_seconds this run's time. Throws
  // std::invalid_argument when the state does not fit the strategy.
  const SearchState* resume = nullptr;
};

// Is the memory a graph model with choices (rc11, or sc with sc_graphs)?
inline bool graph_memory(const ExploreOptions& o) {
  return o.memory == MemoryModelKind::rc11 || (o.memory == MemoryModelKind::sc && o.sc_graphs);
}

// What one checker said over the whole search.
struct CheckerSummary {
  std::string name;
  std::uint64_t flagged = 0;         // executions whose verdict was not serializable or blamed
  std::string first_schedule;        // schedule of the first flagged execution
  std::uint64_t first_execution = 0;
  Verdict first_verdict;             // the verdict on that execution
  std::uint64_t undecided = 0;       // executions it could not judge (Verdict::undecided)
  std::string first_undecided;       // why, the first time
};


// Why a search ended before the strategy ran out of executions.
enum class StopReason : std::uint8_t {
  none,            // finished: the strategy had no more executions
  max_executions,
  time_limit,
  interrupted,
  failure,         // stop_on_failure
  bad_schedule,    // replay: the schedule does not fit the program (see error)
  nondeterministic,  // DFS: the program made different choices on a replayed prefix
};
std::string_view stop_reason_name(StopReason reason);

// The result of explore().
struct ExploreResult {
  std::uint64_t executions = 0;    // executions run, whatever their end
  std::uint64_t completed = 0;     // ended with every thread finished
  std::uint64_t failed = 0;        // assertion, exception or usage failures
  std::uint64_t deadlocks = 0;
  std::uint64_t step_bounded = 0;  // cut by max_steps
  std::uint64_t pruned = 0;        // stopped by assume(false), or blocked in a wait
  std::uint64_t sleep_blocked = 0; // DPOR: redundant executions cut by the sleep set
  std::uint64_t classes = 0;       // count_classes: distinct classes of the reduction's
                                   // equivalence among the executions explored
  std::uint64_t rf_co_classes = 0; // count_classes: distinct reads-from + coherence classes
  Equivalence equivalence = Equivalence::rf_co;  // the one the reduction kept (never automatic)
  std::uint64_t bound_cut = 0;     // executions cut short by depth_bound
  bool bounded = false;            // a preemption or depth bound cut part of the space
  // dpor/optimal ran a program with a yield() loop whose repeated iteration stores: the
  // thread waits for a change, its wake-up is not a step, so the races that would
  // reverse it are invisible and the reduction may have missed executions. Not
  // exhausted; rerun with dfs. (Every other wait is inside the model, README "Waits".)
  bool reduction_incomplete = false;
  // Which construct made it incomplete, with its call site:
  // "yield() (a repeated iteration that stores) at spin.cpp:14".
  std::string reduction_incomplete_by;
  // Executions in which a loop without yield() was taken for a spin (spin_threshold): the
  // result rests on that thread waiting for a change there. The first one: what spun
  // ("T1 read flag = 0 at spin.cpp:12 100 times in a row") and its schedule.
  std::uint64_t unmarked_spins = 0;
  std::string unmarked_spin;
  std::string unmarked_spin_schedule;
  bool sampled = false;            // random or pct: the executions are a sample
  int preemption_bound = -1;       // the bound the search kept (-1: none)
  double estimate = 0;             // the last size estimate (executions); 0: none
  std::uint64_t steps = 0;         // scheduling steps over all executions
  std::uint64_t events = 0;        // events recorded over all executions
  std::vector<Failure> failures;   // the first keep_failures failures
  std::map<Outcome, std::uint64_t> outcomes;  // completed executions by outcome
  std::vector<CheckerSummary> checkers;       // in the order of options.checkers
  StopReason stop = StopReason::none;
  std::string error;               // bad_schedule or unknown checker: one line
  double elapsed_seconds = 0;
  // jobs > 1 (optimal): units (Strategy::carve_unit) whose executions the search took,
  // those executions, the units among them it took over unfinished, and the units it
  // explored itself (the branch changed after it was carved, or no thread had started
  // it); `cancelled` of those were stopped when their branch changed.
  struct Parallel {
    std::uint64_t units = 0;
    std::uint64_t unit_executions = 0;
    std::uint64_t taken_over = 0;
    std::uint64_t discarded = 0;
    std::uint64_t cancelled = 0;
    // The bound on what units hold for the search (ExploreOptions::units_held_bytes) and
    // how it went: the most they held at once, the largest single run, and the units
    // stopped at it. A unit stops once the bound is reached, so most_held is below
    // held_bound plus one largest run per unit thread.
    std::uint64_t held_bound = 0;
    std::uint64_t most_held = 0;
    std::uint64_t largest_run = 0;
    std::uint64_t held_stops = 0;
    // atomcheck-mpi: the units other processes explored (of `units`), their executions
    // (of unit_executions), the runs the search re-ran itself for what a run's words do
    // not carry (a failure, a verdict, a trace), and the messages and bytes it exchanged.
    std::uint64_t remote_units = 0;
    std::uint64_t remote_executions = 0;
    std::uint64_t replayed = 0;
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
  } parallel;

  // The strategy ran out of executions (for DFS: the space was exhausted).
  bool exhausted() const { return stop == StopReason::none && !reduction_incomplete; }
  std::uint64_t failures_total() const { return failed + deadlocks + step_bounded; }
  bool any_checker_flagged() const;
  bool any_checker_undecided() const;
  // No failure, no checker flag, no error.
  bool ok() const { return failures_total() == 0 && !any_checker_flagged() && error.empty(); }
};

// A search's state as ExploreOptions::checkpoint gives it and ExploreOptions::resume
// takes it: the result so far and the state of everything that decides the next
// executions and the tallies (strategy, size estimator, class keys), as plain data.
struct SearchState {
  // The tallies so far. result.stop is why the search stopped (max_executions,
  // time_limit, interrupted; none for a periodic checkpoint); elapsed_seconds is 0.
  ExploreResult result;
  // The search had ended (exhausted, stopped at a failure, an error): `result` is final.
  bool finished = false;
  std::vector<std::uint64_t> strategy;   // Strategy::save
  std::vector<std::uint64_t> estimator;  // EstimateStrategy::save (exhaustive searches)
  // count_classes: the keys of the classes seen (0 included when seen), any order.
  std::vector<std::uint64_t> class_keys, rf_co_keys;
};
// Can a search stopped for `reason` go on from its checkpoint? (A budget, the time
// limit or the interrupt; a periodic checkpoint has reason none and goes on as well.)
bool resumable_stop(StopReason reason);

// How a search ended, in the one vocabulary that `run`, specs, litmus files, `validate`
// and atomcheck::model print (README "How a search ends"). Only `exhausted` proves
// anything for the whole space; `sampled` is a random or PCT search that ran its course.
enum class SearchEnd : std::uint8_t {
  exhausted,
  sampled,
  budget,                // the execution budget (--max-executions) ran out
  time,                  // --time-limit
  interrupted,           // Ctrl-C (ExploreOptions::interrupt)
  bound,                 // a preemption or depth bound pruned part of the space
  reduction_incomplete,  // DPOR met a wait it does not model (which: reduction_incomplete_by)
  nondeterministic,      // the program did something else on a replayed prefix (where: error)
  stop_on_failure,       // stopped at the first failure, as asked
  bad_schedule,          // replay: the schedule does not fit the program (error)
};
SearchEnd search_end(const ExploreResult& r);
// "exhausted", "sampled", "budget", "time", "interrupted", "bound",
// "reduction-incomplete", "nondeterministic", "stop-on-failure", "bad-schedule".
std::string_view search_end_name(SearchEnd end);
// The name and what it rests on: "reduction-incomplete: yield() (...) at spin.cpp:14 (DPOR
// does not model this wait; use --strategy dfs)", "budget: 1000 executions", ...
std::string search_end_text(const ExploreResult& r);
// Whether the end leaves part of the space unexplored (exit 3 when nothing was found).
bool search_end_cut(SearchEnd end);

// What the per-execution callback sees: the execution (with commits under TSO), its
// schedule, and how it ended. `trace` carries names; it is valid during the call only.
struct ExecutionView {
  std::uint64_t index = 0;
  const Trace* trace = nullptr;
  std::string_view schedule;
  const Failure* failure = nullptr;  // nullptr when the execution completed
  const Outcome* outcome = nullptr;  // recorded outcome (completed executions)
  const std::vector<Verdict>* verdicts = nullptr;  // one per checker, in option order
  // count_classes: hashes of the execution's class under the reductions' equivalence
  // and of its reads-from + coherence class (scheduler/equivalence.hpp); 0 otherwise.
  std::uint64_t class_key = 0;
  std::uint64_t rf_co_key = 0;
  // DPOR: the sleep set cut this execution (it was run to its end anyway: redundant).
  bool sleep_blocked = false;
  // What ExploreOptions::make_prepare's function stored for this execution (on_execution
  // may move it out); nullptr without make_prepare.
  std::any* prepared = nullptr;
};

// Explores `program`. Never throws for problems of the program under test (they are
// failures in the result); throws std::invalid_argument for an unknown checker name.
// `on_execution`, when given, is called after every execution (it slows the search:
// names are materialised for it).
ExploreResult explore(const Program& program, const ExploreOptions& options = {},
                      const std::function<void(const ExecutionView&)>& on_execution = {});

// One replayed execution.
struct ReplayResult {
  Trace trace;               // the execution, names included (commits kept under TSO)
  bool failed = false;       // the execution ended in a failure, described by `failure`
  Failure failure;
  // Neither completed nor failed: a thread blocked in a wait (spin_until, a yield() loop
  // that repeated an iteration, a spin) on reads another thread changed later, or stopped
  // at a failed assume(), so the search discards the execution (others cover it).
  bool blocked = false;
  Outcome outcome;
  std::vector<Verdict> verdicts;  // one per options.checkers
};

// Replays one schedule (options.replay is ignored; options.memory must match the
// exploration that printed it). Throws std::invalid_argument with a one-line message
// when the schedule does not fit the program.
ReplayResult replay(const Program& program, std::string_view schedule,
                    const ExploreOptions& options = {});

}  // namespace atomcheck
