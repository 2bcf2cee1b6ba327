// cas_loop's reduction (issue 58, api.hpp): a failed attempt that wrote nothing blocks its
// thread, and the executions where it succeeded are explored instead. The judge is the
// same search with the reduction off (ExploreOptions::loop_reduction = false), which runs
// every attempt as a plain loop does: on random programs of CAS-retry loops under sc, tso
// and rc11, the outcomes and the failures must be the same sets. Loops whose failed
// attempts write must run on; a mutant that blocks them too must be caught by the same
// judge (the MutantIsCaught test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/runtime/std_types.hpp"
#include "models/lin_structures.hpp"
#include "scheduler/explore/lin_test.hpp"

namespace atomcheck {
namespace {

ExploreOptions options(MemoryModelKind memory, bool reduce) {
  ExploreOptions o;
  o.memory = memory;
  o.strategy = StrategyKind::optimal;
  o.loop_reduction = reduce;
  o.keep_failures = 1000;
  o.stop_on_failure = false;
  o.max_executions = 200'000;
  return o;
}

std::set<Outcome> outcome_set(const ExploreResult& r) {
  std::set<Outcome> out;
  for (const auto& [o, count] : r.outcomes) out.insert(o);
  return out;
}

std::set<std::string> failure_messages(const ExploreResult& r) {
  std::set<std::string> out;
  for (const Failure& f : r.failures) out.insert(f.message);
  return out;
}

// ---- unit tests -------------------------------------------------------------------------

// Two threads increment x by a CAS loop: without the reduction the thread that loses the
// race runs a second attempt in its own executions; with it, that attempt's execution is
// blocked and the same outcomes come from the executions where it read the new value.
void increments() {
  atomic<int> x(0, "x");
  auto inc = [&] {
    int v = x.load();
    for (cas_loop loop; !x.compare_exchange_strong(v, v + 1); loop.retry()) {
    }
  };
  thread a(inc), b(inc);
  a.join();
  b.join();
  outcome("x", x.load());
  check(x.load() == 2, "lost increment");
}

TEST(CasLoop, FailedAttemptsAreBlockedAndOutcomesKept) {
  for (MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::tso, MemoryModelKind::rc11}) {
    const ExploreResult on = explore(increments, options(m, true));
    const ExploreResult off = explore(increments, options(m, false));
    EXPECT_TRUE(on.failures.empty()) << memory_model_name(m);
    EXPECT_EQ(outcome_set(on), outcome_set(off)) << memory_model_name(m);
    EXPECT_GT(on.pruned, 0u) << memory_model_name(m) << ": the failed attempt blocks";
    EXPECT_EQ(off.pruned, 0u) << memory_model_name(m);
    EXPECT_LT(on.completed, off.completed) << memory_model_name(m);
  }
}

// A failed attempt that stored to a variable another thread can read is not deletable:
// it runs on, and the other thread's reads of it stay in the search. (A store to a node
// not yet linked counts too: Treiber's push attempts run on.)
void storing_attempts() {
  atomic<int> x(0, "x"), tries(0, "tries");
  auto inc = [&](int id) {
    for (cas_loop loop;; loop.retry()) {
      int v = x.load();
      tries.store(id * 10 + v);
      if (x.compare_exchange_strong(v, v + 1)) break;
    }
  };
  thread a(inc, 1), b(inc, 2);
  outcome("seen", tries.load());
  a.join();
  b.join();
}

TEST(CasLoop, AttemptsThatStoreRunOn) {
  const ExploreResult on = explore(storing_attempts, options(MemoryModelKind::sc, true));
  const ExploreResult off = explore(storing_attempts, options(MemoryModelKind::sc, false));
  EXPECT_EQ(on.pruned, 0u);
  EXPECT_EQ(on.completed, off.completed);
  EXPECT_EQ(on.outcomes, off.outcomes);
}

// A failed attempt that nothing ever changes spins forever: a livelock, as for spin_until.
void forever() {
  atomic<int> flag(0, "flag");
  thread a([&] {
    for (cas_loop loop;; loop.retry())
      if (flag.load() == 1) break;
  });
  a.join();
}

TEST(CasLoop, AnAttemptNothingChangesIsALivelock) {
  const ExploreResult r = explore(forever, options(MemoryModelKind::sc, true));
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0].kind, FailureKind::deadlock);
  EXPECT_NE(r.failures[0].message.find("spins forever in a cas_loop"), std::string::npos) << r.failures[0].message;
}

