// Source-DPOR against plain DFS: on seeded random small programs (loads, stores, rmw,
// locks) both must reach the same outcomes, failures and Mazurkiewicz classes, DPOR must
// run no more executions, and apart from sleep-set-blocked executions it must never run
// two equivalent ones. Classes are computed by a brute-force canonicaliser over the trace
// (per variable: the writes in order and, for each read, how many writes preceded it; per
// lock: the acquisition order), independently of the strategy's own dependency relation.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"

namespace atomcheck {

namespace {

// Canonical form of a trace's Mazurkiewicz class. Events are named by (thread, index of
// the event within its thread).
std::string canonical(const Trace& trace) {
  std::map<ThreadId, std::uint32_t> counter;
  std::map<std::uint32_t, std::string> var_writes, var_reads, locks;
  std::map<std::uint32_t, std::uint32_t> writes_so_far;
  for (const Event& e : trace.events) {
    std::uint32_t idx = counter[e.thread]++;
    std::string me = fmt::format("{}.{}", e.thread, idx);
    switch (e.op) {
      case Op::read:
        var_reads[e.target] += fmt::format("{}@{} ", me, writes_so_far[e.target]);
        break;
      case Op::write:
      case Op::rmw:
        if (e.op == Op::rmw) var_reads[e.target] += fmt::format("{}@{} ", me, writes_so_far[e.target]);
        var_writes[e.target] += me + " ";
        ++writes_so_far[e.target];
        break;
      case Op::acquire: locks[e.target] += me + " "; break;
      default: break;
    }
  }
  std::string out;
  for (auto& [v, s] : var_writes) out += fmt::format("w{}:{}|", v, s);
  // Reads of one variable commute with each other: sort them.
  for (auto& [v, s] : var_reads) {
    std::vector<std::string> parts;
    std::size_t b = 0;
    for (std::size_t p; (p = s.find(' ', b)) != std::string::npos; b = p + 1)
      parts.push_back(s.substr(b, p - b));
    std::sort(parts.begin(), parts.end());
    out += fmt::format("r{}:", v);
    for (auto& x : parts) out += x + ",";
    out += "|";
  }
  for (auto& [l, s] : locks) out += fmt::format("l{}:{}|", l, s);
  return out;
}

struct Summary {
  ExploreResult result;
  std::set<std::string> classes;
  std::set<std::string> failures;  // kind + message
  std::set<Outcome> outcomes;
};

Summary run(const Program& p, StrategyKind s, MemoryModelKind m = MemoryModelKind::sc) {
  Summary out;
  ExploreOptions o;
  o.strategy = s;
  o.memory = m;
  o.keep_failures = 1000000;
  out.result = explore(p, o, [&](const ExecutionView& v) { out.classes.insert(canonical(*v.trace)); });
  for (const Failure& f : out.result.failures)
    out.failures.insert(std::string(failure_kind_name(f.kind)) + ": " + f.message);
  for (auto& [oc, n] : out.result.outcomes) out.outcomes.insert(oc);
  EXPECT_TRUE(out.result.error.empty()) << out.result.error;
  return out;
}

// One random program: per thread a list of (kind, object, value).
struct Op3 {
  int kind;  // 0 load, 1 store, 2 fetch_add, 3 lock, 4 unlock (last held)
  int obj;
  int value;
};
struct RandomProgram {
  std::vector<std::vector<Op3>> threads;
  int forbidden_sum = -1;
};

RandomProgram make_random(std::mt19937_64& rng) {
  RandomProgram rp;
  int nthreads = 2 + static_cast<int>(rng() % 2);
  for (int t = 0; t < nthreads; ++t) {
    int nops = 2 + static_cast<int>(rng() % 3);
    std::vector<Op3> ops;
    for (int i = 0; i < nops; ++i)
      ops.push_back(Op3{static_cast<int>(rng() % 5), static_cast<int>(rng() % 2),
                        1 + static_cast<int>(rng() % 2)});
    rp.threads.push_back(ops);
  }
  rp.forbidden_sum = static_cast<int>(rng() % 5);
  return rp;
}

Program program_of(const RandomProgram& rp) {
  return [rp] {
    atomic<int> v0(0, "v0"), v1(0, "v1");
    mutex m0("m0"), m1("m1");
    atomic<int>* vars[2] = {&v0, &v1};
    mutex* locks[2] = {&m0, &m1};
    std::vector<thread> ths;
    for (std::size_t t = 0; t < rp.threads.size(); ++t) {
      ths.emplace_back([&, t] {
        std::vector<int> held;
        int k = 0;
        for (const Op3& op : rp.threads[t]) {
          switch (op.kind) {
            case 0: outcome(fmt::format("t{}_{}", t, k), vars[op.obj]->load()); break;
            case 1: vars[op.obj]->store(op.value); break;
            case 2: outcome(fmt::format("t{}_{}", t, k), vars[op.obj]->fetch_add(op.value)); break;
            case 3:
              if (std::find(held.begin(), held.end(), op.obj) == held.end()) {
                locks[op.obj]->lock();
                held.push_back(op.obj);
              }
              break;
            default:
              if (!held.empty()) {
                locks[held.back()]->unlock();
                held.pop_back();
              }
              break;
          }
          ++k;
        }
        while (!held.empty()) {
          locks[held.back()]->unlock();
          held.pop_back();
        }
      });
    }
    for (auto& th : ths) th.join();
    int sum = v0.load() + v1.load();
    outcome("sum", sum);
    check(sum != rp.forbidden_sum, "forbidden sum");
  };
}

void expect_same(const Summary& dfs, const Summary& dpor, const std::string& what) {
  EXPECT_EQ(dfs.outcomes, dpor.outcomes) << what;
  EXPECT_EQ(dfs.failures, dpor.failures) << what;
  EXPECT_EQ(dfs.result.deadlocks > 0, dpor.result.deadlocks > 0) << what;
  EXPECT_EQ(dfs.result.failed > 0, dpor.result.failed > 0) << what;
  EXPECT_LE(dpor.result.executions, dfs.result.executions) << what;
}

TEST(Dpor, RandomProgramsMatchDfsClasses) {
  std::mt19937_64 rng(20261121);
  std::uint64_t total_dfs = 0, total_dpor = 0, total_blocked = 0;
  for (int i = 0; i < 200; ++i) {
    RandomProgram rp = make_random(rng);
    Program p = program_of(rp);
    Summary dfs = run(p, StrategyKind::dfs);
    Summary dpor = run(p, StrategyKind::dpor);
    std::string what = fmt::format("random program {}", i);
    expect_same(dfs, dpor, what);
    EXPECT_EQ(dfs.classes, dpor.classes) << what;
    // No two equivalent executions, except sleep-set-blocked ones.
    EXPECT_EQ(dpor.result.executions - dpor.result.sleep_blocked, dpor.classes.size()) << what;
    total_dfs += dfs.result.executions;
    total_dpor += dpor.result.executions;
    total_blocked += dpor.result.sleep_blocked;
    if (HasFailure()) break;
  }
  EXPECT_LT(total_dpor, total_dfs);
  std::printf("random programs: DFS %llu executions, DPOR %llu (%llu sleep-blocked)\n",
              static_cast<unsigned long long>(total_dfs), static_cast<unsigned long long>(total_dpor),
              static_cast<unsigned long long>(total_blocked));
}

TEST(Dpor, IndependentThreadsGiveOneExecution) {
  for (int k = 1; k <= 4; ++k) {
    Program p = [k] {
      std::vector<std::unique_ptr<atomic<int>>> vars;
      for (int t = 0; t < k; ++t) vars.push_back(std::make_unique<atomic<int>>(0));
      std::vector<thread> threads;
      for (int t = 0; t < k; ++t)
        threads.emplace_back([&vars, t] {
          for (int i = 0; i < 3; ++i) vars[static_cast<std::size_t>(t)]->store(i);
        });
      for (auto& th : threads) th.join();
    };
    // DFS (k=4: 369,600 executions) only where it is cheap: the one class it finds.
    if (k <= 3) {
      EXPECT_EQ(run(p, StrategyKind::dfs).classes.size(), 1u) << k;
    }
    Summary dpor = run(p, StrategyKind::dpor);
    EXPECT_EQ(dpor.classes.size(), 1u) << k;
    EXPECT_EQ(dpor.result.executions, 1u) << k;
  }
}

TEST(Dpor, ClassicsUnderScOneExecutionPerClass) {
  for (const char* name : {"sb", "mp", "lb", "iriw", "2+2w", "lost-update", "locked-counter",
                           "lock-inversion", "sb+fences"}) {
    const ProgramInfo* info = find_program(name);
    ASSERT_NE(info, nullptr) << name;
    Program p = info->body;
    Summary dfs = run(p, StrategyKind::dfs);
    Summary dpor = run(p, StrategyKind::dpor);
    expect_same(dfs, dpor, name);
    EXPECT_EQ(dfs.classes, dpor.classes) << name;
    EXPECT_EQ(dpor.result.executions - dpor.result.sleep_blocked, dfs.classes.size()) << name;
    std::printf("%-16s DFS %6llu  DPOR %4llu (%llu blocked)  classes %zu\n", name,
                static_cast<unsigned long long>(dfs.result.executions),
                static_cast<unsigned long long>(dpor.result.executions),
                static_cast<unsigned long long>(dpor.result.sleep_blocked), dfs.classes.size());
  }
}

// The figures of the report: DFS vs DPOR executions on a few programs, and the classes.
TEST(Dpor, ExecutionCountsTable) {
  Program indep = [] {
    atomic<int> a(0), b(0), c(0);
    thread t1([&] { for (int i = 0; i < 3; ++i) a.store(i); });
    thread t2([&] { for (int i = 0; i < 3; ++i) b.store(i); });
    thread t3([&] { for (int i = 0; i < 3; ++i) c.store(i); });
    t1.join();
    t2.join();
    t3.join();
  };
  Program counter3 = [] {
    mutex m;
    atomic<int> x(0);
    auto inc = [&] {
      m.lock();
      x.store(x.load() + 1);
      m.unlock();
    };
    thread t1(inc), t2(inc), t3(inc);
    t1.join();
    t2.join();
    t3.join();
    check(x.load() == 3, "lost update");
  };
  struct Row {
    const char* name;
    Program p;
  };
  std::vector<Row> rows{{"3 threads x 3 independent stores", indep},
                        {"lost-update", find_program("lost-update")->body},
                        {"sb", find_program("sb")->body},
                        {"3-thread locked counter", counter3}};
  std::printf("| program | DFS | DPOR (sleep-blocked) | classes |\n|---|---|---|---|\n");
  for (const Row& r : rows) {
    Summary dfs = run(r.p, StrategyKind::dfs);
    Summary dpor = run(r.p, StrategyKind::dpor);
    expect_same(dfs, dpor, r.name);
    EXPECT_EQ(dfs.classes, dpor.classes) << r.name;
    EXPECT_EQ(dpor.result.executions - dpor.result.sleep_blocked, dfs.classes.size()) << r.name;
    std::printf("| %s | %llu | %llu (%llu) | %zu |\n", r.name,
                static_cast<unsigned long long>(dfs.result.executions),
                static_cast<unsigned long long>(dpor.result.executions),
                static_cast<unsigned long long>(dpor.result.sleep_blocked), dfs.classes.size());
  }
}

// The spinning models (yield()) are compared on outcomes and failures only: yield() is
// not a transition the strategy sees, so DPOR may cover fewer spin-iteration classes.
bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

TEST(Dpor, LitmusUnderTsoMatchesDfs) {
  // `truncated`: the program fails, and a failure ends an execution wherever it happens:
  // DFS also runs the failing prefixes that stop at other points of independent threads,
  // whose classes DPOR need not visit (outcomes and failures still agree).
  struct Case {
    const char* name;
    bool truncated;
  };
  for (Case c : {Case{"sb", false}, Case{"mp", false}, Case{"iriw", false}, Case{"2+2w", false},
                 Case{"sb+fences", false}, Case{"lost-update", false},
                 Case{"locked-counter", false}, Case{"tso-peterson", true},
                 Case{"tso-peterson-fenced", false}, Case{"tso-dekker-fenced", false}}) {
    // The fenced locks' DFS runs 391,212 and 10^6 (its budget) executions: Release only.
    const std::string name = c.name;
    if ((name == "tso-peterson-fenced" || name == "tso-dekker-fenced") && sanitized()) continue;
    const ProgramInfo* info = find_program(c.name);
    ASSERT_NE(info, nullptr) << c.name;
    Program p = info->body;
    Summary dfs = run(p, StrategyKind::dfs, MemoryModelKind::tso);
    Summary dpor = run(p, StrategyKind::dpor, MemoryModelKind::tso);
    expect_same(dfs, dpor, std::string(c.name) + " (tso)");
    if (!c.truncated) {
      EXPECT_EQ(dfs.classes, dpor.classes) << c.name;
    }
    std::printf("tso %-20s DFS %6llu  DPOR %4llu (%llu blocked)  classes %zu\n", c.name,
                static_cast<unsigned long long>(dfs.result.executions),
                static_cast<unsigned long long>(dpor.result.executions),
                static_cast<unsigned long long>(dpor.result.sleep_blocked), dfs.classes.size());
  }
}

}  // namespace
}  // namespace atomcheck
