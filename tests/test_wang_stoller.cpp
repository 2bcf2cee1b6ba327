// Wang & Stoller's examples (1)-(16) as traces, with the verdicts the paper states for
// the algorithm each example is about, plus the exhaustive ground truth ("is every
// feasible interleaving view serializable?") that every prediction is compared with.
// Paper transactions become begin/end blocks, one thread each; X, Y, Z are variables and
// L, L1, L2, L3 locks. The observed order is the paper's layout where it gives one,
// otherwise the transactions one after another.
#include <gtest/gtest.h>

#include <string>

#include "checkers/registry.hpp"
#include "checkers/view_serializability.hpp"
#include "checkers/wang_stoller_block.hpp"
#include "checkers/wang_stoller_reduction.hpp"
#include "tests/support/trace_builder.hpp"

namespace atomcheck {
namespace {

using testing::Build;
constexpr VarId X = 0, Y = 1, Z = 2;
constexpr LockId L = 0, L1 = 0, L2 = 1, L3 = 2;

Verdict run(std::string_view checker, const std::vector<Event>& ev) {
  auto c = make_checker(checker);
  EXPECT_NE(c, nullptr) << checker;
  for (const Event& e : ev) c->on_event(e);
  return c->verdict();
}

bool predicts_atomic(std::string_view checker, const std::vector<Event>& ev) {
  return run(checker, ev).serializable;
}

// Ground truth: every feasible interleaving of the transactions is view serializable.
Tri truth(const std::vector<Event>& ev) { return every_interleaving_view_serializable(ev).all_serializable; }

// (1): t1: R(x) W(x), t2: R(x) -- atomic.
std::vector<Event> ex1() {
  return Build{}.begin(0).r(0, X).w(0, X).end(0).begin(1).r(1, X).end(1).ev;
}

TEST(WangStollerExamples, Ex1AtomicAndBlockAgrees) {
  EXPECT_EQ(truth(ex1()), Tri::yes);
  EXPECT_TRUE(predicts_atomic("ws-block", ex1()));
}

// (2): the three feasible traces of (1); tr2 is view-equivalent to the serial tr3, so
// the enumeration judges only two distinct data flows.
TEST(WangStollerExamples, Ex2FeasibleTracesAllViewSerializable) {
  auto tr1 = Build{}.begin(0).r(0, X).w(0, X).end(0).begin(1).r(1, X).end(1).ev;
  auto tr2 = Build{}.begin(0).r(0, X).begin(1).r(1, X).end(1).w(0, X).end(0).ev;
  auto tr3 = Build{}.begin(1).r(1, X).end(1).begin(0).r(0, X).w(0, X).end(0).ev;
  for (const auto& tr : {tr1, tr2, tr3}) {
    EXPECT_TRUE(predicts_atomic("view-oracle", tr));
    EXPECT_EQ(view_serializable(tr).serializable, Tri::yes);
  }
  ViewResult r2 = view_serializable(tr2);
  ASSERT_EQ(r2.order.size(), 2u);
  EXPECT_EQ(r2.order[0], 1u);  // t2's transaction (numbered second) first, as in tr3
  InterleavingResult all = every_interleaving_view_serializable(ex1());
  EXPECT_EQ(all.all_serializable, Tri::yes);
  EXPECT_EQ(all.interleavings, 2u);
}

// (3): setXY: setX and setY synchronized on one lock, setXY not. Race-free, not atomic.
std::vector<Event> set_xy(ThreadId t, Build b) {
  return b.begin(t).acq(t, L).w(t, X).rel(t, L).acq(t, L).w(t, Y).rel(t, L).end(t).ev;
}

TEST(WangStollerExamples, Ex3SetXYRaceFreeButNotAtomic) {
  auto ev = set_xy(1, Build{set_xy(0, Build{})});
  EXPECT_TRUE(predicts_atomic("view-oracle", ev));  // the observed run is serial
  EXPECT_EQ(truth(ev), Tri::no);
  // Every access holds L: race-free, so both-movers; the shape R B L R B L fails.
  WangStollerReduction red(CheckerOptions{}, 43);
  for (const Event& e : ev) red.on_event(e);
  auto cls = red.classify();
  EXPECT_EQ(cls[2], WangStollerReduction::Mover::both);
  Verdict v = red.verdict();
  EXPECT_FALSE(v.serializable);
  ASSERT_EQ(v.blamed.size(), 1u);
  EXPECT_EQ(v.blamed[0].interfering, 3u);  // rel(L): the L that ends the R phase
  EXPECT_EQ(v.blamed[0].at, 4u);           // acq(L): an R after it
  EXPECT_FALSE(predicts_atomic("ws-reduction-4.4", ev));
  WangStollerBlock blk;
  for (const Event& e : ev) blk.on_event(e);
  Verdict b = blk.verdict();
  EXPECT_FALSE(b.serializable);
  EXPECT_EQ(blk.last_stage(), WangStollerBlock::Stage::two_block) << b.note;
}

// (4): atomic but not view consistent.
std::vector<Event> ex4() {
  return Build{}
      .begin(0).acq(0, L).r(0, X).r(0, Y).rel(0, L).end(0)
      .begin(1).acq(1, L).r(1, X).rel(1, L).acq(1, L).r(1, Y).rel(1, L).end(1)
      .ev;
}

TEST(WangStollerExamples, Ex4AtomicNotViewConsistent) {
  EXPECT_EQ(truth(ex4()), Tri::yes);
  EXPECT_TRUE(predicts_atomic("ws-block", ex4()));
}

// (5): view consistent but not atomic: t2's write lands between t1's read and write.
std::vector<Event> ex5() {
  return Build{}
      .begin(0).acq(0, L).w(0, X).rel(0, L).end(0)
      .begin(1).acq(1, L).r(1, X).rel(1, L).acq(1, L).w(1, X).rel(1, L).end(1)
      .ev;
}

TEST(WangStollerExamples, Ex5ViewConsistentNotAtomic) {
  EXPECT_EQ(truth(ex5()), Tri::no);
  Verdict v = run("ws-block", ex5());
  EXPECT_FALSE(v.serializable);
  EXPECT_NE(v.note.find("UP4"), std::string::npos) << v.note;
  EXPECT_FALSE(predicts_atomic("ws-reduction-4.3", ex5()));
}

// (6): Theorem 4.3 proves it atomic, Theorem 4.4 cannot (t1 reads x holding no lock).
std::vector<Event> ex6() {
  return Build{}
      .begin(0).acq(0, L).w(0, X).rel(0, L).r(0, X).end(0)
      .begin(1).acq(1, L).r(1, X).rel(1, L).end(1)
      .ev;
}

TEST(WangStollerExamples, Ex6Theorem43ButNot44) {
  EXPECT_EQ(truth(ex6()), Tri::yes);
  EXPECT_TRUE(predicts_atomic("ws-reduction-4.3", ex6()));
  Verdict v = run("ws-reduction-4.4", ex6());
  EXPECT_FALSE(v.serializable);
  EXPECT_NE(v.note.find("r(v0)@4 (N)"), std::string::npos) << v.note;
}

// (7), (8), (9): the reduction-based algorithm reports a possible violation, the
// block-based one shows them atomic.
std::vector<Event> ex7() { return Build{}.begin(0).w(0, X).w(0, X).end(0).begin(1).w(1, X).end(1).ev; }
std::vector<Event> ex8() {
  Build b;
  for (ThreadId t : {0u, 1u}) b.begin(t).acq(t, L).r(t, X).rel(t, L).w(t, Y).end(t);
  return b.ev;
}
std::vector<Event> ex9() {
  Build b;
  for (ThreadId t : {0u, 1u})
    b.begin(t).acq(t, L).w(t, X).r(t, X).rel(t, L).acq(t, L).w(t, X).rel(t, L).end(t);
  return b.ev;
}

TEST(WangStollerExamples, Ex7Ex8Ex9ReductionFalseAlarmsBlockAtomic) {
  int k = 7;
  for (const auto& ev : {ex7(), ex8(), ex9()}) {
    SCOPED_TRACE(k++);
    EXPECT_EQ(truth(ev), Tri::yes);
    EXPECT_FALSE(predicts_atomic("ws-reduction-4.3", ev));
    EXPECT_FALSE(predicts_atomic("ws-reduction-4.4", ev));
    Verdict b = run("ws-block", ev);
    EXPECT_TRUE(b.serializable) << b.note;
  }
  // (8): "both transactions have the form RBLN"; (9): RBBLRBL (begin/end are B).
  WangStollerReduction red(CheckerOptions{}, 43);
  for (const Event& e : ex8()) red.on_event(e);
  auto cls = red.classify();
  using M = WangStollerReduction::Mover;
  EXPECT_EQ(std::vector<M>(cls.begin() + 1, cls.begin() + 5), (std::vector<M>{M::right, M::both, M::left, M::non}));
  WangStollerReduction red9(CheckerOptions{}, 43);
  for (const Event& e : ex9()) red9.on_event(e);
  auto cls9 = red9.classify();
  EXPECT_EQ(std::vector<M>(cls9.begin() + 1, cls9.begin() + 8),
            (std::vector<M>{M::right, M::both, M::both, M::left, M::right, M::both, M::left}));
}

// (10): potential deadlock; Theorem 5.1 alone would let e3 fall between e1 and e2.
// e1, e2 = R(x) R(x) and e3 = W(x) would be UP2. With two locks the grid search decides
// exactly (infeasible: atomic); with a third lock held the answer is unsure.
std::vector<Event> ex10(bool third_lock) {
  Build b;
  b.begin(0);
  if (third_lock) b.acq(0, L3);
  b.acq(0, L1).acq(0, L2).rel(0, L2).r(0, X).r(0, X).rel(0, L1);
  if (third_lock) b.rel(0, L3);
  b.end(0);
  b.begin(1).acq(1, L2).acq(1, L1).rel(1, L1).w(1, X).rel(1, L2).end(1);
  return b.ev;
}

TEST(WangStollerExamples, Ex10PotentialDeadlock) {
  EXPECT_EQ(truth(ex10(false)), Tri::yes);
  EXPECT_EQ(truth(ex10(true)), Tri::yes);
  WangStollerBlock blk;
  for (const Event& e : ex10(false)) blk.on_event(e);
  Verdict v = blk.verdict();
  EXPECT_TRUE(v.serializable) << v.note;
  WangStollerBlock blk3;
  for (const Event& e : ex10(true)) blk3.on_event(e);
  Verdict v3 = blk3.verdict();
  EXPECT_FALSE(v3.serializable);  // unsure counts as not atomic
  EXPECT_TRUE(blk3.last_unsure());
  EXPECT_EQ(v3.note.rfind("unsure: UP2", 0), 0u) << v3.note;
  // Without the deadlock potential (t' takes the locks in t's order) Theorem 5.1 is
  // exact and the write can land between the reads: UP2, definitely.
  auto ordered = Build{}
                     .begin(0).acq(0, L1).acq(0, L2).rel(0, L2).r(0, X).r(0, X).rel(0, L1).end(0)
                     .begin(1).acq(1, L2).rel(1, L2).w(1, X).end(1)
                     .ev;
  EXPECT_EQ(truth(ordered), Tri::no);
  Verdict o = run("ws-block", ordered);
  EXPECT_FALSE(o.serializable);
  EXPECT_EQ(o.note.rfind("UP2", 0), 0u) << o.note;
}

// (11)/(12): the two blocks of t, and (14): six reads under one lock are one block.
TEST(WangStollerExamples, Ex11Ex12Ex14Blocks) {
  auto ev = Build{}.begin(0).acq(0, L1).r(0, X).acq(0, L2).w(0, X).r(0, X).rel(0, L2).rel(0, L1).end(0).ev;
  auto blocks = ws_blocks(ev, 0, X);
  ASSERT_EQ(blocks.size(), 2u);
  WsBlock b1{'R', 'W', false, true, {L1}, {L1, L2}, {L1}};
  WsBlock b2{'W', 'R', true, false, {L1, L2}, {L1, L2}, {L1, L2}};
  EXPECT_EQ(blocks[0], b1);
  EXPECT_EQ(blocks[1], b2);
  Build b14;
  b14.begin(0).acq(0, L1);
  for (int i = 0; i < 6; ++i) b14.r(0, X);
  b14.rel(0, L1).end(0);
  auto one = ws_blocks(b14.ev, 0, X);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], (WsBlock{'R', 'R', false, false, {L1}, {L1}, {L1}}));
}

