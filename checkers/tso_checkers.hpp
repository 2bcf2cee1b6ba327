// The TSO execution checkers behind the Checker interface (core; registered in
// registry.cpp):
//   tso-exec         execution TSO-serializability (⊚TSO conflict graph), exact;
//   tso-robust       SC-equivalence of the execution (write-contraction, §4.2), exact;
//   tso-monitor      §6.3: robustness and SC-serializability, which for
//                    transaction-fenced executions is TSO-serializability (Theorem 3).
// They read eta (wants_commits); without commits in the input they take it as an SC
// execution (each write committed at once). The trace deciders, which read tau and
// answer for every commit placement, are in tso_trace_checkers.hpp (atomcheck::judges).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "checker.hpp"

namespace atomcheck {

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

}  // namespace atomcheck
