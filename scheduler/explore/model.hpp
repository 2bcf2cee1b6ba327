// The test-framework entry point, in the manner of Loom's loom::model(|| ...):
//
//   atomcheck::model([] { ...program... }, {.checkers = {"velodrome"}});
//
// explores the program and, when an execution fails (assertion, exception, deadlock,
// step bound, API misuse) or an attached checker flags one, throws ModelFailure whose
// what() is a report a test runner shows as it is: the execution as one column per
// thread (TSO buffer flushes on lines of their own), the schedule string, the call that
// replays it (atomcheck::replay(body, "121")), the environment that re-runs the test on
// that execution alone, and the command line for a binary calling cli_main, each with the
// options that shape that execution (the memory model, bounds: replay_flags.hpp).
// check_model() does the same without throwing; atomcheck/gtest.hpp turns it into
// EXPECT_ATOMCHECK / ASSERT_ATOMCHECK.
//
// The defaults: optimal DPOR (every rf+co class once), SC, stop at the first failing or
// flagged execution, the budgets of explore.hpp. A search that a budget or the time limit
// cut short, finding nothing, is not a pass: it fails saying how far it got and how to
// widen the search, unless ExploreOptions::allow_incomplete (or a preemption bound, or
// random/pct sampling) asked for a partial search, which passes with a note (printed, and
// recorded as a GoogleTest property by the macros). Ctrl-C during the search prints the
// partial report and then lets the interrupt end the process, as the command line does.
//
// Environment variables override the options without recompiling (CI, bisecting):
//   ATOMCHECK_MAX_EXECUTIONS=N     budget in executions (0: none)
//   ATOMCHECK_TIME_LIMIT=SECONDS   budget in seconds (0: none)
//   ATOMCHECK_STRATEGY=NAME        dfs | dpor | optimal | random | pct
//   ATOMCHECK_SEED=N               seed of random and pct
//   ATOMCHECK_MEMORY=sc|tso|rc11   memory model
//   ATOMCHECK_PREEMPTION_BOUND=N   at most N preemptions per execution (implies dfs)
//   ATOMCHECK_JOBS=N               exploring threads (ExploreOptions::jobs); same result
//   ATOMCHECK_REPLAY=SCHEDULE      run only that execution and print it
//   ATOMCHECK_REPORT_FILE=PATH     append every report that fails (and every replay) to PATH
//   ATOMCHECK_STOP_ON_FAILURE=0|1  0: run on after a failure and count them all
//   ATOMCHECK_ALLOW_INCOMPLETE=0|1 1: a search cut short passes, with a note
//   ATOMCHECK_PROGRESS=SECONDS     a progress line on stderr every SECONDS (default 10; 0: off)
// A malformed value makes the model fail with one line naming the variable.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "explore.hpp"

namespace atomcheck {

// What check_model() found.
struct ModelReport {
  bool ok = true;           // nothing failed, no checker flagged, no error
  std::string text;         // the report to show (on success a one-line summary)
  std::string schedule;     // the schedule of the reported execution; empty when ok
  ExploreResult result;     // the whole search (empty when the options were rejected)
  ExploreOptions options;   // the options after the environment's overrides
  bool replayed = false;    // ATOMCHECK_REPLAY: one execution was run and is shown
  // A pass that proves less than every class of the program (bounded, sampled or allowed-
  // incomplete search, an undecided checker, a spin taken for a wait): what to show.
  std::string note;
};

// Explores `body` with `options` (overridden by the environment, see above) and
// reports. `name`, when given, is the ATOMCHECK_PROGRAM name the body is registered
// under, for the command line in the report; a body that is a registered program's
// function is found by itself. Never throws for problems of the program under test.
ModelReport check_model(const Program& body, const ExploreOptions& options = {},
                        std::string_view name = {});

// Thrown by model(): what() is the report's text.
struct ModelFailure : std::runtime_error {
  explicit ModelFailure(ModelReport r);
  ModelReport report;
};

// check_model(), throwing ModelFailure when the report is not ok. Returns the search's
// result (counts, outcomes, per-checker summaries) otherwise, printing the note of a
// pass that has one on stderr.
ExploreResult model(const Program& body, const ExploreOptions& options = {},
                    std::string_view name = {});

// The environment's overrides applied to `options`; false with a one-line message in
// `error` when a variable is malformed. Also fills `replay` (ATOMCHECK_REPLAY) and
// `report_file` (ATOMCHECK_REPORT_FILE). Exposed for tests and for tools of one's own.
struct ModelEnvironment {
  std::string replay;        // ATOMCHECK_REPLAY
  std::string report_file;   // ATOMCHECK_REPORT_FILE
  unsigned jobs = 1;         // ATOMCHECK_JOBS, also set in the options
  double progress_seconds = 10;  // ATOMCHECK_PROGRESS
};
bool apply_model_environment(ExploreOptions& options, ModelEnvironment& env, std::string& error);

// Where a report appended to ATOMCHECK_REPORT_FILE gets the name of the test it is from
// (one file collects the reports of many tests). atomcheck/gtest.hpp installs GoogleTest's
// current test; without one, the report names the registered program or the binary.
using TestNameSource = std::string (*)();
void set_test_name_source(TestNameSource source);

}  // namespace atomcheck
