// Optimal DPOR (strategy_optimal.cpp), the units of a parallel search (explore_units.cpp's
// Units): carving a pending branch of a wakeup tree as a strategy of its own, noticing that
// a carved branch changed, taking a unit's nodes over and joining its results, with the
// argument that this gives the one-job search's executions (above carve_unit). Apart
// because a one-job search calls none of it but note_change(), which returns at once when
// nothing is carved.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "scheduler/search/strategy.hpp"
#include "scheduler/search/strategy_optimal_internal.hpp"

namespace atomcheck::optimal {

// ---- units (explore_units.cpp's Units) ---------------------------------------------
// Why a unit gives the one-job search's executions, in its order. A unit is a pending
// branch k of the wakeup tree at node b, carved with the prefix to b, the sleep set k
// will have there (b's, plus the branches left of k, explored before it) and k's
// subtree. The one-job search explores k's subtree in one stretch once k is b's first
// branch, and in that stretch (1) nodes above b keep their sleep sets (their first
// branch stays the one on the path), (2) nodes below b are created from b's sleep set and
// k's subtree, and get insertions only from the stretch's own executions, and (3) the
// stretch's insertions at b and above read only those nodes' sleep sets (place()) and
// their trees, which nothing else changes meanwhile. So a strategy that starts at b with
// that sleep set and subtree (placeholder nodes above, forced to the prefix, with the
// sleep sets those nodes have when carved, which by (1) are theirs in the stretch) runs
// the stretch's executions in order if it makes place()'s sleep-set test at b and above
// and records the insertions that pass it instead of making them (outside_); the search
// makes them, in order, when it reaches k, after making k a leaf as the one-job search
// has it then (its subtree was explored below).
// The search checks on reaching k that k's subtree is the one carved: insertions made
// after carving may have added to it (then the unit is discarded and the search
// explores k itself). k's sleep set needs no check: b's changes only when a branch
// left of k is done, and new branches go to the right. A unit stopped between two
// executions is the one-job search's state after them: the search then takes over its
// nodes below b.
std::unique_ptr<Strategy> OptimalStrategy::carve_unit() {
  if (!error_.empty() || none_at_ == shape_) return nullptr;
  // The shallowest node's last pending branch: the work farthest from the search's
  // (the least likely to be reached, or changed, soon). Measured against the deepest
  // node and the first branch: those were reached and taken over far more often
  // (lastzero-12: 1,400-5,600 take-overs instead of about 10). Carving pending leaves
  // first (insert() stops at a leaf, so they cannot change before they are reached) was
  // measured too: shallow pending branches are rarely leaves, and the units were tiny
  // (readers-15: none carved; lastzero-12: 776 of 15,360 executions in units).
  for (std::size_t n = 0; n < stack_.size(); ++n) {
    const Node& node = stack_[n];
    for (std::size_t k = node.wut.size(); k-- > 1;) {
      bool carved = false;
      for (const Carved& c : carved_) carved = carved || (c.node == n && c.t == node.wut[k].t);
      if (carved) continue;
      auto u = std::make_unique<OptimalStrategy>(Equivalence::rf_co, false);
      u->tso_ = tso_;
      u->issue_order_ = issue_order_;
      u->unit_root_ = n;
      for (std::size_t i = 0; i < n; ++i) {
        u->unit_.prefix.push_back(stack_[i].wut.front().t);
        u->unit_.above_sleep.push_back(stack_[i].sleep);
      }
      u->unit_.sleep = node.sleep;
      for (std::size_t l = 0; l < k; ++l)
        if (!in_list(u->unit_.sleep, node.wut[l].t)) u->unit_.sleep.push_back(relabel(node.wut[l].t, node.enabled));
      u->unit_.branch = node.wut[k];
      carved_.push_back({n, node.wut[k].t, false, false, tree_hash(node.wut[k]),
                         check_units_ ? node.wut[k] : WNode{}});
      return u;
    }
  }
  none_at_ = shape_;
  return nullptr;
}

void OptimalStrategy::changed_units(std::vector<std::size_t>& out) {
  if (!changes_) return;
  changes_ = false;
  for (std::size_t i = 0; i < carved_.size(); ++i)
    if (carved_[i].changed && !carved_[i].reported) {
      carved_[i].reported = true;
      out.push_back(i);
    }
}

int OptimalStrategy::unit_reached() const {
  if (stack_.empty() || stack_.back().wut.empty()) return 0;
  const Node& n = stack_.back();
  for (std::size_t i = 0; i < carved_.size(); ++i) {
    const Carved& c = carved_[i];
    if (c.node + 1 != stack_.size() || !(n.wut.front().t == c.t)) continue;
    const int id = static_cast<int>(i) + 1;
    // The flag alone would do if note_change() misses nothing; the hash makes a miss
    // cost a unit, not an answer.
    const bool same = check_units_ ? same_tree(n.wut.front(), c.branch)
                                   : !c.changed && tree_hash(n.wut.front()) == c.hash;
    return same ? id : -id;
  }
  return 0;
}

std::unique_ptr<Strategy> OptimalStrategy::carve_from_unit(Strategy& unit) {
  // The unit's nodes at its root and above hold only the path, so this is a branch
  // below its root, carved as this search would carve it after continue_unit(): the
  // nodes it reads (the path's steps, the sleep sets above it, its own node) are the
  // ones continue_unit() copies, and above the unit's root they equal this search's.
  auto& u = static_cast<OptimalStrategy&>(unit);
  u.check_units_ = check_units_;
  std::unique_ptr<Strategy> v = u.carve_unit();
  if (!v) return nullptr;
  carved_.push_back(std::move(u.carved_.back()));
  u.carved_.clear();
  return v;
}

void OptimalStrategy::continue_unit(int which, Strategy& unit, bool own_memory) {
  const std::size_t b = carved_[static_cast<std::size_t>(std::abs(which) - 1)].node;
  auto& u = static_cast<OptimalStrategy&>(unit);
  // Insertions at b and above (join_unit's, later) skip the first branch at each node,
  // the one on the path, so they cannot change what is below b: taking these nodes
  // first is the state the one-job search has once the unit's executions are done.
  stack_[b].wut.front().kids.clear();
  ++shape_;
  // A unit thread's nodes are copied, not moved: its vectors live in that thread's
  // malloc arena, and the search would keep them (retired nodes are reused) beside the
  // thread's own live memory, where the two threads' writes to neighbouring bytes pass
  // cache lines back and forth. Another rank's unit was loaded by this thread: moved
  // (copying and then freeing its wakeup trees was a sixth of rank 0's work on
  // lastzero-12 over 4 ranks, where it takes over most units it reaches).
  for (std::size_t s = b + 1; s < u.stack_.size(); ++s) {
    Node& from = u.stack_[s];
    if (own_memory) {
      stack_.push_back(std::move(from));
      continue;
    }
    Node n;
    if (!spare_.empty()) {
      n = std::move(spare_.back());
      spare_.pop_back();
    }
    n.enabled.assign(from.enabled.begin(), from.enabled.end());
    n.sleep.assign(from.sleep.begin(), from.sleep.end());
    n.wut = from.wut;
    stack_.push_back(std::move(n));
  }
}

void OptimalStrategy::join_unit(int which, Strategy* unit) {
  const std::size_t i = static_cast<std::size_t>(std::abs(which) - 1);
  const std::size_t b = carved_[i].node;
  carved_.erase(carved_.begin() + static_cast<std::ptrdiff_t>(i));
  if (!unit) return;
  ++shape_;
  auto& u = static_cast<OptimalStrategy&>(*unit);
  stack_[b].wut.front().kids.clear();
  for (std::size_t o = 0; o < u.outside_at_.size(); ++o) {  // the unit made place()'s sleep-set test
    const std::size_t e = o + 1 < u.outside_at_.size() ? u.outside_begin_[o + 1] : u.outside_.size();
    v_.assign(u.outside_.begin() + static_cast<std::ptrdiff_t>(u.outside_begin_[o]),
              u.outside_.begin() + static_cast<std::ptrdiff_t>(e));
    note_change(u.outside_at_[o], insert(stack_[u.outside_at_[o]].wut, v_));
  }
  blocked_ += u.blocked_;
  spins_ = spins_ || u.spins_;
}

// insert() at node i changed the subtree of its pending branch `branch` (kNone: none):
// a unit carved from that branch can no longer be taken (unit_reached() says so), so
// its thread had better stop now than run to the end (changed_units()).
void OptimalStrategy::note_change(std::size_t i, std::size_t branch) {
  if (branch == kNone || carved_.empty()) return;
  for (Carved& c : carved_)
    if (c.node == i && !c.changed && c.t == stack_[i].wut[branch].t) {
      c.changed = true;
      changes_ = true;
    }
}

}  // namespace atomcheck::optimal
