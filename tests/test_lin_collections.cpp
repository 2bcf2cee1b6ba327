// The polynomial queue and stack checks (checkers/lin_collections.hpp): each bad pattern as
// a tiny history, their linearizable neighbours, and random small histories of distinct
// values against the naive judge (checkers/lin_naive.cpp), which shares no code with them:
// every verdict the check gives must be the judge's, and it must give one on the large
// majority. Then histories of 10^5 operations, decided without the search.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "checkers/lin_collections.hpp"
#include "checkers/lin_naive.hpp"
#include "checkers/linearizability.hpp"

namespace {

using atomcheck::lin::Collection;
using atomcheck::lin::CollectionAnswer;
using atomcheck::lin::History;
using atomcheck::lin::kNone;
using atomcheck::lin::kPending;
using atomcheck::lin::Operation;
using Verdict = CollectionAnswer::Verdict;

constexpr std::uint32_t kIn = 0, kOut = 1;  // enqueue/push, dequeue/pop

Operation in(std::uint32_t t, std::int64_t v, std::uint64_t call, std::uint64_t ret) {
  Operation o;
  o.thread = t;
  o.method = kIn;
  o.arg = v;
  o.call = call;
  o.ret = ret;
  return o;
}
Operation out(std::uint32_t t, std::int64_t result, std::uint64_t call, std::uint64_t ret) {
  Operation o;
  o.thread = t;
  o.method = kOut;
  o.result = result;
  o.call = call;
  o.ret = ret;
  return o;
}

const char* name(Collection c) { return c == Collection::queue ? "queue" : "stack"; }

bool judge(Collection c, const History& h) {
  std::vector<atomcheck::naive::LinOp> ops;
  for (const Operation& o : h)
    ops.push_back({o.thread, o.method, o.arg, o.arg2, o.result, o.pending(), o.call, o.pending() ? 0 : o.ret});
  return atomcheck::naive::linearizable(name(c), ops, kNone);
}

std::string show(Collection c, const History& h) {
  return atomcheck::lin::format_history(h, *atomcheck::lin::make_spec(name(c)));
}

// The check's verdict on a worked example, which must also be the judge's.
std::string verdict(Collection c, const History& h) {
  const CollectionAnswer a = atomcheck::lin::check_collection(h, c);
  if (a.verdict == Verdict::undecided) return "undecided";
  const bool yes = a.verdict == Verdict::linearizable;
  EXPECT_EQ(yes, judge(c, h)) << show(c, h);
  return yes ? "linearizable" : a.pattern;
}

// Henzinger, Sezgin and Vafeiadis's queue violations, one history each, and histories a
// step away from them that are linearizable.
TEST(LinCollections, QueuePatterns) {
  const Collection q = Collection::queue;
  // fresh: a value never enqueued, or dequeued before its enqueue was called.
  EXPECT_EQ(verdict(q, {out(0, 1, 0, 1)}), "fresh");
  EXPECT_EQ(verdict(q, {out(0, 1, 0, 1), in(1, 1, 2, 3)}), "fresh");
  EXPECT_EQ(verdict(q, {out(0, 1, 0, 2), in(1, 1, 1, 3)}), "linearizable");
  // repeated: one value dequeued twice.
  EXPECT_EQ(verdict(q, {in(0, 1, 0, 1), out(0, 1, 2, 3), out(1, 1, 4, 5)}), "repeated");
  // order: enq(1) before enq(2), deq -> 2 before deq -> 1; or 2 dequeued and 1 never.
  EXPECT_EQ(verdict(q, {in(0, 1, 0, 1), in(0, 2, 2, 3), out(1, 2, 4, 5), out(1, 1, 6, 7)}), "order");
  EXPECT_EQ(verdict(q, {in(0, 1, 0, 1), in(0, 2, 2, 3), out(1, 2, 4, 5)}), "order");
  EXPECT_EQ(verdict(q, {in(0, 1, 0, 2), in(1, 2, 1, 3), out(1, 2, 4, 5), out(0, 1, 6, 7)}), "linearizable");
  EXPECT_EQ(verdict(q, {in(0, 1, 0, 1), in(0, 2, 2, 3), out(1, 2, 4, 6), out(0, 1, 5, 7)}), "linearizable");
  // empty: deq -> empty while 1 is surely in the queue; or while 1 and then 2 are, though
  // neither alone covers its interval.
  EXPECT_EQ(verdict(q, {in(0, 1, 0, 1), out(1, kNone, 2, 3)}), "empty");
  EXPECT_EQ(verdict(q, {in(0, 1, 0, 1), out(1, kNone, 2, 10), in(2, 2, 3, 4), out(0, 1, 5, 6)}), "empty");
  EXPECT_EQ(verdict(q, {in(0, 1, 0, 1), out(1, kNone, 2, 10), in(2, 2, 6, 7), out(0, 1, 3, 4)}), "linearizable");
  EXPECT_EQ(verdict(q, {in(0, 1, 0, 2), out(1, kNone, 1, 3)}), "linearizable");
}

// The stack's: the same fresh, repeated and empty violations, and LIFO order broken
// between a push/pop pair and a push that is surely above it.
TEST(LinCollections, StackPatterns) {
  const Collection s = Collection::stack;
  EXPECT_EQ(verdict(s, {out(0, 1, 0, 1)}), "fresh");
  EXPECT_EQ(verdict(s, {out(0, 1, 0, 1), in(1, 1, 2, 3)}), "fresh");
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 1), out(0, 1, 2, 3), out(1, 1, 4, 5)}), "repeated");
  // lifo: push(1) before push(2) before pop -> 1, and 2 popped after it, or never.
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 1), in(0, 2, 2, 3), out(1, 1, 4, 5), out(1, 2, 6, 7)}), "lifo");
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 1), in(0, 2, 2, 3), out(1, 1, 4, 5)}), "lifo");
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 1), in(0, 2, 2, 3), out(1, 2, 4, 5), out(1, 1, 6, 7)}), "linearizable");
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 1), in(0, 2, 2, 5), out(1, 1, 3, 4), out(1, 2, 6, 7)}), "linearizable");
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 1), in(0, 2, 2, 3), out(1, 1, 4, 6), out(0, 2, 5, 7)}), "linearizable");
  // empty: pop -> empty while 1 is surely on the stack (docs/linearizability.md's failing
  // scenario: T1 push(3) pop() | T2 push(2), the pop answering empty).
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 1), out(1, kNone, 2, 3)}), "empty");
  EXPECT_EQ(verdict(s, {in(1, 3, 4, 8), out(1, kNone, 11, 19), in(2, 2, 13, 17)}), "empty");
  // The queue's two-value cover is a LIFO violation on a stack (2 above 1 when 1 is popped);
  // on a stack the two pushes overlap: 1 surely in from 2 to 6, 2 from 4 to 9.
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 1), out(1, kNone, 2, 10), in(2, 2, 3, 4), out(0, 1, 5, 6)}), "lifo");
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 2), in(1, 2, 1, 4), out(2, kNone, 3, 8), out(0, 1, 6, 7), out(1, 2, 9, 10)}),
            "empty");
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 2), in(1, 2, 1, 4), out(2, kNone, 3, 8), out(0, 1, 5, 7), out(1, 2, 6, 10)}),
            "linearizable");
  EXPECT_EQ(verdict(s, {in(0, 1, 0, 2), out(1, kNone, 1, 3)}), "linearizable");
  // A chain no pattern here shows (docs/linearizability.md): 2 above 1 puts pop 2 before
  // pop 1, so push(3) also precedes pop 1, and 3 is popped after it. Left to the search.
  const History chain = {in(0, 1, 0, 1),  in(0, 2, 2, 3),  in(0, 3, 4, 6),
                         out(1, 1, 5, 8), out(0, 2, 7, 10), out(1, 3, 9, 11)};
  EXPECT_EQ(verdict(s, chain), "undecided");
  EXPECT_FALSE(judge(s, chain));
  EXPECT_FALSE(atomcheck::lin::check(chain, *atomcheck::lin::make_spec("stack")).linearizable);
}

