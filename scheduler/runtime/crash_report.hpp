// A fatal signal in a test body (a null dereference, an abort, a fiber stack overflow)
// would kill the process without a word about which interleaving did it, and a test
// thread looping without ever calling the harness would hang it for good. While a
// CrashScope lives, SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT print the running
// execution's schedule and how to replay it on stderr, then the process dies of the same
// signal through the handler that was there before (the default, a sanitizer's); and a
// watchdog thread reports an execution that made no step for the step timeout the same
// way, then ends the process with exit code 3 (the stuck thread cannot be stopped from
// outside it, and waiting longer gains nothing).
#pragma once

#include <string_view>

namespace atomcheck::detail {

class Execution;

// Process-wide and reference-counted (explorations may nest or run at once); the first
// scope's hint and timeout are the ones used. `replay_hint` is the command a schedule
// completes ("atomcheck run sb --memory tso" gives "atomcheck run sb --memory tso
// --replay 'S'"); empty, the report names the library call atomcheck::replay(body, "S").
// `step_timeout_seconds` 0: no watchdog.
class CrashScope {
 public:
  // replay_hint: the command line a schedule is appended to (`atomcheck run P --memory tso`);
  // empty from the library, whose hint is atomcheck::replay(body, "S", options) followed by
  // `options_text`, the flags that shape the search's executions (replay_flags()).
  explicit CrashScope(std::string_view replay_hint = {}, double step_timeout_seconds = 0,
                      std::string_view options_text = {});
  ~CrashScope();
  CrashScope(const CrashScope&) = delete;
  CrashScope& operator=(const CrashScope&) = delete;
};

// Gives the calling thread an alternate signal stack, so the report is printed even when
// the fiber's own stack is what overflowed (once per thread; every exploring thread calls it).
void ensure_alt_stack();

// Every Execution is known to the watchdog for its lifetime (execution.cpp).
void watch_execution(const Execution* e);
void unwatch_execution(const Execution* e);

}  // namespace atomcheck::detail
