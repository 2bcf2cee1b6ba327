// The `linearizability` checker of the panel: collects the operations an execution's trace
// records (an operation is an atomic block whose begin carries an operation code,
// linearizability.hpp OperationCode; scheduler/lin_test.hpp `operation` emits them), one
// history per object, and decides each with lin::check. Not linearizable: the verdict is
// "not serializable" (the panel's one yes/no question), `note` holds the shortest failing
// history, operations with arguments and results in real-time order, and detected_at the
// return that ended it.
//
// Real time: a call is placed at its operation's first step on shared state (an access,
// a lock or thread operation, a fence), not where the thread entered the block, and a
// return at the block's end, which follows its last step: the strongest order the explored
// interleaving allows, since another thread may run between entering a block and its
// first step. Under TSO an operation returns when its last store leaves the store buffer
// (its commit), not at the block's end: until then no other thread can have seen it or
// anything the caller did after it, since the buffer is FIFO. Another interleaving of the same class may order two independent steps of
// different operations the other way; the checker judges the one explored (see
// docs/linearizability.md).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "checker.hpp"
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
    lin::History history;
  };
  struct Open {
    bool operation = false;
    std::uint32_t object = 0;
    std::size_t index = 0;  // into the object's history
    bool started = false;   // its first step on shared state was seen
    EventIndex last_write = kNoEvent;  // its last store's issue (TSO: buffered until committed)
  };
  // An operation that ended with a store in its thread's buffer: it returns at that
  // store's commit.
  struct Awaiting {
    EventIndex issue = kNoEvent;
    std::uint32_t object = 0;
    std::size_t index = 0;
    EventIndex end = kNoEvent;  // its block's end, if the store is never committed
  };
  CheckerOptions options_;
  std::vector<std::unique_ptr<lin::Spec>> specs_;  // by spec index, made on first use
  std::vector<Object> objects_;                    // by object id
  std::vector<std::vector<Open>> open_;            // per thread: the blocks entered
  std::vector<EventIndex> committed_;              // per thread: the last issue committed
  std::vector<Awaiting> awaiting_;
  EventIndex next_ = 0;
};

}  // namespace atomcheck