// What the checks leave to the search: repeated values, other methods, and a history with
// a removal that never returned that is linearizable with none of the results tried for
// it. A push that never returned is decided (left out, or in when its value was popped).
TEST(LinCollections, OutsideThePreconditions) {
  for (Collection c : {Collection::queue, Collection::stack}) {
    EXPECT_EQ(verdict(c, {in(0, 1, 0, 1), in(1, 1, 2, 3)}), "undecided");
    EXPECT_EQ(verdict(c, {in(0, kNone, 0, 1)}), "undecided");
    // A removal that never returned may have taken 1, or nothing.
    EXPECT_EQ(verdict(c, {in(0, 1, 0, 1), out(1, 1, 2, kPending)}), "linearizable");
    EXPECT_EQ(verdict(c, {in(0, 1, 0, 1), out(1, kNone, 2, kPending), out(0, kNone, 3, 4)}), "linearizable");
    // It could take 1 only after 2's removal, too late (order; lifo): left to the search.
    const History late = {in(0, 1, 0, 1), in(0, 2, 2, 3), out(1, c == Collection::queue ? 2 : 1, 4, 5),
                          out(1, kNone, 6, kPending)};
    EXPECT_EQ(verdict(c, late), "undecided");
    EXPECT_FALSE(judge(c, late));
    EXPECT_EQ(verdict(c, {in(0, 1, 0, kPending), out(1, kNone, 2, 3)}), "linearizable");
    EXPECT_EQ(verdict(c, {in(0, 1, 0, kPending), out(1, 1, 2, 3)}), "linearizable");
    // A removal that never returned does not hide a pattern that needs no value to stay.
    EXPECT_EQ(verdict(c, {out(0, 1, 0, 1), out(1, 2, 2, kPending)}), "fresh");
  }
}

