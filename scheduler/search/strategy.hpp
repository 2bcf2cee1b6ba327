// search/ owns the choice of the next step: this interface with the vocabulary of steps
// (Action, Transition), one file per strategy (strategy_*.cpp), the equivalence keys and
// the estimate. It includes trace/ only: a strategy knows nothing of fibers or memory.
//
// The exploration strategy interface (as Shuttle's Scheduler trait): a strategy is told
// when an execution starts, is asked to pick among the enabled transitions, each with
// the operation its thread announced, and says when there are no more executions.
// DFS, replay and random live one per file; DPOR and PCT plug in here later, which is
// why choose() sees the whole history of the execution so far.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "../../trace/event.hpp"
#include "exec_graph.hpp"

namespace atomcheck {

// The operation a thread announced before yielding (or a TSO buffer flush).
enum class Action : std::uint8_t {
  read,         // load of `target` (a variable)
  write,        // store to `target`
  rmw,          // read-modify-write of `target`
  fence,        // seq_cst fence
  acquire,      // mutex lock of `target` (a lock)
  try_acquire,  // mutex try_lock of `target`
  release,      // mutex unlock of `target`
  flush,        // TSO: commit the oldest entry of `thread`'s store buffer, a store to `target`
};
std::string_view action_name(Action a);

// One enabled transition: which thread (or whose buffer) and what it will do.
struct Transition {
  ThreadId thread = 0;
  Action action = Action::read;
  std::uint32_t target = kNoId;
  // TSO: enabled only with an empty store buffer (seq_cst store, rmw, fence, lock ops).
  // DPOR needs it to know that such a step cannot move before its thread's flushes.
  bool drains = false;
  // TSO read: served by the thread's own store buffer in the state where it is enabled
  // (or was taken). A label of the state, not of the operation: the same read becomes a
  // memory read once its thread's buffer flushes the variable, so it is left out of ==.
  bool local = false;
  // Set on a taken rmw that did not write (a failed compare-exchange): to the memory it
  // was a read. Known only once the step ran; also left out of ==.
  bool failed = false;
  // TSO: a buffered store's index among its thread's buffered stores in this execution,
  // and a flush's: the index of the store it commits. A store and a later flush of its
  // thread commute unless the flush commits that store, which a variable cannot tell
  // (the buffer may hold an older store of it). Fixed by the thread's own past, like
  // the operation itself; left out of == all the same.
  std::uint32_t seq = 0;
  // A memory model's choice (RC11), not a thread's step: option `seq` of the running
  // thread's operation (which write a load reads, where a store goes in mo).
  bool choice = false;
  // A compare-exchange that would fail on its variable's latest write and end a cas_loop
  // attempt that wrote nothing (Execution::set_cas_waits): a graph strategy runs it only
  // when nothing else can run, or when a revisit's plan says so. A label of the state.
  bool waits = false;
  bool operator==(const Transition& o) const {
    return thread == o.thread && action == o.action && target == o.target && drains == o.drains;
  }
};

// May two transitions of different threads not commute? (Same variable with a write,
// or same lock.) Flushes count as writes; a `read` served from the reader's own buffer
// is still reported dependent: the conservative answer.
bool dependent(const Transition& a, const Transition& b);

// DPOR's processes: thread t is process 2t, its store buffer's flushes process 2t + 1.
inline std::uint32_t dpor_process(const Transition& t) {
  return 2 * t.thread + (t.action == Action::flush ? 1u : 0u);
}
inline bool is_lock_action(Action a) {
  return a == Action::acquire || a == Action::try_acquire || a == Action::release;
}

// The steps taken so far in the current execution: the chosen transition of each step
// and, for choice points, every enabled transition (flat, with offsets).
struct History {
  std::vector<Transition> chosen;            // one per step
  std::vector<std::uint32_t> enabled_begin;  // per step: offset into `enabled`
  std::vector<Transition> enabled;           // all enabled sets, concatenated
  // At the end of an execution that stopped with threads unfinished (deadlock, a bound):
  // the announced operation of every such thread that was not taken (enabled
  // or blocked on a lock) and the pending flushes. DPOR races them with the history.
  std::vector<Transition> pending;
  // Spawn and join, which are not transitions: the steps of thread `to` from step `at` on
  // happen after the steps thread `from` took before step `at` (with its buffer's flushes
  // for a join, which waits for the child's buffer to drain).
  struct ThreadEdge {
    std::uint32_t at;
    ThreadId from;
    ThreadId to;
    bool join;
  };
  std::vector<ThreadEdge> edges;
  // Per step: the number of trace events once the step (and the eager operations after
  // it) ran; the events of step i are [step_events_end[i-1], step_events_end[i]).
  std::vector<std::uint32_t> step_events_end;
  // A memory model's choices (RC11): (step, option taken), in order. Two executions that
  // took the same steps may differ here, and then in what those steps did.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> options;
  // Some thread waited in a yield() loop whose repeated iteration stores: its wake-up is
  // no transition, so DPOR's races cannot see what it waits for.
  bool spins = false;
  // The call site (Event::loc numbering) of the first such yield(): what a report names
  // when the reduction is incomplete.
  std::uint32_t wait_site = 0;
  const char* wait_construct = "";  // "yield() (a repeated iteration that stores)"
  // A loop without yield() taken for a spin (ExploreOptions::spin_threshold): the first
  // such read of the execution, said in words; empty when none.
  std::string unmarked_spin;
  // For a strategy that wants_graph(): at a memory model's choice, each option's
  // graph_key (the write a load reads, the write a store goes after in mo); at the end of
  // the execution, its graph.
  std::vector<std::uint64_t> option_keys;
  // And each option's value written (an RMW's new value; 0 for the others).
  std::vector<std::int64_t> option_values;
  // And whether it would only block (MemoryModel::option_blocks).
  std::vector<std::uint8_t> option_blocks;
  const ExecGraph* graph = nullptr;
  // The step whose read a thread just blocked after, for good, in a failed loop attempt or
  // wait (kNoStep: none, or its last access was no read); set until the next step.
  static constexpr std::uint32_t kNoStep = ~std::uint32_t{0};
  std::uint32_t blocked_read_step = kNoStep;
  std::size_t steps() const { return chosen.size(); }
  std::span<const Transition> enabled_at(std::size_t step) const {
    std::size_t b = enabled_begin[step];
    std::size_t e = step + 1 < enabled_begin.size() ? enabled_begin[step + 1] : enabled.size();
    return {enabled.data() + b, e - b};
  }
  void clear() {
    chosen.clear();
    enabled_begin.clear();
    enabled.clear();
    pending.clear();
    edges.clear();
    step_events_end.clear();
    options.clear();
    spins = false;
    wait_site = 0;
    wait_construct = "";
    unmarked_spin.clear();
    option_keys.clear();
    option_values.clear();
    option_blocks.clear();
    graph = nullptr;
    blocked_read_step = kNoStep;
  }
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // An execution is about to start; false when there are no more executions.
  virtual bool begin_execution() = 0;
  // Picks one of `enabled` (at least two, in a deterministic order: program transitions
  // by thread, then buffer flushes by thread) and returns its index. `history` holds the steps of this
  // execution so far. Steps with a single enabled transition are taken without asking.
  virtual std::size_t choose(std::span<const Transition> enabled, const History& history) = 0;
  // The execution ended (in any way); history is complete.
  virtual void end_execution(const History& history) { (void)history; }
  // Replay: non-empty when the schedule did not fit the program (then the search stops).
  virtual std::string error() const { return {}; }
  // Replay: called at the end of the execution; false when choices were left unused.
  virtual bool consumed_all() const { return true; }
  // DPOR: executions cut short by the sleep set (redundant; run to the end anyway).
  virtual std::uint64_t sleep_blocked() const { return 0; }
  // Bounded search: true once a bound (the preemption bound) excluded some alternative.
  virtual bool bounded() const { return false; }
  // A pick that ends the execution as redundant (counted with the cut ones): a graph
  // strategy's revisit the memory model finds inconsistent.
  static constexpr std::size_t kCut = ~std::size_t{0};
  // Graph strategies (RC11's TruSt): History::option_keys and History::graph are filled.
  virtual bool wants_graph() const { return false; }
  // A graph strategy's replay whose next step's thread cannot step (a lock waiting on a
  // mutex a kept acquire holds: two RMWs of the lock word read one write): the revisit's
  // graph is inconsistent and the execution is cut there; or whose thread just blocked for
  // good (History::blocked_read_step) where no later write can wake it. Asked before every
  // step.
  virtual bool refuses(std::span<const Transition> enabled, const History& h) const {
    (void)enabled, (void)h;
    return false;
  }


