// View serializability (Wang & Stoller §3, after Bernstein et al.): a trace is view
// serializable when some serial trace of the same transactions gives every read the same
// predecessor write and every variable the same final write. Deciding it is NP-complete,
// so this is the small-input oracle ("view-oracle"): a depth-first search over serial
// orders of the transactions with pruning and a memo of failed states, under a node
// budget. Also here: the exhaustive judge of Wang-Stoller's predictions, which enumerates
// the lock-feasible interleavings of a trace's transactions (one per Mazurkiewicz class)
// and asks the oracle about each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "checker.hpp"
#include "../trace/event.hpp"
#include "../trace/transactions.hpp"

namespace atomcheck {

// Three-valued answer: `unknown` when a budget stopped the search.
enum class Tri : std::uint8_t { yes, no, unknown };

// Limits of the serial-order search. A node is one transaction placed in a serial prefix.
struct ViewLimits {
  std::uint64_t max_nodes = 2'000'000;
  // The search recurses once per transaction: past this many the answer is unknown
  // rather than a stack overflow.
  std::size_t max_transactions = 2000;
  Deadline deadline{};  // expired: unknown
};

// The answer for one trace: when serializable, `order` lists the transactions (ids of
// assign_transactions) of an equivalent serial trace.
struct ViewResult {
  Tri serializable = Tri::yes;
  std::vector<TxnId> order;
  std::uint64_t nodes = 0;
  std::string undecided;  // unknown: which limit stopped the search
};

// Is the trace view serializable? Transactions are those of assign_transactions
// (outermost blocks; unary events alone). A serial trace must keep every thread's order
// of transactions and put a fork's transaction before the child's transactions and the
// child's before the join's; lock order is not required of it (view equivalence is about
// data flow). A read-modify-write is a read then a write. Reads-from is decided by
// position (the last earlier write-like event of the variable), never by values.
ViewResult view_serializable(std::span<const Event> events, const ViewLimits& limits = {});

// Limits of the interleaving enumeration. A node is one event appended to a prefix.
struct InterleavingLimits {
  std::uint64_t max_nodes = 1'000'000;
  ViewLimits view;
};

// The answer to "is every feasible interleaving of these transactions view serializable?"
// Feasible: each thread's events stay in order, a lock is held by one thread at a time,
// a forked thread starts after its fork and a joined thread ends before its join; runs
// that deadlock are not traces and are dropped. `witness` (when all_serializable is no)
// lists input event indices in the order of a feasible interleaving that is not view
// serializable.
struct InterleavingResult {
  Tri all_serializable = Tri::yes;
  std::vector<EventIndex> witness;
  std::uint64_t interleavings = 0;  // complete interleavings whose data flow was judged
  std::uint64_t nodes = 0;
  std::string undecided;  // unknown: which limit stopped the search
};

InterleavingResult every_interleaving_view_serializable(std::span<const Event> events,
                                                        const InterleavingLimits& limits = {});

// The registered oracle "view-oracle": view serializability of the observed trace. A
// search stopped by its budget or the deadline is undecided.
class ViewOracle final : public Checker {
 public:
  explicit ViewOracle(const CheckerOptions& options = {}) : deadline_(options.deadline) {}
  std::string_view name() const override { return "view-oracle"; }
  void on_event(const Event& e) override { events_.push_back(e); }
  Verdict verdict() override;
  void reset() override { events_.clear(); }

 private:
  Deadline deadline_;
  std::vector<Event> events_;
};

}  // namespace atomcheck
