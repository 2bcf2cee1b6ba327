// The process's cluster (cluster.hpp): set by atomcheck-mpi, claimed by one explore()
// at a time.
#include "scheduler/cluster.hpp"

#include <atomic>

namespace atomcheck::detail {

namespace {
Cluster* the_cluster = nullptr;
std::atomic<bool> claimed{false};
}  // namespace

void set_cluster(Cluster* c) { the_cluster = c; }
Cluster* cluster() { return the_cluster; }

Cluster* claim_cluster() {
  if (!the_cluster || the_cluster->size() < 2) return nullptr;
  bool expected = false;
  return claimed.compare_exchange_strong(expected, true) ? the_cluster : nullptr;
}

void release_cluster() { claimed.store(false); }

}  // namespace atomcheck::detail
