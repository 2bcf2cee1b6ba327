// Well-formedness of a trace (AeroDrome §2: locks well matched and held by one thread
// at a time, begin/end well matched, a thread acts only after its fork and before its
// join; plus, for TSO executions, every commit sends the oldest uncommitted write of its
// thread to memory). Streaming: one event at a time, state per thread and per lock only,
// so a 10 GB file is validated in one pass; the first problem is kept.
//
// A prefix of a well-formed trace is well formed: blocks still open and locks still held
// at the end are fine (checkers judge open transactions as ended there) unless
// ValidateOptions::require_closed asks otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace.hpp"

namespace atomcheck {

// What to check besides the rules above.
struct ValidateOptions {
  // Check commits against the writes they commit (FIFO per thread, same variable). Keeps
  // every uncommitted write of a thread in memory, so it is meant for executions and
  // JSONL files; a trace without commits (STD) can switch it off.
  bool check_commits = true;
  // Report blocks still open and locks still held when finish() is called.
  bool require_closed = false;
};

// Streaming validator. Problems read "T1 releases lock m, which it does not hold"; the
// caller adds the place ("FILE:LINE: " or "event N: ").
class TraceValidator {
 public:
  // `names` is only read when a message is formatted, so a reader's growing name table
  // may be passed before it is filled.
  explicit TraceValidator(const Names& names, ValidateOptions options = {});

  // Checks the next event; `line` is its line in the input file (0 when there is none,
  // and messages then refer to earlier events by index). Returns false once a problem
  // has been found (this event or an earlier one); later events are not checked.
  bool on_event(const Event& e, std::uint64_t line = 0);
  // End-of-trace checks (only with require_closed). False when a problem is known.
  bool finish();

  bool ok() const { return problem_.empty(); }
  // The first problem, without its place; empty when none.
  const std::string& problem() const { return problem_; }
  // Index (0-based, among events) and line of the event with the problem; for a problem
  // found by finish(), the number of events and 0.
  std::uint64_t problem_event() const { return problem_event_; }
  std::uint64_t problem_line() const { return problem_line_; }
  std::uint64_t events() const { return index_; }

 private:
  struct Where {
    std::uint64_t index = 0, line = 0;
  };
  struct ThreadState {
    bool acted = false, forked = false, joined = false;
    Where first, fork, join;
    std::vector<Where> open_blocks;       // begin events still open, innermost last
    std::vector<std::uint32_t> labels;    // their labels (kNoId when none)
    std::vector<std::pair<Where, VarId>> pending;  // uncommitted writes, oldest first
    std::size_t pending_head = 0;
  };
  struct LockState {
    ThreadId holder = kNoId;
    Where acquired;
  };

  ThreadState& thread(ThreadId t);
  LockState& lock(LockId l);
  std::string at(const Where& w) const;  // "line 3" or "event 2"
  bool fail(std::string message);

  const Names& names_;
  ValidateOptions options_;
  std::vector<ThreadState> threads_;
  std::vector<LockState> locks_;
  std::uint64_t index_ = 0;
  bool have_lines_ = false;
  std::string problem_;
  std::uint64_t problem_event_ = 0, problem_line_ = 0;
};

// Validates a whole trace; the first problem as "event N: what is wrong" (N 0-based), or
// nothing when the trace is well formed. Commits are checked when the trace has any.
std::optional<std::string> validate(const Trace& trace, ValidateOptions options);
std::optional<std::string> validate(const Trace& trace);

}  // namespace atomcheck
