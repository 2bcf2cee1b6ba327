// The `linearizability-oracle` judge: the operations of a trace, read again from its events
// (an operation's begin carries its code, linearizability.hpp OperationCode), decided per
// object by the naive judge of lin_naive.hpp, which tries every order. It reads the events
// with code of its own, so that a mistake in the checker's reading is not shared; the one
// definition in common is the event encoding itself. Histories past kMaxOperations
// operations per object, or traces past kMaxEvents events, are left undecided (input too
// large), as the other oracles do.
//
// "Precedes" is written here straight from docs/linearizability.md, 'What "precedes"
// means', and shares no code with linearizability.cpp, linearizability_checker.cpp or the
// scheduler (a judge that shares a definition with what it judges cannot catch a shared
// mistake). Nothing is computed incrementally or with clocks: every relation is an explicit
// boolean matrix over the trace's events plus two virtual nodes per thread (its start and
// its end), and the order is the matrix's transitive closure (Warshall). The memory model
// is the one CheckerOptions::memory names (0 sc, 1 tso, 2 rc11); nothing is guessed from
// the events.
//
//   Steps of a thread: its read, write, rmw, fence, acquire, release, fork and join events
//   (a commit is its buffer's, not a step). po: start(t) -> first step -> ... -> last step
//   -> end(t). Spawn and join: fork(u) -> start(u), end(u) -> join(u). Locks: release(l)
//   -> every later acquire(l). Then, per model:
//   - sc: accesses (read, write, rmw) to one variable, at least one a write or an rmw:
//     earlier -> later (rf, co and fr at once).
//   - tso: a write -> its commit; a buffer's commits in trace order; memory's stores to x
//     (commits and rmws) in trace order (co); a non-buffered read or rmw of x reads the
//     latest of them before it: rf from it when it is another thread's, fr to every later
//     one; a buffered read reads its thread's latest write of x: no rf, fr to every store
//     of x after that write's commit; drains: a buffer's commits before its thread's next
//     fence, rmw, acquire, release, fork, seq_cst store (an xchg, whose commit also
//     precedes its thread's next step) and failed compare-exchange (a locked cmpxchg), and
//     a child's commits before a join of it.
//   - rc11: hb = (po | sw | spawn and join | locks)+ with RC11's (Lahav et al., PLDI 2017)
//     sw = [E>=rel]; ([F]; po)?; rs; rf; [R>=rlx]; (po; [F])?; [E>=acq],
//     rs = [W]; (po|loc)?; [W>=rlx]; (rf; rmw)*, rf from a read's or rmw's `issue`.
//   An operation A of thread t: first(A) is t's first step after begin(A) (t's end when
//   there is none), last(A) t's last step before end(A) (t's start when there is none):
//   the doc's "first and last step", and for an operation without a step its thread's
//   next step and its last step before it. A precedes B when A returned and:
//   - same thread: A ended before B began;
//   - other threads: last(A) = first(B) or last(A) -> first(B) in the closure, and under
//     tso, when A has write events, the commit of A's last write -> first(B) too (no
//     commit in the trace: A precedes no other thread's operation).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "checkers/lin_naive.hpp"
#include "checkers/linearizability.hpp"
#include "checkers/registry.hpp"

namespace atomcheck {

namespace {

// A relation over nodes 0..n-1 as a boolean matrix, each row packed in 64-bit words.
class Relation {
 public:
  explicit Relation(std::size_t n) : n_(n), words_((n + 63) / 64), bits_(n * words_, 0) {}
  std::size_t size() const { return n_; }
  void add(std::size_t a, std::size_t b) { bits_[a * words_ + b / 64] |= std::uint64_t{1} << (b % 64); }
  bool has(std::size_t a, std::size_t b) const { return (bits_[a * words_ + b / 64] >> (b % 64)) & 1u; }
  // Row a of this |= row b of `other` (same size).
  void add_row(std::size_t a, const Relation& other, std::size_t b) {
    for (std::size_t w = 0; w < words_; ++w) bits_[a * words_ + w] |= other.bits_[b * words_ + w];
  }

