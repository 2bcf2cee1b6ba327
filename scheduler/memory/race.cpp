// Happens-before by vector clocks and FastTrack's epochs for non-atomic variables
// (Flanagan and Freund, PLDI 2009), with release/acquire synchronisation as RC11 (Lahav
// et al., PLDI 2017) defines it:
//   sw = [E⊒rel]; ([F]; po)?; rs; rf; [R⊒rlx]; (po; [F])?; [E⊒acq]
//   rs = [W]; (po|loc)?; (rf; rmw)*
// Each atomic variable holds the message of the write in memory: the clocks a read of it
// synchronises with. A release write's message is its thread's clock; a relaxed write's is
// its thread's clock at its last release fence joined with its clock at its last release
// write to the same variable (the (po|loc)? step); an rmw's adds the message it read
// (the (rf; rmw)* steps). An acquire read joins the message into its clock; a relaxed read
// keeps it for the thread's next acquire fence. Every time a thread's clock is handed out
// its own entry ticks, so its later events are not covered by what it handed out.
#include "scheduler/memory/race.hpp"

#include <algorithm>

namespace atomcheck::detail {

namespace {

bool releases(std::memory_order mo) {
  return mo == std::memory_order_release || mo == std::memory_order_acq_rel ||
         mo == std::memory_order_seq_cst;
}
bool acquires(std::memory_order mo) {
  // consume is promoted to acquire, as every compiler does.
  return mo == std::memory_order_acquire || mo == std::memory_order_consume ||
         mo == std::memory_order_acq_rel || mo == std::memory_order_seq_cst;
}

}  // namespace

void RaceDetector::reset() {
  nthreads_ = nvars_ = nlocks_ = 0;
}

void RaceDetector::join_into(Clock& into, const Clock& from) {
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

void RaceDetector::tick(ThreadId t) { ++threads_[t].now[t]; }

// Every clock has width_ entries, the most threads any execution had so far: copies and
// joins then never change a clock's size, so a warm execution never allocates (clocks of
// varying sizes reallocated now and then, where a copy met a longer clock the first time).
void RaceDetector::widen(std::size_t threads) {
  if (threads <= width_) return;
  width_ = threads;
  auto grow = [this](Clock& c) { c.resize(width_, 0); };
  for (ThreadClocks& c : threads_) {
    grow(c.now);
    grow(c.released);
    grow(c.acquired);
    for (Clock& m : c.pending) grow(m);
  }
  for (AtomicVar& a : atomics_) {
    grow(a.message);
    for (Clock& r : a.released_by) grow(r);
  }
  for (Clock& l : locks_) grow(l);
}

bool RaceDetector::ordered(const Epoch& e, ThreadId t) const {
  return e.clock == 0 || e.thread == t || e.clock <= at(threads_[t].now, e.thread);
}

void RaceDetector::start_thread(ThreadId t, ThreadId parent) {
  if (t >= threads_.size()) threads_.resize(t + 1);
  nthreads_ = std::max<std::size_t>(nthreads_, t + 1);
  widen(t + 1);
  ThreadClocks& c = threads_[t];
  zero(c.now);
  zero(c.released);
  zero(c.acquired);
  c.head = c.tail = 0;
  // The child starts with everything its creator did before the spawn.
  if (parent != kNoId) copy(c.now, threads_[parent].now);
  tick(t);
  if (parent != kNoId) tick(parent);
}

void RaceDetector::join(ThreadId joiner, ThreadId child) {
  join_into(threads_[joiner].now, threads_[child].now);
}

void RaceDetector::add_var(VarId v, bool plain, ThreadId by) {
  if (v >= atomics_.size()) {
    atomics_.resize(v + 1);
    plains_.resize(v + 1);
  }
  nvars_ = std::max<std::size_t>(nvars_, v + 1);
  if (v < tracked_.size()) tracked_[v].on = false;
  if (plain) {
    // The initialisation is a write by the creator.
    PlainVar& p = plains_[v];
    p.write = Epoch{by, by == kNoId ? 0 : at(threads_[by].now, by), kNoEvent};
    p.read = Epoch{};
    p.shared_reads = false;
  } else {
    // The initial value is no release: reading it synchronises with nothing.
    AtomicVar& a = atomics_[v];
    zero(a.message);
    std::fill(a.has_released.begin(), a.has_released.end(), 0);
    a.nmessages = 0;
    if (keep_messages_) keep_message(a);
  }
}

void RaceDetector::track(VarId x, ThreadId by) {
  if (x >= tracked_.size()) tracked_.resize(x + 1);
  TrackedVar& v = tracked_[x];
  v.on = true;
  v.last.assign(threads_.size(), ReadStamp{});
  v.freed = Epoch{};
  if (by != kNoId) access(by, x, kNoEvent);
}

void RaceDetector::access(ThreadId t, VarId x, EventIndex ev) {
  TrackedVar& v = tracked_[x];
  if (t >= v.last.size()) v.last.resize(t + 1);
  v.last[t] = ReadStamp{at(threads_[t].now, t), ev};
}

bool RaceDetector::free_var(ThreadId t, VarId x, EventIndex ev, Race& out) {
  TrackedVar& v = tracked_[x];
  bool race = false;
  for (std::size_t u = 0; u < v.last.size() && !race; ++u) {
    if (u == t || v.last[u].clock == 0 || v.last[u].clock <= at(threads_[t].now, static_cast<ThreadId>(u)))
      continue;
    out = Race{v.last[u].event, ev};
    race = true;
  }
  v.freed = Epoch{t, at(threads_[t].now, t), ev};
  return race;
}

bool RaceDetector::after_free(ThreadId t, VarId x) const {
  return x < tracked_.size() && ordered(tracked_[x].freed, t);
}

void RaceDetector::add_lock(LockId l) {
  if (l >= locks_.size()) locks_.resize(l + 1);
  nlocks_ = std::max<std::size_t>(nlocks_, l + 1);
  zero(locks_[l]);
}

void RaceDetector::acquire(ThreadId t, LockId l) { join_into(threads_[t].now, locks_[l]); }

void RaceDetector::release(ThreadId t, LockId l) {
  copy(locks_[l], threads_[t].now);
  tick(t);
}

void RaceDetector::add_relaxed_release(Clock& into, ThreadId t, VarId x) {
  join_into(into, threads_[t].released);
  const AtomicVar& a = atomics_[x];
  if (t < a.has_released.size() && a.has_released[t]) join_into(into, a.released_by[t]);
}

void RaceDetector::note_release_write(ThreadId t, VarId x) {
  AtomicVar& a = atomics_[x];
  if (a.has_released.size() <= t) {
    const std::size_t old = a.released_by.size();
    a.has_released.resize(t + 1, 0);
    a.released_by.resize(t + 1);
    for (std::size_t u = old; u <= t; ++u) zero(a.released_by[u]);
  }
  a.has_released[t] = 1;
  copy(a.released_by[t], threads_[t].now);
}

void RaceDetector::atomic_load(ThreadId t, VarId x, std::memory_order mo, bool own_buffer) {
  if (own_buffer) return;
  ThreadClocks& c = threads_[t];
  join_into(acquires(mo) ? c.now : c.acquired, atomics_[x].message);
}

void RaceDetector::atomic_store(ThreadId t, VarId x, std::memory_order mo, bool buffered) {
  ThreadClocks& c = threads_[t];
  Clock* m = &atomics_[x].message;
  if (buffered) {
    if (c.tail == c.pending.size()) {
      c.pending.emplace_back(width_, 0);
      c.pending_var.push_back(kNoId);
    }
    m = &c.pending[c.tail];
    c.pending_var[c.tail++] = x;
  }
  if (releases(mo)) {
    copy(*m, c.now);
    note_release_write(t, x);
    tick(t);
  } else {
    std::fill(m->begin(), m->end(), 0);
    add_relaxed_release(*m, t, x);
  }
  if (keep_messages_ && !buffered) keep_message(atomics_[x]);
}

void RaceDetector::keep_message(AtomicVar& a) {
  if (a.nmessages == a.messages.size()) a.messages.emplace_back();
  a.messages[a.nmessages++] = a.message;
}

void RaceDetector::atomic_load_from(ThreadId t, VarId x, std::memory_order mo, std::uint32_t write) {
  ThreadClocks& c = threads_[t];
  join_into(acquires(mo) ? c.now : c.acquired, atomics_[x].messages[write]);
}

void RaceDetector::atomic_rmw_from(ThreadId t, VarId x, std::memory_order mo, bool wrote, std::uint32_t write) {
  AtomicVar& a = atomics_[x];
  zero(a.message);  // (a kept message may be narrower than the clocks are now)
  join_into(a.message, a.messages[write]);
  atomic_rmw(t, x, mo, wrote);
}

void RaceDetector::commit(ThreadId t) {
  ThreadClocks& c = threads_[t];
  // Swapped, not copied: the slot's capacity goes back to the queue.
  std::swap(atomics_[c.pending_var[c.head]].message, c.pending[c.head]);
  if (++c.head == c.tail) c.head = c.tail = 0;
}

void RaceDetector::atomic_rmw(ThreadId t, VarId x, std::memory_order mo, bool wrote) {
  ThreadClocks& c = threads_[t];
  Clock& m = atomics_[x].message;
  if (!wrote) {
    join_into(acquires(mo) ? c.now : c.acquired, m);
    return;
  }
  if (acquires(mo)) join_into(c.now, m);
  else join_into(c.acquired, m);
  // The rmw continues the release sequences of the write it read: keep its message.
  if (releases(mo)) {
    join_into(m, c.now);
    note_release_write(t, x);
    tick(t);
  } else {
    add_relaxed_release(m, t, x);
  }
  if (keep_messages_) keep_message(atomics_[x]);
}

void RaceDetector::fence(ThreadId t, std::memory_order mo) {
  ThreadClocks& c = threads_[t];
  if (acquires(mo)) join_into(c.now, c.acquired);
  if (releases(mo)) {
    copy(c.released, c.now);
    tick(t);
  }
}

bool RaceDetector::plain_read(ThreadId t, VarId x, EventIndex ev, Race& out) {
  PlainVar& p = plains_[x];
  const std::uint32_t e = at(threads_[t].now, t);
  if (!p.shared_reads && p.read.thread == t && p.read.clock == e) return false;
  if (p.shared_reads && t < p.reads.size() && p.reads[t].clock == e) return false;
  if (!ordered(p.write, t)) {
    out = Race{p.write.event, ev};
    return true;
  }
  if (p.shared_reads) {
    if (p.reads.size() <= t) p.reads.resize(t + 1);
    p.reads[t] = ReadStamp{e, ev};
  } else if (ordered(p.read, t)) {
    p.read = Epoch{t, e, ev};
  } else {
    // Two unordered reads: one stamp per thread from now until the next write.
    p.shared_reads = true;
    p.reads.assign(std::max<std::size_t>(nthreads_, std::max(t, p.read.thread) + 1), ReadStamp{});
    p.reads[p.read.thread] = ReadStamp{p.read.clock, p.read.event};
    p.reads[t] = ReadStamp{e, ev};
  }
  return false;
}

bool RaceDetector::plain_write(ThreadId t, VarId x, EventIndex ev, Race& out) {
  PlainVar& p = plains_[x];
  const std::uint32_t e = at(threads_[t].now, t);
  if (p.write.thread == t && p.write.clock == e) {
    p.write.event = ev;
    return false;
  }
  if (!ordered(p.write, t)) {
    out = Race{p.write.event, ev};
    return true;
  }
  if (p.shared_reads) {
    for (ThreadId u = 0; u < p.reads.size(); ++u) {
      if (u == t || p.reads[u].clock == 0 || p.reads[u].clock <= at(threads_[t].now, u)) continue;
      out = Race{p.reads[u].event, ev};
      return true;
    }
  } else if (!ordered(p.read, t)) {
    out = Race{p.read.event, ev};
    return true;
  }
  // Every earlier access happens before this write: it alone matters from now on.
  p.write = Epoch{t, e, ev};
  p.read = Epoch{};
  p.shared_reads = false;
  return false;
}

}  // namespace atomcheck::detail
