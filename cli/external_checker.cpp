#include "cli/external_checker.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "cli/interrupt.hpp"

extern char** environ;

namespace atomcheck::cli {

namespace {

using Clock = std::chrono::steady_clock;

// A checker that floods its output must not exhaust memory; the answer is near the top
// or in the exit code anyway.
constexpr std::size_t kOutputCap = std::size_t{1} << 20;
// Between SIGTERM and SIGKILL: time for a JVM to run its shutdown hooks.
constexpr double kTermGrace = 1.0;

struct Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;  // our ends; -1 when closed
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Starts /bin/sh -c COMMAND in a new process group. stdin is a socket when `with_stdin`
// (writes to a dead reader then fail with EPIPE instead of raising SIGPIPE in us), else
// /dev/null.
bool spawn(const std::string& command, bool with_stdin, Child& c, std::string& error) {
  int out[2], err[2], in[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    return false;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    error = std::strerror(errno);
    ::close(out[0]);
    ::close(out[1]);
    return false;
  }
  if (with_stdin && ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0) {
    error = std::strerror(errno);
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    return false;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (with_stdin)
    posix_spawn_file_actions_adddup2(&actions, in[1], 0);
  else
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGPIPE, SIGTERM, SIGQUIT}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::string sh = "/bin/sh", dash_c = "-c", cmd = command;
  char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};
  const int rc = ::posix_spawn(&c.pid, "/bin/sh", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(out[1]);
  ::close(err[1]);
  if (with_stdin) ::close(in[1]);
  if (rc != 0) {
    error = std::strerror(rc);
    ::close(out[0]);
    ::close(err[0]);
    if (with_stdin) ::close(in[0]);
    c.pid = -1;
    return false;
  }
  c.out = out[0];
  c.err = err[0];
  c.in = with_stdin ? in[0] : -1;
  return true;
}

// Reads what is there; closes the descriptor at end of file.
void drain(int& fd, std::string& into) {
  char buf[8192];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n > 0) {
    if (into.size() < kOutputCap) into.append(buf, std::min<std::size_t>(n, kOutputCap - into.size()));
  } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
    close_fd(fd);
  }
}

// Waits for output on the open descriptors until `until`; false when the deadline passed
// (or Ctrl-C) first.
bool poll_once(Child& c, std::string& out, std::string& err, Clock::time_point until) {
  const auto now = Clock::now();
  if (now >= until || SigintScope::raised()) return false;
  pollfd fds[2];
  int n = 0;
  if (c.out >= 0) fds[n++] = {c.out, POLLIN, 0};
  if (c.err >= 0) fds[n++] = {c.err, POLLIN, 0};
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count();
  const int r = ::poll(fds, n, static_cast<int>(std::min<long long>(left + 1, 100)));
  if (r <= 0) return true;
  for (int i = 0; i < n; ++i)
    if (fds[i].revents != 0) drain(fds[i].fd == c.out ? c.out : c.err, fds[i].fd == c.out ? out : err);
  return true;
}

// Whether the child has exited, without reaping it (its pid, hence its group id, stays
// taken until then).
bool exited(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid;
}

