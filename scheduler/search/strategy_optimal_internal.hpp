// The OptimalStrategy class (optimal DPOR, strategy_optimal.cpp), internal to search/: its
// declaration, shared by the strategy_optimal*.cpp files that implement it, with the small
// predicates that sleep sets, wakeup trees and the race analysis call in their inner loops
// (kept in the class body, as they were in the one file). Nothing else includes it: the
// scheduler makes the strategy through make_optimal_strategy() (strategy.hpp).
//   strategy_optimal.cpp         the algorithm; the Strategy interface of one search
//                                (begin/choose/end) and the path's nodes
//   strategy_optimal_races.cpp   happens-before of an execution, its races, their reversals
//   strategy_optimal_wakeup.cpp  wakeup trees: insertion, weak initials, fingerprints
//   strategy_optimal_units.cpp   units of a parallel search: carving, taking over, joining
//   strategy_optimal_save.cpp    checkpoints and units as words
// A member declared `inline` below is defined in the file its group names and called from
// that file only: inline as it was when defined in the class body, so that the compiler
// inlines it into its callers as before the split (without, lastzero-12 under TSO took 8%
// more time). A call from another file is a warning, "used but never defined" (an error
// under -Werror), and an undefined symbol.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "strategy.hpp"
#include "strategy_words.hpp"

namespace atomcheck::optimal {

using Proc = std::uint32_t;

inline Proc proc_of(const Transition& t) { return dpor_process(t); }

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

  bool begin_execution() override;
  std::size_t choose(std::span<const Transition> enabled, const History& history) override;
  void end_execution(const History& history) override;

  std::string error() const override { return error_; }
  std::uint64_t sleep_blocked() const override { return blocked_; }

  // ---- checkpoints and units as words (strategy_optimal_save.cpp) --------------------
  bool save(std::vector<std::uint64_t>& out) const override;
  bool save_begun(std::vector<std::uint64_t>& out) const override;
  bool load(std::span<const std::uint64_t> in) override;
  bool save_unit(std::vector<std::uint64_t>& out) const override;
  bool load_unit(std::span<const std::uint64_t> in) override;

  // ---- units (strategy_optimal_units.cpp) ---------------------------------------------
  std::unique_ptr<Strategy> carve_unit() override;
  void changed_units(std::vector<std::size_t>& out) override;
  int unit_reached() const override;
  void check_units(bool on) { check_units_ = on; }
  std::unique_ptr<Strategy> carve_from_unit(Strategy& unit) override;
  void continue_unit(int which, Strategy& unit, bool own_memory) override;
  void join_unit(int which, Strategy* unit) override;

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

  // ---- the path's nodes (strategy_optimal.cpp) ----------------------------------------
  inline std::size_t nondeterministic(std::size_t step);
  inline std::size_t index_of(std::span<const Transition> enabled, const Transition& t, std::size_t step);
  inline void push_node(std::span<const Transition> enabled, std::size_t step, const History& history);
  inline void retire_back();
  inline void extend(const History& history, std::size_t upto);

  // ---- sleep sets ---------------------------------------------------------------------
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
  static bool in_list(const std::vector<Transition>& l, const Transition& t) {
    return std::find(l.begin(), l.end(), t) != l.end();
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

  // ---- happens-before, races and reversals (strategy_optimal_races.cpp) --------------

  bool hb(std::size_t later, std::size_t earlier) const {
    return (pred_[later * words_ + earlier / 64] >> (earlier % 64)) & 1u;
  }

  inline bool reversible(const History& h, std::size_t i, const Transition& b) const;
  inline bool waits_for(std::size_t k, const Transition& b) const;
  inline void races_with(const History& h, std::size_t jpos, const Transition& b, const Fact& fb,
                         const std::uint64_t* p);
  inline void add_edge_sources(const History& h, std::size_t jpos, const Transition& b,
                               std::vector<std::uint64_t>& out) const;
  inline void preds_of(const History& h, std::size_t jpos, const Transition& b, const Fact& fb,
                       bool race, std::vector<std::uint64_t>& out);
  void analyse(const History& h, std::size_t len, bool with_pending);
  inline void compute_facts(const History& h, std::size_t len);
  inline Fact basic_fact(const Transition& t) const;
  inline Fact pending_fact(const Transition& t) const;
  inline bool edge(std::size_t i, const Transition& a, const Transition& b, const Fact& fb,
                   std::size_t jpos) const;
  inline bool cross_edge(std::size_t i, const Transition& a, const Transition& b, const Fact& fb,
                         std::size_t jpos) const;
  inline bool race_edge(std::size_t i, const Transition& a, const Transition& b, const Fact& fb,
                        std::size_t jpos) const;
  inline void reverse(const History& h, std::size_t i, std::size_t jpos, const Transition& b);
  inline void place(std::size_t i, std::vector<Transition>& v);
  inline bool local_in_v(std::size_t i, std::size_t k, std::size_t issue) const;
  inline std::size_t pending_issue(const History& h, const Transition& b) const;

  // ---- wakeup trees (strategy_optimal_wakeup.cpp) -------------------------------------
  bool weak_initial(const Transition& q, std::span<const Transition> v) const;
  std::size_t insert(std::vector<WNode>& root, std::vector<Transition>& v) const;
  static std::uint64_t tree_hash(const WNode& w);
  static bool same_tree(const WNode& a, const WNode& b);

  // ---- units (strategy_optimal_units.cpp) ---------------------------------------------
  void note_change(std::size_t i, std::size_t branch);

  // ---- words (strategy_optimal_save.cpp) ----------------------------------------------
  inline bool save_words(std::vector<std::uint64_t>& out, bool started) const;
  static inline void push_nodes(std::vector<std::uint64_t>& out, const std::vector<Node>& nodes);
  static inline bool read_nodes(detail::WordReader& r, std::vector<Node>& stack);
  static inline void push_tree(std::vector<std::uint64_t>& out, const WNode& w);
  static inline bool read_tree(detail::WordReader& r, WNode& w, std::size_t depth);

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

}  // namespace atomcheck::optimal
