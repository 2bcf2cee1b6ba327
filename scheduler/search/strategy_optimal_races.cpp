// Optimal DPOR (strategy_optimal.cpp), the races of an execution: after each execution
// analyse() builds its happens-before (under TSO from what the memory saw, replaying the
// store buffers: compute_facts), finds the pairs of steps that race (the direct edges
// between processes that can be reversed) and, for each, the sequence that reverses it,
// which goes into the wakeup tree of the node where the race begins unless a sleeping
// process covers it. Apart because it reads one execution's history and writes its own
// scratch: what it finds reaches the search's nodes only through place() (in a unit,
// through outside_).
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "scheduler/search/strategy.hpp"
#include "scheduler/search/strategy_optimal_internal.hpp"

namespace atomcheck::optimal {

// Can `b` (of another process, coming after step i) be reversed with step i?
bool OptimalStrategy::reversible(const History& h, std::size_t i, const Transition& b) const {
  const Transition& a = h.chosen[i];
  if (a.thread == b.thread) {
    if (a.action == Action::flush) return !b.drains;
    // b is a flush of a's thread: possible before a only if its entry existed then.
    for (const Transition& t : h.enabled_at(i))
      if (t.action == Action::flush && t.thread == b.thread) return true;
    return false;
  }
  if (b.action == Action::acquire && is_lock_action(a.action) && a.target == b.target)
    return a.action == Action::acquire || (a.action == Action::try_acquire && try_ok_[i]);
  return true;
}

// An edge into a blocking acquire `b` that does not order it for race purposes.
bool OptimalStrategy::waits_for(std::size_t k, const Transition& b) const {
  const Transition& a = hist_->chosen[k];
  return b.action == Action::acquire && a.thread != b.thread && a.target == b.target &&
         (a.action == Action::release || (a.action == Action::try_acquire && !try_ok_[k]));
}

// Sweeps the steps before position `jpos` (a step, or len for a pending transition)
// that race with `b`, given `p` = the steps happening before b for race purposes.
// Steps ordered before b by a spawn or join edge never race with it.
void OptimalStrategy::races_with(const History& h, std::size_t jpos, const Transition& b, const Fact& fb,
                                 const std::uint64_t* p) {
  covered_.assign(words_, 0);
  add_edge_sources(h, jpos, b, covered_);
  for (std::size_t i = jpos; i-- > 0;) {
    bool in_p = (p[i / 64] >> (i % 64)) & 1u;
    if (!in_p) continue;
    bool cov = (covered_[i / 64] >> (i % 64)) & 1u;
    const Transition& a = h.chosen[i];
    if (!cov && proc_of(a) != proc_of(b) && race_edge(i, a, b, fb, jpos) && reversible(h, i, b))
      reverse(h, i, jpos, b);
    const std::uint64_t* pi = &pred_[i * words_];
    for (std::size_t w = 0; w < words_; ++w) covered_[w] |= pi[w];
  }
}

// Adds to `out` the steps ordered before b (at jpos) by spawn and join edges.
void OptimalStrategy::add_edge_sources(const History& h, std::size_t jpos, const Transition& b,
                                       std::vector<std::uint64_t>& out) const {
  if (b.action == Action::flush) return;
  for (std::size_t e = 0; e < h.edges.size(); ++e) {
    const History::ThreadEdge& edge = h.edges[e];
    if (edge.to != b.thread || edge.at > jpos) continue;
    for (std::size_t src : edge_src_[e]) {
      if (src == kNone) continue;
      out[src / 64] |= std::uint64_t{1} << (src % 64);
      const std::uint64_t* ps = &pred_[src * words_];
      for (std::size_t w = 0; w < words_; ++w) out[w] |= ps[w];
    }
  }
}

// Fills `out` with the steps before `jpos` happening before b (direct edges, skipping
// the ones that do not count for races when `race` is set).
void OptimalStrategy::preds_of(const History& h, std::size_t jpos, const Transition& b, const Fact& fb, bool race,
                               std::vector<std::uint64_t>& out) {
  out.assign(words_, 0);
  add_edge_sources(h, jpos, b, out);
  for (std::size_t i = jpos; i-- > 0;) {
    if ((out[i / 64] >> (i % 64)) & 1u) continue;
    const Transition& a = h.chosen[i];
    if (!edge(i, a, b, fb, jpos)) continue;
    if (race && waits_for(i, b)) continue;
    out[i / 64] |= std::uint64_t{1} << (i % 64);
    const std::uint64_t* pi = &pred_[i * words_];
    for (std::size_t w = 0; w < words_; ++w) out[w] |= pi[w];
  }
}

void OptimalStrategy::analyse(const History& h, std::size_t len, bool with_pending) {
  hist_ = &h;
  words_ = (len + 63) / 64 + 1;
  pred_.assign(len * words_, 0);
  // Which try_locks succeeded: replay the lock owners.
  try_ok_.assign(len, false);
  owner_.clear();
  for (std::size_t i = 0; i < len; ++i) {
    const Transition& t = h.chosen[i];
    if (!is_lock_action(t.action)) continue;
    if (t.target >= owner_.size()) owner_.resize(t.target + 1, kNoId);
    ThreadId& o = owner_[t.target];
    if (t.action == Action::acquire) o = t.thread;
    if (t.action == Action::release) o = kNoId;
    if (t.action == Action::try_acquire && o == kNoId) {
      o = t.thread;
      try_ok_[i] = true;
    }
  }
  // The sources of each spawn/join edge: the last step of `from` before `at`, and for a
  // join, which also waits for the child's buffer to drain, its last flush.
  edge_src_.assign(h.edges.size(), {kNone, kNone});
  for (std::size_t e = 0; e < h.edges.size(); ++e) {
    const History::ThreadEdge& edge = h.edges[e];
    for (std::size_t i = std::min<std::size_t>(edge.at, len); i-- > 0;) {
      const Transition& t = h.chosen[i];
      if (t.thread != edge.from || (!edge.join && t.action == Action::flush)) continue;
      std::size_t& slot = edge_src_[e][t.action == Action::flush ? 1 : 0];
      if (slot == kNone) slot = i;
      if (edge_src_[e][0] != kNone && (!edge.join || edge_src_[e][1] != kNone)) break;
    }
  }
  compute_facts(h, len);
  for (std::size_t j = 0; j < len; ++j) {
    const Transition& b = h.chosen[j];
    preds_of(h, j, b, facts_[j], false, tmp_);
    std::copy(tmp_.begin(), tmp_.end(), pred_.begin() + static_cast<std::ptrdiff_t>(j * words_));
    if (b.action == Action::acquire) preds_of(h, j, b, facts_[j], true, tmp_);
    races_with(h, j, b, facts_[j], tmp_.data());
  }
  if (!with_pending) return;
  for (const Transition& b : h.pending) {
    Fact fb = pending_fact(b);
    preds_of(h, len, b, fb, true, tmp_);
    races_with(h, len, b, fb, tmp_.data());
  }
}

// ---- happens-before of the executed steps -----------------------------------------

// Replays the store buffers over the steps: which reads the buffer served (and the
// write each read), which issue each flush commits.
void OptimalStrategy::compute_facts(const History& h, std::size_t len) {
  facts_.assign(len, Fact{});
  fifo_.clear();
  src_issue_.assign(len, kNone);
  flush_of_.assign(len, kNone);
  last_issue_.assign(len, kNone);
  for (auto& per_var : latest_) std::fill(per_var.begin(), per_var.end(), kNone);
  for (std::size_t k = 0; k < len; ++k) {
    const Transition& t = h.chosen[k];
    Fact& f = facts_[k];
    f = basic_fact(t);
    if (!tso_) continue;
    if (t.thread >= fifo_.size()) fifo_.resize(t.thread + 1);
    auto& q = fifo_[t.thread];
    if (t.action == Action::read) {
      if (t.thread < latest_.size() && t.target < latest_[t.thread].size())
        last_issue_[k] = latest_[t.thread][t.target];
    }
    if (t.action == Action::write && !t.drains) {
      if (t.thread >= latest_.size()) latest_.resize(t.thread + 1);
      if (t.target >= latest_[t.thread].size()) latest_[t.thread].resize(t.target + 1, kNone);
      latest_[t.thread][t.target] = k;
      q.push_back({k, t.target});
    } else if (t.action == Action::flush && !q.empty()) {
      f.issue_of = q.front().first;
      flush_of_[f.issue_of] = k;
      q.pop_front();
    } else if (t.action == Action::read) {
      for (std::size_t e = q.size(); e-- > 0;)
        if (q[e].second == t.target) {
          src_issue_[k] = q[e].first;
          break;
        }
      f.local = src_issue_[k] != kNone;
      f.mem_read = !f.local;
    }
  }
  for (std::size_t k = 0; k < len; ++k)
    if (facts_[k].local) facts_[k].src_flush = flush_of_[src_issue_[k]];
}

OptimalStrategy::Fact OptimalStrategy::basic_fact(const Transition& t) const {
  Fact f;
  switch (t.action) {
    case Action::read:
      f.var = t.target;
      f.mem_read = true;
      break;
    case Action::write:
      f.var = t.target;
      f.mem_write = t.drains || !tso_;
      break;
    case Action::rmw:  // a failed compare-exchange only read
      f.var = t.target;
      f.mem_read = true;
      f.mem_write = !(tso_ && t.failed);
      break;
    case Action::flush:
      f.var = t.target;
      f.mem_write = true;
      break;
    default: break;
  }
  return f;
}

// The fact of a transition still pending at the end, as if it came next.
OptimalStrategy::Fact OptimalStrategy::pending_fact(const Transition& t) const {
  Fact f = basic_fact(t);
  if (!tso_ || t.thread >= fifo_.size()) return f;
  const auto& q = fifo_[t.thread];
  if (t.action == Action::read) {
    for (const auto& entry : q) f.local = f.local || entry.second == t.target;
    f.mem_read = !f.local;
  }
  if (t.action == Action::flush && !q.empty()) f.issue_of = q.front().first;
  return f;
}

// A direct happens-before edge from step i (transition a) to b at position jpos.
bool OptimalStrategy::edge(std::size_t i, const Transition& a, const Transition& b, const Fact& fb,
                           std::size_t jpos) const {
  if (!tso_) return proc_of(a) == proc_of(b) || dependent(a, b);
  if (proc_of(a) == proc_of(b)) return true;
  if (a.thread == b.thread) {
    if (b.action == Action::flush) return fb.issue_of == i;  // its own issue
    return b.drains;  // a is a flush: before the thread's next draining step
  }
  return cross_edge(i, a, b, fb, jpos);
}

// The edges between threads: locks, and co, rf and fr on one variable (plus tau's
// conflicts for issue_order). These are the races.
bool OptimalStrategy::cross_edge(std::size_t i, const Transition& a, const Transition& b, const Fact& fb,
                                 std::size_t jpos) const {
  if (is_lock_action(a.action) && is_lock_action(b.action)) return a.target == b.target;
  const Fact& fa = facts_[i];
  if (fa.var == kNoId || fa.var != fb.var) return false;
  if (fa.mem_write && (fb.mem_write || fb.mem_read)) return true;
  if (fb.mem_write && fa.mem_read) return true;
  if (fb.mem_write && fa.local && fa.src_flush != kNone && fa.src_flush < jpos) return true;
  return issue_order_ && in_tau(a.action) && in_tau(b.action) &&
         (a.action != Action::read || b.action != Action::read);
}

bool OptimalStrategy::race_edge(std::size_t i, const Transition& a, const Transition& b, const Fact& fb,
                                std::size_t jpos) const {
  if (!tso_) return dependent(a, b);
  return a.thread != b.thread && cross_edge(i, a, b, fb, jpos);
}

// v = the steps after i (before jpos) not happening after i, then b: the start of an
// execution that reverses the race. Inserted into node i's wakeup tree unless a
// process asleep there could start it (then it was explored already).
void OptimalStrategy::reverse(const History& h, std::size_t i, std::size_t jpos, const Transition& b) {
  v_.clear();
  for (std::size_t k = i + 1; k < jpos; ++k)
    if (!hb(k, i)) {
      v_.push_back(h.chosen[k]);
      if (tso_ && v_.back().action == Action::read) v_.back().local = local_in_v(i, k, last_issue_[k]);
    }
  v_.push_back(b);
  if (tso_ && b.action == Action::read)
    v_.back().local = local_in_v(i, jpos, jpos < last_issue_.size() ? last_issue_[jpos] : pending_issue(h, b));
  if (unit_root_ != kNone && i <= unit_root_) {  // the search's node: inserted when it joins the unit
    for (const Transition& q : stack_[i].sleep)
      if (weak_initial(q, v_)) return;
    outside_at_.push_back(static_cast<std::uint32_t>(i));
    outside_begin_.push_back(static_cast<std::uint32_t>(outside_.size()));
    outside_.insert(outside_.end(), v_.begin(), v_.end());
    return;
  }
  place(i, v_);
}

// The part of a reversal that reads the search's state: skipped when a process asleep
// at the node could start v (it was explored already), else inserted.
void OptimalStrategy::place(std::size_t i, std::vector<Transition>& v) {
  for (const Transition& q : stack_[i].sleep)
    if (weak_initial(q, v)) return;
  const std::size_t before = stack_[i].wut.size();
  note_change(i, insert(stack_[i].wut, v));
  if (stack_[i].wut.size() != before) ++shape_;
}

// Is the read at position k (moved into the sequence v that reverses the race at step
// i) served by its buffer where v puts it? `issue`: its thread's latest earlier store
// of the variable. Step i and the steps after it are gone from v, and with them maybe
// the flush that made the read a memory read in the execution; a label kept from the
// execution would make v look dependent where it is not, and the wakeup tree would grow
// a branch that the sleep set then blocks (tso-peterson did).
bool OptimalStrategy::local_in_v(std::size_t i, std::size_t k, std::size_t issue) const {
  if (issue == kNone) return false;
  std::size_t f = flush_of_[issue];
  if (f == kNone || f >= k) return true;
  if (f < i) return false;
  return f == i || hb(f, i);
}

// The latest store of a pending read's thread to its variable, if any.
std::size_t OptimalStrategy::pending_issue(const History& h, const Transition& b) const {
  for (std::size_t k = last_issue_.size(); k-- > 0;) {
    const Transition& t = h.chosen[k];
    if (t.thread == b.thread && t.action == Action::write && !t.drains && t.target == b.target) return k;
  }
  return kNone;
}

}  // namespace atomcheck::optimal