  // ---- checkpoints (ExploreOptions::checkpoint, docs/checkpoint.md) -------------------
  // Between two executions (after end_execution, before begin_execution): appends the
  // strategy's state as plain words, so that a strategy made with the same arguments and
  // given them by load() goes on with the very executions this one would have run.
  // False: this strategy cannot be checkpointed (the default, so a new strategy is
  // refused rather than resumed wrongly).
  virtual bool save(std::vector<std::uint64_t>& out) const {
    (void)out;
    return false;
  }
  // On a freshly made strategy: takes the state save() wrote. False (with the strategy
  // unchanged or unusable) when the words are not such a state; never reads past them.
  virtual bool load(std::span<const std::uint64_t> in) {
    (void)in;
    return false;
  }
  // save()'s words for the state just after begin_execution() returned true, which
  // load() takes to run that very execution next: a parallel search reaches a unit after
  // begin_execution(), and its checkpoint from then on is that moment's state.
  virtual bool save_begun(std::vector<std::uint64_t>& out) const {
    (void)out;
    return false;
  }

  // ---- units of a parallel search (explore_units.cpp's Units) -------------------------
  // A unit is a pending branch of the search's tree with everything below it, explored by
  // a strategy of its own on another thread; the search takes its executions as its own
  // when it reaches the branch (strategy_optimal_units.cpp argues why that is exact). Carved
  // units not yet joined are numbered 1, 2, ... in the order carved.
  // The strategy exploring the next unit (nullptr: nothing left to carve).
  virtual std::unique_ptr<Strategy> carve_unit() { return nullptr; }
  // Appends the indices (k - 1) of the carved units whose branch changed since they were
  // carved, each once: unit_reached() will refuse them, so their threads may stop.
  virtual void changed_units(std::vector<std::size_t>& out) { (void)out; }
  // After begin_execution: k when the execution about to run is carved unit k's first,
  // -k when unit k's branch changed after it was carved (the search explores it itself),
  // 0 when it is no unit's.
  virtual int unit_reached() const { return 0; }
  // Before continue_unit(): a unit carved from the part of `unit`'s branch it left, as
  // this search would carve it after continue_unit() (nullptr: none), so that a thread
  // explores it while the search copies the unit's nodes.
  virtual std::unique_ptr<Strategy> carve_from_unit(Strategy& unit) {
    (void)unit;
    return nullptr;
  }
  // The search reached unit `which` (unit_reached()'s), which stopped before the end of
  // its branch: the search will continue from where `unit` stopped, and takes its nodes
  // below the branch now, so that it can carve more units from them while it takes the
  // unit's executions (before join_unit). `own_memory`: `unit` was made by the search's
  // thread (loaded from another process's words), so its nodes may be moved, not copied.
  virtual void continue_unit(int which, Strategy& unit, bool own_memory) {
    (void)which;
    (void)unit;
    (void)own_memory;
  }
  // Ends unit `which` (unit_reached()'s). With `unit` null the search explores the branch
  // itself; else it takes the executions `unit` ran as its own (all of the branch, or the
  // ones before it stopped: continue_unit) and goes on from there.
  virtual void join_unit(int which, Strategy* unit) {
    (void)which;
    (void)unit;
  }
  // A unit as plain words, for a unit explored in another process (atomcheck-mpi,
  // docs/mpi.md): save_unit() on a carved unit gives what it starts from, and on a unit
  // that ran, its whole state (its nodes, the insertions it recorded for the search's
  // nodes, its tallies); load_unit() on a strategy made like it takes either. False:
  // not a unit, or words that are not such a state.
  virtual bool save_unit(std::vector<std::uint64_t>& out) const {
    (void)out;
    return false;
  }
  virtual bool load_unit(std::span<const std::uint64_t> in) {
    (void)in;
    return false;
  }
};

std::unique_ptr<Strategy> make_dfs_strategy();
// DFS under a preemption bound (iterative context bounding, Musuvathi & Qadeer 2007):
// only executions with at most `preemption_bound` preemptions (see is_preemption);
// a negative bound is plain DFS.
std::unique_ptr<Strategy> make_dfs_strategy(int preemption_bound);
// PCT (Burckhardt et al., ASPLOS 2010): `executions` runs, each with random distinct
// priorities per process (a thread, or a TSO buffer's flush process) and depth - 1
// random priority change points; n and k are learnt from the executions run so far.
std::unique_ptr<Strategy> make_pct_strategy(std::uint64_t seed, unsigned depth,
                                            std::uint64_t executions);
// Knuth's estimator (Math. Comp. 1975): random walks choosing uniformly among the
// alternatives a bounded DFS would try; each walk's product of branching factors is an
// unbiased estimate of the number of executions of that DFS. `walks()` and `mean()`
// read the running tally.
class EstimateStrategy final : public Strategy {
 public:
  EstimateStrategy(std::uint64_t seed, int preemption_bound);
  bool begin_execution() override;
  std::size_t choose(std::span<const Transition> enabled, const History& history) override;
  void end_execution(const History& history) override;
  std::uint64_t walks() const { return walks_; }
  double mean() const { return walks_ ? sum_ / static_cast<double>(walks_) : 0; }
  // Between walks: the generator and the tally, so a resumed search estimates as the
  // uninterrupted one (the summary prints the estimate).
  bool save(std::vector<std::uint64_t>& out) const override;
  bool load(std::span<const std::uint64_t> in) override;

