// Well-formedness: the exact message for every kind of problem (locks, blocks, fork and
// join, commits), prefixes of well-formed traces stay well formed, random well-formed
// traces pass, and breaking one event of them is always caught.
#include <gtest/gtest.h>

#include <string>

#include "trace/random_trace.hpp"
#include "trace/validate.hpp"

namespace atomcheck {
namespace {

// Builds a trace with names T0, T1, T2; x, y; m, n; labels a, b.
struct Build {
  Trace t;
  Build() {
    for (const char* n : {"T0", "T1", "T2"}) t.names.threads.intern(n);
    for (const char* n : {"x", "y"}) t.names.vars.intern(n);
    for (const char* n : {"m", "n"}) t.names.locks.intern(n);
    for (const char* n : {"a", "b"}) t.names.labels.intern(n);
  }
  Build& add(Op op, ThreadId th, std::uint32_t target = kNoId, EventIndex issue = kNoEvent) {
    Event e;
    e.op = op;
    e.thread = th;
    e.target = target;
    e.issue = issue;
    t.events.push_back(e);
    return *this;
  }
  Build& r(ThreadId th, VarId x) { return add(Op::read, th, x); }
  Build& w(ThreadId th, VarId x) { return add(Op::write, th, x); }
  Build& c(ThreadId th, VarId x, EventIndex issue) { return add(Op::commit, th, x, issue); }
  Build& acq(ThreadId th, LockId l) { return add(Op::acquire, th, l); }
  Build& rel(ThreadId th, LockId l) { return add(Op::release, th, l); }
  Build& fork(ThreadId th, ThreadId u) { return add(Op::fork, th, u); }
  Build& join(ThreadId th, ThreadId u) { return add(Op::join, th, u); }
  Build& begin(ThreadId th, LabelId l = kNoId) { return add(Op::begin, th, l); }
  Build& end(ThreadId th, LabelId l = kNoId) { return add(Op::end, th, l); }
};

constexpr ThreadId T0 = 0, T1 = 1, T2 = 2;
constexpr VarId X = 0, Y = 1;
constexpr LockId M = 0, N = 1;
constexpr LabelId A = 0, B = 1;

std::string problem(const Build& b, ValidateOptions o = {}) {
  auto p = validate(b.t, o);
  return p ? *p : "ok";
}
std::string problem_auto(const Build& b) {
  auto p = validate(b.t);
  return p ? *p : "ok";
}

TEST(Validate, WellFormedExample) {
  Build b;
  b.fork(T0, T1).begin(T1, A).acq(T1, M).w(T1, X).begin(T1).r(T1, Y).end(T1).rel(T1, M).end(T1, A);
  b.acq(T0, M).r(T0, X).rel(T0, M).join(T0, T1).w(T0, X);
  EXPECT_EQ(problem(b), "ok");
}

TEST(Validate, Locks) {
  EXPECT_EQ(problem(Build().rel(T0, M)), "event 0: T0 releases lock m, which nobody holds");
  EXPECT_EQ(problem(Build().acq(T0, M).rel(T1, M)),
            "event 1: T1 releases lock m, which T0 holds (acquired at event 0)");
  EXPECT_EQ(problem(Build().acq(T0, M).acq(T1, M)),
            "event 1: T1 acquires lock m, which T0 holds (acquired at event 0)");
  EXPECT_EQ(problem(Build().w(T0, X).acq(T0, N).acq(T0, N)),
            "event 2: T0 acquires lock n, which it already holds (acquired at event 1)");
  EXPECT_EQ(problem(Build().acq(T0, M).rel(T0, M).rel(T0, M)),
            "event 2: T0 releases lock m, which nobody holds");
  // Releases need not be nested, and a released lock may be taken by anyone.
  EXPECT_EQ(problem(Build().acq(T0, M).acq(T0, N).rel(T0, M).acq(T1, M).rel(T0, N).rel(T1, M)), "ok");
}

TEST(Validate, Blocks) {
  EXPECT_EQ(problem(Build().end(T0)), "event 0: T0: end without a matching begin");
  EXPECT_EQ(problem(Build().begin(T0).end(T1)), "event 1: T1: end without a matching begin");
  EXPECT_EQ(problem(Build().begin(T0).end(T0).end(T0)), "event 2: T0: end without a matching begin");
  EXPECT_EQ(problem(Build().begin(T0, A).begin(T0, B).end(T0, A)),
            "event 2: T0: end 'a' does not match begin 'b' (event 1)");
  EXPECT_EQ(problem(Build().begin(T0).end(T0, A)),
            "event 1: T0: end 'a' does not match begin '' (event 0)");
  // An end without a label closes any block.
  EXPECT_EQ(problem(Build().begin(T0, A).begin(T0).end(T0).end(T0)), "ok");
}

TEST(Validate, ForkAndJoin) {
  EXPECT_EQ(problem(Build().w(T1, X).fork(T0, T1)),
            "event 1: T0 forks T1, which already performed events (first at event 0)");
  EXPECT_EQ(problem(Build().fork(T0, T1).fork(T2, T1)),
            "event 1: T2 forks T1, which was already forked (event 0)");
  EXPECT_EQ(problem(Build().fork(T0, T0)), "event 0: T0 forks itself");
  EXPECT_EQ(problem(Build().join(T0, T0)), "event 0: T0 joins itself");
  EXPECT_EQ(problem(Build().fork(T0, T1).w(T1, X).join(T0, T1).r(T1, X)),
            "event 3: T1 performs read after it was joined (event 2)");
  EXPECT_EQ(problem(Build().fork(T0, T1).join(T0, T1).join(T2, T1)),
            "event 2: T2 joins T1, which was already joined (event 1)");
  EXPECT_EQ(problem(Build().join(T0, T1).fork(T0, T1)),
            "event 1: T0 forks T1, which was already joined (event 0)");
  EXPECT_EQ(problem(Build().fork(T0, T1).join(T0, T1).fork(T1, T2)),
            "event 2: T1 performs fork after it was joined (event 1)");
  // A thread that is never forked was there from the start; joining it is fine.
  EXPECT_EQ(problem(Build().w(T1, X).join(T0, T1).r(T0, X)), "ok");
}

TEST(Validate, Commits) {
  EXPECT_EQ(problem(Build().w(T0, X).c(T0, X, 0).r(T0, X)), "ok");
  EXPECT_EQ(problem(Build().c(T0, X, kNoEvent)), "event 0: T0: commit without an issue");
  EXPECT_EQ(problem(Build().w(T0, X).c(T0, X, 5)),
            "event 1: T0: commit of event 5, which is not an earlier event");
  EXPECT_EQ(problem(Build().w(T0, X).c(T0, X, 0).c(T0, X, 0)),
            "event 2: T0: commit of event 0, but T0 has no uncommitted write");
  EXPECT_EQ(problem(Build().w(T0, X).w(T0, Y).c(T0, Y, 1)),
            "event 2: T0: commit of event 1, but the oldest uncommitted write of T0 is event 0 "
            "(commits keep FIFO order)");
  EXPECT_EQ(problem(Build().w(T0, X).c(T0, Y, 0)), "event 1: T0: commit of y for event 0, which writes x");
  EXPECT_EQ(problem(Build().w(T0, X).c(T1, X, 0)),
            "event 1: T1: commit of event 0, but T1 has no uncommitted write");
  EXPECT_EQ(problem(Build().r(T0, X).c(T0, X, 0)),
            "event 1: T0: commit of event 0, but T0 has no uncommitted write");
  // Without commit tracking (a trace tau, or STD) only the index is checked.
  ValidateOptions loose;
  loose.check_commits = false;
  EXPECT_EQ(problem(Build().w(T0, X).w(T0, Y).c(T0, Y, 1), loose), "ok");
  EXPECT_EQ(problem(Build().c(T0, X, kNoEvent), loose), "event 0: T0: commit without an issue");
  // validate(trace) switches commit tracking on exactly when the trace has commits.
  EXPECT_EQ(problem_auto(Build().w(T0, X).w(T0, Y).c(T0, Y, 1)),
            "event 2: T0: commit of event 1, but the oldest uncommitted write of T0 is event 0 "
            "(commits keep FIFO order)");
}

TEST(Validate, OpenAtEndOnlyWhenAsked) {
  Build open;
  open.begin(T0).acq(T1, M);
  EXPECT_EQ(problem(open), "ok");
  ValidateOptions closed;
  closed.require_closed = true;
  EXPECT_EQ(problem(open, closed), "event 2: T0 ends inside an atomic block (begun at event 0)");
  Build held;
  held.acq(T1, M);
  EXPECT_EQ(problem(held, closed), "event 1: T1 still holds lock m at the end (acquired at event 0)");
}

TEST(Validate, StreamingReportsLinesAndStops) {
  Build b;
  b.acq(T0, M).w(T0, X).acq(T1, M).rel(T2, N);
  TraceValidator v(b.t.names);
  EXPECT_TRUE(v.on_event(b.t.events[0], 10));
  EXPECT_TRUE(v.on_event(b.t.events[1], 12));
  EXPECT_FALSE(v.on_event(b.t.events[2], 15));
  EXPECT_EQ(v.problem(), "T1 acquires lock m, which T0 holds (acquired at line 10)");
  EXPECT_EQ(v.problem_line(), 15u);
  EXPECT_EQ(v.problem_event(), 2u);
  // The first problem is kept; later events are not checked.
  EXPECT_FALSE(v.on_event(b.t.events[3], 16));
  EXPECT_FALSE(v.finish());
  EXPECT_EQ(v.problem_line(), 15u);
  EXPECT_FALSE(v.ok());
}

TEST(Validate, EventsBuiltWithoutNamesGetSyntheticNames) {
  Trace t;
  Event e;
  e.op = Op::release;
  e.thread = 4;
  e.target = 7;
  t.events.push_back(e);
  EXPECT_EQ(*validate(t), "event 0: T4 releases lock l7, which nobody holds");
}

TEST(Validate, RandomWellFormedTracesAndTheirPrefixesPass) {
  for (std::uint64_t seed = 1; seed <= 2000; ++seed) {
    Trace t = random_trace(random_small_params(seed, 40), seed);
    TraceValidator v(t.names);
    for (std::size_t i = 0; i < t.size(); ++i) {
      ASSERT_TRUE(v.on_event(t.events[i])) << "seed " << seed << " event " << i << ": " << v.problem();
    }
    ASSERT_TRUE(v.finish());
  }
}

// Breaking one event of a well-formed trace must always be caught, so the validator is
// not vacuous: dropping an acquire whose release follows, dropping a begin so that the
// thread's ends outnumber its begins, moving a fork after the child's first event, or
// letting a joined thread act.
TEST(Validate, BreakingOneEventIsCaught) {
  int broken = 0;
  for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
    RandomTraceParams p = random_small_params(seed, 40);
    p.close_at_end = true;
    Trace t = random_trace(p, seed);
    PortableRng rng(seed);
    std::size_t i = rng.below(t.size());
    const Event e = t.events[i];
    Trace bad = t;
    bool expect_problem = false;
    auto erase_i = [&] { bad.events.erase(bad.events.begin() + static_cast<std::ptrdiff_t>(i)); };
    if (e.op == Op::acquire) {
      erase_i();
      for (std::size_t j = i; j < bad.size(); ++j) {
        if (bad.events[j].op == Op::release && bad.events[j].target == e.target) expect_problem = true;
      }
    } else if (e.op == Op::begin) {
      erase_i();
      int depth = 0;
      for (const Event& f : bad.events) {
        if (f.thread != e.thread) continue;
        if (f.op == Op::begin) ++depth;
        if (f.op == Op::end && --depth < 0) expect_problem = true;
      }
    } else if (e.op == Op::fork) {
      std::size_t j = i + 1;
      while (j < t.size() && t.events[j].thread != e.target) ++j;
      if (j == t.size()) continue;
      erase_i();
      bad.events.insert(bad.events.begin() + static_cast<std::ptrdiff_t>(j), e);
      expect_problem = true;
    } else if (e.op == Op::join) {
      Event after;
      after.op = Op::read;
      after.thread = e.target;
      after.target = 0;
      bad.events.push_back(after);
      expect_problem = true;
    } else {
      continue;
    }
    auto problem = validate(bad);
    EXPECT_EQ(problem.has_value(), expect_problem) << "seed " << seed << " event " << i;
    broken += expect_problem;
  }
  EXPECT_GT(broken, 200);
}

}  // namespace
}  // namespace atomcheck
