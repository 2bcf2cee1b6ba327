// Throughput of every registered checker except the oracle (events per second), on
// generated traces of 10^5 to 10^7 events (10^8 with --max-events=100000000), to show
// that the streaming checkers are linear: events/s should stay flat as the trace grows.
//
// Workload ("locked"): T threads run transactions begin · acq(l) · K accesses to the
// variables guarded by l · rel(l) · end (strict two-phase locking, so every trace is
// serializable and no checker stops early), with unary accesses to thread-local
// variables in between; which thread moves next is random. V shared variables are
// split among L locks. Events are generated in chunks outside the timed region, so
// traces of 10^8 events never sit in memory; only the checker's on_event and verdict
// are timed, in thread CPU time (manual time), since the machine is shared.
//
// Options (before Google Benchmark's own): --max-events=N (default 10^7),
// --threads=T (8), --vars=V (1000), --locks=L (16), --txn=K (8), --budget=S: a checker
// that needed more than S seconds (default 30) at one size is skipped at larger sizes.
#include <benchmark/benchmark.h>

#include <time.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "checkers/registry.hpp"
#include "trace/random_trace.hpp"

namespace {

using namespace atomcheck;

struct Params {
  std::uint64_t max_events = 10000000;
  std::uint32_t threads = 8, vars = 1000, locks = 16, txn = 8;
  double budget = 30;
};
Params g_params;

// The "locked" workload as a stream.
class LockedWorkload {
 public:
  LockedWorkload(const Params& p, std::uint64_t seed)
      : p_(p), rng_(seed), state_(p.threads), lock_of_(p.threads, kNoId),
        left_(p.threads, 0), holder_(p.locks, kNoId) {}

  Event next() {
    for (;;) {
      ThreadId t = static_cast<ThreadId>(rng_.below(p_.threads));
      Event e;
      e.thread = t;
      switch (state_[t]) {
        case 0:  // between transactions: a unary local access, or begin
          if (rng_.chance(300)) {
            e.op = rng_.chance(500) ? Op::write : Op::read;
            e.target = p_.vars + t;  // thread-local variable
            return e;
          }
          e.op = Op::begin;
          state_[t] = 1;
          return e;
        case 1: {  // acquire a free lock, or let another thread move
          LockId l = static_cast<LockId>(rng_.below(p_.locks));
          if (holder_[l] != kNoId) continue;
          holder_[l] = t;
          lock_of_[t] = l;
          left_[t] = p_.txn;
          state_[t] = 2;
          e.op = Op::acquire;
          e.target = l;
          return e;
        }
        case 2:  // accesses to the variables guarded by the held lock
          if (left_[t] > 0) {
            --left_[t];
            std::uint32_t per_lock = (p_.vars + p_.locks - 1) / p_.locks;
            VarId x = static_cast<VarId>(lock_of_[t] + p_.locks * rng_.below(per_lock));
            if (x >= p_.vars) x = lock_of_[t];
            e.op = rng_.chance(300) ? Op::write : Op::read;
            e.target = x;
            return e;
          }
          e.op = Op::release;
          e.target = lock_of_[t];
          holder_[lock_of_[t]] = kNoId;
          state_[t] = 3;
          return e;
        default:
          e.op = Op::end;
          state_[t] = 0;
          return e;
      }
    }
  }

 private:
  Params p_;
  PortableRng rng_;
  std::vector<std::uint8_t> state_;
  std::vector<LockId> lock_of_;
  std::vector<std::uint32_t> left_;
  std::vector<ThreadId> holder_;
};

// Thread CPU time: the machine is shared, and wall time would count other processes.
double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Seconds the checker needed at the largest size so far (to skip hopeless sizes).
std::map<std::string, double>& slowest() {
  static std::map<std::string, double> m;
  return m;
}

void BM_Checker(benchmark::State& state, std::string name) {
  const std::uint64_t n = static_cast<std::uint64_t>(state.range(0));
  if (slowest()[name] > g_params.budget) {
    state.SkipWithError("skipped: over the time budget at a smaller size");
    return;
  }
  CheckerOptions opt;
  opt.all = true;
  auto checker = make_checker(name, opt);
  std::vector<Event> chunk(1 << 16);
  bool serializable = true;
  double worst = 0;
  for (auto _ : state) {
    checker->reset();
    LockedWorkload gen(g_params, 42);
    double seconds = 0;
    for (std::uint64_t done = 0; done < n;) {
      std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), n - done));
      for (std::size_t i = 0; i < m; ++i) chunk[i] = gen.next();
      double t0 = cpu_now();
      for (std::size_t i = 0; i < m; ++i) checker->on_event(chunk[i]);
      seconds += cpu_now() - t0;
      done += m;
    }
    double t0 = cpu_now();
    Verdict v = checker->verdict();
    seconds += cpu_now() - t0;
    serializable &= v.serializable;
    worst = std::max(worst, seconds);
    state.SetIterationTime(seconds);
  }
  slowest()[name] = worst;
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["serializable"] = serializable ? 1 : 0;
  state.SetLabel(name);
}

bool take(const char* arg, const char* key, std::string& value) {
  std::size_t k = std::strlen(key);
  if (std::strncmp(arg, key, k) != 0 || arg[k] != '=') return false;
  value = arg + k + 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (take(argv[i], "--max-events", v)) g_params.max_events = std::strtoull(v.c_str(), nullptr, 10);
    else if (take(argv[i], "--threads", v)) g_params.threads = static_cast<std::uint32_t>(std::stoul(v));
    else if (take(argv[i], "--vars", v)) g_params.vars = static_cast<std::uint32_t>(std::stoul(v));
    else if (take(argv[i], "--locks", v)) g_params.locks = static_cast<std::uint32_t>(std::stoul(v));
    else if (take(argv[i], "--txn", v)) g_params.txn = static_cast<std::uint32_t>(std::stoul(v));
    else if (take(argv[i], "--budget", v)) g_params.budget = std::stod(v);
    else rest.push_back(argv[i]);
  }
  if (g_params.threads == 0 || g_params.locks == 0 || g_params.vars < g_params.locks) {
    std::fprintf(stderr, "bench_checkers: need threads >= 1, locks >= 1, vars >= locks\n");
    return 2;
  }
  for (const CheckerInfo& info : checker_catalog()) {
    if (info.name == "oracle") continue;
    auto* b = benchmark::RegisterBenchmark(("checker/" + info.name).c_str(), BM_Checker, info.name);
    for (std::uint64_t n = 100000; n <= g_params.max_events; n *= 10) b->Arg(static_cast<std::int64_t>(n));
    b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
