// The one-pass trace TSO decider (checkers/tso_trace_fpt.hpp) against the naive judge
// of Definition 3 (tests/support/tso_naive_execs) and the other deciders, on random
// traces with what the TSO generator of test_tso_properties lacks: thread start and
// join, locks, begin/end blocks around them; and its streaming behaviour (witness
// window, reuse after reset). Each failure prints its seed and trace.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "checkers/tso_conflict.hpp"
#include "checkers/tso_trace.hpp"
#include "checkers/tso_trace_fpt.hpp"
#include "checkers/tso_trace_z3.hpp"
#include "tests/support/trace_builder.hpp"
#include "tests/support/tso_naive.hpp"
#include "tests/support/tso_naive_execs.hpp"
#include "trace/random_trace.hpp"

namespace atomcheck {
namespace {

using testing::Build;

std::string show(const std::vector<Event>& ev) {
  std::string s;
  for (std::size_t k = 0; k < ev.size(); ++k) {
    const Event& e = ev[k];
    s += fmt::format("{}:T{}:{}", k, e.thread, op_name(e.op));
    if (e.op != Op::fence && !is_block_op(e.op)) s += fmt::format("({})", e.target);
    s += " ";
  }
  return s;
}

// xorshift, seeded per test case.
struct Rng {
  std::uint64_t s;
  std::uint32_t below(std::uint32_t n) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return static_cast<std::uint32_t>(s % n);
  }
};

// A random trace: thread 0 may start threads 1 and 2 and later join them; every thread
// runs a few reads, writes, fences and rmws on two variables, some inside a begin/end
// block, some inside a lock section (emitted without interleaving, so locks are held by
// one thread at a time). At most about 11 events outside blocks, so the naive judge can
// enumerate every commit placement.
std::vector<Event> random_trace(std::uint64_t seed) {
  Rng rng{seed * 0x9E3779B97F4A7C15ULL + 7};
  const std::uint32_t threads = 2 + rng.below(2);
  const bool forks = rng.below(2) == 0;
  std::vector<std::vector<std::vector<Event>>> prog(threads);  // thread -> atomic chunks
  auto op = [&](ThreadId t) {
    Event e;
    e.thread = t;
    e.target = rng.below(2);
    std::uint32_t r = rng.below(20);
    e.op = r < 8 ? Op::read : r < 16 ? Op::write : r < 18 ? Op::fence : Op::rmw;
    if (e.op == Op::fence) e.target = kNoId;
    return e;
  };
  for (ThreadId t = 0; t < threads; ++t) {
    std::uint32_t ops = 1 + rng.below(3);
    bool block = rng.below(3) == 0;
    if (block) prog[t].push_back({Event{Op::begin, false, t}});
    for (std::uint32_t k = 0; k < ops; ++k) {
      if (rng.below(5) == 0) {
        Event a{Op::acquire, false, t, 0}, r{Op::release, false, t, 0};
        prog[t].push_back({a, op(t), r});
      } else {
        prog[t].push_back({op(t)});
      }
    }
    if (block) prog[t].push_back({Event{Op::end, false, t}});
  }
  if (forks) {
    for (ThreadId u = 1; u < threads; ++u) prog[0].insert(prog[0].begin(), {Event{Op::fork, false, 0, u}});
    for (ThreadId u = 1; u < threads; ++u)
      if (rng.below(2) == 0) prog[0].push_back({Event{Op::join, false, 0, u}});
  }
  std::vector<std::size_t> next(threads, 0);
  std::vector<bool> started(threads, !forks);
  started[0] = true;
  std::vector<Event> tau;
  for (;;) {
    std::vector<ThreadId> ready;
    for (ThreadId t = 0; t < threads; ++t) {
      if (!started[t] || next[t] == prog[t].size()) continue;
      const Event& e = prog[t][next[t]].front();
      if (e.op == Op::join && next[e.target] != prog[e.target].size()) continue;
      ready.push_back(t);
    }
    if (ready.empty()) break;
    ThreadId t = ready[rng.below(static_cast<std::uint32_t>(ready.size()))];
    for (const Event& e : prog[t][next[t]]) {
      tau.push_back(e);
      if (e.op == Op::fork) started[e.target] = true;
    }
    ++next[t];
  }
  return tau;
}

// The naive judge (within `naive_limit`) against the one-pass decider, brute force (within
// `brute_limit`), Z3 and the search on `tau`; a violation's witness must be a TSO execution
// with a cycle. Counts the violations and the traces the naive judge could not decide.
void deciders_agree(const std::vector<Event>& tau, std::uint64_t seed, tso::Z3Decider& z3, std::uint64_t naive_limit,
                    std::uint64_t brute_limit, std::uint64_t& violations, std::uint64_t& skipped) {
  std::optional<bool> naive = naive::trace_tso_serializable(tau, naive_limit);
  if (!naive) {
    ++skipped;
    return;
  }
  tso::TraceVerdict st = tso::decide_stream(tau);
  ASSERT_EQ(st.undecided, "") << "seed " << seed;
  ASSERT_EQ(*naive, st.serializable) << "seed " << seed << ": naive vs one-pass on " << show(tau);
  tso::TraceVerdict b = tso::decide_brute(tau, brute_limit);
  if (b.undecided.empty()) {
    ASSERT_EQ(*naive, b.serializable) << "seed " << seed << ": brute on " << show(tau);
  }
  ASSERT_EQ(*naive, z3.decide(tau).serializable) << "seed " << seed << ": z3 on " << show(tau);
  ASSERT_EQ(*naive, tso::decide_fpt(tau).serializable) << "seed " << seed << ": search on " << show(tau);
  if (!st.serializable) {
    ++violations;
    std::vector<Event> ex = tso::execution_of(tau, st.witness);
    ASSERT_FALSE(tso::tso_semantics_problem(ex, false).has_value()) << "seed " << seed;
    ASSERT_FALSE(naive::tso_serializable(ex)) << "seed " << seed << ": the witness has no cycle";
    ASSERT_FALSE(st.cycle.empty()) << "seed " << seed;
  }
}

TEST(TraceTsoStream, AgreesWithTheNaiveJudgeOnTracesWithThreadsLocksAndBlocks) {
  const std::uint64_t n = std::getenv("ATOMCHECK_SANITIZED") ? 500 : 4000;
  std::uint64_t violations = 0, skipped = 0;
  tso::Z3Decider z3;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    deciders_agree(random_trace(seed), seed, z3, 200000, 200000, violations, skipped);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(violations, n / 50);
  EXPECT_LT(skipped, n / 10);
  std::printf("%llu random traces with forks, joins, locks and blocks: naive judge, one-pass, brute force, Z3 and search agree (%llu not TSO-serializable, %llu too large for the naive judge)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(violations),
              static_cast<unsigned long long>(skipped));
}

// The naive enumeration is itself checked on counts worked out by hand.
TEST(TraceTsoStream, NaiveEnumerationCounts) {
  // w c r | w r c
  EXPECT_EQ(naive::count_executions(Build{}.w(0, 0).r(0, 0).ev), 2u);
  // the fence needs the commit first
  EXPECT_EQ(naive::count_executions(Build{}.w(0, 0).fence(0).ev), 1u);
  // w c w c | w w c c (FIFO)
  EXPECT_EQ(naive::count_executions(Build{}.w(0, 0).w(0, 1).ev), 2u);
  // two threads: w0 c0 w1 c1 | w0 w1 c0 c1 | w0 w1 c1 c0
  EXPECT_EQ(naive::count_executions(Build{}.w(0, 0).w(1, 0).ev), 3u);
}

// The first canonical form tried here was wrong: "every commit is followed by an event
// or commit it is ordered with" has no representative for this trace's only cyclic
// placements. T1's block [w x, r y] and T2's block [w x, w y]: the cycle needs T1's
// read of y before T2's commit of y, and T2's commit of x before T1's; at the end the
// commits c2(x) c2(y) c1(x) (or c2(x) c1(x) c2(y)) contain two adjacent commits of other
// threads and other variables, and moving either later only makes the other adjacent
// pair unordered. Swapping such a pair changes nothing, so the canonical form keeps
// the smaller thread first instead (tso_trace_fpt.cpp, closure).
TEST(TraceTsoStream, AdjacentUnorderedCommitsNeedAnOrderNotARelation) {
  std::vector<Event> tau = Build{}.begin(1).w(1, 0).r(1, 1).end(1).begin(2).w(2, 0).w(2, 1).end(2).ev;
  EXPECT_EQ(naive::trace_tso_serializable(tau), std::optional<bool>(false));
  EXPECT_FALSE(tso::decide_brute(tau).serializable);
  tso::TraceVerdict v = tso::decide_stream(tau);
  ASSERT_FALSE(v.serializable);
  EXPECT_FALSE(naive::tso_serializable(tso::execution_of(tau, v.witness)));
}

// The one-pass decider's verdict on tau is the naive judge's, and a violation comes
// with a witness that is a TSO execution with a cycle.
void expect_naive_verdict(const std::vector<Event>& tau, bool serializable) {
  ASSERT_EQ(naive::trace_tso_serializable(tau), std::optional<bool>(serializable)) << show(tau);
  tso::TraceVerdict v = tso::decide_stream(tau);
  ASSERT_EQ(v.undecided, "");
  ASSERT_EQ(v.serializable, serializable) << show(tau);
  if (!serializable) {
    std::vector<Event> ex = tso::execution_of(tau, v.witness);
    EXPECT_FALSE(tso::tso_semantics_problem(ex, false).has_value());
    EXPECT_FALSE(naive::tso_serializable(ex));
  }
}

// Before T1's fence its buffer must be empty: the goal is T1's commit of x. T0's pending
// write of x is no goal for the fence, yet the cycle needs its commit right before
// T1's, which orders the two (same variable). A closure that placed only commits of
// threads with a goal in their own buffer missed it (property test, seed 268).
TEST(TraceTsoStream, ACommitChainsToTheGoalThroughAnotherThreadsCommitOfItsVariable) {
  expect_naive_verdict(Build{}.begin(1).begin(0).w(0, 0).end(0).begin(0).r(1, 0).w(1, 0).fence(1).r(0, 0).r(0, 0).end(0).end(1).ev, false);
}

// Summaries with the same buffers and live transactions are pruned when one's reach,
// own and m sets lie inside the other's. Here a pruning that compared the buffers
// alone dropped the summary that closes the cycle (property test, seed 2018).
TEST(TraceTsoStream, DominanceComparesReachabilityNotOnlyBuffers) {
  expect_naive_verdict(Build{}.r(1, 2).begin(0).begin(2).w(1, 2).w(2, 1).r(0, 2).r(2, 2).rmw(0, 1).end(2).end(0).ev, false);
}

// A summary that committed a write early is dropped only when the one that still has it
// pending, committing it now, dominates it. Here T0's writes of x0 committed before
// T1's reads must be kept: dropping every summary whose buffers the less committed one
// reaches lost the cycle (property test, seed 164).
TEST(TraceTsoStream, AnEarlyCommitIsDroppedOnlyWhenTheLaterOneDominatesIt) {
  expect_naive_verdict(Build{}.r(0, 1).begin(0).begin(1).w(0, 0).r(1, 2).end(1).w(0, 0).r(1, 2).end(0).r(1, 0).ev, false);
}

// After a commit that leaves no trace (nothing live reaches its write) the search does
// not let another thread commit or an event follow it: the commit could as well come
// right after the event. Unless its thread commits again in the same run: T0's commit
// of x0 leaves no trace, but T0's commit of x1 must follow T1's (the cycle) and needs it
// first, and the canonical order puts T0's x0 before T1's x1 (property test, seed 1944).
TEST(TraceTsoStream, ACommitThatLeavesNoTraceStaysWhenItsThreadResumes) {
  expect_naive_verdict(Build{}.fork(0, 2).fork(0, 1).begin(1).w(1, 1).w(0, 0).begin(2).w(0, 1).r(1, 1).r(2, 1).w(2, 0).fence(1).end(2).end(1).join(0, 1).ev, false);
}

// A commit that a live transaction reaches is not one that leaves no trace: T1's block
// is live while T0's second write commits, and the cycle runs through that commit
// before T1's (property test, seed 8 of the test above).
TEST(TraceTsoStream, ACommitALiveTransactionReachesMayBeFollowed) {
  expect_naive_verdict(Build{}.acq(0, 0).w(0, 0).rel(0, 0).begin(1).w(0, 0).w(1, 0).r(1, 0).r(1, 0).end(1).ev, false);
}

TEST(TraceTsoStream, StoreBufferingWitnessAndReset) {
  std::vector<Event> sb = Build{}.begin(0).w(0, 0).r(0, 1).end(0).begin(1).w(1, 1).r(1, 0).end(1).ev;
  tso::TraceStream s;
  for (int round = 0; round < 2; ++round) {
    for (const Event& e : sb) s.on_event(e);
    tso::TraceVerdict v = s.finish();
    ASSERT_FALSE(v.serializable) << "round " << round;
    ASSERT_EQ(v.cycle.size(), 2u);
    std::vector<Event> ex = tso::execution_of(sb, v.witness);
    EXPECT_FALSE(tso::check_execution(ex).serializable);
    s.reset();
  }
  // Past the witness window the violation is still found, without a witness.
  tso::StreamLimits none;
  none.witness_events = 0;
  tso::TraceVerdict v = tso::decide_stream(sb, {}, none);
  EXPECT_FALSE(v.serializable);
  EXPECT_TRUE(v.witness.empty());
}

// A long serializable trace: its length does not show in the summaries kept. (A block
// first, on a variable of its own: without one the decider holds one-event transactions
// without building summaries.)
TEST(TraceTsoStream, LongFencedTraceKeepsFewSummaries) {
  Build b;
  b.begin(0).w(0, 9).r(0, 9).end(0);
  for (int k = 0; k < 20000; ++k) {
    ThreadId t = static_cast<ThreadId>(k % 3);
    b.w(t, static_cast<VarId>(k % 4)).r(t, static_cast<VarId>((k + 1) % 4)).fence(t);
  }
  tso::TraceStream s;
  for (const Event& e : b.ev) s.on_event(e);
  tso::TraceVerdict v = s.finish();
  EXPECT_EQ(v.undecided, "");
  EXPECT_TRUE(v.serializable);
  EXPECT_LT(s.peak_states(), 64u);
  EXPECT_LT(s.peak_live(), 16u);
}

// Few drains, every event its own transaction: each thread keeps about ten writes
// buffered, and the summaries used to number (D+1)^k, one per way of committing the
// buffers so far (about 4,000 on the 204-event trace of bench/trace_tso_scaling.sh).
// Dropping the summaries that committed early for nothing keeps them few.
TEST(TraceTsoStream, DeepBuffersKeepFewSummaries) {
  Rng rng{12345};
  Build b;
  b.begin(0).w(0, 19).r(0, 19).end(0);  // summaries from the start (see above)
  for (int k = 0; k < 400; ++k) {
    const ThreadId t = rng.below(4);
    const VarId x = rng.below(10);
    const std::uint32_t r = rng.below(100);
    if (r < 6) b.fence(t);
    else if (r < 8) b.rmw(t, x);
    else if (r < 54) b.r(t, x);
    else b.w(t, x);
  }
  tso::TraceStream s;
  for (const Event& e : b.ev) s.on_event(e);
  tso::TraceVerdict v = s.finish();
  EXPECT_EQ(v.undecided, "");
  std::printf("deep buffers: %s, peak %zu summaries, %zu live transactions\n", v.serializable ? "serializable" : "not serializable", s.peak_states(), s.peak_live());
  EXPECT_LT(s.peak_states(), 200u);
}


// A random unfenced trace: 4 threads, reads and writes of `vars` variables, no fence,
// rmw or thread operation, so no buffer is ever drained and every write stays buffered
// to the end of the trace (as deep as its thread's writes). Every event is its own
// transaction, except that with `blocks` a thread may wrap two operations in a
// begin/end block (without blocks no such trace has a cycle: "Unary traces" in
// docs/trace-tso-fpt.md).
std::vector<Event> random_unfenced(std::uint64_t seed, std::uint32_t events, std::uint32_t vars, bool blocks) {
  Rng rng{seed * 0x9E3779B97F4A7C15ULL + 11};
  Build b;
  std::vector<std::uint32_t> left(4, 0);
  for (std::uint32_t k = 0; k < events; ++k) {
    const ThreadId t = rng.below(4);
    if (blocks && left[t] == 0 && rng.below(4) == 0) {
      b.begin(t);
      left[t] = 2;
    }
    const VarId x = rng.below(vars);
    if (rng.below(2) == 0) b.w(t, x);
    else b.r(t, x);
    if (left[t] > 0 && --left[t] == 0) b.end(t);
  }
  for (ThreadId t = 0; t < 4; ++t)
    if (left[t] > 0) b.end(t);
  return b.ev;
}

// Unfenced traces of 4 threads with deep buffers: the naive judge, the one-pass
// decider, brute force, Z3 and the search agree, and every witness is a TSO execution
// with a cycle.
TEST(TraceTsoStream, UnfencedFourThreadTracesAgree) {
  const std::uint64_t n = std::getenv("ATOMCHECK_SANITIZED") ? 60 : 400;
  std::uint64_t violations = 0, skipped = 0;
  tso::Z3Decider z3;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    deciders_agree(random_unfenced(seed, 7 + static_cast<std::uint32_t>(seed % 4), 2, true), seed, z3, 100000, 300000,
                   violations, skipped);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(violations, n / 50);
  EXPECT_LT(skipped, n / 5);
  std::printf("%llu unfenced 4-thread traces: naive judge, one-pass, brute force, Z3 and search agree (%llu not TSO-serializable, %llu too large for the naive judge)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(violations),
              static_cast<unsigned long long>(skipped));
}

// Deep buffers on few variables: thread 0 takes about half of the events, writes are
// two thirds of the accesses, two variables, so one thread often holds three or more
// pending writes of one variable (the case where bounded buffers drop one); blocks of
// two operations as in random_unfenced, one in `block_one_in` chances per operation
// from operation `blocks_from` on (before it, a prefix of one-event transactions). No
// drain.
std::vector<Event> random_deep(std::uint64_t seed, std::uint32_t events, std::uint32_t vars,
                               std::uint32_t block_one_in = 4, std::uint32_t blocks_from = 0) {
  Rng rng{seed * 0x9E3779B97F4A7C15ULL + 23};
  Build b;
  std::vector<std::uint32_t> left(4, 0);
  for (std::uint32_t k = 0; k < events; ++k) {
    const ThreadId t = rng.below(2) == 0 ? 0 : 1 + rng.below(3);
    if (left[t] == 0 && k >= blocks_from && rng.below(block_one_in) == 0) {
      b.begin(t);
      left[t] = 2;
    }
    const VarId x = rng.below(vars);
    if (rng.below(3) != 0) b.w(t, x);
    else b.r(t, x);
    if (left[t] > 0 && --left[t] == 0) b.end(t);
  }
  for (ThreadId t = 0; t < 4; ++t)
    if (left[t] > 0) b.end(t);
  return b.ev;
}

// Some thread issues three writes of one variable: with no drain the middle one leaves
// a bounded buffer in every placement where the first is still pending.
bool drops_a_write(const std::vector<Event>& tau) {
  std::map<std::pair<ThreadId, VarId>, int> writes;
  for (const Event& e : tau)
    if (e.op == Op::write && ++writes[{e.thread, e.target}] >= 3) return true;
  return false;
}

// Unfenced 4-thread traces whose buffers hold several writes of one variable: the naive
// judge, the one-pass decider with bounded buffers and without, brute force, Z3 and the
// search agree ("Bounded buffers" in docs/trace-tso-fpt.md).
TEST(TraceTsoStream, DeepUnfencedBuffersAgree) {
  const std::uint64_t n = std::getenv("ATOMCHECK_SANITIZED") ? 60 : 400;
  std::uint64_t violations = 0, skipped = 0, dropping = 0;
  tso::Z3Decider z3;
  tso::StreamLimits exact;
  exact.bounded_buffers = false;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    // Half of them with a prefix of one-event transactions (summarised as it comes).
    std::vector<Event> tau = random_deep(seed, 7 + static_cast<std::uint32_t>(seed % 4), 2, 4, seed % 2 == 0 ? 0 : 4);
    deciders_agree(tau, seed, z3, 150000, 150000, violations, skipped);
    if (::testing::Test::HasFatalFailure()) return;
    ASSERT_EQ(tso::decide_stream(tau, {}, exact).serializable, tso::decide_stream(tau).serializable)
        << "seed " << seed << ": " << show(tau);
    dropping += drops_a_write(tau);
  }
  EXPECT_GT(violations, n / 50);
  // (About a third drop a write; a quarter is the floor a 60-trace sanitizer run keeps.)
  EXPECT_GT(dropping, n / 4);
  EXPECT_LT(skipped, n / 5);
  std::printf("%llu unfenced traces with deep buffers (%llu with three writes of a variable in one thread): naive judge, one-pass bounded and exact, brute force, Z3 and search agree (%llu not TSO-serializable, %llu too large for the naive judge)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(dropping),
              static_cast<unsigned long long>(violations), static_cast<unsigned long long>(skipped));
}

