// Source-DPOR with sleep sets (Abdulla, Aronis, Jonsson, Sagonas, POPL 2014), stateless
// like DFS: one node per step of the current execution holds the enabled transitions,
// the sleep set, the backtrack set and the process taken. Processes are program threads
// and, under TSO, one extra process per store buffer (its flushes). Races are found at
// the end of each execution over the whole (or sleep-blocked) prefix.
//
// The history shows only announced operations, not spawn/join/yield: happens-before here
// is program order plus dependency, a subset of the true relation. That only adds races;
// restricting the initials of a reversal to processes enabled at the race's state makes
// them exactly the true initials (a spawn/join edge into a process's next event always
// starts before that state), so no class is lost.
#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/core.h>

#include "scheduler/search/strategy.hpp"
#include "scheduler/search/strategy_words.hpp"

namespace atomcheck {

namespace {

using Proc = std::uint32_t;

Proc proc_of(const Transition& t) { return dpor_process(t); }

// dependent() with one refinement for locks: a release commutes with a blocking acquire of
// the same lock in every feasible order (the acquire cannot move before it), so races are
// taken between acquisitions, which is what reverses the acquisition order.
bool dpor_dependent(const Transition& a, const Transition& b) {
  if (a.thread == b.thread) return true;
  if (is_lock_action(a.action) && is_lock_action(b.action) && a.target == b.target) {
    if (a.action == Action::release && b.action == Action::acquire) return false;
    if (b.action == Action::release && a.action == Action::acquire) return false;
    if (a.action == Action::release && b.action == Action::release) return false;
    return true;
  }
  return dependent(a, b);
}

bool same_proc_or_dep(const Transition& a, const Transition& b) {
  return proc_of(a) == proc_of(b) || dpor_dependent(a, b);
}

class DporStrategy final : public Strategy {
 public:
  bool begin_execution() override {
    blocked_step_ = kNone;
    if (!started_) {
      started_ = true;
      return true;
    }
    while (!stack_.empty()) {
      Node& n = stack_.back();
      // The process just explored from this node joins its sleep set.
      if (n.chosen_index < n.enabled.size()) add_sleep(n, n.enabled[n.chosen_index]);
      n.chosen_index = kNoPick;
      for (std::size_t k = 0; k < n.enabled.size(); ++k) {
        const Transition& t = n.enabled[k];
        if (contains(n.backtrack, proc_of(t)) && !in_sleep(n, t)) {
          n.chosen_index = static_cast<std::uint32_t>(k);
          break;
        }
      }
      if (n.chosen_index != kNoPick) return true;
      stack_.pop_back();
    }
    return false;
  }

  std::size_t choose(std::span<const Transition> enabled, const History& history) override {
    std::size_t step = history.steps();
    if (step < stack_.size()) {
      Node& n = stack_[step];
      if (n.chosen_index == kNoPick || n.enabled.size() != enabled.size() ||
          !std::equal(enabled.begin(), enabled.end(), n.enabled.begin())) {
        error_ = fmt::format(
            "the program is not deterministic: step {} had different enabled transitions than "
            "before (does some state outlive an execution?)",
            step);
        return 0;
      }
      return n.chosen_index;
    }
    if (blocked_step_ != kNone) return 0;
    extend(history, step);
    if (blocked_step_ != kNone) return 0;
    Node& n = push_node(enabled, step, history);
    if (blocked_step_ != kNone) return 0;
    return n.chosen_index;
  }

  void end_execution(const History& history) override {
    if (!error_.empty()) return;
    if (blocked_step_ == kNone) extend(history, history.steps());
    std::size_t len = blocked_step_ == kNone ? history.steps() : blocked_step_;
    if (blocked_step_ != kNone) {
      ++blocked_;
      // Nodes beyond the blocking point were never explored from; drop them.
      if (stack_.size() > len + 1) stack_.resize(len + 1);
      if (stack_.size() == len + 1) stack_.back().chosen_index = kNoPick;
    }
    analyse(history, len);
  }

  std::string error() const override { return error_; }
  std::uint64_t sleep_blocked() const override { return blocked_; }

