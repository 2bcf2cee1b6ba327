// Every option is checked (issue 24, item 5): a negative or malformed number is refused
// by every command that takes numbers, and an option a target kind cannot honour is
// refused, never ignored; each refusal exits 2 with a line that names the option.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace atomcheck