 private:
  std::size_t n_, words_;
  std::vector<std::uint64_t> bits_;
};

// The transitive closure (Warshall: for every k, whoever reaches k reaches what k reaches).
Relation closure(Relation r) {
  for (std::size_t k = 0; k < r.size(); ++k)
    for (std::size_t i = 0; i < r.size(); ++i)
      if (r.has(i, k)) r.add_row(i, r, k);
  return r;
}

// x ; y: pairs (a, c) with some b, x(a, b) and y(b, c).
Relation compose(const Relation& x, const Relation& y) {
  Relation out(x.size());
  for (std::size_t a = 0; a < x.size(); ++a)
    for (std::size_t b = 0; b < x.size(); ++b)
      if (x.has(a, b)) out.add_row(a, y, b);
  return out;
}

bool is_step(Op op) {
  return op == Op::read || op == Op::write || op == Op::rmw || op == Op::fence || op == Op::acquire ||
         op == Op::release || op == Op::fork || op == Op::join;
}

// std::memory_order's values, as Event::order holds them.
constexpr std::uint8_t mo(std::memory_order m) { return static_cast<std::uint8_t>(m); }
constexpr std::uint8_t kRelaxed = mo(std::memory_order::relaxed), kConsume = mo(std::memory_order::consume),
                       kAcquire = mo(std::memory_order::acquire), kRelease = mo(std::memory_order::release),
                       kAcqRel = mo(std::memory_order::acq_rel), kSeqCst = mo(std::memory_order::seq_cst);

bool at_least_release(std::uint8_t o) { return o == kRelease || o == kAcqRel || o == kSeqCst; }
bool at_least_acquire(std::uint8_t o) { return o == kAcquire || o == kAcqRel || o == kSeqCst || o == kConsume; }

// RC11's events: an rmw is a read and a write at once, each half with its own mode.
bool writes(const Event& e) { return e.op == Op::write || e.op == Op::rmw; }
bool reads(const Event& e) { return e.op == Op::read || e.op == Op::rmw; }
std::uint8_t write_order(const Event& e) {  // the write half's mode
  if (e.op != Op::rmw) return e.order;
  if (e.order == kRelease || e.order == kAcqRel) return kRelease;
  if (e.order == kSeqCst) return kSeqCst;
  return kRelaxed;  // relaxed, consume, acquire
}
std::uint8_t read_order(const Event& e) {  // the read half's mode
  if (e.op != Op::rmw) return e.order;
  if (e.order == kAcquire || e.order == kAcqRel) return kAcquire;
  if (e.order == kConsume || e.order == kSeqCst) return e.order;
  return kRelaxed;  // relaxed, release
}

// The nodes: event i is node i; thread t's start and end are nodes n + 2t and n + 2t + 1.
struct Nodes {
  std::size_t events = 0;
  std::uint32_t threads = 0;
  std::vector<std::vector<std::size_t>> steps;  // per thread, in trace order
  std::size_t start(std::uint32_t t) const { return events + 2 * std::size_t{t}; }
  std::size_t end(std::uint32_t t) const { return events + 2 * std::size_t{t} + 1; }
  std::size_t count() const { return events + 2 * std::size_t{threads}; }
};

Nodes nodes_of(const std::vector<Event>& ev) {
  Nodes nodes;
  nodes.events = ev.size();
  for (const Event& e : ev) {
    nodes.threads = std::max(nodes.threads, e.thread + 1);
    if (e.op == Op::fork || e.op == Op::join) nodes.threads = std::max(nodes.threads, e.target + 1);
  }
  nodes.steps.resize(nodes.threads);
  for (std::size_t i = 0; i < ev.size(); ++i)
    if (is_step(ev[i].op)) nodes.steps[ev[i].thread].push_back(i);
  return nodes;
}

// Edges every model has: po with the virtual start and end, spawn, join, unlock -> lock.
void add_common(const std::vector<Event>& ev, const Nodes& nodes, Relation& r) {
  for (std::uint32_t t = 0; t < nodes.threads; ++t) {
    std::size_t prev = nodes.start(t);
    for (std::size_t s : nodes.steps[t]) {
      r.add(prev, s);
      prev = s;
    }
    r.add(prev, nodes.end(t));
  }
  for (std::size_t i = 0; i < ev.size(); ++i) {
    if (ev[i].op == Op::fork) r.add(i, nodes.start(ev[i].target));
    if (ev[i].op == Op::join) r.add(nodes.end(ev[i].target), i);
    if (ev[i].op == Op::release)
      for (std::size_t j = i + 1; j < ev.size(); ++j)
        if (ev[j].op == Op::acquire && ev[j].target == ev[i].target) r.add(i, j);
  }
}

// SC: conflicting accesses in the order they ran.
void add_sc(const std::vector<Event>& ev, Relation& r) {
  auto access = [](Op op) { return op == Op::read || op == Op::write || op == Op::rmw; };
  auto writing = [](Op op) { return op == Op::write || op == Op::rmw; };
  for (std::size_t i = 0; i < ev.size(); ++i)
    for (std::size_t j = i + 1; j < ev.size(); ++j)
      if (access(ev[i].op) && access(ev[j].op) && ev[i].target == ev[j].target &&
          (writing(ev[i].op) || writing(ev[j].op)))
        r.add(i, j);
}

// The commit of write event w (ev.size() when it has none).
std::size_t commit_of(const std::vector<Event>& ev, std::size_t w) {
  for (std::size_t c = 0; c < ev.size(); ++c)
    if (ev[c].op == Op::commit && ev[c].issue == w) return c;
  return ev.size();
}

// TSO: steps and commits.
void add_tso(const std::vector<Event>& ev, Relation& r) {
  const std::size_t n = ev.size();
  // Stores that reach memory: commits and rmws.
  auto memory_store = [&](std::size_t i) { return ev[i].op == Op::commit || ev[i].op == Op::rmw; };
  for (std::size_t c = 0; c < n; ++c) {
    if (ev[c].op != Op::commit) continue;
    if (ev[c].issue < n) r.add(ev[c].issue, c);  // issue -> commit
    for (std::size_t d = c + 1; d < n; ++d)       // a buffer's commits in order
      if (ev[d].op == Op::commit && ev[d].thread == ev[c].thread) r.add(c, d);
  }
  for (std::size_t i = 0; i < n; ++i)  // co
    for (std::size_t j = i + 1; j < n; ++j)
      if (memory_store(i) && memory_store(j) && ev[i].target == ev[j].target) r.add(i, j);
  for (std::size_t i = 0; i < n; ++i) {  // rf and fr
    const Event& e = ev[i];
    if (e.op != Op::read && e.op != Op::rmw) continue;
    if (e.op == Op::read && e.buffered) {
      // Its source is its thread's latest write of x; fr to memory's stores after that
      // write's commit.
      std::size_t src = n;
      for (std::size_t j = 0; j < i; ++j)
        if (ev[j].op == Op::write && ev[j].thread == e.thread && ev[j].target == e.target) src = j;
      if (src == n) continue;
      const std::size_t c = commit_of(ev, src);
      for (std::size_t j = c + 1; j < n; ++j)
        if (memory_store(j) && ev[j].target == e.target) r.add(i, j);
      continue;
    }
    std::size_t src = n;
    for (std::size_t j = 0; j < i; ++j)
      if (memory_store(j) && ev[j].target == e.target) src = j;
    if (src != n && ev[src].thread != e.thread) r.add(src, i);
    for (std::size_t j = i + 1; j < n; ++j)
      if (memory_store(j) && ev[j].target == e.target) r.add(i, j);
  }
  for (std::size_t s = 0; s < n; ++s) {  // drains
    const Op op = ev[s].op;
    // A seq_cst store is an xchg and a failed compare-exchange a locked cmpxchg: both drain.
    const bool sc_store = op == Op::write && ev[s].order == static_cast<std::uint8_t>(std::memory_order_seq_cst);
    const bool drains = op == Op::fence || op == Op::rmw || op == Op::acquire || op == Op::release ||
                        op == Op::fork || sc_store || (op == Op::read && ev[s].failed_cas);
    if (sc_store)  // it reaches memory in its own step: before its thread's next step
      for (std::size_t j = s + 1; j < n; ++j)
        if (ev[j].thread == ev[s].thread && is_step(ev[j].op)) {
          if (const std::size_t c = commit_of(ev, s); c < n) r.add(c, j);
          break;
        }
    for (std::size_t c = 0; c < s; ++c) {
      if (ev[c].op != Op::commit) continue;
      if (drains && ev[c].thread == ev[s].thread) r.add(c, s);
      if (op == Op::join && ev[c].thread == ev[s].target) r.add(c, s);
    }
  }
}

// RC11: sw, over the events (the virtual nodes take no part in it).
void add_rc11(const std::vector<Event>& ev, Relation& r) {
  const std::size_t n = ev.size();
  auto po = [&](std::size_t a, std::size_t b) {
    return a < b && ev[a].thread == ev[b].thread && is_step(ev[a].op) && is_step(ev[b].op);
  };
  auto atomic = [](std::uint8_t order) { return order != kPlainOrder; };
  auto fence = [&](std::size_t i) { return ev[i].op == Op::fence; };
  // [E>=rel]; ([F]; po)?: a release write or rmw to itself, a release fence to every write
  // after it in po.
  Relation head(n);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t h = 0; h < n; ++h) {
      if (writes(ev[a]) && h == a && at_least_release(write_order(ev[a]))) head.add(a, h);
      if (fence(a) && at_least_release(ev[a].order) && po(a, h) && writes(ev[h])) head.add(a, h);
    }
  // [W]; (po|loc)?; [W>=rlx]
  Relation same_loc(n);
  for (std::size_t h = 0; h < n; ++h)
    for (std::size_t w = 0; w < n; ++w)
      if (writes(ev[h]) && writes(ev[w]) && atomic(write_order(ev[w])) &&
          (h == w || (po(h, w) && ev[h].target == ev[w].target)))
        same_loc.add(h, w);
  // (rf; rmw)*: reflexive and transitive.
  Relation rf_rmw(n);
  for (std::size_t m = 0; m < n; ++m) {
    rf_rmw.add(m, m);
    if (ev[m].op == Op::rmw && ev[m].issue < n) rf_rmw.add(ev[m].issue, m);
  }
  rf_rmw = closure(rf_rmw);
  // rf; [R>=rlx]
  Relation rf_atomic(n);
  for (std::size_t x = 0; x < n; ++x)
    if (reads(ev[x]) && ev[x].issue < n && atomic(read_order(ev[x]))) rf_atomic.add(ev[x].issue, x);
  // (po; [F])?; [E>=acq]
  Relation tail(n);
  for (std::size_t x = 0; x < n; ++x)
    for (std::size_t b = 0; b < n; ++b) {
      if (reads(ev[x]) && b == x && at_least_acquire(read_order(ev[x]))) tail.add(x, b);
      if (reads(ev[x]) && fence(b) && at_least_acquire(ev[b].order) && po(x, b)) tail.add(x, b);
    }
  const Relation sw = compose(compose(compose(compose(head, same_loc), rf_rmw), rf_atomic), tail);
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b)
      if (sw.has(a, b)) r.add(a, b);
}

}  // namespace