// (13): B1(b) is what finds W' between W1 and W2 (UP4 on the block <R, W2>).
TEST(WangStollerExamples, Ex13NeedsB1b) {
  auto ev = Build{}
                .begin(0).acq(0, L).r(0, X).w(0, X).rel(0, L).w(0, X).end(0)
                .begin(1).acq(1, L).w(1, X).rel(1, L).end(1)
                .ev;
  EXPECT_EQ(truth(ev), Tri::no);
  WangStollerBlock blk;
  blk.use_two_blocks = blk.use_ur_fw = false;
  for (const Event& e : ev) blk.on_event(e);
  Verdict v = blk.verdict();
  EXPECT_FALSE(v.serializable);
  EXPECT_EQ(v.note.rfind("UP4 on v0: W(v0)@9 of T1@7 can fall between R(v0)@2 and W(v0)@5", 0), 0u) << v.note;
}

// (15): t's reads see its own write; blocks from the two reads would give a false UP1.
TEST(WangStollerExamples, Ex15AtomicOwnWrite) {
  auto ev = Build{}
                .begin(0).acq(0, L).w(0, X).r(0, X).r(0, X).rel(0, L).end(0)
                .begin(1).acq(1, L).w(1, X).rel(1, L).acq(1, L).w(1, X).rel(1, L).end(1)
                .ev;
  EXPECT_EQ(truth(ev), Tri::yes);
  Verdict v = run("ws-block", ev);
  EXPECT_TRUE(v.serializable) << v.note;
}

