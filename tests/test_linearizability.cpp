// The linearizability decider (checkers/linearizability.hpp): textbook histories, pending
// operations, P-compositionality, the budget, the shortest failing prefix, and agreement
// with the naive judge (checkers/lin_naive.cpp) on random histories.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "checkers/linearizability.hpp"
#include "checkers/lin_naive.hpp"

namespace {

using atomcheck::lin::History;
using atomcheck::lin::kNone;
using atomcheck::lin::kPending;
using atomcheck::lin::Operation;

// op(thread, method, arg, result, call, ret)
Operation op(std::uint32_t t, std::uint32_t m, std::int64_t arg, std::int64_t result, std::uint64_t call,
             std::uint64_t ret) {
  Operation o;
  o.thread = t;
  o.method = m;
  o.arg = arg;
  o.result = result;
  o.call = call;
  o.ret = ret;
  return o;
}

// Both deciders, which must agree.
bool linearizable(const std::string& spec, const History& h) {
  auto s = atomcheck::lin::make_spec(spec);
  atomcheck::lin::Answer a = atomcheck::lin::check(h, *s);
  atomcheck::lin::Answer b = atomcheck::lin::check(h, *s, {.algorithm = atomcheck::lin::Algorithm::wing_gong});
  EXPECT_EQ(a.undecided, "");
  EXPECT_EQ(b.undecided, "");
  EXPECT_EQ(a.linearizable, b.linearizable);
  return a.linearizable;
}

constexpr std::uint32_t enq = 0, deq = 1, push = 0, pop = 1, wr = 0, rd = 1;

// Queue histories in the style of Herlihy and Wing's figures: overlapping enqueues may
// take effect in either order; enqueues ordered in real time may not.
TEST(Linearizability, OverlappingEnqueuesMayReorder) {
  History h = {op(0, enq, 1, kNone, 0, 3), op(1, enq, 2, kNone, 1, 2), op(1, deq, kNone, 2, 4, 5),
               op(0, deq, kNone, 1, 6, 7)};
  EXPECT_TRUE(linearizable("queue", h));
}

TEST(Linearizability, EnqueuesInRealTimeOrderStayFifo) {
  History h = {op(0, enq, 1, kNone, 0, 1), op(1, enq, 2, kNone, 2, 3), op(0, deq, kNone, 2, 4, 5)};
  EXPECT_FALSE(linearizable("queue", h));
}

// A register read that overlaps a write may see either value; one after it may not see
// the old one (Porcupine's two register histories have this shape).
TEST(Linearizability, RegisterReadsAroundAWrite) {
  History ok = {op(0, wr, 100, kNone, 0, 10), op(1, rd, kNone, 100, 2, 4), op(2, rd, kNone, 0, 3, 5)};
  EXPECT_TRUE(linearizable("register", ok));
  History bad = {op(0, wr, 100, kNone, 0, 10), op(1, rd, kNone, 100, 2, 4), op(2, rd, kNone, 0, 5, 6)};
  EXPECT_FALSE(linearizable("register", bad));
}

// A lock is linearizable as a mutex when its critical sections never overlap: two locks
// that both returned before either unlock is a broken lock; unlock by another thread too.
TEST(Linearizability, MutexSectionsMustNotOverlap) {
  constexpr std::uint32_t lk = 0, un = 1;
  History ok = {op(0, lk, kNone, kNone, 0, 2), op(1, lk, kNone, kNone, 1, 5), op(0, un, kNone, kNone, 3, 4),
                op(1, un, kNone, kNone, 6, 7)};
  EXPECT_TRUE(linearizable("mutex", ok));
  History both = {op(0, lk, kNone, kNone, 0, 2), op(1, lk, kNone, kNone, 1, 3), op(0, un, kNone, kNone, 4, 5),
                  op(1, un, kNone, kNone, 6, 7)};
  EXPECT_FALSE(linearizable("mutex", both));
  History stolen = {op(0, lk, kNone, kNone, 0, 1), op(1, un, kNone, kNone, 2, 3)};
  EXPECT_FALSE(linearizable("mutex", stolen));
}

// The lost update of a non-atomic counter: two increments both return 0.
TEST(Linearizability, CounterLostUpdate) {
  History h = {op(0, 0, kNone, 0, 0, 3), op(1, 0, kNone, 0, 1, 2)};
  EXPECT_FALSE(linearizable("counter", h));
  h[1].result = 1;
  EXPECT_TRUE(linearizable("counter", h));
}

// A pending push may have taken effect (a later pop sees it) or not (pop sees empty).
TEST(Linearizability, PendingOperationsMayOrMayNotTakeEffect) {
  History seen = {op(0, push, 7, kNone, 0, kPending), op(1, pop, kNone, 7, 1, 2)};
  EXPECT_TRUE(linearizable("stack", seen));
  History unseen = {op(0, push, 7, kNone, 0, kPending), op(1, pop, kNone, kNone, 1, 2)};
  EXPECT_TRUE(linearizable("stack", unseen));
  // ... but a pop that completed before the push was called cannot see it.
  History early = {op(1, pop, kNone, 7, 0, 1), op(0, push, 7, kNone, 2, kPending)};
  EXPECT_FALSE(linearizable("stack", early));
}

TEST(Linearizability, StackPopsTheLastPush) {
  History h = {op(0, push, 1, kNone, 0, 1), op(0, push, 2, kNone, 2, 3), op(1, pop, kNone, 1, 4, 5)};
  EXPECT_FALSE(linearizable("stack", h));
  h[2].result = 2;
  EXPECT_TRUE(linearizable("stack", h));
}

TEST(Linearizability, WorkStealingDequeOwnerAndThief) {
  // Owner pushes 1, 2; a thief steals the top (1); the owner pops the bottom (2).
  History h = {op(0, 0, 1, kNone, 0, 1), op(0, 0, 2, kNone, 2, 3), op(1, 2, kNone, 1, 4, 7), op(0, 1, kNone, 2, 5, 6)};
  EXPECT_TRUE(linearizable("deque", h));
  h[2].result = 2;  // both got 2: the element was taken twice
  EXPECT_FALSE(linearizable("deque", h));
}

// P-compositionality: a set's keys are checked apart, with the same answers.
TEST(Linearizability, SetKeysAreCheckedApart) {
  History h = {op(0, 0, 1, 1, 0, 1), op(1, 0, 2, 1, 2, 3), op(0, 2, 1, 1, 4, 5), op(1, 1, 2, 1, 6, 7),
               op(0, 2, 2, 1, 8, 9)};  // contains(2) after remove(2): wrong
  auto s = atomcheck::lin::make_spec("set");
  EXPECT_FALSE(linearizable("set", h));
  EXPECT_FALSE(atomcheck::lin::check(h, *s).linearizable);
  EXPECT_FALSE(atomcheck::lin::check(h, *s, {.partition = false}).linearizable);
  h[4].result = 0;
  EXPECT_TRUE(atomcheck::lin::check(h, *s).linearizable);
  EXPECT_TRUE(atomcheck::lin::check(h, *s, {.partition = false}).linearizable);
}

TEST(Linearizability, BudgetAnswersUndecided) {
  History h;
  for (std::uint32_t t = 0; t < 8; ++t) h.push_back(op(t, 0, kNone, t, t, 100 + t));  // 8 overlapping increments
  h.push_back(op(0, 0, kNone, 3, 200, 201));  // the ninth returns 3: not linearizable
  auto s = atomcheck::lin::make_spec("counter");
  atomcheck::lin::Answer a = atomcheck::lin::check(h, *s, {.max_steps = 5});
  EXPECT_NE(a.undecided, "");
  EXPECT_NE(atomcheck::lin::check(h, *s, {.max_steps = 5, .algorithm = atomcheck::lin::Algorithm::wing_gong}).undecided,
            "");
  atomcheck::lin::Answer full = atomcheck::lin::check(h, *s);
  EXPECT_EQ(full.undecided, "");
  EXPECT_FALSE(full.linearizable);
}

TEST(Linearizability, ShortestFailingPrefixEndsAtTheFirstImpossibleReturn) {
  History h = {op(0, enq, 1, kNone, 0, 1), op(1, enq, 2, kNone, 2, 3), op(0, deq, kNone, 2, 4, 5),
               op(1, enq, 3, kNone, 6, 7), op(1, deq, kNone, 3, 8, 9)};
  auto s = atomcheck::lin::make_spec("queue");
  History p = atomcheck::lin::shortest_failing_prefix(h, *s);
  ASSERT_EQ(p.size(), 3u) << atomcheck::lin::format_history(p, *s);
  EXPECT_FALSE(atomcheck::lin::check(p, *s).linearizable);
  EXPECT_EQ(atomcheck::lin::format_history(p, *s),
            "T0 enqueue(1) -> none  [0, 1]\nT1 enqueue(2) -> none  [2, 3]\nT0 dequeue() -> 2  [4, 5]\n");
  History fine = {op(0, enq, 1, kNone, 0, 1)};
  EXPECT_TRUE(atomcheck::lin::shortest_failing_prefix(fine, *s).empty());
}

TEST(Linearizability, MalformedHistoriesAreRefused) {
  auto s = atomcheck::lin::make_spec("stack");
  EXPECT_THROW(atomcheck::lin::check({op(0, push, 1, kNone, 5, 4)}, *s), std::invalid_argument);
  EXPECT_THROW(atomcheck::lin::check({op(0, 9, 1, kNone, 0, 1)}, *s), std::invalid_argument);
  EXPECT_THROW(atomcheck::lin::check({op(0, push, 1, kNone, 0, 1), op(1, push, 2, kNone, 1, 2)}, *s),
               std::invalid_argument);
  EXPECT_EQ(atomcheck::lin::make_spec("heap"), nullptr);
}

// Random histories: operations of 2–3 threads with random real-time intervals; results from
// a random linearization (so about half are linearizable), then one result perturbed in
// half of them; sometimes a thread's last operation is left pending.
struct RandomHistory {
  std::string spec;
  History h;
};

RandomHistory random_history(std::mt19937_64& rng) {
  const auto& names = atomcheck::lin::spec_names();
  RandomHistory r;
  r.spec = names[rng() % names.size()];
  auto spec = atomcheck::lin::make_spec(r.spec);
  const std::size_t methods = spec->methods().size();
  const std::uint32_t threads = 2 + rng() % 2;
  std::vector<std::uint32_t> left(threads);
  std::size_t total = 0;
  for (auto& l : left) total += (l = 1 + rng() % 3);
  while (total > 6) {  // the naive judge tries n! orders
    for (auto& l : left)
      if (l > 1 && total > 6) --l, --total;
  }
  // Interleave the calls and returns of each thread's operations at random.
  std::vector<int> open(threads, -1);
  std::uint64_t now = 0;
  while (true) {
    std::vector<std::uint32_t> can;
    for (std::uint32_t t = 0; t < threads; ++t)
      if (open[t] >= 0 || left[t] > 0) can.push_back(t);
    if (can.empty()) break;
    std::uint32_t t = can[rng() % can.size()];
    if (open[t] >= 0) {
      r.h[open[t]].ret = now++;
      open[t] = -1;
    } else {
      Operation o;
      o.thread = t;
      o.method = static_cast<std::uint32_t>(rng() % methods);
      o.arg = static_cast<std::int64_t>(rng() % 3);
      o.arg2 = r.spec == "map" ? static_cast<std::int64_t>(rng() % 3) : kNone;
      if (r.spec == "counter" || (r.spec == "stack" && o.method == 1) || (r.spec == "queue" && o.method == 1) ||
          (r.spec == "deque" && o.method > 0) || (r.spec == "register" && o.method == 1))
        o.arg = kNone;
      o.call = now++;
      open[t] = static_cast<int>(r.h.size());
      r.h.push_back(o);
      --left[t];
    }
  }
  // Results from a random linearization point inside each interval.
  std::vector<std::pair<double, std::size_t>> points;
  for (std::size_t i = 0; i < r.h.size(); ++i) {
    std::uniform_real_distribution<double> d(static_cast<double>(r.h[i].call), static_cast<double>(r.h[i].ret));
    points.push_back({d(rng), i});
  }
  std::sort(points.begin(), points.end());
  std::vector<std::int64_t> state = spec->initial();
  for (auto [at, i] : points) {
    Operation probe = r.h[i];
    // step() with check_result false applies the operation; the result is then read off
    // by trying the candidates the object can return.
    for (std::int64_t v : {kNone, std::int64_t{0}, std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{4}, std::int64_t{5}}) {
      std::vector<std::int64_t> s = state;
      probe.result = v;
      if (spec->step(s, probe, true)) {
        r.h[i].result = v;
        break;
      }
    }
    spec->step(state, r.h[i], false);
  }
  if (rng() % 2) r.h[rng() % r.h.size()].result = static_cast<std::int64_t>(rng() % 4) - 1;
  if (rng() % 5 == 0) {
    Operation& last = r.h[rng() % r.h.size()];
    bool is_last = true;
    for (const Operation& o : r.h) is_last = is_last && !(o.thread == last.thread && o.call > last.call);
    if (is_last) last.ret = kPending;
  }
  return r;
}

std::uint64_t history_count() {
  if (const char* env = std::getenv("ATOMCHECK_PROPERTY_TRACES")) return std::strtoull(env, nullptr, 10);
  return 100000;
}

TEST(LinearizabilityProperties, AgreesWithTheNaiveJudge) {
  std::mt19937_64 rng(20261127);
  const std::uint64_t n = history_count();
  std::uint64_t yes = 0, pending = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    RandomHistory r = random_history(rng);
    std::vector<atomcheck::naive::LinOp> naive;
    for (const Operation& o : r.h) {
      pending += o.pending() ? 1 : 0;
      naive.push_back({o.thread, o.method, o.arg, o.arg2, o.result, o.pending(), o.call, o.pending() ? 0 : o.ret});
    }
    auto spec = atomcheck::lin::make_spec(r.spec);
    const bool want = atomcheck::naive::linearizable(r.spec, naive, kNone);
    // The searches alone, then as lin::check runs by default (a queue's or a stack's history
    // of distinct values decided by lin_collections.cpp first, a register's of distinct
    // written values by lin_register.cpp).
    for (auto algorithm : {atomcheck::lin::Algorithm::just_in_time, atomcheck::lin::Algorithm::wing_gong}) {
      atomcheck::lin::Answer a = atomcheck::lin::check(r.h, *spec, {.algorithm = algorithm, .collections = false,
                                                                       .registers = false});
      ASSERT_EQ(a.undecided, "");
      ASSERT_EQ(a.linearizable, want) << "history " << k << " of a " << r.spec << " (algorithm "
                                      << static_cast<int>(algorithm) << "):\n"
                                      << atomcheck::lin::format_history(r.h, *spec);
      a = atomcheck::lin::check(r.h, *spec, {.algorithm = algorithm});
      ASSERT_EQ(a.undecided, "");
      ASSERT_EQ(a.linearizable, want) << "history " << k << " of a " << r.spec << " (algorithm "
                                      << static_cast<int>(algorithm) << "):\n"
                                      << atomcheck::lin::format_history(r.h, *spec);
    }
    if (!want) {
      History p = atomcheck::lin::shortest_failing_prefix(r.h, *spec);
      ASSERT_FALSE(p.empty());
      ASSERT_FALSE(atomcheck::lin::check(p, *spec).linearizable);
    }
    yes += want ? 1 : 0;
  }
  std::printf("linearizability: %llu random histories checked against the naive judge (%llu linearizable, %llu "
              "pending operations)\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(yes),
              static_cast<unsigned long long>(pending));
  EXPECT_GT(yes, n / 5);
  EXPECT_LT(yes, n - n / 5);
}

}  // namespace
