// The TSO checkers behind the Checker interface (registered in registry.cpp):
//   tso-exec         execution TSO-serializability (⊚TSO conflict graph), exact;
//   tso-robust       SC-equivalence of the execution (write-contraction, §4.2), exact;
//   tso-monitor      §6.3: robustness and SC-serializability, which for
//                    transaction-fenced executions is TSO-serializability (Theorem 3);
//   trace-tso-brute  trace TSO-serializability by enumerating Execs(tau), exact;
//   trace-tso-z3     the same by Z3 on Corollary 1;
//   trace-tso-fpt    the same in one pass over the trace (tso_trace_fpt.hpp): memory
//                    for the live part only, so traces of any length can be streamed;
//   trace-tso        the one to use: trace-tso-fpt, with the witness execution;
//   trace-tso-search the earlier search over simple cycles (a second judge).
// Execution checkers read eta (wants_commits); without commits in the input they take
// it as an SC execution (each write committed at once). Trace checkers read tau: the
// feeder drops commits, and the answer is about every commit placement.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "checker.hpp"
#include "../trace/transactions.hpp"

namespace atomcheck {

namespace tso {
class Z3Decider;
class TraceStream;
}

class TsoExecChecker final : public Checker {
 public:
  enum class Kind : std::uint8_t { exec, robust, monitor };
  TsoExecChecker(const CheckerOptions& options, Kind kind) : options_(options), kind_(kind) {}
  std::string_view name() const override;
  void on_event(const Event& e) override { events_.push_back(e); }
  Verdict verdict() override;
  void reset() override { events_.clear(); }
  bool wants_commits() const override { return true; }

 private:
  CheckerOptions options_;
  Kind kind_;
  std::vector<Event> events_;
};

class TraceTsoChecker final : public Checker {
 public:
  enum class Kind : std::uint8_t { brute, z3, fpt, main, search };
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
  // Kind::z3: one context for every trace (making one costs milliseconds).
  std::unique_ptr<tso::Z3Decider> z3_;
};

}  // namespace atomcheck
