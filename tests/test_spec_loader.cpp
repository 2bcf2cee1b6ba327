// The spec loader's error messages, one test per error class with the exact line
// `FILE:LINE:COL: /json/pointer: message`, plus the JSON reader's syntax errors, the
// static rules (balanced blocks and locks, bounded loops, spawn once) and what a valid
// spec loads into (names resolved to dense ids, registers, observed locations).
#include <gtest/gtest.h>

#include <string>

#include "specs/spec.hpp"

namespace atomcheck::spec {
namespace {

// The message of the SpecError that loading `text` throws ("" if it loads).
std::string error_of(const std::string& text) {
  try {
    parse_spec(text, "t.json");
  } catch (const SpecError& e) {
    return e.what();
  }
  return "";
}

TEST(SpecLoaderErrors, UnknownField) {
  EXPECT_EQ(error_of(R"({
  "atomcheck": 1,
  "threads": [
    {"name": "A", "ops": [
      {"op": "fence", "mo": "seq_cst"}
    ]}
  ]
})"),
            "t.json:5:23: /threads/0/ops/0/mo: unknown field \"mo\" (expected one of: op, order)");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "thread": []})"),
            "t.json:1:18: /thread: unknown field \"thread\" (expected one of: atomcheck, name, "
            "description, vars, locks, condvars, rwlocks, threads, atomic_sets, units_of_work, observe, expect, "
            "max_steps)");
}

// Memory orders: each operation takes the orders C++ allows it (a store no acquire, a fence
// no relaxed), and an rc11 expectation names no TSO checker.
TEST(SpecLoaderErrors, MemoryOrdersAndRc11Expectations) {
  EXPECT_EQ(error_of(R"({
  "atomcheck": 1,
  "vars": {"x": 0},
  "threads": [
    {"name": "A", "ops": [
      {"op": "store", "var": "x", "value": 1, "order": "acquire"}
    ]}
  ]
})"),
            "t.json:6:56: /threads/0/ops/0/order: \"acquire\" is not an order of this operation (relaxed, release, "
            "seq_cst)");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [{"name": "A", "ops": [
      {"op": "load", "var": "x", "reg": "r", "order": "acquire"}, {"op": "fence", "order": "release"},
      {"op": "cas", "var": "x", "expected": 0, "desired": 1, "order": "acq_rel"}]}],
  "expect": {"rc11": {"serializable": "all", "checkers": {"tso-exec": 0}}}})"),
            "t.json:4:58: /expect/rc11/checkers: checker \"tso-exec\" judges TSO executions, not rc11's (docs/rc11.md)");
  const Spec s = parse_spec(R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [{"name": "A", "ops": [
      {"op": "load", "var": "x", "reg": "r", "order": "acquire"}, {"op": "store", "var": "x", "value": 1}]}],
  "expect": {"rc11": {"failures": 0}}})", "t.json");
  EXPECT_EQ(s.threads[0].ops[0].order, static_cast<std::uint8_t>(std::memory_order_acquire));
  EXPECT_EQ(s.threads[0].ops[1].order, kDefaultOrder);
  EXPECT_TRUE(s.expect_rc11.present);
  EXPECT_FALSE(s.expect_sc.present);
}

TEST(SpecLoaderErrors, WrongType) {
  EXPECT_EQ(error_of(R"({
  "atomcheck": 1,
  "vars": {"x": "zero"},
  "threads": [{"name": "A", "ops": []}]
})"),
            "t.json:3:17: /vars/x: expected an integer, got a string");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "vars": {"x": 1.5}, "threads": []})"),
            "t.json:1:32: /vars/x: expected an integer, got a non-integer number (1.5)");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "vars": {"x": 99999999999999999999}, "threads": []})"),
            "t.json:1:32: /vars/x: expected an integer, got an integer out of the 64-bit range "
            "(99999999999999999999)");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "threads": {"name": "A"}})"),
            "t.json:1:29: /threads: expected an array, got an object");
}

TEST(SpecLoaderErrors, UndefinedVariable) {
  EXPECT_EQ(error_of(R"({
  "atomcheck": 1,
  "vars": {"x": 0},
  "threads": [
    {"name": "A", "ops": [
      {"op": "store", "var": "x", "value": 1},
      {"op": "load", "var": "z", "reg": "r0"}
    ]}
  ]
})"),
            "t.json:7:29: /threads/0/ops/1/var: undefined variable \"z\"");
}

