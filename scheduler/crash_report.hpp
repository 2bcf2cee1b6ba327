// A fatal signal in a test body (a null dereference, an abort, a fiber stack overflow)
// would kill the process without a word about which interleaving did it. While a
// CrashScope lives, SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT print the running
// execution's schedule and how to replay it on stderr, then the process dies of the same
// signal through the handler that was there before (the default, a sanitizer's).
#pragma once

#include <string_view>

namespace atomcheck::detail {

// Process-wide and reference-counted (explorations may nest or run at once); the first
// scope's hint is the one printed. `replay_hint` is the command a schedule completes
// ("atomcheck run sb --memory tso" gives "atomcheck run sb --memory tso --replay 'S'");
// empty, the report names the library call atomcheck::replay(body, "S").
class CrashScope {
 public:
  explicit CrashScope(std::string_view replay_hint = {});
  ~CrashScope();
  CrashScope(const CrashScope&) = delete;
  CrashScope& operator=(const CrashScope&) = delete;
};

// Gives the calling thread an alternate signal stack, so the report is printed even when
// the fiber's own stack is what overflowed (once per thread; every exploring thread calls it).
void ensure_alt_stack();

}  // namespace atomcheck::detail
