// Ctrl-C during a long command. The handler only raises a flag (all a signal handler
// may touch); searches and checkers poll it (ExploreOptions::interrupt, Deadline), and
// every command then prints what it has and exits 3 instead of dying with nothing.
#pragma once

#include <atomic>

namespace atomcheck::cli {

// While alive, SIGINT raises flag() instead of ending the process; the previous handler
// comes back at destruction. The flag is process-wide because a handler can reach no
// other state; one scope at a time.
// With `sigterm`, SIGTERM raises the flag too: a batch scheduler's pre-emption, which a
// checkpointing search answers as it answers Ctrl-C (cmd_run.cpp, --checkpoint).
class SigintScope {
 public:
  explicit SigintScope(bool sigterm = false);
  ~SigintScope();
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;
  static const std::atomic<bool>* flag();
  static bool raised() { return flag()->load(); }

 private:
  void (*old_)(int);
  void (*old_term_)(int) = nullptr;
  bool sigterm_ = false;
};

}  // namespace atomcheck::cli
