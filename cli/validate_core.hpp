// The insides of `atomcheck validate` (cli/cmd_validate.cpp), shared with its corpus mode
// and minimiser (cli/validate_extras.cpp): checker instances fed with every execution,
// rows pairing a checker with its judge, and the confusion matrix they fill. Not an
// interface for users.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../checkers/registry.hpp"
#include "../scheduler/explore/explore.hpp"
#include "../trace/trace.hpp"
#include "external_checker.hpp"
#include "target.hpp"

namespace atomcheck::cli::validate_impl {

// The command line of `validate`.
struct ValidateArgs {
  std::string target;
  std::vector<std::string> checkers;
  std::string memory = "sc";
  std::string strategy = "dfs";
  std::uint64_t seed = 0;
  std::uint64_t max_executions = 0;
  bool max_executions_given = false;
  double time_limit = 0;
  std::uint64_t max_steps = kDefaultMaxSteps;
  bool max_steps_given = false;  // overrides a JSON spec's own max_steps
  double step_timeout = kDefaultStepTimeout;
  std::uint32_t spin_threshold = kDefaultSpinThreshold;
  bool no_spurious_wakeups = false;
  bool no_loop_reduction = false;
  bool sc_graphs = false;
  bool no_race_check = false;
  std::size_t stack_kib = 0;
  unsigned jobs = 0;  // not given: jobs_for()
  std::string replay;
  bool replay_given = false;
  bool json = false;
  bool quiet = false;  // no progress on stderr
  ExternalCliOptions ext;
  bool minimise = false;
  std::size_t minimise_budget = 2000;  // predicate calls per disagreement
  std::string traces;                  // corpus mode: a directory of trace files
};

// The trace TSO deciders are exponential, and their judge trace-tso-brute takes seconds
// per trace past about 16 events (README, "Crossovers"): the default checker set runs
// them on executions up to this many events of the trace (commits left out) only and
// says so; named with --checker they run on every execution, under --time-limit.
constexpr std::size_t kQuickTraceTsoEvents = 16;

inline bool is_trace_tso(const std::string& name) { return name.rfind("trace-tso", 0) == 0; }

// An instance's answer on the current execution. With --jobs it is computed by the
// thread that ran the execution (ExploreOptions::make_prepare) and moved to the
// instance the search's thread tallies.
struct Answer {
  bool left_out = false;  // the current execution was left out
  Verdict verdict;
  std::vector<EventIndex> original;  // index in the checker's input -> index in the execution
  std::vector<TxnRef> blamed;        // sorted, original indices
  double seconds = 0;                // spent on it
  std::string error;       // external checkers: why there is no answer ("" when there is)
  std::string trace_file;  // external checkers: the file they were given
};

// One checker instance fed with every execution; judges are instances too, shared by
// the checkers they judge.
struct Instance : Answer {
  std::string name;
  const CheckerInfo* info = nullptr;
  std::unique_ptr<Checker> checker;
  std::shared_ptr<ExternalChecker> external;  // instead of `checker`
  double total_seconds = 0;
  // Executions of more trace events are left out (default set, trace TSO deciders).
  std::size_t max_events = std::numeric_limits<std::size_t>::max();
};

// The two questions a checker may answer (checkers/checker.hpp, Verdict).
enum class Question { serializability, blame };

inline std::string_view question_name(Question q) {
  return q == Question::serializability ? "serializability" : "blame";
}

// One execution (or corpus file) on which a checker and its judge differ.
struct Disagreement {
  std::uint64_t execution = 0;
  std::string schedule{};  // corpus mode: the trace file
  std::string checker_says{}, judge_says{};
  std::shared_ptr<const Trace> trace{};  // what --minimise starts from
  std::string kept_file{};               // external checkers: their input, kept
  // --minimise: the smallest trace found and how to see the disagreement on it.
  std::string minimised_file{}, minimised_command{};
  std::size_t minimised_events = 0;
};

// The confusion matrix of one checker and question against the judge.
struct QuestionStats {
  Question question = Question::serializability;
  std::uint64_t tp = 0, fp = 0, tn = 0, fn = 0;
  // Executions with no answer to compare: the checker or its judge was undecided
  // (budget, deadline, solver unknown), or left out as too large for the default set.
  std::uint64_t undecided = 0, left_out = 0;
  std::uint64_t judge_undecided = 0;  // predictive: executions whose truth is unknown
  std::uint64_t set_mismatches = 0;  // blame: both blame, but different transactions
  std::uint64_t extra = 0;    // blame: executions where the checker blames a transaction the judge does not
  std::uint64_t missing = 0;  // blame: executions where the judge blames a transaction the checker does not
  std::uint64_t errors = 0;   // external: crash, timeout or unreadable answer; never a verdict
  std::optional<Disagreement> first{};
  std::optional<Disagreement> first_error{};
  // Predictive checkers: decided after the search.
  std::uint64_t pos = 0, neg = 0;
  std::optional<Disagreement> first_pos{}, first_neg{};  // judge text filled at the end
  std::optional<Disagreement> witness{};              // first execution the judge flags
  bool agrees() const { return fp == 0 && fn == 0 && set_mismatches == 0 && errors == 0; }
};

// A checker and its judge, with a matrix per question they both answer.
struct Row {
  std::size_t checker = 0, judge = 0;  // indices into the instances
  bool predictive = false;
  bool external = false;  // answers yes or no: blame sets are not compared
  std::vector<QuestionStats> questions;
};

// A selected checker that cannot be validated, and why.
struct Skipped {
  std::string name, reason;
};

// The search (or corpus) under one memory model, with its instances and rows.
struct MemoryRun {
  MemoryModelKind memory = MemoryModelKind::sc;
  // The flags that shape one of its executions (replay_flags.hpp), for its replay commands.
  std::string execution_flags;
  ExploreResult result;
  std::uint64_t judged = 0;
  std::uint64_t not_sc = 0;  // rc11: executions no trace orders, not judged
  bool complete = false;  // every execution (or class) of the program was explored
  std::vector<Instance> instances;
  std::vector<Row> rows;
};

inline std::string_view memory_name(MemoryModelKind m) { return memory_model_name(m); }

inline bool positive(const Instance& in, Question q) {
  return q == Question::serializability ? !in.verdict.serializable : !in.verdict.blamed.empty();
}

// Errors kept per external checker; past it their trace files go too.
constexpr std::uint64_t kKeptErrors = 100;

// What the checker answered, in the words of the report.
std::string says(const Trace& t, const Instance& in, Question q);
// Feeds one execution to every instance and records their answers.
void evaluate(const Trace& trace, std::vector<Instance>& instances);
// The selected checkers, the external ones, and their judges as instances and rows;
// false (message in `error`) for unknown names.
bool build_rows(const std::vector<std::string>& selected, const std::vector<ExternalSpec>& externals,
                TraceDir* dir, const CheckerOptions& options, bool capped, std::vector<Instance>& instances,
                std::vector<Row>& rows, std::vector<Skipped>& skipped, std::string& error);
// Tallies the instances' answers on one execution (`schedule`: its schedule, or in
// corpus mode its file) into the rows.
void judge_execution(MemoryRun& run, const Trace& trace, std::uint64_t index, std::string_view schedule);
// The command that shows a disagreement again.
std::string replay_of(const Target& t, const MemoryRun& run, const Row& row, const Disagreement& d);

// Corpus mode (--traces DIR): every trace file of `path`, sorted by name, judged as an
// execution; unreadable or malformed files are reported on stderr and left out.
bool judge_corpus(const std::string& path, MemoryRun& run, std::string& error);
// --minimise: shrinks every row's first disagreement and first error.
void minimise_disagreements(const ValidateArgs& a, TraceDir& dir, const CheckerOptions& copt,
                            std::vector<MemoryRun>& runs);

}  // namespace atomcheck::cli::validate_impl
