// The Z3 decider of trace TSO-serializability (paper Corollary 1): tau is not
// TSO-serializable iff some execution in Execs(tau) (a placement of the commits) has a
// cycle in its conflict graph over transactions. Kept apart from the §6.2 decider so the
// two stay independent judges (docs/trace-tso-z3.md).
#pragma once

#include <memory>
#include <span>

#include "tso_trace.hpp"

namespace atomcheck::tso {

TraceVerdict decide_z3(std::span<const Event> tau, const Deadline& deadline = {});

// The Z3 decider keeping its context between traces (creating a Z3 context costs
// milliseconds, more than solving a small trace).
class Z3Decider {
 public:
  Z3Decider();
  ~Z3Decider();
  Z3Decider(const Z3Decider&) = delete;
  Z3Decider& operator=(const Z3Decider&) = delete;
  // The deadline's time becomes Z3's timeout; its interrupt flag is watched by a thread
  // that interrupts the solver (Z3's own Ctrl-C handling is off: it would swallow the
  // SIGINT the CLI needs to see).
  TraceVerdict decide(std::span<const Event> tau, const Deadline& deadline = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace atomcheck::tso
