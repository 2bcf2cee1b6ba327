// Every litmus test of tests/data/litmus, explored exhaustively under SC and under TSO,
// gives the reachability of its condition and the number of final states (projected on
// the condition's locations, as herd7 counts them) listed in EXPECTED.tsv; the X86_64
// catalogue also agrees with kinds.txt (Allow/Forbid under x86-TSO), and the printed
// output matches herd7's own .expected files line by line.
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "specs/litmus.hpp"
#include "tests/support/cli_runner.hpp"

namespace {

using namespace atomcheck;
using namespace atomcheck::litmus;
using LitmusTest = atomcheck::litmus::Test;

struct Row {
  std::string dir, file, quantifier, sc, tso;
  std::size_t states_sc = 0, states_tso = 0;
  std::string external;
};

std::vector<Row> expected_rows() {
  std::ifstream in(atomcheck::testing::data_path("litmus/EXPECTED.tsv"));
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '\t')) f.push_back(cell);
    if (f.size() < 7) ADD_FAILURE() << "bad EXPECTED.tsv row: " << line;
    if (f.size() < 7) continue;
    Row r{f[0], f[1], f[2], f[3], f[4], std::stoul(f[5]), std::stoul(f[6]), f.size() > 7 ? f[7] : ""};
    rows.push_back(r);
  }
  return rows;
}

std::string path_of(const Row& r) {
  return atomcheck::testing::data_path("litmus/" + r.dir + "/" + r.file);
}

// The TSV's words: reachable/unreachable for exists and ~exists (of the bare
// proposition), holds/fails for forall.
std::string verdict_word(const LitmusTest& t, const RunResult& r) {
  if (t.condition.quantifier == Quantifier::forall) return r.ok ? "holds" : "fails";
  return r.reachable() ? "reachable" : "unreachable";
}

void check_rows(MemoryModelKind memory) {
  auto rows = expected_rows();
  ASSERT_EQ(rows.size(), 53u);
  for (const Row& row : rows) {
    SCOPED_TRACE(row.dir + "/" + row.file);
    LitmusTest t = load_litmus(path_of(row));
    std::string_view q = t.condition.quantifier == Quantifier::exists       ? "exists"
                         : t.condition.quantifier == Quantifier::not_exists ? "~exists"
                                                                            : "forall";
    EXPECT_EQ(q, row.quantifier);
    RunResult r = run_litmus(t, memory);
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_TRUE(r.complete);
    bool sc = memory == MemoryModelKind::sc;
    EXPECT_EQ(verdict_word(t, r), sc ? row.sc : row.tso);
    EXPECT_EQ(r.states.size(), sc ? row.states_sc : row.states_tso) << format_herd(t, r);
    // Witnesses count executions: at least one per state.
    EXPECT_GE(r.positive + r.negative, r.states.size());
  }
}

TEST(LitmusExpected, ScMatchesTable) { check_rows(MemoryModelKind::sc); }

TEST(LitmusExpected, TsoMatchesTable) { check_rows(MemoryModelKind::tso); }

// TSO only adds behaviours: every SC final state of every test is a TSO final state, and
// the extra TSO states are exactly what makes the Allow tests' conditions reachable.
TEST(LitmusExpected, ScStatesAreTsoStates) {
  for (const Row& row : expected_rows()) {
    SCOPED_TRACE(row.dir + "/" + row.file);
    LitmusTest t = load_litmus(path_of(row));
    RunResult sc = run_litmus(t, MemoryModelKind::sc);
    RunResult tso = run_litmus(t, MemoryModelKind::tso);
    for (const auto& s : sc.states)
      EXPECT_TRUE(std::binary_search(tso.states.begin(), tso.states.end(), s));
    EXPECT_EQ(tso.states.size() - sc.states.size(), row.states_tso - row.states_sc);
  }
}

