// The `linearizability` checker's verdict is a class's (docs/linearizability.md, 'What
// "precedes" means'): on random small programs with declared operations, optimal DPOR (one
// execution per class) finds a flagged execution exactly when DFS (every interleaving)
// does, under sc, tso and rc11.
//
// A program: 2 or 3 threads of 1 to 3 operations each, on one or two objects: a counter
// (spec "counter": increment by fetch_add, get by a load) and a register (spec "register":
// write by a store, read by a load), with memory orders drawn per object. In about half
// the programs the first object is broken: a counter whose increment is a load and a store
// (two increments can both return the same value), or a register whose threads each write
// and read a cell of their own (a read misses another thread's write, wrong only when that
// write precedes it). Between operations, "client" loads and stores of one or two other
// atomics with drawn orders, and often a flag handshake (one thread stores the flag after
// an operation, another loads it before one, without waiting; release/acquire, seq_cst or
// relaxed): what orders one thread's operation before another's beyond the object. The
// main thread may read a counter after the joins. Only the checker's flagged-ness is
// compared: the programs assert nothing and have no data race (everything is atomic).
//
// ATOMCHECK_LIN_PROGRAMS sets the programs per memory model (default 300, 50 under the
// sanitizers); 10^4 for a long run (about 4 minutes in Release, 2-core VM).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"
#include "scheduler/explore/lin_test.hpp"

namespace {

using atomcheck::ExploreOptions;
using atomcheck::ExploreResult;
using atomcheck::MemoryModelKind;
using atomcheck::StrategyKind;

constexpr auto rlx = std::memory_order_relaxed;
constexpr auto acq = std::memory_order_acquire;
constexpr auto rel = std::memory_order_release;
constexpr auto acq_rel = std::memory_order_acq_rel;
constexpr auto sc = std::memory_order_seq_cst;

// split_reg: a register whose threads each write and read a cell of their own, planted: a
// read misses every other thread's write, which is wrong only when that write precedes it
// (a handshake or client accesses order them), so its verdict rests on precedence alone.
enum class ObjectKind { counter, racy_counter, reg, split_reg };

bool is_register(ObjectKind k) { return k == ObjectKind::reg || k == ObjectKind::split_reg; }

// The orders of an object's accesses: loads, stores, read-modify-writes.
struct Orders {
  std::memory_order load = sc, store = sc, rmw = sc;
};

struct Object {
  ObjectKind kind = ObjectKind::counter;
  Orders orders;
  std::string name;  // "a:counter", "b:register"
};

struct Action {
  enum Kind { op, client_load, client_store, flag_set, flag_check } kind = op;
  int object = 0;  // op
  int method = 0;  // op: 0 increment / write, 1 get / read
  int value = 0;   // op write's argument, client store's value
  int var = 0;     // client access
  std::memory_order order = sc;  // client access, flag
};

struct RandomProgram {
  std::vector<Object> objects;
  int client_vars = 0;
  std::vector<std::vector<Action>> threads;
  std::vector<int> final_gets;  // counters the main thread reads after the joins
};

const char* order_name(std::memory_order o) {
  switch (o) {
    case rlx: return "rlx";
    case acq: return "acq";
    case rel: return "rel";
    case acq_rel: return "acq_rel";
    case sc: return "sc";
    default: return "consume";
  }
}

std::string describe(const RandomProgram& p) {
  std::string out;
  for (const Object& o : p.objects) {
    out += o.name;
    out += o.kind == ObjectKind::racy_counter ? " (load+store increment)"
           : o.kind == ObjectKind::split_reg  ? " (a cell per thread)"
                                              : "";
    out += std::string(" [load ") + order_name(o.orders.load) + ", store " + order_name(o.orders.store) + ", rmw " +
           order_name(o.orders.rmw) + "]; ";
  }
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    out += "\n  T" + std::to_string(t + 1) + ":";
    for (const Action& a : p.threads[t]) {
      switch (a.kind) {
        case Action::op: {
          const Object& o = p.objects[static_cast<std::size_t>(a.object)];
          const bool counter = !is_register(o.kind);
          out += " " + o.name.substr(0, o.name.find(':')) + "." +
                 (counter ? (a.method == 0 ? "increment()" : "get()")
                          : (a.method == 0 ? "write(" + std::to_string(a.value) + ")" : "read()"));
          break;
        }
        case Action::client_load:
          out += std::string(" x") + std::to_string(a.var) + ".load(" + order_name(a.order) + ")";
          break;
        case Action::client_store:
          out += std::string(" x") + std::to_string(a.var) + ".store(" + std::to_string(a.value) + ", " +
                 order_name(a.order) + ")";
          break;
        case Action::flag_set: out += std::string(" flag.store(1, ") + order_name(a.order) + ")"; break;
        case Action::flag_check: out += std::string(" flag.load(") + order_name(a.order) + ")"; break;
      }
    }
  }
  for (int c : p.final_gets)
    out += "\n  after the joins: " + p.objects[static_cast<std::size_t>(c)].name.substr(0, 1) + ".get()";
  return out;
}

