// The conflict-serializability checkers under rc11 (docs/rc11.md "Checkers under rc11").
// They read the execution as an SC trace (trace/sc_order.hpp), or decide a non-SC one
// not serializable; both are judged here by a naive judge written from the definition,
// sharing no code with them: transactions from each thread's outermost blocks (an event
// outside every block is one of its own), edges between two transactions of one thread in
// program order and between transactions with events related by rf (write to read), mo
// (write to a later write) or fr (read to a write mo-after the one it read), all rebuilt
// from the trace's `issue` and `mo_pos`; serializable iff that graph is acyclic.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <vector>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"
#include "specs/spec.hpp"
#include "support/options.hpp"
#include "support/random_program.hpp"
#include "tests/support/cli_runner.hpp"
#include "trace/sc_order.hpp"

namespace atomcheck {
namespace {

// ---- the naive judge ----
bool naive_serializable(const Trace& t) {
  const std::vector<Event>& ev = t.events;
  const std::size_t n = ev.size();
  // Transactions: per thread, depth of begin/end nesting.
  std::vector<int> txn(n, -1);
  std::map<ThreadId, int> depth, current;
  int ntx = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const ThreadId th = ev[i].thread;
    if (ev[i].op == Op::begin) {
      if (depth[th]++ == 0) current[th] = ntx++;
      txn[i] = current[th];
    } else if (ev[i].op == Op::end && depth[th] > 0) {
      txn[i] = current[th];
      --depth[th];
    } else {
      txn[i] = depth[th] > 0 ? current[th] : ntx++;
    }
  }
  std::vector<std::vector<bool>> edge(ntx, std::vector<bool>(ntx, false));
  auto add = [&](std::size_t a, std::size_t b) {
    if (txn[a] != txn[b]) edge[txn[a]][txn[b]] = true;
  };
  // po between transactions, fork and join.
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      if (ev[i].thread == ev[j].thread) add(i, j);
      if (ev[i].op == Op::fork && ev[j].thread == ev[i].target) add(i, j);
      if (ev[j].op == Op::join && ev[i].thread == ev[j].target) add(i, j);
      if ((ev[i].op == Op::acquire || ev[i].op == Op::release) &&
          (ev[j].op == Op::acquire || ev[j].op == Op::release) && ev[i].target == ev[j].target)
        add(i, j);
    }
  // mo of each variable: insert each write at its mo_pos, in trace order.
  std::map<std::uint32_t, std::vector<std::size_t>> mo;
  auto writes = [](Op op) { return op == Op::write || op == Op::rmw; };
  auto reads = [](Op op) { return op == Op::read || op == Op::rmw; };
  for (std::size_t i = 0; i < n; ++i)
    if (writes(ev[i].op)) {
      std::vector<std::size_t>& m = mo[ev[i].target];
      m.insert(m.begin() + (ev[i].mo_pos - 1), i);
    }
  auto mo_index = [&](std::uint32_t var, EventIndex w) -> int {  // -1: the initial write
    if (w == kNoEvent) return -1;
    const std::vector<std::size_t>& m = mo[var];
    for (std::size_t p = 0; p < m.size(); ++p)
      if (m[p] == w) return static_cast<int>(p);
    ADD_FAILURE() << "a read of a write not in mo";
    return -1;
  };
  for (auto& [var, m] : mo)
    for (std::size_t a = 0; a < m.size(); ++a)
      for (std::size_t b = a + 1; b < m.size(); ++b) add(m[a], m[b]);
  for (std::size_t r = 0; r < n; ++r) {
    if (!reads(ev[r].op) || ev[r].op == Op::commit) continue;
    if (ev[r].issue != kNoEvent) add(ev[r].issue, r);
    const int from = mo_index(ev[r].target, ev[r].issue);
    const std::vector<std::size_t>& m = mo[ev[r].target];
    for (std::size_t p = static_cast<std::size_t>(from + 1); p < m.size(); ++p)
      if (m[p] != r) add(r, m[p]);
  }
  // Acyclic? Floyd-Warshall's closure, then no transaction reaches itself.
  for (int k = 0; k < ntx; ++k)
    for (int i = 0; i < ntx; ++i)
      if (edge[i][k])
        for (int j = 0; j < ntx; ++j)
          if (edge[k][j]) edge[i][j] = true;
  for (int i = 0; i < ntx; ++i)
    if (edge[i][i]) return false;
  return true;
}

