// Internal to the search, not part of atomcheck's API (nothing outside scheduler/
// includes it; it is installed only because every header of the folder is): what
// explore_search.cpp's search and the unit threads and remote units of explore_units.cpp both
// use to run an execution and take its facts, so the two sides judge and count an
// execution the same way.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../runtime/execution.hpp"
#include "explore.hpp"
#include "../search/strategy_words.hpp"

namespace atomcheck::detail {

// The program must behave the same on the same schedule: while two executions take the
// same transitions, each step must offer the same enabled transitions and do the same
// things (events, values read). Comparing choice counts alone missed a body that changed
// a static: its second execution took a path with no choice at the point that differed.
// Returns a one-line error naming the step and both versions, or "".
std::string compare_with_previous(const History& prev, const std::vector<Event>& prev_ev,
                                  const History& now, const std::vector<Event>& now_ev);

// What compare_with_previous() reads of an execution (the steps taken, each step's enabled
// transitions, a memory model's choices, each step's events), as words: a unit another
// process explored sends its first and last executions so, for the checks at the unit's
// two ends, instead of having them run again here. An enabled set is sent as the entries
// that differ from the step before (a step changes one or two). read_record() checks
// every count against the words left and leaves the rest of `h` empty.
void push_record(std::vector<std::uint64_t>& out, const History& h, const std::vector<Event>& events);
bool read_record(WordReader& in, History& h, std::vector<Event>& events);
// A checker's verdict as words, every field of it, for a run another process judged
// (atomcheck-mpi: `run --checker` without a callback), so that rank 0 counts and
// reports it as its own checker's. read_verdict() is false on words that are not one.
void push_verdict(std::vector<std::uint64_t>& out, const Verdict& v);
bool read_verdict(WordReader& in, Verdict& v);

// The checkers of one Execution (each exploring thread has its own), remade when the
// atomic sets a program declares change (in practice after its first execution only).
struct alignas(64) Judges {
  std::vector<std::unique_ptr<Checker>> checkers;
  CheckerOptions options;
  std::vector<Verdict> verdicts;
  Prepare prepare;  // this thread's ExploreOptions::make_prepare
  std::vector<Event> sc_trace;  // under rc11: the execution as an SC trace (sc_order)

  Judges(const ExploreOptions& o);
  // Judges the execution (verdicts), or clears the verdicts of one no checker may judge.
  void judge(const ExploreOptions& o, detail::Execution& exec, bool judged);
  // Under rc11 (explore_internal.cpp): the execution as an SC trace, or its cycle.
  void judge_rc11(const ExploreOptions& o, detail::Execution& exec);
  char pad_[64] = {};  // no neighbour shares its last cache line
};

// A depth-cut execution is a prefix, a pruned one is discarded: no checker judges them.
inline bool judged_end(detail::EndKind end) {
  return end != detail::EndKind::pruned && end != detail::EndKind::depth_cut &&
         end != detail::EndKind::spin_blocked && end != detail::EndKind::redundant;
}
inline bool failed_end(detail::EndKind end) {
  return end == detail::EndKind::failed || end == detail::EndKind::deadlock ||
         end == detail::EndKind::step_bound;
}

// The class keys of the execution `exec` holds (count_classes).
std::pair<std::uint64_t, std::uint64_t> class_keys_of(const detail::Execution& exec, bool tso,
                                                      Equivalence eq);

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
ExecutionView view_of(const RunFacts& f, detail::EndKind end, const Trace& trace, std::uint64_t index);

// Fills `f` from the execution `exec` just ran (checkers judged into `judges`).
// The schedule is formatted when `need_schedule`, or when a verdict flags and
// `want_flagged` (some checker has no first flagged execution yet).
void collect(RunFacts& f, detail::EndKind end, detail::Execution& exec, Judges& judges,
             const ExploreOptions& options, bool tso, Equivalence eq, bool need_schedule,
             bool want_flagged);

// The reduction's wait outside its model, named for ExploreResult::reduction_incomplete_by.
std::string wait_text(const History& h);

// An Execution with the search's settings: the search's, its estimator's, a unit thread's.
std::unique_ptr<detail::Execution> execution_for(const ExploreOptions& o);

// The options with the checkers' deadline set from the search's interrupt and time
// limit (counted from `start`), so an exponential checker stops with the search instead
// of after it.
ExploreOptions with_deadline(const ExploreOptions& given, std::chrono::steady_clock::time_point start);

}  // namespace atomcheck::detail
