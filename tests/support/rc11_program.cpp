// Random straight-line programs for the naive RC11/SC judge, and the same programs run by
// the explorer (rc11_program.hpp).
#include "tests/support/rc11_program.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "scheduler/runtime/api.hpp"

namespace atomcheck::testing_support {
namespace {

using rc11naive::Instr;
using rc11naive::Kind;
using rc11naive::Order;

int uniform(std::mt19937_64& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

Order pick(std::mt19937_64& rng, std::initializer_list<Order> orders) {
  return orders.begin()[uniform(rng, 0, static_cast<int>(orders.size()) - 1)];
}

std::memory_order memory_order_of(Order o) {
  switch (o) {
    case Order::rlx: return std::memory_order_relaxed;
    case Order::acq: return std::memory_order_acquire;
    case Order::rel: return std::memory_order_release;
    case Order::acq_rel: return std::memory_order_acq_rel;
    case Order::sc: return std::memory_order_seq_cst;
  }
  return std::memory_order_seq_cst;
}

// Built with += : GCC 12 reports a false -Wrestrict for "literal" + std::string at -O3.
std::string reg_name(std::size_t t, std::size_t r) {
  std::string s = "t";
  s += std::to_string(t);
  s += 'r';
  s += std::to_string(r);
  return s;
}
std::string var_name(std::size_t v) {
  std::string s = "m";
  s += std::to_string(v);
  return s;
}

void run_thread(const rc11naive::Thread& th, std::deque<atomic<std::int64_t>>& mem,
                std::vector<std::int64_t>& regs) {
  for (const Instr& in : th.code) {
    auto mo = memory_order_of(in.order);
    if (in.kind == Kind::fence) {
      atomic_thread_fence(mo);
      continue;
    }
    auto& x = mem[static_cast<std::size_t>(in.var)];
    std::int64_t v = in.operand.is_reg ? regs[static_cast<std::size_t>(in.operand.value)] : in.operand.value;
    std::int64_t old = 0;
    switch (in.kind) {
      case Kind::load: old = x.load(mo); break;
      case Kind::store: x.store(v, mo); break;
      case Kind::fetch_add: old = x.fetch_add(v, mo); break;
      case Kind::exchange: old = x.exchange(v, mo); break;
      case Kind::cas: {
        std::int64_t expected = in.expected;
        x.compare_exchange_strong(expected, v, mo, memory_order_of(in.failure));
        old = expected;
        break;
      }
      case Kind::fence: break;
    }
    if (in.reg >= 0) regs[static_cast<std::size_t>(in.reg)] = old;
  }
}


double rf_maps(const rc11naive::Program& p) {
  std::vector<double> writes(p.init.size(), 1), reads(p.init.size(), 0);
  for (const auto& th : p.threads)
    for (const Instr& in : th.code) {
      if (in.kind == Kind::fence) continue;
      if (in.kind != Kind::store) reads[static_cast<std::size_t>(in.var)] += 1;
      if (in.kind != Kind::load) writes[static_cast<std::size_t>(in.var)] += 1;
    }
  double maps = 1;
  for (std::size_t v = 0; v < writes.size(); ++v) maps *= std::pow(writes[v], reads[v]);
  return maps;
}

rc11naive::Program draw(std::mt19937_64& rng, const Rc11Shape& shape);

}  // namespace

rc11naive::Program random_rc11_program(std::mt19937_64& rng, const Rc11Shape& shape, std::size_t* redrawn) {
  for (;;) {
    rc11naive::Program p = draw(rng, shape);
    if (rf_maps(p) <= shape.max_rf_maps) return p;
    if (redrawn) ++*redrawn;
  }
}

namespace {

rc11naive::Program draw(std::mt19937_64& rng, const Rc11Shape& shape) {
  rc11naive::Program p;
  p.init.assign(static_cast<std::size_t>(uniform(rng, 1, shape.max_vars)), 0);
  int vars = static_cast<int>(p.init.size());
  p.threads.resize(static_cast<std::size_t>(uniform(rng, shape.min_threads, shape.max_threads)));
  for (auto& th : p.threads) {
    int n = uniform(rng, 1, shape.max_instrs);
    for (int i = 0; i < n; ++i) {
      Instr in;
      in.kind = static_cast<Kind>(uniform(rng, 0, 5));
      in.var = uniform(rng, 0, vars - 1);
      // A stored value is a register read before a quarter of the time (a data dependency).
      if (th.regs > 0 && uniform(rng, 0, 3) == 0) {
        in.operand = {true, uniform(rng, 0, th.regs - 1)};
      } else {
        in.operand = {false, uniform(rng, 1, 2)};
      }
      switch (in.kind) {
        case Kind::load: in.order = pick(rng, {Order::rlx, Order::acq, Order::sc}); break;
        case Kind::store: in.order = pick(rng, {Order::rlx, Order::rel, Order::sc}); break;
        case Kind::fence: in.order = pick(rng, {Order::acq, Order::rel, Order::acq_rel, Order::sc}); break;
        default:
          in.order = pick(rng, {Order::rlx, Order::acq, Order::rel, Order::acq_rel, Order::sc});
          in.failure = pick(rng, {Order::rlx, Order::acq, Order::sc});
          in.expected = uniform(rng, 0, 2);
          break;
      }
      if (shape.all_sc) in.order = in.failure = Order::sc;
      if (in.kind != Kind::store && in.kind != Kind::fence) in.reg = th.regs++;
      th.code.push_back(in);
    }
  }
  return p;
}

}  // namespace

Program scheduler_program(const rc11naive::Program& p) {
  return [p]() {
    std::deque<atomic<std::int64_t>> mem;
    for (std::size_t v = 0; v < p.init.size(); ++v) mem.emplace_back(p.init[v], var_name(v));
    std::vector<std::vector<std::int64_t>> regs(p.threads.size());
    for (std::size_t t = 0; t < p.threads.size(); ++t)
      regs[t].assign(static_cast<std::size_t>(p.threads[t].regs), 0);
    std::vector<thread> threads;
    threads.reserve(p.threads.size());
    for (std::size_t t = 0; t < p.threads.size(); ++t)
      threads.emplace_back([&p, &mem, &regs, t] { run_thread(p.threads[t], mem, regs[t]); });
    for (thread& t : threads) t.join();
    for (std::size_t t = 0; t < p.threads.size(); ++t)
      for (std::size_t r = 0; r < regs[t].size(); ++r) outcome(reg_name(t, r), regs[t][r]);
    for (std::size_t v = 0; v < p.init.size(); ++v) outcome(var_name(v), mem[v].load(std::memory_order_seq_cst));
  };
}

rc11naive::Outcomes explored_outcomes(const rc11naive::Program& p, MemoryModelKind memory,
                                      std::uint64_t* executions) {
  // Where each name goes in the judge's outcome vector.
  std::map<std::string, std::size_t> slot;
  for (std::size_t t = 0; t < p.threads.size(); ++t)
    for (std::size_t r = 0; r < static_cast<std::size_t>(p.threads[t].regs); ++r) slot.emplace(reg_name(t, r), slot.size());
  for (std::size_t v = 0; v < p.init.size(); ++v) slot.emplace(var_name(v), slot.size());
  ExploreOptions o;
  o.memory = memory;
  ExploreResult r = explore(scheduler_program(p), o);
  EXPECT_TRUE(r.ok()) << rc11naive::describe(p);
  EXPECT_TRUE(r.exhausted()) << rc11naive::describe(p);
  if (executions) *executions += r.executions;
  rc11naive::Outcomes out;
  for (const auto& [named, count] : r.outcomes) {
    rc11naive::Outcome v(slot.size(), 0);
    for (const auto& [name, value] : named) {
      auto it = slot.find(name);
      if (it == slot.end()) {
        ADD_FAILURE() << "unexpected outcome name " << name;
        continue;
      }
      v[it->second] = value;
    }
    out.insert(v);
  }
  return out;
}

rc11naive::Outcomes sc_judge(const rc11naive::Program& p) { return rc11naive::outcomes_sc(p); }
rc11naive::Outcomes rc11_judge(const rc11naive::Program& p) { return rc11naive::outcomes_rc11(p); }

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
unsigned long long ull(std::uint64_t v) { return static_cast<unsigned long long>(v); }
}  // namespace

void check_sc_included_in_rc11(std::size_t programs, std::uint64_t seed, const Rc11Shape& shape) {
  std::mt19937_64 rng(seed);
  std::size_t redrawn = 0, weaker = 0;
  rc11naive::Stats rc11, sc;
  auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < programs; ++i) {
    rc11naive::Program p = random_rc11_program(rng, shape, &redrawn);
    rc11naive::Outcomes sc_set = rc11naive::outcomes_sc(p, &sc);
    rc11naive::Outcomes rc11_set = rc11naive::outcomes_rc11(p, {}, &rc11);
    // Every straight-line program has an interleaving, so an SC execution.
    ASSERT_FALSE(sc_set.empty()) << rc11naive::describe(p);
    for (const rc11naive::Outcome& o : sc_set)
      ASSERT_TRUE(rc11_set.count(o)) << rc11naive::describe(p) << "\nSC outcome not in RC11: " << rc11naive::describe(p, o);
    if (rc11_set.size() > sc_set.size()) ++weaker;
  }
  double secs = seconds_since(t0);
  // Not vacuous: relaxed modes reach more than SC in some programs (2.5% of them with
  // the default shape: most random programs have no weak shape such as SB or MP).
  EXPECT_GT(weaker, programs / 100);
  std::printf("checked %zu random programs (seed %llu, %zu redrawn over %.0f rf maps): SC ⊆ RC11, RC11 larger in %zu; "
              "RC11: %llu rf maps, %llu (rf, mo) candidates decided by %llu axiom checks, %llu consistent; "
              "SC: %llu candidates, %llu checks; %.1f s, %.0f checks/s, %.0f candidates/s\n",
              programs, ull(seed), redrawn, shape.max_rf_maps, weaker, ull(rc11.rf_choices), ull(rc11.candidates),
              ull(rc11.checks), ull(rc11.consistent), ull(sc.candidates), ull(sc.checks), secs,
              static_cast<double>(rc11.checks + sc.checks) / secs,
              static_cast<double>(rc11.candidates + sc.candidates) / secs);
}

