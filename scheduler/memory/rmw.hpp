// A read-modify-write as the memory models receive it: the API (runtime/api.hpp) builds
// one per compare-exchange or fetch-op, a model applies it to the value it chooses.
#pragma once

#include <atomic>
#include <cstdint>

namespace atomcheck::detail {

// A read-modify-write computed natively once the thread holds the step: given the old
// value, says whether to write and what (a failing compare-exchange does not write).
struct RmwFn {
  bool (*call)(const void* ctx, std::int64_t old_value, std::int64_t& new_value);
  const void* ctx;
  // A compare-exchange, so that a failing one is reported with what it expected.
  bool cas = false;
  std::int64_t expected = 0;
  // A compare-exchange's failure order: a failing one is a load with it (race detection).
  std::memory_order failure = std::memory_order_seq_cst;
  // A lock's compare-exchange (lock words, execution_sync.cpp): an option that would not
  // write is no option, as the thread waits for the lock instead of reading "held".
  bool must_write = false;
  // A compare-exchange that confirms a cas_loop attempt (Execution::rmw): failing, it ends
  // an attempt that wrote nothing, which then blocks. Only the mo-latest write is worth
  // reading to fail; older ones would only block too (GenMC's SAVER, filterValuesFromAnnot).
  bool confirming = false;
};

}  // namespace atomcheck::detail
