// x86-TSO core: store buffers with forwarding, flushes as transitions producing commit
// events, fences and locked operations enabled only with an empty buffer, and the
// scheduling convention's exact counts (SB: 80 schedules under plain DFS).
#include <gtest/gtest.h>

#include "tests/support/options.hpp"
#include "scheduler/runtime/api.hpp"

namespace atomcheck {
namespace {

constexpr auto rlx = std::memory_order_relaxed;

ExploreOptions tso() {
  ExploreOptions o = testing_support::every_schedule();
  o.memory = MemoryModelKind::tso;
  return o;
}

TEST(Tso, StoreBufferingHas140Schedules) {
  const ProgramInfo* sb = find_program("sb");
  ASSERT_NE(sb, nullptr);
  ExploreResult r = explore(sb->body, tso());
  // Per thread: W R F or W F R (the flush follows its write). T0 starts T1, then waits
  // for its (empty) buffer before starting T2: that draining step comes after k of T1's
  // 3 steps, and T2's 3 steps interleave with T1's other 3 - k:
  // 2 * 2 * (C(6,3) + C(5,3) + C(4,3) + C(3,3)) = 4 * 35.
  EXPECT_EQ(r.executions, 140u);
  EXPECT_EQ(r.completed, 140u);
  ExploreResult sc = explore(sb->body, testing_support::every_schedule());
  EXPECT_EQ(sc.executions, 6u);  // C(4,2)
}

TEST(Tso, EveryWriteIsCommittedAndCommitsPointAtTheirIssue) {
  const ProgramInfo* sb = find_program("sb");
  ASSERT_NE(sb, nullptr);
  std::uint64_t checked = 0;
  explore(sb->body, tso(), [&](const ExecutionView& v) {
    const auto& ev = v.trace->events;
    std::size_t writes = 0, commits = 0;
    for (std::size_t i = 0; i < ev.size(); ++i) {
      if (ev[i].op == Op::write) ++writes;
      if (ev[i].op != Op::commit) continue;
      ++commits;
      ASSERT_LT(ev[i].issue, i);
      const Event& w = ev[ev[i].issue];
      EXPECT_EQ(w.op, Op::write);
      EXPECT_EQ(w.thread, ev[i].thread);
      EXPECT_EQ(w.target, ev[i].target);
      EXPECT_EQ(w.value, ev[i].value);
    }
    EXPECT_EQ(writes, commits);
    EXPECT_EQ(drop_commits(*v.trace).events.size(), ev.size() - commits);
    ++checked;
  });
  EXPECT_EQ(checked, 140u);  // StoreBufferingHas140Schedules
}

TEST(Tso, StoreForwardingMarksBufferedReads) {
  std::uint64_t forwarded = 0, from_memory_zero = 0;
  ExploreResult r = explore(
      [] {
        atomic<int> x(0, "x");
        thread t([&] {
          x.store(1, rlx);
          outcome("own", x.load(rlx));
        });
        outcome("other", x.load(rlx));
        t.join();
      },
      tso(), [&](const ExecutionView& v) {
        for (const Event& e : v.trace->events) {
          if (e.op != Op::read) continue;
          if (e.thread == 1) {
            EXPECT_EQ(e.value, 1);  // always sees its own store
            forwarded += e.buffered;
          } else if (e.value == 0) {
            ++from_memory_zero;
          }
        }
      });
  EXPECT_TRUE(r.ok());
  EXPECT_GT(forwarded, 0u);
  EXPECT_GT(from_memory_zero, 0u);
}

TEST(Tso, FenceAndLockedOpsWaitForAnEmptyBuffer) {
  ExploreResult r = explore(
      [] {
        atomic<int> x(0), y(0), z(0);
        mutex m;
        thread t([&] {
          x.store(1, rlx);
          y.store(1, rlx);
          atomcheck::atomic_thread_fence(std::memory_order_seq_cst);
          z.store(1, rlx);
          (void)z.fetch_add(1, rlx);
          z.store(5, rlx);
          m.lock();
          m.unlock();
        });
        t.join();
      },
      tso(), [&](const ExecutionView& v) {
        // At each fence, rmw, acquire or release of T1, every earlier write of T1 is
        // committed.
        const auto& ev = v.trace->events;
        for (std::size_t i = 0; i < ev.size(); ++i) {
          Op op = ev[i].op;
          if (ev[i].thread != 1 ||
              !(op == Op::fence || op == Op::rmw || op == Op::acquire || op == Op::release))
            continue;
          for (std::size_t w = 0; w < i; ++w) {
            if (ev[w].op != Op::write || ev[w].thread != 1) continue;
            bool committed = false;
            for (std::size_t c = w + 1; c < i; ++c)
              committed |= ev[c].op == Op::commit && ev[c].issue == w;
            EXPECT_TRUE(committed) << "write " << w << " not committed before event " << i;
          }
        }
      });
  EXPECT_TRUE(r.ok());
  EXPECT_GT(r.executions, 1u);
}

TEST(Tso, SeqCstStoreGoesStraightToMemory) {
  ExploreResult r = explore(
      [] {
        atomic<int> x(0), y(0);
        thread t([&] {
          x.store(1);  // seq_cst: xchg
          outcome("r0", y.load(rlx));
        });
        y.store(1);
        outcome("r1", x.load(rlx));
        t.join();
      },
      tso(), [&](const ExecutionView& v) {
        const auto& ev = v.trace->events;
        for (std::size_t i = 0; i < ev.size(); ++i)
          if (ev[i].op == Op::write) {
            ASSERT_LT(i + 1, ev.size());
            EXPECT_EQ(ev[i + 1].op, Op::commit);
            EXPECT_EQ(ev[i + 1].issue, i);
          }
      });
  EXPECT_EQ(r.outcomes.count(Outcome{{"r0", 0}, {"r1", 0}}), 0u);
  EXPECT_EQ(r.executions, 6u);  // no buffer entries, so no flush steps: as under SC, C(4,2)
}

TEST(Tso, BuffersDrainBeforeTheEndAndBeforeJoin) {
  ExploreResult r = explore(
      [] {
        atomic<int> x(0);
        thread t([&] { x.store(7, rlx); });
        t.join();
        outcome("x", x.load(rlx));
      },
      tso());
  ASSERT_EQ(r.outcomes.size(), 1u);
  EXPECT_EQ(format_outcome(r.outcomes.begin()->first), "x=7");
}

TEST(Tso, CheckersReadTheTraceWithoutCommits) {
  const ProgramInfo* sb = find_program("sb");
  ASSERT_NE(sb, nullptr);
  ExploreOptions o = tso();
  o.checkers = {"oracle"};
  ExploreResult r = explore(sb->body, o);
  ASSERT_EQ(r.checkers.size(), 1u);
  // Unary transactions only: every trace is serializable.
  EXPECT_EQ(r.checkers[0].flagged, 0u);
}

}  // namespace
}  // namespace atomcheck
