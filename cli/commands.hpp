// Registration of the atomcheck subcommands. Each lives in its own cmd_*.cpp and adds a
// CLI11 subcommand whose callback stores the process exit code in `rc`.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <thread>
#include <utility>

#include <CLI/CLI.hpp>

#include "../scheduler/explore/explore.hpp"

namespace atomcheck::cli {

// Exit codes (DESIGN.md "Conventions").
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblem = 1;   // a property, expectation or checker found a problem
inline constexpr int kExitBadInput = 2;  // bad input or usage
inline constexpr int kExitBudget = 3;    // a budget or bound stopped the search early

// Option checks whose messages fit on one line (CLI11's PositiveNumber prints the range
// of a double, and an unsigned option takes "-1" as 2^64 - 1).
// Digits only, within 64 bits (CLI11 saturates a longer number without a word).
inline bool all_digits(const std::string& s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  errno = 0;
  std::strtoull(s.c_str(), nullptr, 10);
  return errno != ERANGE;
}
inline const CLI::Validator unsigned_integer(
    [](std::string& s) -> std::string {
      return all_digits(s) ? "" : "'" + s + "' is not a non-negative whole number";
    },
    "UINT");
// Seconds: CLI11's NonNegativeNumber lets "nan" through (then no limit) and prints the
// range of a double.
inline const CLI::Validator non_negative_seconds(
    [](std::string& s) -> std::string {
      char* end = nullptr;
      double v = s.empty() ? -1 : std::strtod(s.c_str(), &end);
      return !s.empty() && *end == '\0' && std::isfinite(v) && v >= 0
                 ? ""
                 : "'" + s + "' is not a non-negative number of seconds";
    },
    "SECONDS");
inline const CLI::Validator at_least_one(
    [](std::string& s) -> std::string {
      return all_digits(s) && s.find_first_not_of('0') != std::string::npos
                 ? ""
                 : "'" + s + "' is not a whole number of at least 1";
    },
    "UINT>0");

// A whole number in [lo, hi] (CLI11's Range message loses the option's name when the
// option is hidden).
inline CLI::Validator whole_number_in(std::uint64_t lo, std::uint64_t hi, const std::string& what) {
  return CLI::Validator(
      [lo, hi, what](std::string& s) -> std::string {
        if (all_digits(s)) {
          std::uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
          if (v >= lo && v <= hi) return "";
        }
        return "'" + s + "' is not " + what;
      },
      "UINT");
}
// --stack-kib: 0 is the default size; the cap keeps N * 1024 and the stacks' mmap sane.
inline const CLI::Validator stack_size_kib =
    whole_number_in(0, 1048576, "a stack size in KiB from 0 (default) to 1048576 (1 GiB)");

// The names whose flag is set, comma-separated: the list a one-line refusal of options
// that do not apply names.
inline std::string given_options(std::initializer_list<std::pair<bool, const char*>> options) {
  std::string out;
  for (const auto& [given, name] : options)
    if (given) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

// --jobs: optimal DPOR takes every core unless told (its result is the same for every
// value); random and pct keep one search unless told, so that --seed alone names the same
// samples on every machine; dfs and dpor explore on one thread. `given` 0: not given.
inline unsigned jobs_for(unsigned given, StrategyKind strategy) {
  if (given) return given;
  return strategy == StrategyKind::optimal ? std::max(1u, std::thread::hardware_concurrency()) : 1u;
}
inline constexpr const char* kJobsHelp =
    "Exploring threads. Optimal DPOR: default every core, the result is the same for every value. "
    "random, pct: default 1, else the samples are split across N searches with seeds derived from "
    "--seed. dfs, dpor: one thread";

inline constexpr const char* kSpinThresholdHelp =
    "Identical reads in a row (one thread, line, variable, value) after which a loop without yield() is "
    "taken to wait for a change there, as yield() would, and said so (exit 3); default 100, 0: never";
inline constexpr const char* kNoRaceCheckHelp =
    "Do not report data races (unordered accesses to a shared<T>, one a write) as failures: for "
    "programs that race on purpose (docs/data-races.md)";
inline constexpr const char* kNoLeakCheckHelp =
    "Do not report blocks of atomcheck::make still allocated at the end as leaks: for code that leaks by "
    "design (docs/api.md)";
inline constexpr const char* kReuseFreedHelp =
    "make() takes the block the last destroy() of that size freed (a LIFO free list), so a stale pointer "
    "reaches a new object, as in ABA (docs/api.md)";
inline constexpr const char* kScGraphsHelp =
    "under sc: one execution per graph (rf, mo), TruSt over RC11 with every access seq_cst, as GenMC's -sc "
    "(default: optimal DPOR's classes, Nidhugg's counts)";
inline constexpr const char* kNoLoopReductionHelp =
    "run every attempt of a cas_loop (default: a failed attempt that wrote nothing blocks its "
    "thread, and the executions where it succeeded are explored instead)";
inline constexpr const char* kNoSpuriousWakeupsHelp =
    "condition_variable waits block until a notify (default: a wait may return at any time, as the "
    "standard allows); finds forgotten and early notifies";

// The line `run` and `validate` print when a loop without yield() was taken for a spin
// (ExploreOptions::spin_threshold), with `replay`, the command that re-runs the first such
// execution; empty when none was.
std::string unmarked_spin_note(const ExploreResult& r, const std::string& replay);

// The name the command line was started by (argv[0]'s base name: "atomcheck", or a
// user's binary calling cli_main), for the commands it prints to re-run something.
const std::string& tool_name();
void set_tool_name(std::string_view argv0);

void add_trace_info_command(CLI::App& app, int& rc);
void add_check_trace_command(CLI::App& app, int& rc);
void add_run_commands(CLI::App& app, int& rc);
void add_validate_command(CLI::App& app, int& rc);
void add_lincheck_command(CLI::App& app, int& rc);
void add_check_history_command(CLI::App& app, int& rc);

}  // namespace atomcheck::cli