// Scheduling steps of the threads' actions, a store counting twice (under TSO its flush is
// a step of its own, under RC11 its place in coherence order a choice): what bounds DFS's
// executions.
int cost(const RandomProgram& p) {
  int n = 0;
  for (const auto& t : p.threads)
    for (const Action& a : t) {
      if (a.kind == Action::op) {
        const Object& o = p.objects[static_cast<std::size_t>(a.object)];
        if (a.method == 1) n += 1;                          // get, read
        else if (is_register(o.kind)) n += 2;               // write
        else if (o.kind == ObjectKind::counter) n += 2;     // fetch_add
        else n += 3;                                        // load, store
      } else {
        n += a.kind == Action::flag_set || a.kind == Action::client_store ? 2 : 1;
      }
    }
  return n;
}

// At most this cost over all threads, per memory model, so that DFS stays within about
// 10^5 executions per program: TSO's DFS flushes each buffer at every point, RC11's places
// each write in coherence order, SC's only interleaves.
int max_cost(MemoryModelKind m) { return m == MemoryModelKind::sc ? 14 : m == MemoryModelKind::rc11 ? 13 : 10; }

Orders draw_orders(std::mt19937_64& rng) {
  switch (rng() % 3) {
    case 0: return {sc, sc, sc};
    case 1: return {acq, rel, acq_rel};
    default: return {rlx, rlx, rlx};
  }
}

std::memory_order draw_client_order(std::mt19937_64& rng, bool load) {
  switch (rng() % 3) {
    case 0: return rlx;
    case 1: return load ? acq : rel;
    default: return sc;
  }
}