// The contract's limit, shown: an expected value guessed rather than read makes the first
// attempt fail whatever the other threads do, so the next attempt depends on more than what
// this one read, and the reduction reports the loop as a livelock. Without it the loop ends.
void guessed_expected() {
  atomic<int> x(5, "x");
  thread a([&] {
    int expected = 0;  // a guess: the first attempt fails and hands back 5
    for (cas_loop loop; !x.compare_exchange_strong(expected, expected + 1); loop.retry()) {
    }
  });
  a.join();
  outcome("x", x.load());
}

TEST(CasLoop, AGuessedExpectedValueBreaksTheContract) {
  const ExploreResult on = explore(guessed_expected, options(MemoryModelKind::sc, true));
  ASSERT_EQ(on.failures.size(), 1u);
  EXPECT_EQ(on.failures[0].kind, FailureKind::deadlock);
  const ExploreResult off = explore(guessed_expected, options(MemoryModelKind::sc, false));
  EXPECT_TRUE(off.failures.empty());
  EXPECT_EQ(off.outcomes.size(), 1u);
}

TEST(CasLoop, IsAPlainLoopOutsideAnExploration) {
  int attempts = 0;
  for (cas_loop loop; ++attempts < 3; loop.retry()) {
  }
  EXPECT_EQ(attempts, 3);
  std_types::cas_loop production;
  EXPECT_TRUE(production.retry());
}

// ---- random CAS-loop programs ------------------------------------------------------------

// One thread's operation: a plain load or store, or a retry loop on x[obj] of a shape:
// 0 confirmation (load, then CAS from the loaded value, in the attempt),
// 1 carried (load before the loop; a failed CAS hands back the new expected value),
// 2 give-up (gives up when the value reached `value`, as Vyukov's full queue does),
// 3 extra reads (reads the other variable in the attempt and records it after success),
// 4 helping (a CAS on the other variable in every attempt, which may win: a failed
//   attempt that wrote must not be reduced),
// 5 counting (counts its attempts in a shared counter: must not be reduced),
// 6 plain store, 7 plain load,
// 8 once (a plain CAS whose failure leaves the loop with the value it read: not a
//   confirmation, so the search may not let it fail on the latest write only).
// `confirm`: the loop's CAS is cas_loop::compare_exchange_strong (its failure ends the
// attempt) in shapes 0-5.
struct LoopOp {
  int shape;
  int obj;
  int value;
  bool confirm = false;
};
struct LoopProgram {
  std::vector<std::vector<LoopOp>> threads;
  int forbidden = -1;
};

LoopProgram make_loop_program(std::mt19937_64& rng) {
  LoopProgram p;
  // Small enough that the search without the reduction, which runs every attempt, ends
  // within the budget: 2 threads of 1-3 operations or 3 of 1-2, at most 4 loops in all.
  const int nthreads = 2 + static_cast<int>(rng() % 2);
  p.threads.resize(static_cast<std::size_t>(nthreads));
  int loops = 0;
  for (auto& ops : p.threads) {
    const int n = 1 + static_cast<int>(rng() % (nthreads == 3 ? 2 : 3));
    for (int i = 0; i < n; ++i) {
      int shape = static_cast<int>(rng() % 9);
      if ((shape < 6 || shape == 8) && ++loops > 4) shape = 6 + static_cast<int>(rng() % 2);
      ops.push_back({shape, static_cast<int>(rng() % 2), 1 + static_cast<int>(rng() % 3), rng() % 2 == 0});
    }
  }
  p.forbidden = static_cast<int>(rng() % 6);
  return p;
}

