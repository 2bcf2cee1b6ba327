// Execution's synchronisation and thread operations (execution.hpp): mutexes (lock,
// try_lock, unlock, and the check that a handle is this execution's) and threads (spawn,
// join, and a joinable thread destroyed). Apart from the memory operations because they
// change which threads can run (an acquire waits for the owner, a join for the child)
// rather than what a read sees; the scheduler loop reads that state (execution.cpp).
#include "scheduler/runtime/execution.hpp"

#include <fmt/core.h>

namespace atomcheck::detail {

namespace {
bool lock_cas(const void*, std::int64_t old_value, std::int64_t& new_value) {
  if (old_value != 0) return false;
  new_value = 1;
  return true;
}
}  // namespace

// Lock words (set_lock_words): the compare-exchange of an acquire. A lock runs only when
// its word's latest write is "free" (compute_enabled) and reads no older "held" one
// (RmwFn::must_write): the orders of critical sections come from the atomicity-breaking
// options, whose revisits make the earlier lock wait (strategy_trust.cpp). A try_lock
// reads what it may and fails on "held".
bool Execution::lock_word_acquire(LockInfo& l, bool block) {
  RmwFn fn{&lock_cas, nullptr, true, 0, std::memory_order_relaxed};
  fn.must_write = block;
  const std::size_t n = memory_->rmw_options(running_, l.word, fn, std::memory_order_acquire);
  if (n == 0) return no_choice(l.word), false;
  const MemoryModel::RmwTaken taken = memory_->take_rmw(choose_option(n, Action::rmw, l.word));
  if (taken.wrote) return true;
  // A try_lock in a wait that read an older "held" than the latest write (an unlock the
  // replay already made) is stale, as a load of an old value is (execution_spin.cpp).
  ThreadState& ts = self();
  ts.read_old = ts.read_old || !memory_->read_latest();
  return false;
}

void Execution::lock_word_release(LockInfo& l) {
  const std::size_t n = memory_->store_options(running_, l.word, 0, std::memory_order_release, false);
  if (n == 0) return no_choice(l.word);
  memory_->take_store(choose_option(n, Action::write, l.word));
  note_write(running_, obj_key(l.word, false), l.word);
}

Execution::LockInfo* Execution::lock_of(const Handle& h, const char* what) {
  if (h.serial != serial_ || h.id >= nlocks_) {
    fail(FailureKind::usage,
         fmt::format("T{}: {} of a mutex created by an earlier execution (no state may outlive "
                     "one execution)",
                     running_, what));
    return nullptr;
  }
  return &locks_[h.id];
}

void Execution::lock(const Handle& h, std::uint32_t site) {
  LockInfo* l = lock_of(h, "lock");
  if (!l) {
    unwinding_skip();
    return;
  }
  if (l->owner == running_ && !unwinding_) {
    fail(FailureKind::usage, fmt::format("T{} locks {}, which it already holds", running_,
                                         lock_name(h.id)));
    unwinding_skip();
    return;
  }
  if (!announce(Action::acquire, h.id, memory_->drains(Action::acquire, std::memory_order_seq_cst)))
    return;
  if (locks_[h.id].freed) return lock_used_after_free(h.id, "locks", site), (void)unwinding_skip();
  if (locks_[h.id].word != kNoId && !lock_word_acquire(locks_[h.id], true)) return;
  locks_[h.id].owner = running_;
  ++self().effects;
  emit(Op::acquire, h.id, 0, 0, site);
  if (locks_[h.id].word == kNoId) memory_->sync_lock(running_, h.id);
  if (racing()) race_.acquire(running_, h.id);
}

bool Execution::try_lock(const Handle& h, std::uint32_t site) {
  LockInfo* l = lock_of(h, "try_lock");
  if (!l) {
    unwinding_skip();
    return false;
  }
  if (l->owner == running_ && !unwinding_) {
    fail(FailureKind::usage, fmt::format("T{} try_locks {}, which it already holds", running_,
                                         lock_name(h.id)));
    unwinding_skip();
    return false;
  }
  if (!announce(Action::try_acquire, h.id,
                memory_->drains(Action::try_acquire, std::memory_order_seq_cst)))
    return false;
  if (locks_[h.id].freed) return lock_used_after_free(h.id, "try_locks", site), unwinding_skip(), false;
  note_read(obj_key(h.id, true));
  if (locks_[h.id].word != kNoId) {
    if (!lock_word_acquire(locks_[h.id], false)) return false;
  } else if (locks_[h.id].owner != kNoId) {
    memory_->sync_try_lock_failed(running_, h.id);
    return false;
  }
  locks_[h.id].owner = running_;
  ++self().effects;
  emit(Op::acquire, h.id, 0, 0, site);
  if (locks_[h.id].word == kNoId) memory_->sync_lock(running_, h.id);
  if (racing()) race_.acquire(running_, h.id);
  return true;
}

// Called from lock_guard destructors: never throws.
void Execution::unlock(const Handle& h, std::uint32_t site) {
  if (unwinding_) return;
  LockInfo* l = lock_of(h, "unlock");
  if (!l) return;
  if (l->owner != running_) {
    fail(FailureKind::usage, fmt::format("T{} unlocks {}, which it does not hold", running_,
                                         lock_name(h.id)));
    return;
  }
  ThreadState& ts = self();
  ts.pending = Transition{running_, Action::release, h.id};
  ts.pending_drains = memory_->drains(Action::release, std::memory_order_seq_cst);
  ts.status = Status::announced;
  to_scheduler();
  if (unwinding_) return;
  if (locks_[h.id].freed) return lock_used_after_free(h.id, "unlocks", site);
  locks_[h.id].owner = kNoId;
  emit(Op::release, h.id, 0, 0, site);
  if (locks_[h.id].word != kNoId) lock_word_release(locks_[h.id]);
  else memory_->sync_unlock(running_, h.id);
  if (racing()) race_.release(running_, h.id);
  ++self().effects;
  note_write(running_, obj_key(h.id, true));
}

ThreadId Execution::spawn(void (*entry)(void*), void* arg, std::uint32_t site) {
  if (unwinding_) {
    unwinding_skip();
    return kNoId;
  }
  // Starting a thread synchronises with it: std::thread's constructor synchronizes-with
  // the thread's start, and on x86 creating a thread drains the creator's store buffer
  // (clone is a system call, and the runtime's bookkeeping uses locked instructions). So
  // under TSO the spawn is a draining step, as a fence is: it waits for the creator's
  // flushes, and the child can only read what its creator stored before it. Under SC
  // there is nothing to wait for and no step is added (drains() is false).
  if (memory_->drains(Action::fence, std::memory_order_seq_cst) &&
      !announce(Action::fence, kNoId, true))
    return kNoId;
  ThreadId child = new_thread(entry, arg);
  history_.edges.push_back({static_cast<std::uint32_t>(history_.steps()), running_, child, false});
  emit(Op::fork, child, 0, 0, site);
  ThreadState& ts = self();
  ts.request = Request::spawn;
  ts.spawned = child;
  to_scheduler();
  if (unwinding_) throw Unwind{};
  return child;
}

void Execution::join(ThreadId child, std::uint32_t site) {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  if (child >= nthreads_ || child == running_) {
    fail(FailureKind::usage, fmt::format("T{} joins an unknown thread", running_));
    unwinding_skip();
    return;
  }
  if (!joinable_now(child)) {
    ThreadState& ts = self();
    ts.status = Status::joining;
    ts.join_target = child;
    ++waiting_;
    to_scheduler();
    if (unwinding_) {
      unwinding_skip();
      return;
    }
  }
  emit(Op::join, child, 0, 0, site);
  memory_->sync_join(running_, child);
  if (racing()) race_.join(running_, child);
  history_.edges.push_back({static_cast<std::uint32_t>(history_.steps()), child, running_, true});
}

// Called from ~thread: never throws.
void Execution::thread_dropped(ThreadId child) {
  if (unwinding_) return;
  fail(FailureKind::usage,
       fmt::format("T{} destroyed thread T{} while joinable (std::thread would call "
                   "std::terminate)",
                   running_, child));
}

}  // namespace atomcheck::detail
