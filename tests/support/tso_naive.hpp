// A second, deliberately naive ⊚TSO, written straight from the paper's definition (§4.1
// of "Serializability for TSO with non-atomic writes", with DESIGN.md's two additions
// that Proposition 1 needs: a thread's commits stay FIFO and precede its next fence).
// It shares no code with checkers/tso_conflict.cpp: events become tuples of the paper's
// kinds (a locked instruction is expanded into fence, read, write-issue, write-commit
// and fence, x86's full barrier; a lock operation into its fence and the lock hand-over), every fact is
// found by scanning the execution again, and transactions are re-derived from the
// begin/end nesting. A judge that shares a definition with what it judges cannot catch a
// shared mistake; this one exists to be compared with tso::conflict on random executions.
#pragma once

#include <cstdint>
#include <set>
#include <span>
#include <utility>

#include "trace/event.hpp"

namespace atomcheck::naive {

// A transaction named by (thread, index in the input of its first event: the outermost
// begin, or the single event of a unary transaction), as TxnRef names them.
using TxnName = std::pair<std::uint32_t, std::uint64_t>;

// The edges of the conflict graph of a TSO execution (commits included, each with its
// issue index) under ⊚TSO: (a, b) when an event of a conflicts with a later event of b.
std::set<std::pair<TxnName, TxnName>> tso_conflict_graph(std::span<const Event> eta);

// Is the execution TSO-serializable (that graph acyclic)?
bool tso_serializable(std::span<const Event> eta);

}  // namespace atomcheck::naive
