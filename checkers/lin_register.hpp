// Linearizability of a register's history (read and write) whose written values are
// distinct, decided in O(n log n) instead of a search: Gibbons and Korach, "Testing shared
// memories" (SIAM J. Comput. 26(4), 1997). Each write and the reads of its value form a
// cluster, which every linearization places contiguously; a cluster's zone runs from its
// earliest return to its latest call. lin::check runs it before its searches
// (Options::registers); a history outside its preconditions, or one it cannot settle, is
// left to them. "Not linearizable" comes from a pattern found, "linearizable" from an order
// built and replayed on the specification, never from the absence of patterns alone.
// docs/linearizability.md "Registers of distinct written values" says what each verdict
// rests on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lin_collections.hpp"

namespace atomcheck::lin {

// Its patterns: "unwritten", "early", "overlap", "inside".
using RegisterAnswer = PatternAnswer;

// `spec` must give a register_shape() (else undecided), and its step() replays the order
// built. Undecided, never a guess, when an operation is neither a read nor a write (a cas),
// when a value is written twice or a write writes the initial value, or when neither a bad
// pattern nor a linearization is found. A pending read is left out (it may return
// anything); a pending write no completed read saw is left out too (it may never take
// effect), one a read saw takes effect after its call.
RegisterAnswer check_register(const History& h, const Spec& spec);

}  // namespace atomcheck::lin
