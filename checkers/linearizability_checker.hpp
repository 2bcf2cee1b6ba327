// The `linearizability` checker of the panel: collects the operations an execution's trace
// records (an operation is an atomic block whose begin carries an operation code,
// linearizability.hpp OperationCode; scheduler/lin_test.hpp `operation` emits them), one
// history per object, and decides each with lin::check under the precedence of the
// execution's memory model (docs/linearizability.md "What precedes means"): A precedes B
// when A is earlier in B's thread, or when A's last step (and under TSO the commit of
// A's last store) comes before B's first step in the order every member of the explored
// class agrees on (lin_order.hpp: the conflict order under SC and TSO, happens-before
// under RC11). Never the interleaving itself, so a reduction that keeps one member per
// rf+co class (or per RC11 graph) loses no verdict. Not linearizable: the verdict is
// "not serializable" (the panel's one yes/no question; reports say "not linearizable"),
// `note` holds the shortest failing history with the orders that made it fail, and
// detected_at the return that ended it.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "checker.hpp"
#include "lin_order.hpp"
#include "linearizability.hpp"

namespace atomcheck {

class LinearizabilityChecker final : public Checker {
 public:
  explicit LinearizabilityChecker(const CheckerOptions& options);
  std::string_view name() const override { return "linearizability"; }
  void on_event(const Event& e) override;
  Verdict verdict() override;
  void reset() override;
  // Under TSO: commits place the returns of operations whose stores were still buffered.
  bool wants_commits() const override { return true; }

 private:
  struct Object {
    std::uint32_t spec = 0;
    std::vector<std::size_t> ops;  // into ops_, in order of their begins
  };
  // One operation and where it is in the class order.
  struct Rec {
    lin::Operation op;
    std::uint32_t object = 0;
    bool stepped = false;                // a step of its own was seen
    bool called = false;                 // its first step (or its thread's next) was seen
    bool ended = false;
    ClassOrder::Clock call;              // the clock at that step
    std::uint32_t last = 0;              // its thread's chain at its last step
    EventIndex last_pos = kNoEvent;
    EventIndex last_write = kNoEvent;    // TSO: its last store's issue
    bool committed = false;              // TSO: and that store's commit was seen
    std::uint32_t commit = 0;            // the buffer's chain at the commit
  };
  struct Open {
    bool operation = false;
    std::size_t rec = 0;
  };
  CheckerOptions options_;
  ClassOrder order_;
  std::vector<std::unique_ptr<lin::Spec>> specs_;  // by spec index, made on first use
  std::vector<Object> objects_;                    // by object id
  std::vector<Rec> ops_;
  std::vector<std::vector<Open>> open_;            // per thread: the blocks entered
  std::vector<std::vector<std::size_t>> uncalled_; // per thread: operations awaiting a step
  std::vector<std::size_t> awaiting_commit_;       // TSO: ended, their last store buffered
  EventIndex next_ = 0;
};

}  // namespace atomcheck