bool wait_exit(pid_t pid, Clock::time_point until) {
  while (!exited(pid)) {
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// Ends the child and its group (SIGTERM, then SIGKILL for one that ignores it), reaps
// it and closes our ends; fills the exit fields of `r`.
void finish(Child& c, ProcessResult& r, bool terminate) {
  if (c.pid > 0) {
    if (terminate) {
      ::kill(-c.pid, SIGTERM);
      if (!wait_exit(c.pid, after(kTermGrace))) ::kill(-c.pid, SIGKILL);
    }
    // Whatever it left behind in its group goes with it.
    ::kill(-c.pid, SIGKILL);
    int status = 0;
    while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    c.pid = -1;
  }
  close_fd(c.in);
  close_fd(c.out);
  close_fd(c.err);
}

std::string status_text(const ProcessResult& r) {
  if (r.signal != 0) return fmt::format("killed by signal {} ({})", r.signal, ::strsignal(r.signal));
  // The command runs under /bin/sh, which reports a child's death by signal N as 128+N.
  if (r.exit_code > 128 && r.exit_code < 128 + 65)
    return fmt::format("exit {}: killed by signal {} ({})", r.exit_code, r.exit_code - 128,
                       ::strsignal(r.exit_code - 128));
  return fmt::format("exit {}", r.exit_code);
}

// The last non-empty line of a stream, for error messages.
std::string last_line(const std::string& s) {
  std::size_t end = s.find_last_not_of("\r\n \t");
  if (end == std::string::npos) return "";
  std::size_t begin = s.rfind('\n', end);
  begin = begin == std::string::npos ? 0 : begin + 1;
  std::string line = s.substr(begin, end + 1 - begin);
  if (line.size() > 120) line = line.substr(0, 117) + "...";
  return line;
}

bool any_line_matches(const std::string& text, const std::regex& re) {
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (std::regex_search(line, re)) return true;
    pos = nl + 1;
  }
  return false;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

// Reads one answer from output, for the per-trace mode: with regexes, the lines; else
// the exit code. False (with why) when it is none of the accepted answers.
bool read_answer(const ExternalSpec& s, const std::string& out, bool& violation, std::string& why) {
  if (s.violation) {
    if (any_line_matches(out, *s.violation)) return violation = true;
    violation = false;
    if (!s.serializable || any_line_matches(out, *s.serializable)) return true;
    why = fmt::format("unparseable answer: no line matches --external-violation or --external-serializable{}",
                      out.empty() ? " (no output)" : fmt::format(" (last line '{}')", last_line(out)));
    return false;
  }
  return false;
}

}  // namespace

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-") ==
                        std::string::npos)
    return s;
  return "'" + replace_all(s, "'", "'\\''") + "'";
}