 private:
  std::uint64_t state_;
  int bound_;
  int preemptions_ = 0;
  double product_ = 1;
  double sum_ = 0;
  std::uint64_t walks_ = 0;
  std::vector<std::uint32_t> allowed_;
};

// Iterative context bounding's preemption: choosing `candidate` at a step where the
// thread of the last program step (flushes skipped) is still enabled and is not
// `candidate`'s thread. TSO buffer flushes are never preemptions and do not break a
// thread's run: the bound counts switches between program threads only.
bool is_preemption(const Transition& candidate, std::span<const Transition> enabled,
                   const History& history);
// Source-DPOR with sleep sets: one execution per Mazurkiewicz class (plus sleep-blocked ones).
std::unique_ptr<Strategy> make_dpor_strategy();
// The equivalence a reduction keeps (ExploreOptions::equivalence; explore.hpp says what
// each means to observers). automatic is resolved by explore() before a strategy is made.
// step_order is what source-DPOR keeps under TSO: Mazurkiewicz's over dependent() on
// steps (a store's issue and its flush ordered against every dependent step), finer
// than issue_order.
enum class Equivalence : std::uint8_t { automatic, rf_co, issue_order, step_order };
std::string_view equivalence_name(Equivalence e);

// Optimal DPOR with wakeup trees (Abdulla et al., JACM 2017): exactly one execution per
// class, and no sleep-set-blocked ones. Under SC the classes are Mazurkiewicz's over
// dependent() (= rf_co = issue_order). Under TSO (`tso`) they are the classes of
// `equivalence` (rf_co or issue_order), see strategy_optimal.cpp. `check_units`: units
// are judged changed by comparing subtrees, not by the search's flag (tests compare them).
std::unique_ptr<Strategy> make_optimal_strategy(Equivalence equivalence = Equivalence::issue_order,
                                                bool tso = false, bool check_units = false);
// RC11 graphs, each once, by TruSt's forward and backward revisits (strategy_trust.cpp):
// needs a memory model that exports its graph (History::graph) and mutexes as words of
// memory (Execution::set_lock_words).
std::unique_ptr<Strategy> make_trust_strategy();
// Tests only: TruSt cuts the run wherever a thread blocks for good, even after a read of
// the latest write: the mutant the loop reduction's judges must catch.
void trust_moots_every_block(bool on);
std::unique_ptr<Strategy> make_random_strategy(std::uint64_t seed, std::uint64_t executions);
// `schedule` is the printable form produced by format_schedule.
std::unique_ptr<Strategy> make_replay_strategy(std::string_view schedule);

// Schedules: the sequence of choices made at choice points (steps with at least two
// enabled transitions), printed compactly. A choice of thread t's operation prints t in
// base 36 ("0"-"9", "a"-"z"; larger ids as "{123}"); a flush of t's buffer prints "!"
// followed by t; a memory model's choice (RC11: which write a load reads, where a store
// goes) prints "=" followed by the option's number. A run of one choice is printed once followed by "[count]" when that
// is shorter ("0000001" -> "0[6]1").
std::string format_schedule(std::span<const Transition> choices);
// The same into out[0, cap) without allocating (for a signal handler); returns the full
// length, which may exceed cap (the rest is cut).
std::size_t write_schedule(std::span<const Transition> choices, char* out, std::size_t cap);
// Parses a schedule into (thread, is_flush) choices; false with `error` set on bad syntax.
// An option ("=k") has its number in `thread`.
struct ScheduleChoice {
  ThreadId thread = 0;
  bool flush = false;
  bool option = false;
};
bool parse_schedule(std::string_view text, std::vector<ScheduleChoice>& out, std::string& error);


// Which exploration strategy drives the choices.
enum class StrategyKind : std::uint8_t {
  dfs,     // exhaustive depth-first search over every choice point
  random,  // uniform random choice at every choice point, seeded, max_executions runs
  replay,  // exactly one execution, the one named by ExploreOptions::replay
  dpor,    // source-DPOR with sleep sets: one execution per Mazurkiewicz class
  optimal, // optimal DPOR with wakeup trees: exactly one execution per class
  pct,     // PCT (Burckhardt et al. 2010): random priorities, pct_depth - 1 change points
};

// The kind a `--strategy` name selects (dfs, dpor, optimal, random, pct); nullopt for
// any other name (replay is selected by a schedule, not by name).
std::optional<StrategyKind> strategy_from_name(std::string_view name);
// The name strategy_from_name reads ("replay" for replay).
std::string_view strategy_name(StrategyKind kind);

// What a strategy is made from (explore/ fills it from its options).
struct StrategyParams {
  std::uint64_t seed = 0;
  std::uint64_t samples = 0;      // random, pct: how many executions (0: no end)
  int preemption_bound = -1;      // dfs
  unsigned pct_depth = 3;         // pct
  std::string_view replay;        // replay: the schedule
  Equivalence equivalence = Equivalence::issue_order;  // optimal
  bool tso = false;               // optimal: store buffers' flushes are steps
  bool check_units = false;       // optimal
};
// Samples rather than searches (random, pct): its count is its sample size, not a cut.
bool strategy_samples(StrategyKind kind);
// The strategy of that kind (strategies.cpp: one row per strategy).
std::unique_ptr<Strategy> make_strategy(StrategyKind kind, const StrategyParams& params);

}  // namespace atomcheck
