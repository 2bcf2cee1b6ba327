// `atomcheck validate` end to end: every matrix adds up to the executions judged, a
// checker known to be wrong (AeroDrome Alg. 1 as written, docs/checkers.md) shows its
// false positives with a schedule whose replay reproduces the disagreement, the --json
// fields, litmus and spec targets, budgets (exit 3) and bad input (exit 2).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

using testing::data_path;
using testing::run_cli;

const nlohmann::json* find_checker(const nlohmann::json& run, const std::string& name) {
  for (const auto& c : run["checkers"])
    if (c["name"] == name) return &c;
  return nullptr;
}

const nlohmann::json* find_question(const nlohmann::json& checker, const std::string& q) {
  for (const auto& x : checker["questions"])
    if (x["question"] == q) return &x;
  return nullptr;
}

std::uint64_t total(const nlohmann::json& q) {
  return q["tp"].get<std::uint64_t>() + q["fp"].get<std::uint64_t>() + q["tn"].get<std::uint64_t>() +
         q["fn"].get<std::uint64_t>();
}

// The arguments of a printed replay command, without the leading "atomcheck" and with
// the single quotes around the schedule and file removed.
std::vector<std::string> split_command(const std::string& cmd) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, any = false;
  for (char c : cmd) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any) out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (any) out.push_back(cur);
  if (!out.empty() && out.front() == "atomcheck") out.erase(out.begin());
  return out;
}

