// herd7's C litmus dialect: the parser reads herd's forms into the expected program,
// every malformed or unsupported input is one exact `FILE:LINE:COL: ...` message (exit 2
// from `atomcheck run`), the bundled tests of tests/data/litmus-c give their documented
// answers under SC and TSO, the stored RC11 answers are consistent with them (a model
// that C11 compiles to allows at least what SC allows), the RC11 explorer gives the
// stored RC11 answers, and the command prints herd's layout and JSON (rc11 by default).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "specs/litmus.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/litmus_text.hpp"

namespace {

using namespace atomcheck;
using namespace atomcheck::litmus;
using LitmusTest = atomcheck::litmus::Test;
namespace fs = std::filesystem;

std::string parse_error(const std::string& text, const std::string& file = "t.litmus") {
  return testing_support::litmus_parse_error(text, file);
}
using testing_support::replaced;

// A message-passing test with a plain location, an if/else and both kinds of calls.
const char* const kGood = R"(C MP+plain
(* a comment *)
{ [x] = 0; [y] = 0; }

P0 (int* x, atomic_int* y) {
  *x = 1;
  atomic_store_explicit(y, 1, memory_order_release);
}

P1 (int* x, atomic_int* y) {
  int r1 = -1;
  int r0 = atomic_load_explicit(y, memory_order_acquire);
  if (r0 == 1) {
    r1 = *x;
  } else
    r1 = 2;
}

exists (1:r0=1 /\ 1:r1=0)
)";

TEST(LitmusC, ParsesThreadsLocalsAndLocations) {
  LitmusTest t = parse_litmus(kGood, "t.litmus");
  EXPECT_EQ(t.arch, Arch::c);
  EXPECT_EQ(t.name, "MP+plain");
  ASSERT_EQ(t.c_threads.size(), 2u);
  ASSERT_EQ(t.vars.size(), 2u);
  EXPECT_EQ(t.vars[0], "x");
  EXPECT_FALSE(t.var_atomic[0]);  // declared int* everywhere, never passed to atomic_*
  EXPECT_TRUE(t.var_atomic[1]);
  const CThread& p0 = t.c_threads[0];
  ASSERT_EQ(p0.stmts.size(), 2u);
  EXPECT_EQ(p0.stmts[0].kind, CStmt::Kind::store);
  EXPECT_TRUE(p0.stmts[0].plain);
  EXPECT_EQ(p0.stmts[1].order, std::memory_order_release);
  const CThread& p1 = t.c_threads[1];
  EXPECT_EQ(p1.locals, (std::vector<std::string>{"r1", "r0"}));
  // r1 = -1; r0 = load; if (then: r1 = *x) (else: r1 = 2)
  ASSERT_EQ(p1.stmts.size(), 5u);
  EXPECT_EQ(p1.stmts[2].kind, CStmt::Kind::branch);
  EXPECT_EQ(p1.stmts[2].then_count, 1u);
  EXPECT_EQ(p1.stmts[2].else_count, 1u);
  EXPECT_EQ(p1.stmts[2].line, 13u);
  EXPECT_EQ(condition_text(t), "exists (1:r0=1 /\\ 1:r1=0)");
  // An atomic type in the init block makes the location atomic too.
  LitmusTest u = parse_litmus(replaced(kGood, "{ [x] = 0; [y] = 0; }", "{ atomic_int x = 0; int y; }"), "t.litmus");
  EXPECT_TRUE(u.var_atomic[0]);
  EXPECT_TRUE(u.var_atomic[1]);
  LitmusTest w = parse_litmus(replaced(kGood, "{ [x] = 0; [y] = 0; }", "{ _Atomic int x = 0; }"), "t.litmus");
  EXPECT_TRUE(w.var_atomic[0]);
  EXPECT_EQ(location_name(t, t.observed[0]), "1:r0");
}

// Answers under SC: the C11 acquire/release message passing cannot see the flag without
// the data; the else branch runs when the flag is not seen.
TEST(LitmusC, RunsUnderScAndTso) {
  LitmusTest t = parse_litmus(kGood, "t.litmus");
  for (MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::tso}) {
    RunResult r = run_litmus(t, m);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.racy);
    // (r0, r1): (0, 2) and (1, 1).
    EXPECT_EQ(r.states, (std::vector<std::vector<std::int64_t>>{{0, 2}, {1, 1}}));
  }
}

