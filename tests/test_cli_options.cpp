// Every option is checked (issue 24, item 5): a negative or malformed number is refused
// by every command that takes numbers, and an option a target kind cannot honour is
// refused, never ignored; each refusal exits 2 with a line that names the option.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

using testing::run_cli;

// The first line of stderr: the refusal itself (CLI11's usage errors add a line pointing
// at --help).
std::string first_line(const std::string& err) { return err.substr(0, err.find('\n')); }

void expect_refused(std::vector<std::string> args, const std::string& option) {
  SCOPED_TRACE(args[0] + " ... " + option);
  auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(first_line(r.err).find(option), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

struct Bad {
  std::string option, value;
};

// Values that CLI11 would otherwise turn into huge unsigned numbers, "no limit", or NaN.
const std::vector<Bad> kBadSearchNumbers = {
    {"--max-executions", "-5"}, {"--time-limit", "-1"},  {"--time-limit", "nan"},
    {"--time-limit", "inf"},    {"--max-steps", "-1"},   {"--max-steps", "0"},
    {"--seed", "-1"},           {"--jobs", "-1"},        {"--stack-kib", "-1"},
    {"--stack-kib", "99999999999"}};

TEST(CliOptions, RunRefusesNegativeNumbers) {
  std::vector<Bad> bad = kBadSearchNumbers;
  bad.insert(bad.end(), {{"--pct-depth", "-1"},
                         {"--pct-depth", "0"},
                         {"--preemption-bound", "-1"},
                         {"--depth-bound", "-1"},
                         {"--depth-bound", "1.5"}});
  for (const Bad& b : bad) expect_refused({"run", "sb", b.option, b.value}, b.option);
}

TEST(CliOptions, ValidateRefusesNegativeNumbers) {
  for (const Bad& b : kBadSearchNumbers)
    expect_refused({"validate", "sb", "--checker", "velodrome", b.option, b.value}, b.option);
}

TEST(CliOptions, CheckTraceRefusesNegativeNumbers) {
  std::string trace = testing::data_path("traces/aerodrome-fig1-rho1.std");
  for (const char* v : {"-1", "0", "99999999"})
    expect_refused({"check-trace", trace, "--block-events", v}, "--block-events");
}

// trace-info takes no numbers: any option it does not know is a usage error naming it.
TEST(CliOptions, TraceInfoRefusesUnknownOptions) {
  std::string trace = testing::data_path("traces/aerodrome-fig1-rho1.std");
  expect_refused({"trace-info", trace, "--max-steps", "-1"}, "--max-steps");
}

// 0 keeps its meaning: no limit, the default stack, no depth bound.
TEST(CliOptions, ZeroStillMeansNoLimitOrTheDefault) {
  auto r = run_cli({"run", "sb", "--max-executions", "0", "--time-limit", "0", "--stack-kib", "0",
                    "--depth-bound", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

std::string write_spec(const std::string& name, const std::string& text) {
  std::string path = testing::temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// Two threads of three stores each; max_steps 3 is too few for them.
const char* kTinySpec = R"({
  "atomcheck": 1,
  "vars": {"x": 0},
  "threads": [
    {"name": "P0", "ops": [{"op": "loop", "bound": 3, "body": [{"op": "store", "var": "x", "value": 1}]}]},
    {"name": "P1", "ops": [{"op": "loop", "bound": 3, "body": [{"op": "store", "var": "x", "value": 2}]}]}
  ],
  "max_steps": 3
})";

TEST(CliOptions, SpecRunRefusesWhatItCannotHonour) {
  std::string sb = std::string(ATOMCHECK_SOURCE_DIR) + "/specs/examples/sb.json";
  expect_refused({"run", sb, "--html", "x.html"}, "--html");
  expect_refused({"run", sb, "--dot", "x.dot"}, "--dot");
  expect_refused({"run", sb, "--replay", "1122", "--json"}, "--json");
}

// What a spec run honours changes its answer: --max-steps overrides the spec's own bound,
// --stop-on-failure ends the search at the first failing execution.
TEST(CliOptions, SpecRunHonoursStepsAndStopOnFailure) {
  std::string spec = write_spec("tiny.json", kTinySpec);
  auto own = run_cli({"run", spec, "--json"});
  EXPECT_EQ(own.exit_code, 1) << own.out << own.err;  // every execution hits the spec's bound
  auto raised = run_cli({"run", spec, "--max-steps", "100"});
  EXPECT_EQ(raised.exit_code, 0) << raised.out << raised.err;
  auto all = run_cli({"run", spec, "--json"});
  auto first = run_cli({"run", spec, "--json", "--stop-on-failure"});
  EXPECT_EQ(first.exit_code, 1) << first.out;
  EXPECT_NE(first.out.find("\"executions\": 1,"), std::string::npos) << first.out;
  EXPECT_EQ(all.out.find("\"executions\": 1,"), std::string::npos) << all.out;
}

TEST(CliOptions, ValidateRefusesJsonWithReplay) {
  std::string sb = testing::data_path("litmus/herdtools7-x86/SB.litmus");
  expect_refused({"validate", sb, "--checker", "velodrome", "--replay", "11", "--json"}, "--json");
  expect_refused({"validate", "sb", "--checker", "velodrome", "--replay", "11", "--json"}, "--json");
}

// validate's --max-steps overrides a spec's max_steps, as run's does.
TEST(CliOptions, ValidateMaxStepsOverridesTheSpec) {
  std::string spec = write_spec("tiny.json", kTinySpec);
  // Cut at 3 steps, each thread's first store decides an execution: 8 of them; whole,
  // the six stores interleave in 20 ways.
  auto own = run_cli({"validate", spec, "--checker", "velodrome", "--json"});
  auto raised = run_cli({"validate", spec, "--checker", "velodrome", "--json", "--max-steps", "100"});
  ASSERT_EQ(own.exit_code, 0) << own.out << own.err;
  ASSERT_EQ(raised.exit_code, 0) << raised.out << raised.err;
  EXPECT_EQ(nlohmann::json::parse(own.out)["runs"][0]["executions"], 8);
  EXPECT_EQ(nlohmann::json::parse(raised.out)["runs"][0]["executions"], 20);
}

}  // namespace
}  // namespace atomcheck

namespace atomcheck {
namespace {

// --replay runs one execution: the options of a search are refused, not ignored, and a
// replay command carries a --max-steps the search used (a step-bound failure replays only
// under the same bound).
TEST(CliOptions, ReplayRefusesSearchOptions) {
  using testing::run_cli;
  for (std::vector<std::string> extra : {std::vector<std::string>{"--strategy", "dfs"}, {"--max-executions", "5"},
                                         {"--time-limit", "3"}, {"--jobs", "2"}, {"--stop-on-failure"}}) {
    std::vector<std::string> args = {"run", "lost-update", "--replay", "1"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("--replay runs the one execution its schedule names; drop " + extra[0]), std::string::npos)
        << r.err;
  }
  auto v = run_cli({"validate", "lost-update", "--checker", "velodrome", "--replay", "1", "--strategy", "optimal"});
  EXPECT_EQ(v.exit_code, 2) << v.out << v.err;
  EXPECT_NE(v.err.find("drop --strategy"), std::string::npos) << v.err;
  auto spin = run_cli({"run", "spin", "--max-steps", "300", "--spin-threshold", "0"});
  EXPECT_EQ(spin.exit_code, 1) << spin.out << spin.err;
  EXPECT_NE(spin.out.find("--max-steps 300 --spin-threshold 0"), std::string::npos) << spin.out;
}

}  // namespace
}  // namespace atomcheck
