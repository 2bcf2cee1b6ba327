// Optimal DPOR with wakeup trees (Abdulla, Aronis, Jonsson, Sagonas, "Source Sets",
// JACM 2017, Algorithm 2), stateless like DFS. One node per step of the current
// execution holds its enabled transitions, its sleep set and its wakeup tree (the
// sequences still to explore from there; the first child is the one being explored).
// Processes are program threads and, under TSO, one extra process per store buffer whose
// transitions are its flushes, as in Nidhugg.
//
// The equivalence is Mazurkiewicz's over dependent() (strategy.hpp): same thread (a
// thread's operations and its own buffer's flushes included), same variable with a
// write, same lock. Races are the pairs of that relation that can be reversed:
//  - a blocking acquire cannot move before the release (or a failing try_lock) it waited
//    for, so an acquire races only with the previous acquisition of its lock, and the
//    release edge into it does not count when deciding whether the race is immediate
//    (Nidhugg's lock refinement);
//  - a draining step (seq_cst store, rmw, fence, lock op under TSO) cannot move before its
//    own buffer's flushes, and a flush cannot move before the store it commits.
// Spawn and join are not transitions; History::edges adds their happens-before edges,
// which no race can reverse.
//
// Under TSO the classes are coarser, as in Nidhugg's TSO mode (Abdulla et al., TACAS
// 2015): happens-before is built from what the memory saw, not from labels. Per step we
// know whether a read was served by its own buffer, which write it read, and which issue
// each flush commits (compute_facts replays the buffers). The direct edges are
//  - program order per process (a thread; its buffer's flushes, FIFO);
//  - a store's issue before its flush, and a flush before its thread's next draining step;
//  - between threads, on one variable: memory writes (flushes, rmw, seq_cst stores) in
//    commit order (co); a memory write before a later memory read (rf, or co before the
//    write read); a read before a later memory write that is co-after the write it read
//    (fr). A buffer-served read reads its own pending write: it is ordered only before the
//    memory writes that come after that write's flush. A store's issue touches no memory.
// A flush and its own thread's later non-draining steps commute, reads of its variable
// included (a read of the thread's own latest write reads the same write from the buffer
// or, after the flush, from memory). Only the cross-thread edges are races. Two
// executions get the same happens-before iff they have the same reads-from and coherence
// (rf_co). issue_order adds the conflicts of the trace tau between threads (an issue and
// another thread's access of its variable, one of them a write), which SC checkers see.
// Sleep sets and wakeup trees compare transitions by label (label_dependent): a read
// served by its buffer commutes with other threads' flushes, and a sequence that moves it
// past its own flush of that variable relabels it as a memory read.
// Waits are blocked threads (spin_until, a yield() loop repeating an iteration, assume()):
// a thread's blocking depends only on what it read, so the races of its reads with the
// later writes are ordinary races. The one wait outside the model, a yield() loop whose
// repeated iteration stores, waits for a change: its wake-up is not a transition, so when
// that makes a replayed prefix diverge, the search stops with an error naming dpor or dfs.
// Threads still blocked on a lock at the end of an execution (deadlock) and the untaken
// operations of an execution cut short by a bound race as if they came last. (A failure
// does not cut: its thread stops and the others run on, so their operations are steps.)
//
// The class is declared in strategy_optimal_internal.hpp; this file holds the Strategy
// interface of one search (begin_execution, choose, end_execution) and the path's nodes.
// The races of an execution and their reversals are in strategy_optimal_races.cpp, the
// wakeup trees in strategy_optimal_wakeup.cpp, the units of a parallel search (and the
// argument that they are exact, above carve_unit) in strategy_optimal_units.cpp, and
// checkpoints in strategy_optimal_save.cpp.
#include <algorithm>
#include <memory>
#include <span>

#include <fmt/core.h>

#include "scheduler/search/strategy.hpp"
#include "scheduler/search/strategy_optimal_internal.hpp"