void check_all_sc_programs_are_sc(std::size_t programs, std::uint64_t seed, Rc11Shape shape) {
  shape.all_sc = true;
  std::mt19937_64 rng(seed);
  std::size_t redrawn = 0, mutant_differs = 0;
  rc11naive::Axioms mutant;
  mutant.sc = false;
  auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < programs; ++i) {
    rc11naive::Program p = random_rc11_program(rng, shape, &redrawn);
    rc11naive::Outcomes sc = rc11naive::outcomes_sc(p);
    ASSERT_EQ(rc11naive::outcomes_rc11(p), sc) << rc11naive::describe(p);
    if (rc11naive::outcomes_rc11(p, mutant) != sc) ++mutant_differs;
  }
  EXPECT_GT(mutant_differs, 0u);
  std::printf("checked %zu random programs, all seq_cst (seed %llu, %zu redrawn): RC11 = SC; without psc "
              "acyclicity %zu differ; %.1f s\n",
              programs, ull(seed), redrawn, mutant_differs, seconds_since(t0));
}

void check_judge_against_explorer(std::size_t programs, std::uint64_t seed, Rc11Judge judge, MemoryModelKind memory,
                                  const Rc11Shape& shape) {
  std::mt19937_64 rng(seed);
  std::size_t redrawn = 0;
  std::uint64_t executions = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < programs; ++i) {
    rc11naive::Program p = random_rc11_program(rng, shape, &redrawn);
    rc11naive::Outcomes judged = judge(p);
    rc11naive::Outcomes explored = explored_outcomes(p, memory, &executions);
    if (judged != explored) {
      std::string only_judged, only_explored;
      for (const auto& o : judged)
        if (!explored.count(o)) only_judged += "\n  " + rc11naive::describe(p, o);
      for (const auto& o : explored)
        if (!judged.count(o)) only_explored += "\n  " + rc11naive::describe(p, o);
      FAIL() << rc11naive::describe(p) << "\nonly the judge:" << only_judged << "\nonly the explorer:" << only_explored;
    }
  }
  std::printf("checked %zu random programs (seed %llu, %zu redrawn): the judge and the explorer (%llu executions) "
              "reach the same outcomes; %.1f s\n",
              programs, ull(seed), redrawn, ull(executions), seconds_since(t0));
}

}  // namespace atomcheck::testing_support