  // Between executions the path's nodes and two tallies are the state (pred_ and the
  // rest are rebuilt by analyse()). Layout: started, blocked, node count, then per node:
  // enabled, sleep (count, transitions: strategy_words.hpp), backtrack (count,
  // processes), the index taken.
  bool save(std::vector<std::uint64_t>& out) const override {
    if (!error_.empty()) return false;
    out.insert(out.end(), {started_ ? 1u : 0u, blocked_, stack_.size()});
    for (const Node& n : stack_) {
      detail::push_transitions(out, n.enabled);
      detail::push_transitions(out, n.sleep);
      out.push_back(n.backtrack.size());
      out.insert(out.end(), n.backtrack.begin(), n.backtrack.end());
      out.push_back(n.chosen_index);
    }
    return true;
  }
  // Counts and indices are checked here; the transitions by the search, which compares
  // each replayed step with its node and stops with an error on a mismatch.
  bool load(std::span<const std::uint64_t> in) override {
    detail::WordReader r{in};
    std::uint64_t started = 0, blocked = 0, nodes = 0;
    if (!r.word(started) || !r.word(blocked) || !r.word(nodes) || started > 1) return false;
    std::vector<Node> stack;
    for (std::uint64_t i = 0; i < nodes; ++i) {
      Node n;
      std::uint64_t procs = 0, chosen = 0;
      if (!r.transitions(n.enabled) || n.enabled.empty() || !r.transitions(n.sleep)) return false;
      if (!r.word(procs) || procs > r.left()) return false;
      for (std::uint64_t k = 0; k < procs; ++k) {
        std::uint64_t p = 0;
        if (!r.word(p) || p > std::numeric_limits<Proc>::max()) return false;
        n.backtrack.push_back(static_cast<Proc>(p));
      }
      if (!r.word(chosen) || (chosen != kNoPick && chosen >= n.enabled.size())) return false;
      n.chosen_index = static_cast<std::uint32_t>(chosen);
      stack.push_back(std::move(n));
    }
    if (r.left() != 0 || (started == 0 && nodes != 0)) return false;
    started_ = started != 0;
    blocked_ = blocked;
    stack_ = std::move(stack);
    return true;
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static constexpr std::uint32_t kNoPick = static_cast<std::uint32_t>(-1);

  struct Node {
    std::vector<Transition> enabled;
    std::vector<Transition> sleep;
    std::vector<Proc> backtrack;
    std::uint32_t chosen_index = kNoPick;
  };

  static bool contains(const std::vector<Proc>& v, Proc p) {
    return std::find(v.begin(), v.end(), p) != v.end();
  }
  static bool in_sleep(const Node& n, const Transition& t) {
    return std::find(n.sleep.begin(), n.sleep.end(), t) != n.sleep.end();
  }
  static void add_sleep(Node& n, const Transition& t) {
    if (!in_sleep(n, t)) n.sleep.push_back(t);
  }

  // Creates the node of `step` (stack_.size() == step) and picks its first transition.
  Node& push_node(std::span<const Transition> enabled, std::size_t step, const History& history) {
    Node n;
    n.enabled.assign(enabled.begin(), enabled.end());
    if (step > 0) {
      const Node& prev = stack_[step - 1];
      const Transition& taken = history.chosen[step - 1];
      for (const Transition& s : prev.sleep)
        if (!dpor_dependent(s, taken)) n.sleep.push_back(s);
    }
    for (std::size_t k = 0; k < n.enabled.size(); ++k) {
      if (!in_sleep(n, n.enabled[k])) {
        n.chosen_index = static_cast<std::uint32_t>(k);
        n.backtrack.push_back(proc_of(n.enabled[k]));
        break;
      }
    }
    stack_.push_back(std::move(n));
    if (stack_.back().chosen_index == kNoPick) blocked_step_ = step;
    return stack_.back();
  }

  // Adds the nodes of the steps taken without a choice (one enabled transition).
  void extend(const History& history, std::size_t upto) {
    while (stack_.size() < upto && blocked_step_ == kNone) {
      std::size_t s = stack_.size();
      push_node(history.enabled_at(s), s, history);
    }
  }

  bool hb(std::size_t later, std::size_t earlier) const {
    return (pred_[later * words_ + earlier / 64] >> (earlier % 64)) & 1u;
  }

  // Source-DPOR race analysis of the execution's first `len` steps.
  void analyse(const History& h, std::size_t len) {
    words_ = (len + 63) / 64;
    pred_.assign(len * words_, 0);
    // An acquisition races with acquisitions that never happen in this execution because
    // they stayed blocked (deadlock, or a holder blocked in spin_until), and the history
    // cannot show those: so every thread enabled where a lock is taken (or try_lock'ed) is
    // a backtrack point there. Sound, not optimal; sleep sets still keep the explored
    // complete executions pairwise inequivalent.
    for (std::size_t i = 0; i < len; ++i) {
      if (h.chosen[i].action != Action::acquire && h.chosen[i].action != Action::try_acquire)
        continue;
      Node& n = stack_[i];
      for (const Transition& t : n.enabled)
        if (t.action != Action::flush && !contains(n.backtrack, proc_of(t)))
          n.backtrack.push_back(proc_of(t));
    }
    for (std::size_t j = 0; j < len; ++j) {
      const Transition& ej = h.chosen[j];
      std::uint64_t* pj = &pred_[j * words_];
      for (std::size_t i = j; i-- > 0;) {
        if (hb(j, i) || !same_proc_or_dep(h.chosen[i], ej)) continue;
        pj[i / 64] |= std::uint64_t{1} << (i % 64);
        const std::uint64_t* pi = &pred_[i * words_];
        for (std::size_t w = 0; w < words_; ++w) pj[w] |= pi[w];
      }
      // Races: dependent events of other processes whose only path to j is the direct one.
      for (std::size_t i = 0; i < j; ++i) {
        const Transition& ei = h.chosen[i];
        if (proc_of(ei) == proc_of(ej) || !dpor_dependent(ei, ej)) continue;
        bool via_other = false;
        for (std::size_t k = i + 1; k < j && !via_other; ++k) via_other = hb(j, k) && hb(k, i);
        if (!via_other) reverse(h, i, j);
      }
    }
  }

  void reverse(const History& h, std::size_t i, std::size_t j) {
    Node& n = stack_[i];
    // v = the events after i not happening after it, then j; its initials, among the
    // processes enabled at node i.
    v_.clear();
    for (std::size_t k = i + 1; k < j; ++k)
      if (!hb(k, i)) v_.push_back(k);
    v_.push_back(j);
    seen_.clear();
    candidates_.clear();
    for (std::size_t a = 0; a < v_.size(); ++a) {
      std::size_t k = v_[a];
      Proc p = proc_of(h.chosen[k]);
      if (contains(seen_, p)) continue;
      seen_.push_back(p);
      bool has_pred = false;
      for (std::size_t b = 0; b < a && !has_pred; ++b) has_pred = hb(k, v_[b]);
      if (has_pred) continue;
      for (const Transition& t : n.enabled)
        if (proc_of(t) == p) candidates_.push_back(t);
    }
    if (candidates_.empty()) return;  // not a true race (a spawn/join edge orders it)
    for (const Transition& t : candidates_)
      if (contains(n.backtrack, proc_of(t))) return;
    const Transition* pick = &candidates_.front();
    for (const Transition& t : candidates_) {
      if (!in_sleep(n, t)) {
        pick = &t;
        break;
      }
    }
    n.backtrack.push_back(proc_of(*pick));
  }

  std::vector<Node> stack_;
  std::size_t blocked_step_ = kNone;
  std::uint64_t blocked_ = 0;
  bool started_ = false;
  std::string error_;
  std::vector<std::uint64_t> pred_;  // pred_[j]: bitset of the steps happening before step j
  std::size_t words_ = 0;
  std::vector<std::size_t> v_;
  std::vector<Proc> seen_;
  std::vector<Transition> candidates_;
};

}  // namespace

std::unique_ptr<Strategy> make_dpor_strategy() { return std::make_unique<DporStrategy>(); }

}  // namespace atomcheck