TEST(SpecLoaderErrors, UndefinedRegister) {
  EXPECT_EQ(error_of(R"({
  "atomcheck": 1,
  "vars": {"x": 0},
  "threads": [
    {"name": "A", "ops": [
      {"op": "store", "var": "x", "value": {"+": ["r1", 1]}}
    ]}
  ]
})"),
            "t.json:6:51: /threads/0/ops/0/value/+/0: undefined register \"r1\" (declare it in "
            "\"regs\" or assign it before this use)");
  // A register of another thread is not defined here.
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [
{"name": "A", "ops": [{"op": "load", "var": "x", "reg": "r"}]},
{"name": "B", "ops": [{"op": "assert", "cond": "r"}]}]})"),
            "t.json:3:48: /threads/1/ops/0/cond: undefined register \"r\" (declare it in \"regs\" "
            "or assign it before this use)");
  // A quoted number: the message says how strings and numbers differ.
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [
{"name": "A", "ops": [{"op": "store", "var": "x", "value": "42"}]}]})"),
            "t.json:2:60: /threads/0/ops/0/value: undefined register \"42\" (declare it in "
            "\"regs\" or assign it before this use); strings name registers: for the number write "
            "42 without quotes");
}

TEST(SpecLoaderErrors, EndWithoutBegin) {
  EXPECT_EQ(error_of(R"({
  "atomcheck": 1,
  "threads": [
    {"name": "A", "ops": [
      {"op": "begin", "label": "a"},
      {"op": "end"},
      {"op": "end"}
    ]}
  ]
})"),
            "t.json:7:7: /threads/0/ops/2: \"end\" without \"begin\"");
  // A begin outside a loop is not closed by an end inside its body.
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "threads": [{"name": "A", "ops": [{"op": "begin"},
{"op": "loop", "bound": 2, "body": [{"op": "end"}]}, {"op": "end"}]}]})"),
            "t.json:2:37: /threads/0/ops/1/body/0: \"end\" without \"begin\"");
}

TEST(SpecLoaderErrors, BeginWithoutEnd) {
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "threads": [{"name": "A", "ops": [{"op": "begin"}, {"op": "fence"}]}]})"),
            "t.json:1:52: /threads/0/ops/0: \"begin\" without \"end\" (begin and end must pair up "
            "within one op list)");
}

TEST(SpecLoaderErrors, UnlockOfUnheldLock) {
  EXPECT_EQ(error_of(R"({
  "atomcheck": 1,
  "locks": ["m", "n"],
  "threads": [
    {"name": "A", "ops": [
      {"op": "lock", "lock": "m"},
      {"op": "unlock", "lock": "n"}
    ]}
  ]
})"),
            "t.json:7:7: /threads/0/ops/1: unlock of lock \"n\", which is not held here");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "locks": ["m"], "threads": [{"name": "A", "ops": [{"op": "if", "cond": 1, "then": [{"op": "lock", "lock": "m"}]}]}]})"),
            "t.json:1:101: /threads/0/ops/0/then/0: lock \"m\" is still held at the end of its op "
            "list (lock and unlock must pair up within one op list)");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "locks": ["m"], "threads": [{"name": "A", "ops": [{"op": "lock", "lock": "m"}, {"op": "lock", "lock": "m"}]}]})"),
            "t.json:1:97: /threads/0/ops/1: lock \"m\" is already held here (locking it again would "
            "deadlock)");
}

TEST(SpecLoaderErrors, LoopWithoutBound) {
  EXPECT_EQ(error_of(R"({
  "atomcheck": 1,
  "vars": {"flag": 0},
  "threads": [
    {"name": "A", "ops": [
      {"op": "load", "var": "flag", "reg": "f"},
      {"op": "loop", "while": {"==": ["f", 0]}, "body": [
        {"op": "load", "var": "flag", "reg": "f"}
      ]}
    ]}
  ]
})"),
            "t.json:7:7: /threads/0/ops/1: missing field \"bound\" (every loop needs a bound)");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "threads": [{"name": "A", "ops": [{"op": "loop", "bound": 10001, "body": []}]}]})"),
            "t.json:1:76: /threads/0/ops/0/bound: 10001 is out of range [0, 10000]");
  // Nested bounds multiply: 1000 x 1000 x 1000 unrolled operations is refused.
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "threads": [{"name": "A", "ops": [{"op": "loop", "bound": 1000, "body": [{"op": "loop", "bound": 1000, "body": [{"op": "loop", "bound": 1000, "body": []}]}]}]}]})"),
            "t.json:1:130: /threads/0/ops/0/body/0/body/0: the thread runs more than 1000000 "
            "operations when its loops are unrolled");
}

