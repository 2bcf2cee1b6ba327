// TruSt under rc11 models a mutex as a word of memory (Execution::set_lock_words: lock a
// compare-exchange that blocks when it reads "held", unlock a release store), where the
// interleaving exploration orders critical sections by the scheduler. The two are judged
// against each other on the DPOR property tests' random programs, which lock, try_lock,
// wait with spin_until and yield(), and use the std primitives built on mutexes: the
// same outcomes and the same kinds of failure, program by program.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"
#include "support/random_program.hpp"
#include "support/options.hpp"

namespace atomcheck {
namespace {

struct Seen {
  ExploreResult result;
  std::set<Outcome> outcomes;
  std::set<std::string> failure_kinds;
  std::string first_failure;
};

Seen run(const Program& p, bool revisits) {
  ExploreOptions o = testing_support::every_schedule();
  o.memory = MemoryModelKind::rc11;
  o.rc11_revisits = revisits;
  o.max_executions = 200000;
  o.keep_failures = 1000000;
  Seen s;
  s.result = explore(p, o);
  for (const auto& [outcome, count] : s.result.outcomes) s.outcomes.insert(outcome);
  for (const Failure& f : s.result.failures) s.failure_kinds.insert(std::string(failure_kind_name(f.kind)));
  if (!s.result.failures.empty())
    s.first_failure = s.result.failures[0].message + " (schedule " + s.result.failures[0].schedule + ")";
  return s;
}

TEST(Rc11Locks, RevisitsAgreeWithTheInterleavingsOnRandomPrograms) {
  std::mt19937_64 rng(5501);
  // 600 programs take three minutes (ATOMCHECK_RC11_LOCK_PROGRAMS=600): the suite runs 120.
  const char* asked = std::getenv("ATOMCHECK_RC11_LOCK_PROGRAMS");
  const std::size_t n = asked ? std::strtoul(asked, nullptr, 10) : std::getenv("ATOMCHECK_SANITIZED") ? 20 : 120;
  std::size_t compared = 0, skipped = 0;
  std::uint64_t old_executions = 0, new_executions = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool waits = i % 2 == 1, sync = i % 4 == 3;
    const testing_support::RandomProgram rp = testing_support::make_random(rng, false, waits, waits, sync);
    const Program p = testing_support::program_of(rp);
    const Seen old = run(p, false);
    if (!old.result.exhausted() || old.result.reduction_incomplete || !old.result.error.empty()) {
      ++skipped;
      continue;
    }
    const Seen now = run(p, true);
    const std::string what = testing_support::describe(rp);
    if (!now.result.exhausted()) {
      std::printf("not exhausted (%llu executions; the interleavings: %llu): %s\n",
                  static_cast<unsigned long long>(now.result.executions),
                  static_cast<unsigned long long>(old.result.executions), what.c_str());
      continue;
    }
    ASSERT_TRUE(now.result.error.empty()) << what << ": " << now.result.error;
    ASSERT_TRUE(now.result.exhausted()) << what << ": " << stop_reason_name(now.result.stop);
    EXPECT_EQ(now.outcomes, old.outcomes) << what;
    EXPECT_EQ(now.failure_kinds, old.failure_kinds) << what << "\nrevisits: " << now.first_failure
                                                    << "\ninterleavings: " << old.first_failure;
    ++compared;
    old_executions += old.result.executions;
    new_executions += now.result.executions;
  }
  EXPECT_GT(compared, n / 2);
  // (A few programs whose waits take and drop a mutex in a loop have more graphs than the
  // budget: said above, not compared.)
  std::printf("compared %zu random programs with locks and waits (%zu skipped): the interleavings ran %llu "
              "executions, TruSt %llu\n",
              compared, skipped, static_cast<unsigned long long>(old_executions),
              static_cast<unsigned long long>(new_executions));
}

// A lock waits for its mutex instead of reading "held" (GenMC's removeCASReadIfBlocks):
// n threads that each take one mutex once give one execution per order of their critical
// sections, n!, and none blocked; the counter they increment under it ends at n.
TEST(Rc11Locks, OneExecutionPerOrderOfCriticalSectionsAndNoneBlocked) {
  for (int n = 2; n <= 4; ++n) {
    const Program p = [n] {
      atomcheck::mutex m;
      atomcheck::atomic<int> count(0);
      std::vector<std::unique_ptr<atomcheck::thread>> ts;
      for (int t = 0; t < n; ++t)
        ts.push_back(std::make_unique<atomcheck::thread>([&] {
          m.lock();
          count.store(count.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
          m.unlock();
        }));
      for (auto& t : ts) t->join();
      atomcheck::check(count.load(std::memory_order_relaxed) == n, "an increment lost under the lock");
    };
    const Seen s = run(p, true);
    std::uint64_t orders = 1;
    for (int k = 2; k <= n; ++k) orders *= static_cast<std::uint64_t>(k);
    ASSERT_TRUE(s.result.exhausted()) << n;
    EXPECT_TRUE(s.result.failures.empty()) << n << ": " << s.first_failure;
    EXPECT_EQ(s.result.completed, orders) << n << " threads";
    EXPECT_EQ(s.result.executions, orders) << n << " threads: no execution blocks on the mutex";
  }
}

// Two mutexes taken in opposite orders deadlock; the report names the holders, as under SC.
TEST(Rc11Locks, ADeadlockNamesWhoHoldsEachMutex) {
  const Program p = [] {
    atomcheck::mutex a, b;
    atomcheck::thread t1([&] {
      a.lock();
      b.lock();
      b.unlock();
      a.unlock();
    });
    atomcheck::thread t2([&] {
      b.lock();
      a.lock();
      a.unlock();
      b.unlock();
    });
    t1.join();
    t2.join();
  };
  const Seen s = run(p, true);
  ASSERT_EQ(s.failure_kinds, std::set<std::string>{"deadlock"});
  EXPECT_NE(s.first_failure.find("held by T2"), std::string::npos) << s.first_failure;
  EXPECT_EQ(s.result.completed + s.result.failures.size(), s.result.executions) << "no execution blocked";
}

}  // namespace
}  // namespace atomcheck
