// The bridge between the naive RC11/SC judge (rc11_naive.hpp) and the explorer: a random
// generator of the judge's straight-line programs, their translation into a scheduler
// program (atomcheck::atomic, thread, outcome()), and the explorer's outcome set in the
// judge's form. Judging another memory model of the explorer is a change of `memory`
// (docs/rc11-oracle.md). Kept apart from rc11_naive so that the judge stays free of the
// scheduler's code.
#pragma once

#include <random>

#include "scheduler/explore.hpp"
#include "tests/support/rc11_naive.hpp"

namespace atomcheck::testing_support {

// The shape of the random programs: threads, instructions per thread and variables
// are drawn uniformly from [1 or 2, max].
struct Rc11Shape {
  int min_threads = 2, max_threads = 3;
  int max_instrs = 3;
  int max_vars = 2;
};

// Loads, stores (of a constant or of a register read before), fetch_add, exchange,
// compare-exchange (success and failure modes) and fences, every mode drawn at random
// among those C++ allows for the operation; every value read goes to a fresh register.
rc11naive::Program random_rc11_program(std::mt19937_64& rng, const Rc11Shape& shape = {});

// The program as the explorer runs it: each thread interprets its instructions on
// atomic<std::int64_t> variables with the same modes; after joining every thread the
// body records each register ("t<thread>r<reg>") and each variable's final value
// ("m<var>", a seq_cst load) with outcome().
Program scheduler_program(const rc11naive::Program& p);

// The outcome set of an exhaustive exploration of scheduler_program(p) under `memory`,
// in the judge's form. Fails the calling GoogleTest (and returns what it has) when the
// search fails an execution or does not finish.
rc11naive::Outcomes explored_outcomes(const rc11naive::Program& p, MemoryModelKind memory,
                                      std::uint64_t* executions = nullptr);

}  // namespace atomcheck::testing_support
