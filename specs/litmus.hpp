// herd7 litmus tests: the X86 (Intel operand order) and X86_64 (AT&T order) dialects,
// restricted to what x86-TSO needs (MOV loads/stores/moves, MFENCE, XCHG, LOCK CMPXCHG,
// LOCK XADD), and the C dialect (C11 atomics, plain accesses, arrays, int locals, if/else).
// Three parts: a parser into plain data with one-line
// `FILE:LINE: what is wrong` errors, a runner that turns a parsed test into a program on
// the scheduler API and explores it exhaustively under SC or TSO, and a printer that
// writes the result in herd7's own layout so herd users read it at a glance.
#pragma once

#include <atomic>
#include <compare>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../scheduler/explore/explore.hpp"

namespace atomcheck::litmus {

// A parse error; what() is the whole one-line message `FILE:LINE:COL: what is wrong`
// (columns count bytes from 1).
struct LitmusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Arch : std::uint8_t { x86, x86_64, c };

// Registers are dense indices into a fixed table of x86 register families (ax, bx,
// cx, dx, si, di, bp, sp, r8..r15); %eax, %rax and EAX all name family 0.
inline constexpr int kRegisterCount = 16;
inline constexpr int kRegAx = 0;  // the implicit operand of CMPXCHG
// The name herd7 prints for a register: EAX in X86, rax in X86_64.
std::string register_name(Arch arch, int reg);

inline constexpr std::uint32_t kNoVar = 0xffffffffu;

// A source operand of a store or register move: an immediate or a register.
struct Source {
  bool is_imm = true;
  std::int64_t imm = 0;
  int reg = 0;
};

enum class Opcode : std::uint8_t {
  store,    // MOV [var], src
  load,     // MOV reg, [var]
  move,     // MOV reg, src (no memory access)
  mfence,   // MFENCE
  xchg,     // XCHG [var], reg (always locked on x86)
  cmpxchg,  // LOCK CMPXCHG [var], reg: compares with EAX
  xadd,     // LOCK XADD [var], reg
};

// One instruction of one thread, operands already in a dialect-free form.
struct Instr {
  Opcode op = Opcode::mfence;
  std::uint32_t var = kNoVar;  // the memory operand
  int reg = 0;                 // load/move: destination; xchg/cmpxchg/xadd: register operand
  Source src;                  // store/move: what is written
  std::uint32_t line = 0;      // line in the .litmus file
};

// A location of the final state: a register of a thread or a memory location.
struct Location {
  bool is_reg = false;
  int thread = 0;             // is_reg
  int reg = 0;                // is_reg
  std::uint32_t var = kNoVar;  // !is_reg
  bool operator==(const Location&) const = default;
};

enum class Quantifier : std::uint8_t { exists, not_exists, forall };

// A node of a proposition (the condition's or the filter's), stored in a flat vector
// (children by index).
struct CondNode {
  // atom: loc = value; same: loc = loc2 (herd's location-to-location atom, `[x]=0:EAX`);
  // implies: lhs => rhs.
  enum class Kind : std::uint8_t { atom, conj, disj, negation, truth, falsity, implies, same };
  Kind kind = Kind::truth;
  std::uint32_t loc = 0;   // atom, same: index into Test::observed
  std::uint32_t loc2 = 0;  // same: index into Test::observed
  std::int64_t value = 0;  // atom: location = value
  std::uint32_t lhs = 0, rhs = 0;  // conj/disj/implies: both; negation: lhs
};

struct Condition {
  Quantifier quantifier = Quantifier::exists;
  std::vector<CondNode> nodes;  // the condition's and the filter's nodes
  std::uint32_t root = 0;
  std::uint32_t line = 0;
  // herd's `filter P`: executions whose final state does not satisfy P are discarded
  // (no state, no witness).
  bool has_filter = false;
  std::uint32_t filter_root = 0;
};

// ---- the C dialect's program: a small AST in flat vectors ----

// An expression of a C thread; operands are indices into CThread::exprs.
struct CExpr {
  enum class Kind : std::uint8_t {
    constant,  // value
    local,     // local
    load,      // atomic_load*(var, order), or `*var` when plain
    rmw,       // atomic_exchange* / atomic_fetch_<rmw>*(var, a, order): the old value
    cas,       // atomic_compare_exchange_*(var, expected, a, order, failure_order): 0/1
    unary,     // op a
    binary,    // a op b (&& and || short-circuit, as in C)
  };
  enum class Rmw : std::uint8_t { exchange, add, sub, band, bor, bxor };
  enum class Op : std::uint8_t {
    neg, lnot, bnot,                      // unary
    mul, div, mod, add, sub, shl, shr,    // binary arithmetic (x / 0 and x % 0 give 0)
    lt, le, gt, ge, eq, ne, band, bxor, bor, land, lor,
  };
  Kind kind = Kind::constant;
  std::int64_t value = 0;
  std::uint32_t local = 0;      // local; cas: the local `&r` holding the expected value
  std::uint32_t var = kNoVar;   // load, rmw, cas: the location
  // cas: the expected value lives in this location (`atomic_compare_exchange_strong(y, z,
  // 2)`, as herd's tests write it) rather than in a local.
  std::uint32_t expected_var = kNoVar;
  bool plain = false;           // load: a non-atomic `*x`
  // load, rmw, cas: the location is element `exprs[index]` of the array whose element 0
  // is `var` and whose length is `extent` (`y[r0]`, `*(y+r0)`, `&y[1]`, `x+(r0-r0)`: an
  // address dependency); an element out of range fails the execution.
  bool indexed = false;
  std::uint32_t index = 0;
  std::uint32_t extent = 1;
  Rmw rmw = Rmw::exchange;
  Op op = Op::add;
  std::memory_order order = std::memory_order_seq_cst;
  std::memory_order failure_order = std::memory_order_seq_cst;  // cas
  std::uint32_t a = 0, b = 0;
};

// A statement. An `if` is followed by its then-statements and then its else-statements
// (each counted with everything nested in them), so a thread is one flat vector.
struct CStmt {
  enum class Kind : std::uint8_t {
    assign,  // local = expr (a declaration with an initialiser too)
    eval,    // expr; (a call whose result is dropped)
    store,   // atomic_store*(var, expr, order), or `*var = expr` when plain
    fence,   // atomic_thread_fence(order)
    branch,  // if (expr) then_count statements else else_count statements
  };
  Kind kind = Kind::eval;
  std::uint32_t local = 0;
  std::uint32_t var = kNoVar;
  bool plain = false;
  bool indexed = false;       // store: as CExpr's, the element `exprs[index]` of `var`'s array
  std::uint32_t index = 0;
  std::uint32_t extent = 1;
  std::memory_order order = std::memory_order_seq_cst;
  std::uint32_t expr = 0;
  std::uint32_t then_count = 0, else_count = 0;
  std::uint32_t line = 0;
};

// One thread `P0 (atomic_int* x, int* y) { ... }`.
struct CThread {
  std::vector<CExpr> exprs;
  std::vector<CStmt> stmts;
  std::vector<std::string> locals;   // dense ids; herd prints them as `0:r0`
  std::vector<std::uint32_t> params;  // the locations the thread takes
};

// A parsed litmus test.
struct Test {
  std::string file;  // as given to the parser, for messages
  Arch arch = Arch::x86;
  std::string name;
  std::vector<std::string> vars;            // memory locations, dense ids
  std::vector<std::int64_t> var_init;       // initial value per var (0 unless set)
  std::vector<std::vector<std::int64_t>> reg_init;  // [thread][reg]
  std::vector<std::vector<Instr>> threads;  // P0, P1, ... (X86, X86_64)
  std::vector<CThread> c_threads;           // P0, P1, ... (C)
  // C: a location some thread declares atomic (`atomic_int*`, `_Atomic int*`) or passes
  // to an atomic_* call is an atomic<int64_t>; the others are plain shared<int64_t>.
  std::vector<bool> var_atomic;
  // C arrays, `atomic_int y[2] = {0, 0};` or `int x[2];` in the init block: the elements
  // are locations of their own, named `y[0]`, `y[1]`, with consecutive ids from `first`.
  struct Array {
    std::string name;
    std::uint32_t first = 0;
    std::uint32_t extent = 0;
  };
  std::vector<Array> arrays;
  // The locations of the final state: first the `shown` ones, named in the condition
  // and in a `locations [...]` section, in herd7's display order (registers by thread,
  // then memory by name); then those only the filter reads, in the same order.
  std::vector<Location> observed;
  std::size_t shown = 0;
  Condition condition;
};

// Parses the text of a .litmus file; `file` is used in messages. Throws LitmusError.
Test parse_litmus(std::string_view text, std::string_view file);
// Reads and parses a file. Throws LitmusError (also for an unreadable file: `FILE: ...`).
Test load_litmus(const std::string& path);

// "0:EAX", "0:r0" (a C local), "[x]".
std::string location_name(const Test& test, const Location& loc);
// The condition as herd7 prints it after `Condition `: "exists (0:EAX=0 /\ 1:EAX=0)".
std::string condition_text(const Test& test);
// Evaluates the proposition (without quantifier) on a final state (values in
// Test::observed order).
bool eval_proposition(const Test& test, const std::vector<std::int64_t>& state);
// Evaluates the filter on a final state (all of Test::observed); true without a filter.
bool eval_filter(const Test& test, const std::vector<std::int64_t>& state);

// One side of a data race in a C test: the thread (P0 is 0), the line of the statement
// that made the access, and what the access did.
struct RaceAccess {
  enum class Kind : std::uint8_t { read, write, update };
  int thread = 0;
  std::uint32_t line = 0;
  Kind kind = Kind::read;
  auto operator<=>(const RaceAccess&) const = default;
};

// Two accesses to one plain location, not ordered by happens-before, at least one a
// write (rc11.cat's `dr`); `first` is the one of the lower (thread, line).
struct Race {
  std::uint32_t var = kNoVar;
  RaceAccess first, second;
  auto operator<=>(const Race&) const = default;
};

// The result of exploring one test under one memory model.
struct RunResult {
  MemoryModelKind memory = MemoryModelKind::sc;
  // Distinct final states (values of the first Test::shown locations of
  // Test::observed, in that order) of the executions the filter keeps, sorted.
  std::vector<std::vector<std::int64_t>> states;
  std::vector<bool> state_matches;  // the proposition holds in states[i]
  // herd7's witnesses: candidate executions, i.e. distinct (reads-from, coherence
  // order) pairs among the executions explored, whose final state satisfies / does not
  // satisfy the quantified condition's body (for ~exists: the negated proposition).
  // Every exhaustive strategy runs each rf+co class at least once (dfs and a finer
  // reduction run some more than once; they are counted once), so the counts are the
  // same under dfs, dpor and optimal and equal herd7's counts of candidate executions.
  std::uint64_t positive = 0, negative = 0;
  // What the search did: executions run (blocked ones included), the classes of the
  // reduction's equivalence among them (`equivalence`: rf+co unless the reduction keeps
  // a finer one), the strategy, and its time. Without a reduction (dfs) `classes` still
  // counts the rf+co classes of the executions run.
  std::uint64_t executions = 0;
  std::uint64_t classes = 0;
  std::uint64_t rf_co_classes = 0;
  Equivalence equivalence = Equivalence::rf_co;
  StrategyKind strategy = StrategyKind::optimal;
  double elapsed_seconds = 0;
  SearchEnd end = SearchEnd::exhausted;  // how the search ended
  std::string end_text;                  // search_end_text: the end and what it rests on
  bool complete = true;  // the search was exhaustive
  std::string error;     // the exploration failed (should not happen): one line
  bool ok = false;       // herd7's Ok/No for the quantified condition
  // Some execution had a data race (a failure the race detector reports): C's undefined
  // behaviour, which herd7 prints as `Undef` in place of Ok/No and a `Flag *undef*` line.
  bool racy = false;
  // The distinct racing pairs of accesses over all racy executions, sorted: under rc11
  // every pair of each execution; under sc and tso the race detector's first one of each.
  std::vector<Race> races;