// lin::check takes the checks first, and gives the search what they leave.
TEST(LinCollections, CheckUsesThemFirst) {
  auto q = atomcheck::lin::make_spec("queue");
  const History h = {in(0, 1, 0, 1), in(0, 2, 2, 3), out(1, 2, 4, 5)};
  atomcheck::lin::Answer a = atomcheck::lin::check(h, *q);
  EXPECT_FALSE(a.linearizable);
  EXPECT_EQ(a.steps, 0u);
  a = atomcheck::lin::check(h, *q, {.collections = false});
  EXPECT_FALSE(a.linearizable);
  EXPECT_GT(a.steps, 0u);
  a = atomcheck::lin::check({in(0, 1, 0, 1), in(1, 1, 2, 3), out(1, 1, 4, 5)}, *q);  // repeated: searched
  EXPECT_TRUE(a.linearizable);
  EXPECT_GT(a.steps, 0u);
}

// 10^5 per collection, about 2 s each in Release.
std::uint64_t histories_per_collection() {
  const char* env = std::getenv("ATOMCHECK_COLLECTION_HISTORIES");
  return env ? std::strtoull(env, nullptr, 10) : 100000;
}

// A random history of distinct values: 2-4 clients, 1-8 operations, each taking effect on a
// real queue or stack at a random moment between its call and its return, so linearizable;
// then, in about half of them, one result changed (to empty, to another value, to a value
// never pushed, or two results swapped), which leaves some linearizable. One operation in
// 30 never returns (a pop that never returns takes effect or not).
History random_history(std::mt19937_64& rng, Collection c) {
  auto pick = [&](std::uint64_t n) { return rng() % n; };
  const std::size_t clients = 2 + pick(3), ops = 1 + pick(8);
  struct Client {
    int state = 0;  // 0 idle, 1 called, 2 took effect, 3 gone
    std::size_t op = 0;
  };
  std::vector<Client> cs(clients);
  std::deque<std::int64_t> items;
  History h;
  std::uint64_t t = 0;
  std::int64_t next = 1;
  while (true) {
    std::vector<std::size_t> can;
    for (std::size_t k = 0; k < clients; ++k)
      if ((cs[k].state == 0 && h.size() < ops) || cs[k].state == 1 || cs[k].state == 2) can.push_back(k);
    if (can.empty()) break;
    Client& cl = cs[can[pick(can.size())]];
    const auto thread = static_cast<std::uint32_t>(&cl - cs.data());
    if (cl.state == 0) {
      cl.op = h.size();
      h.push_back(pick(2) ? in(thread, next++, t++, kPending) : out(thread, kNone, t++, kPending));
      cl.state = 1;
    } else if (cl.state == 1) {
      Operation& o = h[cl.op];
      const bool skip = pick(60) == 0;  // never returns, never took effect
      if (skip) {
        cl.state = 3;
        continue;
      }
      if (o.method == kIn) {
        items.push_back(o.arg);
      } else if (!items.empty()) {
        o.result = c == Collection::queue ? items.front() : items.back();
        if (c == Collection::queue) {
          items.pop_front();
        } else {
          items.pop_back();
        }
      }
      cl.state = pick(60) == 0 ? 3 : 2;  // took effect, may never return
    } else {
      h[cl.op].ret = t++;
      cl.state = 0;
    }
  }
  for (Operation& o : h)
    if (o.pending()) o.result = kNone;
  if (pick(3) != 0) {
    std::vector<std::size_t> outs;
    for (std::size_t i = 0; i < h.size(); ++i)
      if (h[i].method == kOut && !h[i].pending()) outs.push_back(i);
    if (!outs.empty()) {
      Operation& o = h[outs[pick(outs.size())]];
      switch (pick(4)) {
        case 0: o.result = kNone; break;
        case 1: o.result = 1 + static_cast<std::int64_t>(pick(static_cast<std::uint64_t>(next))); break;
        case 2: o.result = 100; break;
        default: std::swap(o.result, h[outs[pick(outs.size())]].result);
      }
    }
  }
  return h;
}