// (16): every pair atomic, the three not: only the UR-FW enumeration of §5.4 sees it.
std::vector<Event> ex16() {
  return Build{}
      .begin(0).w(0, X)
      .begin(1).r(1, X).w(1, Z).end(1)
      .begin(2).r(2, Z).r(2, Y).end(2)
      .w(0, Y).end(0)
      .ev;
}

TEST(WangStollerExamples, Ex16NeedsTheGeneralAlgorithm) {
  EXPECT_FALSE(predicts_atomic("view-oracle", ex16()));  // the layout itself
  EXPECT_EQ(truth(ex16()), Tri::no);
  WangStollerBlock pairs;
  pairs.use_ur_fw = false;
  for (const Event& e : ex16()) pairs.on_event(e);
  EXPECT_TRUE(pairs.verdict().serializable);
  WangStollerBlock all;
  for (const Event& e : ex16()) all.on_event(e);
  Verdict v = all.verdict();
  EXPECT_FALSE(v.serializable);
  EXPECT_EQ(all.last_stage(), WangStollerBlock::Stage::ur_fw);
  EXPECT_NE(v.note.find("UR-FW"), std::string::npos);
}

// The UR-FW enumeration is the exact judge of its stage: stopped by its budget before it
// saw example (16)'s bad interleaving, the checker knows nothing and says so (it used to
// answer "unsure: not atomic", a guess).
TEST(WangStollerExamples, UrFwBudgetIsUndecided) {
  WangStollerBlock small;
  small.ur_fw_budget = 1;
  for (const Event& e : ex16()) small.on_event(e);
  Verdict v = small.verdict();
  EXPECT_FALSE(v.decided());
  EXPECT_FALSE(v.flags());
  EXPECT_EQ(v.undecided.rfind("UR-FW: node budget", 0), 0u) << v.undecided;
  // The default budget decides the same trace.
  WangStollerBlock enough;
  for (const Event& e : ex16()) enough.on_event(e);
  EXPECT_TRUE(enough.verdict().decided());
}

