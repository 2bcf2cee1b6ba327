// The order of an execution's events that every member of its class agrees on, as vector
// clocks, read from the trace as it streams: what linearizability's "precedes" is made of
// (docs/linearizability.md "What precedes means"). Under SC the conflict order
// (po ∪ rf ∪ co ∪ fr ∪ fork/join ∪ unlock→lock)+; under TSO the same over issues and
// commits, with each buffer a chain of its own, FIFO commits and drains (a read of its own
// thread's store is ordered by po only, whether the buffer or memory served it, since both
// are members of one rf+co class); under RC11 happens-before, (po ∪ sw)+ with release
// sequences and fences, read from the events' memory orders and reads-from (Event::order,
// Event::issue). A thread's chain starts at 1 (its start, which its parent's fork
// precedes), so an operation before a thread's first step still has a place in the order.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "../trace/event.hpp"

namespace atomcheck {

class ClassOrder {
 public:
  using Clock = std::vector<std::uint32_t>;
  enum class Model : std::uint8_t { sc, tso, rc11 };

  // Forgets every event (keeps capacity).
  void reset(Model model);
  // Event i of the trace, in trace order (commits included under TSO).
  void on_event(const Event& e);
  // Is this a step of its thread (an access, a fence, a lock or thread operation)?
  static bool is_step(const Event& e);

  // The chain of thread t's steps, and of its store buffer's commits (TSO).
  std::size_t thread_chain(ThreadId t) const { return model_ == Model::tso ? 2 * t : t; }
  std::size_t buffer_chain(ThreadId t) const { return 2 * t + 1; }
  // Thread t's clock after its last step (its start when it has none).
  const Clock& thread_clock(ThreadId t);
  // After a commit: its buffer's clock, whose own component stamps the commit.
  const Clock& buffer_clock(ThreadId t);
  static std::uint32_t at(const Clock& c, std::size_t chain) { return chain < c.size() ? c[chain] : 0; }

 private:
  struct Pending {  // a TSO store in its buffer
    EventIndex issue = kNoEvent;
    VarId var = kNoId;
    Clock clock;    // at its issue
    Clock readers;  // the thread's reads it served, which precede every later write's commit
    bool unbuffered = false;  // a seq_cst store (xchg): committed in its own step
  };
  struct Var {
    Clock write;    // the last write-like event in memory (its commit under TSO)
    Clock readers;  // the reads of that write (and of earlier ones)
    ThreadId writer = kNoId;
  };
  struct Thread {
    Clock clock;
    Clock buffer;            // TSO: its commits
    std::vector<Pending> pending;
    Clock released;          // RC11: at its last release fence
    Clock acquired;          // RC11: messages of its relaxed reads, for an acquire fence
    std::unordered_map<VarId, Clock> released_to;  // RC11: at its last release write per variable
    bool started = false;
  };
  Thread& thread(ThreadId t);
  Var& var(VarId v);
  static void tick(Clock& c, std::size_t chain);
  void sc_step(const Event& e, Thread& th);
  void tso_step(const Event& e, Thread& th);
  void rc11_step(const Event& e, Thread& th);
  void thread_ops(const Event& e, Thread& th);

  Model model_ = Model::sc;
  EventIndex next_ = 0;
  std::vector<Thread> threads_;
  std::size_t nthreads_ = 0;
  std::vector<Var> vars_;
  std::vector<Clock> locks_;
  std::unordered_map<EventIndex, Clock> message_;  // RC11: what an acquire reading this write gets
};

}  // namespace atomcheck
