// The spec interpreter and runner: every example in specs/examples passes its own
// expectations; deliberately wrong expectations fail with the expectation and the
// schedule of a refuting execution (which is replayed to check that it really refutes);
// the semantics of each operation (rmw, loops, if, assert, assume, spawn/join, locks);
// unavailable checkers fail clearly; and `atomcheck run SPEC.json` end to end.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "scheduler/runtime/api.hpp"
#include "specs/spec.hpp"
#include "tests/support/cli_runner.hpp"

namespace atomcheck::spec {
namespace {

std::vector<std::string> example_files() {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples"))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

const ExpectationResult* find_expectation(const RunReport& r, std::string_view what) {
  for (const ModelReport& m : r.models)
    for (const ExpectationResult& e : m.expectations)
      if (e.what == what) return &e;
  return nullptr;
}

// The schedule quoted in a message: execution #N (schedule "S").
std::string quoted_schedule(const std::string& detail) {
  auto a = detail.find("(schedule \"");
  if (a == std::string::npos) return "";
  a += 11;
  auto b = detail.find('"', a);
  return detail.substr(a, b - a);
}

TEST(SpecExamples, EveryExamplePassesItsOwnExpectations) {
  auto files = example_files();
  ASSERT_GE(files.size(), 12u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    Spec s = load_spec(f);
    RunReport r = run_spec(s, {});
    EXPECT_EQ(r.exit_code(), 0) << format_report(s, r);
    // Each example checks more than the implicit "no failures".
    std::size_t n = 0;
    for (const ModelReport& m : r.models) n += m.expectations.size();
    EXPECT_GT(n, r.models.size()) << "no explicit expectation in " << f;
  }
}

TEST(SpecRun, WrongExpectationNamesItAndTheRefutingSchedule) {
  Spec s = load_spec(testing::data_path("spec_wrong_expectation.json"));
  RunReport r = run_spec(s, {});
  EXPECT_EQ(r.exit_code(), 1);
  const ExpectationResult* sc = find_expectation(r, "sc: unreachable {P0.r0=0, P1.r0=0}");
  ASSERT_NE(sc, nullptr);
  EXPECT_TRUE(sc->holds);
  const ExpectationResult* e = find_expectation(r, "tso: unreachable {P0.r0=0, P1.r0=0}");
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(e->holds);
  EXPECT_FALSE(e->inconclusive);
  EXPECT_EQ(e->origin.pointer, "/expect/tso/unreachable/0");
  EXPECT_EQ(e->origin.pos.line, 18u);
  EXPECT_NE(e->detail.find("reached by execution #"), std::string::npos) << e->detail;
  EXPECT_NE(e->detail.find("with outcome P0.r0=0 P1.r0=0"), std::string::npos) << e->detail;
  // The schedule really leads to the forbidden outcome.
  std::string schedule = quoted_schedule(e->detail);
  ASSERT_FALSE(schedule.empty()) << e->detail;
  ExploreOptions o;
  o.memory = MemoryModelKind::tso;
  ReplayResult rr = replay(spec_program(s), schedule, o);
  ASSERT_FALSE(rr.failed);
  EXPECT_EQ(format_outcome(rr.outcome), "P0.r0=0 P1.r0=0");
  std::string text = format_report(s, r);
  EXPECT_NE(text.find("FAIL  tso: unreachable {P0.r0=0, P1.r0=0}  [" + s.file + ":18:"), std::string::npos)
      << text;
  EXPECT_NE(text.find("FAIL: 1 of 4 expectations failed"), std::string::npos) << text;
}

const char* kRho2 = R"({"atomcheck": 1, "vars": {"x": 0, "y": 0}, "threads": [
 {"name": "t1", "ops": [{"op": "begin"}, {"op": "store", "var": "x", "value": 1}, {"op": "load", "var": "y", "reg": "ry"}, {"op": "end"}]},
 {"name": "t2", "ops": [{"op": "begin"}, {"op": "load", "var": "x", "reg": "rx"}, {"op": "store", "var": "y", "value": 1}, {"op": "end"}]}],
 "expect": {"sc": {)";

RunReport run_text(const std::string& text, Spec& s, const RunOptions& o = {}) {
  s = parse_spec(text, "t.json");
  return run_spec(s, o);
}

TEST(SpecRun, WrongSerializabilityAndCheckerExpectations) {
  Spec s;
  RunReport r = run_text(std::string(kRho2) +
                             R"("serializable": "all", "checkers": {"velodrome": "none", "aerodrome": "all", "oracle": {"not_serializable": 3}},
                               "reachable": [{"t1.ry": 2}]}}})",
                         s);
  EXPECT_EQ(r.exit_code(), 1);
  const ExpectationResult* ser = find_expectation(r, "sc: serializable \"all\"");
  ASSERT_NE(ser, nullptr);
  EXPECT_FALSE(ser->holds);
  EXPECT_NE(ser->detail.find("not conflict serializable in 2 of 6 executions, first: execution #"),
            std::string::npos)
      << ser->detail;
  // Replaying the quoted schedule gives a trace the oracle rejects.
  ExploreOptions o;
  o.checkers = {"oracle"};
  ReplayResult rr = replay(spec_program(s), quoted_schedule(ser->detail), o);
  ASSERT_EQ(rr.verdicts.size(), 1u);
  EXPECT_FALSE(rr.verdicts[0].serializable);

  const ExpectationResult* v = find_expectation(r, "sc: checker velodrome flagged none");
  ASSERT_NE(v, nullptr);
  EXPECT_NE(v->detail.find("flagged in 2 of 6 executions, first: execution #"), std::string::npos) << v->detail;
  const ExpectationResult* a = find_expectation(r, "sc: checker aerodrome flagged all");
  ASSERT_NE(a, nullptr);
  EXPECT_NE(a->detail.find("not flagged in 4 of 6 executions, first: execution #"), std::string::npos) << a->detail;
  rr = replay(spec_program(s), quoted_schedule(a->detail), o);
  EXPECT_TRUE(rr.verdicts[0].serializable);
  const ExpectationResult* n = find_expectation(r, "sc: checker oracle not_serializable 3");
  ASSERT_NE(n, nullptr);
  EXPECT_NE(n->detail.find("not serializable in 2 of 6 executions, expected 3"), std::string::npos) << n->detail;
  const ExpectationResult* re = find_expectation(r, "sc: reachable {t1.ry=2}");
  ASSERT_NE(re, nullptr);
  EXPECT_EQ(re->detail, "no execution reaches it (6 completed executions)");
}

