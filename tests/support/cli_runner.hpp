// Runs the built atomcheck binary from a test and captures its exit code, stdout and
// stderr, so command-line behaviour (messages, exit codes) is asserted end to end.
#pragma once

#include <string>
#include <vector>

namespace atomcheck::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs ATOMCHECK_BIN with the given arguments (no shell), optional stdin text.
CliResult run_cli(const std::vector<std::string>& args, const std::string& stdin_text = "");

// The same, sending SIGINT `after_ms` milliseconds after the command has installed its
// SIGINT handler (as a user's Ctrl-C). A command still running a minute later is killed
// (exit code 128 + 9), so a hang fails the test instead of holding the suite.
CliResult run_cli_interrupted(const std::vector<std::string>& args, int after_ms, const std::string& stdin_text = "");

// The same with another signal (SIGTERM: a batch scheduler's pre-emption), sent once the
// command catches SIGINT (a command that handles both installs them together).
CliResult run_cli_signalled(const std::vector<std::string>& args, int after_ms, int signal);

// The words of a printed command line as a shell splits it: blanks separate, single
// quotes keep what they enclose (the only quoting atomcheck's hints use).
std::vector<std::string> shell_words(const std::string& line);

// Path of a file under tests/data.
std::string data_path(const std::string& relative);

// A fresh temporary directory for one test, removed by nobody (under /tmp).
std::string temp_dir();

}  // namespace atomcheck::testing