// herd's own C forms (herd/tests/instructions/C of herdtools7, whose .expected files give
// the answers used here): `{ x = 1 }` without brackets or `;`, const/volatile pointers,
// `forall` and `~exists` without parentheses, `0: r0` with spaces, a compare-exchange
// whose expected value is a location (C16), an exchange (C15), expressions (C13).
TEST(LitmusC, HerdForms) {
  struct Case {
    const char* text;
    bool ok;
    std::size_t states;
  };
  const Case cases[] = {
      // C01: a read of the initial value.
      {"C a\n{ x = 1 }\nP0 (const int* x) {\n  int r0 = *x;\n}\nforall (0: r0 = 1)\n", true, 1},
      // C02: forall fails in the one state.
      {"C b\n{}\nP0 (const int* y, volatile int* x) {\n  int r0 = *x;\n  *y = 1;\n}\n"
       "forall (0:r0=1 /\\ y=1)\n",
       false, 1},
      // C14: relaxed increments are not lost.
      {"C c\n{}\nP0 (atomic_int* y) {\n  atomic_fetch_add_explicit(y,1,memory_order_relaxed);\n}\n"
       "P1 (atomic_int* y) {\n  atomic_fetch_add_explicit(y,1,memory_order_relaxed);\n}\nforall y=2\n",
       true, 1},
      // C15: exchange against a store.
      {"C d\n{}\nP0 (atomic_int* y) {\n  atomic_store_explicit(y,1,memory_order_relaxed);\n}\n"
       "P1 (atomic_int* y) {\n  int r1 = atomic_exchange_explicit(y,2,memory_order_relaxed);\n}\n"
       "~exists 1:r1=0 /\\ y=2\n",
       true, 2},
      // C16: a failing compare-exchange writes what it found into *z.
      {"C e\n{}\nP0 (atomic_int* y) {\n  atomic_store_explicit(y,1,memory_order_relaxed);\n}\n"
       "P1 (atomic_int* y, int *z) {\n  atomic_compare_exchange_strong(y,z,2);\n}\n~exists z=0 /\\ y=2\n",
       true, 2},
      // C13: load buffering through a data dependency, with an expression.
      {"C f\n{\nx = 0;\ny = 0;\n}\nP0(atomic_int *x, atomic_int *y) {\n"
       "  int r1 = atomic_load_explicit(y, memory_order_relaxed);\n"
       "  atomic_store_explicit(x, r1, memory_order_relaxed);\n  int r2 = (r1^r1)+r1;\n}\n"
       "P1(atomic_int *x, atomic_int *y) {\n  int r4 = atomic_load_explicit(x, memory_order_relaxed);\n"
       "  atomic_store_explicit(y, r4, memory_order_relaxed);\n}\nlocations [0:r2; 1:r4;]\nexists 0:r1 != 0\n",
       false, 1},
  };
  for (const Case& c : cases) {
    LitmusTest t = parse_litmus(c.text, "t.litmus");
    RunResult r = run_litmus(t, MemoryModelKind::sc);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(r.ok, c.ok) << t.name;
    EXPECT_EQ(r.states.size(), c.states) << t.name << "\n" << format_herd(t, r);
  }
}

// `(*b)` is C code, not an OCaml comment, once inside a thread (catalogue/c11popl15's
// arfna.litmus writes `if (*b)`); C comments are blanked there; any word followed by a
// name declares a local (`__int128_t r1`); herd's `f{mb}(...)` is an unknown function.
TEST(LitmusC, CCodeCommentsAndTypes) {
  LitmusTest t = parse_litmus(
      "C K\n(* an OCaml comment *)\n{ [b] = 1; }\nP0 (volatile int* a, volatile int* b) {\n"
      "  /* a C comment with (* inside */\n  __int128_t r1 = 0; // another\n  if (*b) { *a = 1; r1 = (*a); }\n}\n"
      "exists (0:r1=1 /\\ a=1)\n",
      "t.litmus");
  RunResult r = run_litmus(t, MemoryModelKind::sc);
  EXPECT_TRUE(r.ok) << format_herd(t, r);
  EXPECT_EQ(r.states.size(), 1u);
  EXPECT_EQ(parse_error("C K\n{}\nP0 (atomic_int* x) {\n  int r0 = __atomic_add_unless{mb}(x, 1, 0);\n}\n"),
            "t.litmus:4:12: unknown function '__atomic_add_unless' (atomcheck reads atomic_load, atomic_store, "
            "atomic_exchange, atomic_compare_exchange_strong/weak, atomic_fetch_add/sub/and/or/xor (each also "
            "_explicit) and atomic_thread_fence)");
  EXPECT_EQ(parse_error("C K\n{}\nP0 (atomic_int* x) {\n  /* open\n}\n"), "t.litmus:4:3: unterminated comment '/*'");
}

