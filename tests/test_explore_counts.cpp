// Exact execution counts of plain DFS: k independent threads of n operations on
// distinct variables give the multinomial (kn)!/(n!)^k, and programs with locks give
// what an independent brute-force enumerator of the same abstract program counts.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <string>
#include <vector>

#include "tests/support/options.hpp"
#include "scheduler/runtime/api.hpp"

namespace atomcheck {
namespace {

std::uint64_t multinomial(int k, int n) {
  // (kn)! / (n!)^k computed as a product of binomials, exact in 64 bits for our sizes.
  std::uint64_t result = 1;
  int placed = 0;
  for (int t = 0; t < k; ++t) {
    for (int i = 1; i <= n; ++i) {
      result = result * static_cast<std::uint64_t>(placed + i) / static_cast<std::uint64_t>(i);
    }
    placed += n;
  }
  return result;
}

Program independent_threads(int k, int n) {
  return [k, n] {
    std::vector<std::unique_ptr<atomic<int>>> vars;
    for (int t = 0; t < k; ++t) vars.push_back(std::make_unique<atomic<int>>(0));
    std::vector<thread> threads;
    for (int t = 0; t < k; ++t) {
      threads.emplace_back([&vars, t, n] {
        for (int i = 0; i < n; ++i) vars[static_cast<std::size_t>(t)]->store(i);
      });
    }
    for (auto& th : threads) th.join();
  };
}

// Copy-initialisation from a value, as with std::atomic (issue 21, item 7): the
// variables are created with that value and named after their declarations (issue 38).
TEST(ExploreCounts, CopyInitialisedVariables) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::dfs;
  std::vector<std::string> names;
  ExploreResult r = explore(
      [] {
        atomic<int> x = 7;
        shared<long> y = 5;
        outcome("sum", x.load() + y.get());
      },
      o, [&](const ExecutionView& v) {
        for (const Event& e : v.trace->events)
          if (e.op == Op::read) names.push_back(v.trace->names.var(e.target));
      });
  ASSERT_EQ(r.outcomes.size(), 1u);
  EXPECT_EQ(r.outcomes.begin()->first, (Outcome{{"sum", 12}}));
  const int line = __LINE__ - 10;  // `atomic<int> x = 7;`
  EXPECT_EQ(names, (std::vector<std::string>{"test_explore_counts.cpp:" + std::to_string(line),
                                             "test_explore_counts.cpp:" + std::to_string(line + 1)}));
}

TEST(ExploreCounts, Multinomial) {
  struct Case {
    int k, n;
    std::uint64_t expected;
  };
  for (Case c : {Case{3, 3, 1680}, Case{2, 5, 252}, Case{2, 2, 6}, Case{1, 4, 1}, Case{3, 2, 90},
                 Case{4, 2, 2520}}) {
    ASSERT_EQ(multinomial(c.k, c.n), c.expected);
    ExploreResult r = explore(independent_threads(c.k, c.n), testing_support::every_schedule());
    EXPECT_EQ(r.executions, c.expected) << c.k << "x" << c.n;
    EXPECT_EQ(r.completed, c.expected);
    EXPECT_TRUE(r.exhausted());
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.steps, c.expected * static_cast<std::uint64_t>(c.k * c.n));
  }
}

// ---- programs with locks: the harness against a brute-force enumerator ----------

// An abstract thread: a sequence of operations. Every operation is a choice point.
enum class AOp { read, write, lock, unlock };
struct AStep {
  AOp op;
  int target;
};
using AProgram = std::vector<std::vector<AStep>>;

// Counts maximal interleavings: at each state, sum over enabled threads; a state with
// nothing enabled is one execution (complete or deadlocked). Mirrors the harness's rule
// that a step with a single enabled transition is not a branch (it counts the same).
struct Enumerated {
  std::uint64_t executions = 0, deadlocks = 0;
};
void enumerate(const AProgram& p, std::vector<std::size_t>& pc, std::vector<int>& owner,
               Enumerated& out) {
  bool any = false, all_done = true;
  for (std::size_t t = 0; t < p.size(); ++t) {
    if (pc[t] == p[t].size()) continue;
    all_done = false;
    const AStep& s = p[t][pc[t]];
    if (s.op == AOp::lock && owner[static_cast<std::size_t>(s.target)] != -1) continue;
    any = true;
    int saved = owner[static_cast<std::size_t>(s.target)];
    if (s.op == AOp::lock) owner[static_cast<std::size_t>(s.target)] = static_cast<int>(t);
    if (s.op == AOp::unlock) owner[static_cast<std::size_t>(s.target)] = -1;
    ++pc[t];
    enumerate(p, pc, owner, out);
    --pc[t];
    if (s.op == AOp::lock || s.op == AOp::unlock) owner[static_cast<std::size_t>(s.target)] = saved;
  }
  if (!any) {
    ++out.executions;
    if (!all_done) ++out.deadlocks;
  }
}