// Longer unfenced traces (30-45 events, 4 threads, 3 variables, buffers up to about 15
// deep, half of them with blocks only in their second half), beyond the naive judge: the one-pass decider with bounded buffers, without,
// and Z3 agree.
TEST(TraceTsoStream, LongUnfencedTracesBoundedAgreesWithExact) {
  const std::uint64_t n = std::getenv("ATOMCHECK_SANITIZED") ? 20 : 150;
  std::uint64_t violations = 0;
  tso::Z3Decider z3;
  tso::StreamLimits exact;
  exact.bounded_buffers = false;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    const auto events = 30 + static_cast<std::uint32_t>(seed % 16);
    std::vector<Event> tau = random_deep(seed + 700000, events, 3, 12, seed % 2 == 0 ? 0 : events / 2);
    tso::TraceVerdict b = tso::decide_stream(tau);
    tso::TraceVerdict x = tso::decide_stream(tau, {}, exact);
    ASSERT_EQ(b.undecided, "") << "seed " << seed;
    ASSERT_EQ(x.undecided, "") << "seed " << seed;
    ASSERT_EQ(x.serializable, b.serializable) << "seed " << seed << ": bounded vs exact on " << show(tau);
    ASSERT_EQ(z3.decide(tau).serializable, b.serializable) << "seed " << seed << ": z3 on " << show(tau);
    if (!b.serializable) {
      ++violations;
      std::vector<Event> ex = tso::execution_of(tau, b.witness);
      ASSERT_FALSE(tso::tso_semantics_problem(ex, false).has_value()) << "seed " << seed;
      ASSERT_FALSE(naive::tso_serializable(ex)) << "seed " << seed << ": the witness has no cycle";
    }
  }
  EXPECT_GT(violations, n / 10);
  EXPECT_LT(violations, n * 9 / 10);
  std::printf("%llu long unfenced traces: one-pass bounded and exact and Z3 agree (%llu not TSO-serializable)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(violations));
}