RandomProgram draw(std::uint64_t seed, int max) {
  std::mt19937_64 rng(seed);
  for (;;) {
    RandomProgram p;
    const bool planted = rng() % 3 != 0;  // more often than not: planted programs are rejected more (cost, shape)
    const int n_objects = 1 + static_cast<int>(rng() % 2);
    for (int k = 0; k < n_objects; ++k) {
      Object o;
      // The first object is the broken one when a bug is planted; else counters and
      // registers alike.
      if (k == 0 && planted)
        o.kind = rng() % 2 == 0 ? ObjectKind::racy_counter : ObjectKind::split_reg;
      else
        o.kind = rng() % 2 == 0 ? ObjectKind::counter : ObjectKind::reg;
      o.orders = draw_orders(rng);
      o.name = k == 0 ? (is_register(o.kind) ? "a:register" : "a:counter")
                      : (is_register(o.kind) ? "b:register" : "b:counter");
      p.objects.push_back(o);
    }
    p.client_vars = 1 + static_cast<int>(rng() % 2);
    const int n_threads = 2 + static_cast<int>(rng() % 2);
    p.threads.resize(static_cast<std::size_t>(n_threads));
    for (auto& t : p.threads) {
      const int ops = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < ops; ++i) {
        if (i > 0 && rng() % 3 == 0) {  // a client access between two operations
          Action c;
          c.kind = rng() % 2 == 0 ? Action::client_load : Action::client_store;
          c.var = static_cast<int>(rng() % static_cast<std::uint64_t>(p.client_vars));
          c.value = 1 + static_cast<int>(rng() % 2);
          c.order = draw_client_order(rng, c.kind == Action::client_load);
          t.push_back(c);
        }
        Action a;
        // The broken object, when there is one, gets three operations in four.
        a.object = planted ? (rng() % 4 == 0 ? n_objects - 1 : 0)
                           : static_cast<int>(rng() % static_cast<std::uint64_t>(n_objects));
        // Increments and writes twice as often as gets and reads.
        a.method = rng() % 3 == 0 ? 1 : 0;
        a.value = 1 + static_cast<int>(rng() % 3);
        t.push_back(a);
      }
      // A client access after the thread's last operation, sometimes.
      if (rng() % 4 == 0) {
        Action c;
        c.kind = Action::client_store;
        c.var = static_cast<int>(rng() % static_cast<std::uint64_t>(p.client_vars));
        c.value = 1 + static_cast<int>(rng() % 2);
        c.order = draw_client_order(rng, false);
        t.push_back(c);
      }
    }
    // A planted bug needs two threads to show: increments of the racy counter in two, or
    // a write of the split register in one and a read in another.
    if (planted) {
      std::vector<int> increments, writes, reads;
      for (std::size_t t = 0; t < p.threads.size(); ++t) {
        int inc = 0, w = 0, r = 0;
        for (const Action& a : p.threads[t])
          if (a.kind == Action::op && a.object == 0) {
            inc += a.method == 0 ? 1 : 0;
            w += a.method == 0 ? 1 : 0;
            r += a.method == 1 ? 1 : 0;
          }
        increments.push_back(inc), writes.push_back(w), reads.push_back(r);
      }
      bool shows = false;
      for (std::size_t t = 0; t < p.threads.size(); ++t)
        for (std::size_t u = 0; u < p.threads.size(); ++u)
          if (t != u)
            shows |= p.objects[0].kind == ObjectKind::racy_counter ? increments[t] > 0 && increments[u] > 0
                                                                   : writes[t] > 0 && reads[u] > 0;
      if (!shows) continue;
    }
    // The handshake: after an operation of one thread, flag.store(1); before an operation
    // of another, flag.load(), with release and acquire, seq_cst, or relaxed (which orders
    // nothing under rc11). Three programs in four with a split register get one, mostly
    // from after a write to before a read of another thread: what makes its bug show.
    const bool split = p.objects[0].kind == ObjectKind::split_reg;
    if (rng() % 2 == 0 || (split && rng() % 2 == 0)) {
      std::size_t from = rng() % p.threads.size();
      std::size_t to = (from + 1 + rng() % (p.threads.size() - 1)) % p.threads.size();
      auto is = [](const Action& a, int method) {
        return a.kind == Action::op && a.object == 0 && a.method == method;
      };
      auto where = [](const std::vector<Action>& t, auto&& pick, std::size_t shift) {
        std::vector<std::size_t> at;
        for (std::size_t i = 0; i < t.size(); ++i)
          if (pick(t[i])) at.push_back(i + shift);
        return at;
      };
      auto any_op = [](const Action& a) { return a.kind == Action::op; };
      auto write = [&](const Action& a) { return is(a, 0); };
      auto read = [&](const Action& a) { return is(a, 1); };
      const bool targeted = split && rng() % 4 != 0;
      if (targeted) {
        std::vector<std::pair<std::size_t, std::size_t>> pairs;
        for (std::size_t t = 0; t < p.threads.size(); ++t)
          for (std::size_t u = 0; u < p.threads.size(); ++u)
            if (t != u && !where(p.threads[t], write, 1).empty() && !where(p.threads[u], read, 0).empty())
              pairs.emplace_back(t, u);
        std::tie(from, to) = pairs[rng() % pairs.size()];
      }
      auto& a = p.threads[from];
      auto& b = p.threads[to];
      const std::vector<std::size_t> after = targeted ? where(a, write, 1) : where(a, any_op, 1);
      const std::vector<std::size_t> before = targeted ? where(b, read, 0) : where(b, any_op, 0);
      Action set{.kind = Action::flag_set}, check{.kind = Action::flag_check};
      switch (rng() % 3) {
        case 0: set.order = rel, check.order = acq; break;
        case 1: set.order = sc, check.order = sc; break;
        default: set.order = rlx, check.order = rlx; break;
      }
      a.insert(a.begin() + static_cast<std::ptrdiff_t>(after[rng() % after.size()]), set);
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(before[rng() % before.size()]), check);
    }
    for (int k = 0; k < n_objects; ++k)
      if (!is_register(p.objects[static_cast<std::size_t>(k)].kind) && rng() % 2 == 0) p.final_gets.push_back(k);
    if (cost(p) > max) continue;
    return p;
  }
}

