// The race detector against the naive happens-before judge (tests/support/hb_judge.hpp)
// on random programs: threads of non-atomic reads and writes, atomic loads, stores and
// exchanges and fences with random memory orders, and mutex blocks, started and joined by
// a main thread that also accesses the variables before, between and after. Every
// execution of each program is explored under SC or TSO; each logs its operations in the
// order they ran, and in every execution the detector's race must be the judge's first:
// the same second access (the earliest access that races with an earlier one) and a
// first access that races with it; no race exactly where the judge finds none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"
#include "tests/support/hb_judge.hpp"

namespace atomcheck {
namespace {

using testing_support::JudgeEvent;

struct ROp {
  enum Kind { plain_read, plain_write, load, store, exchange, fence, locked_read, locked_write } kind;
  int var = 0;  // plain kinds: 0..1; atomic kinds: 0..2
  std::memory_order mo = std::memory_order_relaxed;
  std::int64_t value = 0;  // distinct for every op of the program
};

struct RaceProgram {
  std::vector<ROp> pre, mid, post;        // the main thread's: before spawns, before joins, after
  std::vector<std::vector<ROp>> threads;  // the children's
};

std::memory_order pick(std::mt19937_64& rng, std::initializer_list<std::memory_order> from) {
  return *(from.begin() + std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng));
}

std::memory_order any_order(std::mt19937_64& rng, ROp::Kind kind);

ROp random_op(std::mt19937_64& rng, std::int64_t value) {
  ROp op;
  op.value = value;
  const int k = std::uniform_int_distribution<int>(0, 11)(rng);
  static constexpr ROp::Kind kKinds[] = {ROp::plain_read, ROp::plain_read, ROp::plain_write, ROp::plain_write,
                                         ROp::load,       ROp::load,       ROp::store,       ROp::store,
                                         ROp::exchange,   ROp::fence,      ROp::locked_read, ROp::locked_write};
  op.kind = kKinds[k];
  op.mo = op.kind == ROp::locked_read || op.kind == ROp::locked_write || op.kind == ROp::plain_read ||
                  op.kind == ROp::plain_write
              ? std::memory_order_relaxed
              : any_order(rng, op.kind);
  const bool plain = op.kind == ROp::plain_read || op.kind == ROp::plain_write || op.kind == ROp::locked_read ||
                     op.kind == ROp::locked_write;
  op.var = std::uniform_int_distribution<int>(0, plain ? 1 : 2)(rng);
  return op;
}

std::memory_order any_order(std::mt19937_64& rng, ROp::Kind kind) {
  using std::memory_order_acq_rel, std::memory_order_acquire, std::memory_order_relaxed,
      std::memory_order_release, std::memory_order_seq_cst;
  switch (kind) {
    case ROp::load: return pick(rng, {memory_order_relaxed, memory_order_acquire, memory_order_seq_cst});
    case ROp::store: return pick(rng, {memory_order_relaxed, memory_order_release, memory_order_seq_cst});
    case ROp::fence: return pick(rng, {memory_order_acquire, memory_order_release, memory_order_acq_rel, memory_order_seq_cst});
    default:
      return pick(rng, {memory_order_relaxed, memory_order_acquire, memory_order_release, memory_order_acq_rel,
                        memory_order_seq_cst});
  }
}

// Message passing with random orders, fences and rmws, so that every synchronisation rule
// (release sequences through rmws and same-thread stores, fences on either side) is met
// often: a writer (plain access, maybe a fence, one or two writes of a0), a reader (a read
// of a0, maybe a fence, a plain access), maybe a third thread's rmw of a0 or random ops.
RaceProgram message_passing(std::mt19937_64& rng, std::int64_t& value) {
  auto coin = [&] { return std::uniform_int_distribution<int>(0, 1)(rng) == 1; };
  auto op = [&](ROp::Kind kind, int var) {
    ROp o;
    o.kind = kind;
    o.var = var;
    o.mo = any_order(rng, kind);
    o.value = value++;
    return o;
  };
  RaceProgram p;
  p.threads.resize(2);
  auto& w = p.threads[0];
  auto& r = p.threads[1];
  w.push_back(op(coin() ? ROp::plain_write : ROp::plain_read, 0));
  if (coin()) w.push_back(op(ROp::fence, 0));
  w.push_back(op(coin() ? ROp::store : ROp::exchange, 0));
  if (coin()) w.push_back(op(coin() ? ROp::store : ROp::exchange, 0));
  r.push_back(op(coin() ? ROp::load : ROp::exchange, 0));
  if (coin()) r.push_back(op(ROp::fence, 0));
  r.push_back(op(coin() ? ROp::plain_write : ROp::plain_read, 0));
  if (coin()) {
    p.threads.emplace_back();
    p.threads.back().push_back(coin() ? op(ROp::exchange, 0) : random_op(rng, value++));
    if (coin()) p.threads.back().push_back(random_op(rng, value++));
  }
  return p;
}

RaceProgram make_program(std::mt19937_64& rng) {
  std::int64_t value = 100;
  if (std::uniform_int_distribution<int>(0, 1)(rng) == 1) return message_passing(rng, value);
  RaceProgram p;
  auto ops = [&](int lo, int hi) {
    std::vector<ROp> out(static_cast<std::size_t>(std::uniform_int_distribution<int>(lo, hi)(rng)));
    for (ROp& op : out) op = random_op(rng, value++);
    return out;
  };
  p.pre = ops(0, 1);
  p.threads.resize(static_cast<std::size_t>(std::uniform_int_distribution<int>(2, 3)(rng)));
  for (auto& t : p.threads) t = ops(1, 3);
  p.mid = ops(0, 1);
  p.post = ops(0, 1);
  return p;
}

std::string describe(const RaceProgram& p) {
  static const char* kNames[] = {"r", "w", "load", "store", "xchg", "fence", "lock-r", "lock-w"};
  auto list = [](const std::vector<ROp>& ops) {
    std::string s;
    for (const ROp& op : ops) s += std::string(kNames[op.kind]) + "(" + std::to_string(op.var) + "," + std::to_string(static_cast<int>(op.mo)) + ") ";
    return s;
  };
  std::string s = "pre: " + list(p.pre) + "| mid: " + list(p.mid) + "| post: " + list(p.post);
  for (std::size_t t = 0; t < p.threads.size(); ++t) s += "| T" + std::to_string(t + 1) + ": " + list(p.threads[t]);
  return s;
}

// The program's objects, made in each execution's body.
struct Objects {
  atomic<std::int64_t> a0{0, "a0"}, a1{0, "a1"}, a2{0, "a2"};
  shared<std::int64_t> p0{0, "p0"}, p1{0, "p1"};
  mutex m{"m"};
  atomic<std::int64_t>& atom(int i) { return i == 0 ? a0 : i == 1 ? a1 : a2; }
  shared<std::int64_t>& plain(int i) { return i == 0 ? p0 : p1; }
};

void run_op(const ROp& op, Objects& o, std::vector<JudgeEvent>& log) {
  const int t = static_cast<int>(this_thread::get_id());
  auto access = [&](JudgeEvent::Kind kind, int var, bool is_atomic, std::memory_order mo, std::int64_t v,
                    std::int64_t old = 0) {
    JudgeEvent e;
    e.kind = kind;
    e.thread = t;
    e.target = var;
    e.atomic = is_atomic;
    e.mo = mo;
    e.value = v;
    e.old = old;
    log.push_back(e);
  };
  auto plain_access = [&](bool write) {
    shared<std::int64_t>& x = o.plain(op.var);
    if (write) {
      x.set(op.value);
      access(JudgeEvent::write, static_cast<int>(x.id()), false, std::memory_order_relaxed, op.value);
    } else {
      const std::int64_t v = x.get();
      access(JudgeEvent::read, static_cast<int>(x.id()), false, std::memory_order_relaxed, v);
    }
  };
  switch (op.kind) {
    case ROp::plain_read: plain_access(false); break;
    case ROp::plain_write: plain_access(true); break;
    case ROp::load: {
      const std::int64_t v = o.atom(op.var).load(op.mo);
      access(JudgeEvent::read, static_cast<int>(o.atom(op.var).id()), true, op.mo, v);
      break;
    }
    case ROp::store:
      o.atom(op.var).store(op.value, op.mo);
      access(JudgeEvent::write, static_cast<int>(o.atom(op.var).id()), true, op.mo, op.value);
      break;
    case ROp::exchange: {
      const std::int64_t old = o.atom(op.var).exchange(op.value, op.mo);
      access(JudgeEvent::rmw, static_cast<int>(o.atom(op.var).id()), true, op.mo, op.value, old);
      break;
    }
    case ROp::fence:
      atomic_thread_fence(op.mo);
      access(JudgeEvent::fence, -1, false, op.mo, 0);
      break;
    case ROp::locked_read:
    case ROp::locked_write:
      o.m.lock();
      access(JudgeEvent::lock, 0, false, std::memory_order_seq_cst, 0);
      plain_access(op.kind == ROp::locked_write);
      o.m.unlock();
      access(JudgeEvent::unlock, 0, false, std::memory_order_seq_cst, 0);
      break;
  }
}

Program program_of(const RaceProgram& p, std::vector<JudgeEvent>& log) {
  return [p, &log] {
    log.clear();
    Objects o;
    for (std::uint32_t v : {o.a0.id(), o.a1.id(), o.a2.id(), o.p0.id(), o.p1.id()}) {
      JudgeEvent init;
      init.kind = JudgeEvent::write;
      init.target = static_cast<int>(v);
      init.atomic = v != o.p0.id() && v != o.p1.id();
      init.init = true;
      log.push_back(init);
    }
    for (const ROp& op : p.pre) run_op(op, o, log);
    std::vector<thread> children;
    for (std::size_t i = 0; i < p.threads.size(); ++i) {
      // Logged before the start: the child runs at once up to its first visible operation.
      JudgeEvent spawn;
      spawn.kind = JudgeEvent::spawn;
      spawn.target = static_cast<int>(i + 1);
      log.push_back(spawn);
      children.emplace_back([&o, &log, &ops = p.threads[i]] {
        for (const ROp& op : ops) run_op(op, o, log);
      });
      check(children.back().get_id() == i + 1, "children are T1, T2, ... in spawn order");
    }
    for (const ROp& op : p.mid) run_op(op, o, log);
    for (std::size_t i = 0; i < children.size(); ++i) {
      children[i].join();
      JudgeEvent join;
      join.kind = JudgeEvent::join;
      join.target = static_cast<int>(i + 1);
      log.push_back(join);
    }
    for (const ROp& op : p.post) run_op(op, o, log);
  };
}

bool is_access(const JudgeEvent& e) {
  return !e.init && (e.kind == JudgeEvent::read || e.kind == JudgeEvent::write || e.kind == JudgeEvent::rmw);
}

// The log index of trace event `i`: the k-th access of its thread in both.
std::size_t log_index(const Trace& trace, EventIndex i, const std::vector<JudgeEvent>& log) {
  if (i >= trace.events.size()) return log.size();
  const ThreadId t = trace.events[i].thread;
  std::size_t k = 0;
  for (EventIndex j = 0; j < i; ++j) {
    const Op op = trace.events[j].op;
    if (trace.events[j].thread == t && (op == Op::read || op == Op::write || op == Op::rmw)) ++k;
  }
  for (std::size_t j = 0; j < log.size(); ++j)
    if (is_access(log[j]) && log[j].thread == static_cast<int>(t) && k-- == 0) return j;
  return log.size();
}

// The Release run checks 10^4 programs; the sanitizer run looks for memory errors in the
// same paths, for which a tenth is plenty (each is about ten times as slow there).
int program_count() {
  const char* s = std::getenv("ATOMCHECK_SANITIZED");
  return s && std::string(s) == "1" ? 1000 : 10000;
}

TEST(RaceProperties, AgreesWithTheHappensBeforeJudge) {
  const int kPrograms = program_count();
  std::mt19937_64 rng(4301);
  std::uint64_t executions = 0, racy = 0, racy_programs = 0, ordered = 0;
  for (int n = 0; n < kPrograms; ++n) {
    const RaceProgram p = make_program(rng);
    const bool tso = n % 2 == 1;
    std::vector<JudgeEvent> log;
    ExploreOptions o;
    o.memory = tso ? MemoryModelKind::tso : MemoryModelKind::sc;
    o.strategy = n % 4 < 2 ? StrategyKind::dfs : StrategyKind::optimal;
    o.max_executions = 100;
    o.stop_on_failure = false;
    o.allow_incomplete = true;
    std::string problem;
    bool program_racy = false;
    ExploreResult r = explore(program_of(p, log), o, [&](const ExecutionView& v) {
      if (!problem.empty()) return;
      ++executions;
      // The log and the trace must be the same execution.
      std::vector<std::size_t> in_trace(8, 0), in_log(8, 0);
      for (const Event& e : v.trace->events)
        if (e.op == Op::read || e.op == Op::write || e.op == Op::rmw) ++in_trace.at(e.thread);
      for (const JudgeEvent& e : log)
        if (is_access(e)) ++in_log.at(static_cast<std::size_t>(e.thread));
      if (in_trace != in_log) {
        problem = "the log is not the execution";
        return;
      }
      const auto pairs = testing_support::racing_pairs(log);
      const bool detected = v.failure && v.failure->kind == FailureKind::data_race;
      if (v.failure && !detected) {
        problem = "unexpected failure: " + v.failure->message;
        return;
      }
      if (pairs.empty()) {
        if (detected) problem = "detector: " + v.failure->message + "; judge: no race";
        // Conflicting accesses of two children: only atomics or the mutex order them.
        for (std::size_t a = 0; a < log.size(); ++a)
          for (std::size_t b = a + 1; b < log.size(); ++b)
            if (is_access(log[a]) && is_access(log[b]) && !log[a].atomic && !log[b].atomic &&
                log[a].target == log[b].target && log[a].thread > 0 && log[b].thread > 0 &&
                log[a].thread != log[b].thread &&
                (log[a].kind == JudgeEvent::write || log[b].kind == JudgeEvent::write)) {
              ++ordered;
              return;
            }
        return;
      }
      ++racy;
      program_racy = true;
      std::size_t second = log.size();
      for (const auto& pr : pairs) second = std::min(second, pr.second);
      if (!detected) {
        problem = "judge: a race at log event " + std::to_string(second) + "; detector: none";
        return;
      }
      const std::size_t b = log_index(*v.trace, v.failure->race_second, log);
      const std::size_t a = log_index(*v.trace, v.failure->race_first, log);
      if (b != second || std::find(pairs.begin(), pairs.end(), std::make_pair(a, b)) == pairs.end())
        problem = "detector names log events " + std::to_string(a) + ", " + std::to_string(b) +
                  " (" + v.failure->message + "); the judge's first race ends at " + std::to_string(second);
    });
    ASSERT_TRUE(problem.empty()) << problem << "\nprogram " << n << (tso ? " (TSO)" : " (SC)") << ": "
                                 << describe(p);
    ASSERT_TRUE(r.error.empty()) << r.error;
    racy_programs += program_racy;
  }
  std::printf("RaceProperties: %d random programs, %llu executions, %llu with a race (in %llu programs), "
              "%llu race-free with conflicting accesses of two children\n",
              kPrograms, static_cast<unsigned long long>(executions), static_cast<unsigned long long>(racy),
              static_cast<unsigned long long>(racy_programs), static_cast<unsigned long long>(ordered));
  // Both answers must be common, or the comparison proves little.
  EXPECT_GT(racy_programs, kPrograms / 10u);
  EXPECT_GT(ordered, kPrograms / 10u);
}

}  // namespace
}  // namespace atomcheck
