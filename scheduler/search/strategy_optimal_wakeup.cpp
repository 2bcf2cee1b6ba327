// Optimal DPOR (strategy_optimal.cpp), the wakeup trees: whether a sleeping transition
// could start a sequence (weak_initial, the test that skips a reversal explored already),
// insertion of a reversal's sequence into a node's tree, and the fingerprint and
// comparison of subtrees that tell whether a carved unit's branch changed. Apart because
// they are the data structure of Algorithm 2, independent of how races are found.
#include <cstdint>
#include <span>
#include <vector>

#include "scheduler/search/splitmix.hpp"
#include "scheduler/search/strategy.hpp"
#include "scheduler/search/strategy_optimal_internal.hpp"

namespace atomcheck::optimal {

// Could `q` (enabled where v starts) start an execution equivalent to an extension of v?
bool OptimalStrategy::weak_initial(const Transition& q, std::span<const Transition> v) const {
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
std::size_t OptimalStrategy::insert(std::vector<WNode>& root, std::vector<Transition>& v) const {
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
std::uint64_t OptimalStrategy::tree_hash(const WNode& w) {
  const auto mix = detail::splitmix64_mix;
  std::uint64_t h = mix((std::uint64_t{w.t.thread} << 40) ^ (std::uint64_t(w.t.action) << 33) ^
                        (std::uint64_t{w.t.drains} << 32) ^ w.t.target);
  h = mix(h ^ w.kids.size());
  for (const WNode& k : w.kids) h = mix(h * 31 + tree_hash(k));
  return h;
}

bool OptimalStrategy::same_tree(const WNode& a, const WNode& b) {
  if (!(a.t == b.t) || a.kids.size() != b.kids.size()) return false;
  for (std::size_t i = 0; i < a.kids.size(); ++i)
    if (!same_tree(a.kids[i], b.kids[i])) return false;
  return true;
}

}  // namespace atomcheck::optimal
