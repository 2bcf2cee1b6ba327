// Execs(tau) by plain enumeration (see tso_naive_execs.hpp).
#include "tests/support/tso_naive_execs.hpp"

#include <deque>
#include <map>

#include "tests/support/tso_naive.hpp"

namespace atomcheck::naive {

namespace {

// x86-TSO as the paper states it: a write-issue enters its thread's FIFO buffer; a
// commit takes the oldest write of one thread's buffer to memory, at any time; a fence,
// a locked instruction, a lock operation or a thread start needs its thread's buffer
// empty; joining a thread needs that thread's buffer empty. The trace's events keep
// their order; commits go anywhere these rules allow.
bool needs_empty_own(Op op) {
  return op == Op::fence || op == Op::rmw || op == Op::acquire || op == Op::release || op == Op::fork;
}

struct Enum {
  Enum(std::span<const Event> t, std::uint64_t l) : tau(t), limit(l) {}
  std::span<const Event> tau;
  std::uint64_t limit;
  std::uint64_t count = 0;
  bool over = false, cyclic = false;
  bool judge = true;
  std::map<std::uint32_t, std::deque<std::size_t>> buffer;  // thread -> eta positions of its pending writes
  std::vector<Event> eta;

  void run(std::size_t i) {
    if (over || cyclic) return;
    bool pending = false;
    for (auto& [t, q] : buffer) {
      if (q.empty()) continue;
      pending = true;
      std::size_t w = q.front();
      q.pop_front();
      Event c = eta[w];
      c.op = Op::commit;
      c.issue = w;
      eta.push_back(c);
      run(i);
      eta.pop_back();
      q.push_front(w);
      if (over || cyclic) return;
    }
    if (i < tau.size()) {
      const Event& e = tau[i];
      if (e.op == Op::commit) return run(i + 1);
      if (needs_empty_own(e.op) && !buffer[e.thread].empty()) return;
      if (e.op == Op::join && !buffer[e.target].empty()) return;
      Event x = e;
      x.issue = kNoEvent;
      x.buffered = false;
      eta.push_back(x);
      if (e.op == Op::write) buffer[e.thread].push_back(eta.size() - 1);
      run(i + 1);
      if (e.op == Op::write) buffer[e.thread].pop_back();
      eta.pop_back();
      return;
    }
    if (pending) return;
    if (++count > limit) {
      over = true;
      return;
    }
    if (judge && !tso_serializable(eta)) cyclic = true;
  }
};

}  // namespace

std::optional<bool> trace_tso_serializable(std::span<const Event> tau, std::uint64_t limit) {
  Enum en(tau, limit);
  en.run(0);
  if (en.cyclic) return false;
  if (en.over) return std::nullopt;
  return true;
}

std::uint64_t count_executions(std::span<const Event> tau) {
  Enum en(tau, ~std::uint64_t{0});
  en.judge = false;
  en.run(0);
  return en.count;
}

}  // namespace atomcheck::naive