TEST(SpecLoaderErrors, JsonSyntax) {
  EXPECT_EQ(error_of("{\n  \"atomcheck\": 1,\n  \"threads\": [\n    {\"name\": \"A\", \"ops\": [\n      {\"op\": \"fence\"},\n    ]}\n  ]\n}\n"),
            "t.json:6:5: trailing comma before ']'");
  EXPECT_EQ(error_of(""), "t.json:1:1: empty input: expected a JSON value");
  EXPECT_EQ(error_of("{\"atomcheck\": 1, \"atomcheck\": 1}"), "t.json:1:18: duplicate member \"atomcheck\"");
  EXPECT_EQ(error_of("{\"atomcheck\": 1} x"), "t.json:1:18: unexpected text after the JSON value");
  EXPECT_EQ(error_of("{\"a\": \"b\n\"}"), "t.json:1:9: unterminated string (raw newline in a string)");
  EXPECT_EQ(error_of("{\"a\": tru}"), "t.json:1:7: invalid literal: expected 'true'");
  EXPECT_EQ(error_of("{\"a\": 01}"), "t.json:1:8: invalid number: leading zero");
  EXPECT_EQ(error_of("{\"a\": \"\\ud800\"}"), "t.json:1:14: invalid \\u escape: unpaired high surrogate");
  EXPECT_EQ(error_of("// comment\n{}"), "t.json:1:1: unexpected '/': expected a value");
  EXPECT_EQ(error_of(std::string(65, '[') + std::string(65, ']')), "t.json:1:65: nesting deeper than 64 levels");
}

TEST(SpecLoaderErrors, VersionAndUnknownOperation) {
  EXPECT_EQ(error_of(R"({"threads": []})"), "t.json:1:1: /: missing field \"atomcheck\" (the format version, 1)");
  EXPECT_EQ(error_of(R"({"atomcheck": 2, "threads": []})"),
            "t.json:1:15: /atomcheck: unsupported format version 2 (this atomcheck reads version 1)");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "threads": [{"name": "A", "ops": [{"op": "mfence"}]}]})"),
            "t.json:1:59: /threads/0/ops/0/op: unknown operation \"mfence\" (expected one of: load, "
            "store, set, cas, xchg, fetch_add, fence, lock, unlock, begin, end, loop, if, assert, "
            "assume, spawn, join, await, wait, notify, read_lock, read_unlock, write_lock, write_unlock)");
}

TEST(SpecLoaderErrors, SpawnAndJoin) {
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "threads": [{"name": "A", "ops": [{"op": "spawn", "thread": "B"}, {"op": "join", "thread": "B"}, {"op": "spawn", "thread": "B"}]}, {"name": "B", "ops": []}]})"),
            "t.json:1:141: /threads/0/ops/2/thread: thread \"B\" may be spawned more than once (spawn "
            "each thread once, outside loops)");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "threads": [{"name": "A", "ops": [{"op": "join", "thread": "B"}]}, {"name": "B", "ops": []}]})"),
            "t.json:1:77: /threads/0/ops/0/thread: join of thread \"B\", which this thread does not "
            "spawn before this point");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "threads": [{"name": "A", "ops": [{"op": "spawn", "thread": "C"}]}]})"),
            "t.json:1:78: /threads/0/ops/0/thread: undefined thread \"C\"");
}

