// The delta debugging behind `validate --minimise` (cli/minimise.hpp): it shows the
// predicate well-formed traces only, reaches the two transactions of a lost update from
// a trace padded with unrelated ones, keeps to its budget, is deterministic, and
// renumbers the commits' issue indices as events go.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "checkers/registry.hpp"
#include "cli/minimise.hpp"
#include "tests/support/trace_builder.hpp"
#include "trace/transactions.hpp"
#include "trace/validate.hpp"

namespace atomcheck {
namespace {

using testing::Build;

bool oracle_flags(const Trace& t) {
  auto oracle = make_checker("oracle");
  for (const Event& e : t.events) oracle->on_event(e);
  return oracle->verdict().flags();
}

// A lost update on x between threads 1 and 2, amid locked and unrelated transactions of
// threads 0, 3 and 4.
Trace padded_lost_update() {
  Build b;
  b.fork(0, 1).fork(0, 2).fork(0, 3).fork(0, 4);
  b.begin(3).r(3, 5).w(3, 6).end(3);
  b.begin(1).r(1, 0);
  b.acq(4, 0).w(4, 7).rel(4, 0);
  b.begin(2).r(2, 0).w(2, 0).end(2);
  b.begin(3).w(3, 5).end(3);
  b.w(1, 0).end(1);
  b.begin(4).r(4, 7).w(4, 8).end(4);
  b.join(0, 1).join(0, 2).join(0, 3).join(0, 4);
  Trace t;
  t.events = b.ev;
  return t;
}

TEST(Minimise, ReachesTheConflictingTransactionsThroughWellFormedTracesOnly) {
  const Trace start = padded_lost_update();
  ASSERT_TRUE(oracle_flags(start));
  std::size_t shown = 0;
  auto keeps = [&](const Trace& t) {
    ++shown;
    EXPECT_FALSE(validate(t, ValidateOptions{}).has_value()) << "an ill-formed candidate was tested";
    return oracle_flags(t);
  };
  cli::MinimiseResult m = cli::minimise_trace(start, keeps, 10000);
  EXPECT_FALSE(m.budget_hit);
  EXPECT_EQ(m.tests, shown);
  EXPECT_TRUE(oracle_flags(m.trace));
  const Transactions tx = assign_transactions(m.trace);
  EXPECT_LE(tx.txns.size(), 2u);
  std::set<ThreadId> threads;
  for (const Event& e : m.trace.events) threads.insert(e.thread);
  EXPECT_EQ(threads, (std::set<ThreadId>{1, 2}));
  // 1-minimal: no single event can go and keep both the disagreement and well-formedness.
  for (std::size_t i = 0; i < m.trace.events.size(); ++i) {
    std::vector<std::size_t> keep;
    for (std::size_t k = 0; k < m.trace.events.size(); ++k)
      if (k != i) keep.push_back(k);
    Trace smaller = cli::subtrace(m.trace, keep);
    EXPECT_FALSE(!validate(smaller, ValidateOptions{}).has_value() && oracle_flags(smaller)) << "event " << i;
  }
}

TEST(Minimise, KeepsToItsBudgetAndIsDeterministic) {
  const Trace start = padded_lost_update();
  cli::MinimiseResult a = cli::minimise_trace(start, oracle_flags, 3);
  EXPECT_EQ(a.tests, 3u);
  EXPECT_TRUE(a.budget_hit);
  cli::MinimiseResult b = cli::minimise_trace(start, oracle_flags, 10000);
  cli::MinimiseResult c = cli::minimise_trace(start, oracle_flags, 10000);
  ASSERT_EQ(b.trace.events.size(), c.trace.events.size());
  for (std::size_t i = 0; i < b.trace.events.size(); ++i) {
    EXPECT_EQ(b.trace.events[i].op, c.trace.events[i].op);
    EXPECT_EQ(b.trace.events[i].thread, c.trace.events[i].thread);
  }
}

TEST(Minimise, SubtraceRenumbersCommits) {
  Build b;
  b.w(0, 0).w(1, 1);
  b.add(Op::commit, 1, 1).ev.back().issue = 1;
  b.add(Op::commit, 0, 0).ev.back().issue = 0;
  Trace t;
  t.events = b.ev;
  Trace s = cli::subtrace(t, {1, 2});
  ASSERT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[1].issue, 0u);
  EXPECT_FALSE(validate(s, ValidateOptions{}).has_value());
}

}  // namespace
}  // namespace atomcheck
