// The random trace generator: deterministic per seed, well formed by construction
// (checked here by an independent scan), and varied (every op kind and both verdicts
// show up across seeds).
#include <gtest/gtest.h>

#include <set>

#include "checkers/oracle_conflict.hpp"
#include "trace/random_trace.hpp"

namespace atomcheck {
namespace {

// Independent well-formedness scan; returns "" or what is wrong.
std::string check_well_formed(const Trace& t, bool closed) {
  std::vector<int> state(64, 0);  // 0 unborn, 1 running, 2 joined
  std::vector<int> depth(64, 0);
  std::vector<std::vector<LockId>> held(64);
  std::vector<ThreadId> holder(64, kNoId);
  bool any_fork = false;
  for (const Event& e : t.events) any_fork |= e.op == Op::fork;
  if (any_fork) state[0] = 1;
  else std::fill(state.begin(), state.end(), 1);
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    std::string at = " at event " + std::to_string(i);
    if (state[e.thread] != 1) return "thread acts outside its life" + at;
    switch (e.op) {
      case Op::begin: ++depth[e.thread]; break;
      case Op::end:
        if (depth[e.thread]-- == 0) return "unmatched end" + at;
        break;
      case Op::acquire:
        if (holder[e.target] != kNoId) return "acquire of a held lock" + at;
        holder[e.target] = e.thread;
        held[e.thread].push_back(e.target);
        break;
      case Op::release:
        if (held[e.thread].empty() || held[e.thread].back() != e.target)
          return "release not of the innermost held lock" + at;
        held[e.thread].pop_back();
        holder[e.target] = kNoId;
        break;
      case Op::fork:
        if (state[e.target] != 0) return "fork of a started thread" + at;
        state[e.target] = 1;
        break;
      case Op::join:
        if (e.target == e.thread || state[e.target] != 1) return "bad join" + at;
        state[e.target] = 2;
        break;
      default: break;
    }
  }
  if (closed) {
    for (std::size_t u = 0; u < depth.size(); ++u)
      if (depth[u] != 0 || !held[u].empty()) return "left open at the end";
  }
  return "";
}

TEST(RandomTrace, SameSeedSameTrace) {
  RandomTraceParams p;
  p.events = 200;
  Trace a = random_trace(p, 42), b = random_trace(p, 42), c = random_trace(p, 43);
  ASSERT_EQ(a.size(), b.size());
  bool differs = a.size() != c.size();
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a.events[i].op, b.events[i].op);
    EXPECT_EQ(a.events[i].thread, b.events[i].thread);
    EXPECT_EQ(a.events[i].target, b.events[i].target);
    if (!differs && i < c.size())
      differs = a.events[i].op != c.events[i].op || a.events[i].thread != c.events[i].thread;
  }
  EXPECT_TRUE(differs);
}

TEST(RandomTrace, PortableRngIsFixed) {
  // Pins the stream so a change of range reduction (or library) is noticed: the
  // property tests print seeds that must reproduce everywhere.
  PortableRng r(1);
  std::uint64_t first = r.raw();
  EXPECT_EQ(first, 2469588189546311528ULL);  // mt19937_64 seeded with 1, first output
  PortableRng q(7);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(q.below(3), 3u);
  EXPECT_EQ(q.between(5, 5), 5u);
}

TEST(RandomTrace, WellFormedAndVaried) {
  std::set<Op> ops;
  int serializable = 0, not_serializable = 0, open = 0;
  for (std::uint64_t seed = 0; seed < 3000; ++seed) {
    RandomTraceParams p = random_small_params(seed, 40);
    Trace t = random_trace(p, seed);
    std::string why = check_well_formed(t, p.close_at_end);
    ASSERT_EQ(why, "") << "seed " << seed;
    for (const Event& e : t.events) ops.insert(e.op);
    ConflictOracle o;
    for (const Event& e : t.events) o.on_event(e);
    Verdict v = o.verdict();
    (v.serializable ? serializable : not_serializable)++;
    open += v.open_at_end;
  }
  for (Op op : {Op::read, Op::write, Op::rmw, Op::acquire, Op::release, Op::fork, Op::join,
                Op::begin, Op::end})
    EXPECT_TRUE(ops.count(op)) << op_name(op);
  // Both verdicts must be common, or the property tests test little.
  EXPECT_GT(serializable, 300);
  EXPECT_GT(not_serializable, 300);
  EXPECT_GT(open, 30);
}

TEST(RandomTrace, NoForkJoinMeansAllThreadsFromTheStart) {
  RandomTraceParams p;
  p.fork_join = false;
  p.threads = 4;
  p.events = 400;
  Trace t = random_trace(p, 9);
  std::set<ThreadId> seen;
  for (const Event& e : t.events) {
    EXPECT_FALSE(is_thread_op(e.op));
    seen.insert(e.thread);
  }
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(check_well_formed(t, true), "");
}

}  // namespace
}  // namespace atomcheck
