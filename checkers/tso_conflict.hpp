// TSO-serializability of one execution (paper §3-4): the conflict relation ⊚TSO in one
// place (DESIGN.md "TSO conflict relation"), the conflict graph of an execution eta over
// its transactions with a witness cycle, robustness (SC-equivalence) through the
// write-contraction of §4.2, and the structural TSO semantics (commits FIFO after their
// issues, drains with an empty buffer, reads returning what the buffer or memory holds)
// that the property tests check permutations against.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "checker.hpp"
#include "../trace/trace.hpp"

namespace atomcheck::tso {

// Needs its thread's store buffer empty (the explorer drains before these: mfence,
// locked rmw, the lock operations, which x86 implements with locked instructions, and
// starting a thread, which synchronises with the child: it must see every store its
// creator made before starting it).
constexpr bool is_drain(Op op) {
  return op == Op::fence || op == Op::rmw || op == Op::acquire || op == Op::release || op == Op::fork;
}

// Per-execution facts ⊚TSO depends on (positions, not flags: the `buffered` field of a
// read is recomputed here, so a permuted execution is judged by where its events are).
struct ExecFacts {
  // write -> index of its commit (kNoEvent when it never commits).
  std::vector<EventIndex> commit_of;
  // read -> the latest earlier write of its thread to the same variable with no drain
  // of the thread in between (kNoEvent: none). Such a read *may* be served by the
  // buffer (the paper's syntactic "buffered read"); it *is* served by the buffer when
  // that write commits after the read.
  std::vector<EventIndex> source;
};
ExecFacts analyse(std::span<const Event> eta);

// Does eta[i] conflict with eta[j] (i < j) under ⊚TSO?
bool conflict(std::span<const Event> eta, const ExecFacts& facts, std::size_t i, std::size_t j);

// A read served by its own store buffer at its position in eta.
inline bool served_by_buffer(const ExecFacts& f, std::size_t r) {
  return f.source[r] != kNoEvent && f.commit_of[f.source[r]] > r;
}

// Adds the commits an execution lacks: when it has none at all (an SC execution, or a
// trace file without commits) every write commits right after its issue; otherwise a
// write never committed commits at the end, FIFO per thread. `origin[k]` is the index
// in the input of eta[k] (a synthesised commit points at its write).
struct Completed {
  std::vector<Event> eta;
  std::vector<EventIndex> origin;
  bool synthesised = false;   // some commit was added
  bool sc_embedded = false;   // there were no commits: each write committed at once
};
Completed complete_execution(std::span<const Event> events);

// Result of a cycle search over an execution's conflict graph.
struct ExecVerdict {
  bool serializable = true;
  std::vector<CycleEdge> cycle;  // event indices of eta
};

// Theorem 1 for ⊚TSO: eta is TSO-serializable iff its conflict graph over
// transactions is acyclic. eta must carry its commits (see complete_execution).
ExecVerdict check_execution(std::span<const Event> eta);

// §4.2: eta is SC-equivalent iff the write-contraction (every issue merged with its
// commit, every other event its own node, program order kept between all non-commit
// events of a thread: ⊚TSO-po) is acyclic. On a cycle, the edges name the node's
// first event as its "transaction" (issue for a merged write).
ExecVerdict check_robust(std::span<const Event> eta);

// The SC execution a robust eta is equivalent to: a topological order of the
// write-contraction (ties broken by position in eta), as the eta indices of its
// non-commit events (each write standing at its merged node). Empty when eta is not
// robust.
std::vector<EventIndex> sc_equivalent(std::span<const Event> eta);

// Is eta a TSO execution? Commits FIFO per thread after their issue, drains (and a join
// of the thread) with an empty buffer, and, when `values`, every read returning the
// value of its own latest buffered write or else memory (initially 0), rmw likewise.
// The first problem, or nothing.
std::optional<std::string> tso_semantics_problem(std::span<const Event> eta, bool values);

// Transaction-fenced (§4.2): every transaction of eta that accesses memory ends with a
// fence (its last non-commit event is a drain).
bool transaction_fenced(std::span<const Event> eta);

// Finds a cycle in a directed graph over `nodes` given as adjacency lists; returns the
// cycle's nodes in order (first == successor of last), or empty.
std::vector<std::uint32_t> find_cycle(const std::vector<std::vector<std::uint32_t>>& succ);

}  // namespace atomcheck::tso