// The judged property: on every history the check decides, the naive judge's verdict.
TEST(LinCollections, AgreeWithTheNaiveJudge) {
  const std::uint64_t n = histories_per_collection();
  for (Collection c : {Collection::queue, Collection::stack}) {
    std::mt19937_64 rng(c == Collection::queue ? 56 : 65);
    std::uint64_t decided = 0, yes = 0, no = 0, judged_yes = 0, empties = 0;
    std::uint64_t left_pending = 0, left_yes = 0, left_no = 0;  // undecided: a pending removal; else by the judge
    for (std::uint64_t k = 0; k < n; ++k) {
      const History h = random_history(rng, c);
      for (const Operation& o : h) empties += o.method == kOut && !o.pending() && o.result == kNone;
      const bool want = judge(c, h);
      judged_yes += want;
      const CollectionAnswer a = atomcheck::lin::check_collection(h, c);
      if (a.verdict == Verdict::undecided) {
        (a.pattern == "a removal never returned" ? left_pending : (want ? left_yes : left_no)) += 1;
        continue;
      }
      ++decided;
      const bool got = a.verdict == Verdict::linearizable;
      (got ? yes : no) += 1;
      ASSERT_EQ(got, want) << name(c) << " history " << k << ", pattern '" << a.pattern << "':\n" << show(c, h);
    }
    std::printf("%s: %llu random histories (%llu linearizable by the naive judge, %llu empty removals); the check "
                "decides %llu (%llu linearizable, %llu not), each as the judge\n",
                name(c), static_cast<unsigned long long>(n), static_cast<unsigned long long>(judged_yes),
                static_cast<unsigned long long>(empties), static_cast<unsigned long long>(decided),
                static_cast<unsigned long long>(yes), static_cast<unsigned long long>(no));
    std::printf("%s: left to the search: %llu with a removal that never returned, %llu linearizable and %llu not "
                "without one\n",
                name(c), static_cast<unsigned long long>(left_pending), static_cast<unsigned long long>(left_yes),
                static_cast<unsigned long long>(left_no));
    // Both verdicts, about a third not linearizable, and the large majority decided.
    EXPECT_GT(n - judged_yes, n / 5);
    EXPECT_LT(n - judged_yes, n / 2);
    EXPECT_GT(empties, n / 10);
    EXPECT_GT(decided, n - n / 10);
    // Without a removal that never returned: every linearizable history gets an order, and
    // a queue's patterns are exact (a pattern dropped leaves histories undecided here);
    // a stack's leave only the rare chains.
    EXPECT_EQ(left_yes, 0u);
    if (c == Collection::queue) {
      EXPECT_EQ(left_no, 0u);
    } else {
      EXPECT_LT(left_no, n / 1000);
    }
  }
}