// Exact reachable outcome sets, not just "the weak outcome appears": SB's four states
// under TSO and three under SC.
TEST(LitmusExpected, StoreBufferingExactStates) {
  LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus/herdtools7-x86/SB.litmus"));
  RunResult sc = run_litmus(t, MemoryModelKind::sc);
  RunResult tso = run_litmus(t, MemoryModelKind::tso);
  using S = std::vector<std::vector<std::int64_t>>;
  EXPECT_EQ(sc.states, (S{{0, 1}, {1, 0}, {1, 1}}));
  EXPECT_EQ(tso.states, (S{{0, 0}, {0, 1}, {1, 0}, {1, 1}}));
  EXPECT_FALSE(sc.ok);
  EXPECT_TRUE(tso.ok);
  EXPECT_EQ(tso.positive, 1u);
  EXPECT_EQ(tso.negative, 3u);
  EXPECT_EQ(format_herd(t, tso),
            "Test SB Allowed\n"
            "States 4\n"
            "0:EAX=0; 1:EAX=0;\n"
            "0:EAX=0; 1:EAX=1;\n"
            "0:EAX=1; 1:EAX=0;\n"
            "0:EAX=1; 1:EAX=1;\n"
            "Ok\n"
            "Witnesses\n"
            "Positive: 1 Negative: 3\n"
            "Condition exists (0:EAX=0 /\\ 1:EAX=0)\n"
            "Observation SB Sometimes 1 3\n"
            "Memory TSO\n");
}

TEST(LitmusExpected, KindsAgreeWithTso) {
  std::ifstream in(atomcheck::testing::data_path("litmus/herdtools7-x86_64/kinds.txt"));
  std::map<std::string, std::string> kinds;
  std::string name, kind;
  while (in >> name >> kind) kinds[name] = kind;
  ASSERT_EQ(kinds.size(), 28u);
  for (const auto& [test, k] : kinds) {
    SCOPED_TRACE(test);
    LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus/herdtools7-x86_64/" + test + ".litmus"));
    RunResult r = run_litmus(t, MemoryModelKind::tso);
    EXPECT_EQ(r.reachable() ? "Allow" : "Forbid", k);
  }
}

// Locked instructions, which the catalogue tests hardly use: exact outcome sets.
TEST(LitmusExpected, LockedInstructions) {
  // Two LOCK XADD increments never lose an update; SB with XCHG as the store is SC.
  const std::string xadd =
      "X86 XADD\n{ x=0; 0:EAX=1; 1:EAX=1; }\n P0 | P1 ;\n"
      " LOCK XADD [x],EAX | LOCK XADD [x],EAX ;\n"
      "exists (x=2 /\\ 0:EAX=0 /\\ 1:EAX=1)\n";
  LitmusTest tx = parse_litmus(xadd, "xadd.litmus");
  for (auto m : {MemoryModelKind::sc, MemoryModelKind::tso}) {
    RunResult r = run_litmus(tx, m);
    using S = std::vector<std::vector<std::int64_t>>;
    EXPECT_EQ(r.states, (S{{0, 1, 2}, {1, 0, 2}}));
    EXPECT_TRUE(r.ok);
  }
  const std::string sbx =
      "X86 SB+xchgs\n{ 0:EAX=1; 1:EAX=1; }\n P0 | P1 ;\n"
      " XCHG [x],EAX | XCHG [y],EAX ;\n MOV EBX,[y] | MOV EBX,[x] ;\n"
      "exists (0:EBX=0 /\\ 1:EBX=0)\n";
  LitmusTest ts = parse_litmus(sbx, "sbx.litmus");
  EXPECT_FALSE(run_litmus(ts, MemoryModelKind::tso).reachable());
  // CMPXCHG: only one of two CASes from 0 succeeds; the loser's EAX gets memory's value.
  const std::string cas =
      "X86 CAS\n{ 0:EBX=1; 1:EBX=2; }\n P0 | P1 ;\n"
      " LOCK CMPXCHG [x],EBX | LOCK CMPXCHG [x],EBX ;\n"
      "exists (0:EAX=0 /\\ 1:EAX=0)\n";
  LitmusTest tc = parse_litmus(cas, "cas.litmus");
  for (auto m : {MemoryModelKind::sc, MemoryModelKind::tso}) {
    RunResult r = run_litmus(tc, m);
    using S = std::vector<std::vector<std::int64_t>>;
    EXPECT_EQ(r.states, (S{{0, 1}, {2, 0}})) << format_herd(tc, r);
    EXPECT_FALSE(r.ok);
  }
  // A failing CMPXCHG still drains the store buffer (x86-TSO): SB with a failing CAS on
  // an unrelated location as the fence.
  const std::string casfence =
      "X86 SB+cas\n{ z=5; }\n P0 | P1 ;\n"
      " MOV [x],$1 | MOV [y],$1 ;\n LOCK CMPXCHG [z],EBX | LOCK CMPXCHG [z],EBX ;\n"
      " MOV ECX,[y] | MOV ECX,[x] ;\n"
      "exists (0:ECX=0 /\\ 1:ECX=0)\n";
  LitmusTest tf = parse_litmus(casfence, "casfence.litmus");
  EXPECT_FALSE(run_litmus(tf, MemoryModelKind::tso).reachable());
}