std::string describe(const LoopProgram& p) {
  static const char* names[] = {"confirm", "carried", "give-up", "extra", "help", "count", "store", "load", "once"};
  std::string out;
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    out += fmt::format("T{}:", t + 1);
    for (const LoopOp& op : p.threads[t])
      out += fmt::format(" {}{}(x{},{})", names[op.shape], op.confirm && op.shape < 6 ? "!" : "", op.obj, op.value);
    out += "; ";
  }
  return out + fmt::format("forbidden x0+x1 = {}", p.forbidden);
}

// `mutant`: a failed attempt of a counting loop gives up its thread with assume(false),
// which is what a reduction that also blocked writing attempts would do.
Program program_of(const LoopProgram& p, bool mutant = false) {
  return [p, mutant] {
    atomic<int> x0(0, "x0"), x1(0, "x1"), attempts(0, "attempts");
    atomic<int>* xs[2] = {&x0, &x1};
    std::vector<thread> ths;
    for (std::size_t t = 0; t < p.threads.size(); ++t) {
      ths.emplace_back([&, t] {
        int k = 0;
        auto out = [&](std::int64_t v) { outcome(fmt::format("t{}_{}", t, k++), v); };
        for (const LoopOp& op : p.threads[t]) {
          atomic<int>& x = *xs[op.obj];
          atomic<int>& other = *xs[1 - op.obj];
          // The loop's CAS: cas_loop's own (a failure ends the attempt) or x's.
          auto cas = [&](cas_loop& loop, int& v, int desired) {
            return op.confirm ? loop.compare_exchange_strong(x, v, desired) : x.compare_exchange_strong(v, desired);
          };
          switch (op.shape) {
            case 0:
              for (cas_loop loop;; loop.retry()) {
                int v = x.load();
                if (cas(loop, v, v + op.value)) break;
              }
              break;
            case 1: {
              int v = x.load();
              for (cas_loop loop; !cas(loop, v, v + op.value); loop.retry()) {
              }
              out(v);
              break;
            }
            case 2:
              for (cas_loop loop;; loop.retry()) {
                int v = x.load();
                if (v >= op.value) {
                  out(-1);
                  break;
                }
                if (cas(loop, v, v + 1)) break;
              }
              break;
            case 3: {
              int seen_other = 0;
              for (cas_loop loop;; loop.retry()) {
                int v = x.load();
                seen_other = other.load();
                if (cas(loop, v, v + op.value)) break;
              }
              out(seen_other);
              break;
            }
            case 4:
              for (cas_loop loop;; loop.retry()) {
                int v = x.load();
                int o = other.load();
                if (o == 0) other.compare_exchange_strong(o, 1);  // a help that may win, once
                if (cas(loop, v, v + op.value)) break;
              }
              break;
            case 5:
              for (cas_loop loop;; loop.retry()) {
                int v = x.load();
                attempts.fetch_add(1);
                if (cas(loop, v, v + op.value)) break;
                assume(!mutant);
              }
              break;
            case 8:
              for (cas_loop loop;; loop.retry()) {
                int v = x.load();
                if (!x.compare_exchange_strong(v, v + op.value)) out(v);
                break;
              }
              break;
            case 6: x.store(op.value); break;
            default: out(x.load()); break;
          }
        }
      });
    }
    for (thread& th : ths) th.join();
    outcome("x0", x0.load());
    outcome("x1", x1.load());
    outcome("attempts", attempts.load());
    check(x0.load() + x1.load() != p.forbidden, "forbidden sum");
  };
}

int scaled(int n) {
  const char* env = std::getenv("ATOMCHECK_LOOP_PROGRAMS");
  if (env) return std::atoi(env);
  return std::getenv("ATOMCHECK_SANITIZED") ? n / 8 : n;
}