// A history of `ops` operations on 10 clients, each taking effect at a random moment of its
// interval (gen_history's), and the same with one removal answering a value never pushed
// half-way, or, `swap`, with the results of two removals 500 removals apart swapped.
// `pending`: one operation in 200 never returns (half of them having taken effect), its
// client replaced by a fresh one.
History long_history(Collection c, std::size_t ops, bool bad, bool swap, bool pending, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  History h;
  std::vector<int> state(10, 0);
  std::vector<std::uint32_t> thread(10);
  for (std::uint32_t k = 0; k < 10; ++k) thread[k] = k;
  std::uint32_t next_thread = 10;
  std::vector<std::size_t> op_of(10);
  std::deque<std::int64_t> items;
  std::uint64_t t = 0;
  std::int64_t next = 1;
  std::size_t busy = 0;
  while (h.size() < ops || busy > 0) {
    const std::size_t k = rng() % 10;
    if (state[k] == 0) {
      if (h.size() == ops) continue;
      op_of[k] = h.size();
      h.push_back(rng() % 2 ? in(thread[k], next++, t++, kPending) : out(thread[k], kNone, t++, kPending));
      state[k] = 1;
      ++busy;
    } else if (state[k] == 1) {
      Operation& o = h[op_of[k]];
      const bool lost = pending && rng() % 200 == 0, applied = rng() % 2 == 0;
      if (lost) {
        thread[k] = next_thread++;
        state[k] = 0;
        --busy;
        if (!applied) continue;
      }
      if (o.method == kIn) {
        items.push_back(o.arg);
      } else if (!items.empty()) {
        o.result = c == Collection::queue ? items.front() : items.back();
        c == Collection::queue ? items.pop_front() : items.pop_back();
      }
      if (lost) {
        o.result = kNone;  // never known
        continue;
      }
      state[k] = 2;
    } else {
      h[op_of[k]].ret = t++;
      state[k] = 0;
      --busy;
    }
  }
  std::vector<std::size_t> outs;
  for (std::size_t i = 0; i < h.size(); ++i)
    if (h[i].method == kOut && !h[i].pending() && h[i].result != kNone) outs.push_back(i);
  if (bad) h[outs[outs.size() / 2]].result = -1;
  if (swap) std::swap(h[outs[outs.size() / 2]].result, h[outs[outs.size() / 2 + 500]].result);
  return h;
}

TEST(LinCollections, HundredThousandOperations) {
  for (Collection c : {Collection::queue, Collection::stack}) {
    auto spec = atomcheck::lin::make_spec(name(c));
    // Linearizable, a value never pushed, two results swapped; the first two again with
    // operations that never return.
    for (int variant = 0; variant < 5; ++variant) {
      const History h = long_history(c, 100000, variant % 3 == 1, variant == 2, variant >= 3, 7);
      const auto t0 = std::chrono::steady_clock::now();
      const atomcheck::lin::Answer a = atomcheck::lin::check(h, *spec, {.max_steps = 1});
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      EXPECT_EQ(a.undecided, "") << name(c) << " variant " << variant;
      EXPECT_EQ(a.linearizable, variant % 3 == 0) << name(c) << " variant " << variant;
      EXPECT_LT(s, 1.0) << name(c) << " variant " << variant;
    }
  }
}

}  // namespace
