// The `linearizability-oracle` judge's "precedes" (docs/linearizability.md, 'What
// "precedes" means'), on hand-built traces of the doc's two-thread examples under sc, tso
// and rc11, and the naive decider's precedence relation (checkers/lin_naive.hpp).
//
// Each trace holds one queue: A = enqueue(1) by T1 and B = dequeue() -> empty by T2,
// nearly always with B called after A returned in the trace. The history is linearizable
// exactly when A does not precede B (then B goes first), so every verdict below says
// whether the rule ordered A before B.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "checkers/lin_naive.hpp"
#include "checkers/linearizability.hpp"
#include "checkers/registry.hpp"
#include "trace/event.hpp"

namespace {

using atomcheck::Event;
using atomcheck::EventIndex;
using atomcheck::kNoEvent;
using atomcheck::kNoId;
using atomcheck::kNoOrder;
using atomcheck::kPlainOrder;
using atomcheck::Op;
using atomcheck::ThreadId;
using atomcheck::Verdict;
namespace lin = atomcheck::lin;
namespace naive = atomcheck::naive;

constexpr std::uint8_t kSc = 0, kTso = 1, kRc11 = 2;
constexpr std::uint32_t X = 0, Q = 1, V = 2, Y = 3;  // x, A's variable, B's variable, y
constexpr std::uint32_t kEnqueue = 0, kDequeue = 1;
constexpr std::uint8_t kRlx = static_cast<std::uint8_t>(std::memory_order::relaxed);
constexpr std::uint8_t kAcq = static_cast<std::uint8_t>(std::memory_order::acquire);
constexpr std::uint8_t kRel = static_cast<std::uint8_t>(std::memory_order::release);
constexpr std::uint8_t kSeq = static_cast<std::uint8_t>(std::memory_order::seq_cst);

std::uint32_t queue_spec() {
  const auto& names = lin::spec_names();
  for (std::uint32_t i = 0; i < names.size(); ++i)
    if (names[i] == "queue") return i;
  throw std::logic_error("no queue specification");
}

// Events built one by one; each adder returns the new event's index.
struct Trace {
  std::vector<Event> ev;
  EventIndex add(Op op, ThreadId t, std::uint32_t target = kNoId, std::uint8_t order = kNoOrder) {
    Event e;
    e.op = op;
    e.thread = t;
    e.target = target;
    e.order = order;
    ev.push_back(e);
    return ev.size() - 1;
  }
  EventIndex call(ThreadId t, std::uint32_t method, std::int64_t arg = lin::kNone) {
    const EventIndex i = add(Op::begin, t);
    ev[i].value = arg;
    ev[i].value2 = lin::encode_operation({queue_spec(), 0, method});
    return i;
  }
  EventIndex ret(ThreadId t, std::int64_t result = lin::kNone) {
    const EventIndex i = add(Op::end, t);
    ev[i].value = result;
    return i;
  }
  EventIndex w(ThreadId t, std::uint32_t x, std::uint8_t order = kNoOrder) { return add(Op::write, t, x, order); }
  EventIndex r(ThreadId t, std::uint32_t x, std::uint8_t order = kNoOrder, EventIndex from = kNoEvent,
               bool buffered = false) {
    const EventIndex i = add(Op::read, t, x, order);
    ev[i].issue = from;
    ev[i].buffered = buffered;
    return i;
  }
  EventIndex rmw(ThreadId t, std::uint32_t x, std::uint8_t order = kNoOrder, EventIndex from = kNoEvent) {
    const EventIndex i = add(Op::rmw, t, x, order);
    ev[i].issue = from;
    return i;
  }
  EventIndex commit(EventIndex write) {
    const EventIndex i = add(Op::commit, ev[write].thread, ev[write].target);
    ev[i].issue = write;
    return i;
  }
  EventIndex fence(ThreadId t, std::uint8_t order = kNoOrder) { return add(Op::fence, t, kNoId, order); }
};

Verdict judge(const std::vector<Event>& ev, std::uint8_t memory) {
  atomcheck::CheckerOptions options;
  options.memory = memory;
  std::unique_ptr<atomcheck::Checker> c = atomcheck::make_checker("linearizability-oracle", options);
  if (!c) throw std::logic_error("linearizability-oracle is not registered");
  for (const Event& e : ev) c->on_event(e);
  return c->verdict();
}

// Linearizable (decided), i.e. A does not precede B in these traces.
bool linearizable(const std::vector<Event>& ev, std::uint8_t memory) {
  const Verdict v = judge(ev, memory);
  EXPECT_TRUE(v.decided()) << v.undecided;
  return v.decided() && !v.flags();
}

// --- SC: T1: A; x = 1 | T2: r = x; B ---

// r reads 1: x's write is before the read (rf), which orders A before B.
TEST(LinPrecedenceJudge, ScReadOfTheWriteOrdersAThenB) {
  Trace t;
  t.call(1, kEnqueue, 1);
  t.w(1, Q);
  t.ret(1);
  t.w(1, X);
  t.r(2, X);
  t.call(2, kDequeue);
  t.r(2, V);
  t.ret(2);
  EXPECT_FALSE(linearizable(t.ev, kSc));
}

// r reads 0: the read is before the write (fr); A ran entirely before B in this trace,
// yet nothing orders them, so B may go first.
TEST(LinPrecedenceJudge, ScReadBeforeTheWriteLeavesThemUnordered) {
  Trace t;
  t.call(1, kEnqueue, 1);
  t.w(1, Q);
  t.ret(1);
  t.r(2, X);
  t.call(2, kDequeue);
  t.r(2, V);
  t.ret(2);
  t.w(1, X);
  EXPECT_TRUE(linearizable(t.ev, kSc));
  // The old reading (positions in the trace) says A returned before B was called.
  std::vector<naive::LinOp> h = {{1, kEnqueue, 1, 0, lin::kNone, false, 1, 2},
                                 {2, kDequeue, 0, 0, lin::kNone, false, 6, 7}};
  EXPECT_FALSE(naive::linearizable("queue", h, lin::kNone));
}

// The same verdict-level pair with B's dequeue reading A's queue variable: the read of A's
// write orders them (not linearizable: the dequeue must find 1), the read before it not.
TEST(LinPrecedenceJudge, ScQueueVerdictFollowsTheOrderNotThePositions) {
  Trace ordered;
  ordered.call(1, kEnqueue, 1);
  ordered.w(1, Q);
  ordered.ret(1);
  ordered.call(2, kDequeue);
  ordered.r(2, Q);
  ordered.ret(2);
  EXPECT_FALSE(linearizable(ordered.ev, kSc));
  Trace unordered;  // T2's dequeue reads the queue before T1's enqueue writes it
  unordered.call(2, kDequeue);
  unordered.call(1, kEnqueue, 1);
  unordered.r(2, Q);
  unordered.ret(2);
  unordered.w(1, Q);
  unordered.ret(1);
  EXPECT_TRUE(linearizable(unordered.ev, kSc));
}

// Spawn, join and locks order operations under sc; without them the two threads' steps on
// different variables leave A and B unordered.
enum class Link { none, fork, join, lock };
std::vector<Event> linked(Link link, std::uint8_t memory) {
  const ThreadId a = link == Link::fork ? 0 : 1;  // A's thread; B runs on T2
  Trace t;
  t.call(a, kEnqueue, 1);
  const EventIndex q = t.w(a, Q);
  t.ret(a);
  if (memory == kTso) t.commit(q);  // drained by the fork or the lock, before the join
  if (link == Link::fork) t.add(Op::fork, 0, 2);
  if (link == Link::join) t.add(Op::join, 2, 1);
  if (link == Link::lock) {
    t.add(Op::acquire, 1, 7);
    t.add(Op::release, 1, 7);
    t.add(Op::acquire, 2, 7);
  }
  t.call(2, kDequeue);
  t.r(2, V);
  t.ret(2);
  return t.ev;
}

TEST(LinPrecedenceJudge, ForkJoinAndLocksOrder) {
  for (std::uint8_t memory : {kSc, kTso, kRc11}) {
    EXPECT_TRUE(linearizable(linked(Link::none, memory), memory)) << int(memory);
    EXPECT_FALSE(linearizable(linked(Link::fork, memory), memory)) << int(memory);
    EXPECT_FALSE(linearizable(linked(Link::join, memory), memory)) << int(memory);
    EXPECT_FALSE(linearizable(linked(Link::lock, memory), memory)) << int(memory);
  }
}

// --- TSO ---

// Message passing: A's store, then x = 1; both commit, T2 reads x = 1 from memory: A's
// last step and its store's commit both reach B's first step.
TEST(LinPrecedenceJudge, TsoReadOfTheCommitOrdersAThenB) {
  Trace t;
  t.call(1, kEnqueue, 1);
  const EventIndex q = t.w(1, Q);
  t.ret(1);
  const EventIndex x = t.w(1, X);
  t.commit(q);
  t.commit(x);
  t.r(2, X);
  t.call(2, kDequeue);
  t.r(2, V);
  t.ret(2);
  EXPECT_FALSE(linearizable(t.ev, kTso));
}

// The same program, T2's read served by memory before x's commit (reads 0): fr, unordered.
TEST(LinPrecedenceJudge, TsoReadBeforeTheCommitLeavesThemUnordered) {
  Trace t;
  t.call(1, kEnqueue, 1);
  const EventIndex q = t.w(1, Q);
  t.ret(1);
  const EventIndex x = t.w(1, X);
  t.r(2, X);
  t.call(2, kDequeue);
  t.r(2, V);
  t.ret(2);
  t.commit(q);
  t.commit(x);
  EXPECT_TRUE(linearizable(t.ev, kTso));
}

// Store buffering: T1: A{q = 1}; r = y (reads 0) | T2: y = 1; B{fence; ...}. A's last step
// reaches B's fence (A's read of y precedes T2's commit of y, which the fence drains), but
// A's store commits after B's first step: under tso A precedes B only once its store is
// visible, so B may go first; under sc (no buffers) the same steps order A before B.
std::vector<Event> store_buffering(int commit_q) {  // 0: never, 1: at the end, 2: before T1's read
  Trace t;
  t.call(1, kEnqueue, 1);
  const EventIndex q = t.w(1, Q);
  t.ret(1);
  if (commit_q == 2) t.commit(q);
  t.r(1, Y);
  const EventIndex y = t.w(2, Y);
  t.commit(y);
  t.call(2, kDequeue);
  t.fence(2);
  t.r(2, V);
  t.ret(2);
  if (commit_q == 1) t.commit(q);
  return t.ev;
}

TEST(LinPrecedenceJudge, TsoStoreCommittedAfterBsFirstStepLeavesThemUnordered) {
  EXPECT_TRUE(linearizable(store_buffering(1), kTso));
  // Under sc (the same steps, no commits) A's last step orders A before B.
  std::vector<Event> sc;
  for (const Event& e : store_buffering(1))
    if (e.op != Op::commit) sc.push_back(e);
  EXPECT_FALSE(linearizable(sc, kSc));
}

TEST(LinPrecedenceJudge, TsoStoreNeverCommittedOrdersNothing) {
  EXPECT_TRUE(linearizable(store_buffering(0), kTso));
}

// A's store committed before B's fence in the trace, but nothing orders the commit before
// the fence (no drain, no read of q): the commit's position is not the order.
TEST(LinPrecedenceJudge, TsoCommitEarlierInTheTraceIsNotEnough) {
  EXPECT_TRUE(linearizable(store_buffering(2), kTso));
}

// With an mfence after A, T1's buffer drains before its read of y: the commit of A's store
// reaches B's first step, and A precedes B.
TEST(LinPrecedenceJudge, TsoFenceAfterAOrdersAThenB) {
  Trace t;
  t.call(1, kEnqueue, 1);
  const EventIndex q = t.w(1, Q);
  t.ret(1);
  t.commit(q);
  t.fence(1);
  t.r(1, Y);
  const EventIndex y = t.w(2, Y);
  t.commit(y);
  t.call(2, kDequeue);
  t.fence(2);
  t.r(2, V);
  t.ret(2);
  EXPECT_FALSE(linearizable(t.ev, kTso));
}

// Same thread: T1 enqueue(1) with its store still buffered, then T1 dequeue() -> empty.
// A thread's operations are sequential whatever its buffer holds: not linearizable.
TEST(LinPrecedenceJudge, TsoSameThreadPrecedesWithTheStoreBuffered) {
  Trace t;
  t.call(1, kEnqueue, 1);
  t.w(1, Q);
  t.ret(1);
  t.call(1, kDequeue);
  t.r(1, V);
  t.ret(1);
  EXPECT_FALSE(linearizable(t.ev, kTso));
  // ... while on another thread the same steps order nothing (the store never commits).
  Trace other;
  other.call(1, kEnqueue, 1);
  other.w(1, Q);
  other.ret(1);
  other.call(2, kDequeue);
  other.r(2, V);
  other.ret(2);
  EXPECT_TRUE(linearizable(other.ev, kTso));
}

// --- RC11: T1: A; x.store(1, mo) | T2: x.load(mo') reads 1; B ---

std::vector<Event> message_passing_rc11(std::uint8_t store, std::uint8_t load, bool reads_the_store = true) {
  Trace t;
  t.call(1, kEnqueue, 1);
  t.w(1, Q, kRlx);
  t.ret(1);
  const EventIndex x = t.w(1, X, store);
  t.r(2, X, load, reads_the_store ? x : kNoEvent);
  t.call(2, kDequeue);
  t.r(2, V, kRlx);
  t.ret(2);
  return t.ev;
}

TEST(LinPrecedenceJudge, Rc11ReleaseAcquireOrdersAThenB) {
  EXPECT_FALSE(linearizable(message_passing_rc11(kRel, kAcq), kRc11));
  EXPECT_FALSE(linearizable(message_passing_rc11(kSeq, kSeq), kRc11));
}

TEST(LinPrecedenceJudge, Rc11RelaxedOrNoSynchronisationLeavesThemUnordered) {
  EXPECT_TRUE(linearizable(message_passing_rc11(kRlx, kRlx), kRc11));
  EXPECT_TRUE(linearizable(message_passing_rc11(kRel, kRlx), kRc11));
  EXPECT_TRUE(linearizable(message_passing_rc11(kRlx, kAcq), kRc11));
  EXPECT_TRUE(linearizable(message_passing_rc11(kRel, kAcq, false), kRc11));  // reads the initial 0
  EXPECT_TRUE(linearizable(message_passing_rc11(kPlainOrder, kPlainOrder), kRc11));
  // Under sc the same trace (A, the write, the read, B) orders A before B.
  EXPECT_FALSE(linearizable(message_passing_rc11(kRlx, kRlx), kSc));
}

// Fences: T1: A; fence(release); x.store(rlx) | T2: x.load(rlx) reads it; fence(acquire); B.
TEST(LinPrecedenceJudge, Rc11FencesSynchronise) {
  auto build = [](std::uint8_t f1, std::uint8_t f2) {
    Trace t;
    t.call(1, kEnqueue, 1);
    t.w(1, Q, kRlx);
    t.ret(1);
    t.fence(1, f1);
    const EventIndex x = t.w(1, X, kRlx);
    t.r(2, X, kRlx, x);
    t.fence(2, f2);
    t.call(2, kDequeue);
    t.r(2, V, kRlx);
    t.ret(2);
    return t.ev;
  };
  EXPECT_FALSE(linearizable(build(kRel, kAcq), kRc11));
  EXPECT_TRUE(linearizable(build(kAcq, kAcq), kRc11));  // no release side
  EXPECT_TRUE(linearizable(build(kRel, kRel), kRc11));  // no acquire side
}

// Release sequence: T1's release store of x, T3's relaxed rmw of x reading it, T2's acquire
// load reading the rmw: T1 synchronises with T2. A relaxed store of T3 instead breaks it.
TEST(LinPrecedenceJudge, Rc11ReleaseSequenceThroughAnRmw) {
  auto build = [](bool rmw) {
    Trace t;
    t.call(1, kEnqueue, 1);
    t.w(1, Q, kRlx);
    t.ret(1);
    const EventIndex x = t.w(1, X, kRel);
    const EventIndex m = rmw ? t.rmw(3, X, kRlx, x) : t.w(3, X, kRlx);
    t.r(2, X, kAcq, m);
    t.call(2, kDequeue);
    t.r(2, V, kRlx);
    t.ret(2);
    return t.ev;
  };
  EXPECT_FALSE(linearizable(build(true), kRc11));
  EXPECT_TRUE(linearizable(build(false), kRc11));
}

// --- limits ---

TEST(LinPrecedenceJudge, TooManyEventsOrAnUnknownModelIsUndecided) {
  Trace t;
  t.call(1, kEnqueue, 1);
  for (int i = 0; i < 400; ++i) t.w(1, Q);
  t.ret(1);
  const Verdict big = judge(t.ev, kSc);
  EXPECT_TRUE(big.too_large()) << big.undecided;
  Trace small;
  small.call(1, kEnqueue, 1);
  small.w(1, Q);
  small.ret(1);
  EXPECT_TRUE(judge(small.ev, kSc).decided());
  EXPECT_FALSE(judge(small.ev, 3).decided());
}

// --- the naive decider's relation ---

TEST(LinNaivePrecedence, TheRelationIsWhatOrders) {
  const std::vector<naive::LinOp> h = {{1, kEnqueue, 1, 0, lin::kNone, false, 0, 0},
                                       {2, kDequeue, 0, 0, lin::kNone, false, 0, 0}};
  using M = std::vector<std::vector<bool>>;
  EXPECT_TRUE(naive::linearizable("queue", h, lin::kNone, M{{false, false}, {false, false}}));
  EXPECT_FALSE(naive::linearizable("queue", h, lin::kNone, M{{false, true}, {false, false}}));
  EXPECT_TRUE(naive::linearizable("queue", h, lin::kNone, M{{false, false}, {true, false}}));
  // A pending enqueue precedes nothing, whatever its row says: here it must take effect
  // after the empty dequeue and before a third one, which returns its 1.
  std::vector<naive::LinOp> p = h;
  p[0].pending = true;
  p.push_back({3, kDequeue, 0, 0, 1, false, 0, 0});
  const M pending_first = {{false, true, false}, {false, false, true}, {false, false, false}};
  EXPECT_TRUE(naive::linearizable("queue", p, lin::kNone, pending_first));
  p[0].pending = false;  // completed, it does precede the empty dequeue
  EXPECT_FALSE(naive::linearizable("queue", p, lin::kNone, pending_first));
  EXPECT_THROW(naive::linearizable("queue", h, lin::kNone, M{{false, false}}), std::invalid_argument);
  EXPECT_THROW(naive::linearizable("queue", h, lin::kNone, M{{false}, {false}}), std::invalid_argument);
}

}  // namespace