ProcessResult run_process(const std::string& command, double timeout) {
  ProcessResult r;
  const auto t0 = Clock::now();
  const auto until = after(timeout);
  Child c;
  std::string error;
  if (!spawn(command, false, c, error)) {
    r.err = error;
    return r;
  }
  r.started = true;
  bool in_time = true;
  while ((c.out >= 0 || c.err >= 0) && (in_time = poll_once(c, r.out, r.err, until))) {
  }
  // Output closed: the exit follows, unless it closed its output and went on.
  if (in_time) in_time = wait_exit(c.pid, until) && !SigintScope::raised();
  r.timed_out = !in_time;
  finish(c, r, !in_time);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

// A long-lived checker process: one trace path per line on its stdin, one answer per
// line on its stdout. Restarted after it dies or times out.
class BatchProcess {
 public:
  explicit BatchProcess(std::string command) : command_(std::move(command)) {}
  ~BatchProcess() { stop(); }

  // The answer line for `path`, or nullopt with the error in `why`.
  std::optional<std::string> ask(const std::string& path, double timeout, std::string& why) {
    if (child_.pid < 0 && !start(why)) return std::nullopt;
    const std::string line = path + "\n";
    if (::send(child_.in, line.data(), line.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(line.size())) {
      why = "batch process no longer reads its input (" + died() + ")";
      return std::nullopt;
    }
    const auto until = after(timeout);
    for (;;) {
      if (std::size_t nl = out_.find('\n'); nl != std::string::npos) {
        std::string answer = out_.substr(0, nl);
        out_.erase(0, nl + 1);
        return answer;
      }
      if (child_.out < 0) {
        why = "batch process ended before answering (" + died() + ")";
        return std::nullopt;
      }
      if (!poll_once(child_, out_, err_, until)) {
        ProcessResult r;
        finish(child_, r, true);
        why = fmt::format("timeout after {} s (batch process killed, restarted for the next trace)", timeout);
        return std::nullopt;
      }
      if (err_.size() > 4096) err_.erase(0, err_.size() - 4096);  // a tail for messages
    }
  }

  void stop() {
    if (child_.pid < 0) return;
    close_fd(child_.in);  // end of input: a well-behaved batch checker exits
    ProcessResult r;
    std::string sink;
    const auto until = after(kTermGrace);
    while ((child_.out >= 0 || child_.err >= 0) && poll_once(child_, sink, sink, until)) sink.clear();
    finish(child_, r, !wait_exit(child_.pid, until));
  }

 private:
  bool start(std::string& why) {
    out_.clear();
    err_.clear();
    if (!spawn(command_, true, child_, why)) {
      why = "cannot start the batch process: " + why;
      return false;
    }
    return true;
  }
  // Reaps a batch process that stopped answering, saying how it ended.
  std::string died() {
    ProcessResult r;
    finish(child_, r, !wait_exit(child_.pid, after(kTermGrace)));
    std::string s = status_text(r);
    if (std::string e = last_line(err_); !e.empty()) s += ", stderr: " + e;
    return s;
  }

  std::string command_;
  Child child_;
  std::string out_, err_;
};

TraceDir::~TraceDir() {
  if (created_ && !path_.empty()) ::rmdir(path_.c_str());  // fails, as wanted, unless empty
}

const std::string& TraceDir::path() {
  if (!path_.empty()) return path_;
  if (!requested_.empty()) {
    if (::mkdir(requested_.c_str(), 0777) == 0)
      created_ = true;
    else if (errno != EEXIST)
      throw std::runtime_error(fmt::format("{}: cannot create directory: {}", requested_, std::strerror(errno)));
    path_ = requested_;
    return path_;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/atomcheck-external-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr)
    throw std::runtime_error(fmt::format("{}: cannot create directory: {}", templ, std::strerror(errno)));
  created_ = true;
  path_ = templ;
  return path_;
}

std::string TraceDir::next_file(const std::string& stem, TraceFormat format) {
  static std::atomic<std::uint64_t> counter{0};
  for (;;) {
    std::string name = fmt::format("{}/{}-{}.{}", path(), stem, counter.fetch_add(1),
                                   format == TraceFormat::jsonl ? "jsonl" : "std");
    // Created here, so an earlier run's kept file in the same directory is never overwritten.
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      return name;
    }
    if (errno != EEXIST) throw std::runtime_error(fmt::format("{}: {}", name, std::strerror(errno)));
  }
}

ExternalChecker::ExternalChecker(ExternalSpec spec, TraceDir& dir) : spec_(std::move(spec)), dir_(dir) {
  if (spec_.batch) batch_ = std::make_unique<BatchProcess>(spec_.command);
}

ExternalChecker::~ExternalChecker() = default;

Trace std_projection(const Trace& trace) {
  Trace out;
  out.names = trace.names;
  out.events.reserve(trace.events.size());
  for (Event e : trace.events) {
    if (e.op == Op::commit || e.op == Op::fence) continue;
    e.value = e.value2 = 0;
    e.buffered = false;
    if (is_block_op(e.op)) e.target = kNoId;
    if (e.op != Op::rmw) {
      out.events.push_back(e);
      continue;
    }
    Event b{}, r = e, w = e, x{};
    b.op = Op::begin;
    b.thread = e.thread;
    r.op = Op::read;
    w.op = Op::write;
    x = b;
    x.op = Op::end;
    for (const Event& y : {b, r, w, x}) out.events.push_back(y);
  }
  return out;
}

ExternalAnswer ExternalChecker::check(const Trace& trace) {
  ExternalAnswer a;
  std::string path;
  try {
    path = dir_.next_file(spec_.name, spec_.format);
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) throw TraceError(fmt::format("{}: {}", path, std::strerror(errno)));
    try {
      spec_.format == TraceFormat::jsonl ? write_jsonl(f, trace) : write_std(f, std_projection(trace));
    } catch (...) {
      std::fclose(f);
      throw;
    }
    std::fclose(f);
  } catch (const std::runtime_error& e) {
    a.detail = fmt::format("cannot write the trace: {}", e.what());
    return a;
  }
  return check_file(path);
}