struct Judged {
  int programs = 0;
  int reduced = 0;      // programs where the reduction blocked some execution
  int mismatched = 0;   // programs whose outcomes or failures differ
  int undecided = 0;    // programs a search could not finish within its budget
  std::string first;    // the first mismatch, described
};

// The mutants: `blocks_writers` blocks failed attempts that wrote (program_of's mutant);
// `every_cas_confirms` takes every CAS of an unwritten attempt for cas_loop's own, whose
// failure ends the attempt, so that under rc11 it fails only on the latest write;
// `moots_every_block` cuts TruSt's run wherever a thread blocks, not only after a stale read.
enum class Mutant { none, blocks_writers, every_cas_confirms, moots_every_block };

// `graphs`: the reduced search runs under sc_graphs (sc only), the other as always.
Judged judge(MemoryModelKind m, std::uint64_t seed, int n, Mutant mutant, bool graphs = false) {
  std::mt19937_64 rng(seed);
  Judged j;
  const int needs = mutant == Mutant::blocks_writers ? 5 : 8;  // the shape a mutant shows on
  for (int i = 0; i < n; ++i) {
    const LoopProgram p = make_loop_program(rng);
    if ((mutant == Mutant::blocks_writers || mutant == Mutant::every_cas_confirms) && !std::any_of(p.threads.begin(), p.threads.end(), [&](const auto& ops) {
          return std::any_of(ops.begin(), ops.end(), [&](const LoopOp& op) { return op.shape == needs; });
        }))
      continue;
    detail::every_cas_confirms(mutant == Mutant::every_cas_confirms);
    trust_moots_every_block(mutant == Mutant::moots_every_block);
    ExploreOptions reduced = options(m, true);
    reduced.sc_graphs = graphs;
    const ExploreResult on = explore(program_of(p, mutant == Mutant::blocks_writers), reduced);
    detail::every_cas_confirms(false);
    trust_moots_every_block(false);
    const ExploreResult off = explore(program_of(p), options(m, false));
    ++j.programs;
    j.reduced += on.pruned > 0;
    // The search that runs every attempt can outgrow its budget on a program whose
    // loops help one another: undecided, counted, and allowed only rarely.
    if (on.stop == StopReason::max_executions || off.stop == StopReason::max_executions) {
      ++j.undecided;
      continue;
    }
    if (on.stop != StopReason::none || off.stop != StopReason::none) {
      ADD_FAILURE() << "search stopped (" << stop_reason_name(on.stop) << ", " << stop_reason_name(off.stop) << "): " << describe(p);
      continue;
    }
    const std::set<Outcome> a = outcome_set(on), b = outcome_set(off);
    if (a != b || failure_messages(on) != failure_messages(off)) {
      if (j.mismatched++ == 0)
        j.first = fmt::format("{}: {} outcomes reduced, {} not; {} failures reduced, {} not", describe(p), a.size(),
                              b.size(), on.failures.size(), off.failures.size());
    }
  }
  return j;
}

class LoopReductionProperties : public ::testing::TestWithParam<MemoryModelKind> {};

TEST_P(LoopReductionProperties, SameOutcomesAndFailuresAsEveryAttempt) {
  const MemoryModelKind m = GetParam();
  const Judged j = judge(m, 5800 + static_cast<std::uint64_t>(m), scaled(200), Mutant::none);
  EXPECT_EQ(j.mismatched, 0) << j.first;
  EXPECT_GT(j.reduced, j.programs / 4) << "the reduction blocked too few programs to be judged";
  EXPECT_LE(j.undecided, j.programs / 100 + 1) << "too many programs outgrew the budget";
  std::printf("loop reduction, %s: %d random programs, %d reduced, %d over the budget, outcomes and failures equal\n",
              std::string(memory_model_name(m)).c_str(), j.programs, j.reduced, j.undecided);
}

