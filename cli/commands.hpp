// Registration of the atomcheck subcommands. Each lives in its own cmd_*.cpp and adds a
// CLI11 subcommand whose callback stores the process exit code in `rc`.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace atomcheck::cli {

// Exit codes (DESIGN.md "Conventions").
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblem = 1;   // a property, expectation or checker found a problem
inline constexpr int kExitBadInput = 2;  // bad input or usage
inline constexpr int kExitBudget = 3;    // a budget or bound stopped the search early

// Option checks whose messages fit on one line (CLI11's PositiveNumber prints the range
// of a double, and an unsigned option takes "-1" as 2^64 - 1).
inline bool all_digits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}
inline const CLI::Validator unsigned_integer(
    [](std::string& s) -> std::string {
      return all_digits(s) ? "" : "'" + s + "' is not a non-negative whole number";
    },
    "UINT");
inline const CLI::Validator at_least_one(
    [](std::string& s) -> std::string {
      return all_digits(s) && s.find_first_not_of('0') != std::string::npos
                 ? ""
                 : "'" + s + "' is not a whole number of at least 1";
    },
    "UINT>0");

// --jobs: worker threads add no speed yet on 2 cores (README, "Parallel exploration"),
// so the default stays one thread.
inline constexpr const char* kJobsHelp =
    "Exploring threads, default 1 (optimal DPOR; the result is the same for every value)";

void add_trace_info_command(CLI::App& app, int& rc);
void add_check_trace_command(CLI::App& app, int& rc);
void add_run_commands(CLI::App& app, int& rc);
void add_validate_command(CLI::App& app, int& rc);

}  // namespace atomcheck::cli
