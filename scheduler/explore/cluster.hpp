// The other processes of an atomcheck-mpi job (docs/mpi.md), as explore() sees them:
// numbered peers that exchange messages of 64-bit words. The transport (MPI) lives in
// mpi/, outside the library, which holds no MPI and runs unchanged without it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace atomcheck::detail {

// Message tags of the search's protocol (explore_units.cpp's Units and serve()).
enum class ClusterTag : int {
  join = 1,    // 0 -> all: a search starts (serial, kind, memory, equivalence, ...)
  unit = 2,    // 0 -> r: explore this unit (serial, id, most, the unit's words)
  stop = 3,    // 0 -> r: stop unit id after the current execution
  runs = 4,    // r -> 0: executions of unit id (serial, id, runs)
  done = 5,    // r -> 0: unit id ended (serial, id, complete, first/last records, words)
  end = 6,     // 0 -> all: the search ended; drop any unit, answer `ended`
  ended = 7,   // r -> 0: nothing more of this search will come
  quit = 8,    // 0 -> all: the command ended; answer with `stats` and leave
  stats = 9,   // r -> 0: this process's figures (CPU seconds, executions, messages, bytes)
  part = 10,   // r -> 0: a share of split samples, as a result
};

// One process's view of the job. Not thread-safe: only the thread that runs explore()
// (rank 0's search, a worker's serve loop) uses it.
struct Cluster {
  virtual ~Cluster() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void send(int to, ClusterTag tag, std::span<const std::uint64_t> words) = 0;
  // The next message if one has arrived (wait: blocks, politely, until one does).
  virtual bool receive(int& from, ClusterTag& tag, std::vector<std::uint64_t>& words, bool wait) = 0;
  // A process other than rank 0 was told to quit: it reports its figures and ends the
  // process (MPI_Finalize, exit 0); the command it was running on has nothing to add.
  [[noreturn]] virtual void leave() = 0;
  // Figures of this process: messages and bytes sent, executions it ran for the job, the
  // CPU of the thread that took part in the distributed searches while it did (rank 0:
  // from a search's start to its end; others: from `join` to `ended`), and the part of
  // that CPU spent waiting for a message (the transport adds every wait up in `waited`).
  std::uint64_t messages = 0, bytes = 0, executions = 0;
  double search_cpu = 0, search_waited = 0, waited = 0;
  // Rank 0's searches: the units other processes explored, those the search reached
  // before they ended (and took over), and the executions it ran again.
  std::uint64_t units = 0, taken_over = 0, replayed = 0;
  // The serial of the job's current search (rank 0's count of distributed searches).
  std::uint64_t serial = 0;
  bool claimed = false;  // an explore() uses it (claim_cluster)
};

// The calling thread's cluster: atomcheck-mpi's main sets it before the command runs
// (nullptr: a plain process; tests give threads of one process ranks of their own).
void set_cluster(Cluster* c);
Cluster* cluster();
// Whether this explore() call may use the cluster: only one at a time (split samples
// call explore() from threads, and those must run locally). release_cluster() gives it back.
Cluster* claim_cluster();
void release_cluster();
// The calling thread's CPU time in seconds (for Cluster::search_cpu).
double thread_cpu_seconds();

}  // namespace atomcheck::detail
