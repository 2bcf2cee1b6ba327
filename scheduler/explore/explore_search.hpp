// One exhaustive or sampling search on the calling thread (with units on other threads
// and processes for a parallel optimal search): the loop explore() runs once it has
// settled where the search goes (rank 0, not split samples). Internal to explore(); not
// part of the API.
#pragma once

#include <functional>

#include "cluster.hpp"
#include "explore.hpp"

namespace atomcheck::detail {

// `given`: after explore()'s memory-model adjustments. `cluster`: the other processes
// that explore units (atomcheck-mpi, rank 0 only), or nullptr.
ExploreResult run_search(const Program& program, const ExploreOptions& given,
                         const std::function<void(const ExecutionView&)>& on_execution, Cluster* cluster);

}  // namespace atomcheck::detail
