// Random programs for the DPOR property tests: 2-4 threads of loads, stores, rmw,
// compare-exchange, locks, fences, spin_until awaits, yield() loops and assume() over
// two variables and two locks, with a forbidden final sum checked. Shared by the
// optimal-DPOR and the parallel-exploration properties.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "scheduler/explore/explore.hpp"

namespace atomcheck::testing_support {

struct Op {
  int kind;  // 0 load, 1 relaxed store, 2 seq_cst store, 3 fetch_add, 4 cas, 5 lock,
             // 6 unlock, 7 try_lock, 8 fence; spin_until: 9 obj == value, 10 v0 + v1 >=
             // value, 11 try_lock succeeds; waits: 12 yield() loop until obj == value, 13
             // until v0 + v1 >= value, 14 until exchange(1) != 1 (a TAS lock), 15 polling
             // obj == value under lock obj, 16 assume(obj == value), 17 yield() loop until
             // obj == value counting the changes it saw (loop-carried state); std
             // synchronisation (sync.hpp): 18 semaphore acquire, 19 its release, 20 under
             // m0, wait on cv until obj == value, 21 under m0, store value to obj, then
             // notify_all, 22 the same with notify_one, 23 latch count_down (the latch
             // counts the program's count_downs), 24 latch wait (try_wait without any),
             // 25 shared_mutex lock_shared + read obj + unlock_shared, 26 lock + store + unlock;
             // 27 yield() loop until obj == value whose iterations then await other <= value
  int obj;
  int value;
};
struct RandomProgram {
  std::vector<std::vector<Op>> threads;
  std::vector<bool> atomic_body;
  int forbidden = -1;
  // The naive judge of the waits (kinds 12-17, 27), sharing no code with yield() or
  // assume(): each wait is unrolled to `unroll` plain attempts; a thread whose attempts
  // all fail records outcome "stuck" and stops, and the final check is skipped.
  int unroll = 0;
};

// `waits`: also kinds 12-17 and 27 (with `spins`); `sync`: also kinds 18-26 (with both).
RandomProgram make_random(std::mt19937_64& rng, bool tso, bool spins, bool waits = false, bool sync = false);
std::string describe(const RandomProgram& rp);
Program program_of(const RandomProgram& rp);

}  // namespace atomcheck::testing_support
