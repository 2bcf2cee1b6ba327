// Exploration speed: executions/s and visible operations/s of plain DFS over a 3-thread
// program of 4 operations per thread (34,650 executions, 12 operations each), with no
// checker attached, under SC and TSO; the cost of attaching a checker; and the cost of
// data-race detection (the *_NoRaceCheck twins turn it off, docs/data-races.md).
#include <benchmark/benchmark.h>

#include <memory>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"

namespace {

using namespace atomcheck;

constexpr int kThreads = 3, kOps = 4;

// Each thread stores to its own variable: every interleaving is explored by DFS.
void three_by_four() {
  atomic<int> a(0), b(0), c(0);
  auto body = [](atomic<int>& v) {
    for (int i = 0; i < kOps; ++i) v.store(i, std::memory_order_relaxed);
  };
  thread t1(body, std::ref(a)), t2(body, std::ref(b)), t3(body, std::ref(c));
  t1.join();
  t2.join();
  t3.join();
}

// Loads and stores on shared variables (conflicting), for the TSO run.
void three_by_four_mixed() {
  atomic<int> x(0), y(0);
  auto body = [&](int id) {
    x.store(id, std::memory_order_relaxed);
    (void)y.load(std::memory_order_relaxed);
    y.store(id, std::memory_order_relaxed);
    (void)x.load(std::memory_order_relaxed);
  };
  thread t1(body, 1), t2(body, 2), t3(body, 3);
  t1.join();
  t2.join();
  t3.join();
}

// Each thread writes and reads its own shared<int>: non-atomic accesses, race-free, every
// interleaving explored by DFS (race detection checks every access).
void three_by_four_plain() {
  shared<int> a(0), b(0), c(0);
  auto body = [](shared<int>& v) {
    for (int i = 0; i < kOps / 2; ++i) {
      v.set(i);
      (void)v.get();
    }
  };
  thread t1(body, std::ref(a)), t2(body, std::ref(b)), t3(body, std::ref(c));
  t1.join();
  t2.join();
  t3.join();
}

void run(benchmark::State& state, void (*program)(), ExploreOptions options) {
  std::uint64_t executions = 0, steps = 0;
  for (auto _ : state) {
    ExploreResult r = explore(program, options);
    executions += r.executions;
    steps += r.steps;
    benchmark::DoNotOptimize(r.completed);
  }
  state.counters["executions/s"] =
      benchmark::Counter(static_cast<double>(executions), benchmark::Counter::kIsRate);
  state.counters["operations/s"] =
      benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["executions"] = static_cast<double>(executions) / static_cast<double>(state.iterations());
}

void BM_Dfs3x4_SC(benchmark::State& state) { run(state, three_by_four, {}); }
BENCHMARK(BM_Dfs3x4_SC)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_Dfs3x4Mixed_SC(benchmark::State& state) { run(state, three_by_four_mixed, {}); }
BENCHMARK(BM_Dfs3x4Mixed_SC)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_Random3x4_SC(benchmark::State& state) {
  ExploreOptions o;
  o.strategy = StrategyKind::random;
  o.max_executions = 20000;
  run(state, three_by_four, o);
}
BENCHMARK(BM_Random3x4_SC)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_Dfs3x4Mixed_TSO(benchmark::State& state) {
  ExploreOptions o;
  o.memory = MemoryModelKind::tso;
  o.max_executions = 100000;
  run(state, three_by_four_mixed, o);
}
BENCHMARK(BM_Dfs3x4Mixed_TSO)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_Dfs3x4_Velodrome(benchmark::State& state) {
  ExploreOptions o;
  o.checkers = {"velodrome"};
  run(state, three_by_four, o);
}
BENCHMARK(BM_Dfs3x4_Velodrome)->Unit(benchmark::kMillisecond)->MinTime(2.0);

ExploreOptions race_check(ExploreOptions o, bool on) {
  o.race_check = on;
  return o;
}
ExploreOptions dfs() {
  ExploreOptions o;
  o.strategy = StrategyKind::dfs;
  o.max_executions = 100000;
  return o;
}

void BM_Dfs3x4_SC_NoRaceCheck(benchmark::State& state) { run(state, three_by_four, race_check({}, false)); }
BENCHMARK(BM_Dfs3x4_SC_NoRaceCheck)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_Dfs3x4Mixed_TSO_NoRaceCheck(benchmark::State& state) {
  ExploreOptions o;
  o.memory = MemoryModelKind::tso;
  o.max_executions = 100000;
  run(state, three_by_four_mixed, race_check(o, false));
}
BENCHMARK(BM_Dfs3x4Mixed_TSO_NoRaceCheck)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_AllDfs3x4Plain_SC(benchmark::State& state) { run(state, three_by_four_plain, dfs()); }
BENCHMARK(BM_AllDfs3x4Plain_SC)->Unit(benchmark::kMillisecond)->MinTime(2.0);
void BM_AllDfs3x4Plain_SC_NoRaceCheck(benchmark::State& state) {
  run(state, three_by_four_plain, race_check(dfs(), false));
}
BENCHMARK(BM_AllDfs3x4Plain_SC_NoRaceCheck)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_AllDfs3x4Mixed_TSO(benchmark::State& state) {
  ExploreOptions o = dfs();
  o.memory = MemoryModelKind::tso;
  run(state, three_by_four_mixed, o);
}
BENCHMARK(BM_AllDfs3x4Mixed_TSO)->Unit(benchmark::kMillisecond)->MinTime(2.0);
void BM_AllDfs3x4Mixed_TSO_NoRaceCheck(benchmark::State& state) {
  ExploreOptions o = dfs();
  o.memory = MemoryModelKind::tso;
  run(state, three_by_four_mixed, race_check(o, false));
}
BENCHMARK(BM_AllDfs3x4Mixed_TSO_NoRaceCheck)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
