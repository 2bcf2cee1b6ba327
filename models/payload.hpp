// A node's or slot's payload in the data-structure models (data_structures.cpp,
// queues.cpp). The correct models keep it a shared<T>, so the race detector proves that
// their release/acquire pairs publish it. The -weak- variants drop one of those pairs; a
// shared<T> payload would then race under every memory model, so there it is a relaxed
// atomic<T> instead: race-free, and a stale value read under RC11 is what the variant's
// check sees. The caller's location is passed on, so that traces and race reports name
// the model's line.
#pragma once

#include <source_location>

#include "scheduler/runtime/api.hpp"

namespace atomcheck::models {

using Loc = std::source_location;
inline void write_payload(shared<int>& cell, int v, Loc loc = Loc::current()) { cell.set(v, loc); }
inline int read_payload(const shared<int>& cell, Loc loc = Loc::current()) { return cell.get(loc); }
inline void write_payload(atomic<int>& cell, int v, Loc loc = Loc::current()) {
  cell.store(v, std::memory_order_relaxed, loc);
}
inline int read_payload(const atomic<int>& cell, Loc loc = Loc::current()) {
  return cell.load(std::memory_order_relaxed, loc);
}

}  // namespace atomcheck::models
