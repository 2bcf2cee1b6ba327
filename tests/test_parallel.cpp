// Parallel exploration (--jobs, issue 17): workers run the executions the search will
// need ahead of it (predicted, or guessed from their own runs) and the search adopts
// them when adopt() proves them right, so every job count must give the same
// search as one job: the same executions in the same order (class keys, schedules),
// the same failures, outcomes, checker verdicts and counts. Checked on the random
// programs of the DPOR property tests under SC and TSO, with and without checkers, and
// with two parallel searches at once in one process.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <any>
#include <atomic>
#include <map>
#include <set>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "scheduler/api.hpp"
#include "scheduler/execution.hpp"
#include "scheduler/explore.hpp"
#include "scheduler/explore_samples.hpp"
#include "tests/support/random_program.hpp"

namespace atomcheck {
namespace {

using testing_support::describe;
using testing_support::make_random;
using testing_support::program_of;

struct Seen {
  ExploreResult result;
  std::vector<std::string> executions;  // per execution: class key, schedule, end, verdict
};

Seen search(const Program& p, MemoryModelKind m, unsigned jobs, bool oracle, bool callback) {
  Seen out;
  ExploreOptions o;
  o.strategy = StrategyKind::optimal;
  o.memory = m;
  o.count_classes = true;
  o.keep_failures = 1000000;
  o.max_executions = 20000;
  o.jobs = jobs;
  if (oracle) o.checkers = {"oracle", "velodrome"};
  std::function<void(const ExecutionView&)> cb;
  if (callback)
    cb = [&](const ExecutionView& v) {
      std::string verdicts;
      for (const Verdict& d : *v.verdicts) verdicts += d.serializable ? 's' : 'n';
      out.executions.push_back(fmt::format("{} {:x} {} {} {} {}", v.index, v.class_key, v.schedule,
                                           v.failure ? v.failure->message : "-",
                                           v.outcome ? format_outcome(*v.outcome) : "-", verdicts));
    };
  out.result = explore(p, o, cb);
  return out;
}

// Everything a user sees of a search, as one comparable string.
std::string summary(const ExploreResult& r) {
  std::string s = fmt::format("exec {} completed {} failed {} deadlocks {} stepb {} pruned {} blocked {} "
                              "classes {} rf_co {} steps {} events {} stop {} error '{}' incomplete {}",
                              r.executions, r.completed, r.failed, r.deadlocks, r.step_bounded, r.pruned,
                              r.sleep_blocked, r.classes, r.rf_co_classes, r.steps, r.events,
                              stop_reason_name(r.stop), r.error, r.reduction_incomplete);
  for (const Failure& f : r.failures)
    s += fmt::format("\n  failure {} {} {} {}", f.execution, failure_kind_name(f.kind), f.message, f.schedule);
  for (const auto& [o, n] : r.outcomes) s += fmt::format("\n  outcome {} x{}", format_outcome(o), n);
  for (const CheckerSummary& c : r.checkers)
    s += fmt::format("\n  {} flagged {} first {} {}", c.name, c.flagged, c.first_execution, c.first_schedule);
  return s;
}

// Runs of Strategy::later()'s plans made, and adopted, by check_plans (over all programs).
std::uint64_t later_runs = 0, later_adopted = 0;

// The protocol on one thread, without timing: after every begin_execution, every plan
// predict() offers is run at once by a worker strategy, and so is the worker's guess at
// the execution after each run (speculate(), chained a few times, as the pool does); the
// search adopts the run whenever its next execution is one of them. adopt() must accept
// every predicted run (a guess it may refuse), and the executions (their steps) must be
// those of the plain search, so an accepted wrong guess would show. Returns how many
// executions were adopted; `guessed` counts those that came from guesses. Plans that
// later() names are run too, as predictions (later_runs, later_adopted).
std::uint64_t check_plans(const Program& p, MemoryModelKind m, const std::string& what, std::uint64_t& guessed) {
  const bool tso = m == MemoryModelKind::tso;
  std::vector<std::vector<Transition>> plain;
  {
    detail::Execution exec(m, 0, 100000);
    auto s = make_optimal_strategy(Equivalence::rf_co, tso);
    while (s->begin_execution()) {
      exec.run(p, *s);
      plain.push_back(exec.history().chosen);
    }
  }
  detail::Execution exec(m, 0, 100000), wexec(m, 0, 100000);
  auto s = make_optimal_strategy(Equivalence::rf_co, tso);
  auto w = s->make_worker();
  struct Ran {
    std::vector<Transition> forced;
    History history;
    PlanNotes notes;
    bool guess = false;
    bool later = false;
  };
  std::map<std::uint64_t, Ran> ran;  // by Plan::key
  std::vector<Plan> plans;
  std::vector<std::uint64_t> keys;
  std::uint64_t adopted = 0;
  std::size_t n = 0;
  std::vector<Event> events;
  while (s->begin_execution()) {
    s->predict(plans, keys, 64, [](std::uint64_t) { return false; });
    for (std::size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(keys[i], plans[i].key()) << what << ": predict() gave a plan another key";
      Plan plan = plans[i];
      for (int chain = 0; chain < 4 && !ran.count(plan.key()); ++chain) {
        w->set_plan(plan);
        wexec.run(p, *w);
        Plan next;
        const bool more = w->speculate(wexec.history(), next);
        // later() names executions that are certain once this run is the search's: run
        // them too, as predictions (adopt() must accept them), when this run is one.
        std::vector<Plan> later;
        w->later(wexec.history(), later, 4);
        History h;
        wexec.swap_record(h, events);
        ran.emplace(plan.key(), Ran{plan.forced, std::move(h), w->notes(), chain > 0});
        if (chain == 0) {
          for (const Plan& l : later) {
            if (ran.count(l.key())) continue;
            w->set_plan(l);
            wexec.run(p, *w);
            History lh;
            wexec.swap_record(lh, events);
            ran.emplace(l.key(), Ran{l.forced, std::move(lh), w->notes(), false, true});
            ++later_runs;
          }
        }
        if (!more) break;
        plan = std::move(next);
      }
    }
    Plan next;
    s->current_plan(next);
    auto it = ran.find(next.key());
    if (it != ran.end() && !(it->second.forced == next.forced)) it = ran.end();
    const std::vector<Transition>* chosen = nullptr;
    const bool took = it != ran.end() && s->adopt(it->second.history, it->second.notes);
    EXPECT_TRUE(took || it == ran.end() || it->second.guess)
        << what << ": adopt() refused the run of execution " << n;
    if (took) {
      chosen = &it->second.history.chosen;
      ++adopted;
      guessed += it->second.guess;
      later_adopted += it->second.later;
    } else {
      exec.run(p, *s);
      chosen = &exec.history().chosen;
    }
    if (n >= plain.size() || !(*chosen == plain[n])) {
      ADD_FAILURE() << what << ": execution " << n << " differs from the plain search";
      return adopted;
    }
    ++n;
    if (it != ran.end()) ran.erase(it);
  }
  EXPECT_EQ(n, plain.size()) << what;
  return adopted;
}

std::size_t scaled(std::size_t n) {
  const char* s = std::getenv("ATOMCHECK_SANITIZED");
  return s && std::string(s) == "1" ? n / 6 : n;
}

void check_jobs(MemoryModelKind m, std::uint64_t seed, std::size_t n, bool spins) {
  std::mt19937_64 rng(seed);
  std::uint64_t executions = 0, taken = 0, adopted = 0, guessed = 0, wrong = 0;
  std::size_t checked = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto rp = make_random(rng, m == MemoryModelKind::tso, spins);
    Program p = program_of(rp);
    const bool oracle = i % 2 == 0, callback = i % 3 != 0;
    Seen one = search(p, m, 1, oracle, callback);
    if (one.result.stop != StopReason::none) continue;  // too big for a unit test
    const std::string what = fmt::format("program {} ({}): {}", i, m == MemoryModelKind::tso ? "tso" : "sc",
                                         describe(rp));
    adopted += check_plans(p, m, what, guessed);
    for (unsigned jobs : {2u, 3u, 4u}) {
      Seen many = search(p, m, jobs, oracle, callback);
      ASSERT_EQ(summary(many.result), summary(one.result)) << what << " with " << jobs << " jobs";
      ASSERT_EQ(many.executions, one.executions) << what << " with " << jobs << " jobs";
      EXPECT_EQ(many.result.parallel.refused, 0u) << what << ": a plan was not run as predicted";
      taken += many.result.parallel.taken + many.result.parallel.guessed;
      wrong += many.result.parallel.wrong_guesses;
    }
    executions += one.result.executions;
    ++checked;
  }
  // How much the threads took depends on the load of the machine (none at all was seen
  // with two more copies of this test beside it), so the adoption path is required of the
  // one-thread replay of the protocol instead (check_plans).
  EXPECT_GT(adopted, executions / 10);
  EXPECT_GT(guessed, 0u) << "no worker's guess was ever the next execution";
  // later()'s plans are certain once the run that named them is the search's: every one
  // run must have been adopted (as a prediction: adopt() may not refuse it either).
  EXPECT_GT(later_runs, 0u) << "later() never named an execution";
  EXPECT_EQ(later_adopted, later_runs) << "an execution later() named was not the search's";
  std::printf("checked %zu random programs (%s%s) with 1, 2, 3 and 4 jobs: %llu executions each, "
              "%llu adopted from plans run ahead on one thread (%llu of them guessed), %llu taken "
              "from workers over the three parallel runs (%llu wrong guesses refused); later() "
              "named %llu executions so far, all adopted\n",
              checked, m == MemoryModelKind::tso ? "tso" : "sc", spins ? ", spin loops" : "",
              static_cast<unsigned long long>(executions), static_cast<unsigned long long>(adopted),
              static_cast<unsigned long long>(guessed), static_cast<unsigned long long>(taken),
              static_cast<unsigned long long>(wrong), static_cast<unsigned long long>(later_runs));
}

TEST(ParallelExploration, RandomProgramsSc) { check_jobs(MemoryModelKind::sc, 7001, scaled(150), false); }
TEST(ParallelExploration, RandomProgramsTso) { check_jobs(MemoryModelKind::tso, 7002, scaled(150), false); }
TEST(ParallelExploration, RandomSpinProgramsSc) { check_jobs(MemoryModelKind::sc, 7003, scaled(100), true); }
TEST(ParallelExploration, RandomSpinProgramsTso) { check_jobs(MemoryModelKind::tso, 7004, scaled(100), true); }

// n threads each write their own slot, then read the others: many classes, no failure.
void readers(int n) {
  std::vector<std::unique_ptr<atomic<int>>> slots;
  for (int i = 0; i < n; ++i) slots.push_back(std::make_unique<atomic<int>>(0));
  std::vector<thread> ts;
  for (int i = 0; i < n; ++i)
    ts.emplace_back([&, i] {
      slots[i]->store(1);
      int seen = 0;
      for (int k = 0; k < n; ++k) seen += slots[k]->load();
      check(seen >= 1, "a thread sees its own write");
    });
  for (auto& t : ts) t.join();
}

// Nothing global: two parallel searches at once in one process (with different job
// counts) each give the one-job answer.
TEST(ParallelExploration, TwoSearchesAtOnceDoNotInterfere) {
  Program p = [] { readers(4); };
  const Seen one = search(p, MemoryModelKind::sc, 1, true, true);
  ASSERT_GT(one.result.executions, 100u);
  Seen a, b;
  std::thread ta([&] { a = search(p, MemoryModelKind::sc, 2, true, true); });
  std::thread tb([&] { b = search(p, MemoryModelKind::sc, 3, true, true); });
  ta.join();
  tb.join();
  EXPECT_EQ(summary(a.result), summary(one.result));
  EXPECT_EQ(summary(b.result), summary(one.result));
  EXPECT_EQ(a.executions, one.executions);
  EXPECT_EQ(b.executions, one.executions);
  EXPECT_GT(a.result.parallel.taken + b.result.parallel.taken, 0u);
}

// ExploreOptions::make_prepare: each thread's function sees every execution it ran,
// and on_execution gets, in the search's order, what was prepared for that very
// execution (here its schedule and trace length, so a mix-up would show), for 1-4 jobs.
TEST(ParallelExploration, PreparedWorkReachesItsExecution) {
  Program p = [] { readers(4); };
  for (unsigned jobs : {1u, 2u, 4u}) {
    std::atomic<int> made{0};
    ExploreOptions o;
    o.strategy = StrategyKind::optimal;
    o.jobs = jobs;
    o.make_prepare = [&]() -> Prepare {
      ++made;
      return [](const ExecutionView& v, std::any& out) {
        out = std::string(v.schedule) + "/" + std::to_string(v.trace->events.size());
      };
    };
    std::uint64_t seen = 0, mismatched = 0, missing = 0;
    const ExploreResult r = explore(p, o, [&](const ExecutionView& v) {
      ++seen;
      const auto* got = v.prepared ? std::any_cast<std::string>(v.prepared) : nullptr;
      if (!got) {
        ++missing;
        return;
      }
      mismatched += *got != std::string(v.schedule) + "/" + std::to_string(v.trace->events.size());
    });
    EXPECT_EQ(seen, r.executions) << jobs;
    EXPECT_GT(seen, 100u) << jobs;
    EXPECT_EQ(missing, 0u) << jobs;
    EXPECT_EQ(mismatched, 0u) << jobs;
    // One function per exploring thread: the search's, and at least one worker's (the
    // workers are capped at the cores).
    EXPECT_GE(made.load(), jobs > 1 ? 2 : 1) << jobs;
  }
}

// Limits cut a parallel search where they cut the sequential one.
TEST(ParallelExploration, MaxExecutionsAndStopOnFailureCutAtTheSameExecution) {
  Program p = [] {
    atomic<int> x(0);
    thread t1([&] { x.fetch_add(1); }), t2([&] { x.fetch_add(1); }), t3([&] {
      int v = x.load();
      check(v != 1, "saw one increment");
    });
    t1.join();
    t2.join();
    t3.join();
  };
  for (bool stop : {false, true}) {
    ExploreOptions o;
    o.strategy = StrategyKind::optimal;
    o.max_executions = stop ? 0 : 3;
    o.stop_on_failure = stop;
    ExploreResult r1 = explore(p, o);
    o.jobs = 3;
    ExploreResult r3 = explore(p, o);
    EXPECT_EQ(summary(r3), summary(r1));
    EXPECT_NE(r1.stop, StopReason::none);
  }
}

// Issue 17, item 2: random and pct split their samples across the jobs, with seeds
// derived from the given one. The merged result is exactly the sum of the one-job
// searches each worker runs (checked by running them here one by one), it is the same on
// every run, and its failures come sorted by schedule.
TEST(ParallelSampling, SplitSamplesAreTheWorkersOneJobSearchesMerged) {
  Program p = [] { readers(3); };
  Program racy = [] {
    atomic<int> x(0, "x");
    thread t1([&] { x.store(x.load() + 1); }), t2([&] { x.store(x.load() + 1); });
    t1.join();
    t2.join();
    check(x.load() == 2, "lost update");
  };
  for (StrategyKind strategy : {StrategyKind::random, StrategyKind::pct}) {
    for (unsigned jobs : {2u, 3u, 4u}) {
      for (const Program* prog : {&p, &racy}) {
        SCOPED_TRACE(fmt::format("{} jobs {}", strategy == StrategyKind::random ? "random" : "pct", jobs));
        ExploreOptions o;
        o.strategy = strategy;
        o.seed = 7;
        o.max_executions = 101;
        o.checkers = {"velodrome"};
        o.jobs = jobs;
        const ExploreResult a = explore(*prog, o);
        const ExploreResult b = explore(*prog, o);
        EXPECT_EQ(summary(a), summary(b));
        EXPECT_EQ(a.executions, 101u);
        EXPECT_EQ(a.stop, StopReason::none);
        EXPECT_TRUE(std::is_sorted(a.failures.begin(), a.failures.end(),
                                   [](const Failure& x, const Failure& y) { return x.schedule < y.schedule; }));
        // The workers' searches, one by one.
        std::map<Outcome, std::uint64_t> outcomes;
        std::uint64_t failed = 0, completed = 0, flagged = 0;
        for (unsigned w = 0; w < jobs; ++w) {
          ExploreOptions one = o;
          one.jobs = 1;
          one.seed = detail::sample_worker_seed(7, w);
          one.max_executions = 101 / jobs + (w < 101 % jobs ? 1 : 0);
          const ExploreResult r = explore(*prog, one);
          for (const auto& [out, n] : r.outcomes) outcomes[out] += n;
          failed += r.failed;
          completed += r.completed;
          flagged += r.checkers[0].flagged;
        }
        EXPECT_EQ(a.outcomes, outcomes);
        EXPECT_EQ(a.failed, failed);
        EXPECT_EQ(a.completed, completed);
        EXPECT_EQ(a.checkers[0].flagged, flagged);
        if (prog == &racy) {
          EXPECT_GT(a.failed, 0u);
        }
      }
    }
  }
  EXPECT_EQ(detail::sample_worker_seed(7, 0), 7u);
  EXPECT_NE(detail::sample_worker_seed(7, 1), detail::sample_worker_seed(7, 2));
}

// The callbacks see every execution once, under one lock, numbered i * jobs + w; a
// failure with --stop-on-failure and an interrupt stop every worker.
TEST(ParallelSampling, CallbacksAndStopsCoverEveryWorker) {
  Program racy = [] {
    atomic<int> x(0, "x");
    thread t([&] { x.store(1); });
    check(x.load() == 0, "saw the store");
    t.join();
  };
  ExploreOptions o;
  o.strategy = StrategyKind::random;
  o.max_executions = 60;
  o.jobs = 3;
  std::set<std::uint64_t> indices;
  std::uint64_t calls = 0;
  ExploreResult r = explore(racy, o, [&](const ExecutionView& v) {
    ++calls;  // unsynchronised on purpose: the lock makes it safe (TSan would say otherwise)
    indices.insert(v.index);
  });
  EXPECT_EQ(calls, 60u);
  EXPECT_EQ(indices.size(), 60u);
  EXPECT_EQ(*indices.rbegin(), 59u);

  o.stop_on_failure = true;
  o.max_executions = 0;  // unlimited: only the failure can end it
  r = explore(racy, o);
  EXPECT_EQ(r.stop, StopReason::failure);
  EXPECT_GT(r.failed, 0u);

  std::atomic<bool> stop{true};
  o.stop_on_failure = false;
  o.interrupt = &stop;
  r = explore(racy, o);
  EXPECT_EQ(r.stop, StopReason::interrupted);
}

}  // namespace
}  // namespace atomcheck