ExternalAnswer ExternalChecker::check_file(const std::string& path) {
  ExternalAnswer a;
  a.trace_file = path;
  bool violation = false;
  if (batch_) {
    const auto t0 = Clock::now();
    std::string why;
    std::optional<std::string> line = batch_->ask(path, spec_.timeout, why);
    a.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!line) {
      a.detail = why;
      return a;
    }
    std::string t = *line;
    while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.pop_back();
    if (t == "0" || t == "serializable") {
      a.kind = ExternalAnswer::serializable;
    } else if (t == "1" || t == "violation") {
      a.kind = ExternalAnswer::violation;
    } else if (spec_.violation && read_answer(spec_, t, violation, why)) {
      a.kind = violation ? ExternalAnswer::violation : ExternalAnswer::serializable;
    } else {
      a.detail = fmt::format("unparseable answer line '{}'", last_line(t));
    }
    return a;
  }
  const ProcessResult r = run_process(replace_all(spec_.command, "{trace}", shell_quote(path)), spec_.timeout);
  a.seconds = r.seconds;
  std::string why;
  if (!r.started) {
    a.detail = "cannot start /bin/sh: " + r.err;
  } else if (r.timed_out) {
    a.detail = SigintScope::raised() ? "interrupted" : fmt::format("timeout after {} s (process group killed)", spec_.timeout);
  } else if (r.signal != 0) {
    a.detail = status_text(r);
  } else if (spec_.violation) {
    if (r.exit_code != 0 && r.exit_code != 1)
      a.detail = status_text(r);
    else if (read_answer(spec_, r.out, violation, why))
      a.kind = violation ? ExternalAnswer::violation : ExternalAnswer::serializable;
    else
      a.detail = why;
  } else if (r.exit_code == 0 || r.exit_code == 1) {
    a.kind = r.exit_code == 1 ? ExternalAnswer::violation : ExternalAnswer::serializable;
  } else {
    a.detail = fmt::format("{} (0: serializable, 1: violation, anything else an error)", status_text(r));
  }
  if (a.kind == ExternalAnswer::error && !r.err.empty()) a.detail += ", stderr: " + last_line(r.err);
  return a;
}

void add_external_options(CLI::App& cmd, ExternalCliOptions& o) {
  const char* group = "External checkers";
  cmd.add_option("--external", o.checkers,
                 "NAME=COMMAND: a checker run through /bin/sh -c per trace, {trace} replaced by the trace "
                 "path; exit 0 serializable, 1 violation, anything else an error (repeatable)")
      ->group(group);
  cmd.add_option("--external-format", o.format, "Trace format the external checkers read: std (RAPID's, default) or jsonl")
      ->group(group);
  cmd.add_option("--external-violation", o.violation,
                 "REGEX: read the answer from stdout instead of the exit code: a line matching it is a "
                 "violation (exit 0 or 1 either way; other exit codes are errors)")
      ->group(group);
  cmd.add_option("--external-serializable", o.serializable,
                 "REGEX: with --external-violation, a line matching it is serializable and output "
                 "matching neither is an error (default: no match is serializable)")
      ->group(group);
  cmd.add_option("--external-timeout", o.timeout,
                 "Seconds per trace before the checker's process group is killed (an error; default 10)")
      ->group(group);
  cmd.add_option("--external-question", o.question,
                 "What the external checkers decide, judged by the oracle: serializability (default) or blame")
      ->group(group);
  cmd.add_flag("--external-batch", o.batch,
               "Start each external checker once: it reads one trace path per line on stdin and prints one "
               "answer per line (0 or serializable, 1 or violation, or lines matching the regexes)")
      ->group(group);
  cmd.add_option("--external-dir", o.dir,
                 "Directory for the trace files given to external checkers (default: a new one under $TMPDIR); "
                 "those of errors and disagreements are kept")
      ->group(group);
}

