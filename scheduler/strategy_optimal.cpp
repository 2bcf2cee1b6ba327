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
// yield() spin loops are outside the model: their wake-ups are not transitions, so the
// races that would wake a spinner are invisible; when that makes a replayed prefix
// diverge, the search stops with an error naming dpor or dfs instead.
// Threads still blocked on a lock at the end of an execution (deadlock) and the untaken
// operations of an execution cut short by a failure race as if they came last.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "scheduler/strategy.hpp"

namespace atomcheck {

namespace {

using Proc = std::uint32_t;

Proc proc_of(const Transition& t) { return dpor_process(t); }

// A sequence of transitions still to explore below a node.
struct WNode {
  Transition t;
  std::vector<WNode> kids;
};

class OptimalStrategy final : public Strategy {
 public:
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
      if (!n.wut.empty()) return true;
      stack_.pop_back();
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
      if (stack_.size() > len) stack_.resize(len);
    }
    analyse(history, len, blocked_step_ == kNone);
  }

  std::string error() const override { return error_; }
  std::uint64_t sleep_blocked() const override { return blocked_; }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  struct Node {
    std::vector<Transition> enabled;
    std::vector<Transition> sleep;
    std::vector<WNode> wut;  // front(): the child being explored
  };

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
    if (!in_sleep(n, t)) n.sleep.push_back(t);
  }

  // Creates the node of `step` (stack_.size() == step): its sleep set from the parent's,
  // its wakeup tree from the parent's explored child, or else the first enabled
  // transition not asleep.
  void push_node(std::span<const Transition> enabled, std::size_t step, const History& history) {
    Node n;
    n.enabled.assign(enabled.begin(), enabled.end());
    if (step > 0) {
      Node& prev = stack_[step - 1];
      const Transition& taken = history.chosen[step - 1];
      for (const Transition& s : prev.sleep)
        if (!dependent(s, taken)) n.sleep.push_back(s);
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
    stack_.push_back(std::move(n));
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
  void races_with(const History& h, std::size_t jpos, const Transition& b, const std::uint64_t* p) {
    covered_.assign(words_, 0);
    add_edge_sources(h, jpos, b, covered_);
    for (std::size_t i = jpos; i-- > 0;) {
      bool in_p = (p[i / 64] >> (i % 64)) & 1u;
      if (!in_p) continue;
      bool cov = (covered_[i / 64] >> (i % 64)) & 1u;
      const Transition& a = h.chosen[i];
      if (!cov && proc_of(a) != proc_of(b) && dependent(a, b) && reversible(h, i, b))
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
      std::size_t src = edge_src_[e];
      if (edge.to != b.thread || edge.at > jpos || src == kNone) continue;
      out[src / 64] |= std::uint64_t{1} << (src % 64);
      const std::uint64_t* ps = &pred_[src * words_];
      for (std::size_t w = 0; w < words_; ++w) out[w] |= ps[w];
    }
  }

  // Fills `out` with the steps before `jpos` happening before b (direct edges, skipping
  // the ones that do not count for races when `race` is set).
  void preds_of(const History& h, std::size_t jpos, const Transition& b, bool race,
                std::vector<std::uint64_t>& out) {
    out.assign(words_, 0);
    add_edge_sources(h, jpos, b, out);
    for (std::size_t i = jpos; i-- > 0;) {
      if ((out[i / 64] >> (i % 64)) & 1u) continue;
      const Transition& a = h.chosen[i];
      if (proc_of(a) != proc_of(b) && !dependent(a, b)) continue;
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
    // The source of each spawn/join edge: the last step of `from` before `at` (a join
    // also waits for the child's buffer to drain).
    edge_src_.assign(h.edges.size(), kNone);
    for (std::size_t e = 0; e < h.edges.size(); ++e) {
      const History::ThreadEdge& edge = h.edges[e];
      for (std::size_t i = std::min<std::size_t>(edge.at, len); i-- > 0;) {
        if (h.chosen[i].thread == edge.from && (edge.join || h.chosen[i].action != Action::flush)) {
          edge_src_[e] = i;
          break;
        }
      }
    }
    for (std::size_t j = 0; j < len; ++j) {
      const Transition& b = h.chosen[j];
      preds_of(h, j, b, false, tmp_);
      std::copy(tmp_.begin(), tmp_.end(), pred_.begin() + static_cast<std::ptrdiff_t>(j * words_));
      if (b.action == Action::acquire) preds_of(h, j, b, true, tmp_);
      races_with(h, j, b, tmp_.data());
    }
    if (!with_pending) return;
    for (const Transition& b : h.pending) {
      preds_of(h, len, b, true, tmp_);
      races_with(h, len, b, tmp_.data());
    }
  }

  // v = the steps after i (before jpos) not happening after i, then b: the start of an
  // execution that reverses the race. Inserted into node i's wakeup tree unless a
  // process asleep there could start it (then it was explored already).
  void reverse(const History& h, std::size_t i, std::size_t jpos, const Transition& b) {
    Node& n = stack_[i];
    v_.clear();
    for (std::size_t k = i + 1; k < jpos; ++k)
      if (!hb(k, i)) v_.push_back(h.chosen[k]);
    v_.push_back(b);
    for (const Transition& q : n.sleep)
      if (weak_initial(q, v_)) return;
    insert(n.wut, v_);
  }

  // Could `q` (enabled where v starts) start an execution equivalent to an extension of v?
  static bool weak_initial(const Transition& q, const std::vector<Transition>& v) {
    Proc p = proc_of(q);
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (proc_of(v[k]) == p) {
        for (std::size_t m = 0; m < k; ++m)
          if (dependent(v[m], v[k])) return false;
        return true;
      }
      if (dependent(q, v[k])) return false;
    }
    return true;
  }

  // Wakeup tree insertion: follow the first child compatible with v (its transition is
  // an initial of v, which is consumed, or independent of all of v); stop at a leaf
  // (some explored extension of it covers v); else hang the rest of v as a new branch.
  static void insert(std::vector<WNode>& root, std::vector<Transition>& v) {
    std::vector<WNode>* level = &root;
    bool top = true;
    for (;;) {
      if (v.empty()) return;
      WNode* next = nullptr;
      for (std::size_t c = top ? 1 : 0; c < level->size() && !next; ++c) {
        WNode& w = (*level)[c];
        Proc p = proc_of(w.t);
        std::size_t k = 0;
        while (k < v.size() && proc_of(v[k]) != p) ++k;
        if (k < v.size()) {
          if (!(v[k] == w.t)) continue;
          bool initial = true;
          for (std::size_t m = 0; m < k && initial; ++m) initial = !dependent(v[m], v[k]);
          if (!initial) continue;
          v.erase(v.begin() + static_cast<std::ptrdiff_t>(k));
          next = &w;
        } else {
          bool indep = true;
          for (const Transition& x : v) indep = indep && !dependent(w.t, x);
          if (indep) next = &w;
        }
      }
      if (!next) {
        std::vector<WNode>* at = level;
        for (const Transition& t : v) {
          at->push_back(WNode{t, {}});
          at = &at->back().kids;
        }
        return;
      }
      if (next->kids.empty()) return;
      level = &next->kids;
      top = false;
    }
  }

  std::vector<Node> stack_;
  std::size_t blocked_step_ = kNone;
  std::uint64_t blocked_ = 0;
  bool started_ = false;
  bool spins_ = false;  // some execution spun in yield()
  std::string error_;
  const History* hist_ = nullptr;
  std::vector<std::uint64_t> pred_;  // pred_[j]: bitset of the steps happening before step j
  std::size_t words_ = 0;
  std::vector<std::uint64_t> tmp_, covered_;
  std::vector<bool> try_ok_;
  std::vector<std::size_t> edge_src_;
  std::vector<ThreadId> owner_;
  std::vector<Transition> v_;
};

}  // namespace

std::unique_ptr<Strategy> make_optimal_strategy() { return std::make_unique<OptimalStrategy>(); }

}  // namespace atomcheck
