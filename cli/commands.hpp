// Registration of the atomcheck subcommands. Each lives in its own cmd_*.cpp and adds a
// CLI11 subcommand whose callback stores the process exit code in `rc`.
#pragma once

#include <CLI/CLI.hpp>

namespace atomcheck::cli {

// Exit codes (DESIGN.md "Conventions").
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblem = 1;   // a property, expectation or checker found a problem
inline constexpr int kExitBadInput = 2;  // bad input or usage
inline constexpr int kExitBudget = 3;    // a budget or bound stopped the search early

void add_trace_info_command(CLI::App& app, int& rc);
void add_check_trace_command(CLI::App& app, int& rc);
void add_run_commands(CLI::App& app, int& rc);
void add_validate_command(CLI::App& app, int& rc);

}  // namespace atomcheck::cli
