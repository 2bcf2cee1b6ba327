// Object ids that do not depend on the schedule (internal). An object's id is the dense
// index every table of an execution keys it by (memory, race clocks, DPOR's transitions).
// Numbered in the order of creation, an object made by a thread got a different id when
// another thread made one first, so a schedule that reordered two threads' creations
// replayed under other names, and DPOR saw a nondeterministic program. Here the k-th object
// a thread creates gets the id the search gave that (thread, k) the first time any of its
// executions created it: the first execution numbers objects as before, and later ones
// reuse the numbers. Ids an execution does not use stay placeholders. One table serves
// every execution of one search (its threads share it through ExploreOptions).
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "../../trace/event.hpp"

namespace atomcheck::detail {

// The ids of one search: per kind (0 variables, 1 locks), per thread, per creation.
struct ObjectIds {
  std::mutex m;
  std::vector<std::vector<std::uint32_t>> ids[2];
  std::uint32_t next[2] = {0, 0};

  std::uint32_t get(int kind, ThreadId t, std::uint32_t k) {
    std::lock_guard<std::mutex> lock(m);
    auto& per = ids[kind];
    if (t >= per.size()) per.resize(t + 1);
    auto& mine = per[t];
    while (mine.size() <= k) mine.push_back(next[kind]++);
    return mine[k];
  }
};

}  // namespace atomcheck::detail
