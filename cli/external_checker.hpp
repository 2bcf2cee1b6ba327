// External checkers (`--external NAME=COMMAND`): a checker written in any language is run
// as a process on a trace file and its answer read from its exit code or its output, so
// `validate` and `check-trace` judge it like a compiled-in one. A crash, a timeout or an
// answer that cannot be read is an error, never a verdict.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "../trace/trace.hpp"
#include "../trace/trace_io.hpp"

namespace CLI {
class App;
}

namespace atomcheck::cli {

// The --external* options as the user typed them, shared by validate and check-trace.
struct ExternalCliOptions {
  std::vector<std::string> checkers;  // NAME=COMMAND, repeatable
  std::string format = "std";
  std::string violation, serializable;  // regexes on stdout lines; empty: exit code
  double timeout = 10;
  std::string question = "serializability";
  bool batch = false;
  std::string dir;  // where trace files go; empty: a new directory under $TMPDIR
};

// One external checker, parsed and checked.
struct ExternalSpec {
  std::string name;
  std::string command;  // as written; {trace} is replaced by the trace path
  TraceFormat format = TraceFormat::std_text;
  std::string violation_text, serializable_text;
  std::optional<std::regex> violation, serializable;
  double timeout = 10;
  bool blame = false;  // the question it answers: blame, else serializability
  bool batch = false;  // one long-lived process: trace paths on stdin, one answer per line
};

// Registers the --external* options on a subcommand.
void add_external_options(CLI::App& cmd, ExternalCliOptions& o);

// Checks the options; false with a one-line message for bad input (malformed
// NAME=COMMAND, a name already used, no {trace} outside batch mode, a bad regex).
bool parse_externals(const ExternalCliOptions& o, std::vector<ExternalSpec>& out, std::string& error);

// What an external checker said about one trace.
struct ExternalAnswer {
  enum Kind { serializable, violation, error } kind = error;
  std::string detail;  // for errors: "exit 139 (signal 11)", "timeout after 10 s", ...
  double seconds = 0;  // wall time of the process (or of the batch answer)
  std::string trace_file;  // the file it was given
};

// The directory the trace files of a run go to; made on first use, removed at
// destruction when nothing was kept in it.
class TraceDir {
 public:
  explicit TraceDir(std::string requested) : requested_(std::move(requested)) {}
  ~TraceDir();
  TraceDir(const TraceDir&) = delete;
  TraceDir& operator=(const TraceDir&) = delete;
  // The directory, created if needed; throws std::runtime_error when it cannot be.
  const std::string& path();
  // A fresh file, created empty: unique across threads and earlier runs.
  std::string next_file(const std::string& stem, TraceFormat format);
  bool made() const { return !path_.empty(); }

 private:
  std::string requested_, path_;
  bool created_ = false;
};

class BatchProcess;

// Runs one external checker on traces, one process per trace or one batch process.
// Not thread-safe: each thread has its own.
class ExternalChecker {
 public:
  ExternalChecker(ExternalSpec spec, TraceDir& dir);
  ~ExternalChecker();
  ExternalChecker(const ExternalChecker&) = delete;
  ExternalChecker& operator=(const ExternalChecker&) = delete;
  const ExternalSpec& spec() const { return spec_; }
  // Writes `trace` to a new file in the directory and asks the checker about it. The
  // file stays: the caller removes it or keeps it.
  ExternalAnswer check(const Trace& trace);
  // Asks about a file already in the checker's format.
  ExternalAnswer check_file(const std::string& path);

 private:
  ExternalSpec spec_;
  TraceDir& dir_;
  std::unique_ptr<BatchProcess> batch_;
};

// The result of one process run (exposed for the tests of the process handling).
struct ProcessResult {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out, err;  // stdout, stderr (each capped)
  double seconds = 0;
};

// Runs `command` through /bin/sh -c in its own process group, stdin /dev/null; after
// `timeout` seconds the group gets SIGTERM, then SIGKILL a second later. Whatever the
// command leaves running in its group when it exits is killed too.
ProcessResult run_process(const std::string& command, double timeout);

// `check-trace FILE --external ...`: asks each external checker about the trace (in the
// format it reads) and prints its answer. Exit 1 some violation, 3 some error (its input
// kept), 2 an unreadable trace, else 0.
int check_trace_externals(const std::string& file, const std::string& format, const std::vector<ExternalSpec>& specs,
                          const std::string& dir_option);

// What an STD file can carry of a trace: commits and fences dropped (the trace tau an
// SC checker reads), values and block labels cleared, an rmw as a block of its read and
// write. Conflicts, hence conflict serializability, are unchanged.
Trace std_projection(const Trace& trace);

// The options that give `check-trace` the same external checker, " --external ...".
std::string external_flags(const ExternalSpec& s);

// `s` quoted for /bin/sh when it holds anything but [A-Za-z0-9_./=:,+-].
std::string shell_quote(const std::string& s);

}  // namespace atomcheck::cli
