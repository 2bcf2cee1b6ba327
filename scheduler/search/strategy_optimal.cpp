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
#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "scheduler/search/strategy.hpp"
#include "scheduler/search/splitmix.hpp"
#include "scheduler/search/strategy_words.hpp"

namespace atomcheck {

namespace {

using Proc = std::uint32_t;

Proc proc_of(const Transition& t) { return dpor_process(t); }

// A sequence of transitions still to explore below a node.
struct WNode {
  Transition t;
  std::vector<WNode> kids;
};

// Cache-line aligned and padded: a unit's strategy is made on the search's thread and
// then written by the unit's at every step (see Units in explore_units.cpp).
class alignas(64) OptimalStrategy final : public Strategy {
 public:
  // step_order under TSO is the plain Mazurkiewicz relation over dependent() (tso_ off).
  OptimalStrategy(Equivalence eq, bool tso)
      : tso_(tso && eq != Equivalence::step_order), issue_order_(eq != Equivalence::rf_co) {}

  bool begin_execution() override {
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

  std::size_t choose(std::span<const Transition> enabled, const History& history) override {
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

  void end_execution(const History& history) override {
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

  std::string error() const override { return error_; }
  std::uint64_t sleep_blocked() const override { return blocked_; }

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
  bool save(std::vector<std::uint64_t>& out) const override { return save_words(out, started_); }
  bool save_begun(std::vector<std::uint64_t>& out) const override {
    return started_ && !stack_.empty() && save_words(out, false);
  }
  // Decodes with every count checked against the words left; what the nodes say is
  // checked by the search itself, which compares each replayed step with the node's
  // enabled set and stops with an error on a mismatch (as for a nondeterministic program).
  bool load(std::span<const std::uint64_t> in) override {
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
  bool save_unit(std::vector<std::uint64_t>& out) const override {
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
  bool load_unit(std::span<const std::uint64_t> in) override {
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
  std::unique_ptr<Strategy> carve_unit() override {
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
  void changed_units(std::vector<std::size_t>& out) override {
    if (!changes_) return;
    changes_ = false;
    for (std::size_t i = 0; i < carved_.size(); ++i)
      if (carved_[i].changed && !carved_[i].reported) {
        carved_[i].reported = true;
        out.push_back(i);
      }
  }
  int unit_reached() const override {
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
  void check_units(bool on) { check_units_ = on; }
  std::unique_ptr<Strategy> carve_from_unit(Strategy& unit) override {
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
  void continue_unit(int which, Strategy& unit, bool own_memory) override {
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
  void join_unit(int which, Strategy* unit) override {
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

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  // What a step did to memory, from compute_facts (under SC: its variable and kind).
  struct Fact {
    std::uint32_t var = kNoId;
    bool mem_read = false;   // read memory (a read not served by the buffer, an rmw)
    bool mem_write = false;  // wrote memory (a flush, an rmw, a seq_cst store; any SC store)
    bool local = false;      // a read served by its own buffer
    std::size_t issue_of = kNone;   // flush: the step that issued the entry it commits
    std::size_t src_flush = kNone;  // local read: the flush of the write it read, if any
  };

  struct Node {
    std::vector<Transition> enabled;
    std::vector<Transition> sleep;
    std::vector<WNode> wut;  // front(): the child being explored
  };

  bool save_words(std::vector<std::uint64_t>& out, bool started) const {
    // A unit's nodes above its root are placeholders: no search's state.
    if (unit_root_ != kNone || !error_.empty()) return false;
    out.insert(out.end(), {started ? 1u : 0u, spins_ ? 1u : 0u, blocked_});
    push_nodes(out, stack_);
    return true;
  }
  // Node count, then per node: enabled (count, transitions), sleep (likewise), wakeup
  // tree (count of roots, then each subtree in preorder: transition, count of children).
  static void push_nodes(std::vector<std::uint64_t>& out, const std::vector<Node>& nodes) {
    out.push_back(nodes.size());
    for (const Node& n : nodes) {
      detail::push_transitions(out, n.enabled);
      detail::push_transitions(out, n.sleep);
      out.push_back(n.wut.size());
      for (const WNode& w : n.wut) push_tree(out, w);
    }
  }
  static bool read_nodes(detail::WordReader& r, std::vector<Node>& stack) {
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
  static void push_tree(std::vector<std::uint64_t>& out, const WNode& w) {
    detail::push_transition(out, w.t);
    out.push_back(w.kids.size());
    for (const WNode& k : w.kids) push_tree(out, k);
  }
  // Depth-capped: a tree is a path of the search, never deeper than an execution's
  // steps, and a forged one must not exhaust the stack.
  static bool read_tree(detail::WordReader& r, WNode& w, std::size_t depth) {
    std::uint64_t kids = 0;
    if (depth > 100000 || !r.transition(w.t) || !r.word(kids) || kids > r.left() / 3) return false;
    w.kids.resize(kids);
    for (WNode& k : w.kids)
      if (!read_tree(r, k, depth + 1)) return false;
    return true;
  }

  std::size_t nondeterministic(std::size_t step) {
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

  std::size_t index_of(std::span<const Transition> enabled, const Transition& t, std::size_t step) {
    for (std::size_t k = 0; k < enabled.size(); ++k)
      if (enabled[k] == t) return k;
    return nondeterministic(step);
  }

  static bool in_sleep(const Node& n, const Transition& t) {
    return std::find(n.sleep.begin(), n.sleep.end(), t) != n.sleep.end();
  }
  static void add_sleep(Node& n, const Transition& t) {
    if (!in_sleep(n, t)) n.sleep.push_back(relabel(t, n.enabled));
  }
  // `t` with the label it has among `enabled` (the state's own view of it).
  static Transition relabel(const Transition& t, std::span<const Transition> enabled) {
    for (const Transition& e : enabled)
      if (e == t) return e;
    return t;
  }

  // ---- dependence of labelled transitions (sleep sets, wakeup trees) ----------------

  static bool reads_memory(const Transition& t) {
    return (t.action == Action::read && !t.local) || t.action == Action::rmw;
  }
  bool writes_memory(const Transition& t) const {
    return t.action == Action::flush || t.action == Action::rmw ||
           (t.action == Action::write && (t.drains || !tso_));
  }
  static bool in_tau(Action a) {
    return a == Action::read || a == Action::write || a == Action::rmw;
  }
  // Might a, followed (at once or later in a sequence) by b, not commute with it?
  bool label_dependent(const Transition& a, const Transition& b) const {
    if (!tso_) return dependent(a, b);
    if (proc_of(a) == proc_of(b)) return true;
    if (a.thread == b.thread) {
      // A thread's step and its own buffer's flush commute unless the step waits for the
      // empty buffer, or the step is the store that the later flush commits.
      const Transition& s = a.action == Action::flush ? b : a;
      return s.drains || (a.action == Action::write && b.action == Action::flush && a.seq == b.seq);
    }
    if (is_lock_action(a.action) && is_lock_action(b.action)) return a.target == b.target;
    if (a.action == Action::fence || b.action == Action::fence) return false;
    if (is_lock_action(a.action) || is_lock_action(b.action) || a.target != b.target) return false;
    if ((writes_memory(a) && (reads_memory(b) || writes_memory(b))) ||
        (writes_memory(b) && reads_memory(a)))
      return true;
    return issue_order_ && in_tau(a.action) && in_tau(b.action) &&
           (a.action != Action::read || b.action != Action::read);
  }
  // q moved past x: a read served by its buffer becomes a memory read once its own
  // buffer flushes that variable (conservatively: any flush of it).
  static void pass(Transition& q, const Transition& x) {
    if (q.local && x.action == Action::flush && x.thread == q.thread && x.target == q.target)
      q.local = false;
  }
  // Can q (enabled where v starts, of no process in v) move past all of v?
  bool independent_of_all(const Transition& q, std::span<const Transition> v) const {
    Transition cur = q;
    for (const Transition& x : v) {
      if (label_dependent(cur, x)) return false;
      pass(cur, x);
    }
    return true;
  }

  // Creates the node of `step` (stack_.size() == step): its sleep set from the parent's,
  // its wakeup tree from the parent's explored child, or else the first enabled
  // transition not asleep.
  void push_node(std::span<const Transition> enabled, std::size_t step, const History& history) {
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
  void retire_back() {
    spare_.push_back(std::move(stack_.back()));
    stack_.pop_back();
  }

  // Adds the nodes of the steps taken without a choice (one enabled transition).
  void extend(const History& history, std::size_t upto) {
    while (stack_.size() < upto && blocked_step_ == kNone && error_.empty()) {
      std::size_t s = stack_.size();
      push_node(history.enabled_at(s), s, history);
      if (blocked_step_ == kNone && error_.empty() && stack_.back().wut.front().t != history.chosen[s])
        nondeterministic(s);
    }
  }

  bool hb(std::size_t later, std::size_t earlier) const {
    return (pred_[later * words_ + earlier / 64] >> (earlier % 64)) & 1u;
  }

  // Can `b` (of another process, coming after step i) be reversed with step i?
  bool reversible(const History& h, std::size_t i, const Transition& b) const {
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
  bool waits_for(std::size_t k, const Transition& b) const {
    const Transition& a = hist_->chosen[k];
    return b.action == Action::acquire && a.thread != b.thread && a.target == b.target &&
           (a.action == Action::release || (a.action == Action::try_acquire && !try_ok_[k]));
  }

  // Sweeps the steps before position `jpos` (a step, or len for a pending transition)
  // that race with `b`, given `p` = the steps happening before b for race purposes.
  // Steps ordered before b by a spawn or join edge never race with it.
  void races_with(const History& h, std::size_t jpos, const Transition& b, const Fact& fb,
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
  void add_edge_sources(const History& h, std::size_t jpos, const Transition& b,
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
  void preds_of(const History& h, std::size_t jpos, const Transition& b, const Fact& fb, bool race,
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

  void analyse(const History& h, std::size_t len, bool with_pending) {
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
  void compute_facts(const History& h, std::size_t len) {
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

  Fact basic_fact(const Transition& t) const {
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
  Fact pending_fact(const Transition& t) const {
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
  bool edge(std::size_t i, const Transition& a, const Transition& b, const Fact& fb, std::size_t jpos) const {
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
  bool cross_edge(std::size_t i, const Transition& a, const Transition& b, const Fact& fb,
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
  bool race_edge(std::size_t i, const Transition& a, const Transition& b, const Fact& fb,
                 std::size_t jpos) const {
    if (!tso_) return dependent(a, b);
    return a.thread != b.thread && cross_edge(i, a, b, fb, jpos);
  }

  // v = the steps after i (before jpos) not happening after i, then b: the start of an
  // execution that reverses the race. Inserted into node i's wakeup tree unless a
  // process asleep there could start it (then it was explored already).
  void reverse(const History& h, std::size_t i, std::size_t jpos, const Transition& b) {
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
  void place(std::size_t i, std::vector<Transition>& v) {
    for (const Transition& q : stack_[i].sleep)
      if (weak_initial(q, v)) return;
    const std::size_t before = stack_[i].wut.size();
    note_change(i, insert(stack_[i].wut, v));
    if (stack_[i].wut.size() != before) ++shape_;
  }
  // insert() at node i changed the subtree of its pending branch `branch` (kNone: none):
  // a unit carved from that branch can no longer be taken (unit_reached() says so), so
  // its thread had better stop now than run to the end (changed_units()).
  void note_change(std::size_t i, std::size_t branch) {
    if (branch == kNone || carved_.empty()) return;
    for (Carved& c : carved_)
      if (c.node == i && !c.changed && c.t == stack_[i].wut[branch].t) {
        c.changed = true;
        changes_ = true;
      }
  }

  static bool in_list(const std::vector<Transition>& l, const Transition& t) {
    return std::find(l.begin(), l.end(), t) != l.end();
  }

  // Is the read at position k (moved into the sequence v that reverses the race at step
  // i) served by its buffer where v puts it? `issue`: its thread's latest earlier store
  // of the variable. Step i and the steps after it are gone from v, and with them maybe
  // the flush that made the read a memory read in the execution; a label kept from the
  // execution would make v look dependent where it is not, and the wakeup tree would grow
  // a branch that the sleep set then blocks (tso-peterson did).
  bool local_in_v(std::size_t i, std::size_t k, std::size_t issue) const {
    if (issue == kNone) return false;
    std::size_t f = flush_of_[issue];
    if (f == kNone || f >= k) return true;
    if (f < i) return false;
    return f == i || hb(f, i);
  }
  // The latest store of a pending read's thread to its variable, if any.
  std::size_t pending_issue(const History& h, const Transition& b) const {
    for (std::size_t k = last_issue_.size(); k-- > 0;) {
      const Transition& t = h.chosen[k];
      if (t.thread == b.thread && t.action == Action::write && !t.drains && t.target == b.target) return k;
    }
    return kNone;
  }

  // Could `q` (enabled where v starts) start an execution equivalent to an extension of v?
  bool weak_initial(const Transition& q, std::span<const Transition> v) const {
    Proc p = proc_of(q);
    Transition cur = q;
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (proc_of(v[k]) == p) {
        for (std::size_t m = 0; m < k; ++m)
          if (label_dependent(v[m], v[k])) return false;
        return true;
      }
      if (label_dependent(cur, v[k])) return false;
      pass(cur, v[k]);
    }
    return true;
  }

  // Wakeup tree insertion: follow the first child compatible with v (its transition is
  // an initial of v, which is consumed, or independent of all of v); stop at a leaf
  // (some explored extension of it covers v); else hang the rest of v as a new branch.
  // Returns the root's child whose subtree gained the branch (kNone: none did).
  std::size_t insert(std::vector<WNode>& root, std::vector<Transition>& v) const {
    std::vector<WNode>* level = &root;
    bool top = true;
    std::size_t under = kNone;
    for (;;) {
      if (v.empty()) return kNone;
      WNode* next = nullptr;
      for (std::size_t c = top ? 1 : 0; c < level->size() && !next; ++c) {
        WNode& w = (*level)[c];
        Proc p = proc_of(w.t);
        std::size_t k = 0;
        while (k < v.size() && proc_of(v[k]) != p) ++k;
        if (k < v.size()) {
          if (!(v[k] == w.t)) continue;
          bool initial = true;
          for (std::size_t m = 0; m < k && initial; ++m) initial = !label_dependent(v[m], v[k]);
          if (!initial) continue;
          v.erase(v.begin() + static_cast<std::ptrdiff_t>(k));
          next = &w;
        } else {
          if (independent_of_all(w.t, v)) next = &w;
        }
        if (next && top) under = c;
      }
      if (!next) {
        std::vector<WNode>* at = level;
        for (const Transition& t : v) {
          at->push_back(WNode{t, {}});
          at = &at->back().kids;
        }
        return under;
      }
      if (next->kids.empty()) return kNone;
      level = &next->kids;
      top = false;
    }
  }

  // A fingerprint of a subtree as same_tree() compares it: the steps (by ==) and the shape.
  static std::uint64_t tree_hash(const WNode& w) {
    const auto mix = detail::splitmix64_mix;
    std::uint64_t h = mix((std::uint64_t{w.t.thread} << 40) ^ (std::uint64_t(w.t.action) << 33) ^
                          (std::uint64_t{w.t.drains} << 32) ^ w.t.target);
    h = mix(h ^ w.kids.size());
    for (const WNode& k : w.kids) h = mix(h * 31 + tree_hash(k));
    return h;
  }
  static bool same_tree(const WNode& a, const WNode& b) {
    if (!(a.t == b.t) || a.kids.size() != b.kids.size()) return false;
    for (std::size_t i = 0; i < a.kids.size(); ++i)
      if (!same_tree(a.kids[i], b.kids[i])) return false;
    return true;
  }

  std::vector<Node> stack_;
  std::vector<Node> spare_;  // retired nodes, for their capacity
  std::size_t blocked_step_ = kNone;
  std::uint64_t blocked_ = 0;
  bool started_ = false;
  bool spins_ = false;  // some execution spun in yield()
  std::string error_;
  // Units: the branches carved from this search and not yet joined (with what they were
  // when carved); in a unit, its root node, what it starts from, and the insertions it
  // found for the search's nodes (at its root and above), in the order found.
  struct Carved {
    std::size_t node;
    Transition t;           // its branch's first step (siblings' differ: insert() follows a match)
    bool changed = false;   // an insertion went into its subtree
    bool reported = false;  // changed_units() said so
    std::uint64_t hash = 0; // tree_hash() of its subtree when carved
    WNode branch;           // check_units_ only: its subtree when carved
  };
  // Whether unit_reached() judges a branch changed by comparing it with a copy taken when
  // carved (the definition) instead of by note_change()'s flag and a hash of the subtree
  // (what a search uses: copying a large subtree cost the search up to a millisecond per
  // unit, hashing it tens of microseconds). Set for the tests' units run without
  // threads, which check that the flag agrees with the copy (ParallelExploration).
  bool check_units_ = false;
  bool changes_ = false;    // some Carved::changed not yet reported
  // carve_unit() is asked for a unit whenever a thread or rank is idle, most often when
  // every pending branch is carved (readers-15 over 4 ranks: 21,988 calls for 820 units,
  // a sixth of rank 0's work beside its own executions). shape_ counts the changes that
  // may add a branch it can carve (a node's wakeup tree gains a branch, a node with
  // pending branches is pushed, a unit is joined or taken over, a state is loaded), and
  // none_at_ is its value when carve_unit() last found none: until it moves, none.
  std::uint64_t shape_ = 0;
  std::uint64_t none_at_ = ~std::uint64_t{0};
  std::vector<Carved> carved_;
  std::size_t unit_root_ = kNone;
  bool unit_done_ = false;  // begin_execution() found the unit's branch done
  struct {
    std::vector<Transition> prefix, sleep;
    std::vector<std::vector<Transition>> above_sleep;  // the sleep sets of the nodes above the root
    WNode branch;
  } unit_;
  // The insertions, flat: the node of each, its offset into outside_.
  std::vector<std::uint32_t> outside_at_, outside_begin_;
  std::vector<Transition> outside_;
  const History* hist_ = nullptr;
  std::vector<std::uint64_t> pred_;  // pred_[j]: bitset of the steps happening before step j
  std::size_t words_ = 0;
  std::vector<std::uint64_t> tmp_, covered_;
  std::vector<bool> try_ok_;
  std::vector<std::array<std::size_t, 2>> edge_src_;
  std::vector<Fact> facts_;
  std::vector<std::deque<std::pair<std::size_t, VarId>>> fifo_;  // per thread: (issue step, var)
  std::vector<std::size_t> src_issue_, flush_of_;
  std::vector<std::size_t> last_issue_;  // read: its thread's latest earlier buffered store of its variable
  // Per thread, per variable: its latest buffered store so far (flat, reused across
  // executions: no allocation per store).
  std::vector<std::vector<std::size_t>> latest_;
  bool tso_ = false;
  bool issue_order_ = true;
  std::vector<ThreadId> owner_;
  std::vector<Transition> v_;
  char pad_[64] = {};  // no neighbour shares its last cache line
};

}  // namespace

std::unique_ptr<Strategy> make_optimal_strategy(Equivalence equivalence, bool tso, bool check_units) {
  auto s = std::make_unique<OptimalStrategy>(equivalence, tso);
  s->check_units(check_units);
  return s;
}

}  // namespace atomcheck