// herd7's own output for the two herd tests, line by line (its Hash line covers herd's
// normal form of the test and is not reproduced; our Memory line is ours).
TEST(LitmusExpected, MatchesHerdExpectedFiles) {
  for (std::string name : {"A011", "A012"}) {
    SCOPED_TRACE(name);
    std::string base = atomcheck::testing::data_path("litmus/herdtools7-herd-tests-X86_64/" + name);
    std::ifstream in(base + ".litmus.expected");
    std::string line, want;
    while (std::getline(in, line))  // herd ends each test with a blank line
      if (line.rfind("Hash=", 0) != 0 && !line.empty()) want += line + "\n";
    LitmusTest t = load_litmus(base + ".litmus");
    std::string got;
    std::stringstream ss(format_herd(t, run_litmus(t, MemoryModelKind::tso)));
    while (std::getline(ss, line))
      if (line.rfind("Memory ", 0) != 0) got += line + "\n";
    EXPECT_EQ(got, want);
  }
}

TEST(LitmusExpected, CliRunBoth) {
  auto r = atomcheck::testing::run_cli(
      {"run", atomcheck::testing::data_path("litmus/herdtools7-x86/SB.litmus"), "--memory", "both"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Test SB Allowed\nStates 3\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Memory SC\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("States 4\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Memory TSO\n"), std::string::npos) << r.out;
  EXPECT_LT(r.out.find("Memory SC\n"), r.out.find("Memory TSO\n"));
  auto tso = atomcheck::testing::run_cli(
      {"run", atomcheck::testing::data_path("litmus/herdtools7-x86/SB.litmus"), "--memory", "tso"});
  EXPECT_EQ(tso.exit_code, 0);
  EXPECT_EQ(tso.out.find("Memory SC"), std::string::npos);
  EXPECT_NE(tso.out.find("Ok\n"), std::string::npos);
  auto js = atomcheck::testing::run_cli(
      {"run", atomcheck::testing::data_path("litmus/herdtools7-x86/SB.litmus"), "--memory", "both", "--json"});
  EXPECT_EQ(js.exit_code, 0);
  auto j = nlohmann::json::parse(js.out);
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["test"], "SB");
  EXPECT_EQ(j["results"][0]["memory"], "sc");
  EXPECT_EQ(j["results"][0]["states"].size(), 3u);
  EXPECT_EQ(j["results"][0]["reachable"], false);
  EXPECT_EQ(j["results"][1]["states"].size(), 4u);
  EXPECT_EQ(j["results"][1]["states"][0]["values"]["0:EAX"], 0);
  EXPECT_EQ(j["results"][1]["states"][0]["matches"], true);
  auto bad = atomcheck::testing::run_cli(
      {"run", atomcheck::testing::data_path("litmus/herdtools7-x86/SB.litmus"), "--memory", "arm"});
  EXPECT_EQ(bad.exit_code, 2);
}

}  // namespace