TEST(SpecRun, UnavailableCheckerFailsClearly) {
  Spec s;
  RunReport r = run_text(std::string(kRho2) + R"("checkers": {"no-such-checker": "none"}}}})", s);
  EXPECT_EQ(r.exit_code(), 1);
  const ExpectationResult* e = find_expectation(r, "sc: checker no-such-checker flagged none");
  ASSERT_NE(e, nullptr);
  EXPECT_FALSE(e->holds);
  EXPECT_EQ(e->detail.rfind("checker \"no-such-checker\" is not available (available: regiontrack-blame,", 0), 0u)
      << e->detail;
  EXPECT_NE(e->detail.find(", oracle,"), std::string::npos) << e->detail;  // the judges are registered too
}

TEST(SpecRun, SomeNotAndNoneSerializable) {
  Spec s;
  EXPECT_EQ(run_text(std::string(kRho2) + R"("serializable": "some-not"}}})", s).exit_code(), 0);
  RunReport r = run_text(std::string(kRho2) + R"("serializable": "none"}}})", s);
  EXPECT_EQ(r.exit_code(), 1);
  const ExpectationResult* e = find_expectation(r, "sc: serializable \"none\"");
  ASSERT_NE(e, nullptr);
  // Optimal DPOR by default: rho2's 4 classes, 2 of them serializable.
  EXPECT_NE(e->detail.find("conflict serializable in 2 of 4 executions, first: execution #"), std::string::npos) << e->detail;
}

