// An RC11 execution read as an SC trace, where one exists: the conflict-serializability
// checkers read conflicts from trace order, which under rc11 is only the order the
// scheduler added events in (a read may read an older write). The execution graph's
// own order is po ∪ rf ∪ mo ∪ fr, with each mutex's operations in turn and fork/join;
// when it is acyclic (the execution is SC), any linearisation of it is a trace with the
// same conflicts, and sc_order gives the one closest to the run's order. When it has a
// cycle the execution is not SC, and no block structure serialises it (docs/rc11.md
// "Checkers under rc11"). The events must carry rc11's `issue` (a read's write) and
// `mo_pos` (trace/event.hpp).
#pragma once

#include <string>
#include <vector>

#include "event.hpp"
#include "trace.hpp"

namespace atomcheck {

struct ScOrder {
  bool known = true;               // false: the trace lacks mo_pos or issue (see `why`)
  std::vector<EventIndex> order;   // the SC trace: its i-th event is the run's order[i]
  std::vector<EventIndex> cycle;   // not SC: events of a cycle, each before the next
  std::string why;
  bool sc() const { return known && cycle.empty(); }
};

ScOrder sc_order(const Trace& trace);

// The SC trace of an SC order, into `out` (its capacity kept): trace's events in that
// order, each read's `issue` (the write it read) renumbered to match.
void in_sc_order(const Trace& trace, const ScOrder& order, std::vector<Event>& out);

}  // namespace atomcheck
