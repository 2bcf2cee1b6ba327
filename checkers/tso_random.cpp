// Random TSO executions (see tso_random.hpp): a program per thread, then one run of it
// under simulated TSO with random choices.
#include "checkers/tso_random.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "trace/random_trace.hpp"

namespace atomcheck::tso {

namespace {

struct Instr {
  Op op;
  VarId var;
};

std::vector<Instr> random_program(const RandomTsoParams& p, PortableRng& rng) {
  std::vector<Instr> prog;
  auto access = [&]() {
    VarId x = static_cast<VarId>(rng.below(std::max<std::uint32_t>(p.vars, 1)));
    if (rng.chance(p.fence_permille)) return Instr{Op::fence, kNoId};
    if (rng.chance(p.rmw_permille)) return Instr{Op::rmw, x};
    if (rng.chance(p.write_permille)) return Instr{Op::write, x};
    return Instr{Op::read, x};
  };
  std::uint32_t left = p.ops_per_thread;
  while (left > 0) {
    if (rng.chance(p.block_permille) || p.fenced) {
      std::uint32_t len = static_cast<std::uint32_t>(
          rng.between(1, std::min<std::uint32_t>(std::max<std::uint32_t>(p.max_txn_len, 1), left)));
      prog.push_back({Op::begin, kNoId});
      for (std::uint32_t k = 0; k < len; ++k) prog.push_back(access());
      if (p.fenced && prog.back().op != Op::fence && prog.back().op != Op::rmw)
        prog.push_back({Op::fence, kNoId});
      prog.push_back({Op::end, kNoId});
      left -= len;
    } else {
      prog.push_back(access());
      --left;
    }
  }
  return prog;
}

}  // namespace

Trace random_tso_execution(const RandomTsoParams& p, std::uint64_t seed) {
  PortableRng rng(seed);
  const std::uint32_t nt = std::max<std::uint32_t>(p.threads, 1);
  std::vector<std::vector<Instr>> progs;
  for (std::uint32_t t = 0; t < nt; ++t) progs.push_back(random_program(p, rng));
  std::vector<std::size_t> pc(nt, 0);
  struct Entry {
    VarId var;
    std::int64_t value;
    EventIndex issue;
  };
  std::vector<std::vector<Entry>> buf(nt);
  std::vector<std::int64_t> mem(std::max<std::uint32_t>(p.vars, 1), 0);
  std::int64_t next_value = 1;
  Trace tr;
  auto emit = [&](Event e) {
    tr.events.push_back(e);
    return static_cast<EventIndex>(tr.events.size() - 1);
  };
  auto flush = [&](ThreadId t) {
    Entry en = buf[t].front();
    buf[t].erase(buf[t].begin());
    mem[en.var] = en.value;
    Event c;
    c.op = Op::commit;
    c.thread = t;
    c.target = en.var;
    c.value = en.value;
    c.issue = en.issue;
    emit(c);
  };
  std::vector<ThreadId> runnable, flushable;
  for (;;) {
    runnable.clear();
    flushable.clear();
    for (ThreadId t = 0; t < nt; ++t) {
      if (!buf[t].empty()) flushable.push_back(t);
      if (pc[t] == progs[t].size()) continue;
      Op o = progs[t][pc[t]].op;
      bool drain = o == Op::fence || o == Op::rmw;
      if (!drain || buf[t].empty()) runnable.push_back(t);
    }
    if (runnable.empty() && flushable.empty()) break;
    if (!flushable.empty() && (runnable.empty() || rng.chance(p.flush_permille))) {
      flush(flushable[rng.below(flushable.size())]);
      continue;
    }
    ThreadId t = runnable[rng.below(runnable.size())];
    Instr in = progs[t][pc[t]++];
    Event e;
    e.op = in.op;
    e.thread = t;
    switch (in.op) {
      case Op::write: {
        e.target = in.var;
        e.value = next_value++;
        EventIndex k = emit(e);
        buf[t].push_back(Entry{in.var, e.value, k});
        break;
      }
      case Op::read: {
        e.target = in.var;
        e.value = mem[in.var];
        for (auto it = buf[t].rbegin(); it != buf[t].rend(); ++it)
          if (it->var == in.var) {
            e.value = it->value;
            e.buffered = true;
            break;
          }
        emit(e);
        break;
      }
      case Op::rmw:
        e.target = in.var;
        e.value = mem[in.var];
        e.value2 = next_value++;
        mem[in.var] = e.value2;
        emit(e);
        break;
      default: emit(e); break;
    }
  }
  for (std::uint32_t t = 0; t < nt; ++t) tr.names.threads.intern(fmt::format("T{}", t));
  for (std::uint32_t x = 0; x < std::max<std::uint32_t>(p.vars, 1); ++x)
    tr.names.vars.intern(fmt::format("x{}", x));
  return tr;
}

RandomTsoParams random_small_tso_params(std::uint64_t seed, std::uint32_t max_ops) {
  PortableRng rng(seed ^ 0x9e3779b97f4a7c15ull);
  RandomTsoParams p;
  p.threads = static_cast<std::uint32_t>(rng.between(2, 3));
  p.vars = static_cast<std::uint32_t>(rng.between(1, 3));
  std::uint32_t per = std::max<std::uint32_t>(1, max_ops / p.threads);
  p.ops_per_thread = static_cast<std::uint32_t>(rng.between(1, per));
  p.max_txn_len = static_cast<std::uint32_t>(rng.between(1, 3));
  p.block_permille = static_cast<std::uint32_t>(rng.between(0, 800));
  p.write_permille = static_cast<std::uint32_t>(rng.between(300, 700));
  p.fence_permille = static_cast<std::uint32_t>(rng.between(0, 200));
  p.rmw_permille = static_cast<std::uint32_t>(rng.between(0, 100));
  p.flush_permille = static_cast<std::uint32_t>(rng.between(100, 700));
  return p;
}

}  // namespace atomcheck::tso
