// Definition 1 of Hammer et al. (ICSE 2008) by brute force, for tests of the atomic-set
// checker: every binding of u, u' (units of work on one atomic set, different threads)
// and l1, l2 (variables of that set; l1 == l2 for patterns 1-5, else different) is tried
// against every pattern of Fig. 2 as a subsequence of the trace. Independent of the
// checker's automata, summary tuples and garbage collection.
#pragma once

#include <map>
#include <set>
#include <vector>

#include "checkers/atomic_set.hpp"

namespace atomcheck::testing {

struct BruteAccess {
  EventIndex at;
  ThreadId thread;
  VarId var;
  bool reads, writes;
  EventIndex unit;
  std::uint32_t set;
};

inline std::vector<BruteAccess> brute_accesses(const std::vector<Event>& ev, const AtomicSets& sets) {
  std::vector<BruteAccess> out;
  std::map<ThreadId, std::vector<std::pair<LabelId, EventIndex>>> stacks;
  for (EventIndex i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    auto& st = stacks[e.thread];
    if (e.op == Op::begin) st.push_back({e.target, i});
    if (e.op == Op::end && !st.empty()) st.pop_back();
    if (!is_access(e.op)) continue;
    std::uint32_t s = sets.set_of(e.target);
    EventIndex unit = i;
    for (auto& [label, b] : st)
      if (sets.units_of(label) >> s & 1) {
        unit = b;
        break;
      }
    out.push_back({i, e.thread, e.target, e.op == Op::read || e.op == Op::rmw, e.op != Op::read, unit, s});
  }
  return out;
}

// The set of patterns (1-14) some binding matches.
inline std::set<int> brute_patterns(const std::vector<Event>& ev, const AtomicSets& sets) {
  std::vector<BruteAccess> acc = brute_accesses(ev, sets);
  std::set<int> found;
  // Units by (set, first event), with their thread and number of accesses.
  std::map<std::pair<std::uint32_t, EventIndex>, std::pair<ThreadId, int>> units;
  std::map<std::uint32_t, std::set<VarId>> vars;
  for (const BruteAccess& a : acc) {
    auto& u = units[{a.set, a.unit}];
    u.first = a.thread;
    ++u.second;
    vars[a.set].insert(a.var);
  }
  for (const auto& [ku, u] : units) {
    if (u.second < 2) continue;  // u has two events in every pattern
    for (const auto& [ku2, u2] : units) {
      if (ku2.first != ku.first || u2.first == u.first) continue;
      const std::uint32_t set = ku.first;
      for (VarId l1 : vars[set])
        for (VarId l2 : vars[set])
          for (int p = 1; p <= kPatternCount; ++p) {
            if ((p <= 5) != (l1 == l2) || found.count(p)) continue;
            int s = 0;
            for (const BruteAccess& a : acc) {
              if (s == pattern_length(p)) break;
              if (a.set != set) continue;
              const PatternStep& st = pattern_step(p, s);
              if (a.unit != (st.second_unit ? ku2.second : ku.second)) continue;
              if (a.var != (st.loc2 ? l2 : l1)) continue;
              if (st.write ? !a.writes : !a.reads) continue;
              ++s;
            }
            if (s == pattern_length(p)) found.insert(p);
          }
    }
  }
  return found;
}

}  // namespace atomcheck::testing