// ---- the checkers against it ----
struct Tally {
  std::uint64_t executions = 0, not_sc = 0, not_serializable = 0;
};

void judge_program(const Program& p, Tally& tally, const std::string& what) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::optimal;  // TruSt: each graph once
  o.memory = MemoryModelKind::rc11;
  o.max_executions = 20000;
  o.checkers = {"oracle", "velodrome", "aerodrome-opt-fixed", "regiontrack-fixed"};
  const ExploreResult r = explore(p, o, [&](const ExecutionView& v) {
    if (!v.verdicts || v.verdicts->empty() || !v.trace) return;
    const bool expected = naive_serializable(*v.trace);
    ++tally.executions;
    tally.not_serializable += !expected;
    tally.not_sc += !sc_order(*v.trace).sc();
    for (const Verdict& verdict : *v.verdicts) {
      if (verdict.checker.empty()) continue;  // an execution no checker judges
      ASSERT_TRUE(verdict.decided()) << what << ": " << verdict.checker << ": " << verdict.undecided;
      EXPECT_EQ(verdict.serializable, expected)
          << what << ": " << verdict.checker << " on schedule " << v.schedule << " " << verdict.note;
    }
  });
  ASSERT_TRUE(r.error.empty()) << what << ": " << r.error;
}

TEST(Rc11Checkers, ConflictSerializabilityAgreesWithTheGraphDefinitionOnRandomPrograms) {
  std::mt19937_64 rng(5502);
  Tally tally;
  const int n = std::getenv("ATOMCHECK_SANITIZED") ? 300 : 3000;
  for (int i = 0; i < n; ++i) {
    const testing_support::RandomProgram rp = testing_support::make_random(rng, false, false, false, i % 3 == 2);
    judge_program(testing_support::program_of(rp), tally, testing_support::describe(rp));
    if (HasFatalFailure()) return;
  }
  // The judge has something to tell apart: serializable and not, SC and not.
  EXPECT_GT(tally.not_serializable, tally.executions / 20);
  EXPECT_LT(tally.not_serializable, tally.executions);
  EXPECT_GT(tally.not_sc, 0u);
  std::printf("%llu executions of %d random programs under rc11: %llu not serializable, %llu of them not SC\n",
              static_cast<unsigned long long>(tally.executions), n,
              static_cast<unsigned long long>(tally.not_serializable),
              static_cast<unsigned long long>(tally.not_sc));
}

// Store buffering in two blocks: under rc11 both loads may read 0, an execution no trace
// orders; under sc it does not occur.
TEST(Rc11Checkers, StoreBufferingInBlocksIsNotSerializableAndNotSc) {
  const Program p = [] {
    atomcheck::atomic<int> x(0), y(0);
    atomcheck::thread t1([&] {
      atomcheck::atomic_block b("left");
      x.store(1, std::memory_order_relaxed);
      (void)y.load(std::memory_order_relaxed);
    });
    atomcheck::thread t2([&] {
      atomcheck::atomic_block b("right");
      y.store(1, std::memory_order_relaxed);
      (void)x.load(std::memory_order_relaxed);
    });
    t1.join();
    t2.join();
  };
  Tally tally;
  judge_program(p, tally, "SB");
  // Four graphs: each load reads 0 or the other's store. Both 0 is not SC; both 1 is SC
  // and not serializable (each block reads what the other wrote); one of each serializes.
  EXPECT_EQ(tally.executions, 4u);
  EXPECT_EQ(tally.not_sc, 1u);
  EXPECT_EQ(tally.not_serializable, 2u);
}

