// Wang & Stoller §5, the block-based predictive checker ("ws-block"). For every pair of
// transactions of different threads: the one-variable blocks of §5.2 (B1-B3, compared
// for the unserializable patterns UP1-UP4) on every shared variable, and the 2-blocks of
// §5.3 built from uninitialized reads and final writes; then the general algorithm of
// §5.4: every feasible interleaving of UR-FW(T) must be view serializable (enumerated,
// one interleaving per Mazurkiewicz class, judged by checkers/view_serializability).
//
// Feasibility of a pattern (§5.1): Theorem 5.1 (e3 may fall between e1 and e2 iff
// h12 ∩ held(e3) = ∅) when the two transactions have no potential for deadlock. With a
// potential deadlock (example (10)) and at most two locks held at once by either
// transaction, feasibility is decided exactly by a search over the grid of the two
// transactions' interleavings (the [WS03] condition for that case is not in the paper;
// the grid search is the exact answer it stands for). With a potential deadlock and more
// than two locks held, Theorem 5.1's answer is used and a "yes" is marked unsure.
//
// 2-blocks: the paper lists only some of the "few dozen" unserializable cases (they are
// in [WS03]); a pair of 2-blocks with two conflicting pairs is judged here by trying the
// four non-serial orders of its four events, each one unserializable when the four-event
// trace is view-equivalent to neither serial order, and feasible by the same test.
//
// "Serializable" means "predicts every feasible interleaving atomic". An unsure answer
// (a pattern whose feasibility is unsure: more than two locks held) counts as NOT atomic,
// conservatively: serializable is false and the note starts with "unsure:". A UR-FW
// enumeration stopped by its budget or the deadline, with nothing else found, is
// undecided (Verdict::undecided). A definite finding is reported first when there is one. The Blame of a
// pattern names the transaction whose two events enclose the other's (`at` is its
// second event) and, as `interfering`, the other transaction's event in between.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "checker.hpp"
#include "../trace/transactions.hpp"

namespace atomcheck {

// A block of §5.2 as the paper writes it: <op1, op2, fw1, fw2, h1, h2, h12> (op2 is
// '-' for the dummy of a lone access). Blocks are tuples: equal tuples are one block.
struct WsBlock {
  char op1 = '-', op2 = '-';
  bool fw1 = false, fw2 = false;
  std::vector<LockId> h1, h2, h12;
  bool operator==(const WsBlock&) const = default;
};

// The distinct blocks of transaction t (numbered as assign_transactions does) on
// variable x, for tests and explanations.
std::vector<WsBlock> ws_blocks(std::span<const Event> events, TxnId t, VarId x);

class WangStollerBlock final : public Checker {
 public:
  explicit WangStollerBlock(const CheckerOptions& options = {}) : options_(options) {}
  std::string_view name() const override { return "ws-block"; }
  void on_event(const Event& e) override { events_.push_back(e); }
  Verdict verdict() override;
  void reset() override { events_.clear(); }

  // Which stage found the answer, for tests.
  enum class Stage : std::uint8_t { none, one_var, two_block, ur_fw };
  Stage last_stage() const { return stage_; }
  bool last_unsure() const { return unsure_; }
  // The stages can be switched off to test each one alone (the paper's examples are
  // each about one stage).
  bool use_one_var = true, use_two_blocks = true, use_ur_fw = true;
  // Budget of the UR-FW enumeration (events appended to prefixes).
  std::uint64_t ur_fw_budget = 200'000;

 private:
  CheckerOptions options_;
  std::vector<Event> events_;
  Stage stage_ = Stage::none;
  bool unsure_ = false;
};

}  // namespace atomcheck