// Reads of x served by T0's pending write, in a block with a later access (a read of
// y, a write of z) that T1's block conflicts with: not serializable, whether the write
// commits before the reads (then they read memory) or after them (then each conflicts
// with T1's commit of x once T0's has passed). The second trace has two readers of the
// write, the older in the block.
TEST(TraceTsoStream, ReadsServedByAPendingWriteInABlock) {
  Build b;
  b.w(0, 0).begin(0).r(0, 0).begin(1).w(1, 0).w(1, 1).end(1).r(0, 1).end(0);
  expect_naive_verdict(b.ev, false);
  Build two;
  two.w(0, 0).begin(0).r(0, 0).w(0, 2).end(0).r(0, 0).begin(1).r(1, 2).w(1, 0).end(1);
  expect_naive_verdict(two.ev, false);
}

// Every transaction unary: no cycle in any execution, whatever the buffers hold
// (docs/trace-tso-fpt.md, "Unary traces"). The naive judge enumerates every commit
// placement, fences and rmws included; the one-pass decider agrees.
TEST(TraceTsoStream, UnaryTracesAreSerializable) {
  const std::uint64_t n = std::getenv("ATOMCHECK_SANITIZED") ? 60 : 300;
  std::uint64_t decided = 0;
  for (std::uint64_t seed = 0; seed < n; ++seed) {
    std::vector<Event> tau = random_unfenced(seed + 500000, 7 + static_cast<std::uint32_t>(seed % 3), 2, false);
    if (seed % 2 == 1) {  // some drains too: a fence or an rmw in place of an access
      Event& e = tau[seed % tau.size()];
      e.op = seed % 4 == 1 ? Op::fence : Op::rmw;
      if (e.op == Op::fence) e.target = kNoId;
    }
    std::optional<bool> naive = naive::trace_tso_serializable(tau, 100000);
    if (!naive) continue;
    ++decided;
    ASSERT_TRUE(*naive) << "seed " << seed << ": a unary trace with a cycle: " << show(tau);
    tso::TraceVerdict st = tso::decide_stream(tau);
    ASSERT_EQ(st.undecided, "") << "seed " << seed;
    ASSERT_TRUE(st.serializable) << "seed " << seed << ": " << show(tau);
  }
  EXPECT_GT(decided, n * 4 / 5);
}

