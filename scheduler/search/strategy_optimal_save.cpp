// Optimal DPOR (strategy_optimal.cpp), its state as words (strategy_words.hpp): the
// checkpoint of a one-job search between executions (save, save_begun, load) and a unit
// sent to or back from another process (save_unit, load_unit), with the encoding of the
// path's nodes and their wakeup trees. Apart because no step of a search runs it: only
// saving, resuming and sending a search in pieces do.
#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "scheduler/search/strategy.hpp"
#include "scheduler/search/strategy_optimal_internal.hpp"
#include "scheduler/search/strategy_words.hpp"

namespace atomcheck::optimal {

// ---- checkpoints --------------------------------------------------------------------
// Between executions of a one-job search the state is the path's nodes (enabled set,
// sleep set, wakeup tree each) and three tallies; the rest is scratch that analyse()
// rebuilds from the next execution's history. Layout: started, spins, blocked, node
// count, then per node: enabled (count, transitions), sleep (likewise), wakeup tree
// (count of roots, then each subtree in preorder: transition, count of children).
// A transition is two words (strategy_words.hpp). Carved units are not saved: carving
// leaves the branch in its wakeup tree, so the resumed search explores it itself.
// `started` 0 with nodes is save_begun()'s: begin_execution() has popped the last
// execution's branch already, and the next execution follows the path as it is.
bool OptimalStrategy::save(std::vector<std::uint64_t>& out) const { return save_words(out, started_); }

bool OptimalStrategy::save_begun(std::vector<std::uint64_t>& out) const {
  return started_ && !stack_.empty() && save_words(out, false);
}

// Decodes with every count checked against the words left; what the nodes say is
// checked by the search itself, which compares each replayed step with the node's
// enabled set and stops with an error on a mismatch (as for a nondeterministic program).
bool OptimalStrategy::load(std::span<const std::uint64_t> in) {
  detail::WordReader r{in};
  std::uint64_t started = 0, spins = 0, blocked = 0;
  if (!r.word(started) || !r.word(spins) || !r.word(blocked) || started > 1 || spins > 1) return false;
  std::vector<Node> stack;
  if (!read_nodes(r, stack) || r.left() != 0) return false;
  // Begun (save_begun): the next execution replays every node's first branch.
  if (started == 0 && std::any_of(stack.begin(), stack.end(), [](const Node& n) { return n.wut.empty(); }))
    return false;
  started_ = started != 0;
  spins_ = spins != 0;
  blocked_ = blocked;
  stack_ = std::move(stack);
  ++shape_;
  return true;
}

// A unit for another process (atomcheck-mpi): a form word, then the save() words and
// what makes it a unit (its root, prefix, sleep sets and branch), what it recorded for
// the search (outside_*) and its error. A unit whose branch is done travels back as its
// result alone (form 1: root, tallies, outside_*, error): join_unit() reads nothing
// else, and the copy it is loaded into, the one carved and sent, has the rest. Carved
// units of its own are not carried: a unit carves none but through carve_from_unit(),
// which the search makes on the copy it loads.
bool OptimalStrategy::save_unit(std::vector<std::uint64_t>& out) const {
  if (unit_root_ == kNone || !carved_.empty()) return false;
  if (unit_done_) {
    out.insert(out.end(), {1u, unit_root_, spins_ ? 1u : 0u, blocked_});
  } else {
    out.insert(out.end(), {0u, tso_ ? 1u : 0u, issue_order_ ? 1u : 0u, unit_root_, started_ ? 1u : 0u,
                           spins_ ? 1u : 0u, blocked_});
    push_nodes(out, stack_);
    detail::push_transitions(out, unit_.prefix);
    detail::push_transitions(out, unit_.sleep);
    out.push_back(unit_.above_sleep.size());
    for (const auto& s : unit_.above_sleep) detail::push_transitions(out, s);
    push_tree(out, unit_.branch);
  }
  out.push_back(outside_at_.size());
  for (std::size_t o = 0; o < outside_at_.size(); ++o) out.insert(out.end(), {outside_at_[o], outside_begin_[o]});
  detail::push_transitions(out, outside_);
  detail::push_string(out, error_);
  return true;
}

bool OptimalStrategy::load_unit(std::span<const std::uint64_t> in) {
  detail::WordReader r{in};
  std::uint64_t form = 0, tso = 0, issue = 0, root = 0, started = 0, spins = 0, blocked = 0, above = 0, outs = 0;
  if (!r.word(form) || form > 1) return false;
  const bool done = form == 1;
  std::vector<Node> stack;
  decltype(unit_) unit;
  if (done) {  // onto the copy this unit was carved as
    if (!r.word(root) || !r.word(spins) || !r.word(blocked) || spins > 1 || unit_root_ == kNone || root != unit_root_)
      return false;
  } else {
    if (!r.word(tso) || !r.word(issue) || !r.word(root) || !r.word(started) || !r.word(spins) || !r.word(blocked) ||
        tso > 1 || issue > 1 || started > 1 || spins > 1 || root > 100000)
      return false;
    if (!read_nodes(r, stack) || !r.transitions(unit.prefix) || !r.transitions(unit.sleep) || !r.word(above) ||
        above != root || unit.prefix.size() != root)
      return false;
    unit.above_sleep.resize(above);
    for (auto& s : unit.above_sleep)
      if (!r.transitions(s)) return false;
    if (!read_tree(r, unit.branch, 0)) return false;
  }
  if (!r.word(outs) || outs > r.left() / 2) return false;
  std::vector<std::uint32_t> at(outs), begin(outs);
  for (std::size_t o = 0; o < outs; ++o) {
    std::uint64_t a = 0, b = 0;
    if (!r.word(a) || !r.word(b) || a > root) return false;
    at[o] = static_cast<std::uint32_t>(a);
    begin[o] = static_cast<std::uint32_t>(b);
  }
  std::vector<Transition> outside;
  std::string error;
  if (!r.transitions(outside) || !r.text(error) || r.left() != 0) return false;
  for (std::size_t o = 0; o < outs; ++o)
    if (begin[o] > outside.size() || (o > 0 && begin[o] < begin[o - 1])) return false;
  if (!done) {
    tso_ = tso != 0;
    issue_order_ = issue != 0;
    unit_root_ = root;
    started_ = started != 0;
    stack_ = std::move(stack);
    unit_ = std::move(unit);
    ++shape_;
  }
  unit_done_ = done;
  spins_ = spins != 0;
  blocked_ = blocked;
  outside_at_ = std::move(at);
  outside_begin_ = std::move(begin);
  outside_ = std::move(outside);
  error_ = std::move(error);
  return true;
}

bool OptimalStrategy::save_words(std::vector<std::uint64_t>& out, bool started) const {
  // A unit's nodes above its root are placeholders: no search's state.
  if (unit_root_ != kNone || !error_.empty()) return false;
  out.insert(out.end(), {started ? 1u : 0u, spins_ ? 1u : 0u, blocked_});
  push_nodes(out, stack_);
  return true;
}

// Node count, then per node: enabled (count, transitions), sleep (likewise), wakeup
// tree (count of roots, then each subtree in preorder: transition, count of children).
void OptimalStrategy::push_nodes(std::vector<std::uint64_t>& out, const std::vector<Node>& nodes) {
  out.push_back(nodes.size());
  for (const Node& n : nodes) {
    detail::push_transitions(out, n.enabled);
    detail::push_transitions(out, n.sleep);
    out.push_back(n.wut.size());
    for (const WNode& w : n.wut) push_tree(out, w);
  }
}

bool OptimalStrategy::read_nodes(detail::WordReader& r, std::vector<Node>& stack) {
  std::uint64_t nodes = 0;
  if (!r.word(nodes) || nodes > r.left()) return false;
  for (std::uint64_t i = 0; i < nodes; ++i) {
    Node n;
    if (!r.transitions(n.enabled) || n.enabled.empty() || !r.transitions(n.sleep)) return false;
    std::uint64_t roots = 0;
    if (!r.word(roots) || roots > r.left()) return false;
    n.wut.resize(roots);
    for (WNode& w : n.wut)
      if (!read_tree(r, w, 0)) return false;
    stack.push_back(std::move(n));
  }
  return true;
}

void OptimalStrategy::push_tree(std::vector<std::uint64_t>& out, const WNode& w) {
  detail::push_transition(out, w.t);
  out.push_back(w.kids.size());
  for (const WNode& k : w.kids) push_tree(out, k);
}

// Depth-capped: a tree is a path of the search, never deeper than an execution's
// steps, and a forged one must not exhaust the stack.
bool OptimalStrategy::read_tree(detail::WordReader& r, WNode& w, std::size_t depth) {
  std::uint64_t kids = 0;
  if (depth > 100000 || !r.transition(w.t) || !r.word(kids) || kids > r.left() / 3) return false;
  w.kids.resize(kids);
  for (WNode& k : w.kids)
    if (!read_tree(r, k, depth + 1)) return false;
  return true;
}

}  // namespace atomcheck::optimal
