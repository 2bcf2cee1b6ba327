// The bridge between the naive RC11/SC judge (rc11_naive.hpp) and the explorer: a random
// generator of the judge's straight-line programs, their translation into a scheduler
// program (atomcheck::atomic, thread, outcome()), and the explorer's outcome set in the
// judge's form. Judging another memory model of the explorer is a change of `memory`
// (docs/rc11-oracle.md). Kept apart from rc11_naive so that the judge stays free of the
// scheduler's code.
#pragma once

#include <random>

#include "scheduler/explore/explore.hpp"
#include "tests/support/rc11_naive.hpp"

namespace atomcheck::testing_support {

// The shape of the random programs: threads, instructions per thread and variables
// are drawn uniformly from [1 or 2, max].
struct Rc11Shape {
  int min_threads = 2, max_threads = 3;
  int max_instrs = 3;
  int max_vars = 2;
  // Programs with more rf maps than this (the product over reads of the writes to their
  // variable, initial one included) are drawn again: the naive judge's cost is
  // exponential in them (docs/rc11-oracle.md), and a few single-variable programs with
  // eight reads would take minutes each.
  double max_rf_maps = 1e4;
  // Every mode seq_cst (a CAS's failure mode included).
  bool all_sc = false;
};

// Loads, stores (of a constant or of a register read before), fetch_add, exchange,
// compare-exchange (success and failure modes) and fences, every mode drawn at random
// among those C++ allows for the operation; every value read goes to a fresh register.
// `redrawn` counts the programs drawn again for max_rf_maps.
rc11naive::Program random_rc11_program(std::mt19937_64& rng, const Rc11Shape& shape = {},
                                       std::size_t* redrawn = nullptr);

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

// The properties of test_rc11_naive.cpp (CI-sized) and long_rc11_naive.cpp (10^4
// programs and more), each printing a line with "random programs" and its figures.
// SC ⊆ RC11 on `programs` random programs, and RC11 strictly larger on some.
void check_sc_included_in_rc11(std::size_t programs, std::uint64_t seed, const Rc11Shape& shape = {});
// RC11 = SC on programs whose every access and fence is seq_cst (the paper's guarantee
// for SC-only programs), and the mutant without the SC axiom differs on some of them.
void check_all_sc_programs_are_sc(std::size_t programs, std::uint64_t seed, Rc11Shape shape = {});
// The judge's outcome set equals the explorer's under `memory` on `programs` random
// programs. For the RC11 explorer: judge = rc11_judge, memory = its MemoryModelKind.
using Rc11Judge = rc11naive::Outcomes (*)(const rc11naive::Program&);
rc11naive::Outcomes sc_judge(const rc11naive::Program& p);
rc11naive::Outcomes rc11_judge(const rc11naive::Program& p);
void check_judge_against_explorer(std::size_t programs, std::uint64_t seed, Rc11Judge judge, MemoryModelKind memory,
                                  const Rc11Shape& shape = {});

}  // namespace atomcheck::testing_support