class LinearizabilityOracle final : public Checker {
 public:
  static constexpr std::size_t kMaxOperations = 9;
  static constexpr std::size_t kMaxEvents = 400;
  explicit LinearizabilityOracle(const CheckerOptions& options) : memory_(options.memory) {}
  std::string_view name() const override { return "linearizability-oracle"; }
  void reset() override {
    events_.clear();
  }
  void on_event(const Event& e) override { events_.push_back(e); }
  bool wants_commits() const override { return true; }
  Verdict verdict() override;

 private:
  std::uint8_t memory_;
  std::vector<Event> events_;
};

Verdict LinearizabilityOracle::verdict() {
  Verdict v;
  v.checker = "linearizability-oracle";
  v.answers_serializability = true;
  const std::vector<Event>& ev = events_;
  const std::size_t n = ev.size();
  const Nodes nodes = nodes_of(ev);
  // Object id -> (specification, operations, where each one is).
  struct Where {
    std::size_t begin = 0, end = 0;  // end: n while pending
    std::size_t first = 0, last = 0;  // nodes
    bool writes = false;
    std::size_t last_write_commit = 0;  // n: none in the trace
  };
  struct Object {
    std::uint32_t spec = 0;
    std::vector<naive::LinOp> ops;
    std::vector<Where> where;
  };
  std::vector<Object> objects;
  for (std::size_t i = 0; i < n; ++i) {
    const Event& b = ev[i];
    if (b.op != Op::begin || !lin::is_operation_code(b.value2)) continue;
    const lin::OperationCode code = lin::decode_operation(b.value2);
    const ThreadId t = b.thread;
    naive::LinOp op;
    op.thread = t;
    op.method = code.method;
    op.arg = b.value;
    op.call = i;
    op.pending = true;
    Where w;
    w.begin = i;
    w.end = n;
    std::size_t last_write = n;
    int depth = 0;
    for (std::size_t j = i + 1; j < n; ++j) {
      const Event& e = ev[j];
      if (e.thread != t || e.op == Op::commit) continue;
      if (e.op == Op::write) last_write = j;
      if (e.op == Op::begin) ++depth;
      if (e.op == Op::end && depth-- == 0) {
        op.pending = false;
        op.ret = j;
        op.result = e.value;
        op.arg2 = e.value2;
        w.end = j;
        break;
      }
    }
    // first(A): t's first step after begin(A) (inside A when A has a step, else the next
    // one), t's end when there is none; last(A): t's last step before end(A) (inside A when
    // A has a step, else the one before A), t's start when there is none.
    w.first = nodes.end(t);
    for (std::size_t s : nodes.steps[t])
      if (s > w.begin) {
        w.first = s;
        break;
      }
    w.last = nodes.start(t);
    for (std::size_t s : nodes.steps[t])
      if (s < w.end) w.last = s;
    w.writes = last_write != n;
    w.last_write_commit = w.writes ? commit_of(ev, last_write) : n;
    if (code.object >= objects.size()) objects.resize(code.object + 1);
    objects[code.object].spec = code.spec;
    objects[code.object].ops.push_back(op);
    objects[code.object].where.push_back(w);
  }
  bool any = false;
  for (std::uint32_t id = 0; id < objects.size(); ++id) {
    const Object& o = objects[id];
    any = any || !o.ops.empty();
    if (o.ops.size() > kMaxOperations) {
      v.undecided = fmt::format("{}object {} has {} operations (at most {})", Verdict::kInputTooLarge, id,
                                o.ops.size(), kMaxOperations);
      return v;
    }
    if (!o.ops.empty() && o.spec >= lin::spec_names().size()) {
      v.undecided = fmt::format("object {} names specification {}, which this build does not have", id, o.spec);
      return v;
    }
  }
  if (!any) return v;
  if (n > kMaxEvents) {
    v.undecided = fmt::format("{}{} events (at most {})", Verdict::kInputTooLarge, n, kMaxEvents);
    return v;
  }
  if (memory_ > 2) {
    v.undecided = fmt::format("memory model {} is none of sc (0), tso (1), rc11 (2)", memory_);
    return v;
  }
  Relation edges(nodes.count());
  add_common(ev, nodes, edges);
  if (memory_ == 0) add_sc(ev, edges);
  if (memory_ == 1) add_tso(ev, edges);
  if (memory_ == 2) add_rc11(ev, edges);
  const Relation order = closure(std::move(edges));
  for (const Object& o : objects) {
    const std::size_t m = o.ops.size();
    if (m == 0) continue;
    std::vector<std::vector<bool>> before(m, std::vector<bool>(m, false));
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t b = 0; b < m; ++b) {
        const Where &x = o.where[a], &y = o.where[b];
        if (a == b || o.ops[a].pending) continue;
        if (o.ops[a].thread == o.ops[b].thread) {
          before[a][b] = x.end < y.begin;
          continue;
        }
        bool p = x.last == y.first || order.has(x.last, y.first);
        if (memory_ == 1 && x.writes) p = p && x.last_write_commit < n && order.has(x.last_write_commit, y.first);
        before[a][b] = p;
      }
    if (!naive::linearizable(lin::spec_names()[o.spec], o.ops, lin::kNone, before)) {
      v.serializable = false;
      return v;
    }
  }
  return v;
}

std::unique_ptr<Checker> make_linearizability_oracle(const CheckerOptions& options) {
  return std::make_unique<LinearizabilityOracle>(options);
}

}  // namespace atomcheck