TEST(SpecRun, OperationSemantics) {
  // One thread, so every value is determined: rmw results, loops, if/else, set, cas
  // success and failure, expressions with wrap-around.
  Spec s;
  RunReport r = run_text(R"({"atomcheck": 1, "vars": {"x": 0, "y": 5}, "threads": [{"name": "A", "ops": [
    {"op": "set", "reg": "i", "value": 0},
    {"op": "loop", "bound": 4, "body": [{"op": "fetch_add", "var": "x", "value": 3, "reg": "old"}, {"op": "set", "reg": "i", "value": {"+": ["i", 1]}}]},
    {"op": "cas", "var": "y", "expected": 5, "desired": {"*": ["i", 10]}, "reg": "c1", "ok": "ok1"},
    {"op": "cas", "var": "y", "expected": 5, "desired": 0, "reg": "c2", "ok": "ok2"},
    {"op": "xchg", "var": "x", "value": -1, "reg": "xo"},
    {"op": "if", "cond": {"&&": [{"==": ["ok1", 1]}, {"!": ["ok2"]}]}, "then": [{"op": "set", "reg": "br", "value": 1}], "else": [{"op": "set", "reg": "br", "value": 2}]},
    {"op": "set", "reg": "w", "value": {"+": [9223372036854775807, 1]}},
    {"op": "set", "reg": "n", "value": {"-": ["i"]}},
    {"op": "loop", "bound": 10, "while": {"<": ["i", 6]}, "body": [{"op": "set", "reg": "i", "value": {"+": ["i", 1]}}]},
    {"op": "assert", "cond": {"==": ["i", 6]}, "message": "loop ran to i=6"}
  ]}], "expect": {"sc": {"executions": 1, "always": [{"x": -1, "y": 40, "A.old": 9, "A.c1": 5, "A.ok1": 1, "A.c2": 40, "A.ok2": 0,
     "A.xo": 12, "A.br": 1, "A.w": -9223372036854775808, "A.n": -4, "A.i": 6}]}}})",
                         s);
  EXPECT_EQ(r.exit_code(), 0) << format_report(s, r);
}

TEST(SpecRun, LocksPreventLostUpdatesAndSpawnJoinNest) {
  const std::string counter = R"({"atomcheck": 1, "vars": {"c": 0}, "locks": ["m"], "threads": [
    {"name": "main", "ops": [{"op": "spawn", "thread": "A"}, {"op": "spawn", "thread": "B"}, {"op": "join", "thread": "A"}, {"op": "join", "thread": "B"},
       {"op": "load", "var": "c", "reg": "final"}]},
    {"name": "A", "ops": [{"op": "loop", "bound": 2, "body": [LOCK{"op": "load", "var": "c", "reg": "r"}, {"op": "store", "var": "c", "value": {"+": ["r", 1]}}UNLOCK]}]},
    {"name": "B", "ops": [{"op": "loop", "bound": 2, "body": [LOCK{"op": "load", "var": "c", "reg": "r"}, {"op": "store", "var": "c", "value": {"+": ["r", 1]}}UNLOCK]}]}],
    "expect": {"sc": EXPECT, "tso": EXPECT}})";
  auto make = [&](bool locked, const std::string& expect) {
    std::string t = counter;
    auto rep = [&t](const std::string& a, const std::string& b) {
      for (auto p = t.find(a); p != std::string::npos; p = t.find(a)) t.replace(p, a.size(), b);
    };
    rep("UNLOCK", locked ? R"(, {"op": "unlock", "lock": "m"})" : "");
    rep("LOCK", locked ? R"({"op": "lock", "lock": "m"}, )" : "");
    rep("EXPECT", expect);
    return t;
  };
  Spec s;
  RunReport r = run_text(make(true, R"({"always": [{"c": 4, "main.final": 4}]})"), s);
  EXPECT_EQ(r.exit_code(), 0) << format_report(s, r);
  r = run_text(make(false, R"({"reachable": [{"c": 2}, {"c": 4}], "unreachable": [{"c": 1}], "always": [{"c": 2}, {"c": 3}, {"c": 4}]})"), s);
  EXPECT_EQ(r.exit_code(), 0) << format_report(s, r);
}

