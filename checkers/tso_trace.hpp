// Trace TSO-serializability (paper §5-6): a trace tau (an execution without its commits)
// is TSO-serializable iff every execution in Execs(tau) (every legal placement of the
// commits) is (Definition 3). The trace event graph EG_tau (Definition 4) with its
// directed and undirected edges, its conflict graph (Definition 5), and three deciders
// that must agree: brute force over Execs(tau), Z3 on Corollary 1, and the
// fixed-parameter search of §6.2 over simple cycles.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "checker.hpp"
#include "../trace/transactions.hpp"

namespace atomcheck::tso {

// An edge of EG_tau whose direction differs between executions of tau. Orientation
// variable `var` true means lo -> hi (lo < hi are event indices of tau). An edge between
// a read that may be served by its buffer and a later write (or rmw) of another thread
// is *tied*: it shares the variable of the edge between the read's own buffered write
// and that write, because it points the same way in every execution (the read is
// ordered by where its own write commits; see DESIGN.md "Trace TSO-serializability").
//
// A *semi-tied* edge joins a write lo of one thread and a later read hi that may be
// served by its buffer (own buffered write W*): lo -> hi holds when lo commits before
// the read, or before W* commits (then the read, served by W*, has no conflict with lo
// at all, and lo -> W* -> read orders them anyway); hi -> lo needs both the other way.
// `base` is the variable of the edge {lo, W*}, `base_lo_is_write` whether lo is that
// edge's lower end.
struct UEdge {
  std::uint32_t lo = 0, hi = 0;
  std::uint32_t var = 0;
  bool tied = false;
  bool semi = false;
  std::uint32_t base = 0;
  std::uint32_t source = 0;       // semi: W*, the read's own buffered write
  bool base_lo_is_write = false;  // semi: lo < W*
};

// EG_tau over the events of tau (commits, if any, are ignored).
struct TraceGraph {
  std::size_t n = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> directed;  // (u, v), u < v
  std::vector<UEdge> undirected;
  std::uint32_t vars = 0;  // orientation variables
  Transactions tx;
  // Next event after i that empties the buffer of i's thread (own drain, or a join of
  // the thread); n when none.
  std::vector<std::uint32_t> next_drain;
};
TraceGraph event_graph(std::span<const Event> tau);

// CG_tau (Definition 5): edges between distinct transactions, deduplicated.
struct TraceConflictGraph {
  std::size_t txns = 0;
  std::vector<std::pair<TxnId, TxnId>> directed;
  std::vector<std::pair<TxnId, TxnId>> undirected;  // (a, b) with a < b
};
TraceConflictGraph conflict_graph(const TraceGraph& g);

// Is the orientation (one bool per variable) valid? The paper's test (E plus the
// oriented edges acyclic) is not enough: events other than commits keep their tau
// positions in every execution, so a write's commit cannot come both before a read and
// after a later read of another thread (tests/test_tso_serializability.cpp,
// Theorem4NeedsTraceOrder). Valid here means realisable: tau's order, issue before
// commit, FIFO, drains and the orientation (a write at its commit) are acyclic.
bool valid_orientation(std::span<const Event> tau, const TraceGraph& g, const std::vector<bool>& orientation);

// Execs(tau): calls visit(eta, tau_index) for every legal placement of the commits
// (after the issue, FIFO per thread, before the thread's next drain or join; commits
// left at the end are placed after the last event). tau_index[k] is the tau event of
// eta[k] (a commit maps to its write). Stops when visit returns false or after `limit`
// executions (0: no limit); returns false when stopped by the limit.
bool for_each_execution(
    std::span<const Event> tau, std::uint64_t limit,
    const std::function<bool(const std::vector<Event>&, const std::vector<EventIndex>&)>& visit);

// The answer of a decider. Event indices are those of tau; a write on a cycle edge
// stands for its commit.
struct TraceVerdict {
  bool serializable = true;
  // Why the decider gave up ("" when it decided): the brute force's limit, the deadline,
  // Z3's unknown. `serializable` means nothing then.
  std::string undecided;
  std::vector<CycleEdge> cycle;
  std::vector<bool> orientation;  // a valid orientation inducing the cycle
  // A witness execution in Execs(tau) whose conflict graph has a cycle, as tau indices
  // in execution order, each write appearing twice (issue, then commit). Empty when
  // serializable.
  std::vector<EventIndex> witness;
  std::uint64_t work = 0;  // executions enumerated, or search steps
};

// Each decider stops when `deadline` expires, answering undecided.
TraceVerdict decide_brute(std::span<const Event> tau, std::uint64_t limit = 0, const Deadline& deadline = {});
TraceVerdict decide_fpt(std::span<const Event> tau, const Deadline& deadline = {});

// Theorem 4, converse direction: an execution of tau whose write-contracted event graph
// is the given valid orientation (commits placed by a topological sort of tau's order,
// the orientation, FIFO and drains). tau indices as in TraceVerdict::witness; empty when
// the construction fails.
std::vector<EventIndex> realise(std::span<const Event> tau, const TraceGraph& g,
                                const std::vector<bool>& orientation);
// The execution named by tau indices (see TraceVerdict::witness) as events.
std::vector<Event> execution_of(std::span<const Event> tau, const std::vector<EventIndex>& order);

// The orientation of EG_tau's variables an execution of tau induces: each edge points
// the way its conflict goes in eta (a write at its commit; an edge whose conflict is
// absent because the read is served by its buffer points the way program order through
// the read's own write takes it). nullopt when eta has a conflict EG_tau lacks. (The
// paper's Theorem 4 takes the write-contraction itself, which is cyclic for every
// non-robust execution, so it cannot be an acyclic orientation.)
std::optional<std::vector<bool>> induced_orientation(std::span<const Event> tau, const TraceGraph& g,
                                                     std::span<const Event> eta,
                                                     std::span<const EventIndex> tau_index);

// Does the conflict graph of tau under this orientation (Definition 5, undirected edges
// oriented) have a cycle? (Theorem 5: tau is serializable iff no valid orientation has.)
bool orientation_has_cycle(const TraceGraph& g, const std::vector<bool>& orientation);

}  // namespace atomcheck::tso
