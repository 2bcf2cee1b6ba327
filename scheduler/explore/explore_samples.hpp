// Random and PCT sampling on several cores (ExploreOptions::jobs > 1, issue 17): the
// samples are split across independent searches whose seeds derive from the given seed,
// and their results are merged in a fixed order, so `--jobs N --seed S` gives the same
// summary on every run. Internal to explore(); not part of the API.
#pragma once

#include <cstdint>
#include <functional>

#include "cluster.hpp"
#include "explore.hpp"

namespace atomcheck::detail {

// The seed of worker `w` of a split sample: worker 0 keeps the given seed (so its share
// is the start of the one-job sample), the others get SplitMix64 mixes of it.
std::uint64_t sample_worker_seed(std::uint64_t seed, unsigned w);

// Runs options.jobs sampling searches on as many threads (options.strategy is random or
// pct) and merges them. Failures are sorted by schedule and execution numbers
// interleaved (worker w's i-th execution is i * jobs + w), so the report does not depend
// on which thread finished first. `on_execution` is called under a lock, from any thread.
// With a cluster (atomcheck-mpi) the split is over ranks x jobs searches: rank k runs
// searches k*jobs .. k*jobs+jobs-1, ranks other than 0 send their results to rank 0
// (and return an empty result), and rank 0 merges all of them in that fixed order.
ExploreResult explore_split_samples(const Program& program, const ExploreOptions& options,
                                    const std::function<void(const ExecutionView&)>& on_execution,
                                    Cluster* cluster = nullptr);

}  // namespace atomcheck::detail