TEST(SpecRun, AssertFailuresAndDeadlocks) {
  Spec s;
  const std::string racy = R"({"atomcheck": 1, "vars": {"c": 0}, "threads": [
    {"name": "A", "ops": [{"op": "load", "var": "c", "reg": "r"}, {"op": "store", "var": "c", "value": {"+": ["r", 1]}}]},
    {"name": "B", "ops": [{"op": "load", "var": "c", "reg": "r"}, {"op": "store", "var": "c", "value": {"+": ["r", 1]}},
                          {"op": "load", "var": "c", "reg": "seen"}, {"op": "assert", "cond": {">": ["seen", 0]}, "message": "counter stays positive"}]}],
    "expect": {"sc": {FAIL}}})";
  auto with = [&](const std::string& f) {
    std::string t = racy;
    t.replace(t.find("FAIL"), 4, f);
    return t;
  };
  // The assertion always holds here, so "some" failures is refuted...
  RunReport r = run_text(with(R"("failures": "some")"), s);
  EXPECT_EQ(r.exit_code(), 1);
  // ...and the default "failures none" holds.
  EXPECT_EQ(run_text(with(""), s).exit_code(), 0);

  const std::string deadlock = R"({"atomcheck": 1, "locks": ["m", "n"], "threads": [
    {"name": "A", "ops": [{"op": "lock", "lock": "m"}, {"op": "lock", "lock": "n"}, {"op": "unlock", "lock": "n"}, {"op": "unlock", "lock": "m"}]},
    {"name": "B", "ops": [{"op": "lock", "lock": "n"}, {"op": "lock", "lock": "m"}, {"op": "unlock", "lock": "m"}, {"op": "unlock", "lock": "n"}]}]EXPECT})";
  std::string t = deadlock;
  t.replace(t.find("EXPECT"), 6, "");
  r = run_text(t, s);
  EXPECT_EQ(r.exit_code(), 1);
  const ExpectationResult* e = find_expectation(r, "sc: failures none");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->detail.find("failed in 1 of 3 executions, first: execution #"), std::string::npos) << e->detail;
  EXPECT_NE(e->detail.find("): deadlock: T0 waits to join T1; T1 waits for n (held by T2); T2 waits for m (held by T1)"), std::string::npos) << e->detail;
  t = deadlock;
  t.replace(t.find("EXPECT"), 6, R"(, "expect": {"sc": {"failures": 2}, "tso": {"failures": "some"}})");
  // An exact count is of DFS's schedules: that model runs under DFS, and says why.
  r = run_text(t, s);
  EXPECT_EQ(r.exit_code(), 0) << format_report(s, r);
  EXPECT_NE(format_report(s, r).find("strategy dfs (\"failures\" counts schedules)"), std::string::npos)
      << format_report(s, r);
  EXPECT_NE(format_report(s, r).find("strategy optimal"), std::string::npos) << format_report(s, r);

  const std::string failing = R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [
    {"name": "A", "ops": [{"op": "store", "var": "x", "value": 1}]},
    {"name": "B", "ops": [{"op": "load", "var": "x", "reg": "r"}, {"op": "assert", "cond": {"==": ["r", 1]}, "message": "B sees A's store"}]}],
    "expect": {"sc": {"failures": "none"}}})";
  r = run_text(failing, s);
  e = find_expectation(r, "sc: failures none");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->detail.find("B sees A's store"), std::string::npos) << e->detail;
}