// More live transactions than one 64-bit word holds: 100 unary writes stay buffered
// in thread 0 (no fence), then a store-buffering pair of blocks whose write of thread 0
// queues behind them. Decided, with a witness the execution checker confirms; with the
// two blocks one after the other, each fenced, decided serializable.
TEST(TraceTsoStream, MoreThanSixtyFourLiveTransactions) {
  Build pad;
  for (int k = 0; k < 100; ++k) pad.w(0, static_cast<VarId>(2 + k % 3));
  Build sb = pad;
  sb.begin(0).w(0, 0).begin(1).w(1, 1).r(0, 1).r(1, 0).end(0).end(1);
  tso::StreamLimits exact;  // every pending write kept (bounded buffers keep 6 here)
  exact.bounded_buffers = false;
  tso::TraceStream s(exact);
  for (const Event& e : sb.ev) s.on_event(e);
  tso::TraceVerdict v = s.finish();
  ASSERT_EQ(v.undecided, "");
  EXPECT_GT(s.peak_live(), 64u);
  EXPECT_FALSE(v.serializable);
  ASSERT_FALSE(v.witness.empty());
  std::vector<Event> ex = tso::execution_of(sb.ev, v.witness);
  EXPECT_FALSE(tso::tso_semantics_problem(ex, false).has_value());
  EXPECT_FALSE(tso::check_execution(ex).serializable);
  // The same pair without the padding: the same answer.
  Build bare;
  bare.begin(0).w(0, 0).begin(1).w(1, 1).r(0, 1).r(1, 0).end(0).end(1);
  EXPECT_EQ(tso::decide_stream(bare.ev).serializable, v.serializable);
  Build fenced = pad;
  fenced.begin(0).w(0, 0).fence(0).r(0, 1).end(0).begin(1).w(1, 1).fence(1).r(1, 0).end(1);
  tso::TraceStream u(exact);
  for (const Event& e : fenced.ev) u.on_event(e);
  tso::TraceVerdict w = u.finish();
  ASSERT_EQ(w.undecided, "");
  EXPECT_GT(u.peak_live(), 64u);
  EXPECT_TRUE(w.serializable);
}

// The memory budget answers undecided, never a verdict.
TEST(TraceTsoStream, MemoryBudgetAnswersUndecided) {
  Build b;
  b.begin(1).w(1, 5).r(1, 5).end(1);  // a block first: then the summaries are built
  for (int k = 0; k < 100; ++k) b.w(0, static_cast<VarId>(k % 3));
  tso::StreamLimits tiny;
  tiny.max_bytes = 4096;
  tso::TraceVerdict v = tso::decide_stream(b.ev, {}, tiny);
  EXPECT_EQ(v.undecided.rfind("budget: summaries need more than", 0), 0u) << v.undecided;
  EXPECT_EQ(tso::decide_stream(b.ev).undecided, "");
}
}  // namespace
}  // namespace atomcheck