TEST(LitmusC, ExpressionValues) {
  LitmusTest t = parse_litmus(
      "C E\n{}\nP0 (atomic_int* x) {\n  int a = 7;\n  int b = -a % 4 + (a << 2) - (a / 0);\n"
      "  int c = !a || (a > 3 && a != 8);\n  int d = atomic_fetch_or(x, 6) | ~0 & 5 ^ 1;\n"
      "  int e;\n  if (c) e = atomic_load(x); else { e = 100; }\n}\nexists (0:b=25 /\\ 0:c=1 /\\ 0:d=4 /\\ 0:e=6)\n",
      "t.litmus");
  RunResult r = run_litmus(t, MemoryModelKind::sc);
  ASSERT_EQ(r.states.size(), 1u) << format_herd(t, r);
  // -7 % 4 = -3 (C truncates), 7 << 2 = 28, 7 / 0 reads as 0; ~0 & 5 ^ 1 = 4.
  EXPECT_TRUE(r.ok) << format_herd(t, r);
}

// What is wrong, and where (line:column counted from 1).
TEST(LitmusC, Errors) {
  const std::string g = kGood;
  const std::pair<std::string, std::string> cases[] = {
      {replaced(g, "atomic_store_explicit(y", "atomic_stor_explicit(y"),
       "t.litmus:7:3: unknown function 'atomic_stor_explicit' (atomcheck reads atomic_load, "
       "atomic_store, atomic_exchange, atomic_compare_exchange_strong/weak, "
       "atomic_fetch_add/sub/and/or/xor (each also _explicit) and atomic_thread_fence)"},
      {replaced(g, "*x = 1;", "*x = 1"), "t.litmus:7:3: expected ';' at the end of the statement, found 'atomic_store_explicit'"},
      {replaced(g, "r1 = *x;", "r1 = *z;"), "t.litmus:14:11: undeclared location 'z' (not a parameter of P1)"},
      {replaced(g, "memory_order_release", "memory_order_strong"),
       "t.litmus:7:31: bad memory order 'memory_order_strong' in atomic_store_explicit (memory_order_relaxed, "
       "_consume, _acquire, _release, _acq_rel or _seq_cst)"},
      {replaced(g, "memory_order_acquire", "memory_order_release"),
       "t.litmus:12:36: memory_order_release is not a valid order for atomic_load_explicit"},
      {replaced(g, "memory_order_release", "memory_order_acquire"),
       "t.litmus:7:31: memory_order_acquire is not a valid order for atomic_store_explicit"},
      {replaced(g, "exists (1:r0=1", "exists (1:r0 1"), "t.litmus:19:14: expected '=', found '1'"},
      {replaced(g, "1:r1=0)", "1:r7=0)"), "t.litmus:19:21: P1 has no local 'r7'"},
      {replaced(g, "1:r1=0)", "2:r1=0)"), "t.litmus:19:21: thread 2 does not exist (the test has 2 threads)"},
      {replaced(g, "*x = 1;", "while (1) *x = 1;"), "t.litmus:6:3: loops ('while') are not supported"},
      {replaced(g, "P0 (int* x,", "P0 (int x,"),
       "t.litmus:5:9: parameter 'x' must be a pointer (herd's C threads take their locations as 'int* x')"},
      {replaced(g, "P1 (", "P2 ("), "t.litmus:10:1: expected the thread 'P1 (...) { ... }', found 'P2'"},
      {replaced(g, "r1 = *x;", "r1 = x;"), "t.litmus:14:10: 'x' is a location: write '*x' or atomic_load to read it"},
      {replaced(g, "r1 = *x;", "r9 = *x;"), "t.litmus:14:5: undeclared local 'r9'"},
      {replaced(g, "int r1 = -1;", "int *r1 = x;"), "t.litmus:11:7: local pointers are not supported (only 'int' locals)"},
      {replaced(g, "*x = 1;", "int r = atomic_store(y, 1);"),
       "t.litmus:6:11: atomic_store returns nothing: it is a statement of its own"},
      {replaced(g, "{ [x] = 0; [y] = 0; }", "{ [x] = 0; 1:r0 = 1; }"),
       "t.litmus:3:14: C locals cannot be initialised in the init block (initialise them in their thread)"},
      {replaced(g, "P0 (int* x, atomic_int* y)", "P0 (int* x, atomic_int* y, )"), "t.litmus:5:28: missing parameter name"},
      {replaced(g, "    r1 = 2;\n}", "    r1 = 2;\n"), "t.litmus:16:12: unexpected end of file in P1 (missing '}')"},
      {replaced(g, "C MP+plain", "CPP MP+plain"),
       "t.litmus:1:1: unsupported architecture 'CPP' (atomcheck reads X86, X86_64 and C litmus tests)"},
      {replaced(g, "int r1 = -1;", "int r1 = r0 ? 1 : 2;"), "t.litmus:11:12: undeclared local 'r0'"},
      {replaced(g, "int r1 = -1;", "int r1 = 1 ? 1 : 2;"), "t.litmus:11:14: expected ';' at the end of the statement, found '?'"},
  };
  for (const auto& [text, message] : cases) EXPECT_EQ(parse_error(text), message);
}

