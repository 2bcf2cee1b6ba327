// The process's cluster (cluster.hpp): set by atomcheck-mpi, claimed by one explore()
// at a time (a search that runs explore() again inside, split samples, keeps its own).
#include "scheduler/explore/cluster.hpp"

#include <ctime>

namespace atomcheck::detail {

namespace {
// Per thread: the thread that runs the command has it (tests give each thread a rank);
// the threads a search starts see none.
thread_local Cluster* the_cluster = nullptr;
}  // namespace

void set_cluster(Cluster* c) { the_cluster = c; }
Cluster* cluster() { return the_cluster; }

Cluster* claim_cluster() {
  Cluster* c = the_cluster;
  if (!c || c->size() < 2 || c->claimed) return nullptr;
  c->claimed = true;
  return c;
}

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void release_cluster() {
  if (the_cluster) the_cluster->claimed = false;
}

}  // namespace atomcheck::detail