TEST(ValidateCli, EveryMatrixAddsUpToTheExecutions) {
  for (const char* memory : {"sc", "tso"}) {
    auto r = run_cli({"validate", "lost-update", "--memory", memory, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["runs"].size(), 1u);
    const auto& run = j["runs"][0];
    EXPECT_EQ(run["memory"], memory);
    const auto executions = run["executions"].get<std::uint64_t>();
    EXPECT_GT(executions, 0u);
    EXPECT_EQ(run["judged"].get<std::uint64_t>(), executions);  // lost-update prunes nothing
    EXPECT_TRUE(run["exhaustive"].get<bool>());
    // Every registered checker with a judge is validated by default.
    EXPECT_NE(find_checker(run, "velodrome"), nullptr);
    EXPECT_NE(find_checker(run, "aerodrome-opt-fixed"), nullptr);
    EXPECT_EQ(find_checker(run, "oracle"), nullptr);
    double shares = 0;
    for (const auto& c : run["checkers"]) {
      ASSERT_FALSE(c["questions"].empty()) << c["name"];
      for (const auto& q : c["questions"]) {
        EXPECT_EQ(total(q), executions) << c["name"] << " " << q["question"];
        // lost-update: every exact checker sees the lost updates.
        EXPECT_GT(q["tp"].get<std::uint64_t>() + q["fn"].get<std::uint64_t>(), 0u) << c["name"];
        EXPECT_TRUE(q["agrees"].get<bool>()) << c["name"] << " " << q["question"];
        EXPECT_TRUE(q["first_disagreement"].is_null());
      }
      shares += c["time_share"].get<double>();
    }
    for (const auto& jd : run["judges"]) shares += jd["time_share"].get<double>();
    EXPECT_NEAR(shares, 1.0, 1e-6);
    EXPECT_TRUE(j["agree"].get<bool>());
    EXPECT_EQ(j["exit_code"], 0);
  }
}

TEST(ValidateCli, TextMatrixNamesEveryQuestion) {
  auto r = run_cli({"validate", "lost-update", "--checker", "velodrome,aerodrome-opt-fixed"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const char* s : {"TP", "FP", "TN", "FN", "velodrome", "aerodrome-opt-fixed", "serializability",
                        "blame", "oracle", "agrees", "(exhausted)"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  EXPECT_EQ(r.out.find("DISAGREES"), std::string::npos) << r.out;
}

TEST(ValidateCli, AeroDromeAsWrittenDisagreesAndTheScheduleReplaysIt) {
  const std::string spec = data_path("validate/aerodrome-empty-fork.json");
  auto r = run_cli({"validate", spec, "--checker", "aerodrome,aerodrome-fixed,velodrome", "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& run = j["runs"][0];
  const auto executions = run["executions"].get<std::uint64_t>();
  const auto* aero = find_checker(run, "aerodrome");
  ASSERT_NE(aero, nullptr);
  const auto* q = find_question(*aero, "serializability");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(total(*q), executions);
  EXPECT_GT((*q)["fp"].get<std::uint64_t>(), 0u);  // a cycle where the oracle sees none
  EXPECT_FALSE((*q)["agrees"].get<bool>());
  const auto& first = (*q)["first_disagreement"];
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first["checker"], "not serializable");
  EXPECT_EQ(first["judge"], "serializable");
  // The corrected variant and Velodrome agree with the oracle on the same executions.
  for (const char* name : {"aerodrome-fixed", "velodrome"}) {
    const auto* c = find_checker(run, name);
    ASSERT_NE(c, nullptr) << name;
    for (const auto& x : (*c)["questions"]) EXPECT_TRUE(x["agrees"].get<bool>()) << name;
  }

  // `run SPEC --replay S --checker aerodrome,oracle` shows both answers on that execution.
  auto args = split_command(first["replay"].get<std::string>());
  ASSERT_GE(args.size(), 4u) << first["replay"];
  EXPECT_EQ(args[0], "run");
  auto replayed = run_cli(args);
  ASSERT_NE(replayed.exit_code, 2) << replayed.err;
  EXPECT_NE(replayed.out.find("checker aerodrome: not serializable"), std::string::npos) << replayed.out;
  EXPECT_NE(replayed.out.find("checker oracle: serializable"), std::string::npos) << replayed.out;

  // `validate --replay` puts the two answers side by side and exits 1 on the disagreement.
  auto side = run_cli({"validate", spec, "--replay", first["schedule"].get<std::string>(), "--checker",
                       "aerodrome"});
  EXPECT_EQ(side.exit_code, 1) << side.out << side.err;
  EXPECT_NE(side.out.find("aerodrome / serializability: not serializable; oracle says serializable  (DISAGREE)"),
            std::string::npos)
      << side.out;
  auto fixed = run_cli({"validate", spec, "--replay", first["schedule"].get<std::string>(), "--checker",
                        "aerodrome-fixed"});
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;

  // The text matrix says the same and prints the command.
  auto text = run_cli({"validate", spec, "--checker", "aerodrome"});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("DISAGREES"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(first["replay"].get<std::string>()), std::string::npos) << text.out;
}

// Velodrome blames only increasing cycles: on seqlock it agrees with the oracle on
// which executions have a blamed transaction but misses some of the transactions, never
// blaming one the oracle does not (sound, incomplete); the matrix counts those as sets!=.
TEST(ValidateCli, BlameSetsAreComparedPerTransaction) {
  auto r = run_cli({"validate", "seqlock", "--checker", "velodrome,regiontrack-blame", "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  const auto& run = j["runs"][0];
  const auto* velo = find_checker(run, "velodrome");
  ASSERT_NE(velo, nullptr);
  const auto* blame = find_question(*velo, "blame");
  ASSERT_NE(blame, nullptr);
  EXPECT_EQ((*blame)["fp"], 0);
  EXPECT_EQ((*blame)["fn"], 0);
  EXPECT_GT((*blame)["set_mismatches"].get<std::uint64_t>(), 0u);
  EXPECT_EQ((*blame)["blames_extra"], 0);
  EXPECT_EQ((*blame)["blames_missing"], (*blame)["set_mismatches"]);
  EXPECT_EQ(total(*blame), run["judged"].get<std::uint64_t>());
  const auto* rt = find_checker(run, "regiontrack-blame");
  ASSERT_NE(rt, nullptr);
  EXPECT_TRUE((*rt)["questions"][0]["agrees"].get<bool>());  // Theorem 2 exactly
  EXPECT_EQ((*rt)["questions"][0]["set_mismatches"], 0);

  // Side by side, the replayed execution shows the transactions only the oracle blames.
  const auto& first = (*blame)["first_disagreement"];
  ASSERT_TRUE(first.is_object());
  auto side = run_cli({"validate", "seqlock", "--replay", first["schedule"].get<std::string>(), "--checker",
                       "velodrome"});
  EXPECT_EQ(side.exit_code, 1) << side.out << side.err;
  const std::string line = "velodrome / blame: " + first["checker"].get<std::string>() + "; oracle says " +
                           first["judge"].get<std::string>() + "  (DISAGREE)";
  EXPECT_NE(side.out.find(line), std::string::npos) << line << "\n" << side.out;
  EXPECT_NE(first["checker"], first["judge"]);
}

// Predictive checkers are judged against the whole search: every execution's truth is
// whether the judge flagged any explored execution, so each matrix has only TP/FN
// (some execution is a violation) or only FP/TN (none is).
TEST(ValidateCli, PredictiveCheckersAreJudgedAgainstEveryExecution) {
  for (const char* program : {"lost-update", "locked-counter"}) {
    auto r = run_cli({"validate", program, "--checker", "ws-reduction-4.3,ws-block", "--json"});
    ASSERT_NE(r.exit_code, 2) << r.err;
    auto j = nlohmann::json::parse(r.out);
    const auto& run = j["runs"][0];
    ASSERT_EQ(run["checkers"].size(), 2u) << r.out;
    for (const auto& c : run["checkers"]) {
      EXPECT_TRUE(c["predictive"].get<bool>());
      EXPECT_EQ(c["judge"], "view-oracle");
      for (const auto& q : c["questions"]) {
        EXPECT_EQ(total(q), run["judged"].get<std::uint64_t>());
        const bool truth = q["truth"].get<bool>();
        EXPECT_EQ(truth, std::string(program) == "lost-update") << c["name"];
        if (truth) {
          EXPECT_EQ(q["fp"].get<std::uint64_t>() + q["tn"].get<std::uint64_t>(), 0u);
          ASSERT_TRUE(q["witness"].is_object());
          // The witness replays to an execution the judge says is not serializable.
          auto w = run_cli({"run", program, "--replay", q["witness"]["schedule"].get<std::string>(),
                            "--checker", "view-oracle"});
          EXPECT_NE(w.out.find("checker view-oracle: not serializable"), std::string::npos) << w.out;
        } else {
          EXPECT_EQ(q["tp"].get<std::uint64_t>() + q["fn"].get<std::uint64_t>(), 0u);
          EXPECT_TRUE(q["witness"].is_null());
        }
        EXPECT_EQ(q["agrees"].get<bool>(), q["fp"] == 0 && q["fn"] == 0);
      }
    }
  }
}

TEST(ValidateCli, JsonFields) {
  auto r = run_cli({"validate", "lost-update", "--memory", "both", "--checker", "velodrome", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"target", "kind", "description", "strategy", "blame_comparison", "skipped", "runs",
                          "agree", "exit_code"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["kind"], "program");
  EXPECT_EQ(j["blame_comparison"], "execution");
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["memory"], "sc");
  EXPECT_EQ(j["runs"][1]["memory"], "tso");
  for (const auto& run : j["runs"]) {
    for (const char* key : {"memory", "executions", "judged", "exhaustive", "stop", "elapsed_seconds",
                            "checker_seconds", "checkers", "judges"})
      EXPECT_TRUE(run.contains(key)) << key;
    ASSERT_EQ(run["checkers"].size(), 1u);
    const auto& c = run["checkers"][0];
    for (const char* key : {"name", "judge", "predictive", "seconds", "time_share", "questions"})
      EXPECT_TRUE(c.contains(key)) << key;
    EXPECT_EQ(c["judge"], "oracle");
    EXPECT_FALSE(c["predictive"].get<bool>());
    std::set<std::string> questions;
    for (const auto& q : c["questions"]) {
      questions.insert(q["question"].get<std::string>());
      for (const char* key : {"tp", "fp", "tn", "fn", "agrees", "definite", "first_disagreement"})
        EXPECT_TRUE(q.contains(key)) << key;
      if (q["question"] == "blame") {
        EXPECT_TRUE(q.contains("set_mismatches"));
        EXPECT_TRUE(q.contains("blames_extra"));
        EXPECT_TRUE(q.contains("blames_missing"));
      }
    }
    EXPECT_EQ(questions, (std::set<std::string>{"serializability", "blame"}));
    ASSERT_EQ(run["judges"].size(), 1u);
    EXPECT_EQ(run["judges"][0]["name"], "oracle");
  }
}

TEST(ValidateCli, LitmusAndSpecTargets) {
  auto l = run_cli({"validate", data_path("litmus/herdtools7-x86/SB.litmus"), "--memory", "tso", "--checker",
                    "velodrome,aerodrome-opt-fixed", "--json"});
  ASSERT_EQ(l.exit_code, 0) << l.out << l.err;
  auto j = nlohmann::json::parse(l.out);
  EXPECT_EQ(j["kind"], "litmus");
  EXPECT_GT(j["runs"][0]["executions"].get<std::uint64_t>(), 6u);  // flushes are choices under TSO
  auto s = run_cli({"validate", std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples/regiontrack-fig1c.json",
                    "--checker", "regiontrack-fixed", "--json"});
  ASSERT_EQ(s.exit_code, 0) << s.out << s.err;
  auto sj = nlohmann::json::parse(s.out);
  EXPECT_EQ(sj["kind"], "spec");
  const auto& q = sj["runs"][0]["checkers"][0]["questions"][0];
  EXPECT_EQ(total(q), sj["runs"][0]["judged"].get<std::uint64_t>());
}

TEST(ValidateCli, BudgetHitIsExit3) {
  auto r = run_cli({"validate", "lost-update", "--max-executions", "2", "--checker", "velodrome", "--json"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs"][0]["executions"], 2);
  EXPECT_FALSE(j["runs"][0]["exhaustive"].get<bool>());
  EXPECT_EQ(j["runs"][0]["stop"], "budget");
}

TEST(ValidateCli, BadInputIsExit2WithOneLine) {
  auto unknown = run_cli({"validate", "no-such-program"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no-such-program: unknown program"), std::string::npos) << unknown.err;

  auto checker = run_cli({"validate", "lost-update", "--checker", "nope"});
  EXPECT_EQ(checker.exit_code, 2);
  EXPECT_NE(checker.err.find("nope: unknown checker"), std::string::npos) << checker.err;

  const std::string dir = testing::temp_dir();
  const std::string bad_spec = dir + "/bad.json";
  std::ofstream(bad_spec) << "{\n  \"atomcheck\": 1,\n  \"threads\": 7\n}\n";
  auto spec = run_cli({"validate", bad_spec});
  EXPECT_EQ(spec.exit_code, 2);
  EXPECT_EQ(spec.err.rfind(bad_spec + ":", 0), 0u) << spec.err;
  EXPECT_EQ(std::count(spec.err.begin(), spec.err.end(), '\n'), 1) << spec.err;

  const std::string bad_litmus = dir + "/bad.litmus";
  std::ofstream(bad_litmus) << "X86 bad\n{ }\n P0 ;\n nonsense ;\n";
  auto litmus = run_cli({"validate", bad_litmus});
  EXPECT_EQ(litmus.exit_code, 2);
  EXPECT_EQ(litmus.err.rfind(bad_litmus + ":", 0), 0u) << litmus.err;

  auto schedule = run_cli({"validate", "lost-update", "--replay", "zzzz"});
  EXPECT_EQ(schedule.exit_code, 2) << schedule.out;
  auto usage = run_cli({"validate", "lost-update", "--memory", "arm"});
  EXPECT_EQ(usage.exit_code, 2);
  auto missing = run_cli({"validate"});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(ValidateCli, HelpDocumentsExitCodes) {
  for (const char* cmd : {"validate", "run", "check-trace", "trace-info"}) {
    auto r = run_cli({cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("Exit codes"), std::string::npos) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find("3 a budget"), std::string::npos) << cmd << "\n" << r.out;
  }
}

// --jobs: the checkers run in the worker that ran each execution (make_prepare), the
// matrices are tallied in the search's order, so every count, first disagreement and
// replay command is the one-job answer (times aside). On a target with disagreements and
// blame, under SC and TSO, with optimal DPOR.
TEST(ValidateCli, JobsGiveTheOneJobMatrices) {
  const std::string spec = data_path("validate/aerodrome-empty-fork.json");
  auto strip = [](nlohmann::json j) {
    std::function<void(nlohmann::json&)> go = [&](nlohmann::json& x) {
      if (x.is_object()) {
        for (const char* k : {"seconds", "time_share", "checker_seconds", "elapsed_seconds"}) x.erase(k);
        for (auto& [k, v] : x.items()) go(v);
      } else if (x.is_array()) {
        for (auto& v : x) go(v);
      }
    };
    go(j);
    return j;
  };
  for (const char* target : {spec.c_str(), "seqlock"}) {
    auto one = run_cli({"validate", target, "--memory", "both", "--strategy", "optimal", "--json", "--jobs", "1"});
    ASSERT_NE(one.exit_code, 2) << one.err;
    const auto base = strip(nlohmann::json::parse(one.out));
    ASSERT_GT(base["runs"][0]["executions"].get<std::uint64_t>(), 1u);
    for (const char* jobs : {"2", "3"}) {
      auto many = run_cli({"validate", target, "--memory", "both", "--strategy", "optimal", "--json", "--jobs", jobs});
      EXPECT_EQ(many.exit_code, one.exit_code) << target << " --jobs " << jobs << many.err;
      EXPECT_EQ(strip(nlohmann::json::parse(many.out)), base) << target << " --jobs " << jobs;
    }
  }
}

}  // namespace
}  // namespace atomcheck
