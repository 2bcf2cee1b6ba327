// `atomcheck check-trace` and `atomcheck checkers` end to end: verdicts and exit codes,
// the witness printed by name with line numbers, --json, --all, unknown checkers,
// malformed and ill-formed files.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "checkers/registry.hpp"
#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

using testing::run_cli;

std::string write_file(const std::string& name, const std::string& text) {
  std::string path = testing::temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// AeroDrome Fig. 2 (rho2): not serializable, detected at e6 = line 6.
const char* kRho2 =
    "T1|begin|1\nT2|begin|2\nT1|w(x)|3\nT2|r(x)|4\nT2|w(y)|5\nT1|r(y)|6\nT1|end|7\nT2|end|8\n";
// AeroDrome Fig. 1 (rho1): serializable.
const char* kRho1 =
    "T1|begin|1\nT1|w(x)|2\nT2|begin|3\nT2|r(x)|4\nT2|end|5\nT3|begin|6\nT3|w(y)|7\n"
    "T3|end|8\nT1|r(y)|9\nT1|end|10\n";

TEST(CheckTraceCli, SerializableTraceExitsZero) {
  auto r = run_cli({"check-trace", write_file("rho1.std", kRho1), "--checker",
                    "oracle,aerodrome-opt-fixed"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("oracle"), std::string::npos);
  EXPECT_NE(r.out.find("aerodrome-opt-fixed"), std::string::npos);
  EXPECT_EQ(r.out.find("NOT serializable"), std::string::npos) << r.out;
}

TEST(CheckTraceCli, ViolationPrintsWitnessByNameAndLine) {
  auto r = run_cli({"check-trace", write_file("rho2.std", kRho2), "--checker", "oracle,aerodrome"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("NOT serializable"), std::string::npos) << r.out;
  // The oracle's cycle: T1 w(x) line 3 -> T2 r(x) line 4, T2 w(y) line 5 -> T1 r(y) line 6.
  EXPECT_NE(r.out.find("T1 write(x) (line 3)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("T2 read(x) (line 4)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("detected at event 5 T1 read(y) (line 6)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("blame"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ms"), std::string::npos) << r.out;
}

TEST(CheckTraceCli, JsonIsOneObject) {
  auto r = run_cli({"check-trace", write_file("rho2.std", kRho2), "--checker",
                    "oracle,aerodrome-opt", "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["events"], 8);
  EXPECT_EQ(j["violation"], true);
  ASSERT_EQ(j["checkers"].size(), 2u);
  EXPECT_EQ(j["checkers"][0]["checker"], "oracle");
  EXPECT_EQ(j["checkers"][0]["serializable"], false);
  EXPECT_EQ(j["checkers"][0]["cycle"].size(), 2u);
  EXPECT_EQ(j["checkers"][0]["detected_at"]["line"], 6);
  EXPECT_EQ(j["checkers"][1]["checker"], "aerodrome-opt");
  EXPECT_EQ(j["checkers"][1]["answers_blame"], false);
  EXPECT_TRUE(j["checkers"][1]["seconds"].is_number());
}

TEST(CheckTraceCli, AllCountsEveryDetection) {
  std::string two =
      "T1|begin|1\nT1|r(x)|2\nT2|w(x)|3\nT1|w(x)|4\nT1|end|5\n"
      "T1|begin|6\nT1|r(y)|7\nT2|w(y)|8\nT1|w(y)|9\nT1|end|10\n";
  auto r = run_cli({"check-trace", write_file("two.std", two), "--checker", "aerodrome", "--all"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("2 events detected"), std::string::npos) << r.out;
}

TEST(CheckTraceCli, DefaultRunsEveryRegisteredChecker) {
  auto list = run_cli({"checkers", "--json"});
  ASSERT_EQ(list.exit_code, 0);
  auto j = nlohmann::json::parse(list.out);
  auto r = run_cli({"check-trace", write_file("rho1.std", kRho1)});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Every checker of the trace's own SC serializability: not the TSO ones (another
  // question), not linearizability (operations, which trace files do not record) and not
  // the predictive ones (every interleaving); they run when named.
  for (const atomcheck::CheckerInfo& c : atomcheck::checker_catalog()) {
    const bool by_default = c.name.rfind("tso-", 0) != 0 && c.name.rfind("trace-tso", 0) != 0 &&
                            c.name.rfind("linearizability", 0) != 0 && !c.predictive;
    EXPECT_EQ(r.out.find("\n" + c.name + " ") != std::string::npos, by_default) << c.name;
  }
  EXPECT_GT(j["checkers"].size(), 0u);
}

TEST(CheckTraceCli, CheckersListsNamesAndDescriptions) {
  auto r = run_cli({"checkers"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("oracle"), std::string::npos);
  EXPECT_NE(r.out.find("aerodrome-opt"), std::string::npos);
  EXPECT_NE(r.out.find("serializability"), std::string::npos);
}

TEST(CheckTraceCli, UnknownCheckerListsValidNames) {
  auto r = run_cli({"check-trace", write_file("rho1.std", kRho1), "--checker", "oracle,nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown checker 'nope'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("aerodrome"), std::string::npos) << r.err;
}

TEST(CheckTraceCli, MalformedFileIsOneLineWithPlace) {
  std::string path = write_file("bad.std", "T1|begin|1\nT1|frobnicate(x)|2\n");
  auto r = run_cli({"check-trace", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":2"), std::string::npos) << r.err;
}

TEST(CheckTraceCli, IllFormedTraceIsBadInput) {
  // T2 releases a lock it does not hold.
  std::string path = write_file("ill.std", "T1|acq(l)|1\nT2|rel(l)|2\n");
  auto r = run_cli({"check-trace", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":2:"), std::string::npos) << r.err;
}

TEST(CheckTraceCli, OracleIsSkippedOnLongTraces) {
  std::string text;
  for (int i = 0; i < 10001; ++i) text += "T1|w(x)|1\nT2|r(x)|2\n";
  std::string path = write_file("long.std", text);
  auto only = run_cli({"check-trace", path, "--checker", "oracle"});
  EXPECT_EQ(only.exit_code, 3) << only.out << only.err;  // asked for, could not answer
  // Nothing asked for can run: the run stops early and says why on stderr (issue 23).
  EXPECT_NE(only.err.find("skipped beyond 20000 events"), std::string::npos) << only.err;
  auto dflt = run_cli({"check-trace", path, "--checker", "oracle,aerodrome-opt-fixed", "--json"});
  auto j = nlohmann::json::parse(dflt.out);
  EXPECT_EQ(j["events"], 20002);
  EXPECT_TRUE(j["checkers"][0].contains("skipped"));
  EXPECT_EQ(j["checkers"][1]["serializable"], true);
  auto implicit = run_cli({"check-trace", path});
  EXPECT_EQ(implicit.exit_code, 0) << implicit.out;  // the default list skips it quietly
}

TEST(CheckTraceCli, MissingFileIsBadInput) {
  auto r = run_cli({"check-trace", "/nonexistent/trace.std"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST(CheckTraceCli, ReadsStandardInputAndJsonl) {
  auto r = run_cli({"check-trace", "-", "--checker", "aerodrome-opt-fixed"}, kRho2);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  // T1: begin r(x) . T2: rmw(x) . T1: w(x) end -- a cycle through the rmw.
  std::string jsonl =
      "{\"thread\":\"T1\",\"op\":\"begin\"}\n{\"thread\":\"T1\",\"op\":\"read\",\"var\":\"x\"}\n"
      "{\"thread\":\"T2\",\"op\":\"rmw\",\"var\":\"x\"}\n"
      "{\"thread\":\"T1\",\"op\":\"write\",\"var\":\"x\"}\n{\"thread\":\"T1\",\"op\":\"end\"}\n";
  auto j = run_cli({"check-trace", write_file("t.jsonl", jsonl), "--checker", "oracle,aerodrome-opt-fixed"});
  EXPECT_EQ(j.exit_code, 1) << j.out << j.err;
  EXPECT_NE(j.out.find("T2 rmw(x) (line 3)"), std::string::npos) << j.out;
}

}  // namespace
}  // namespace atomcheck