// Every one-character mutation of a valid test either parses or gives one
// `t.litmus:LINE:COL: ...` line: no crash, no other exception.
TEST(LitmusC, MutantsParseOrFailWithPosition) {
  const std::string text = kGood;
  const std::string mutants = " ;(){}*=&x0_";
  std::size_t parsed = 0, refused = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    for (char c : mutants) {
      std::string m = text;
      m[i] = c;
      try {
        parse_litmus(m, "t.litmus");
        ++parsed;
      } catch (const LitmusError& e) {
        std::string what = e.what();
        EXPECT_EQ(what.rfind("t.litmus:", 0), 0u) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
        ++refused;
      }
    }
  EXPECT_GT(parsed, 0u);
  EXPECT_GT(refused, 0u);
}

// ---- the bundled suite ----

// herd's answer line: Undef when an execution races, else Ok or No.
std::string answer(const RunResult& r) { return r.racy ? "Undef" : r.ok ? "Ok" : "No"; }

struct Row {
  std::string file, sc, tso, rc11, why;
};

std::vector<Row> expected_rows() {
  std::ifstream in(atomcheck::testing::data_path("litmus-c/EXPECTED.tsv"));
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    if (f.size() != 5) {
      ADD_FAILURE() << "bad EXPECTED.tsv row: " << line;
      continue;
    }
    rows.push_back({f[0], f[1], f[2], f[3], f[4]});
  }
  return rows;
}

// The table names every bundled file once, with Ok or No in each model's column, a
// reason for the rc11 answer, and models ordered by strength: a weak outcome SC allows
// TSO allows (SC executions are TSO executions), and one TSO allows RC11 allows (C11's
// x86 mapping, a seq_cst store drains the buffer as XCHG does, is correct for RC11).
TEST(LitmusCSuite, ExpectationsAreCompleteAndConsistent) {
  std::vector<Row> rows = expected_rows();
  std::vector<std::string> files, listed;
  for (const auto& e : fs::directory_iterator(atomcheck::testing::data_path("litmus-c")))
    if (e.path().extension() == ".litmus") files.push_back(e.path().filename().string());
  for (const Row& r : rows) listed.push_back(r.file);
  std::sort(files.begin(), files.end());
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(files, listed);
  EXPECT_GE(rows.size(), 30u);
  std::size_t rc11_allowed = 0;
  for (const Row& r : rows) {
    for (const std::string* a : {&r.sc, &r.tso, &r.rc11})
      EXPECT_TRUE(*a == "Ok" || *a == "No" || *a == "Undef") << r.file;
    // A race is found from happens-before, which no model changes: racy in one, in all.
    EXPECT_EQ(r.sc == "Undef", r.rc11 == "Undef") << r.file;
    EXPECT_EQ(r.tso == "Undef", r.rc11 == "Undef") << r.file;
    EXPECT_FALSE(r.why.empty()) << r.file;
    if (r.sc == "Ok") {
      EXPECT_EQ(r.tso, "Ok") << r.file;
    }
    if (r.tso == "Ok") {
      EXPECT_EQ(r.rc11, "Ok") << r.file;
    }
    rc11_allowed += r.rc11 == "Ok";
  }
  // The suite shows weak behaviours RC11 allows beyond TSO (IRIW, WRC, 2+2W, S, LB is not).
  EXPECT_GT(rc11_allowed, 10u);
}

