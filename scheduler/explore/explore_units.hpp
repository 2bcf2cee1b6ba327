// Internal to the search, not part of atomcheck's API (see explore_internal.hpp): the
// units of a parallel optimal search, which the search (explore_search.cpp) carves and
// joins, kept apart from it because their threads, their hand-over and their messages to
// other processes (atomcheck-mpi) are a protocol of their own. The words here are
// shared by rank 0's Units and the other ranks' serve().
#pragma once

#include <any>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster.hpp"
#include "../runtime/execution.hpp"
#include "explore.hpp"
#include "explore_internal.hpp"
#include "../search/strategy.hpp"
#include "../search/strategy_words.hpp"

namespace atomcheck::detail {

// atomcheck-mpi. Runs per `runs` message: a few kB, so a unit's runs reach the search while it runs
// (the bound on what units hold for the search counts them) at one message per
// hundreds of executions.
inline constexpr std::size_t kRunsPerMessage = 256;
// Executions between two probes for messages, on rank 0 and in a unit: a stop waits for
// at most this many executions.
inline constexpr std::uint64_t kPollEvery = 4;
// Outcomes a unit's messages name by index (the rest are sent whole each time).
inline constexpr std::size_t kOutcomesSent = 64;

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
inline RunFacts& unpack(const UnitRun& run, const Unit& u, RunFacts& f) {
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
  // `cluster`: other processes that explore units too (atomcheck-mpi), each `--jobs` at once.
  Units(const Program& program, const ExploreOptions& options, bool tso, Equivalence eq, bool want_trace,
        detail::Cluster* cluster);
  ~Units();
  // Whether the search should carve a unit now: a thread waits for work.
  // Asked once per execution: idle_ first, which changes once per unit (held_ changes
  // once per run and lives on another cache line).
  bool hungry(std::size_t carved) const {
    return (inline_exec_ || idle_.load(std::memory_order_relaxed) > 0) && carved < max_carved_ &&
           queued_.load(std::memory_order_relaxed) == 0 && held_.load(std::memory_order_relaxed) < bound_;
  }
  void give(Unit* u);
  // `u`'s branch changed (Strategy::changed_units): the search will explore it itself, so
  // a thread that runs it stops after its current execution, and a queued one is dropped.
  void cancel(Unit& u);
  // The search reached `u`: false when no thread had taken it (it is withdrawn); else
  // true once it is done (stopped after its current execution if still running).
  bool reach(Unit& u);
  // Before reach(), for a unit whose branch is unchanged: when another process explores
  // it and other processes have room for two or more units, lets it run to the end of
  // its branch instead of stopping it for the search to take over, while the search
  // carves for idle ones (`carve_one`: 1 when it gave one, 0 when one is idle and there
  // is nothing to carve, -1 when none wants one). Taking a unit over loads its
  // whole state here and stops a busy process (lastzero-12 over 4 ranks takes over about
  // 80 of 200 units: 0.035 of an execution per execution the others ran, half of rank
  // 0's work on them); with several processes the search's own exploring is a small
  // share and its time is better spent feeding them. The runs and their order are the
  // same either way: a unit that ends its branch is taken as if it had ended before the
  // search reached it. Stops waiting (and reach() takes over) when `give_up` says so (the
  // time limit, the interrupt, a checkpoint due) or when a process is idle and nothing is
  // left to carve: then the take-over splits the rest of the branch among them.
  void wait_for(Unit& u, const std::function<int()>& carve_one, const std::function<bool()>& give_up);
  // ExploreResult::Parallel's figures of the bound.
  void report(ExploreResult::Parallel& p) const;
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
  void recycle(Unit& u);

 private:
  void withdraw(Unit& u);  // under m_
  // ---- units in other processes (atomcheck-mpi, docs/mpi.md) --------------------------
  // A process explores `--jobs` units at once, each in a slot here: the search sends it
  // the unit's words (Strategy::save_unit), the process sends back its runs in batches,
  // as the words of UnitRun (encode_run in serve()), and at the end the records of its
  // first and last executions and its result or state, which the search loads into its
  // copy of the unit's strategy, so that it takes the runs, takes over and joins exactly
  // as for a thread. The checkers judge a run where it ran, and their verdicts come as
  // words (push_verdict). A run whose facts do not fit in words (a failure, a trace for
  // the callback, a spin) comes as its schedule, and the search runs it again here: the
  // program is deterministic (the search checks it), and these runs are few unless a
  // callback sees every run (validate).
  struct RemoteSlot {
    int rank = 0;
    Unit* unit = nullptr;    // the unit it explores (nullptr: idle)
    std::uint64_t id = 0;    // that unit's number in this search's messages
    bool stop_sent = false;
  };
  void send_unit(Unit& u);
  void stop_remote(Unit& u);
  bool receive(bool wait);
  bool take_run(Unit& u, detail::WordReader& in);
  void run_again(Unit& u, UnitRun& run);
  detail::EndKind replay_choices();
  void take_end(Unit& u, detail::WordReader& in, int from);
  void end_remote();

  void run(Unit& u, detail::Execution& x, Judges& judges, RunFacts& facts);
  static UnitRunRest& make_full(UnitRun& run);
  bool compact(Unit& u, UnitRun& run, const RunFacts& f) const;
  static std::size_t bytes_of(const NameTable& t);
  static std::size_t bytes_of(const UnitRun& run);
  bool hold(Unit& u, const UnitRun& run);
  void work();
  std::unique_ptr<UnitRun[]> chunk();
  void spin_for_work() const;
  static void pause();
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

[[noreturn]] void serve(const Program& program, const ExploreOptions& given, Cluster& c);

}  // namespace atomcheck::detail
