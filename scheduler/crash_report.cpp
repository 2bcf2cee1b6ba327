// The fatal-signal report (see crash_report.hpp). The handler may interrupt anything,
// malloc included, so it only reads the running Execution's choices (the fiber that
// faulted is not changing them), formats into static buffers with write_schedule and
// writes with write(2).
#include "scheduler/crash_report.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "scheduler/execution.hpp"
#include "scheduler/strategy.hpp"

namespace atomcheck::detail {

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr std::size_t kSignalCount = sizeof(kSignals) / sizeof(kSignals[0]);

std::mutex g_mutex;  // guards installation, never taken by the handler
int g_scopes = 0;
struct sigaction g_old[kSignalCount];
char g_hint[512];                 // the first scope's replay hint, NUL-terminated
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

extern "C" void on_fatal_signal(int sig, siginfo_t*, void*) {
  Line out;
  out.add("\natomcheck: ");
  out.add(signal_name(sig));
  const Execution* e = Execution::current();
  if (e == nullptr) {
    out.add(" outside an execution\n");
  } else {
    std::size_t len = write_schedule(e->choices(), g_schedule, sizeof(g_schedule));
    const bool cut = len > sizeof(g_schedule);
    if (cut) len = sizeof(g_schedule);
    out.add(" in a test thread; the execution's schedule so far: '");
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
      out.add("\")\n");
    }
  }
  for (std::size_t off = 0; off < out.n;) {
    ssize_t w = ::write(2, g_line + off, out.n - off);
    if (w <= 0) break;
    off += static_cast<std::size_t>(w);
  }
  // Die as before: the previous handler (default or a sanitizer's) gets the signal again.
  for (std::size_t k = 0; k < kSignalCount; ++k)
    if (kSignals[k] == sig) ::sigaction(sig, &g_old[k], nullptr);
  ::raise(sig);
}

}  // namespace

CrashScope::CrashScope(std::string_view replay_hint) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_scopes++ > 0) return;
  std::size_t n = std::min(replay_hint.size(), sizeof(g_hint) - 1);
  std::memcpy(g_hint, replay_hint.data(), n);
  g_hint[n] = '\0';
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (std::size_t k = 0; k < kSignalCount; ++k) ::sigaction(kSignals[k], &sa, &g_old[k]);
}

CrashScope::~CrashScope() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_scopes > 0) return;
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