Enumerated brute_force(const AProgram& p, int locks) {
  std::vector<std::size_t> pc(p.size(), 0);
  std::vector<int> owner(static_cast<std::size_t>(locks), -1);
  Enumerated out;
  enumerate(p, pc, owner, out);
  return out;
}

Program harness_program(const AProgram& p, int vars, int locks) {
  return [p, vars, locks] {
    std::vector<std::unique_ptr<atomic<int>>> xs;
    std::vector<std::unique_ptr<mutex>> ms;
    for (int i = 0; i < vars; ++i) xs.push_back(std::make_unique<atomic<int>>(0));
    for (int i = 0; i < locks; ++i) ms.push_back(std::make_unique<mutex>());
    std::vector<thread> threads;
    for (const auto& steps : p) {
      threads.emplace_back([&xs, &ms, &steps] {
        for (const AStep& s : steps) {
          auto i = static_cast<std::size_t>(s.target);
          switch (s.op) {
            case AOp::read: (void)xs[i]->load(); break;
            case AOp::write: xs[i]->store(1); break;
            case AOp::lock: ms[i]->lock(); break;
            case AOp::unlock: ms[i]->unlock(); break;
          }
        }
      });
    }
    for (auto& t : threads) t.join();
  };
}

TEST(ExploreCounts, LocksMatchBruteForce) {
  const AProgram inversion = {
      {{AOp::lock, 0}, {AOp::lock, 1}, {AOp::write, 0}, {AOp::unlock, 1}, {AOp::unlock, 0}},
      {{AOp::lock, 1}, {AOp::lock, 0}, {AOp::write, 0}, {AOp::unlock, 0}, {AOp::unlock, 1}},
  };
  const AProgram counter = {
      {{AOp::lock, 0}, {AOp::read, 0}, {AOp::write, 0}, {AOp::unlock, 0}, {AOp::read, 1}},
      {{AOp::read, 1}, {AOp::lock, 0}, {AOp::read, 0}, {AOp::write, 0}, {AOp::unlock, 0}},
      {{AOp::write, 1}, {AOp::lock, 0}, {AOp::unlock, 0}},
  };
  for (const AProgram* p : {&inversion, &counter}) {
    Enumerated expected = brute_force(*p, 2);
    ExploreResult r = explore(harness_program(*p, 2, 2), testing_support::every_schedule());
    EXPECT_EQ(r.executions, expected.executions);
    EXPECT_EQ(r.deadlocks, expected.deadlocks);
    EXPECT_GT(r.executions, 1u);
  }
  EXPECT_GT(brute_force(inversion, 2).deadlocks, 0u);
}

// Random small programs with properly nested locks.
TEST(ExploreCounts, RandomLockProgramsMatchBruteForce) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 40; ++round) {
    int nthreads = 2 + static_cast<int>(rng() % 2);
    AProgram p;
    for (int t = 0; t < nthreads; ++t) {
      std::vector<AStep> steps;
      int len = 1 + static_cast<int>(rng() % (nthreads == 2 ? 3 : 2));
      for (int i = 0; i < len; ++i) {
        int kind = static_cast<int>(rng() % 3);
        int v = static_cast<int>(rng() % 2);
        if (kind == 0) steps.push_back({AOp::read, v});
        if (kind == 1) steps.push_back({AOp::write, v});
        if (kind == 2) {
          int l1 = static_cast<int>(rng() % 2), l2 = 1 - l1;
          steps.push_back({AOp::lock, l1});
          if (rng() % 2) {
            steps.push_back({AOp::lock, l2});
            steps.push_back({AOp::write, v});
            steps.push_back({AOp::unlock, l2});
          } else {
            steps.push_back({AOp::read, v});
          }
          steps.push_back({AOp::unlock, l1});
        }
      }
      p.push_back(steps);
    }
    Enumerated expected = brute_force(p, 2);
    ExploreResult r = explore(harness_program(p, 2, 2), testing_support::every_schedule());
    ASSERT_EQ(r.executions, expected.executions) << "round " << round;
    ASSERT_EQ(r.deadlocks, expected.deadlocks) << "round " << round;
  }
}

}  // namespace
}  // namespace atomcheck
