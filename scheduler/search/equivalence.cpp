// Canonical class keys (equivalence.hpp). An event is named by (process, index within
// its process); a class is fixed by the order of every dependent pair, which for
// dependent() is: per thread the interleaving of its operations with its own flushes,
// per variable the sequence of writes and, for each read, how many writes precede it
// (reads between two writes commute), per lock the sequence of its operations. The
// sequences are hashed in order; the reads of a variable are summed (order-free).
#include "scheduler/search/equivalence.hpp"
#include "scheduler/search/splitmix.hpp"

#include <vector>

namespace atomcheck {

namespace {

std::uint64_t mix(std::uint64_t x) { return detail::splitmix64_mix(x + detail::kSplitMix64Gamma); }
std::uint64_t step(std::uint64_t h, std::uint64_t token) { return mix(h ^ mix(token)); }
std::uint64_t name(std::uint32_t a, std::uint32_t b, std::uint32_t c = 0) {
  return (std::uint64_t{a} << 40) ^ (std::uint64_t{b} << 8) ^ c;
}

struct PerObject {
  std::uint64_t seq = 0;    // ordered part
  std::uint64_t reads = 0;  // order-free part
  std::uint32_t count = 0;  // writes so far
  bool used = false;
};

template <class T>
T& at(std::vector<T>& v, std::size_t i) {
  if (i >= v.size()) v.resize(i + 1);
  return v[i];
}

std::uint64_t combine(std::uint64_t h, const std::vector<PerObject>& objs, std::uint64_t tag) {
  for (std::size_t i = 0; i < objs.size(); ++i) {
    if (!objs[i].used) continue;
    h = step(h, name(static_cast<std::uint32_t>(tag), static_cast<std::uint32_t>(i)));
    h = step(h, objs[i].seq);
    h = step(h, objs[i].reads);
  }
  return h;
}

bool is_var(Action a) {
  return a == Action::read || a == Action::write || a == Action::rmw || a == Action::flush;
}

}  // namespace

namespace {

std::uint64_t mazurkiewicz_key(const History& history, bool skip_flushes) {
  std::vector<std::uint32_t> index;  // per process: steps so far
  std::vector<PerObject> threads, vars, locks;
  for (const Transition& t : history.chosen) {
    if (skip_flushes && t.action == Action::flush) continue;
    std::uint32_t proc = 2 * t.thread + (t.action == Action::flush ? 1u : 0u);
    std::uint32_t k = at(index, proc)++;
    std::uint64_t me = name(proc, k, static_cast<std::uint32_t>(t.action));
    PerObject& th = at(threads, t.thread);
    th.used = true;
    th.seq = step(th.seq, proc);
    if (is_var(t.action)) {
      PerObject& v = at(vars, t.target);
      v.used = true;
      if (t.action == Action::read) {
        v.reads += mix(me ^ (std::uint64_t{v.count} << 20));
      } else {
        v.seq = step(v.seq, me);
        ++v.count;
      }
    } else if (t.action != Action::fence) {
      PerObject& l = at(locks, t.target);
      l.used = true;
      l.seq = step(l.seq, me);
    }
  }
  std::uint64_t h = combine(0x5eed, threads, 1);
  h = combine(h, vars, 2);
  return combine(h, locks, 3);
}

}  // namespace

std::uint64_t class_key(const History& history) { return mazurkiewicz_key(history, false); }

std::uint64_t issue_order_key(const History& history, std::uint64_t rf_co) {
  return step(mazurkiewicz_key(history, true), rf_co);
}

std::uint64_t rf_co_key(const Trace& execution) {
  const auto& ev = execution.events;
  // Per event: its name (thread, index among the thread's non-commit events); a commit
  // is named by its issue.
  std::vector<std::uint32_t> counter;
  std::vector<std::uint64_t> names(ev.size(), 0);
  // Per variable: the write whose value memory holds (0: the initial value).
  std::vector<std::uint64_t> memory;
  // Per (thread, variable): the thread's latest write to it (for buffered reads).
  std::vector<std::vector<std::uint64_t>> own;
  std::vector<PerObject> vars, locks;
  std::vector<bool> committed(ev.size(), false);
  for (const Event& e : ev)
    if (e.op == Op::commit && e.issue < ev.size()) committed[e.issue] = true;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (e.op == Op::commit) {
      names[i] = e.issue < i ? names[e.issue] : 0;
    } else {
      names[i] = name(e.thread + 1, at(counter, e.thread)++);
    }
    switch (e.op) {
      case Op::read:
      case Op::rmw: {
        std::uint64_t from = at(memory, e.target);
        if (e.buffered) from = at(at(own, e.thread), e.target);
        PerObject& v = at(vars, e.target);
        v.used = true;
        v.reads += mix(names[i] ^ mix(from));
        if (e.op == Op::rmw) {
          v.seq = step(v.seq, names[i]);
          memory[e.target] = names[i];
        }
        break;
      }
      case Op::write:
        at(at(own, e.thread), e.target) = names[i];
        // Under SC a write reaches memory at once; under TSO its commit does.
        if (!committed[i]) {
          PerObject& v = at(vars, e.target);
          v.used = true;
          v.seq = step(v.seq, names[i]);
          at(memory, e.target) = names[i];
        }
        break;
      case Op::commit: {
        PerObject& v = at(vars, e.target);
        v.used = true;
        v.seq = step(v.seq, names[i]);
        at(memory, e.target) = names[i];
        break;
      }
      case Op::acquire: {
        PerObject& l = at(locks, e.target);
        l.used = true;
        l.seq = step(l.seq, names[i]);
        break;
      }
      default: break;
    }
  }
  std::uint64_t h = combine(0xc0, vars, 2);
  return combine(h, locks, 3);
}

}  // namespace atomcheck
