// Random well-formed traces: every step picks a thread that may act and one action that
// is enabled for it, so well-formedness holds by construction rather than by filtering.
#include "trace/random_trace.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace atomcheck {

RandomTraceGenerator::RandomTraceGenerator(const RandomTraceParams& params, std::uint64_t seed)
    : p_(params), rng_(seed) {
  if (p_.threads == 0) p_.threads = 1;
  if (p_.vars == 0) p_.vars = 1;
  if (p_.max_txn_len == 0) p_.max_txn_len = 1;
  if (p_.max_nesting == 0) p_.max_nesting = 1;
  threads_.resize(p_.threads);
  lock_holder_.assign(p_.locks, kNoId);
  memory_.assign(p_.vars, 0);
  if (p_.fork_join) {
    threads_[0].started = true;
    runnable_.push_back(0);
  } else {
    for (ThreadId t = 0; t < p_.threads; ++t) {
      threads_[t].started = true;
      runnable_.push_back(t);
    }
    next_unforked_ = p_.threads;
  }
}

void RandomTraceGenerator::fill_names(Names& names) const {
  for (std::uint32_t i = 0; i < p_.threads; ++i) names.threads.intern(fmt::format("T{}", i));
  for (std::uint32_t i = 0; i < p_.vars; ++i) names.vars.intern(fmt::format("x{}", i));
  for (std::uint32_t i = 0; i < p_.locks; ++i) names.locks.intern(fmt::format("l{}", i));
}

bool RandomTraceGenerator::next(Event& out) {
  out = Event{};
  if (emitted_ >= p_.events) {
    if (!p_.close_at_end) return false;
    for (ThreadId t : runnable_) {
      ThreadState& s = threads_[t];
      if (s.held.empty() && s.depth == 0) continue;
      out.thread = t;
      if (!s.held.empty()) {
        out.op = Op::release;
        out.target = s.held.back();
        lock_holder_[s.held.back()] = kNoId;
        s.held.pop_back();
      } else {
        out.op = Op::end;
        --s.depth;
      }
      ++emitted_;
      return true;
    }
    return false;
  }
  if (!threads_[cur_].started || threads_[cur_].joined || rng_.chance(p_.switch_permille)) {
    cur_ = runnable_[rng_.below(runnable_.size())];
  }
  ThreadId t = cur_;
  ThreadState& s = threads_[t];
  out.thread = t;
  ++emitted_;
  if (s.depth > 0 && s.budget == 0) {
    out.op = Op::end;
    --s.depth;
    return true;
  }
  if (s.depth == 0 && !rng_.chance(p_.unary_permille)) {
    out.op = Op::begin;
    s.depth = 1;
    s.budget = static_cast<std::uint32_t>(rng_.between(1, p_.max_txn_len));
    return true;
  }
  if (s.depth > 0) --s.budget;
  body_event(t, out);
  return true;
}

