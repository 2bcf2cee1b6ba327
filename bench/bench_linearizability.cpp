// How long the linearizability decider takes on long histories (issue 40: a stress
// history of 10^4 operations decided in seconds, Porcupine's range).
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

#include "checkers/linearizability.hpp"

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
    for (std::int64_t v = -1; v < 1 << 20; ++v) {  // the result the object gives
      lin::Operation probe = h[i];
      probe.result = v < 0 ? lin::kNone : v;
      std::vector<std::int64_t> s = state;
      if (spec.step(s, probe, true)) {
        h[i].result = probe.result;
        break;
      }
    }
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

}  // namespace

// Stacks and queues grow exponentially past a few hundred operations (see
// docs/linearizability.md): the sizes stop where a run still ends in minutes.
BENCHMARK_CAPTURE(Stress, stack, "stack")->Args({250, 4})->Args({500, 4})->Args({1000, 4})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Stress, queue, "queue")->Args({125, 4})->Args({250, 4})->Args({500, 4})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Stress, set, "set")->Args({1000, 4})->Args({10000, 4})->Args({100000, 4})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Stress, counter, "counter")->Args({1000, 4})->Args({10000, 4})->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
