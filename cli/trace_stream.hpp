// The streaming machinery of `atomcheck check-trace`: a reader thread that parses and
// validates the trace file in blocks while the checkers consume the previous block, and
// an archive that keeps, of the past, only the events a witness may still cite (as the
// online checkers say through Checker::live_events), so memory stays flat however long
// the trace is and witnesses still print every event with its file line.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../checkers/checker.hpp"
#include "../trace/trace_io.hpp"

namespace atomcheck::cli {

// Consecutive events of the input as the reader thread hands them over. Event k of the
// block is the file's event `first + k`; checkers that do not see commits number events
// of tau (the file without commits), and the first non-commit event of the block has tau
// index `first_tau`.
struct EventBlock {
  std::vector<Event> events;
  std::vector<std::uint64_t> lines;
  EventIndex first = 0;
  EventIndex first_tau = 0;
  bool has_commits = false;

  EventIndex end() const { return first + events.size(); }
  // Position in `events` of tau event `tau`, or -1 when the block does not hold it.
  std::ptrdiff_t position_of_tau(EventIndex tau) const;
};

// Parses and validates a trace on a thread of its own, `block_events` events a block,
// at most two blocks ahead of the consumer (a fixed read buffer). Not copyable.
class BlockReader {
 public:
  // Opens the input ("-" is standard input); throws TraceError when it cannot.
  BlockReader(const std::string& path, TraceFormat format, std::size_t block_events);
  ~BlockReader();
  BlockReader(const BlockReader&) = delete;
  BlockReader& operator=(const BlockReader&) = delete;

  // The next block in file order; nullptr at the end of the input or after a problem.
  std::unique_ptr<EventBlock> next();
  // Gives a consumed block back for reuse (no allocation once warm).
  void recycle(std::unique_ptr<EventBlock> block);
  // After next() returned nullptr: the one-line message "FILE:LINE: what is wrong" of a
  // malformed or ill-formed input, empty when the input ended cleanly.
  const std::string& error() const { return error_; }
  // After next() returned nullptr: the events read, and the name tables.
  std::uint64_t events() const { return events_; }
  const Names& names() const { return reader_->names(); }

 private:
  void run();

  std::unique_ptr<TraceReader> reader_;
  TraceFormat format_;
  std::string shown_;
  std::size_t block_events_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<EventBlock>> ready_, free_;
  bool done_ = false, stop_ = false;
  std::string error_;
  std::uint64_t events_ = 0;
  std::thread thread_;
};

// One event as a report prints it.
struct KeptEvent {
  EventIndex tau = kNoEvent;   // index among non-commit events (kNoEvent for a commit)
  EventIndex file = kNoEvent;  // index in the file
  std::uint64_t line = 0;
  Event event;
};

// The events witnesses may still cite. Blocks are pushed once every checker has been
// fed them; retain() then keeps, of those blocks and of what was kept before, only the
// events the online checkers list as live, and gives the blocks back. Everything pushed
// since the last retain() stays resolvable, so verdicts taken at the end may also cite
// the last blocks. Windows: when a report needs the events around a violation, open a
// window; it collects the events near its centre from the blocks still held (the last
// retained block is held back for that) and from the blocks pushed later.
class WitnessArchive {
 public:
  explicit WitnessArchive(std::size_t window_before = 0, std::size_t window_after = 0)
      : before_(window_before), after_(window_after) {}

  void push(std::unique_ptr<EventBlock> block);
  std::size_t pending_events() const { return pending_events_; }
  // Keeps the events whose tau indices are in `live` (any order, duplicates allowed);
  // returns the blocks no longer needed.
  std::vector<std::unique_ptr<EventBlock>> retain(std::vector<EventIndex>& live);
  // The event with tau index `tau`, or nullptr when it was not kept.
  const KeptEvent* find_tau(EventIndex tau);
  std::size_t kept() const { return kept_.size(); }

  // Starts collecting the window around tau event `centre` (once per id); false when the
  // centre is no longer held.
  bool open_window(std::size_t id, EventIndex centre);
  // The window's events in file order (empty when never opened).
  const std::vector<KeptEvent>& window(std::size_t id) const;

 private:
  struct Window {
    EventIndex from = 0, to = 0;  // file indices, inclusive
    std::vector<KeptEvent> events;
    bool open = false;
  };
  void collect(Window& w, const EventBlock& b);

  std::size_t before_, after_;
  std::vector<KeptEvent> kept_, next_;  // sorted by tau; next_ is retain()'s buffer
  std::deque<std::unique_ptr<EventBlock>> pending_;
  std::unique_ptr<EventBlock> tail_;  // the last block before pending_, for windows
  std::size_t pending_events_ = 0;
  KeptEvent scratch_;
  std::vector<Window> windows_;
};

}  // namespace atomcheck::cli
