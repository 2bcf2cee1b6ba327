// SIGINT to a flag (see interrupt.hpp).
#include "cli/interrupt.hpp"

#include <csignal>

namespace atomcheck::cli {

namespace {
std::atomic<bool> g_sigint{false};
static_assert(std::atomic<bool>::is_always_lock_free, "a signal handler may only touch a lock-free atomic");
// C linkage for a signal handler, so its name must be unique in the program (the library has one too).
extern "C" void atomcheck_cli_on_sigint(int) { g_sigint.store(true); }
}  // namespace

SigintScope::SigintScope(bool sigterm) : sigterm_(sigterm) {
  g_sigint.store(false);
  // SIGTERM first: a caller that waits until SIGINT is caught may then send either.
  if (sigterm_) old_term_ = std::signal(SIGTERM, atomcheck_cli_on_sigint);
  old_ = std::signal(SIGINT, atomcheck_cli_on_sigint);
}
SigintScope::~SigintScope() {
  std::signal(SIGINT, old_);
  if (sigterm_) std::signal(SIGTERM, old_term_);
}
const std::atomic<bool>* SigintScope::flag() { return &g_sigint; }

}  // namespace atomcheck::cli