TEST(SpecRun, BoundedWhileLoopsCutExecutionsThatRunOut) {
  // B spins at most twice waiting for the flag (yielding between tries); executions in
  // which it would spin longer are cut, never reported as completed with flag=0.
  Spec s;
  RunReport r = run_text(R"({"atomcheck": 1, "vars": {"flag": 0, "data": 0}, "threads": [
    {"name": "A", "ops": [{"op": "store", "var": "data", "value": 42}, {"op": "store", "var": "flag", "value": 1}]},
    {"name": "B", "ops": [{"op": "load", "var": "flag", "reg": "f"},
                          {"op": "loop", "bound": 2, "yield": true, "while": {"==": ["f", 0]}, "body": [{"op": "load", "var": "flag", "reg": "f"}]},
                          {"op": "load", "var": "data", "reg": "d"}]}],
    "expect": {"sc": {"always": [{"B.f": 1, "B.d": 42}]}, "tso": {"always": [{"B.f": 1, "B.d": 42}]}}})",
                         s);
  EXPECT_EQ(r.exit_code(), 0) << format_report(s, r);
  EXPECT_GT(r.models[0].result.completed, 0u);
}

TEST(SpecRun, MemoryOptionChoosesModels) {
  Spec s = load_spec(std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples/sb.json");
  RunOptions o;
  o.memories = {MemoryModelKind::tso};
  RunReport r = run_spec(s, o);
  ASSERT_EQ(r.models.size(), 1u);
  EXPECT_EQ(r.models[0].memory, MemoryModelKind::tso);
  EXPECT_EQ(r.exit_code(), 0);
  o.memories = {};
  o.extra_checkers = {"velodrome"};
  r = run_spec(s, o);
  ASSERT_EQ(r.models.size(), 2u);
  ASSERT_EQ(r.models[1].result.checkers.size(), 1u);
  EXPECT_EQ(r.models[1].result.checkers[0].name, "velodrome");
}

// Memory orders under rc11 (specs/examples/mp-rc11.json): relaxed message passing lets
// the reader see the flag without the data, release/acquire forbids it; sc and tso forbid
// both (their loads and stores keep their order whatever the spec says). The final values
// under rc11 are the coherence-last writes. And --memory rc11 runs rc11 alone.
TEST(SpecRun, MemoryOrdersUnderRc11) {
  Spec s = load_spec(std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples/mp-rc11.json");
  RunReport r = run_spec(s, RunOptions{});
  ASSERT_EQ(r.models.size(), 3u);
  EXPECT_EQ(r.models[2].memory, MemoryModelKind::rc11);
  EXPECT_EQ(r.exit_code(), 0) << format_report(s, r);
  std::size_t rc11_expectations = 0;
  for (const ExpectationResult& e : r.models[2].expectations) rc11_expectations += e.holds;
  EXPECT_EQ(rc11_expectations, 4u) << format_report(s, r);  // reachable, unreachable, always, failures
  // The relaxed pair's weak outcome exists under rc11 only; the ordered pair's nowhere.
  const std::string report = format_report(s, r);
  EXPECT_NE(report.find("ok    rc11: reachable {P1.r0=1, P1.r1=0}"), std::string::npos) << report;
  EXPECT_NE(report.find("ok    sc: unreachable {P1.r0=1, P1.r1=0}"), std::string::npos) << report;
  // Without the orders the release/acquire pair is relaxed too, and rc11's expectation fails.
  for (Thread& t : s.threads)
    for (Operation& op : t.ops) op.order = kDefaultOrder;
  RunOptions only;
  only.memories = {MemoryModelKind::rc11};
  r = run_spec(s, only);
  ASSERT_EQ(r.models.size(), 1u);
  EXPECT_EQ(r.exit_code(), 1) << format_report(s, r);
  auto cli = testing::run_cli({"run", std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples/mp-rc11.json",
                               "--memory", "rc11"});
  EXPECT_EQ(cli.exit_code, 0) << cli.out << cli.err;
  EXPECT_NE(cli.out.find("rc11: "), std::string::npos) << cli.out;
  EXPECT_EQ(cli.out.find("sc: "), std::string::npos) << cli.out;
}

TEST(SpecRun, BudgetLeavesExpectationsUndecided) {
  Spec s = load_spec(std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples/sb.json");
  RunOptions o;
  o.explore.max_executions = 2;
  o.memories = {MemoryModelKind::sc};
  RunReport r = run_spec(s, o);
  EXPECT_EQ(r.exit_code(), 3) << format_report(s, r);
  EXPECT_NE(format_report(s, r).find("UNDECIDED sc: unreachable"), std::string::npos) << format_report(s, r);
  // A random sample that ran its course is not exhaustive either.
  o.explore.max_executions = 50;
  o.strategy = StrategyKind::random;
  r = run_spec(s, o);
  EXPECT_EQ(r.exit_code(), 3) << format_report(s, r);
  EXPECT_FALSE(r.models[0].exhaustive);
  EXPECT_NE(format_report(s, r).find("not exhaustive: sampled"), std::string::npos) << format_report(s, r);
}

// Issue 21, item 4: a DPOR search that covers the program decides the expectations like
// DFS (it used to call every such search "sampled"); one that meets a yield() wait it
// cannot follow says so, and the run ends undecided (exit 3), not "stopped: exhausted".
TEST(SpecRun, DporDecidesUnlessItMeetsAYieldWait) {
  for (StrategyKind strategy : {StrategyKind::optimal, StrategyKind::dpor}) {
    for (const std::string& f : example_files()) {
      SCOPED_TRACE(f);
      Spec s = load_spec(f);
      RunOptions o;
      o.strategy = strategy;
      RunReport r = run_spec(s, o);
      for (const ModelReport& m : r.models) {
        if (m.result.reduction_incomplete) continue;  // the examples with yield() loops
        EXPECT_TRUE(m.exhaustive) << format_report(s, r);
        for (const ExpectationResult& e : m.expectations) EXPECT_FALSE(e.inconclusive) << e.what;
      }
    }
  }
  Spec wait = parse_spec(R"({"atomcheck": 1, "vars": {"flag": 0, "data": 0}, "threads": [
    {"name": "P", "ops": [{"op": "store", "var": "data", "value": 1},
                          {"op": "store", "var": "flag", "value": 1}]},
    {"name": "C", "regs": {"f": 0, "d": 0}, "ops": [
      {"op": "loop", "bound": 10, "while": {"==": ["f", 0]}, "yield": true,
       "body": [{"op": "load", "var": "flag", "reg": "f"}]},
      {"op": "load", "var": "data", "reg": "d"},
      {"op": "assert", "cond": {"==": ["d", 1]}}]}],
    "expect": {"tso": {"failures": "none"}}})",
                         "wait.json");
  RunOptions o;
  o.strategy = StrategyKind::optimal;
  o.memories = {MemoryModelKind::tso};
  // A loop that only reads is inside DPOR's model (issue 18): decided, as DFS decides it.
  RunReport r = run_spec(wait, o);
  EXPECT_EQ(r.exit_code(), 0) << format_report(wait, r);
  EXPECT_NE(format_report(wait, r).find("exhaustive"), std::string::npos) << format_report(wait, r);
  EXPECT_EQ(format_report(wait, r).find("not exhaustive"), std::string::npos) << format_report(wait, r);
  // One whose repeated iteration stores cannot be deleted from an execution: outside it.
  Spec store_wait = parse_spec(R"({"atomcheck": 1, "vars": {"flag": 0, "data": 0, "seen": 0}, "threads": [
    {"name": "P", "ops": [{"op": "store", "var": "data", "value": 1},
                          {"op": "store", "var": "flag", "value": 1}]},
    {"name": "C", "regs": {"f": 0, "d": 0}, "ops": [
      {"op": "loop", "bound": 10, "while": {"==": ["f", 0]}, "yield": true,
       "body": [{"op": "store", "var": "seen", "value": 1}, {"op": "load", "var": "flag", "reg": "f"}]},
      {"op": "load", "var": "data", "reg": "d"},
      {"op": "assert", "cond": {"==": ["d", 1]}}]}],
    "expect": {"tso": {"failures": "none"}}})",
                               "wait.json");
  r = run_spec(store_wait, o);
  const std::string text = format_report(store_wait, r);
  EXPECT_EQ(r.exit_code(), 3) << text;
  EXPECT_NE(text.find("not exhaustive: reduction-incomplete: yield() (a repeated iteration that stores) at "
                      "wait.json:5 (DPOR does not model this wait; --strategy dfs explores it)"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("exhausted"), std::string::npos) << text;
  o.strategy = StrategyKind::dfs;
  r = run_spec(store_wait, o);
  EXPECT_EQ(r.exit_code(), 0) << format_report(store_wait, r);
  // No strategy asked for: the default, optimal DPOR, hands that wait to DFS, and says so.
  o.strategy.reset();
  r = run_spec(store_wait, o);
  EXPECT_EQ(r.exit_code(), 0) << format_report(store_wait, r);
  EXPECT_NE(format_report(store_wait, r).find("strategy dfs (optimal DPOR does not model yield()"), std::string::npos)
      << format_report(store_wait, r);
}

