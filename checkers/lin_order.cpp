// The class order of an execution's events as vector clocks (see lin_order.hpp).
#include "checkers/lin_order.hpp"

#include <algorithm>
#include <atomic>

namespace atomcheck {

namespace {

using Clock = ClassOrder::Clock;

void join_into(Clock& into, const Clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

bool atomic_order(std::uint8_t mo) { return mo != kPlainOrder; }

}  // namespace

bool ClassOrder::is_step(const Event& e) {
  return e.op == Op::read || e.op == Op::write || e.op == Op::rmw || e.op == Op::fence || is_lock_op(e.op) ||
         is_thread_op(e.op);
}

void ClassOrder::reset(Model model) {
  model_ = model;
  next_ = 0;
  nthreads_ = 0;
  for (Var& v : vars_) {
    v.write.clear();
    v.readers.clear();
    v.writer = kNoId;
  }
  for (Clock& l : locks_) l.clear();
  message_.clear();
}

ClassOrder::Thread& ClassOrder::thread(ThreadId t) {
  if (t >= threads_.size()) threads_.resize(t + 1);
  while (nthreads_ <= t) {
    Thread& th = threads_[nthreads_++];
    th.clock.clear();
    th.buffer.clear();
    th.pending.clear();
    th.released.clear();
    th.acquired.clear();
    th.released_to.clear();
    th.started = false;
  }
  Thread& th = threads_[t];
  if (!th.started) {  // a thread no fork announced (the main thread): its start
    th.started = true;
    tick(th.clock, thread_chain(t));
  }
  return th;
}

ClassOrder::Var& ClassOrder::var(VarId v) {
  if (v >= vars_.size()) vars_.resize(v + 1);
  return vars_[v];
}

void ClassOrder::tick(Clock& c, std::size_t chain) {
  if (c.size() <= chain) c.resize(chain + 1, 0);
  ++c[chain];
}

const Clock& ClassOrder::thread_clock(ThreadId t) { return thread(t).clock; }
const Clock& ClassOrder::buffer_clock(ThreadId t) { return thread(t).buffer; }

// Fork and join, the same under every model: the child starts after the fork, the join
// follows the child's last step (and, under TSO, its commits: a child with buffered stores
// is not joinable).
void ClassOrder::thread_ops(const Event& e, Thread& th) {
  const ThreadId t = e.thread;
  if (e.op == Op::fork) {
    tick(th.clock, thread_chain(t));
    Clock start = th.clock;
    Thread& child = thread(e.target);  // may move threads_: th is not used below
    child.clock = std::move(start);
    child.started = true;
    tick(child.clock, thread_chain(e.target));
    return;
  }
  Thread& child = thread(e.target);
  Clock c = child.clock;
  join_into(c, child.buffer);
  Thread& self = thread(t);
  join_into(self.clock, c);
  tick(self.clock, thread_chain(t));
}

void ClassOrder::sc_step(const Event& e, Thread& th) {
  const std::size_t me = thread_chain(e.thread);
  if (e.op == Op::read || e.op == Op::rmw || e.op == Op::write) {
    Var& v = var(e.target);
    join_into(th.clock, v.write);                               // rf, co
    if (e.op != Op::read) join_into(th.clock, v.readers);       // fr
    tick(th.clock, me);
    if (e.op == Op::read) {
      join_into(v.readers, th.clock);
    } else {
      v.write = th.clock;
      v.readers.clear();
    }
    return;
  }
  if (e.op == Op::acquire) {
    if (e.target < locks_.size()) join_into(th.clock, locks_[e.target]);
    tick(th.clock, me);
    return;
  }
  tick(th.clock, me);
  if (e.op == Op::release) {
    if (e.target >= locks_.size()) locks_.resize(e.target + 1);
    locks_[e.target] = th.clock;
  }
}

void ClassOrder::tso_step(const Event& e, Thread& th) {
  const ThreadId t = e.thread;
  const std::size_t me = thread_chain(t);
  if (e.op == Op::commit) {
    // The oldest store of t's buffer (FIFO): after its issue, the buffer's earlier
    // commits (the chain), the variable's last write (co) and its readers (fr).
    Var& v = var(e.target);
    Clock readers;
    bool unbuffered = false;
    if (!th.pending.empty()) {
      join_into(th.buffer, th.pending.front().clock);
      readers = std::move(th.pending.front().readers);
      unbuffered = th.pending.front().unbuffered;
      th.pending.erase(th.pending.begin());
    }
    join_into(th.buffer, v.write);
    join_into(th.buffer, v.readers);
    tick(th.buffer, buffer_chain(t));
    if (unbuffered) join_into(th.clock, th.buffer);  // the xchg's step wrote memory
    v.write = th.buffer;
    v.readers = std::move(readers);
    v.writer = t;
    return;
  }
  const bool sc_store = e.op == Op::write && e.order == static_cast<std::uint8_t>(std::memory_order_seq_cst);
  // An xchg store and a failed compare-exchange (a locked cmpxchg) drain the buffer too.
  if (sc_store || (e.op == Op::read && e.failed_cas)) join_into(th.clock, th.buffer);
  if (e.op == Op::write) {
    tick(th.clock, me);
    th.pending.push_back({next_, e.target, th.clock, {}, sc_store});
    return;
  }
  if (e.op == Op::read) {
    Var& v = var(e.target);
    Pending* own = nullptr;
    for (auto it = th.pending.rbegin(); it != th.pending.rend() && !own; ++it)
      if (it->var == e.target) own = &*it;
    if (e.buffered && own) {  // served by its own buffer: po only; precedes later commits
      tick(th.clock, me);
      join_into(own->readers, th.clock);
      return;
    }
    if (v.writer != t) join_into(th.clock, v.write);  // rf from another thread's commit
    tick(th.clock, me);
    join_into(v.readers, th.clock);
    return;
  }
  // Draining steps: the thread's buffer is empty, its commits precede.
  if (e.op == Op::rmw || e.op == Op::fence || is_lock_op(e.op)) join_into(th.clock, th.buffer);
  if (e.op == Op::rmw) {
    Var& v = var(e.target);
    join_into(th.clock, v.write);
    join_into(th.clock, v.readers);
    tick(th.clock, me);
    v.write = th.clock;
    v.readers.clear();
    v.writer = t;
    return;
  }
  if (e.op == Op::acquire && e.target < locks_.size()) join_into(th.clock, locks_[e.target]);
  tick(th.clock, me);
  if (e.op == Op::release) {
    if (e.target >= locks_.size()) locks_.resize(e.target + 1);
    locks_[e.target] = th.clock;
  }
}

// RC11's happens-before: sw from a release write (or a release fence before a write), its
// release sequence (the thread's later writes to the variable, rmws reading it) to an
// acquire read (or a relaxed read before an acquire fence).
void ClassOrder::rc11_step(const Event& e, Thread& th) {
  const std::size_t me = thread_chain(e.thread);
  const std::uint8_t mo = e.order;
  if (e.op == Op::read || e.op == Op::rmw) {
    const std::uint8_t r = e.op == Op::rmw ? rmw_read_order(mo) : mo;
    if (atomic_order(r) && e.issue != kNoEvent) {
      auto m = message_.find(e.issue);
      if (m != message_.end()) join_into(order_acquires(r) ? th.clock : th.acquired, m->second);
    }
  }
  if (e.op == Op::fence && order_acquires(mo)) join_into(th.clock, th.acquired);
  if (e.op == Op::acquire && e.target < locks_.size()) join_into(th.clock, locks_[e.target]);
  tick(th.clock, me);
  if (e.op == Op::fence && order_releases(mo)) th.released = th.clock;
  if (e.op == Op::release) {
    if (e.target >= locks_.size()) locks_.resize(e.target + 1);
    locks_[e.target] = th.clock;
  }
  if (e.op == Op::write || e.op == Op::rmw) {
    const std::uint8_t w = e.op == Op::rmw ? rmw_write_order(mo) : mo;
    if (!atomic_order(w)) return;
    Clock msg;
    if (order_releases(w)) {
      msg = th.clock;
      th.released_to[e.target] = th.clock;
    }
    join_into(msg, th.released);
    if (auto r = th.released_to.find(e.target); r != th.released_to.end()) join_into(msg, r->second);
    if (e.op == Op::rmw && e.issue != kNoEvent)
      if (auto m = message_.find(e.issue); m != message_.end()) join_into(msg, Clock(m->second));
    message_[next_] = std::move(msg);
  }
}

void ClassOrder::on_event(const Event& e) {
  Thread& th = thread(e.thread);
  if (is_thread_op(e.op)) {
    if (model_ == Model::tso) join_into(th.clock, th.buffer);  // a spawn drains; a join waits for the child's
    thread_ops(e, th);
  } else if (e.op == Op::commit) {
    if (model_ == Model::tso) tso_step(e, th);
  } else if (is_step(e)) {
    switch (model_) {
      case Model::sc: sc_step(e, th); break;
      case Model::tso: tso_step(e, th); break;
      case Model::rc11: rc11_step(e, th); break;
    }
  }
  ++next_;
}

}  // namespace atomcheck
