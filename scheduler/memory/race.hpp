// Data-race detection (internal; docs/data-races.md): vector clocks for happens-before
// (program order, thread start and join, mutexes, release/acquire on atomics with
// release sequences and fences, as RC11 defines it) and FastTrack epochs for the
// non-atomic (shared<T>) variables. It reads the memory orders given at the API, never
// the memory model: the Execution tells it which write a read reads from only by saying
// whether the read was served by the thread's own store buffer, and when a buffered
// store reaches memory. Storage is flat and kept across executions, so a warm execution
// does not allocate.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "../../trace/event.hpp"

namespace atomcheck::detail {

// The two accesses of a race, as trace indices; `first` is kNoEvent when the earlier
// access is the variable's initialisation.
struct Race {
  EventIndex first = kNoEvent;
  EventIndex second = kNoEvent;
};

class RaceDetector {
 public:
  // A new execution: forgets every thread, variable and lock (keeps capacity).
  void reset();
  // Thread `t` starts; `parent` (kNoId for the program body) spawned it now.
  void start_thread(ThreadId t, ThreadId parent);
  // `joiner` returned from joining the finished `child`.
  void join(ThreadId joiner, ThreadId child);
  // Variable `v` is created by thread `by` (ids dense, in order); `plain`: a shared<T>.
  void add_var(VarId v, bool plain, ThreadId by);
  void add_lock(LockId l);
  void acquire(ThreadId t, LockId l);
  void release(ThreadId t, LockId l);

  // Atomics. A load served by t's own store buffer reads t's own earlier store, which
  // gives t nothing it does not know; any other load or rmw reads the write that is in
  // memory now. A buffered store reaches memory at commit(t) (FIFO per thread).
  void atomic_load(ThreadId t, VarId x, std::memory_order mo, bool own_buffer);
  void atomic_store(ThreadId t, VarId x, std::memory_order mo, bool buffered);
  void commit(ThreadId t);
  // A read-modify-write; `wrote` false: a failed compare-exchange, a load with `mo`.
  void atomic_rmw(ThreadId t, VarId x, std::memory_order mo, bool wrote);
  void fence(ThreadId t, std::memory_order mo);
  // Memory models where a load may read an older write (RC11): every atomic write's
  // message is kept, numbered per variable in the order made (the initial value is 0),
  // and a load or rmw names the write it read.
  void keep_messages(bool on) { keep_messages_ = on; }
  void atomic_load_from(ThreadId t, VarId x, std::memory_order mo, std::uint32_t write);
  void atomic_rmw_from(ThreadId t, VarId x, std::memory_order mo, bool wrote, std::uint32_t write);

  // Non-atomic accesses, event `ev` of the trace. True when the access races with an
  // earlier one (the first is named in `out`).
  bool plain_read(ThreadId t, VarId x, EventIndex ev, Race& out);
  bool plain_write(ThreadId t, VarId x, EventIndex ev, Race& out);

  // Objects of make()'s blocks (the allocator model, execution_heap.cpp): every access is
  // stamped, so that a free can tell whether each happens before it. `track` is called at
  // creation (the creator's initialisation is the first access), `access` after each
  // access of thread t (event ev); `free_var` is the free by t: true when an earlier access
  // does not happen before it (named in `out`); `after_free` whether the free happens
  // before thread t's next access.
  void track(VarId x, ThreadId by);
  void access(ThreadId t, VarId x, EventIndex ev);
  bool free_var(ThreadId t, VarId x, EventIndex ev, Race& out);
  bool after_free(ThreadId t, VarId x) const;

 private:
  // A vector clock of width_ entries (see widen()).
  using Clock = std::vector<std::uint32_t>;
  struct Epoch {
    ThreadId thread = kNoId;
    std::uint32_t clock = 0;  // 0: no access
    EventIndex event = kNoEvent;
  };
  struct ReadStamp {
    std::uint32_t clock = 0;
    EventIndex event = kNoEvent;
  };
  struct ThreadClocks {
    Clock now;       // C_t
    Clock released;  // at t's last release fence: what its later relaxed stores carry
    Clock acquired;  // what t's relaxed reads read: its next acquire fence takes it
    // Messages of t's buffered atomic stores not yet in memory, oldest at `head`.
    std::vector<Clock> pending;
    std::vector<VarId> pending_var;
    std::size_t head = 0, tail = 0;
  };
  struct AtomicVar {
    Clock message;                  // what a read of the write in memory synchronises with
    std::vector<Clock> released_by;  // per thread: C_t at its last release write to here
    std::vector<std::uint8_t> has_released;
    std::vector<Clock> messages;  // keep_messages: per write, in the order made
    std::size_t nmessages = 0;
  };
  void keep_message(AtomicVar& a);
  bool keep_messages_ = false;
  struct PlainVar {
    Epoch write;
    Epoch read;                    // exclusive reads (FastTrack's epoch)
    bool shared_reads = false;     // reads concurrent: `reads` holds one stamp per thread
    std::vector<ReadStamp> reads;
  };

  static void join_into(Clock& into, const Clock& from);
  static std::uint32_t at(const Clock& c, ThreadId t) { return t < c.size() ? c[t] : 0; }
  static void copy(Clock& into, const Clock& from) { std::copy(from.begin(), from.end(), into.begin()); }
  void zero(Clock& c) const { c.assign(width_, 0); }
  void widen(std::size_t threads);
  // An earlier access at epoch `e` happens before now in thread t.
  bool ordered(const Epoch& e, ThreadId t) const;
  void tick(ThreadId t);
  // What a write by t to x carries besides its own release: t's last release fence and
  // t's last release write to x ((po|loc)? of RC11's release sequence).
  void add_relaxed_release(Clock& into, ThreadId t, VarId x);
  void note_release_write(ThreadId t, VarId x);

  std::size_t width_ = 0;
  std::vector<ThreadClocks> threads_;
  std::size_t nthreads_ = 0;
  std::vector<AtomicVar> atomics_;  // indexed by VarId (plain ones unused)
  std::vector<PlainVar> plains_;    // indexed by VarId (atomic ones unused)
  struct TrackedVar {
    bool on = false;
    std::vector<ReadStamp> last;  // per thread: its last access
    Epoch freed;
  };
  std::vector<TrackedVar> tracked_;  // indexed by VarId; `on` for objects of blocks
  std::size_t nvars_ = 0;
  std::vector<Clock> locks_;
  std::size_t nlocks_ = 0;
};

}  // namespace atomcheck::detail
