// How long the linearizability decider takes on long histories (issue 40: a stress
// history of 10^4 operations decided in seconds, Porcupine's range), and what the panel's
// `linearizability` checker adds to an exploration (Overhead: the checker must cost at
// most what running the executions costs).
//
// Stress/SPEC/N/T: a linearizable history of N operations by T threads on a stack, a queue
// (distinct values) or a set (keys 0..7), as a stress run would record it: each thread calls its next
// operation at a random moment after its previous one returned, the operation takes
// effect at a random point of its interval (that order gives the results), and up to T
// operations overlap. Counter: search steps per operation.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include <array>
#include <ctime>

#include "checkers/linearizability.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"
#include "scheduler/explore/lin_test.hpp"

namespace {

using namespace atomcheck;

lin::History stress(const lin::Spec& spec, std::size_t n, std::uint32_t threads, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  lin::History h;
  std::vector<int> open(threads, -1);
  std::vector<double> point;  // linearization point of each operation
  std::uint64_t now = 0;
  std::size_t started = 0;
  while (started < n || std::any_of(open.begin(), open.end(), [](int o) { return o >= 0; })) {
    std::uint32_t t = static_cast<std::uint32_t>(rng() % threads);
    if (open[t] >= 0) {
      h[open[t]].ret = now++;
      open[t] = -1;
    } else if (started < n) {
      lin::Operation o;
      o.thread = t;
      o.method = static_cast<std::uint32_t>(rng() % spec.methods().size());
      // Sets draw keys from 0..7 (collisions are the point); stacks and queues push distinct
      // values, as a stress test does to tell its elements apart.
      o.arg = spec.key(o) ? static_cast<std::int64_t>(rng() % 8) : static_cast<std::int64_t>(h.size());
      o.call = now++;
      open[t] = static_cast<int>(h.size());
      h.push_back(o);
      ++started;
    }
  }
  std::vector<std::pair<double, std::size_t>> order;
  for (std::size_t i = 0; i < h.size(); ++i)
    order.push_back({std::uniform_real_distribution<double>(double(h[i].call), double(h[i].ret))(rng), i});
  std::sort(order.begin(), order.end());
  std::vector<std::int64_t> state = spec.initial();
  for (auto [at, i] : order) {
    // The result the object gives: none, the value at either end of what it holds (a
    // pop's, a dequeue's: 10^5 operations are made in seconds), else the first integer.
    auto gives = [&](std::int64_t v) {
      lin::Operation probe = h[i];
      probe.result = v;
      std::vector<std::int64_t> s = state;
      if (!spec.step(s, probe, true)) return false;
      h[i].result = v;
      return true;
    };
    bool found = gives(lin::kNone) || (!state.empty() && (gives(state.back()) || gives(state.front())));
    for (std::int64_t v = 0; v < 1 << 20 && !found; ++v) found = gives(v);
    spec.step(state, h[i], false);
  }
  return h;
}

void Stress(benchmark::State& st, const char* name) {
  auto spec = lin::make_spec(name);
  lin::History h = stress(*spec, static_cast<std::size_t>(st.range(0)), static_cast<std::uint32_t>(st.range(1)), 1);
  std::uint64_t steps = 0;
  for (auto _ : st) {
    lin::Answer a = lin::check(h, *spec);
    if (!a.linearizable || !a.undecided.empty()) st.SkipWithError("expected a linearizable history");
    steps = a.steps;
  }
  st.counters["steps_per_op"] = static_cast<double>(steps) / static_cast<double>(h.size());
}

// The model library's stack and queue, with three threads of two operations each (push
// then pop, enqueue then dequeue): the shape of issue 40's overhead target.
constexpr int kThreads = 3, kNull = -1;

void treiber_3x2() {
  std::array<atomcheck::shared<int>, kThreads + 1> value{};
  std::array<atomcheck::atomic<int>, kThreads + 1> next{};
  atomcheck::atomic<int> head(kNull, "head");
  auto worker = [&](int node) {
    {
      lin::operation op("stack", "push", node);
      value[node].set(node);
      int h = head.load(std::memory_order_relaxed);
      do {
        next[node].store(h, std::memory_order_relaxed);
      } while (!head.compare_exchange_weak(h, node, std::memory_order_release, std::memory_order_relaxed));
    }
    lin::operation op("stack", "pop");
    int h = head.load(std::memory_order_acquire);
    while (h != kNull && !head.compare_exchange_weak(h, next[h].load(std::memory_order_relaxed),
                                                     std::memory_order_acquire, std::memory_order_acquire)) {
    }
    op.returns(h == kNull ? lin::kNone : value[h].get());
  };
  std::array<atomcheck::thread, kThreads> threads;
  for (int t = 0; t < kThreads; ++t) threads[t] = atomcheck::thread(worker, t + 1);
  for (auto& t : threads) t.join();
}

void ms_queue_3x2() {
  std::array<atomcheck::shared<int>, kThreads + 1> value{};
  std::array<atomcheck::atomic<int>, kThreads + 1> next{};
  for (auto& n : next) n.store(kNull, std::memory_order_relaxed);
  atomcheck::atomic<int> head(0, "head"), tail(0, "tail");
  auto enqueue = [&](int node) {
    lin::operation op("queue", "enqueue", node);
    value[node].set(node);
    for (;;) {
      int t = tail.load(std::memory_order_acquire);
      int n = next[t].load(std::memory_order_acquire);
      if (n != kNull) {
        tail.compare_exchange_strong(t, n);
        continue;
      }
      if (next[t].compare_exchange_strong(n, node)) {
        tail.compare_exchange_strong(t, node);
        return;
      }
    }
  };
  auto dequeue = [&] {
    lin::operation op("queue", "dequeue");
    for (;;) {
      int h = head.load(std::memory_order_acquire);
      int t = tail.load(std::memory_order_acquire);
      int n = next[h].load(std::memory_order_acquire);
      if (h != head.load(std::memory_order_acquire)) continue;
      if (n == kNull) {
        op.returns(lin::kNone);
        return;
      }
      if (h == t) {
        tail.compare_exchange_strong(t, n);
        continue;
      }
      const int v = value[n].get();
      if (head.compare_exchange_strong(h, n)) {
        op.returns(v);
        return;
      }
    }
  };
  std::array<atomcheck::thread, kThreads> threads;
  for (int t = 0; t < kThreads; ++t) threads[t] = atomcheck::thread([&, t] {
    enqueue(t + 1);
    dequeue();
  });
  for (auto& t : threads) t.join();
}

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Each iteration explores the program twice, without and with the checker, alternating,
// so the machine's changing speed falls on both; CPU time, not wall time, and the first
// 20,000 executions of each search (both take the budget). check_over_run: (with -
// without) / without per execution, the checker's cost over the execution's own. Under
// TSO the checker keeps issue order, so the two searches run different executions.
void Overhead(benchmark::State& st, void (*program)(), atomcheck::MemoryModelKind memory) {
  double without = 0, with = 0;
  std::uint64_t n_without = 0, n_with = 0;
  for (auto _ : st) {
    for (bool check : {false, true}) {
      atomcheck::ExploreOptions o;
      o.memory = memory;
      o.stop_on_failure = false;
      o.max_executions = 20000;
      if (check) o.checkers = {"linearizability"};
      const double t0 = cpu_seconds();
      atomcheck::ExploreResult r = atomcheck::explore(program, o);
      (check ? with : without) += cpu_seconds() - t0;
      if (r.failures_total() != 0 || r.any_checker_flagged())
        st.SkipWithError("the object is linearizable: nothing may be flagged");
      (check ? n_with : n_without) += r.executions;
    }
  }
  const double per_without = without / static_cast<double>(n_without);
  const double per_with = with / static_cast<double>(n_with);
  st.counters["us_per_execution"] = 1e6 * per_without;
  st.counters["check_over_run"] = (per_with - per_without) / per_without;
}

}  // namespace

BENCHMARK_CAPTURE(Overhead, stack_sc, &treiber_3x2, atomcheck::MemoryModelKind::sc)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Overhead, stack_tso, &treiber_3x2, atomcheck::MemoryModelKind::tso)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Overhead, queue_sc, &ms_queue_3x2, atomcheck::MemoryModelKind::sc)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Overhead, queue_tso, &ms_queue_3x2, atomcheck::MemoryModelKind::tso)->Unit(benchmark::kMillisecond);

// Stacks and queues grow exponentially past a few hundred operations (see
// docs/linearizability.md): the sizes stop where a run still ends in minutes.
BENCHMARK_CAPTURE(Stress, stack, "stack")->Args({1000, 4})->Args({10000, 4})->Args({100000, 4})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Stress, queue, "queue")->Args({1000, 4})->Args({10000, 4})->Args({100000, 4})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Stress, set, "set")->Args({1000, 4})->Args({10000, 4})->Args({100000, 4})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Stress, counter, "counter")->Args({1000, 4})->Args({10000, 4})->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