bool parse_externals(const ExternalCliOptions& o, std::vector<ExternalSpec>& out, std::string& error) {
  out.clear();
  if (o.format != "std" && o.format != "jsonl") {
    error = fmt::format("--external-format {}: unknown format (std or jsonl)", o.format);
    return false;
  }
  if (o.question != "serializability" && o.question != "blame") {
    error = fmt::format("--external-question {}: unknown question (serializability or blame)", o.question);
    return false;
  }
  if (!(o.timeout > 0) || !std::isfinite(o.timeout)) {
    error = "--external-timeout: a positive number of seconds";
    return false;
  }
  if (!o.serializable.empty() && o.violation.empty()) {
    error = "--external-serializable needs --external-violation";
    return false;
  }
  const auto catalog = checker_catalog();
  for (const std::string& arg : o.checkers) {
    const std::size_t eq = arg.find('=');
    ExternalSpec s;
    s.name = arg.substr(0, eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || s.name.empty() ||
        s.name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
            std::string::npos ||
        arg.find_first_not_of(" \t", eq + 1) == std::string::npos) {
      error = fmt::format("--external '{}': expected NAME=COMMAND (NAME of letters, digits, '_', '.', '-')", arg);
      return false;
    }
    s.command = arg.substr(eq + 1);
    for (const ExternalSpec& other : out)
      if (other.name == s.name) {
        error = fmt::format("--external {}: the name is given twice", s.name);
        return false;
      }
    for (const CheckerInfo& c : catalog)
      if (c.name == s.name) {
        error = fmt::format("--external {}: the name of a registered checker; choose another", s.name);
        return false;
      }
    if (!o.batch && s.command.find("{trace}") == std::string::npos) {
      error = fmt::format("--external {}: COMMAND has no {{trace}} (where the trace path goes; or use --external-batch)",
                          s.name);
      return false;
    }
    s.format = o.format == "jsonl" ? TraceFormat::jsonl : TraceFormat::std_text;
    s.timeout = o.timeout;
    s.blame = o.question == "blame";
    s.batch = o.batch;
    try {
      if (!o.violation.empty()) s.violation.emplace(o.violation);
      if (!o.serializable.empty()) s.serializable.emplace(o.serializable);
    } catch (const std::regex_error& e) {
      error = fmt::format("--external-violation/--external-serializable: bad regular expression: {}", e.what());
      return false;
    }
    s.violation_text = o.violation;
    s.serializable_text = o.serializable;
    out.push_back(std::move(s));
  }
  if (out.empty() && (o.format != "std" || !o.violation.empty() || o.batch || o.question != "serializability")) {
    error = "the --external-* options need --external NAME=COMMAND";
    return false;
  }
  return true;
}

}  // namespace atomcheck::cli

namespace atomcheck::cli {

std::string external_flags(const ExternalSpec& s) {
  std::string f = " --external " + shell_quote(s.name + "=" + s.command);
  if (s.format == TraceFormat::jsonl) f += " --external-format jsonl";
  if (!s.violation_text.empty()) f += " --external-violation " + shell_quote(s.violation_text);
  if (!s.serializable_text.empty()) f += " --external-serializable " + shell_quote(s.serializable_text);
  if (s.timeout != 10) f += fmt::format(" --external-timeout {}", s.timeout);
  if (s.blame) f += " --external-question blame";
  if (s.batch) f += " --external-batch";
  return f;
}

}  // namespace atomcheck::cli

namespace atomcheck::cli {

int check_trace_externals(const std::string& file, const std::string& format, const std::vector<ExternalSpec>& specs,
                          const std::string& dir_option) {
  Trace trace;
  try {
    trace = format.empty() ? read_trace(file) : read_trace(file, format == "jsonl" ? TraceFormat::jsonl : TraceFormat::std_text);
  } catch (const TraceError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  TraceDir dir(dir_option);
  bool violation = false, error = false;
  for (const ExternalSpec& s : specs) {
    ExternalChecker checker(s, dir);
    ExternalAnswer a;
    try {
      a = checker.check(trace);
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "{}\n", e.what());
      return 2;
    }
    fmt::print("external {}: {} ({:.3f} s)\n", s.name,
               a.kind == ExternalAnswer::violation      ? "violation"
               : a.kind == ExternalAnswer::serializable ? "serializable"
                                                        : "error: " + a.detail,
               a.seconds);
    violation |= a.kind == ExternalAnswer::violation;
    error |= a.kind == ExternalAnswer::error;
    // An error's input stays, so the failure can be rerun by hand.
    if (a.kind == ExternalAnswer::error && !a.trace_file.empty())
      fmt::print("  its input is kept: {}\n", a.trace_file);
    else if (!a.trace_file.empty())
      std::remove(a.trace_file.c_str());
  }
  return violation ? 1 : error ? 3 : 0;
}

}  // namespace atomcheck::cli
