// Canonical keys of an explored execution's equivalence classes, for counting classes
// (ExploreOptions::count_classes) and for tests that compare strategies:
//  - class_key: the class of the reductions' equivalence, Mazurkiewicz's over
//    dependent() on the steps taken (same thread, counting a thread's own buffer
//    flushes; same variable with a write, flushes counting as writes; same lock);
//  - rf_co_key: the reads-from + coherence class: for every read which write it reads
//    (a read served by its own store buffer reads the same write as one served by
//    memory after that write's commit, as in Nidhugg's TSO trace sets), per variable
//    the order in which writes reach memory, per lock the acquisition order.
// Only 64-bit hashes are kept; both cost one pass over the execution.
#pragma once

#include <cstdint>

#include "strategy.hpp"
#include "../../trace/trace.hpp"

namespace atomcheck {

std::uint64_t class_key(const History& history);
// The issue-order class under TSO: the rf+co key combined with the order of tau's
// conflicting operations (class_key over the steps that are not flushes).
std::uint64_t issue_order_key(const History& history, std::uint64_t rf_co);
// `execution` with its commit events under TSO.
std::uint64_t rf_co_key(const Trace& execution);

}  // namespace atomcheck