namespace atomcheck {

namespace optimal {

bool OptimalStrategy::begin_execution() {
  blocked_step_ = kNone;
  if (!started_) {
    started_ = true;
    return true;
  }
  if (!error_.empty()) return false;
  while (!stack_.empty()) {
    Node& n = stack_.back();
    // The child just explored is done: it joins the sleep set and leaves the tree.
    if (!n.wut.empty()) {
      add_sleep(n, n.wut.front().t);
      n.wut.erase(n.wut.begin());
    }
    if (unit_root_ != kNone && stack_.size() == unit_root_ + 1) {  // a unit's branch is done
      unit_done_ = true;
      return false;
    }
    if (!n.wut.empty()) return true;
    retire_back();
  }
  return false;
}

std::size_t OptimalStrategy::choose(std::span<const Transition> enabled, const History& history) {
  std::size_t step = history.steps();
  spins_ = spins_ || history.spins;
  if (step < stack_.size()) {
    const Node& n = stack_[step];
    if (n.enabled.size() != enabled.size() ||
        !std::equal(enabled.begin(), enabled.end(), n.enabled.begin()) || n.wut.empty())
      return nondeterministic(step);
    return index_of(enabled, n.wut.front().t, step);
  }
  if (blocked_step_ != kNone) return 0;
  extend(history, step);
  if (blocked_step_ != kNone || !error_.empty()) return 0;
  push_node(enabled, step, history);
  if (blocked_step_ != kNone || !error_.empty()) return 0;
  return index_of(enabled, stack_.back().wut.front().t, step);
}

void OptimalStrategy::end_execution(const History& history) {
  spins_ = spins_ || history.spins;
  if (!error_.empty()) return;
  if (blocked_step_ == kNone) extend(history, history.steps());
  if (!error_.empty()) return;
  std::size_t len = blocked_step_ == kNone ? history.steps() : blocked_step_;
  if (blocked_step_ != kNone) {
    ++blocked_;
    while (stack_.size() > len) retire_back();
  }
  analyse(history, len, blocked_step_ == kNone);
}

std::size_t OptimalStrategy::nondeterministic(std::size_t step) {
  if (!error_.empty()) return 0;
  if (spins_)
    error_ = fmt::format(
        "optimal DPOR cannot follow this program's yield() spin loops (step {} differed from "
        "the prefix it replays: a wake-up is not a transition); use --strategy dpor or dfs",
        step);
  else
    error_ = fmt::format(
        "the program is not deterministic: step {} had different enabled transitions than "
        "before (does some state outlive an execution?)",
        step);
  return 0;
}

std::size_t OptimalStrategy::index_of(std::span<const Transition> enabled, const Transition& t, std::size_t step) {
  for (std::size_t k = 0; k < enabled.size(); ++k)
    if (enabled[k] == t) return k;
  return nondeterministic(step);
}

// Creates the node of `step` (stack_.size() == step): its sleep set from the parent's,
// its wakeup tree from the parent's explored child, or else the first enabled
// transition not asleep.
void OptimalStrategy::push_node(std::span<const Transition> enabled, std::size_t step, const History& history) {
  Node n;
  if (!spare_.empty()) {
    n = std::move(spare_.back());
    spare_.pop_back();
    n.sleep.clear();
    n.wut.clear();
  }
  n.enabled.assign(enabled.begin(), enabled.end());
  if (unit_root_ != kNone && step <= unit_root_) {
    // A unit's nodes down to its root: the carved prefix, then at the root its branch
    // with the root's sleep set (no other branch: reversals there go to outside_).
    if (step < unit_root_) {
      n.wut.push_back(WNode{unit_.prefix[step], {}});
      n.sleep = unit_.above_sleep[step];  // for place()'s test only: nothing derives from it
    } else {
      for (const Transition& t : unit_.sleep) n.sleep.push_back(relabel(t, enabled));
      n.wut.push_back(unit_.branch);
    }
    if (std::find(enabled.begin(), enabled.end(), n.wut.front().t) == enabled.end()) {
      nondeterministic(step);
      return;
    }
    stack_.push_back(std::move(n));  // one branch: nothing to carve from it
    return;
  }
  if (step > 0) {
    Node& prev = stack_[step - 1];
    const Transition& taken = history.chosen[step - 1];
    for (const Transition& s : prev.sleep)
      if (!label_dependent(s, taken))
        n.sleep.push_back(relabel(s, enabled));
    if (!prev.wut.empty()) n.wut = std::move(prev.wut.front().kids);
    prev.wut.front().kids.clear();
  }
  if (!n.wut.empty()) {
    if (std::find(enabled.begin(), enabled.end(), n.wut.front().t) == enabled.end()) {
      nondeterministic(step);
      return;
    }
  } else {
    for (const Transition& t : enabled) {
      if (!in_sleep(n, t)) {
        n.wut.push_back(WNode{t, {}});
        break;
      }
    }
    if (n.wut.empty()) {
      blocked_step_ = step;
      return;
    }
  }
  if (n.wut.size() > 1) ++shape_;
  stack_.push_back(std::move(n));
}

// A node leaves the stack; its vectors keep their capacity for the next push_node
// (allocating and freeing them per step was a tenth of the search's time).
void OptimalStrategy::retire_back() {
  spare_.push_back(std::move(stack_.back()));
  stack_.pop_back();
}

// Adds the nodes of the steps taken without a choice (one enabled transition).
void OptimalStrategy::extend(const History& history, std::size_t upto) {
  while (stack_.size() < upto && blocked_step_ == kNone && error_.empty()) {
    std::size_t s = stack_.size();
    push_node(history.enabled_at(s), s, history);
    if (blocked_step_ == kNone && error_.empty() && stack_.back().wut.front().t != history.chosen[s])
      nondeterministic(s);
  }
}

}  // namespace optimal

std::unique_ptr<Strategy> make_optimal_strategy(Equivalence equivalence, bool tso, bool check_units) {
  auto s = std::make_unique<optimal::OptimalStrategy>(equivalence, tso);
  s->check_units(check_units);
  return s;
}

}  // namespace atomcheck
