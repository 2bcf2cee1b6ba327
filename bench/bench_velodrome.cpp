// How Velodrome's cost grows with the number of live (concurrently open) transactions.
//
// Pipeline/T/K: T threads run transactions of K events round-robin, so T transactions
// are open at every moment. Thread i writes a fresh variable at every other step and
// reads the variable last written by thread i-1 at the others, so the open transaction
// of thread i-1 precedes that of thread i and the graph is a DAG (serializable: Velodrome
// never stops early). Each new edge into thread i's transaction costs a search over
// everything it reaches, i.e. up to the T-i transactions downstream; a repeated edge
// costs a scan of one adjacency list. Counters: peak live nodes, nodes visited by
// searches per event, new edges per event.
//
// Random/T: the seeded random generator with T threads, long blocks and few variables:
// not serializable after a short prefix; afterwards Velodrome keeps searching only for
// increasing cycles to blame (options.all), which is the regime of the AeroDrome
// paper's "naive specification" benchmarks.
#include <benchmark/benchmark.h>

#include <vector>

#include "checkers/velodrome.hpp"
#include "trace/random_trace.hpp"

namespace {

using namespace atomcheck;

constexpr std::size_t kEvents = 1 << 18;

std::vector<Event> pipeline(std::uint32_t threads, std::uint32_t txn_len) {
  std::vector<Event> ev;
  ev.reserve(kEvents);
  // Staggered starts (thread t's first transaction is shorter), so thread i-1 opens a
  // new transaction while thread i's is in flight and the new edge enters a node that
  // already has successors.
  std::vector<std::uint32_t> step(threads, 0);
  std::vector<std::uint32_t> latest(threads, kNoId);
  std::vector<bool> open(threads, false);
  std::uint32_t next_var = threads;  // 0..threads-1: per-thread never-written inputs
  while (ev.size() < kEvents) {
    for (ThreadId t = 0; t < threads && ev.size() < kEvents; ++t) {
      Event e;
      e.thread = t;
      if (!open[t]) {
        e.op = Op::begin;
        open[t] = true;
        if (step[t] == 0 && ev.size() < threads) step[t] = (t * 7919u) % (txn_len - 2);
        ev.push_back(e);
        continue;
      }
      std::uint32_t s = ++step[t];
      if (s + 1 >= txn_len) {
        e.op = Op::end;
        open[t] = false;
        step[t] = 0;
      } else if (s % 2 == 1) {
        e.op = Op::write;
        e.target = latest[t] = next_var++;
      } else {
        e.op = Op::read;
        e.target = (t > 0 && latest[t - 1] != kNoId) ? latest[t - 1] : t;
      }
      ev.push_back(e);
    }
  }
  return ev;
}

void feed(benchmark::State& state, const std::vector<Event>& ev) {
  CheckerOptions all;
  all.all = true;
  VelodromeChecker v(all);
  bool serializable = true;
  for (auto _ : state) {
    v.reset();
    for (const Event& e : ev) v.on_event(e);
    serializable = v.verdict().serializable;
    benchmark::DoNotOptimize(serializable);
  }
  const auto& s = v.stats();
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ev.size()));
  state.counters["peak_live"] = s.peak_live_nodes;
  state.counters["visited/ev"] = static_cast<double>(s.nodes_visited) / ev.size();
  state.counters["edges/ev"] = static_cast<double>(s.edges_added) / ev.size();
  state.counters["serializable"] = serializable;
}

void BM_Pipeline(benchmark::State& state) {
  auto ev = pipeline(static_cast<std::uint32_t>(state.range(0)),
                     static_cast<std::uint32_t>(state.range(1)));
  feed(state, ev);
}
BENCHMARK(BM_Pipeline)
    ->ArgNames({"threads", "txn_len"})
    ->ArgsProduct({{2, 8, 32, 128}, {16, 256}})
    ->Unit(benchmark::kMillisecond);

void BM_Random(benchmark::State& state) {
  RandomTraceParams p;
  p.threads = static_cast<std::uint32_t>(state.range(0));
  p.vars = 64;
  p.locks = 4;
  p.events = kEvents;
  p.max_txn_len = 200;
  p.unary_permille = 100;
  p.switch_permille = 900;
  p.fork_join = false;
  std::vector<Event> ev;
  RandomTraceGenerator gen(p, 7);
  Event e;
  while (gen.next(e)) ev.push_back(e);
  feed(state, ev);
}
BENCHMARK(BM_Random)->ArgName("threads")->Arg(2)->Arg(8)->Arg(32)->Arg(128)->Unit(
    benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