TEST(SpecLoaderErrors, Expectations) {
  const std::string head = R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [{"name": "A", "ops": [{"op": "load", "var": "x", "reg": "r"}]}], )";
  EXPECT_EQ(error_of(head + R"("expect": {"sc": {"reachable": [{"A.r": 0, "A.q": 1}]}}})"),
            "t.json:1:156: /expect/sc/reachable/0/A.q: undefined register \"q\" of thread \"A\"");
  EXPECT_EQ(error_of(head + R"("expect": {"sc": {"reachable": [{"y": 0}]}}})"),
            "t.json:1:146: /expect/sc/reachable/0/y: undefined variable \"y\" (a location is a "
            "variable or THREAD.REGISTER)");
  EXPECT_EQ(error_of(head + R"("expect": {"tso": {"checkers": {"velodrome": "many"}}}})"),
            "t.json:1:158: /expect/tso/checkers/velodrome: unknown count \"many\" (expected \"none\", "
            "\"some\", \"all\" or a number)");
  EXPECT_EQ(error_of(head + R"("expect": {"sc": {"serializable": "yes"}}})"),
            "t.json:1:147: /expect/sc/serializable: unknown value \"yes\" (expected \"all\", "
            "\"some-not\" or \"none\")");
  EXPECT_EQ(error_of(head + R"("expect": {"arm": {}}})"),
            "t.json:1:124: /expect/arm: unknown field \"arm\" (expected one of: sc, tso, rc11)");
}

TEST(SpecLoaderErrors, AtomicSetsAndUnits) {
  const std::string head = R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [{"name": "A", "ops": [{"op": "begin", "label": "u"}, {"op": "end"}]}], )";
  EXPECT_EQ(error_of(head + R"("atomic_sets": {"S": ["x", "y"]}})"),
            "t.json:1:146: /atomic_sets/S/1: undefined variable \"y\"");
  EXPECT_EQ(error_of(head + R"("atomic_sets": {"S": ["x"]}, "units_of_work": [{"label": "v", "sets": ["S"]}]})"),
            "t.json:1:176: /units_of_work/0/label: no \"begin\" has the label \"v\"");
  EXPECT_EQ(error_of(head + R"("atomic_sets": {"S": ["x"]}, "units_of_work": [{"label": "u", "sets": ["T"]}]})"),
            "t.json:1:190: /units_of_work/0/sets/0: undefined atomic set \"T\"");
}

TEST(SpecLoader, ValidSpecLoadsWithResolvedNames) {
  Spec s = parse_spec(R"({
  "atomcheck": 1, "name": "demo",
  "vars": {"x": 3, "y": -1}, "locks": ["m"],
  "threads": [
    {"name": "A", "regs": {"k": 7}, "ops": [
      {"op": "lock", "lock": "m"},
      {"op": "cas", "var": "y", "expected": -1, "desired": "k", "reg": "old", "ok": "won"},
      {"op": "unlock", "lock": "m"},
      {"op": "spawn", "thread": "B"},
      {"op": "join", "thread": "B"}
    ]},
    {"name": "B", "ops": [{"op": "begin", "label": "w"}, {"op": "fetch_add", "var": "x", "value": 2}, {"op": "end"}]}
  ],
  "atomic_sets": {"S": ["x", "y"]},
  "units_of_work": [{"label": "w", "sets": ["S"]}],
  "observe": ["x", "A.won"],
  "expect": {"sc": {"always": [{"x": 5, "A.old": -1}]}}
})",
                      "t.json");
  EXPECT_EQ(s.name, "demo");
  ASSERT_EQ(s.vars.size(), 2u);
  EXPECT_EQ(s.vars[1].init, -1);
  ASSERT_EQ(s.threads.size(), 2u);
  EXPECT_FALSE(s.threads[0].spawned_by_op);
  EXPECT_TRUE(s.threads[1].spawned_by_op);
  EXPECT_EQ(s.threads[0].regs, (std::vector<std::string>{"k", "old", "won"}));
  EXPECT_EQ(s.threads[0].reg_init, (std::vector<std::int64_t>{7, 0, 0}));
  EXPECT_EQ(s.threads[0].ops[1].kind, OpKind::cas);
  EXPECT_EQ(s.threads[0].ops[1].var, 1u);
  EXPECT_EQ(s.threads[0].ops[1].origin.pointer, "/threads/0/ops/1");
  EXPECT_EQ(s.threads[0].ops[1].origin.pos.line, 7u);
  ASSERT_EQ(s.atomic_sets.size(), 1u);
  EXPECT_EQ(s.atomic_sets[0].vars, (std::vector<std::uint32_t>{0, 1}));
  ASSERT_EQ(s.units_of_work.size(), 1u);
  EXPECT_EQ(s.units_of_work[0].label, "w");
  ASSERT_EQ(s.observed.size(), 3u);  // "x", "A.won", then "A.old" from the pattern
  EXPECT_EQ(s.observed[2].name, "A.old");
  EXPECT_TRUE(s.observed[2].is_reg);
  EXPECT_TRUE(s.expect_sc.present);
  EXPECT_FALSE(s.expect_tso.present);
}

