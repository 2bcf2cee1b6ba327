// JSON program specs (format version 1): a small concurrent program written as data
// (variables, locks, threads of operations, atomic sets, units of work) plus the
// expectations that make it a self-checking test. Three parts: the loader, which
// validates everything up front and reports the first problem as one line
// `FILE:LINE:COL: /json/pointer: what is wrong`; the interpreter, which turns a loaded
// spec into a Program on the scheduler API; and the runner, which explores the program
// under each memory model, runs the checkers and judges every expectation.
// The format is documented in specs/atomcheck-spec.schema.json and the README.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../scheduler/explore/explore.hpp"
#include "spec_json.hpp"

namespace atomcheck::spec {

inline constexpr int kFormatVersion = 1;
// Upper bounds checked at load time, so that no spec can make the interpreter loop for
// long or allocate without bound.
inline constexpr std::int64_t kMaxLoopBound = 10000;
inline constexpr std::size_t kMaxThreads = 64;

// A load error; what() is the whole one-line message.
struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where a spec element came from, for messages at run time.
struct Origin {
  Pos pos;
  std::string pointer;  // JSON pointer, e.g. "/threads/0/ops/3"
};

inline constexpr std::uint32_t kNone = 0xffffffffu;

// An expression node, stored flat in Spec::exprs (children by index).
struct Expr {
  enum class Kind : std::uint8_t { constant, reg, unary, binary };
  Kind kind = Kind::constant;
  std::string op;            // unary: "!" or "-"; binary: "+", "-", "*", "&", "|", "^",
                             // "==", "!=", "<", "<=", ">", ">=", "&&", "||"
  std::int64_t value = 0;    // constant
  std::uint32_t reg = kNone;  // reg: index into the thread's registers
  std::uint32_t lhs = kNone, rhs = kNone;
};

// The operation kinds, in the order the schema lists them.
enum class OpKind : std::uint8_t {
  load, store, set, cas, xchg, fetch_add, fence, lock, unlock,
  begin, end, loop, if_, assert_, assume, spawn, join, await,
  wait, notify, read_lock, read_unlock, write_lock, write_unlock,
};
// Every operation name the loader accepts ("load", ..., "if", "assert", ...).
std::span<const std::string_view> op_kind_names();
std::string_view op_kind_name(OpKind kind);

inline constexpr std::uint8_t kDefaultOrder = 0xff;

// One operation of a thread. Which fields are used depends on `kind`.
struct Operation {
  OpKind kind = OpKind::fence;
  Origin origin;
  std::uint32_t var = kNone;     // load, store, cas, xchg, fetch_add
  std::uint32_t lock = kNone;    // lock, unlock, wait (the mutex it holds)
  std::uint32_t cv = kNone;      // wait, notify: a condition variable
  std::uint32_t rwlock = kNone;  // read_lock, read_unlock, write_lock, write_unlock
  bool all = false;              // notify: notify_all
  std::uint32_t reg = kNone;     // load/set: destination; rmw: receives the old value
  std::uint32_t ok_reg = kNone;  // cas: receives 1 on success, 0 on failure
  std::uint32_t thread = kNone;  // spawn, join: a thread of the spec
  std::uint32_t value = kNone;     // store/set/xchg/fetch_add value; cas desired (expr)
  std::uint32_t expected = kNone;  // cas expected (expr)
  std::uint32_t cond = kNone;      // if/assert/assume/loop "while" (expr)
  std::int64_t bound = 0;          // loop
  bool yield = false;              // loop: yield after an iteration that did not exit
  // load, store, cas, xchg, fetch_add, fence: the std::memory_order the spec gives
  // ("order"), or kDefaultOrder: relaxed for a load or store (x86's plain mov), seq_cst for
  // the read-modify-writes and the fence. Only rc11 distinguishes the others.
  std::uint8_t order = kDefaultOrder;
  std::string label;               // begin
  std::string message;             // assert
  std::vector<Operation> body;     // loop body, if "then", await and wait body
  std::vector<Operation> else_body;  // if "else"
};

struct Variable {
  std::string name;
  std::int64_t init = 0;
  Origin origin;
};

struct Thread {
  std::string name;
  std::vector<std::string> regs;           // registers, dense ids
  std::vector<std::int64_t> reg_init;
  std::vector<Operation> ops;
  bool spawned_by_op = false;  // started by a `spawn` op, not by the program
  Origin origin;
};

// Atomic sets and units of work (Hammer et al., ICSE 2008), kept for the atomic-set
// checker: a unit of work is every atomic block with `label`, declared on `sets`.
struct AtomicSet {
  std::string name;
  std::vector<std::uint32_t> vars;
  Origin origin;
};
struct UnitOfWork {
  std::string label;
  std::vector<std::uint32_t> sets;
  Origin origin;
};

// An observed location of the final state: a variable's final value ("x") or a
// thread's register at the end ("T1.r0").
struct Observed {
  std::string name;
  bool is_reg = false;
  std::uint32_t var = kNone;
  std::uint32_t thread = kNone;
  std::uint32_t reg = kNone;
};

// A partial final state: every listed location has the listed value.
struct OutcomePattern {
  std::vector<std::pair<std::uint32_t, std::int64_t>> values;  // (observed index, value)
  Origin origin;
};

// How many executions: "none", "some", "all", or an exact count.
struct Count {
  enum class Kind : std::uint8_t { none, some, all, exactly };
  Kind kind = Kind::none;
  std::uint64_t n = 0;
};
std::string format_count(const Count& c);

struct CheckerExpectation {
  std::string checker;
  std::optional<Count> flagged;           // not serializable or some transaction blamed
  std::optional<Count> not_serializable;  // verdict says not serializable
  std::optional<Count> blamed;            // verdict blames some transaction
  Origin origin;
};

// The expectations for one memory model.
struct Expectations {
  bool present = false;
  Origin origin;
  std::vector<OutcomePattern> reachable;    // each matched by some completed execution
  std::vector<OutcomePattern> unreachable;  // none matched by any completed execution
  std::vector<OutcomePattern> always;       // every completed execution matches one
  Origin always_origin;
  // Conflict serializability of the executions, by the "oracle" checker:
  // all / some-not / none (= every execution is not serializable).
  std::optional<Count> serializable_count;  // kind of "not serializable" executions
  std::string serializable_text;            // as written, for messages
  Origin serializable_origin;
  std::optional<Count> failures;  // executions ending in assert/deadlock/...; default none
  Origin failures_origin;
  std::optional<std::uint64_t> executions;  // exact number of executions explored
  Origin executions_origin;
  std::vector<CheckerExpectation> checkers;
};

// A loaded, validated spec.
struct Spec {
  std::string file;
  std::string name;
  std::string description;
  std::vector<Variable> vars;
  std::vector<std::string> locks;
  std::vector<std::string> condvars;
  std::vector<std::string> rwlocks;
  std::vector<Thread> threads;
  std::vector<Expr> exprs;
  std::vector<AtomicSet> atomic_sets;
  std::vector<UnitOfWork> units_of_work;
  std::vector<Observed> observed;
  Expectations expect_sc, expect_tso, expect_rc11;
  // Absent from the file: the explorer's default, raised to what the spec can take when
  // every loop runs to its bound (a spec always terminates).
  std::uint64_t max_steps = 0;
};

// Loads a spec from text; `file` names it in messages. Throws SpecError.
Spec parse_spec(std::string_view text, std::string_view file);
// Reads and loads a file (an unreadable file is `FILE: cannot read: ...`).
Spec load_spec(const std::string& path);

// The program that runs the spec's threads on the scheduler API under `memory`.
// `spec` must outlive the program.
// `load_final`: the observed variables' final values recorded as outcomes, read by loads
// after the joins (under rc11 the last write in the trace need not be the last in
// coherence order; the loads read the coherence-last one).
Program spec_program(const Spec& spec, bool load_final = false);

// Options of `atomcheck run SPEC.json`.
struct RunOptions {
  std::vector<MemoryModelKind> memories;  // empty: those the spec has expectations for
                                          // (SC when it has none)
  std::vector<std::string> extra_checkers;  // run and reported besides the expected ones
  ExploreOptions explore;  // limits; strategy, memory, checkers, stop_on_failure are set per run
  bool max_steps_given = false;  // explore.max_steps was asked for: it overrides the spec's
  // The strategy. Unset: optimal DPOR (every class once), or DFS where the expectations
  // count executions (`executions`, or an "exactly N" count: those numbers are DFS's
  // schedules) or where DPOR meets a wait it does not model; the report says which.
  std::optional<StrategyKind> strategy;
  // Stop each model's search at the first failing execution (explore.stop_on_failure is
  // not read: expectations are judged over every execution unless this asks otherwise).
  bool stop_on_failure = false;
};

// The judgement of one expectation.
struct ExpectationResult {
  std::string what;    // e.g. "sc: reachable {T1.r0=0, T2.r1=0}"
  bool holds = false;
  bool inconclusive = false;  // the search stopped early and could not decide
  std::string detail;  // why, with the refuting execution's schedule when there is one
  Origin origin;
};

struct ModelReport {
  MemoryModelKind memory = MemoryModelKind::sc;
  ExploreResult result;
  bool exhaustive = false;  // every class was explored (DFS, or a DPOR that covers the program)
  std::string not_exhaustive_why;  // when not: sampled, a budget, a bound, a reduction gap
  std::string strategy;            // the strategy explored with, and why when not asked for
  std::vector<std::pair<std::string, std::uint64_t>> outcomes;  // formatted, count
  std::vector<ExpectationResult> expectations;
  std::string error;  // the model or the exploration could not run (one line)
};

struct RunReport {
  std::vector<ModelReport> models;
  bool all_hold() const;
  bool any_inconclusive() const;
  // Exit code: 0 every expectation holds, 1 some does not, 3 some could not be decided.
  int exit_code() const;
};

RunReport run_spec(const Spec& spec, const RunOptions& options);
// The human-readable summary `atomcheck run` prints.
std::string format_report(const Spec& spec, const RunReport& report);

}  // namespace atomcheck::spec

namespace atomcheck::spec {

// What `atomcheck run SPEC.json` was asked, in the CLI's terms.
struct CliRequest {
  std::string path;
  std::string memory;                 // "", "sc", "tso" or "both" ("": from the spec)
  std::vector<std::string> checkers;  // extra checkers (already split at commas)
  ExploreOptions explore;             // limits (strategy, max executions, time, steps)
  bool max_steps_given = false;       // --max-steps: overrides the spec's max_steps
  bool strategy_given = false;        // --strategy (else RunOptions::strategy_given's default)
  std::string replay;                 // non-empty: replay this schedule, print its trace
  bool json = false;
};

// Runs a spec file for the CLI: prints the summary (or one JSON object) on stdout and
// one-line errors on stderr; returns the exit code (0 every expectation holds, 1 some
// does not, 2 bad input, 3 a limit left some undecided).
int run_spec_cli(const CliRequest& request);

}  // namespace atomcheck::spec
