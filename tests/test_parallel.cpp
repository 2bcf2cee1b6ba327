// Parallel exploration (--jobs, issue 17): threads explore units (pending branches of
// the search's tree, carved when a thread is idle) and the search takes their executions
// as its own when it reaches them, so every job count must give the same search as one
// job: the same executions in the same order (class keys, schedules), the same failures,
// outcomes, checker verdicts and counts. Checked on the random programs of the DPOR
// property tests under SC and TSO, with and without checkers, with units run without
// threads (whole or taken over, independent of timing), and with two parallel searches
// at once in one process.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <any>
#include <atomic>
#include <map>
#include <set>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>

#include "tests/support/options.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/runtime/execution.hpp"
#include "scheduler/explore/explore.hpp"
#include "scheduler/explore/explore_samples.hpp"
#include "tests/support/random_program.hpp"
#include "tests/support/result_summary.hpp"

namespace atomcheck {
namespace {

using testing_support::describe;
using testing_support::make_random;
using testing_support::program_of;

struct Seen {
  ExploreResult result;
  std::vector<std::string> executions;  // per execution: class key, schedule, end, verdict
};

Seen search(const Program& p, MemoryModelKind m, unsigned jobs, bool oracle, bool callback,
            std::uint64_t units_inline = 0, std::size_t held_bytes = 0) {
  Seen out;
  ExploreOptions o = testing_support::every_schedule();
  o.units_inline = units_inline;
  o.units_held_bytes = held_bytes;
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

std::string summary(const ExploreResult& r) { return testing_support::result_summary(r); }

std::size_t scaled(std::size_t n) {
  const char* s = std::getenv("ATOMCHECK_SANITIZED");
  return s && std::string(s) == "1" ? n / 6 : n;
}

// Every job count, and the hand-over of units without threads (units_inline: each unit
// runs on the search's thread when carved, for at most 1, 2 or any number of executions,
// so units end taken over or whole as the test chooses, whatever the machine's load),
// must give the one-job search: the same summary and the same executions in order.
void check_jobs(MemoryModelKind m, std::uint64_t seed, std::size_t n, bool spins) {
  std::mt19937_64 rng(seed);
  std::uint64_t executions = 0, in_units = 0, taken_over = 0, discarded = 0, threaded = 0;
  std::size_t checked = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto rp = make_random(rng, m == MemoryModelKind::tso, spins);
    Program p = program_of(rp);
    const bool oracle = i % 2 == 0, callback = i % 3 != 0;
    Seen one = search(p, m, 1, oracle, callback);
    if (one.result.stop != StopReason::none) continue;  // too big for a unit test
    const std::string what = fmt::format("program {} ({}): {}", i, m == MemoryModelKind::tso ? "tso" : "sc",
                                         describe(rp));
    for (std::uint64_t inline_runs : {1u, 2u, 1000000u}) {
      Seen many = search(p, m, 2, oracle, callback, inline_runs);
      ASSERT_EQ(summary(many.result), summary(one.result)) << what << " with units of at most " << inline_runs;
      ASSERT_EQ(many.executions, one.executions) << what << " with units of at most " << inline_runs;
      in_units += many.result.parallel.unit_executions;
      taken_over += many.result.parallel.taken_over;
      discarded += many.result.parallel.discarded;
      // Without threads every unit ran when carved, so it is discarded only because its
      // branch changed, and each such change must have been reported when it happened
      // (Strategy::changed_units: the unit's thread is stopped then, not at the end).
      ASSERT_EQ(many.result.parallel.cancelled, many.result.parallel.discarded)
          << what << " with units of at most " << inline_runs;
    }
    for (unsigned jobs : {2u, 3u, 4u}) {
      Seen many = search(p, m, jobs, oracle, callback);
      ASSERT_EQ(summary(many.result), summary(one.result)) << what << " with " << jobs << " jobs";
      ASSERT_EQ(many.executions, one.executions) << what << " with " << jobs << " jobs";
      threaded += many.result.parallel.unit_executions;
    }
    executions += one.result.executions;
    ++checked;
  }
  // How much the threads take depends on the load of the machine, so the hand-over is
  // required of the runs without threads.
  EXPECT_GT(in_units, executions / 4) << "few executions came from units";
  EXPECT_GT(taken_over, 0u) << "no unit was taken over";
  std::printf("checked %zu random programs (%s%s) with 1, 2, 3 and 4 jobs: %llu executions each; "
              "without threads, units ran %llu of 3x that (%llu units taken over, %llu discarded); "
              "with threads, %llu\n",
              checked, m == MemoryModelKind::tso ? "tso" : "sc", spins ? ", spin loops" : "",
              static_cast<unsigned long long>(executions), static_cast<unsigned long long>(in_units),
              static_cast<unsigned long long>(taken_over), static_cast<unsigned long long>(discarded),
              static_cast<unsigned long long>(threaded));
}

TEST(ParallelExploration, RandomProgramsSc) { check_jobs(MemoryModelKind::sc, 7001, scaled(300), false); }
TEST(ParallelExploration, RandomProgramsTso) { check_jobs(MemoryModelKind::tso, 7002, scaled(300), false); }
TEST(ParallelExploration, RandomSpinProgramsSc) { check_jobs(MemoryModelKind::sc, 7003, scaled(200), true); }
TEST(ParallelExploration, RandomSpinProgramsTso) { check_jobs(MemoryModelKind::tso, 7004, scaled(200), true); }

// The DPOR benchmarks (models/dpor_benchmarks.cpp, the bench/ rows at a size a unit test
// affords) give the one-job search with two jobs, and with units run without threads,
// whole or taken over after two executions, under SC and TSO.
TEST(ParallelExploration, DporBenchmarksGiveTheOneJobSearch) {
  // Much smaller under the sanitizers: with lastzero-8, readers-8, indexer-13 and
  // filesystem-16 the ThreadSanitizer pass grew past this machine's 24 GB and was killed
  // (these programs run 4 to 17 fibers per execution; TSan keeps state per fiber).
  const bool small = std::getenv("ATOMCHECK_SANITIZED") != nullptr;
  for (const char* name : {small ? "lastzero-5" : "lastzero-10", small ? "readers-3" : "readers-12",
                           small ? "indexer-12" : "indexer-14", small ? "filesystem-14" : "filesystem-18"}) {
    const ProgramInfo* info = find_program(name);
    ASSERT_NE(info, nullptr) << name;
    for (MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::tso}) {
      // Checkers under SC only: under TSO they ask for the issue order, a finer
      // equivalence with far more classes (lastzero-10: over 20,000).
      const bool sc = m == MemoryModelKind::sc;
      const Seen one = search(info->body, m, 1, sc, true);
      ASSERT_EQ(one.result.stop, StopReason::none) << name << (sc ? " sc" : " tso");
      ASSERT_GT(one.result.executions, 1u) << name;
      for (std::uint64_t inline_runs : {0u, 2u, 1000000u}) {
        const Seen two = search(info->body, m, 2, sc, true, inline_runs);
        EXPECT_EQ(summary(two.result), summary(one.result)) << name << " units of " << inline_runs;
        EXPECT_EQ(two.executions, one.executions) << name << " units of " << inline_runs;
      }
    }
  }
}

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
  // Every unit carved is reached by an exhaustive search: carving does not depend on
  // timing (a thread is idle when the search starts), what the threads ran does.
  EXPECT_GT(a.result.parallel.units + a.result.parallel.discarded, 0u);
  EXPECT_GT(b.result.parallel.units + b.result.parallel.discarded, 0u);
}

