// The allocator model's detector against the definition (issue 57): on random programs
// that make, publish, read, write and free nodes (2-3 threads), an execution fails with a
// use after free or a race with a free exactly when some free and some access of the
// freed object are unordered by happens-before, or the access comes after the free in the
// execution. The judge is written from that sentence and shares nothing with the
// detector: it rebuilds happens-before from the trace alone (program order, fork, join,
// and reads-from, every access being release/acquire or seq_cst so that each rf edge
// synchronises), closes it by search, and finds the free and the node's creation from
// markers the program leaves (atomic blocks "made v" and "freed v" right after make and
// destroy return). Under sc, tso and rc11.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"

namespace atomcheck {
namespace {

struct Node {
  atomic<int> v{0, "node"};
};

// One thread's operations on slot `slot`: publish a new node, read or write through the
// pointer, or take the node out and free it (Op is the trace's event kind).
enum class OpKind : std::uint8_t { publish, read, write, take_free };
struct Step {
  OpKind kind;
  int slot;
  bool seq_cst;  // else release/acquire
};
struct Program {
  int threads = 2;
  std::vector<std::vector<Step>> ops;  // per thread (0 is the body, before it joins)
  std::vector<int> prepublished;     // slots the body fills before it starts the threads
};

Program random_program(std::mt19937_64& rng) {
  Program p;
  p.threads = 2 + static_cast<int>(rng() % 2);
  p.ops.resize(p.threads);
  for (int s = 0; s < 2; ++s)
    if (rng() % 2) p.prepublished.push_back(s);
  for (int t = 0; t < p.threads; ++t) {
    const int n = 1 + static_cast<int>(rng() % (p.threads == 3 ? 2 : 3));
    for (int k = 0; k < n; ++k)
      p.ops[t].push_back(Step{static_cast<OpKind>(rng() % 4), static_cast<int>(rng() % 2), rng() % 3 == 0});
  }
  return p;
}

void mark(const char* what, Node* n) { atomic_block b(fmt::format("{} {}", what, n->v.id())); }

void run_ops(const std::vector<Step>& ops, atomic<Node*>* slots) {
  constexpr auto sc = std::memory_order_seq_cst;
  for (const Step& op : ops) {
    const auto st = op.seq_cst ? sc : std::memory_order_release;
    const auto ld = op.seq_cst ? sc : std::memory_order_acquire;
    const auto rmw = op.seq_cst ? sc : std::memory_order_acq_rel;
    atomic<Node*>& slot = slots[op.slot];
    switch (op.kind) {
      case OpKind::publish: {
        Node* n = make<Node>();
        mark("made", n);
        Node* old = slot.exchange(n, rmw);
        if (old) {  // freed by whoever took it out: the exchange hands it over
          destroy(old);
          mark("freed", old);
        }
        break;
      }
      case OpKind::read:
        if (Node* n = slot.load(ld)) (void)n->v.load(ld);
        break;
      case OpKind::write:
        if (Node* n = slot.load(ld)) n->v.store(1, st);
        break;
      case OpKind::take_free:
        if (Node* n = slot.exchange(nullptr, rmw)) {
          destroy(n);
          mark("freed", n);
        }
        break;
    }
  }
}

void run(const Program& p) {
  atomic<Node*> slots[2] = {atomic<Node*>(nullptr, "slot0"), atomic<Node*>(nullptr, "slot1")};
  for (int s : p.prepublished) {
    Node* n = make<Node>();
    mark("made", n);
    slots[s].store(n);
  }
  std::vector<thread> ts;
  for (int t = 1; t < p.threads; ++t) ts.emplace_back([&, t] { run_ops(p.ops[t], slots); });
  run_ops(p.ops[0], slots);
  for (thread& t : ts) t.join();
  // What is left is freed by the body, after everyone: never a failure of its own.
  for (auto& slot : slots)
    if (Node* n = slot.exchange(nullptr)) {
      destroy(n);
      mark("freed", n);
    }
}

// ---- the judge ---------------------------------------------------------------------

bool is_access(const Event& e) { return e.op == Op::read || e.op == Op::write || e.op == Op::rmw; }

// True when the execution has a free and an access of the freed object (its creation
// counts as its first access) unordered by happens-before, or the access after the free.
bool judge(const Trace& tr, MemoryModelKind memory) {
  const std::vector<Event>& ev = tr.events;
  const std::size_t n = ev.size();
  // Happens-before edges, u -> v.
  std::vector<std::vector<std::size_t>> next(n);
  std::vector<std::size_t> last_of_thread(64, kNoEvent), first_of_thread(64, kNoEvent);
  for (std::size_t i = 0; i < n; ++i) {
    const ThreadId t = ev[i].thread;
    if (ev[i].op == Op::commit) continue;  // a buffer's event, not its thread's
    if (last_of_thread[t] != kNoEvent) next[last_of_thread[t]].push_back(i);
    if (first_of_thread[t] == kNoEvent) first_of_thread[t] = i;
    last_of_thread[t] = i;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Event& e = ev[i];
    if (e.op == Op::fork && first_of_thread[e.target] != kNoEvent) next[i].push_back(first_of_thread[e.target]);
    if (e.op == Op::join && last_of_thread[e.target] != kNoEvent && last_of_thread[e.target] < i)
      next[last_of_thread[e.target]].push_back(i);
    if (e.op != Op::read && e.op != Op::rmw) continue;
    // The write this read read: rc11 names it; under sc the last write to the variable
    // before it; under tso its own latest store when the buffer served it, else the last
    // write to reach memory (a commit stands for its issue).
    std::size_t src = kNoEvent;
    if (memory == MemoryModelKind::rc11) {
      src = e.issue;
    } else {
      for (std::size_t j = i; j-- > 0;) {
        const Event& w = ev[j];
        if (w.target != e.target || !(w.op == Op::write || w.op == Op::rmw || w.op == Op::commit)) continue;
        if (memory == MemoryModelKind::tso) {
          if (e.buffered) {
            if (w.op == Op::write && w.thread == e.thread) { src = j; break; }
            continue;
          }
          if (w.op == Op::commit) { src = w.issue; break; }
          if (w.op == Op::rmw) { src = j; break; }
          continue;
        }
        if (w.op == Op::write || w.op == Op::rmw) { src = j; break; }
      }
    }
    if (src != kNoEvent && ev[src].thread != e.thread) next[src].push_back(i);
  }
  auto reaches = [&](std::size_t from, std::size_t to) {
    if (from == to) return true;
    std::vector<char> seen(n, 0);
    std::vector<std::size_t> stack{from};
    seen[from] = 1;
    while (!stack.empty()) {
      const std::size_t u = stack.back();
      stack.pop_back();
      for (std::size_t v : next[u]) {
        if (v == to) return true;
        if (!seen[v]) seen[v] = 1, stack.push_back(v);
      }
    }
    return false;
  };
  // The markers: "made v" and "freed v" begin events.
  struct Marker {
    std::size_t at;
    VarId var;
  };
  std::vector<Marker> made, freed;
  for (std::size_t i = 0; i < n; ++i) {
    if (ev[i].op != Op::begin) continue;
    const std::string label = tr.names.labels.name(ev[i].target);
    unsigned v = 0;
    if (std::sscanf(label.c_str(), "made %u", &v) == 1) made.push_back({i, v});
    if (std::sscanf(label.c_str(), "freed %u", &v) == 1) freed.push_back({i, v});
  }
  for (const Marker& f : freed) {
    std::vector<std::size_t> accesses;
    for (const Marker& m : made)
      if (m.var == f.var && m.at < f.at) accesses.push_back(m.at);
    for (std::size_t i = 0; i < n; ++i)
      if (is_access(ev[i]) && ev[i].target == f.var && ev[i].op != Op::commit) accesses.push_back(i);
    for (std::size_t a : accesses) {
      if (ev[a].thread == ev[f.at].thread) {
        if (a > f.at) return true;
        continue;
      }
      if (a > f.at) return true;
      if (!reaches(a, f.at) && !reaches(f.at, a)) return true;
    }
  }
  return false;
}

std::uint64_t programs_per_model() {
  if (const char* v = std::getenv("ATOMCHECK_ALLOC_PROGRAMS")) return std::strtoull(v, nullptr, 10);
  return 3'400;  // x 3 models: 10,200 programs
}

class AllocatorProperties : public ::testing::TestWithParam<MemoryModelKind> {};

TEST_P(AllocatorProperties, DetectorAgreesWithTheDefinition) {
  const MemoryModelKind memory = GetParam();
  std::mt19937_64 rng(0x57a110c + static_cast<int>(memory));
  std::uint64_t executions = 0, flagged = 0, programs = 0;
  for (std::uint64_t k = 0; k < programs_per_model(); ++k) {
    const Program p = random_program(rng);
    ExploreOptions o;
    o.memory = memory;
    o.stop_on_failure = false;
    o.keep_failures = 0;
    o.leak_check = false;
    o.max_executions = 100'000;
    std::uint64_t disagreements = 0;
    std::string first;
    const ExploreResult r = explore([&] { run(p); }, o, [&](const ExecutionView& v) {
      if (!v.failure && !v.outcome) return;  // blocked: cut before its end
      if (v.failure && v.failure->kind != FailureKind::use_after_free && v.failure->kind != FailureKind::data_race)
        return;
      ++executions;
      const bool detected = v.failure != nullptr;
      const bool expected = judge(*v.trace, memory);
      flagged += expected;
      if (detected != expected && disagreements++ == 0)
        first = fmt::format("program {} execution {} ({}): detector {}, judge {}{}", k, v.index, v.schedule,
                            detected, expected, v.failure ? ": " + v.failure->message : std::string());
    });
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_EQ(disagreements, 0u) << first;
    ++programs;
  }
  EXPECT_GT(flagged, executions / 20) << "too few failing executions to judge";
  EXPECT_LT(flagged, executions) << "too few passing executions to judge";
  fmt::print("{} programs under {}: {} executions, {} with a free unordered with or before an access\n", programs,
             memory_model_name(memory), executions, flagged);
}

INSTANTIATE_TEST_SUITE_P(Models, AllocatorProperties,
                         ::testing::Values(MemoryModelKind::sc, MemoryModelKind::tso, MemoryModelKind::rc11),
                         [](const auto& info) { return std::string(memory_model_name(info.param)); });

}  // namespace
}  // namespace atomcheck