TEST(LitmusCSuite, AnswersUnderScAndTso) {
  std::vector<Row> rows = expected_rows();
  ASSERT_FALSE(rows.empty());
  for (const Row& r : rows) {
    LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus-c/" + r.file));
    EXPECT_EQ(t.condition.quantifier, Quantifier::exists) << r.file;
    RunResult sc = run_litmus(t, MemoryModelKind::sc);
    RunResult tso = run_litmus(t, MemoryModelKind::tso);
    EXPECT_TRUE(sc.error.empty() && tso.error.empty()) << r.file << sc.error << tso.error;
    EXPECT_TRUE(sc.complete && tso.complete) << r.file;
    EXPECT_EQ(answer(sc), r.sc) << r.file << "\n" << format_herd(t, sc);
    EXPECT_EQ(answer(tso), r.tso) << r.file << "\n" << format_herd(t, tso);
    // TSO keeps every SC final state.
    for (const auto& s : sc.states)
      EXPECT_TRUE(std::find(tso.states.begin(), tso.states.end(), s) != tso.states.end()) << r.file;
    // herd's witnesses are the rf+co classes, whatever the strategy.
    ExploreOptions dfs = litmus_defaults();
    dfs.strategy = StrategyKind::dfs;
    RunResult sc_dfs = run_litmus(t, MemoryModelKind::sc, dfs);
    EXPECT_EQ(sc_dfs.states, sc.states) << r.file;
    EXPECT_EQ(sc_dfs.positive + sc_dfs.negative, sc.positive + sc.negative) << r.file;
    EXPECT_EQ(sc.positive + sc.negative, sc.rf_co_classes) << r.file;
  }
}

// The RC11 explorer against the table's RC11 column (herd7's rc11.cat answers and the
// literature, README.md of the data): every weak outcome RC11 allows is reached and none
// it forbids; RC11 keeps every SC final state; each graph is counted once.
TEST(LitmusCSuite, AnswersUnderRc11) {
  std::vector<Row> rows = expected_rows();
  ASSERT_FALSE(rows.empty());
  for (const Row& r : rows) {
    LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus-c/" + r.file));
    RunResult rc11 = run_litmus(t, MemoryModelKind::rc11);
    RunResult sc = run_litmus(t, MemoryModelKind::sc);
    EXPECT_TRUE(rc11.error.empty()) << r.file << rc11.error;
    EXPECT_TRUE(rc11.complete) << r.file;
    EXPECT_EQ(answer(rc11), r.rc11) << r.file << "\n" << format_herd(t, rc11);
    for (const auto& s : sc.states)
      EXPECT_TRUE(std::find(rc11.states.begin(), rc11.states.end(), s) != rc11.states.end()) << r.file;
    EXPECT_EQ(rc11.positive + rc11.negative, rc11.classes) << r.file;  // herd's witnesses: the graphs
  }
}

// herd7 (herd/top_herd.ml) prints Undef for a test with undefined behaviour and flags it.
TEST(LitmusC, RacyResultPrintsUndef) {
  LitmusTest t = parse_litmus(kGood, "t.litmus");
  RunResult r = run_litmus(t, MemoryModelKind::sc);
  std::string clean = format_herd(t, r);
  EXPECT_NE(clean.find("\nNo\nWitnesses\nPositive: 0 Negative: 2\nCondition"), std::string::npos) << clean;
  r.racy = true;
  std::string racy = format_herd(t, r);
  EXPECT_NE(racy.find("\nUndef\nWitnesses\nPositive: 0 Negative: 2\nFlag *undef*\nCondition"), std::string::npos)
      << racy;
}

