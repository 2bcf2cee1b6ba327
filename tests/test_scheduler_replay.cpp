// Schedules: the printable form round-trips, replay is deterministic (1,000 random
// schedules replay to identical traces, under SC and TSO), and a schedule that does not
// fit the program is a clear error.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/search/strategy.hpp"

namespace atomcheck {
namespace {

bool same_event(const Event& a, const Event& b) {
  return a.op == b.op && a.buffered == b.buffered && a.thread == b.thread &&
         a.target == b.target && a.value == b.value && a.value2 == b.value2 &&
         a.issue == b.issue && a.loc == b.loc;
}

// A program using most of the API: locks, CAS loops, blocks, nested threads, shared data.
void busy_program() {
  mutex m("m");
  atomic<int> counter(0, "counter"), flag(0, "flag");
  shared<int> data(0, "data");
  auto worker = [&](int id) {
    {
      atomic_block b("publish");
      std::lock_guard<mutex> g(m);
      data = data + id;
    }
    int expected = counter.load(std::memory_order_relaxed);
    while (!counter.compare_exchange_weak(expected, expected + id)) {
    }
    if (id == 2) {
      thread inner([&] { flag.store(1, std::memory_order_release); });
      inner.join();
    }
    outcome("seen" + std::to_string(id), flag.load(std::memory_order_acquire));
  };
  thread t1(worker, 1), t2(worker, 2), t3(worker, 3);
  t1.join();
  t2.join();
  t3.join();
  check(counter.load() == 6, "counter");
}

struct Recorded {
  std::string schedule;
  std::vector<Event> events;
  Outcome outcome;
};

void check_replay(MemoryModelKind memory) {
  ExploreOptions o;
  o.strategy = StrategyKind::random;
  o.seed = 7;
  o.max_executions = 1000;
  o.memory = memory;
  std::vector<Recorded> seen;
  ExploreResult r = explore(busy_program, o, [&](const ExecutionView& v) {
    Recorded rec{std::string(v.schedule), v.trace->events, v.outcome ? *v.outcome : Outcome{}};
    seen.push_back(std::move(rec));
  });
  ASSERT_EQ(r.executions, 1000u);
  ASSERT_TRUE(r.ok()) << (r.failures.empty() ? r.error : r.failures[0].message);
  std::size_t distinct_schedules = 0;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (i == 0 || seen[i].schedule != seen[i - 1].schedule) ++distinct_schedules;
    ExploreOptions ro;
    ro.memory = memory;
    ReplayResult rep = replay(busy_program, seen[i].schedule, ro);
    ASSERT_FALSE(rep.failed);
    ASSERT_EQ(rep.trace.events.size(), seen[i].events.size()) << seen[i].schedule;
    for (std::size_t k = 0; k < rep.trace.events.size(); ++k)
      ASSERT_TRUE(same_event(rep.trace.events[k], seen[i].events[k]))
          << "schedule " << seen[i].schedule << " event " << k;
    ASSERT_EQ(rep.outcome, seen[i].outcome);
  }
  EXPECT_GT(distinct_schedules, 100u);  // the random strategy does explore
}

TEST(SchedulerReplay, ThousandRandomSchedulesReplayIdenticallySC) { check_replay(MemoryModelKind::sc); }
TEST(SchedulerReplay, ThousandRandomSchedulesReplayIdenticallyTSO) {
  check_replay(MemoryModelKind::tso);
}

TEST(SchedulerReplay, SameSeedSameExecutions) {
  ExploreOptions o;
  o.strategy = StrategyKind::random;
  o.seed = 99;
  o.max_executions = 50;
  std::vector<std::string> a, b;
  explore(busy_program, o, [&](const ExecutionView& v) { a.emplace_back(v.schedule); });
  explore(busy_program, o, [&](const ExecutionView& v) { b.emplace_back(v.schedule); });
  EXPECT_EQ(a, b);
  o.seed = 100;
  std::vector<std::string> c;
  explore(busy_program, o, [&](const ExecutionView& v) { c.emplace_back(v.schedule); });
  EXPECT_NE(a, c);
}

TEST(SchedulerReplay, TraceCarriesNames) {
  ExploreOptions o;
  o.max_executions = 1;
  ExploreResult r = explore(busy_program, o, [&](const ExecutionView& v) {
    EXPECT_EQ(v.trace->names.vars.name(0), "counter");
    EXPECT_EQ(v.trace->names.vars.name(2), "data");
    EXPECT_EQ(v.trace->names.locks.name(0), "m");
    EXPECT_EQ(v.trace->names.labels.name(0), "publish");
    EXPECT_EQ(v.trace->names.threads.name(0), "T0");
  });
  EXPECT_EQ(r.executions, 1u);
}

TEST(ScheduleFormat, RoundTrips) {
  std::vector<Transition> choices;
  for (ThreadId t : {0u, 0u, 0u, 0u, 0u, 0u, 1u, 2u, 40u, 40u, 11u})
    choices.push_back(Transition{t, Action::read, 0});
  choices.push_back(Transition{3, Action::flush, 0});
  choices.push_back(Transition{3, Action::flush, 0});
  std::string s = format_schedule(choices);
  EXPECT_EQ(s, "0[6]12{40}[2]b!3!3");
  std::vector<ScheduleChoice> parsed;
  std::string err;
  ASSERT_TRUE(parse_schedule(s, parsed, err)) << err;
  ASSERT_EQ(parsed.size(), choices.size());
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    EXPECT_EQ(parsed[i].thread, choices[i].thread);
    EXPECT_EQ(parsed[i].flush, choices[i].action == Action::flush);
  }
  EXPECT_FALSE(parse_schedule("0#1", parsed, err));
  EXPECT_NE(err.find("unexpected '#'"), std::string::npos);
  EXPECT_FALSE(parse_schedule("0[", parsed, err));
  EXPECT_FALSE(parse_schedule("!", parsed, err));
  EXPECT_FALSE(parse_schedule("{12", parsed, err));
}

TEST(SchedulerReplay, ScheduleThatDoesNotFitIsAnError) {
  const ProgramInfo* lost = find_program("lost-update");
  ASSERT_NE(lost, nullptr);
  // Thread 7 does not exist.
  try {
    replay(lost->body, "7");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("choice 1 is T7, which is not enabled"), std::string::npos)
        << e.what();
  }
  // Too short: the lost update needs more than one choice.
  EXPECT_THROW(replay(lost->body, "1"), std::invalid_argument);
  // Too long.
  try {
    replay(lost->body, "1111111111111111111111");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit"), std::string::npos) << e.what();
  }
  EXPECT_THROW(replay(lost->body, "x?"), std::invalid_argument);
}

}  // namespace
}  // namespace atomcheck