// §5.3's table of unserializable 2-block cases: each pair of transactions is found
// non-atomic by the 2-blocks alone (no locks, so every interleaving is feasible).
TEST(WangStollerExamples, TwoBlockCasesOfSection53) {
  struct Case {
    const char* name;
    std::vector<Event> ev;
  };
  std::vector<Case> cases = {
      {"0 reads, same order", Build{}.begin(0).w(0, X).w(0, Y).end(0).begin(1).w(1, X).w(1, Y).end(1).ev},
      {"0 reads, crossed", Build{}.begin(0).w(0, X).w(0, Y).end(0).begin(1).w(1, Y).w(1, X).end(1).ev},
      {"1 read", Build{}.begin(0).r(0, X).w(0, Y).end(0).begin(1).w(1, Y).w(1, X).end(1).ev},
      {"2 reads, R W / W R", Build{}.begin(0).r(0, X).w(0, Y).end(0).begin(1).w(1, X).r(1, Y).end(1).ev},
      {"2 reads, R R / W W", Build{}.begin(0).r(0, X).r(0, Y).end(0).begin(1).w(1, Y).w(1, X).end(1).ev},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(truth(c.ev), Tri::no);
    WangStollerBlock blk;
    blk.use_one_var = blk.use_ur_fw = false;
    for (const Event& e : c.ev) blk.on_event(e);
    EXPECT_FALSE(blk.verdict().serializable);
    EXPECT_EQ(blk.last_stage(), WangStollerBlock::Stage::two_block);
  }
  // One conflicting pair only: atomic by the rule of §5.3.
  auto one = Build{}.begin(0).r(0, X).w(0, Y).end(0).begin(1).w(1, X).r(1, Z).end(1).ev;
  EXPECT_EQ(truth(one), Tri::yes);
  EXPECT_TRUE(predicts_atomic("ws-block", one));
}

