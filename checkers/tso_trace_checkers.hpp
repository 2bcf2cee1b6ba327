// The trace TSO-serializability deciders behind the Checker interface (atomcheck::judges;
// registered in judges_registry.cpp):
//   trace-tso-brute  by enumerating Execs(tau), exact;
//   trace-tso-fpt    in one pass over the trace (tso_trace_fpt.hpp): memory for the live
//                    part only, so traces of any length can be streamed;
//   trace-tso        the one to use: trace-tso-fpt, with the witness execution;
//   trace-tso-search the earlier search over simple cycles (a second judge).
// trace-tso-z3 (atomcheck::z3) is in tso_trace_z3.cpp. They read tau: the feeder drops
// commits, and the answer is about every commit placement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "checker.hpp"
#include "tso_trace.hpp"
#include "../trace/transactions.hpp"

namespace atomcheck {

namespace tso {
class TraceStream;
}

// Registers the judges' catalogue once (judges_registry.cpp); their static initialiser
// calls it, as does anything whose registration must list after them (trace-tso-z3).
bool register_judges();

// A decider's answer as a checker verdict, with the notes every trace decider adds.
Verdict trace_tso_verdict(std::string_view checker, const tso::TraceVerdict& tv, bool open_at_end);

class TraceTsoChecker final : public Checker {
 public:
  enum class Kind : std::uint8_t { brute, fpt, main, search };
  // Executions the brute force enumerates before it gives up (undecided).
  static constexpr std::uint64_t kBruteLimit = 2000000;
  TraceTsoChecker(const CheckerOptions& options, Kind kind);
  ~TraceTsoChecker() override;
  std::string_view name() const override;
  void on_event(const Event& e) override;
  Verdict verdict() override;
  void reset() override;
  // fpt and main stream: online, citing only the cycle they found.
  bool live_events(LiveEvents& out) const override;

 private:
  CheckerOptions options_;
  Kind kind_;
  std::vector<Event> events_;  // not for fpt and main, which stream
  NestingTracker nesting_;     // fpt and main: a block open at the end
  std::unique_ptr<tso::TraceStream> stream_;
};

}  // namespace atomcheck