atomcheck::Program program_of(const RandomProgram& p) {
  return [&p] {
    // An object's cells: one, or one per thread (the main thread's first) for split_reg.
    std::vector<std::vector<std::unique_ptr<atomcheck::atomic<int>>>> objects;
    std::vector<std::unique_ptr<atomcheck::atomic<int>>> vars;
    for (const Object& o : p.objects) {
      objects.emplace_back();
      const std::size_t cells = o.kind == ObjectKind::split_reg ? p.threads.size() + 1 : 1;
      for (std::size_t c = 0; c < cells; ++c) {
        std::string name = o.name.substr(0, 1);
        if (cells > 1) name += std::to_string(c);
        objects.back().push_back(std::make_unique<atomcheck::atomic<int>>(0, name));
      }
    }
    for (int v = 0; v < p.client_vars; ++v)
      vars.push_back(std::make_unique<atomcheck::atomic<int>>(0, v == 0 ? "x0" : "x1"));
    atomcheck::atomic<int> flag(0, "flag");
    auto operation = [&](std::size_t object, std::size_t thread, int method, int arg) {
      const Object& o = p.objects[object];
      atomcheck::atomic<int>& value = *objects[object][o.kind == ObjectKind::split_reg ? thread : 0];
      if (is_register(o.kind)) {
        if (method == 0) {
          atomcheck::lin::operation op(o.name, "write", arg);
          value.store(arg, o.orders.store);
        } else {
          atomcheck::lin::operation op(o.name, "read");
          op.returns(value.load(o.orders.load));
        }
        return;
      }
      if (method == 1) {
        atomcheck::lin::operation op(o.name, "get");
        op.returns(value.load(o.orders.load));
        return;
      }
      atomcheck::lin::operation op(o.name, "increment");
      if (o.kind == ObjectKind::counter) {
        op.returns(value.fetch_add(1, o.orders.rmw));
      } else {
        const int v = value.load(o.orders.load);
        value.store(v + 1, o.orders.store);
        op.returns(v);
      }
    };
    auto run = [&](const std::vector<Action>& actions, std::size_t thread) {
      for (const Action& a : actions) {
        switch (a.kind) {
          case Action::op: {
            const auto k = static_cast<std::size_t>(a.object);
            operation(k, thread, a.method, a.value);
            break;
          }
          case Action::client_load: (void)vars[static_cast<std::size_t>(a.var)]->load(a.order); break;
          case Action::client_store: vars[static_cast<std::size_t>(a.var)]->store(a.value, a.order); break;
          case Action::flag_set: flag.store(1, a.order); break;
          case Action::flag_check: (void)flag.load(a.order); break;
        }
      }
    };
    std::vector<atomcheck::thread> threads;
    for (std::size_t i = 0; i < p.threads.size(); ++i)
      threads.emplace_back([&run, &p, i] { run(p.threads[i], i + 1); });
    for (atomcheck::thread& t : threads) t.join();
    for (int k : p.final_gets) {
      const auto i = static_cast<std::size_t>(k);
      operation(i, 0, 1, 0);
    }
  };
}

std::uint64_t program_count() {
  if (const char* env = std::getenv("ATOMCHECK_LIN_PROGRAMS")) return std::strtoull(env, nullptr, 10);
  return std::getenv("ATOMCHECK_SANITIZED") != nullptr ? 50 : 300;
}

struct Verdict {
  bool flagged = false;
  std::uint64_t executions = 0, flagged_executions = 0;
  std::string schedule, note;  // of the first flagged execution
};

// Throws what explore throws (options a memory model refuses).
Verdict judge(const atomcheck::Program& body, MemoryModelKind memory, StrategyKind strategy, std::string& problem) {
  ExploreOptions o{.strategy = strategy,
                   .memory = memory,
                   .max_executions = 1000000,
                   .checkers = {"linearizability"},
                   .stop_on_failure = false};
  const ExploreResult r = atomcheck::explore(body, o);
  Verdict v;
  v.executions = r.executions;
  if (!r.error.empty()) problem = r.error;
  else if (r.failures_total() != 0)
    problem = "a failing execution: " + (r.failures.empty() ? std::string() : r.failures.front().message);
  else if (!r.exhausted())
    problem = std::string("the search did not end: ") + std::string(atomcheck::stop_reason_name(r.stop)) + " " +
              r.reduction_incomplete_by;
  else if (r.checkers.size() != 1)
    problem = "no checker summary";
  else if (r.checkers[0].undecided != 0)
    problem = "undecided: " + r.checkers[0].first_undecided;
  if (!problem.empty()) return v;
  v.flagged_executions = r.checkers[0].flagged;
  v.flagged = v.flagged_executions > 0;
  v.schedule = r.checkers[0].first_schedule;
  v.note = r.checkers[0].first_verdict.note;
  return v;
}