// Paper discrepancy (Theorem 5.3, "only if"; UP4): the set can be atomic while a pair
// of it is not, when a later transaction of the same thread always overwrites the final
// write. Here W'(x) of T1 may fall between t's R(x) and W(x) (UP4 for the pair), but
// T0's next transaction writes x last in every feasible interleaving, so no final write
// differs and every interleaving is view serializable. ws-block (pairwise, as the paper)
// raises a false alarm; it stays sound. Found by WangStollerProperties.SoundOnRandomTraces.
TEST(WangStollerPaperDiscrepancies, LaterTransactionMasksUP4) {
  auto ev = Build{}.begin(0).r(0, X).w(0, X).end(0).w(1, X).begin(0).w(0, X).end(0).ev;
  EXPECT_EQ(truth(ev), Tri::yes);
  Verdict v = run("ws-block", ev);
  EXPECT_FALSE(v.serializable);
  EXPECT_EQ(v.note.rfind("UP4", 0), 0u) << v.note;
  // Without T0's second transaction the UP4 finding is right.
  auto pair = Build{}.begin(0).r(0, X).w(0, X).end(0).w(1, X).ev;
  EXPECT_EQ(truth(pair), Tri::no);
  EXPECT_FALSE(predicts_atomic("ws-block", pair));
}

// The paper's feasibility test sees only locks: fork/join order is ignored, so a write
// made before a thread is forked can still "fall" inside the child's transaction. A
// false alarm (sound), kept as a test of the documented limitation.
TEST(WangStollerPaperDiscrepancies, ForkOrderIgnoredByFeasibility) {
  auto ev = Build{}.w(0, X).fork(0, 1).begin(1).r(1, X).w(1, X).end(1).ev;
  EXPECT_EQ(truth(ev), Tri::yes);
  EXPECT_FALSE(predicts_atomic("ws-block", ev));
}

TEST(WangStollerCatalog, RegisteredAsPredictiveJudgedByTheViewOracle) {
  int found = 0;
  for (const CheckerInfo& info : checker_catalog()) {
    if (info.name == "view-oracle") {
      EXPECT_EQ(info.judge, "");
      EXPECT_FALSE(info.predictive);
      ++found;
    }
    if (info.name == "ws-reduction-4.3" || info.name == "ws-reduction-4.4" || info.name == "ws-block") {
      EXPECT_EQ(info.judge, "view-oracle");
      EXPECT_TRUE(info.predictive);
      ++found;
    }
  }
  EXPECT_EQ(found, 4);
}

// The oracle is view, not conflict, serializability: blind writes make the difference.
TEST(ViewOracle, BlindWritesViewButNotConflictSerializable) {
  // t1: R(x) ... W(x); t2: W(x); t3: W(x) -- the classic view-not-conflict schedule.
  auto ev = Build{}.begin(0).r(0, X).begin(1).w(1, X).end(1).w(0, X).end(0).begin(2).w(2, X).end(2).ev;
  EXPECT_TRUE(predicts_atomic("view-oracle", ev));
  EXPECT_FALSE(predicts_atomic("oracle", ev));
  auto bad = Build{}.begin(0).r(0, X).begin(1).w(1, X).end(1).w(0, X).end(0).ev;
  Verdict v = run("view-oracle", bad);
  EXPECT_FALSE(v.serializable);
  EXPECT_FALSE(v.note.empty());
}

}  // namespace
}  // namespace atomcheck