// sc_order on a hand-made trace: message passing read stale is SC (the read goes first);
// its cycle through store buffering is found.
TEST(Rc11Checkers, ScOrderPutsAStaleReadBeforeTheWriteItMissed) {
  Trace t;
  auto ev = [](Op op, ThreadId th, std::uint32_t var, EventIndex issue = kNoEvent, std::uint16_t mo = kNoMoPos) {
    Event e;
    e.op = op;
    e.thread = th;
    e.target = var;
    e.issue = issue;
    e.mo_pos = mo;
    return e;
  };
  t.events = {ev(Op::write, 1, 0, kNoEvent, 1), ev(Op::read, 2, 0)};  // T2 reads x's initial 0
  ScOrder o = sc_order(t);
  ASSERT_TRUE(o.sc());
  EXPECT_EQ(o.order, (std::vector<EventIndex>{1, 0}));
  t.events = {ev(Op::write, 1, 0, kNoEvent, 1), ev(Op::read, 1, 1), ev(Op::write, 2, 1, kNoEvent, 1),
              ev(Op::read, 2, 0)};
  o = sc_order(t);
  EXPECT_FALSE(o.sc());
  EXPECT_EQ(o.cycle.size(), 4u);
}

// `validate --memory rc11`: each SC execution judged on its SC trace, the non-SC ones
// counted apart; a TSO checker, or linearizability beside the others, refused in one line.
TEST(Rc11Checkers, ValidateJudgesTheScExecutionsAndCountsTheOthers) {
  const auto r = testing::run_cli({"validate", "2+2w", "--memory", "rc11", "--json", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& run = j["runs"][0];
  EXPECT_EQ(run["memory"], "rc11");
  EXPECT_GT(run["not_sc"].get<std::uint64_t>(), 0u);  // a cycle in mo and po
  EXPECT_GT(run["judged"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(run["judged"].get<std::uint64_t>() + run["not_sc"].get<std::uint64_t>(),
            run["executions"].get<std::uint64_t>());
  const auto tso = testing::run_cli({"validate", "2+2w", "--memory", "rc11", "--checker", "tso-exec"});
  EXPECT_EQ(tso.exit_code, 2);
  EXPECT_NE(tso.err.find("judges TSO executions"), std::string::npos) << tso.err;
  const auto mixed = testing::run_cli({"validate", "2+2w", "--memory", "rc11", "--checker", "velodrome,linearizability"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("apart"), std::string::npos) << mixed.err;
}

// A JSON spec's rc11 expectations judge serializability too: store buffering in blocks is
// not serializable in some executions (and the TSO checkers are refused at load).
TEST(Rc11Checkers, SpecExpectationsOfSerializabilityUnderRc11) {
  using namespace atomcheck::spec;
  const Spec s = parse_spec(R"({"atomcheck": 1, "vars": {"x": 0, "y": 0}, "threads": [
    {"name": "A", "ops": [{"op": "begin"}, {"op": "store", "var": "x", "value": 1},
                          {"op": "load", "var": "y", "reg": "r"}, {"op": "end"}]},
    {"name": "B", "ops": [{"op": "begin"}, {"op": "store", "var": "y", "value": 1},
                          {"op": "load", "var": "x", "reg": "r"}, {"op": "end"}]}],
  "expect": {"rc11": {"serializable": "some-not", "reachable": [{"A.r": 0, "B.r": 0}]}}})", "sb.json");
  RunOptions only;
  only.memories = {MemoryModelKind::rc11};
  const RunReport r = run_spec(s, only);
  ASSERT_EQ(r.models.size(), 1u);
  EXPECT_EQ(r.exit_code(), 0) << format_report(s, r);
  std::size_t held = 0;
  for (const ExpectationResult& e : r.models[0].expectations) held += e.holds;
  EXPECT_EQ(held, r.models[0].expectations.size()) << format_report(s, r);
  EXPECT_GE(held, 2u);
}

}  // namespace
}  // namespace atomcheck