TEST(LinProperties, OptimalAgreesWithDfs) {
  const std::uint64_t n = program_count();
  struct Tally {
    MemoryModelKind memory = MemoryModelKind::sc;
    const char* name = "";
    std::uint64_t programs = 0, flagged = 0, planted = 0, optimal_executions = 0, dfs_executions = 0, dfs_max = 0;
    std::string refused;  // the search refused the options (the first program's message)
  };
  std::vector<Tally> tallies(3);
  tallies[0].memory = MemoryModelKind::sc, tallies[0].name = "sc";
  tallies[1].memory = MemoryModelKind::tso, tallies[1].name = "tso";
  tallies[2].memory = MemoryModelKind::rc11, tallies[2].name = "rc11";
  for (Tally& tally : tallies) {
    std::uint64_t disagreements = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
      // The same seeds under every model; the smaller TSO budget rejects more draws.
      const RandomProgram p = draw(0x11a9'0000 + k, max_cost(tally.memory));
      const atomcheck::Program body = program_of(p);
      std::string problem;
      Verdict optimal, dfs;
      try {
        optimal = judge(body, tally.memory, StrategyKind::optimal, problem);
        if (problem.empty()) dfs = judge(body, tally.memory, StrategyKind::dfs, problem);
      } catch (const std::exception& e) {
        tally.refused = e.what();
        break;
      }
      ASSERT_TRUE(problem.empty()) << tally.name << ", program " << k << ": " << problem << "\n  " << describe(p);
      ++tally.programs;
      tally.planted += p.objects[0].kind == ObjectKind::racy_counter || p.objects[0].kind == ObjectKind::split_reg;
      tally.flagged += dfs.flagged ? 1 : 0;
      tally.optimal_executions += optimal.executions;
      tally.dfs_executions += dfs.executions;
      tally.dfs_max = std::max(tally.dfs_max, dfs.executions);
      if (optimal.flagged != dfs.flagged && ++disagreements <= 3) {
        const Verdict& yes = optimal.flagged ? optimal : dfs;
        ADD_FAILURE() << tally.name << ", program " << k << " (seed " << 0x11a9'0000 + k << "): optimal "
                      << (optimal.flagged ? "flags" : "does not flag") << " an execution ("
                      << optimal.flagged_executions << " of " << optimal.executions << "), dfs "
                      << (dfs.flagged ? "does" : "does not") << " (" << dfs.flagged_executions << " of "
                      << dfs.executions << ")\n  " << describe(p) << "\n  first flagged ("
                      << (optimal.flagged ? "optimal" : "dfs") << "): schedule '" << yes.schedule << "'\n"
                      << yes.note;
      }
    }
    EXPECT_EQ(disagreements, 0u) << tally.name << ": optimal and dfs disagree on " << disagreements << " of "
                                 << tally.programs << " programs";
    if (!tally.refused.empty()) {
      ADD_FAILURE() << tally.name << ": the search refused the checker: " << tally.refused;
      continue;
    }
    // Both verdicts occur, so that agreement means something.
    EXPECT_GT(tally.flagged, 0u) << tally.name << ": no program flagged";
    EXPECT_LT(tally.flagged, tally.programs) << tally.name << ": every program flagged";
  }
  std::string line = "linearizability: " + std::to_string(n) +
                     " random programs per memory model, optimal DPOR against dfs (the verdict 'some execution "
                     "flagged'):";
  for (const Tally& t : tallies)
    line += " " + std::string(t.name) + ": " + std::to_string(t.programs) + " compared, " +
            std::to_string(t.flagged) + " flagged (" + std::to_string(t.planted) + " with the planted bug), " +
            std::to_string(t.optimal_executions) + " against " + std::to_string(t.dfs_executions) +
            " executions (dfs at most " + std::to_string(t.dfs_max) + " per program)" +
            (t.refused.empty() ? ";" : ", refused;");
  std::printf("%s\n", line.c_str());
}

}  // namespace
