// Trace TSO-serializability straight from Definition 3 of the TSO paper: a trace is
// TSO-serializable iff every execution in Execs(tau) is, Execs(tau) being every TSO
// execution whose projection without commits is tau (value-free, as DESIGN.md reads
// the paper). Every legal placement of the commits is enumerated, with no canonical
// form and no pruning, and each execution is judged by the naive ⊚TSO of tso_naive.hpp.
// Shares no code with the deciders (checkers/tso_trace*.cpp) nor with their Execs
// enumeration (tso::for_each_execution).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "trace/event.hpp"

namespace atomcheck::naive {

// nullopt when more than `limit` executions would be needed.
std::optional<bool> trace_tso_serializable(std::span<const Event> tau, std::uint64_t limit = 2000000);

// How many executions Execs(tau) has (for tests of the enumeration itself).
std::uint64_t count_executions(std::span<const Event> tau);

}  // namespace atomcheck::naive
