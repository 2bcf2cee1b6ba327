// A seeded generator of random traces that are well formed by construction: locks are
// properly nested within each thread and never acquired while held, begin/end blocks
// are matched (or left open at the end on purpose), a forked thread acts only after its
// fork and a joined thread never after its join. The same seed and parameters give the
// same trace on every platform (mt19937_64 with our own range reduction), so a failing
// property test is reproduced from its printed seed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "trace.hpp"

namespace atomcheck {

// Knobs of random_trace. Probabilities are per-mille (0..1000) to keep everything
// integral and portable.
struct RandomTraceParams {
  std::uint32_t threads = 3;       // at most this many threads (T0 forks the others)
  std::uint32_t vars = 3;
  std::uint32_t locks = 2;
  std::uint32_t events = 24;       // length of the trace (before closing open blocks)
  std::uint32_t max_txn_len = 5;   // events in an outermost block, drawn in 1..max
  std::uint32_t max_nesting = 2;   // deepest begin/end nesting
  std::uint32_t unary_permille = 300;   // outside blocks: chance of a unary event
  std::uint32_t write_permille = 400;   // of accesses: writes
  std::uint32_t rmw_permille = 50;      // of accesses: read-modify-writes
  std::uint32_t lock_permille = 150;    // chance of a lock operation instead of access
  std::uint32_t switch_permille = 500;  // chance to switch thread between events
  bool fork_join = true;   // false: all threads exist from the start, no fork/join
  bool close_at_end = true;  // close open blocks and release held locks at the end
};

// Uniform integers from a 64-bit Mersenne Twister, with a range reduction of our own
// (std::uniform_int_distribution differs between standard libraries).
class PortableRng {
 public:
  explicit PortableRng(std::uint64_t seed) : gen_(seed) {}
  // Uniform in [0, n); n > 0. Rejection sampling, so exactly uniform.
  std::uint64_t below(std::uint64_t n) {
    std::uint64_t limit = (0 - n) % n;  // 2^64 mod n: values under it are rejected
    for (;;) {
      std::uint64_t x = gen_();
      if (x >= limit) return x % n;
    }
  }
  // Uniform in [lo, hi].
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) { return lo + below(hi - lo + 1); }
  bool chance(std::uint32_t permille) { return below(1000) < permille; }
  std::uint64_t raw() { return gen_(); }

 private:
  std::mt19937_64 gen_;
};

// Streaming form: emits the events of random_trace(params, seed) one at a time, so a
// benchmark can produce 10^8 events without holding them. Closing events (ends and
// releases, when close_at_end) follow the `events` main events.
class RandomTraceGenerator {
 public:
  RandomTraceGenerator(const RandomTraceParams& params, std::uint64_t seed);
  // False when the trace is over.
  bool next(Event& out);
  // Fills `names` with the thread, variable and lock names the events use.
  void fill_names(Names& names) const;

 private:
  struct ThreadState {
    bool started = false, joined = false;
    std::uint32_t depth = 0;
    std::uint32_t budget = 0;  // events left in the current outermost block
    std::vector<LockId> held;  // stack of held locks, innermost last
  };
  bool body_event(ThreadId t, Event& out);
  void close_one(Event& out);

  RandomTraceParams p_;
  PortableRng rng_;
  std::vector<ThreadState> threads_;
  std::vector<ThreadId> runnable_;
  std::vector<ThreadId> lock_holder_;
  std::vector<std::int64_t> memory_;
  std::int64_t next_value_ = 1;
  ThreadId next_unforked_ = 1;
  ThreadId cur_ = 0;
  std::uint64_t emitted_ = 0;
};

// One random well-formed trace. Thread, variable and lock names are T0.., x0.., l0...
Trace random_trace(const RandomTraceParams& params, std::uint64_t seed);

// Random parameters for property tests: small (2-4 threads, 1-3 variables, 0-2 locks,
// up to `max_events` events) and varied in every knob, drawn from the seed.
RandomTraceParams random_small_params(std::uint64_t seed, std::uint32_t max_events = 24);

}  // namespace atomcheck