TEST(SpecLoader, NameDefaultsToTheFileStem) {
  Spec s = parse_spec(R"({"atomcheck": 1, "threads": [{"name": "A", "ops": []}]})", "dir/my-test.json");
  EXPECT_EQ(s.name, "my-test");
}

TEST(SpecLoader, UnreadableFile) {
  try {
    load_spec("/nonexistent/x.json");
    FAIL() << "no error";
  } catch (const SpecError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/x.json: cannot read the file");
  }
}

// Issue 18, item 3: an await's body may only read; the error names the operation.
TEST(SpecLoaderErrors, AwaitBodyOnlyReads) {
  EXPECT_EQ(error_of(R"({
  "atomcheck": 1,
  "vars": {"x": 0},
  "threads": [{"name": "A", "regs": {"r": 0}, "ops": [
    {"op": "await", "body": [
      {"op": "load", "var": "x", "reg": "r"},
      {"op": "if", "cond": {"==": ["r", 0]}, "then": [{"op": "store", "var": "x", "value": 1}]}],
     "until": {"==": ["r", 1]}}
  ]}]
})"),
            "t.json:7:55: /threads/0/ops/0/body/1/then/0: \"store\" in an await body: it may only read "
            "(load, set, if), since a failed attempt is taken back");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [{"name": "A", "regs": {"r": 0}, "ops": [
    {"op": "await", "body": [{"op": "load", "var": "x", "reg": "r"}]}]}]})"),
            "t.json:2:5: /threads/0/ops/0: missing field \"until\"");
}

// Issue 22: condition variables and readers-writer locks are declared, named in their
// ops, and a wait holds its lock and only reads in its body.
TEST(SpecLoaderErrors, WaitNotifyAndRwlockOps) {
  const auto spec = [](const std::string& ops) {
    return R"({"atomcheck": 1, "vars": {"x": 0}, "locks": ["m"], "condvars": ["cv"], "rwlocks": ["rw"],
  "threads": [{"name": "A", "regs": {"r": 0}, "ops": [
    )" + ops + "]}]}";
  };
  EXPECT_EQ(error_of(spec(R"({"op": "wait", "cv": "cv", "lock": "m", "until": {"==": ["r", 1]}})")),
            "t.json:3:40: /threads/0/ops/0/lock: wait with lock \"m\", which is not held here");
  EXPECT_EQ(error_of(spec(R"({"op": "notify", "cv": "cw"})")),
            "t.json:3:28: /threads/0/ops/0/cv: unknown condition variable \"cw\" (declare it in \"condvars\")");
  EXPECT_EQ(error_of(spec(R"({"op": "read_lock", "rwlock": "rx"})")),
            "t.json:3:35: /threads/0/ops/0/rwlock: unknown rwlock \"rx\" (declare it in \"rwlocks\")");
  EXPECT_EQ(error_of(spec(R"({"op": "notify", "cv": "cv", "all": 1})")),
            "t.json:3:41: /threads/0/ops/0/all: expected a boolean, got an integer");
  EXPECT_EQ(error_of(spec(R"({"op": "lock", "lock": "m"},
    {"op": "wait", "cv": "cv", "lock": "m", "body": [{"op": "store", "var": "x", "value": 1}], "until": {"==": ["r", 1]}})")),
            "t.json:4:54: /threads/0/ops/1/body/0: \"store\" in a wait body: it may only read (load, set, if), "
            "since a failed attempt is taken back");
  EXPECT_EQ(error_of(R"({"atomcheck": 1, "condvars": ["cv", "cv"], "threads": [{"name": "A", "ops": []}]})"),
            "t.json:1:37: /condvars/1: condition variable \"cv\" is declared twice");
}

}  // namespace
}  // namespace atomcheck::spec
