// Execution's spin-loop detection (execution.hpp): what each thread read in its current
// iteration or attempt and whether another thread wrote it since (note_read, note_write),
// yield() loops that repeat an iteration, spin_until attempts, runs of identical reads
// (spin_threshold), and blocking a thread for good when it would spin forever. Apart
// because it is one mechanism, GenMC's spin-assume, with its own bookkeeping in
// ThreadState; the scheduler loop only reports buffer flushes to it (note_write) and asks
// at the end whether a blocked thread went stale (spin_stale).
#include "scheduler/runtime/execution.hpp"

#include <algorithm>
#include <utility>

#include <fmt/core.h>

namespace atomcheck::detail {

void Execution::note_read(std::uint32_t key) {
  ThreadState& ts = self();
  if (key >= ts.spin_marks.size()) ts.spin_marks.resize(key + 1, 0);
  if (ts.spin_marks[key] == 1) return;
  ts.spin_marks[key] = 1;  // an outer mark (2) read again in an attempt is the attempt's too
  ts.spin_touched.push_back(key);
}

// A write reaching memory changes what a spinning thread would read again, unless (TSO)
// that thread's own buffer still holds a store to the variable: its reads are served by
// the buffer, and this write is coherence-before that store, so they never see it.
// Counting such a write as a change made the livelock verdict ("spins forever") depend
// on where the flush fell, not on reads-from and coherence, and rf+co DPOR lost it.
void Execution::note_write(ThreadId by, std::uint32_t key, VarId var) {
  for (ThreadId t = 0; t < nthreads_; ++t) {
    ThreadState& ts = *threads_[t];
    if (t == by || key >= ts.spin_marks.size() || !ts.spin_marks[key]) continue;
    if (var != kNoId && memory_->buffer_has(t, var)) continue;
    if (ts.spin_marks[key] == 1) ts.stale = true;
    else ts.outer_stale = true;
  }
}

// A loop that reads the same thing over and over without yield() (the `spin` model)
// would give a new class per extra read and reach the step bound on the schedule where
// the writer never runs. After spin_threshold identical reads in a row the thread is
// taken to wait for a change of what it read, exactly as yield() there would make it.
void Execution::repeated_read(std::uint32_t site, VarId var, std::int64_t value) {
  ThreadState& ts = self();
  if (ts.repeats > 0 && ts.repeat_site == site && ts.repeat_var == var && ts.repeat_value == value) {
    ++ts.repeats;
  } else {
    ts.repeat_site = site;
    ts.repeat_var = var;
    ts.repeat_value = value;
    ts.repeats = 1;
  }
  if (ts.repeats < spin_threshold_) return;
  ts.repeats = 0;
  if (history_.unmarked_spin.empty()) {
    const std::string at = call_site_name(site);
    history_.unmarked_spin = fmt::format("T{} read {} = {}{} {} times in a row", running_, var_name(var), value,
                                         at.empty() ? "" : " at " + at, spin_threshold_);
  }
  // spin_threshold identical reads are a repeated iteration of a loop that only reads:
  // block as a yield() loop does, waiting on that variable alone.
  new_spin_iteration(ts);
  note_read(obj_key(var, false));
  block_spinning(site, "a loop without yield()");
}

void Execution::new_spin_iteration(ThreadState& ts) {
  for (std::uint32_t k : ts.spin_touched) ts.spin_marks[k] = 0;
  for (std::uint32_t k : ts.outer_touched) ts.spin_marks[k] = 0;
  ts.spin_touched.clear();
  ts.outer_touched.clear();
  ts.stale = false;
  ts.outer_stale = false;
  ts.read_old = false;
}

// A yield() loop under the spin-assume of GenMC (Kokologiannakis et al., "Dynamic
// Partial Order Reductions for Spinloops", FMCAD 2021), decided on the thread's own
// events: an iteration (its events since its last yield(), flushes left out) that
// repeats the end of the previous one, operation for operation with the same values
// and call sites, left the thread where it was, so every later iteration would repeat
// it until another thread changes what it read. If it wrote nothing (an rmw that wrote
// back the value it read, or a lock taken and released, counts as nothing), deleting it
// from any execution leaves a valid execution with the same values everywhere: the
// thread blocks for good, and the execution is pruned if a later write changed what the
// iteration read (the one where the iteration reads it is explored) or reported as a
// livelock if none did. The decision is a function of the values the thread read, so
// DPOR's races see everything: the iteration's reads race with the writes that would
// wake it. An iteration that repeats with a store (not deletable) waits for a change
// instead, outside the reductions' model: DPOR says so and `run` falls back to DFS.
void Execution::yield(std::uint32_t site, std::string_view waits_on, const char* without) {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  ThreadState& ts = self();
  std::vector<Event>& cur = iter_scratch_;
  cur.clear();
  for (std::size_t i = ts.iter_begin; i < trace_.events.size(); ++i) {
    const Event& e = trace_.events[i];
    if (e.thread == running_ && e.op != Op::commit) cur.push_back(e);
  }
  bool repeats = cur.size() <= ts.prev_iter.size();
  bool deletable = true;
  const std::size_t off = ts.prev_iter.size() - (repeats ? cur.size() : 0);
  for (std::size_t i = 0; i < cur.size() && repeats; ++i) {
    const Event& a = cur[i];
    const Event& b = ts.prev_iter[off + i];
    // A read's value2 (a failed CAS's expected value) is for reports, not a difference.
    repeats = a.op == b.op && a.target == b.target && a.value == b.value &&
              (a.op == Op::read || a.value2 == b.value2) && a.loc == b.loc;
    deletable = deletable && a.op != Op::write && a.op != Op::fork &&
                (a.op != Op::rmw || a.value == a.value2);
  }
  if (repeats && deletable) {
    block_spinning(site, "a yield() loop", waits_on, without);
    return;
  }
  std::swap(ts.prev_iter, cur);
  ts.iter_begin = trace_.events.size();
  if (repeats) {
    if (!history_.spins && !*history_.wait_construct) {
      history_.wait_site = site;
      history_.wait_construct = "yield() (a repeated iteration that stores)";
    }
    history_.spins = true;
    if (!ts.stale) {
      ts.status = Status::yielding;
      ++waiting_;
      to_scheduler();
      if (unwinding_) {
        unwinding_skip();
        return;
      }
    }
  }
  new_spin_iteration(self());
}

// An attempt's marks are its own reads (a failed one blocks on exactly those: the thread
// stays in spin_until whatever else changes). The enclosing yield() iteration's marks stay
// set, as "outer" (2), so that a write landing during the attempt still makes the
// iteration stale; after a passed attempt both count for the iteration. Dropping them let a
// yield() loop around a spin_until block on too few reads and report a livelock that the
// write would have ended, depending on where the write fell.
void Execution::spin_begin() {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  ThreadState& ts = self();
  for (std::uint32_t k : ts.spin_touched) ts.spin_marks[k] = 2;
  ts.outer_touched.insert(ts.outer_touched.end(), ts.spin_touched.begin(), ts.spin_touched.end());
  ts.spin_touched.clear();
  ts.outer_stale = ts.outer_stale || ts.stale;
  ts.stale = false;
  ts.read_old = false;
  ts.effects_at_spin = ts.effects;
}

void Execution::spin_passed() {
  if (unwinding_) return;
  ThreadState& ts = self();
  for (std::uint32_t k : ts.spin_touched) ts.spin_marks[k] = 1;
  for (std::uint32_t k : ts.outer_touched) {
    if (ts.spin_marks[k] == 1) continue;
    ts.spin_marks[k] = 1;
    ts.spin_touched.push_back(k);
  }
  ts.outer_touched.clear();
  ts.stale = ts.stale || ts.outer_stale;
  ts.outer_stale = false;
}

void Execution::spin_failed(std::uint32_t site, std::string_view waits_on, const char* without) {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  ThreadState& ts = self();
  if (ts.effects != ts.effects_at_spin) {
    fail(FailureKind::usage,
         fmt::format("T{}: spin_until ({}): a failed attempt wrote to shared memory or "
                     "took a lock; its condition must only read (use a loop with yield())",
                     running_, call_site_name(site)));
    unwinding_skip();
    return;
  }
  // A failed attempt changed nothing, so the executions where it is made are covered by
  // those where only the successful attempt is (GenMC's spin-assume): block for good.
  block_spinning(site, "spin_until", waits_on, without);
}

namespace {
bool g_blocks_writers = false;  // loop_reduction_blocks_writers
}  // namespace
void loop_reduction_blocks_writers(bool on) { g_blocks_writers = on; }

// cas_loop (api.hpp): an attempt that ends in retry() having written nothing is deleted
// from the search, GenMC's spin-assume for loops whose failed iterations are effect-free
// (Kokologiannakis, Ren and Vafeiadis, "Dynamic partial order reductions for spinloops",
// FMCAD 2021). Deleting it leaves a valid execution with the same values everywhere: its
// reads and failed CASes wrote nothing. So the thread blocks for good where it failed, and
// the executions where it read the later values are explored instead: the attempt's reads
// race with the writes that made it fail, which DPOR reverses. The decision is a function
// of the thread's own events, the same in every member of a class. A blocked attempt that
// nothing ever changes is a livelock, reported as spin_until's; what it read is every read
// since the thread's last yield() or spin_until, since a failed CAS's expected value came
// from an earlier read, often one before the loop.
void Execution::loop_head() {
  if (unwinding_) return;
  self().loop_attempts.push_back(trace_.events.size());
}

void Execution::loop_exit() {
  if (running_ == kNoId || running_ >= nthreads_) return;
  ThreadState& ts = self();
  if (!ts.loop_attempts.empty()) ts.loop_attempts.pop_back();
}

void Execution::loop_retry(std::uint32_t site) {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  ThreadState& ts = self();
  if (ts.loop_attempts.empty()) return;
  if (std::exchange(ts.confirm_end, ~std::size_t{0}) == trace_.events.size()) return;  // ended already
  const bool unwritten = attempt_unwritten();
  ts.loop_attempts.back() = trace_.events.size();
  if (loop_reduction_ && (unwritten || g_blocks_writers)) block_spinning(site, "a cas_loop");
}

void Execution::loop_confirm_failed(std::uint32_t site) {
  loop_retry(site);
  // Not blocked: the attempt wrote (or the reduction is off), and the next one begins here.
  if (!unwinding_) self().confirm_end = trace_.events.size();
}

bool Execution::attempt_unwritten() const {
  const ThreadState& ts = *threads_[running_];
  if (ts.loop_attempts.empty()) return false;
  for (std::size_t i = ts.loop_attempts.back(); i < trace_.events.size(); ++i) {
    const Event& e = trace_.events[i];
    // A failed CAS is a read; a fence orders nothing of this thread once it is blocked; a
    // commit flushes a store made before the attempt. Anything else writes, forks, takes
    // a lock or opens a block.
    if (e.thread == running_ && e.op != Op::read && e.op != Op::fence && e.op != Op::commit) return false;
  }
  return true;
}

// The step of the running thread's last access, when that access is a read (a failed CAS
// is one): what a graph strategy asks of a thread that just blocked (History).
std::uint32_t Execution::blocked_read_step() const {
  for (std::size_t i = trace_.events.size(); i-- > 0;) {
    const Event& e = trace_.events[i];
    if (e.thread != running_ || e.op == Op::commit || e.op == Op::fence) continue;
    if (e.op != Op::read) return History::kNoStep;
    const std::vector<std::uint32_t>& ends = history_.step_events_end;
    return static_cast<std::uint32_t>(std::upper_bound(ends.begin(), ends.end(), i) - ends.begin());
  }
  return History::kNoStep;
}

// If what the attempt read never changes again, the thread would spin forever (checked
// at the end of the execution, spin_stale()).
void Execution::block_spinning(std::uint32_t site, const char* how, std::string_view waits_on,
                               const char* without) {
  ThreadState& ts = self();
  ts.status = Status::spin_blocked;
  // A graph strategy may cut the run here (History::blocked_read_step), not after a failure.
  if (!failed_) history_.blocked_read_step = blocked_read_step();
  // Under RC11 a wait that read an older write than the latest is no livelock: the
  // execution where it read the latest is explored, so this one is discarded (GenMC's
  // spin-assume does the same).
  if (ts.read_old) ts.stale = true;
  ts.spin_site = site;
  ts.spin_how = how;
  ts.waits_on.assign(waits_on);
  ts.waits_without = without;
  to_scheduler();
  unwinding_skip();
}

}  // namespace atomcheck::detail