// Message passing of plain data with a relaxed flag is a data race (herd7 answers Undef);
// with release/acquire it is not, and the answer is herd's No.
TEST(LitmusC, ARacyTestIsUndef) {
  const std::string racy = R"(C MP+plain+rlx
{ [x] = 0; [y] = 0; }
P0 (int* x, atomic_int* y) {
  *x = 1;
  atomic_store_explicit(y, 1, memory_order_relaxed);
}
P1 (int* x, atomic_int* y) {
  int r0 = atomic_load_explicit(y, memory_order_relaxed);
  int r1 = -1;
  if (r0 == 1) { r1 = *x; }
}
exists (1:r0=1 /\ 1:r1=0)
)";
  for (MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::tso, MemoryModelKind::rc11}) {
    LitmusTest t = parse_litmus(racy, "mp.litmus");
    RunResult r = run_litmus(t, m);
    EXPECT_TRUE(r.racy);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_NE(format_herd(t, r).find("\nUndef\n"), std::string::npos) << format_herd(t, r);
    LitmusTest ra = parse_litmus(replaced(replaced(racy, "memory_order_relaxed);\n}", "memory_order_release);\n}"),
                                          "(y, memory_order_relaxed)", "(y, memory_order_acquire)"),
                                 "mp.litmus");
    RunResult rr = run_litmus(ra, m);
    EXPECT_FALSE(rr.racy) << format_herd(ra, rr);
    EXPECT_NE(format_herd(ra, rr).find("\nNo\n"), std::string::npos) << format_herd(ra, rr);
  }
}

// ---- the command ----

TEST(LitmusCCli, RunsWithRc11ByDefaultBothAndJson) {
  std::string path = atomcheck::testing::data_path("litmus-c/SB+rlx.litmus");
  auto r = atomcheck::testing::run_cli({"run", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Test SB+rlx Allowed\nStates 4\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nOk\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Memory RC11\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Memory TSO"), std::string::npos) << r.out;
  auto sc = atomcheck::testing::run_cli({"run", path, "--memory", "sc"});
  EXPECT_EQ(sc.exit_code, 0) << sc.err;
  EXPECT_NE(sc.out.find("Test SB+rlx Allowed\nStates 3\n"), std::string::npos) << sc.out;
  EXPECT_NE(sc.out.find("Memory SC\n"), std::string::npos) << sc.out;
  auto both = atomcheck::testing::run_cli({"run", path, "--memory", "both"});
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("Memory SC\n"), std::string::npos);
  EXPECT_NE(both.out.find("States 4\n0:r0=0; 1:r0=0;\n"), std::string::npos) << both.out;
  auto j = atomcheck::testing::run_cli({"run", path, "--memory", "both", "--json"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["test"], "SB+rlx");
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][0]["memory"], "sc");
  EXPECT_EQ(doc["results"][0]["ok"], false);
  EXPECT_EQ(doc["results"][1]["ok"], true);
  EXPECT_EQ(doc["results"][1]["racy"], false);
  EXPECT_EQ(doc["results"][1]["states"].size(), 4u);
}

// rc11 is for C tests and programs, not X86 tests; the TSO checkers do not run under it.
TEST(LitmusCCli, Rc11WhereItApplies) {
  std::string path = atomcheck::testing::data_path("litmus-c/LB+rlx.litmus");
  auto r = atomcheck::testing::run_cli({"run", path, "--memory", "rc11"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\nNo\n"), std::string::npos) << r.out;  // no load buffering
  auto program = atomcheck::testing::run_cli({"run", "lost-update", "--memory", "rc11"});
  EXPECT_EQ(program.exit_code, 1) << program.err;
  EXPECT_NE(program.out.find("memory         rc11   strategy optimal"), std::string::npos) << program.out;
  auto checker = atomcheck::testing::run_cli({"run", "lost-update", "--memory", "rc11", "--checker", "tso-exec"});
  EXPECT_EQ(checker.exit_code, 2);
  EXPECT_NE(checker.err.find("judges TSO executions; under --memory rc11"), std::string::npos) << checker.err;
  auto velodrome = atomcheck::testing::run_cli({"run", "lost-update", "--memory", "rc11", "--checker", "velodrome"});
  EXPECT_EQ(velodrome.exit_code, 1) << velodrome.err;  // the lost update: not serializable
  EXPECT_NE(velodrome.out.find("checker velodrome flagged"), std::string::npos) << velodrome.out;
  auto json = atomcheck::testing::run_cli({"run", "lost-update", "--memory", "rc11", "--strategy", "dfs", "--json"});
  EXPECT_EQ(json.exit_code, 1) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["memory"], "rc11");
}

TEST(LitmusCCli, MalformedFileIsOneLineAndExit2) {
  std::string path = atomcheck::testing::temp_dir() + "/bad.litmus";
  std::ofstream(path) << replaced(kGood, "*x = 1;", "*x = 1");
  auto r = atomcheck::testing::run_cli({"run", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, path + ":7:3: expected ';' at the end of the statement, found 'atomic_store_explicit'\n");
  EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
