// Reduction speed: executions explored and executions/s of plain DFS, source-DPOR and
// optimal DPOR on a few small programs (independent writers, conflicting loads/stores,
// a locked counter: each under SC and TSO; Nidhugg's small Peterson under TSO). Reports,
// never asserts.
#include <benchmark/benchmark.h>

#include <string>
#include <utility>
#include <vector>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"

namespace {

using namespace atomcheck;
constexpr auto kRelaxed = std::memory_order_relaxed;

// Three threads, each writing its own variable three times: one class.
void independent() {
  atomic<int> a(0), b(0), c(0);
  auto body = [](atomic<int>& v) {
    for (int i = 0; i < 3; ++i) v.store(i, kRelaxed);
  };
  thread t1(body, std::ref(a)), t2(body, std::ref(b)), t3(body, std::ref(c));
  t1.join();
  t2.join();
  t3.join();
}

// Three threads of relaxed stores and loads on two shared variables.
void mixed() {
  atomic<int> x(0), y(0);
  auto body = [&](int id) {
    x.store(id, kRelaxed);
    (void)y.load(kRelaxed);
    y.store(id, kRelaxed);
    (void)x.load(kRelaxed);
  };
  thread t1(body, 1), t2(body, 2), t3(body, 3);
  t1.join();
  t2.join();
  t3.join();
}

// Three threads incrementing a counter under one mutex.
void locked_counter() {
  mutex m;
  atomic<int> x(0);
  auto inc = [&] {
    for (int i = 0; i < 2; ++i) {
      m.lock();
      x.store(x.load(kRelaxed) + 1, kRelaxed);
      m.unlock();
    }
  };
  thread t1(inc), t2(inc), t3(inc);
  t1.join();
  t2.join();
  t3.join();
}

// Nidhugg's Small_peterson (TSO): 12 rf+co classes.
void small_peterson() {
  atomic<int> x(0), y(0), t(0);
  thread t1([&] {
    x.store(1, kRelaxed);
    t.store(1, kRelaxed);
    (void)t.load(kRelaxed);
    (void)y.load(kRelaxed);
  });
  thread t2([&] {
    y.store(1, kRelaxed);
    t.store(0, kRelaxed);
    (void)t.load(kRelaxed);
    (void)x.load(kRelaxed);
  });
  t1.join();
  t2.join();
}

void run(benchmark::State& state, void (*program)(), StrategyKind strategy, MemoryModelKind memory) {
  ExploreOptions options;
  options.strategy = strategy;
  options.memory = memory;
  ExploreResult r;
  std::uint64_t executions = 0;
  for (auto _ : state) {
    r = explore(program, options);
    executions += r.executions;
    benchmark::DoNotOptimize(r.completed);
  }
  state.counters["executions/s"] =
      benchmark::Counter(static_cast<double>(executions), benchmark::Counter::kIsRate);
  state.counters["executions"] = static_cast<double>(r.executions);
  state.counters["sleep_blocked"] = static_cast<double>(r.sleep_blocked);
}

struct Program {
  const char* name;
  void (*body)();
  MemoryModelKind memory;
  bool dfs = true;  // false: plain DFS runs for minutes (TSO's flush interleavings)
};

const int kRegistered = [] {
  const std::vector<Program> programs{{"independent_sc", independent, MemoryModelKind::sc},
                                      {"independent_tso", independent, MemoryModelKind::tso, false},
                                      {"mixed_sc", mixed, MemoryModelKind::sc},
                                      {"mixed_tso", mixed, MemoryModelKind::tso, false},
                                      {"locked_counter_sc", locked_counter, MemoryModelKind::sc},
                                      {"locked_counter_tso", locked_counter, MemoryModelKind::tso, false},
                                      {"small_peterson_tso", small_peterson, MemoryModelKind::tso}};
  const std::vector<std::pair<const char*, StrategyKind>> strategies{
      {"dfs", StrategyKind::dfs}, {"dpor", StrategyKind::dpor}, {"optimal", StrategyKind::optimal}};
  for (const Program& p : programs)
    for (const auto& [sname, s] : strategies) {
      if (s == StrategyKind::dfs && !p.dfs) continue;
      benchmark::RegisterBenchmark((std::string(p.name) + "/" + sname).c_str(),
                                   [p, s = s](benchmark::State& st) { run(st, p.body, s, p.memory); })
          ->Unit(benchmark::kMillisecond)
          ->MinTime(1.0);
    }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