TEST(SpecRun, DeepestNestingTheReaderAllowsRunsOnAFiberStack) {
  // Ifs nested as deep as the JSON reader allows, around an expression nested likewise:
  // the interpreter recurses on a fiber's small stack and must not overflow it.
  std::string expr = "1";
  for (int i = 0; i < 14; ++i) expr = "{\"+\": [" + expr + ", 1]}";
  std::string ops = "{\"op\": \"store\", \"var\": \"x\", \"value\": " + expr + "}";
  int depth = 0;
  for (; depth < 14; ++depth) ops = "{\"op\": \"if\", \"cond\": 1, \"then\": [" + ops + "]}";
  std::string text = "{\"atomcheck\": 1, \"vars\": {\"x\": 0}, \"threads\": [{\"name\": \"A\", \"ops\": [" + ops +
                     "]}], \"expect\": {\"sc\": {\"always\": [{\"x\": 15}]}}}";
  Spec s;
  RunReport r = run_text(text, s);
  EXPECT_EQ(r.exit_code(), 0) << format_report(s, r);
  // One level more and the reader refuses the input instead.
  EXPECT_THROW(parse_spec("{\"atomcheck\": 1, \"threads\": [{\"name\": \"A\", \"ops\": [" +
                              std::string(64, '[') + std::string(64, ']') + "]}]}",
                          "t.json"),
               SpecError);
}