// The judge can fail: a reduction that also blocked attempts that store is caught.
TEST_P(LoopReductionProperties, MutantIsCaught) {
  const MemoryModelKind m = GetParam();
  const Judged j = judge(m, 5900 + static_cast<std::uint64_t>(m), scaled(100), Mutant::blocks_writers);
  EXPECT_GT(j.mismatched, 0) << j.programs << " programs with counting loops, none told apart";
}

// SC as a graph model (sc_graphs: TruSt, with the confirmation CASes' waits) against SC's
// interleavings with every attempt run.
TEST(LoopReductionScGraphs, SameOutcomesAndFailuresAsEveryAttempt) {
  const Judged j = judge(MemoryModelKind::sc, 5970, scaled(200), Mutant::none, true);
  EXPECT_EQ(j.mismatched, 0) << j.first;
  EXPECT_GT(j.reduced, j.programs / 4) << "the reduction blocked too few programs to be judged";
  EXPECT_LE(j.undecided, j.programs / 100 + 1) << "too many programs outgrew the budget";
}

// And one that takes a CAS whose failure leaves the loop for cas_loop's own: under rc11 it
// then fails only on the latest write, and the values a stale failure reads are lost.
TEST(LoopReductionRc11, MutantConfirmingEveryCasIsCaught) {
  // Not scaled down under the sanitizers: few programs give up after a plain CAS.
  const Judged j = judge(MemoryModelKind::rc11, 5950, 100, Mutant::every_cas_confirms);
  EXPECT_GT(j.mismatched, 0) << j.programs << " programs with a CAS that gives up, none told apart";
}

// The linearizability verdicts (issue 58: the reduction may not change one): the lincheck
// objects whose operations are cas_loops, linearizable or not, scenario by scenario (one
// seed each, shrunk when it fails), with the reduction and without it, under every model;
// and sc's interleavings (optimal DPOR) against sc's graphs (--sc-graphs, TruSt with the
// confirmation CASes), whose "precedes" is read from the same po, rf and co.
std::string verdict(const lin::LinObjectInfo& object, lin::ScenarioOptions so) {
  const lin::ScenarioReport r = object.check(so);
  if (r.ok) return "linearizable";
  return (r.incomplete ? "incomplete: " : "not linearizable: ") + r.text.substr(0, r.text.find('\n'));
}

TEST(LoopReductionLin, SameVerdictsScenarioByScenario) {
  const int seeds = std::getenv("ATOMCHECK_SANITIZED") ? 4 : 12;
  int failing = 0, compared = 0;
  for (const char* name : {"treiber-stack", "treiber-stack-no-retry", "ms-queue", "vyukov-queue"}) {
    const lin::LinObjectInfo* object = lin::find_lin_object(name);
    ASSERT_NE(object, nullptr) << name;
    for (const auto& [threads, ops] : {std::pair{2u, 2u}, std::pair{3u, 1u}})
      for (int seed = 1; seed <= seeds; ++seed) {
        lin::ScenarioOptions so;
        so.threads = threads;
        so.ops_per_thread = ops;
        so.scenarios = 1;
        so.seed = static_cast<std::uint64_t>(seed);
        so.explore.memory = MemoryModelKind::sc;
        so.explore.loop_reduction = false;
        const std::string sc_every_attempt = verdict(*object, so);
        failing += sc_every_attempt != "linearizable";
        for (const MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::tso, MemoryModelKind::rc11})
          for (const bool graphs : {false, true}) {
            if (graphs && m != MemoryModelKind::sc) continue;
            const std::string at = fmt::format("{} {}x{} seed {} {}{}", name, threads, ops, seed, memory_model_name(m),
                                               graphs ? " --sc-graphs" : "");
            so.explore.memory = m;
            so.explore.sc_graphs = graphs;
            so.explore.loop_reduction = false;
            const std::string every = m == MemoryModelKind::sc && !graphs ? sc_every_attempt : verdict(*object, so);
            so.explore.loop_reduction = true;
            const std::string reduced = verdict(*object, so);
            EXPECT_EQ(reduced, every) << at;
            if (m == MemoryModelKind::sc) {
              EXPECT_EQ(reduced, sc_every_attempt) << at;
            }
            ++compared;
          }
        so.explore.sc_graphs = false;
      }
  }
  EXPECT_GT(failing, 0) << "no scenario failed: the judge saw no non-linearizable verdict";
  std::printf("lin verdicts: %d comparisons, %d of the scenarios not linearizable under sc\n", compared, failing);
}

