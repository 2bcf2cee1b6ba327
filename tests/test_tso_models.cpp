// The memory-model-sensitive models of models/tso_mutex.cpp: Dekker's and Peterson's
// mutual exclusion hold under SC (exhaustive search, no failure), fail under TSO with a
// counterexample whose schedule replays to the same failure, and hold again under TSO
// with the fence in the right place; the TSO paper's Fig. 1 task pool is conflict
// serializable in every SC execution (the "oracle" checker) and lets both threads take
// the same element under TSO.
#include <string>

#include <gtest/gtest.h>

#include "tests/support/options.hpp"
#include "scheduler/runtime/api.hpp"

namespace {

using namespace atomcheck;

Program program_named(const char* name) {
  const ProgramInfo* p = find_program(name);
  if (p == nullptr) {
    ADD_FAILURE() << "program not registered: " << name;
    return [] {};
  }
  EXPECT_FALSE(p->description.empty());
  return p->body;
}

// Optimal DPOR: under TSO, DFS of these programs passes the default budget of 10^6
// schedules since starting a thread became a draining step (DPOR agrees with DFS on
// every model of the library: tests/test_models_library.cpp).
ExploreOptions exhaustive(MemoryModelKind memory) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::optimal;
  o.memory = memory;
  o.time_limit_seconds = 120;  // a safety net; these searches take well under a second
  return o;
}

void expect_holds(const char* name, MemoryModelKind memory) {
  SCOPED_TRACE(std::string(name) + (memory == MemoryModelKind::sc ? " under SC" : " under TSO"));
  ExploreResult r = explore(program_named(name), exhaustive(memory));
  EXPECT_TRUE(r.exhausted());
  EXPECT_GT(r.completed, 0u);
  EXPECT_EQ(r.failures_total(), 0u) << (r.failures.empty() ? "" : r.failures.front().message);
}

// Finds the failures whose message contains `what` (every one, with optimal DPOR) and
// replays each schedule; with `fails_while_buffered`, at least one of them happens while
// a store is still in a buffer.
void expect_fails_and_replays(const char* name, MemoryModelKind memory, const std::string& what,
                              bool fails_while_buffered, bool race_check = true) {
  SCOPED_TRACE(name);
  ExploreOptions o = exhaustive(memory);
  o.race_check = race_check;
  o.keep_failures = 1000;
  Program program = program_named(name);
  ExploreResult r = explore(program, o);
  EXPECT_TRUE(r.exhausted());
  ASSERT_GE(r.failed, 1u);
  ASSERT_FALSE(r.failures.empty());
  bool buffered_at_failure = false;
  for (const Failure& f : r.failures) {
    EXPECT_EQ(f.kind, FailureKind::assertion);
    EXPECT_NE(f.message.find(what), std::string::npos) << f.message;
    ASSERT_FALSE(f.schedule.empty());
    ReplayResult again = replay(program, f.schedule, o);
    EXPECT_TRUE(again.failed);
    EXPECT_EQ(again.failure.message, f.message);
    EXPECT_EQ(again.failure.kind, f.kind);
    // A store-buffering effect: when it happens, some store is still in a buffer
    // (issued, not committed; the other threads run on after it and drain them).
    if (again.failure.event >= again.trace.events.size()) continue;  // failed at its end
    std::size_t writes = 0, commits = 0;
    for (std::size_t i = 0; i < again.failure.event; ++i) {
      writes += again.trace.events[i].op == Op::write;
      commits += again.trace.events[i].op == Op::commit;
    }
    buffered_at_failure |= writes > commits;
  }
  if (fails_while_buffered) {
    EXPECT_TRUE(buffered_at_failure);
  }
}

TEST(TsoModels, DekkerHoldsUnderSc) {
  expect_holds("tso-dekker", MemoryModelKind::sc);
  expect_holds("tso-dekker-fenced", MemoryModelKind::sc);
}

TEST(TsoModels, DekkerFailsUnderTsoWithReplayableCounterexample) {
  expect_fails_and_replays("tso-dekker", MemoryModelKind::tso, "mutual exclusion violated", true);
}

TEST(TsoModels, DekkerWithFencesHoldsUnderTso) { expect_holds("tso-dekker-fenced", MemoryModelKind::tso); }

TEST(TsoModels, PetersonHoldsUnderSc) {
  expect_holds("tso-peterson", MemoryModelKind::sc);
  expect_holds("tso-peterson-fenced", MemoryModelKind::sc);
}

TEST(TsoModels, PetersonFailsUnderTsoWithReplayableCounterexample) {
  expect_fails_and_replays("tso-peterson", MemoryModelKind::tso, "mutual exclusion violated", true);
}

TEST(TsoModels, PetersonWithFenceHoldsUnderTso) {
  expect_holds("tso-peterson-fenced", MemoryModelKind::tso);
}

TEST(TsoModels, TaskPoolEverySCExecutionIsConflictSerializable) {
  ExploreOptions o = exhaustive(MemoryModelKind::sc);
  o.checkers = {"oracle"};
  // head and tail are plain variables: the pool races in C++ (tests/test_models_library.cpp,
  // kRacy); its serializability under SC is the paper's point.
  o.race_check = false;
  ExploreResult r = explore(program_named("tso-task-pool"), o);
  EXPECT_TRUE(r.exhausted());
  EXPECT_GT(r.completed, 1u);
  EXPECT_EQ(r.failures_total(), 0u) << (r.failures.empty() ? "" : r.failures.front().message);
  ASSERT_EQ(r.checkers.size(), 1u);
  EXPECT_EQ(r.checkers[0].name, "oracle");
  EXPECT_EQ(r.checkers[0].flagged, 0u) << r.checkers[0].first_schedule;
}

TEST(TsoModels, TaskPoolBothThreadsTakeTheSameElementUnderTso) {
  expect_fails_and_replays("tso-task-pool", MemoryModelKind::tso,
                           "both threads took the same pool element",
                           /*fails_while_buffered=*/false,  // checked after the joins
                           /*race_check=*/false);           // as in the SC test above
}

}  // namespace
