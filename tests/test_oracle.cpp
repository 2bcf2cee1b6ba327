// The conflict-serializability oracle on hand-made traces: one per conflict kind, the
// DESIGN.md unary-transaction example, nesting, open transactions, blame (RegionTrack
// Theorem 2, including a non-serializable trace with no transaction to blame), and the
// transaction assignment it is built on.
#include <gtest/gtest.h>

#include "checkers/oracle_conflict.hpp"
#include "checkers/registry.hpp"
#include "trace/transactions.hpp"
#include "tests/support/trace_builder.hpp"

namespace atomcheck {
namespace {

using atomcheck::testing::Build;

constexpr VarId X = 0, Y = 1;

Verdict run_oracle(const Build& b) {
  ConflictOracle o;
  for (const Event& e : b.ev) o.on_event(e);
  return o.verdict();
}

TEST(Transactions, OutermostBlocksUnaryEventsAndOpenAtEnd) {
  Build b;
  b.r(0, X).begin(0).w(0, X).begin(0).r(0, Y).end(0).end(0).w(1, Y).begin(1).r(1, X);
  Transactions tx = assign_transactions(std::span<const Event>(b.ev));
  ASSERT_EQ(tx.txns.size(), 4u);
  EXPECT_EQ(tx.txn_of, (std::vector<TxnId>{0, 1, 1, 1, 1, 1, 1, 2, 3, 3}));
  EXPECT_TRUE(tx.txns[0].unary);
  EXPECT_FALSE(tx.txns[1].unary);
  EXPECT_EQ(tx.txns[1].first, 1u);
  EXPECT_EQ(tx.txns[1].last, 6u);
  EXPECT_TRUE(tx.txns[2].unary);
  EXPECT_EQ(tx.txns[3].thread, 1u);
  EXPECT_TRUE(tx.txns[3].open_at_end);
  EXPECT_FALSE(tx.txns[1].open_at_end);
  EXPECT_TRUE(tx.any_open_at_end);
}

TEST(Transactions, CommitJoinsItsIssuesTransaction) {
  Build b;
  b.begin(0).w(0, X).end(0).r(1, X);
  Event c;
  c.op = Op::commit;
  c.thread = 0;
  c.target = X;
  c.issue = 1;
  b.ev.push_back(c);
  Transactions tx = assign_transactions(std::span<const Event>(b.ev));
  EXPECT_EQ(tx.txn_of[4], tx.txn_of[1]);
  EXPECT_EQ(tx.txns[tx.txn_of[1]].last, 4u);
}

TEST(NestingTracker, RolesFollowDepth) {
  Build b;
  b.r(0, X).begin(0).begin(0).w(0, X).end(0).end(0).end(0);
  NestingTracker n;
  using R = NestingTracker::Role;
  std::vector<R> roles;
  for (const Event& e : b.ev) roles.push_back(n.on_event(e));
  EXPECT_EQ(roles, (std::vector<R>{R::unary, R::outer_begin, R::inside, R::inside, R::inside,
                                   R::outer_end, R::unary}));
  EXPECT_FALSE(n.any_open());
  n.on_event(b.ev[1]);
  EXPECT_TRUE(n.any_open());
  EXPECT_EQ(n.depth(0), 1u);
}

TEST(Oracle, DesignExampleIsSerializableWithUnaryTransactions) {
  // T1: begin w(x) . T2: w(y) r(x) . T1: r(y) end
  Build b;
  b.begin(0).w(0, X).w(1, Y).r(1, X).r(0, Y).end(0);
  Verdict v = run_oracle(b);
  EXPECT_TRUE(v.serializable);
  EXPECT_TRUE(v.cycle.empty());
  EXPECT_EQ(v.detected_at, kNoEvent);
  // No blame either: w(y) is not after T1's begin, and r(x) does not reach r(y).
  EXPECT_TRUE(v.blamed.empty());
}

TEST(Oracle, DesignExampleMergedIsNot) {
  // The same trace with T2's two events in one block: not serializable.
  Build b;
  b.begin(0).w(0, X).begin(1).w(1, Y).r(1, X).end(1).r(0, Y).end(0);
  Verdict v = run_oracle(b);
  EXPECT_FALSE(v.serializable);
  EXPECT_EQ(v.detected_at, 6u);
  ASSERT_EQ(v.cycle.size(), 2u);
}

// Each conflict kind closes a cycle T0 -> T1 -> T0 on its own; the same traces with the
// closing conflict removed are serializable.
TEST(Oracle, VariableWriteReadCycle) {
  Build b;
  b.begin(0).r(0, X).begin(1).w(1, X).end(1).w(0, X).end(0);
  Verdict v = run_oracle(b);
  EXPECT_FALSE(v.serializable);
  EXPECT_EQ(v.detected_at, 5u);
  ASSERT_EQ(v.cycle.size(), 2u);
  // Edges carry the conflicting events.
  for (const CycleEdge& e : v.cycle) {
    EXPECT_NE(e.from_event, kNoEvent);
    EXPECT_LT(e.from_event, e.to_event);
    EXPECT_EQ(b.ev[e.from_event].target, X);
  }
  ASSERT_EQ(v.blamed.size(), 1u);
  EXPECT_EQ(v.blamed[0].txn, (TxnRef{0, 0}));
  EXPECT_EQ(v.blamed[0].interfering, 3u);
  EXPECT_EQ(v.blamed[0].at, 5u);
}

TEST(Oracle, TwoReadsDoNotConflict) {
  Build b;
  b.begin(0).r(0, X).begin(1).r(1, X).end(1).r(0, X).end(0);
  EXPECT_TRUE(run_oracle(b).serializable);
}

TEST(Oracle, RmwCountsAsWrite) {
  Build b;
  b.begin(0).r(0, X).rmw(1, X).r(0, X).end(0);
  Verdict v = run_oracle(b);
  EXPECT_FALSE(v.serializable);
  ASSERT_EQ(v.blamed.size(), 1u);
  EXPECT_EQ(v.blamed[0].interfering, 2u);
}

TEST(Oracle, ReleaseAcquireCycle) {
  Build b;
  b.begin(0).acq(0, 0).rel(0, 0).acq(1, 0).rel(1, 0).acq(0, 0).rel(0, 0).end(0);
  EXPECT_FALSE(run_oracle(b).serializable);
  // rel(l) by T1 -> acq(l) by T0 closes the cycle; without T0's second acquire (an
  // acquire does not conflict with a later release) there is none.
  Build c;
  c.begin(0).acq(0, 0).rel(0, 0).acq(1, 0).rel(1, 0).w(0, Y).end(0);
  EXPECT_TRUE(run_oracle(c).serializable);
}

TEST(Oracle, ForkCycle) {
  // T0's block forks T1, and T1 writes x that T0 later reads inside the same block.
  Build b;
  b.begin(0).fork(0, 1).w(1, X).r(0, X).end(0);
  EXPECT_FALSE(run_oracle(b).serializable);
  Build c;
  c.begin(0).fork(0, 1).w(1, X).r(0, Y).end(0);
  EXPECT_TRUE(run_oracle(c).serializable);
}

TEST(Oracle, JoinCycle) {
  // T1 reads x written in T0's open block; T0 joins T1 within the block.
  Build b;
  b.begin(0).w(0, X).r(1, X).join(0, 1).end(0);
  EXPECT_FALSE(run_oracle(b).serializable);
  Build c;
  c.begin(0).w(0, X).r(1, Y).join(0, 1).end(0);
  EXPECT_TRUE(run_oracle(c).serializable);
}

TEST(Oracle, SameThreadOrderMatters) {
  // T1 block: w(x) ... r(y); T0 unary events in between: r(x) then w(y) by the same thread.
  Build b;
  b.begin(1).w(1, X).r(0, X).w(0, Y).r(1, Y).end(1);
  // r(x) and w(y) are separate unary transactions of T0, but they are ordered by the
  // same-thread conflict, so begin -> r(x) -> w(y) -> r(y) is a violation.
  Verdict v = run_oracle(b);
  EXPECT_FALSE(v.serializable);
  ASSERT_EQ(v.blamed.size(), 1u);
  EXPECT_EQ(v.blamed[0].txn, (TxnRef{1, 0}));
}

TEST(Oracle, OpenTransactionJudgedAsEnded) {
  Build b;
  b.begin(0).r(0, X).w(1, X).w(0, X);
  Verdict v = run_oracle(b);
  EXPECT_FALSE(v.serializable);
  EXPECT_TRUE(v.open_at_end);
  EXPECT_FALSE(v.note.empty());
}

TEST(Oracle, NonSerializableWithNobodyToBlame) {
  // Two overlapping blocks, T0 -> T1 on x and T1 -> T0 on y, where the interfering
  // event of each reaches the other block only through an end (which conflicts with no
  // other thread), so neither has begin -> e_x -> e_m (DESIGN.md: a trace can be
  // non-serializable with no transaction to blame).
  Build b;
  b.begin(0).begin(1).w(0, X).w(1, Y).r(0, Y).r(1, X).end(0).end(1);
  Verdict v = run_oracle(b);
  EXPECT_FALSE(v.serializable);
  // begin(0) -> ? -> e in T0: w(y) of T1 is not after begin(0) in happens-before, so T0
  // is not blamed; symmetrically T1 is not blamed.
  EXPECT_TRUE(v.blamed.empty());
}

TEST(Registry, OracleIsListedAndUnknownNamesAreNull) {
  bool found = false;
  for (const CheckerInfo& c : checker_catalog()) found |= c.name == "oracle";
  EXPECT_TRUE(found);
  auto c = make_checker("oracle");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->name(), "oracle");
  EXPECT_EQ(make_checker("no-such-checker"), nullptr);
}

TEST(Oracle, ResetForgetsEvents) {
  ConflictOracle o;
  Build b;
  b.begin(0).r(0, X).w(1, X).w(0, X).end(0);
  for (const Event& e : b.ev) o.on_event(e);
  EXPECT_FALSE(o.verdict().serializable);
  o.reset();
  o.on_event(b.ev[1]);
  EXPECT_TRUE(o.verdict().serializable);
}

}  // namespace
}  // namespace atomcheck