// ---- the command line ----------------------------------------------------------------

TEST(SpecCli, RunsAnExampleAndExitsZero) {
  auto r = testing::run_cli({"run", std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples/mp.json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS: all 10 expectations hold"), std::string::npos) << r.out;
  r = testing::run_cli({"run", std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples/mp.json", "--memory", "sc", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["models"].size(), 1u);
  EXPECT_EQ(j["models"][0]["memory"], "sc");
  EXPECT_EQ(j["ok"], true);
}

TEST(SpecCli, WrongExpectationExitsOneWithTheSchedule) {
  auto r = testing::run_cli({"run", testing::data_path("spec_wrong_expectation.json"), "--memory", "both"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL  tso: unreachable {P0.r0=0, P1.r0=0}"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reached by execution #"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(schedule \""), std::string::npos) << r.out;
}

TEST(SpecCli, BadSpecIsOneLineOnStderrExitTwo) {
  std::string dir = testing::temp_dir();
  std::string path = dir + "/bad.json";
  std::ofstream(path) << "{\"atomcheck\": 1,\n \"threads\": [{\"name\": \"A\", \"ops\": [{\"op\": \"end\"}]}]}\n";
  auto r = testing::run_cli({"run", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, path + ":2:36: /threads/0/ops/0: \"end\" without \"begin\"\n");
  EXPECT_EQ(r.out, "");
  r = testing::run_cli({"run", path, "--checker", "nosuch"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(SpecCli, ReplayPrintsTheExecution) {
  auto r = testing::run_cli({"run", std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples/aerodrome-rho3.json",
                             "--memory", "sc", "--replay", "121", "--checker", "oracle"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("outcome: t1.ry=1 t2.rx=1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("checker oracle: not serializable"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace atomcheck::spec

namespace atomcheck::spec {
namespace {

// A spec always terminates, so the default step bound (1000, there to report unbounded
// spins in C++ programs) is raised to what its bounded loops can take: 3,000 loads run
// to the end, while a spec that sets max_steps keeps it.
TEST(SpecRun, LongBoundedLoopsAreNotCutByTheDefaultStepBound) {
  const std::string text = R"({"atomcheck": 1, "vars": {"x": 0}, "threads": [
    {"name": "t", "ops": [{"op": "loop", "bound": 3000, "body": [{"op": "load", "var": "x", "reg": "r"}]}]}]})";
  Spec s = parse_spec(text, "long.json");
  EXPECT_GE(s.max_steps, 3000u);
  RunReport r = run_spec(s, {});
  ASSERT_EQ(r.models.size(), 1u);
  EXPECT_EQ(r.models[0].result.step_bounded, 0u);
  EXPECT_EQ(r.models[0].result.completed, 1u);
  Spec capped = parse_spec(R"({"atomcheck": 1, "max_steps": 100, "vars": {"x": 0}, "threads": [
    {"name": "t", "ops": [{"op": "loop", "bound": 3000, "body": [{"op": "load", "var": "x", "reg": "r"}]}]}]})",
                           "capped.json");
  EXPECT_EQ(capped.max_steps, 100u);
  EXPECT_EQ(run_spec(capped, {}).models[0].result.step_bounded, 1u);
}

// Issue 18, item 3: `await` is spin_until. Every exhaustive strategy finds the same
// outcomes and failures, under SC and TSO; an await nobody satisfies is reported with
// the spec's own line.
TEST(SpecRun, AwaitIsExactUnderEveryStrategy) {
  Spec broken = parse_spec(R"({"atomcheck": 1, "vars": {"flag": 0, "data": 0}, "threads": [
    {"name": "P", "ops": [{"op": "store", "var": "flag", "value": 1},
                          {"op": "store", "var": "data", "value": 1}]},
    {"name": "C", "regs": {"f": 0, "d": 0}, "ops": [
      {"op": "await", "body": [{"op": "load", "var": "flag", "reg": "f"}], "until": {"==": ["f", 1]}},
      {"op": "load", "var": "data", "reg": "d"}]}],
    "expect": {"sc": {"reachable": [{"C.d": 0}, {"C.d": 1}]}, "tso": {"reachable": [{"C.d": 0}, {"C.d": 1}]}}})",
                           "broken.json");
  for (StrategyKind strategy : {StrategyKind::dfs, StrategyKind::dpor, StrategyKind::optimal}) {
    RunOptions o;
    o.strategy = strategy;
    RunReport r = run_spec(broken, o);
    EXPECT_EQ(r.exit_code(), 0) << format_report(broken, r);
    for (const ModelReport& m : r.models) {
      EXPECT_TRUE(m.exhaustive) << format_report(broken, r);
      EXPECT_EQ(m.outcomes.size(), 2u) << format_report(broken, r);
    }
  }
  Spec stuck = parse_spec(R"({"atomcheck": 1, "vars": {"flag": 0}, "threads": [
    {"name": "C", "regs": {"f": 0}, "ops": [
      {"op": "await", "body": [{"op": "load", "var": "flag", "reg": "f"}], "until": {"==": ["f", 1]}}]}]})",
                          "stuck.json");
  RunReport r = run_spec(stuck, {});
  EXPECT_EQ(r.exit_code(), 1) << format_report(stuck, r);
  EXPECT_NE(format_report(stuck, r).find("spins forever in spin_until (stuck.json:3)"), std::string::npos)
      << format_report(stuck, r);
}

}  // namespace
}  // namespace atomcheck::spec