// One event that is not an outermost begin/end: nested block, fork, join, lock
// operation or memory access, chosen among those enabled for `t`.
bool RandomTraceGenerator::body_event(ThreadId t, Event& out) {
  ThreadState& s = threads_[t];
  std::uint64_t roll = rng_.below(1000);
  // Nested blocks.
  if (roll < 60 && s.depth > 0 && s.depth < p_.max_nesting) {
    out.op = Op::begin;
    ++s.depth;
    return true;
  }
  if (roll >= 60 && roll < 120 && s.depth > 1) {
    out.op = Op::end;
    --s.depth;
    return true;
  }
  if (p_.fork_join) {
    roll = rng_.below(1000);
    if (roll < 70 && next_unforked_ < p_.threads) {
      ThreadId u = next_unforked_++;
      threads_[u].started = true;
      runnable_.push_back(u);
      out.op = Op::fork;
      out.target = u;
      return true;
    }
    if (roll >= 70 && roll < 120) {
      // Only a thread with nothing open may be joined, so it never ends holding a lock.
      std::uint32_t candidates = 0;
      for (ThreadId u : runnable_)
        if (u != t && threads_[u].depth == 0 && threads_[u].held.empty()) ++candidates;
      if (candidates > 0) {
        std::uint64_t pick = rng_.below(candidates);
        for (std::size_t i = 0; i < runnable_.size(); ++i) {
          ThreadId u = runnable_[i];
          if (u == t || threads_[u].depth != 0 || !threads_[u].held.empty()) continue;
          if (pick-- == 0) {
            threads_[u].joined = true;
            runnable_.erase(runnable_.begin() + static_cast<std::ptrdiff_t>(i));
            out.op = Op::join;
            out.target = u;
            return true;
          }
        }
      }
    }
  }
  if (p_.locks > 0 && rng_.chance(p_.lock_permille)) {
    bool release = !s.held.empty() && rng_.chance(500);
    if (!release) {
      std::uint32_t free = 0;
      for (ThreadId h : lock_holder_)
        if (h == kNoId) ++free;
      if (free > 0) {
        std::uint64_t pick = rng_.below(free);
        for (LockId l = 0; l < p_.locks; ++l) {
          if (lock_holder_[l] != kNoId) continue;
          if (pick-- == 0) {
            lock_holder_[l] = t;
            s.held.push_back(l);
            out.op = Op::acquire;
            out.target = l;
            return true;
          }
        }
      }
      release = !s.held.empty();
    }
    if (release) {
      out.op = Op::release;
      out.target = s.held.back();
      lock_holder_[s.held.back()] = kNoId;
      s.held.pop_back();
      return true;
    }
  }
  VarId x = static_cast<VarId>(rng_.below(p_.vars));
  out.target = x;
  roll = rng_.below(1000);
  if (roll < p_.rmw_permille) {
    out.op = Op::rmw;
    out.value = memory_[x];
    out.value2 = next_value_++;
    memory_[x] = out.value2;
  } else if (roll < p_.rmw_permille + p_.write_permille) {
    out.op = Op::write;
    out.value = next_value_++;
    memory_[x] = out.value;
  } else {
    out.op = Op::read;
    out.value = memory_[x];
  }
  return true;
}

Trace random_trace(const RandomTraceParams& params, std::uint64_t seed) {
  Trace trace;
  RandomTraceGenerator gen(params, seed);
  gen.fill_names(trace.names);
  trace.events.reserve(params.events + 8);
  Event e;
  while (gen.next(e)) trace.events.push_back(e);
  return trace;
}

RandomTraceParams random_small_params(std::uint64_t seed, std::uint32_t max_events) {
  // A different stream from the trace's own (which uses `seed` directly).
  PortableRng rng(seed ^ 0x9e3779b97f4a7c15ULL);
  RandomTraceParams p;
  p.threads = static_cast<std::uint32_t>(rng.between(2, 4));
  p.vars = static_cast<std::uint32_t>(rng.between(1, 3));
  p.locks = static_cast<std::uint32_t>(rng.between(0, 2));
  p.events = static_cast<std::uint32_t>(rng.between(2, std::max<std::uint32_t>(2, max_events)));
  p.max_txn_len = static_cast<std::uint32_t>(rng.between(1, 6));
  p.max_nesting = static_cast<std::uint32_t>(rng.between(1, 3));
  p.unary_permille = static_cast<std::uint32_t>(rng.between(0, 800));
  p.write_permille = static_cast<std::uint32_t>(rng.between(200, 700));
  p.rmw_permille = static_cast<std::uint32_t>(rng.between(0, 200));
  p.lock_permille = static_cast<std::uint32_t>(rng.between(0, 300));
  p.switch_permille = static_cast<std::uint32_t>(rng.between(200, 900));
  p.fork_join = rng.chance(500);
  p.close_at_end = rng.chance(800);
  return p;
}

}  // namespace atomcheck