  bool reachable() const;  // some final state satisfies the proposition
};

// The test as a program on the scheduler API; it records the observed locations with
// outcome() under their location_name(). `test` must outlive the program.
Program litmus_program(const Test& test);

// The options a litmus test is explored with unless the caller says otherwise: optimal
// DPOR, no budget.
ExploreOptions litmus_defaults();

// The exhaustive strategies, which are the only ones that can give herd's States: dfs,
// dpor and optimal.
bool litmus_strategy(StrategyKind kind);

// Explores the test under `memory` with base.strategy (dfs, dpor or optimal; anything
// else is an error in RunResult::error) and base's limits (max_executions, time limit,
// steps, stack). Litmus tests observe final states only, so the reduction keeps the
// coarsest equivalence (Equivalence::automatic: rf+co) and classes are counted. The
// states, Ok/No and the witness counts do not depend on the strategy.
RunResult run_litmus(const Test& test, MemoryModelKind memory,
                     const ExploreOptions& base = litmus_defaults());

// herd7's output layout: Test, States, the states, Ok/No/Undef, Witnesses, `Flag
// *undef*` when racy, Condition, Observation (no Hash line: herd's hash covers its own
// normal form of the test); then ours: Memory, and `Data race: ...` naming the races.
std::string format_herd(const Test& test, const RunResult& result);

// "P0 writes x at line 5, P1 reads x at line 10": format_herd's `Data race:` line joins
// these with "; ".
std::string race_text(const Test& test, const Race& race);

// Our line after format_herd's: "Explored 26 executions, 4 classes (rf+co), strategy
// optimal" (and ", stopped: time-limit" when a limit cut the search).
std::string explored_line(const RunResult& result);

// The memory models `--memory NAME` (sc, tso, both, rc11) asks for a test of `arch`; an
// empty name is the dialect's default: x86-TSO for X86 and X86_64 (as herd7), SC for C,
// whose herd7 default is RC11, which atomcheck does not have yet (rc11 becomes C's
// default here when it does). The one place that knows which models exist: false with
// a one-line `error` for an unknown or unavailable one (rc11).
bool litmus_memory_models(std::string_view name, Arch arch, std::vector<MemoryModelKind>& out,
                          std::string& error);

// `atomcheck run FILE.litmus --memory sc|tso|both`: parses, explores under each model
// (`memory` empty: the dialect's own, litmus_memory_models)
// with base's strategy and limits, and prints herd7's layout (both: SC, a blank line,
// TSO), each followed by our `Memory` and `Explored` lines. Returns the exit code: 0 when
// the runs completed (herd's Ok/No is information, not failure), 2 on bad input (one
// `FILE:LINE:COL: ...` line on stderr), 3 when a limit of `base` cut a search short, 1
// when an execution failed (an internal error: litmus programs cannot fail; a data race
// is not a failure but herd's Undef, which exits 0 as Ok and No do). With
// `json`, prints one JSON object {test, file, condition, results: [{memory, strategy,
// equivalence, ok, reachable, positive, negative, executions, classes, rf_co_classes,
// complete, stop, elapsed_seconds, racy, answer (Ok, No or Undef), races: [{location,
// first, second: {thread, line, access}, text}], states: [{values, matches}]}]} instead.
int run_litmus_command(const std::string& path, std::string_view memory,
                       const ExploreOptions& base = litmus_defaults(), bool json = false);

}  // namespace atomcheck::litmus
