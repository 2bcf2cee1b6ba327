// The C dialect's runner and race finder, internal to specs/: what a C litmus program
// records beside the scheduler (each thread's accesses with their source lines, the final
// state even of an execution that failed with a data race), and the racing pairs of an
// execution, from RC11's happens-before (rc11.cat's `dr`) or from the race detector's
// report. Used by run_litmus (litmus.cpp); the parser is litmus_c.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../trace/trace.hpp"
#include "litmus.hpp"

namespace atomcheck::litmus::detail {

// One memory access a C thread made, in the order the thread made it: the location (an
// element of an array is a location of its own) and the line of its statement.
struct CAccess {
  std::uint32_t var = kNoVar;
  std::uint32_t line = 0;
};

// Filled by the program of one execution (the last one run); the search runs one
// execution at a time on one thread (run_litmus sets jobs = 1).
struct CRecord {
  std::vector<std::vector<CAccess>> accesses;  // per C thread (P0 first)
  std::vector<std::int64_t> state;             // the values of Test::observed at the end
  bool finished = false;                       // the program reached its end
};

// The test as a program. `record`, when not null, is filled as above. `plain_as_relaxed`:
// plain locations are relaxed atomics, so that a plain read may read any write RC11's
// axioms allow, as herd's rc11.cat lets it (the race detector then sees no plain access;
// the races come from c_races_rc11).
Program c_program(const Test& test, std::vector<std::string> names, CRecord* record, bool plain_as_relaxed);

// Every racing pair of one RC11 execution (its trace gives rf in Event::issue): two
// accesses of different threads to one plain location, one a write, neither hb-before
// the other, hb built as rc11.cat builds it (plain accesses take no part in sw).
std::vector<Race> c_races_rc11(const Test& test, const Trace& trace, const CRecord& record);

// The race the detector reported between trace events `first` and `second`, as a Race;
// false when the record does not name both accesses.
bool c_race_of(const Test& test, const Trace& trace, const CRecord& record, EventIndex first, EventIndex second,
               Race& out);

}  // namespace atomcheck::litmus::detail
