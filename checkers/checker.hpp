// The one interface every checker and oracle implements: events are streamed in trace
// order through on_event, then verdict() answers. Checkers never see scheduler types,
// so they run equally on traces from files and from exploration.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../trace/event.hpp"

namespace atomcheck {

// A transaction, named by its thread and the index of its first event (the outermost
// `begin`, or the single event of a unary transaction).
struct TxnRef {
  ThreadId thread = 0;
  EventIndex first = kNoEvent;
  bool operator==(const TxnRef&) const = default;
};

// One edge of a witness cycle: transaction `from` must precede `to` because event
// `from_event` (in `from`) conflicts with and precedes `to_event` (in `to`). Checkers
// that do not track the events leave them kNoEvent.
struct CycleEdge {
  TxnRef from, to;
  EventIndex from_event = kNoEvent, to_event = kNoEvent;
};

// A transaction that cannot be serial in any equivalent trace (RegionTrack Theorem 2):
// `interfering` is an event of another thread with txn.begin -> interfering -> `at`,
// `at` an event of the transaction.
struct Blame {
  TxnRef txn;
  EventIndex interfering = kNoEvent;
  EventIndex at = kNoEvent;
};

// The two questions a checker may answer (DESIGN.md "Checkers"); a checker says which.
struct Verdict {
  std::string checker;
  bool answers_serializability = false;
  bool answers_blame = false;

  // (a) Is the trace conflict serializable? When not: a witness cycle (may be empty
  // if the checker cannot name one) and the event at which it was detected.
  bool serializable = true;
  std::vector<CycleEdge> cycle;
  EventIndex detected_at = kNoEvent;

  // (b) Transactions with a transactional atomicity violation.
  std::vector<Blame> blamed;

  // Why the checker could not answer ("" when it did): a budget, the deadline or the
  // interrupt stopped its search, or its solver said unknown. An undecided verdict is
  // neither serializable nor violated, whatever the fields above say; everyone who
  // counts verdicts counts it apart (undecided is never "serializable").
  std::string undecided;
  bool decided() const { return undecided.empty(); }
  // The reason's prefix when the input is past the size the checker takes (check-trace
  // skips such a default checker, as it skips the oracles past their limit).
  static constexpr std::string_view kInputTooLarge = "input too large: ";
  bool too_large() const { return undecided.starts_with(kInputTooLarge); }
  // Violated: a decided "not serializable" or a blame.
  bool flags() const { return decided() && (!serializable || !blamed.empty()); }

  // Some transaction was still open at the end of the trace and was judged as if it
  // ended there.
  bool open_at_end = false;
  std::string note;

  // Trace TSO checkers: the execution (commit placement) that witnesses a violation, as
  // event indices of the trace in execution order, each write appearing twice: its
  // issue, then its commit. Empty for every other checker.
  std::vector<EventIndex> witness_execution;
};

// Calls f(EventIndex&) on every trace event index the verdict names (detection point,
// cycle edges, blames), so a report can renumber them; witness_execution is left out
// (it indexes an execution, not the trace).
template <class F>
void for_each_event_index(Verdict& v, F&& f) {
  f(v.detected_at);
  for (CycleEdge& e : v.cycle) {
    f(e.from.first);
    f(e.to.first);
    f(e.from_event);
    f(e.to_event);
  }
  for (Blame& b : v.blamed) {
    f(b.txn.first);
    f(b.interfering);
    f(b.at);
  }
}

// Atomic sets and units of work (Hammer et al., ICSE 2008) in the dense ids of the
// trace being checked; only the atomic-set checkers read it. They reach a checker through
// CheckerOptions because checkers see neither names nor the program: the explorer fills
// this from what the program declared in the execution (scheduler/api.hpp atomic_set,
// unit_of_work; JSON specs' "atomic_sets" and "units_of_work"), and check-trace from
// names (checkers/atomic_set.hpp resolve_atomic_sets). Left empty, it is the default
// mapping of the paper's 4.1: all variables one set, every atomic block a unit of work.
struct AtomicSets {
  static constexpr std::uint32_t kMaxSets = 63;
  // Set id of the variables no declaration names: they form one set together.
  static constexpr std::uint32_t kImplicitSet = 63;
  static constexpr std::uint64_t kEverySet = ~std::uint64_t{0};

