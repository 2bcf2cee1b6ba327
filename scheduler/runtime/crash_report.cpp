// The fatal-signal report (see crash_report.hpp). The handler may interrupt anything,
// malloc included, so it only reads the running Execution's choices (the fiber that
// faulted is not changing them), formats into static buffers with write_schedule and
// writes with write(2).
#include "scheduler/runtime/crash_report.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "scheduler/runtime/execution.hpp"
#include "scheduler/search/strategy.hpp"

namespace atomcheck::detail {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr std::size_t kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);

std::mutex g_mutex;  // guards installation, never taken by the handler
int g_scopes = 0;
struct sigaction g_old[kSignalCount];
char g_hint[512];                 // the first scope's replay hint, NUL-terminated
char g_options[512];              // the library's: the options of the search, as flags
char g_schedule[1 << 16];         // a longer schedule is cut, and the report says so
char g_line[sizeof(g_schedule) + 1024];

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
  }
  return "a fatal signal";
}

// Appends to g_line; no allocation.
struct Line {
  std::size_t n = 0;
  void add(const char* s, std::size_t len) {
    if (len > sizeof(g_line) - n) len = sizeof(g_line) - n;
    std::memcpy(g_line + n, s, len);
    n += len;
  }
  void add(const char* s) { add(s, std::strlen(s)); }
};

// Writes "atomcheck: WHAT; the execution's schedule so far: 'S'" and the replay line
// for `e` (nullptr: "WHAT outside an execution") to stderr, from the static buffers.
void report(const char* what, const Execution* e) {
  Line out;
  out.add("\natomcheck: ");
  out.add(what);
  if (e == nullptr) {
    out.add(" outside an execution\n");
  } else {
    std::size_t len = write_schedule(e->choices(), g_schedule, sizeof(g_schedule));
    const bool cut = len > sizeof(g_schedule);
    if (cut) len = sizeof(g_schedule);
    out.add("; the execution's schedule so far: '");
    out.add(g_schedule, len);
    out.add(cut ? "...' (cut)\n" : "'\n");
    out.add("  replay it: ");
    if (g_hint[0] != '\0') {
      out.add(g_hint);
      out.add(" --replay '");
      out.add(g_schedule, len);
      out.add("'\n");
    } else {
      out.add("atomcheck::replay(body, \"");
      out.add(g_schedule, len);
      if (g_options[0] != '\0') {
        out.add("\", options) with the search's options (");
        out.add(g_options);
        out.add(")\n");
      } else {
        out.add("\", options) with the search's options\n");
      }
    }
  }
  for (std::size_t off = 0; off < out.n;) {
    ssize_t w = ::write(2, g_line + off, out.n - off);
    if (w <= 0) break;
    off += static_cast<std::size_t>(w);
  }
}

extern "C" void on_fatal_signal(int sig, siginfo_t*, void*) {
  char what[64] = {};
  std::strncat(what, signal_name(sig), sizeof(what) - 32);
  std::strcat(what, " in a test thread");
  report(what, Execution::current());
  // Die as before: the previous handler (default or a sanitizer's) gets the signal again.
  for (std::size_t k = 0; k < kSignalCount; ++k)
    if (kSignals[k] == sig) ::sigaction(sig, &g_old[k], nullptr);
  ::raise(sig);
}

// Every live Execution, and the watchdog thread while some scope asked for one.
std::mutex g_watch_mutex;
std::condition_variable g_watch_cv;
std::vector<const Execution*> g_executions;
std::thread g_watchdog;
bool g_watch_stop = false;

// Checks every live Execution a few times per timeout: one that runs (odd heartbeat) and
// has not moved for the whole timeout is reported, and the process ends with exit 3.
void watchdog(double timeout_seconds) {
  using Clock = std::chrono::steady_clock;
  const auto timeout = std::chrono::duration<double>(timeout_seconds);
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::min<std::chrono::duration<double>>(timeout / 4, std::chrono::seconds(1)));
  struct Seen {
    const Execution* e;
    std::uint64_t beat;
    Clock::time_point since;
  };
  std::vector<Seen> seen;
  std::unique_lock<std::mutex> lock(g_watch_mutex);
  while (!g_watch_cv.wait_for(lock, period, [] { return g_watch_stop; })) {
    const auto now = Clock::now();
    std::vector<Seen> next;
    for (const Execution* e : g_executions) {
      const std::uint64_t beat = e->heartbeat();
      Seen s{e, beat, now};
      for (const Seen& old : seen)
        if (old.e == e && old.beat == beat) s.since = old.since;
      if ((beat & 1) != 0 && now - s.since >= timeout) {
        // The stuck thread is in the test body, not in the scheduler: its choices are still.
        char what[256];
        std::snprintf(what, sizeof what,
                      "a test thread made no visible step for %g s (a loop that never calls the harness? "
                      "wait with spin_until or this_thread::yield(); --step-timeout raises the limit)",
                      timeout_seconds);
        report(what, e);
        const char stop[] = "atomcheck: the search cannot go on (the thread cannot be stopped): exit 3\n";
        if (::write(2, stop, sizeof stop - 1) < 0) {
        }
        std::_Exit(3);
      }
      next.push_back(s);
    }
    seen.swap(next);
  }
}

}  // namespace

void watch_execution(const Execution* e) {
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  g_executions.push_back(e);
}

void unwatch_execution(const Execution* e) {
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  g_executions.erase(std::remove(g_executions.begin(), g_executions.end(), e), g_executions.end());
}

CrashScope::CrashScope(std::string_view replay_hint, double step_timeout_seconds, std::string_view options_text) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_scopes++ > 0) return;
  if (step_timeout_seconds > 0) {
    std::lock_guard<std::mutex> watch_lock(g_watch_mutex);
    g_watch_stop = false;
    g_watchdog = std::thread(watchdog, step_timeout_seconds);
  }
  std::size_t n = std::min(replay_hint.size(), sizeof(g_hint) - 1);
  if (n > 0) std::memcpy(g_hint, replay_hint.data(), n);  // an empty view's data() may be null
  g_hint[n] = '\0';
  // Flags begin with a blank (" --memory tso"): dropped, they follow a parenthesis.
  while (!options_text.empty() && options_text.front() == ' ') options_text.remove_prefix(1);
  n = std::min(options_text.size(), sizeof(g_options) - 1);
  if (n > 0) std::memcpy(g_options, options_text.data(), n);
  g_options[n] = '\0';
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (std::size_t k = 0; k < kSignalCount; ++k) ::sigaction(kSignals[k], &sa, &g_old[k]);
}

CrashScope::~CrashScope() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_scopes > 0) return;
  if (g_watchdog.joinable()) {
    {
      std::lock_guard<std::mutex> watch_lock(g_watch_mutex);
      g_watch_stop = true;
    }
    g_watch_cv.notify_all();
    g_watchdog.join();
  }
  for (std::size_t k = 0; k < kSignalCount; ++k) ::sigaction(kSignals[k], &g_old[k], nullptr);
}

void ensure_alt_stack() {
  // Kept for the thread's life: the kernel may switch to it at any signal.
  thread_local std::unique_ptr<char[]> stack;
  if (stack) return;
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE)) return;  // one exists (a sanitizer's)
  constexpr std::size_t kSize = 64 * 1024;
  stack = std::make_unique<char[]>(kSize);
  stack_t ss{};
  ss.ss_sp = stack.get();
  ss.ss_size = kSize;
  ::sigaltstack(&ss, nullptr);
}

}  // namespace atomcheck::detail
