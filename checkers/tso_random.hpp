// Random small TSO executions for the property tests and benchmarks of the TSO
// checkers: random per-thread programs (reads, writes, fences, rmw, in begin/end blocks
// or unary) run under a simulated x86-TSO memory with random scheduling and random
// buffer flushes, so every execution is a TSO execution by construction (commits FIFO
// after their issues, drains with empty buffers, reads returning buffer or memory
// values, `buffered` set as the explorer sets it). Seeded and portable (PortableRng).
#pragma once

#include <cstdint>

#include "../trace/trace.hpp"

namespace atomcheck::tso {

// Knobs; probabilities are per-mille.
struct RandomTsoParams {
  std::uint32_t threads = 2;
  std::uint32_t vars = 2;
  std::uint32_t ops_per_thread = 4;   // reads/writes/fences/rmws per thread
  std::uint32_t max_txn_len = 3;      // operations in a begin/end block
  std::uint32_t block_permille = 500; // chance an operation starts a block
  std::uint32_t write_permille = 450;
  std::uint32_t fence_permille = 100;
  std::uint32_t rmw_permille = 50;
  std::uint32_t flush_permille = 350; // chance a scheduling step flushes a buffer
  // Every transaction ends with a fence (blocks get a fence before their end, unary
  // operations are fences or wrapped in a fenced block): a transaction-fenced program.
  bool fenced = false;
};

// One random TSO execution eta (all buffers flushed by the end).
Trace random_tso_execution(const RandomTsoParams& params, std::uint64_t seed);

// Varied small parameters drawn from the seed: 2-3 threads, 1-3 variables, up to
// `max_ops` operations in total.
RandomTsoParams random_small_tso_params(std::uint64_t seed, std::uint32_t max_ops = 8);

}  // namespace atomcheck::tso