  std::vector<std::string> names;      // declared sets: set id -> name (at most kMaxSets)
  std::vector<std::uint32_t> var_set;  // VarId -> set id; past the end or kNoId: implicit
  // LabelId -> bit s set when blocks with that label are units of work on set s. A label
  // past the end (or an unlabelled block) was declared nothing: a unit on every set.
  std::vector<std::uint64_t> label_units;

  std::uint32_t set_of(VarId v) const {
    return v < var_set.size() && var_set[v] != kNoId ? var_set[v] : kImplicitSet;
  }
  std::uint64_t units_of(LabelId l) const {
    return l < label_units.size() ? label_units[l] : kEverySet;
  }
  bool operator==(const AtomicSets&) const = default;
};

// When a checker's search must give up: a flag somebody else raises (the CLI's SIGINT
// handler) and a time point (--time-limit). The exponential searches poll it every few
// thousand steps and the Z3 decider hands it to the solver, so what they could not finish
// in time is undecided, never a guess. The default never expires.
struct Deadline {
  using Clock = std::chrono::steady_clock;
  const std::atomic<bool>* interrupt = nullptr;
  Clock::time_point at = Clock::time_point::max();

  // `seconds` from `from` (0: no time limit), watching `flag`.
  static Deadline after(double seconds, const std::atomic<bool>* flag, Clock::time_point from = Clock::now()) {
    Deadline d;
    d.interrupt = flag;
    if (seconds > 0) d.at = from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    return d;
  }
  bool timed() const { return at != Clock::time_point::max(); }
  // "" while the search may go on, else why it must stop ("interrupted", "time limit").
  const char* expired() const {
    if (interrupt != nullptr && interrupt->load(std::memory_order_relaxed)) return "interrupted";
    if (timed() && Clock::now() >= at) return "time limit";
    return "";
  }
  bool operator==(const Deadline&) const = default;
};

// Options common to checkers; each checker reads what concerns it.
struct CheckerOptions {
  // Keep going after the first violation (report all blames / detections).
  bool all = false;
  // Atomic-set checkers only; empty: the default mapping.
  AtomicSets atomic_sets{};
  // The exponential deciders (trace TSO, view oracle, Wang-Stoller's UR-FW search).
  Deadline deadline{};
  // The memory model the events come from (0 sc, 1 tso, 2 rc11; MemoryModelKind's
  // values): linearizability's precedence is a different order under each.
  std::uint8_t memory = 0;
};

// What an online checker says mid-stream about the past it still needs (Checker::
// live_events): the events it may cite, and the first event at which it knew of a
// violation or blame (kNoEvent: none yet), around which a report can draw a window.
struct LiveEvents {
  std::vector<EventIndex> events;
  EventIndex first_problem = kNoEvent;
};

class Checker {
 public:
  virtual ~Checker() = default;
  virtual std::string_view name() const = 0;
  // Events in trace order; the i-th call is event index i.
  virtual void on_event(const Event& e) = 0;
  // The answer for the events seen so far. May be called once at the end.
  virtual Verdict verdict() = 0;
  // Forget all events but keep allocated capacity, so one checker serves many
  // executions without allocating once warm.
  virtual void reset() = 0;
  // TSO checkers read the execution eta, commits included; the others read the trace
  // tau, and whoever feeds events (explorer, check-trace) drops commits for them.
  virtual bool wants_commits() const { return false; }
  // Online checkers (memory bounded by live state, not by the trace length) return true
  // and append to `out.events` every event index a later verdict() could name (witness
  // events, detected_at, transactions' first events); any index they store afterwards is
  // the event being processed or one already listed. So whoever prints witnesses
  // (check-trace) keeps just those events' details instead of the whole past. Checkers
  // that keep the whole trace themselves (oracles, predictive ones) return false.
  virtual bool live_events(LiveEvents& out) const {
    (void)out;
    return false;
  }
};

}  // namespace atomcheck