// ExploreOptions::make_prepare: each thread's function sees every execution it ran,
// and on_execution gets, in the search's order, what was prepared for that very
// execution (here its schedule and trace length, so a mix-up would show), for 1-4 jobs.
TEST(ParallelExploration, PreparedWorkReachesItsExecution) {
  Program p = [] { readers(4); };
  for (unsigned jobs : {1u, 2u, 4u}) {
    std::atomic<int> made{0};
    ExploreOptions o = testing_support::every_schedule();
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
    atomic<int> x(0), y(0);
    thread t1([&] { x.fetch_add(1); y.store(1); }), t2([&] { x.fetch_add(1); y.store(2); }), t3([&] {
      int v = x.load();
      int w = y.load();
      check(v != 1 || w != 2, "saw one increment and the other's flag");
    });
    t1.join();
    t2.join();
    t3.join();
  };
  std::uint64_t from_units = 0;
  for (bool stop : {false, true}) {
    for (std::uint64_t max : {1u, 2u, 5u, 9u, 0u}) {
      if (stop && max) continue;
      ExploreOptions o = testing_support::every_schedule();
      o.strategy = StrategyKind::optimal;
      o.max_executions = max;
      o.stop_on_failure = stop;
      o.keep_failures = 100;
      const ExploreResult r1 = explore(p, o);
      if (!stop && !max) {
        ASSERT_GT(r1.executions, 9u);  // so every cut above cuts
      }
      EXPECT_EQ(r1.stop, stop ? StopReason::failure : max ? StopReason::max_executions : StopReason::none);
      o.jobs = 3;
      EXPECT_EQ(summary(explore(p, o)), summary(r1)) << "max " << max << " stop " << stop;
      for (std::uint64_t inline_runs : {1u, 3u, 1000u}) {
        o.units_inline = inline_runs;
        const ExploreResult r = explore(p, o);
        EXPECT_EQ(summary(r), summary(r1)) << "max " << max << " stop " << stop << " units of " << inline_runs;
        from_units += r.parallel.unit_executions;
      }
    }
  }
  EXPECT_GT(from_units, 0u);
}

