// Atomic-set serializability (Hammer, Dolby, Vaziri, Tip, ICSE 2008): the checker that
// matches the 14 problematic access patterns of the paper's Fig. 2 with race automata
// kept in summary tuples (Fig. 5), and the oracle it is judged by: conflict
// serializability of each atomic set's projection (2.2).
//
// Which variables form an atomic set and which atomic blocks are units of work on which
// sets comes from CheckerOptions::atomic_sets (checkers/checker.hpp says why there).
// Units of work, shared by checker and oracle:
//  - an access to a variable of set L belongs to the top-most open atomic block of its
//    thread that is a unit of work on L (3: units nest, the outermost one owns it);
//  - an access with no open unit of work on L is a unit of its own, as events outside
//    every block are unary transactions everywhere else in atomcheck (the paper's 4.1
//    instead promotes the enclosing method, which a streaming checker cannot know is
//    one before the method ends).
// Only reads, writes, read-modify-writes (both a read and a write) and commits count:
// the paper's model has no locks, forks or joins, so the oracle does not order by them.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "checker.hpp"
#include "../trace/trace.hpp"

namespace atomcheck {

// Atomic sets and units of work by name, as a user writes them for a trace file.
struct AtomicSetNames {
  std::vector<std::pair<std::string, std::vector<std::string>>> sets;   // set -> variables
  std::vector<std::pair<std::string, std::vector<std::string>>> units;  // label -> sets
};

// Resolves names against a trace's name tables. Variables and labels the trace does not
// use are skipped; a unit may name a set no variable of the trace is in. Returns false
// and fills `error` (one line) when a variable is in two sets or there are too many sets.
bool resolve_atomic_sets(const AtomicSetNames& decl, const Names& names, AtomicSets& out,
                         std::string& error);

// "S1" for a declared set, "(all)" for the implicit set of undeclared variables.
std::string atomic_set_name(const AtomicSets& sets, std::uint32_t set);

// The 14 patterns of Fig. 2, for reports and tests: pattern p (1-based) has
// pattern_length(p) steps.
struct PatternStep {
  bool second_unit;  // u' (else u)
  bool write;        // W (else R)
  bool loc2;         // l2 (else l1, the only location of patterns 1-5)
};
inline constexpr int kPatternCount = 14;
int pattern_length(int p);
const PatternStep& pattern_step(int p, int step);
// "R_u(l1) W_u'(l1) W_u(l1)".
std::string pattern_text(int p);

// One match of a pattern: the units bound to u and u' (named by their first event, as
// transactions are), the variables bound to l1 and l2 (l2 == l1 for patterns 1-5), and
// the event that completed the match.
struct PatternMatch {
  int pattern = 0;
  TxnRef u, u2;
  VarId l1 = kNoId, l2 = kNoId;
  std::uint32_t set = 0;
  EventIndex at = kNoEvent;
};

// The checker: Fig. 5 with the bitsets of 3.2 (14 automata x 3 bits in one word per
// tuple), summary tuples (u,*,l,*) and (u,u',l,*) refined to (u,u',l1,l2) only when the
// other unit or location shows up, and garbage collection of the tuples of finished
// units. Exactly Definition 1: it flags a trace iff some binding of u, u' (different
// threads, both units on one set L) and l1 != l2 in L is in accordance with a pattern.
class AtomicSetChecker : public Checker {
 public:
  explicit AtomicSetChecker(const CheckerOptions& options = {});
  std::string_view name() const override { return "atomic-set"; }
  void on_event(const Event& e) override;
  Verdict verdict() override;
  void reset() override;

  const std::vector<PatternMatch>& matches() const { return matches_; }
  // Largest number of live tuples seen (the paper's |B| column).
  std::size_t max_tuples() const { return max_tuples_; }

 private:
  struct Unit {
    ThreadId thread = 0;
    EventIndex first = kNoEvent;
    bool done = false;
  };
  struct Open {
    LabelId label = kNoId;
    std::uint32_t unit = kNoId;  // given on the block's first access as a unit
    EventIndex begin = kNoEvent;
  };
  // A tuple (u, u2, l1, l2); u2 == kNoId is (u,*,l1,*), l2 == kNoId is (u,u2,l1,*).
  struct Key {
    std::uint32_t u, u2, l1, l2;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept;
  };
  struct Tuple {
    Key key;
    std::uint64_t bits = 0;      // 3 bits per automaton, pattern p at bits 3(p-1)
    std::uint16_t reported = 0;  // patterns already reported for this tuple
  };

  void access(std::uint32_t unit, VarId var, bool reads, bool writes, EventIndex at);
  void ensure(const Key& k, std::uint64_t bits);
  void update(Tuple& t, std::uint32_t unit, VarId var, bool reads, bool writes, EventIndex at);
  void finish(std::uint32_t unit);
  std::uint32_t new_unit(ThreadId t, EventIndex first);
  std::uint32_t set_of(VarId v) const { return sets_.set_of(v); }

  AtomicSets sets_;
  bool all_ = false;
  EventIndex next_ = 0;
  std::vector<Unit> units_;
  std::vector<std::vector<Open>> stacks_;  // per thread, outermost first
  std::vector<Tuple> tuples_;
  std::unordered_map<Key, std::uint32_t, KeyHash> index_;
  std::vector<Tuple> fresh_;  // tuples created by the current event
  std::vector<PatternMatch> matches_;
  std::size_t max_tuples_ = 0;
};

// The oracle: for every atomic set L, the graph over units of work on L with an edge
// u -> u' when an access of u precedes a conflicting access (same variable, different
// threads, one writes) of u', or u precedes u' in their thread; a cycle in any such graph
// means not atomic-set serializable. Buffers the trace; quadratic per set.
class AtomicSetOracle : public Checker {
 public:
  explicit AtomicSetOracle(const CheckerOptions& options = {});
  std::string_view name() const override { return "atomic-set-oracle"; }
  void on_event(const Event& e) override { events_.push_back(e); }
  Verdict verdict() override;
  void reset() override { events_.clear(); }

 private:
  AtomicSets sets_;
  std::vector<Event> events_;
};

}  // namespace atomcheck