// A run cut wherever a thread blocks, even after a read of the latest write, loses the rest
// of the run and the branches of what it would have added: the outcome judge catches it.
TEST(LoopReductionRc11, MutantMootingEveryBlockIsCaught) {
  // Not scaled down under the sanitizers: one program in a few hundred tells it apart.
  const Judged j = judge(MemoryModelKind::rc11, 5990, 600, Mutant::moots_every_block);
  EXPECT_GT(j.mismatched, 0) << j.programs << " programs, none told apart";
  std::printf("mooting every block: %d of %d programs told apart\n", j.mismatched, j.programs);
}

// A counter whose increments count their failed attempts into what `get` answers: not
// linearizable exactly in the executions where an increment retried, whose failed attempt
// wrote, so that the reduction must run it on.
class RetryCountingCounter {
 public:
  std::int64_t increment() {
    for (cas_loop loop;; loop.retry()) {
      int v = value_.load();
      if (value_.compare_exchange_strong(v, v + 1)) return v;
      retries_.fetch_add(1);
    }
  }
  std::int64_t get() { return value_.load() + retries_.load(); }

 private:
  atomic<int> value_{0, "value"}, retries_{0, "retries"};
};

// The verdict judge can fail: a reduction that also blocked the attempts that wrote would
// find this counter linearizable.
TEST(LoopReductionLin, MutantBlockingWritersIsCaught) {
  const std::vector<lin::Op<RetryCountingCounter>> ops = {
      {"increment", [](RetryCountingCounter& c, std::int64_t) { return c.increment(); }},
      {"get", [](RetryCountingCounter& c, std::int64_t) { return c.get(); }}};
  for (const MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::tso, MemoryModelKind::rc11})
    for (const bool graphs : {false, true}) {
      if (graphs && m != MemoryModelKind::sc) continue;
      lin::ScenarioOptions so;
      so.threads = 2;
      so.ops_per_thread = 2;
      so.explore.memory = m;
      so.explore.sc_graphs = graphs;
      const std::string at = fmt::format("{}{}", memory_model_name(m), graphs ? " --sc-graphs" : "");
      so.explore.loop_reduction = false;
      const lin::ScenarioReport every = lin::check_scenarios<RetryCountingCounter>("counter", ops, so);
      so.explore.loop_reduction = true;
      const lin::ScenarioReport reduced = lin::check_scenarios<RetryCountingCounter>("counter", ops, so);
      detail::loop_reduction_blocks_writers(true);
      const lin::ScenarioReport mutant = lin::check_scenarios<RetryCountingCounter>("counter", ops, so);
      detail::loop_reduction_blocks_writers(false);
      EXPECT_FALSE(every.ok) << at;
      EXPECT_FALSE(reduced.ok) << at;
      EXPECT_EQ(format_scenario(reduced.scenario, {"increment", "get"}), format_scenario(every.scenario, {"increment", "get"})) << at;
      EXPECT_TRUE(mutant.ok) << at << ": " << mutant.text;
    }
}

INSTANTIATE_TEST_SUITE_P(Models, LoopReductionProperties,
                         ::testing::Values(MemoryModelKind::sc, MemoryModelKind::tso, MemoryModelKind::rc11),
                         [](const auto& info) { return std::string(memory_model_name(info.param)); });

}  // namespace
}  // namespace atomcheck
