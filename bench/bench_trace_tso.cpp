// Trace TSO-serializability: the four deciders (brute force over commit placements,
// Z3 on Corollary 1, the simple-cycle search, the one-pass decider of trace-tso) against
// trace length and thread
// count, on random TSO traces (checkers/tso_random). Each iteration decides the same 8
// traces (seeds 0..7) of `threads` threads with `ops` operations each, in blocks of up
// to 3 (unary:0, mostly not serializable: the brute force stops at the first bad
// placement) or one per transaction (unary:1, mostly serializable: the brute force
// enumerates every placement); counters give the
// mean trace length and how many traces were not serializable. The brute force stops at
// 200,000 executions per trace (counter `undecided`), so its large sizes are cut.
//
// Crossover points are read off the output (docs/tso.md): compare the rows of equal
// (threads, ops) between deciders.
#include <benchmark/benchmark.h>

#include <vector>

#include "checkers/tso_random.hpp"
#include "checkers/tso_trace.hpp"
#include "checkers/tso_trace_fpt.hpp"
#include "checkers/tso_trace_z3.hpp"

namespace {

using namespace atomcheck;

std::vector<std::vector<Event>> corpus(std::uint32_t threads, std::uint32_t ops, bool unary) {
  std::vector<std::vector<Event>> out;
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    tso::RandomTsoParams p;
    p.threads = threads;
    p.vars = 2;
    p.ops_per_thread = ops;
    p.max_txn_len = 3;
    p.block_permille = unary ? 0 : 600;  // unary: one event per transaction, mostly serializable
    p.fence_permille = 50;
    p.rmw_permille = 30;
    out.push_back(drop_commits(tso::random_tso_execution(p, seed * 101 + ops * 7 + threads)).events);
  }
  return out;
}

template <int Which>
void BM_TraceTso(benchmark::State& state) {
  auto traces = corpus(static_cast<std::uint32_t>(state.range(0)), static_cast<std::uint32_t>(state.range(1)), state.range(2) != 0);
  double events = 0, violations = 0, undecided = 0;
  tso::Z3Decider z3;
  for (auto _ : state) {
    events = violations = undecided = 0;
    for (const auto& tau : traces) {
      tso::TraceVerdict v = Which == 0   ? tso::decide_brute(tau, 200000)
                            : Which == 1 ? z3.decide(tau)
                            : Which == 2 ? tso::decide_fpt(tau)
                                         : tso::decide_stream(tau);
      events += static_cast<double>(tau.size());
      violations += !v.serializable;
      undecided += !v.undecided.empty();
      benchmark::DoNotOptimize(v.serializable);
    }
  }
  state.counters["events"] = events / static_cast<double>(traces.size());
  state.counters["violations"] = violations;
  state.counters["undecided"] = undecided;
}

void Sizes(benchmark::internal::Benchmark* b, int max_ops) {
  for (int unary : {0, 1})
    for (int threads : {2, 3, 4})
      for (int ops : {2, 3, 4, 6, 8, 12, 16, 24, 32, 48})
        if (ops <= max_ops && threads * ops <= 96) b->Args({threads, ops, unary});
  b->ArgNames({"threads", "ops", "unary"})->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(BM_TraceTso<0>)->Name("trace_tso/brute")->Apply([](auto* b) { Sizes(b, 8); });
BENCHMARK(BM_TraceTso<1>)->Name("trace_tso/z3")->Apply([](auto* b) { Sizes(b, 48); });
BENCHMARK(BM_TraceTso<2>)->Name("trace_tso/search")->Apply([](auto* b) { Sizes(b, 48); });
BENCHMARK(BM_TraceTso<3>)->Name("trace_tso/one_pass")->Apply([](auto* b) { Sizes(b, 48); });

BENCHMARK_MAIN();