// What the units hold for the search is bounded (issue 38: memory of N jobs within N times
// one job's): a unit stops once the bytes its runs and the other units' hold reach
// ExploreOptions::units_held_bytes, so they hold less than the bound plus one run per
// unit thread, and the search takes over the rest of its branch. The answer stays the
// one-job search's, with runs kept in a few words (no callback, no checker) and in full,
// and with more distinct outcomes than a unit keeps in its compact table (4 increments:
// 24 orders, each its own outcome), on readers-8 too.
TEST(ParallelExploration, UnitsHoldAtMostTheirBound) {
  Program increments = [] {
    atomic<int> x(0, "x");
    std::vector<thread> ts;
    for (int i = 0; i < 4; ++i) ts.emplace_back([&, i] { outcome(fmt::format("r{}", i), x.fetch_add(1)); });
    for (auto& t : ts) t.join();
  };
  const ProgramInfo* readers8 = find_program("readers-8");
  ASSERT_NE(readers8, nullptr);
  for (const auto& [name, p] : {std::pair<const char*, Program>{"increments", increments}, {"readers-8", readers8->body}}) {
    for (bool callback : {false, true}) {
      const Seen one = search(p, MemoryModelKind::sc, 1, false, callback);
      ASSERT_EQ(one.result.stop, StopReason::none) << name;
      for (std::size_t bound : {1u, 4096u, 65536u}) {
        for (std::uint64_t inline_runs : {0u, 1000000u}) {
          for (unsigned jobs : {2u, 3u}) {
            const Seen many = search(p, MemoryModelKind::sc, jobs, false, callback, inline_runs, bound);
            const ExploreResult& r = many.result;
            const std::string what =
                fmt::format("{}: bound {} units of {} jobs {} callback {}", name, bound, inline_runs, jobs, callback);
            ASSERT_EQ(summary(r), summary(one.result)) << what;
            ASSERT_EQ(many.executions, one.executions) << what;
            const std::uint64_t threads =
                inline_runs ? 1 : std::min(jobs, std::max(2u, std::thread::hardware_concurrency())) - 1;
            EXPECT_EQ(r.parallel.held_bound, bound) << what;
            EXPECT_LT(r.parallel.most_held, bound + threads * r.parallel.largest_run) << what;
            // Without threads the units run when carved, whatever the machine's load, and
            // a bound of one byte stops each at its first run.
            if (inline_runs && bound == 1) {
              EXPECT_GT(r.parallel.held_stops, 0u) << what;
              EXPECT_EQ(r.parallel.largest_run, r.parallel.most_held) << what;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(search(increments, MemoryModelKind::sc, 1, false, false).result.outcomes.size(), 24u)
      << "more outcomes than a unit's compact table (Unit::kOutcomes) holds";
}

// A body whose state outlives an execution is caught with units too: every execution is
// compared with the one before it in the search's order, whether both ran in one unit,
// the first is the search's own and the second a unit's first, or the first is a unit's
// last. Here the body's run number `odd` (counting runs as they happen, which units
// reorder, estimator walks included) does something else at its very first step, which
// every comparison sees; `searched` gets the numbers of the runs that were the search's
// (make_prepare sees those and not the walks).
ExploreResult odd_run_out(int odd, unsigned jobs, std::uint64_t units_inline, std::vector<int>* searched = nullptr) {
  int counter = 0;
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::optimal;
  o.jobs = jobs;
  o.units_inline = units_inline;
  o.make_prepare = [&]() -> Prepare {
    return [&](const ExecutionView&, std::any&) {
      if (searched) searched->push_back(counter);
    };
  };
  return explore(
      [&] {
        atomic<int> x(0, "x"), y(0, "y");
        x.store(++counter == odd ? 2 : 1);
        thread t1([&] { y.store(1); x.store(3); });
        thread t2([&] { outcome("s", y.load() + x.load()); });
        thread t3([&] { x.store(4); y.store(2); });
        t1.join();
        t2.join();
        t3.join();
      },
      o, [](const ExecutionView&) {});
}
TEST(ParallelExploration, StateOutlivingAnExecutionIsCaught) {
  std::uint64_t in_units = 0, cases = 0;
  for (std::uint64_t inline_runs : {0u, 1000000u, 3u, 1u}) {
    // Without threads the runs happen in the same order whatever `odd` is, up to it.
    std::vector<int> searched;
    const unsigned jobs = inline_runs ? 2 : 1;
    const ExploreResult all = odd_run_out(0, jobs, inline_runs, &searched);
    ASSERT_GT(all.executions, 10u);
    ASSERT_EQ(searched.size(), all.executions);
    for (int odd : searched) {
      const ExploreResult r = odd_run_out(odd, jobs, inline_runs);
      EXPECT_EQ(r.stop, StopReason::nondeterministic) << "run " << odd << ", units of " << inline_runs;
      EXPECT_NE(r.error.find("not deterministic"), std::string::npos) << r.error;
      in_units += r.parallel.unit_executions;
      ++cases;
    }
  }
  EXPECT_GT(in_units, cases) << "few of the executions compared came from units";
}

// What the body or make_prepare's function throws on a unit's thread reaches the caller,
// as it does from the search's own thread.
TEST(ParallelExploration, AnExceptionInAUnitReachesTheCaller) {
  Program p = [] { readers(3); };
  for (std::uint64_t inline_runs : {0u, 1000u}) {
    ExploreOptions o = testing_support::every_schedule();
    o.strategy = StrategyKind::optimal;
    o.jobs = 2;
    o.units_inline = inline_runs;
    std::atomic<int> runs{0};
    o.make_prepare = [&]() -> Prepare {
      return [&](const ExecutionView&, std::any&) {
        if (++runs == 20) throw std::runtime_error("prepare failed");
      };
    };
    EXPECT_THROW(explore(p, o, [](const ExecutionView&) {}), std::runtime_error) << inline_runs;
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
        ExploreOptions o = testing_support::every_schedule();
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
  ExploreOptions o = testing_support::every_schedule();
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
