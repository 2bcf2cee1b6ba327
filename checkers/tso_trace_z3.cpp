// Z3 on Corollary 1 (see tso_trace_z3.hpp and docs/trace-tso-z3.md). Everything here is
// read off tau and ⊚TSO (tso_conflict.hpp) directly; nothing is shared with the §6.2
// decider, so the two stay independent judges.
#include "checkers/tso_trace_z3.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/core.h>
#include <z3++.h>

#include "checkers/tso_conflict.hpp"
#include "trace/transactions.hpp"

namespace atomcheck::tso {

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// What the encoding reads off tau. Events keep their tau index as their position in every
// execution; a write w also has a commit, placed anywhere in its window [w, end[w]) (after
// the issue, before the thread's next drain or a join of the thread; end n: at the end).
struct Facts {
  std::size_t n = 0;
  Transactions tx;
  std::vector<EventIndex> source;    // read -> the write that may serve it from the buffer
  std::vector<std::uint32_t> end;    // write -> end of its commit window
  std::vector<std::uint32_t> prev_write;  // write -> the previous write of its thread (FIFO)
  std::vector<std::uint32_t> span_hi;     // transaction -> last position any of its nodes can take
};

bool live(const Event& e) { return e.op != Op::commit; }  // commits in tau are ignored

Facts facts_of(std::span<const Event> tau) {
  Facts f;
  const std::size_t n = tau.size();
  f.n = n;
  f.tx = assign_transactions(tau);
  f.source = analyse(tau).source;
  f.end.assign(n, static_cast<std::uint32_t>(n));
  f.prev_write.assign(n, kNone);
  std::vector<std::uint32_t> next_drain, last_write;
  for (std::size_t k = n; k-- > 0;) {
    const Event& e = tau[k];
    if (!live(e)) continue;
    std::size_t need = std::max<std::size_t>(e.thread, is_thread_op(e.op) ? e.target : 0) + 1;
    if (next_drain.size() < need) next_drain.resize(need, static_cast<std::uint32_t>(n));
    if (e.op == Op::write) f.end[k] = next_drain[e.thread];
    if (is_drain(e.op)) next_drain[e.thread] = static_cast<std::uint32_t>(k);
    if (e.op == Op::join) next_drain[e.target] = static_cast<std::uint32_t>(k);
  }
  f.span_hi.assign(f.tx.txns.size(), 0);
  for (std::size_t k = 0; k < n; ++k) {
    const Event& e = tau[k];
    if (!live(e)) continue;
    TxnId t = f.tx.txn_of[k];
    f.span_hi[t] = std::max<std::uint32_t>(f.span_hi[t], e.op == Op::write ? f.end[k] : static_cast<std::uint32_t>(k));
    if (e.op != Op::write) continue;
    if (e.thread >= last_write.size()) last_write.resize(e.thread + 1, kNone);
    f.prev_write[k] = last_write[e.thread];
    last_write[e.thread] = static_cast<std::uint32_t>(k);
  }
  return f;
}

// Segments: maximal ranges of positions [lo, hi] that no transaction straddles. Every
// conflict edge of an execution goes forward in time, and the only way back is inside a
// transaction (from a later node of it to an earlier one, both within its span), so a
// cycle of any execution stays inside one segment (docs/trace-tso-z3.md, "Segments").
std::vector<std::pair<std::uint32_t, std::uint32_t>> segments(std::span<const Event> tau, const Facts& f) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  std::uint32_t lo = 0, hi = 0;
  bool open = false;
  for (std::uint32_t k = 0; k < f.n; ++k) {
    if (!live(tau[k])) continue;
    std::uint32_t reach = f.span_hi[f.tx.txn_of[k]];
    if (open && k > hi) {
      out.push_back({lo, hi});
      open = false;
    }
    if (!open) {
      lo = k;
      hi = k;
      open = true;
    }
    hi = std::max(hi, reach);
  }
  if (open) out.push_back({lo, std::min<std::uint32_t>(hi, static_cast<std::uint32_t>(f.n - 1))});
  return out;
}

// When a potential conflict edge is present, in terms of the commit positions c_w:
//   before(w, k)  c_w < k: the commit of w comes before event k (c_w = k reads "just
//                 after k", so every comparison with an event means the same);
//   cc(a, b)      c_a < c_b, with c_a != c_b forced whenever it is used.
// An edge is present when its direction literal holds and the buffered-read exception
// (iv) of ⊚TSO does not remove it.
struct Lit {
  enum Kind : std::uint8_t { yes, before, after, cc } kind = yes;  // after: !before
  std::uint32_t a = 0, b = 0;
};
struct Exception {  // (iv): read r, served by its buffered write s, and memory write m
  std::uint32_t r = kNone, s = 0, m = 0;
  bool m_is_commit = false;
};
struct Edge {
  TxnId from, to;
  EventIndex from_event, to_event;  // a write stands for its commit when a commit is meant
  Lit dir;
  Exception exc;
};

struct EdgeSet {
  std::vector<Edge> edges;
  std::unordered_set<std::uint64_t> fixed;  // (from, to) already joined by a fixed edge
  void add(const Edge& e) {
    if (e.from == e.to) return;
    if (e.dir.kind == Lit::yes && e.exc.r == kNone) {
      if (!fixed.insert((std::uint64_t{e.from} << 32) | e.to).second) return;
    }
    edges.push_back(e);
  }
};

// The edges between access i (its commit, for a write) and the accesses `theirs` of one
// other thread to the same variable, from i's side: every pair whose order depends on
// where commits go (j in i's window, or i in j's: i is then among j's), and, of the
// accesses surely after i, those up to the first whose edge from i is present in every
// execution (the later ones follow from it by program order, same-variable accesses of
// one thread always conflicting).
void access_edges(std::span<const Event> tau, const Facts& f, std::uint32_t i, const std::vector<std::uint32_t>& theirs,
                  EdgeSet& out) {
  auto txn = [&](std::uint32_t k) { return f.tx.txn_of[k]; };
  const Event& a = tau[i];
  const bool i_commit = a.op == Op::write;
  // The exception (iv) of a read r against memory write m can only apply when m may
  // fall inside r's source's window.
  auto excuse = [&](std::uint32_t r, std::uint32_t m, bool m_commit) {
    if (tau[r].op != Op::read || f.source[r] == kNoEvent) return Exception{};
    std::uint32_t s = static_cast<std::uint32_t>(f.source[r]);
    // m must come after s's issue (a commit: c_m >= s, possible when its window ends
    // later) and before s's commit (c_s < end[s]).
    bool after_s = m_commit ? f.end[m] > s : m > s;
    if (!after_s || m >= f.end[s]) return Exception{};
    return Exception{r, s, m, m_commit};
  };
  // Pairs whose order is open: j in i's window (i a write).
  auto first = std::lower_bound(theirs.begin(), theirs.end(), i);
  auto it = first;
  if (i_commit) {
    for (; it != theirs.end() && *it < f.end[i]; ++it) {
      std::uint32_t j = *it;
      if (tau[j].op == Op::write) {
        out.add(Edge{txn(i), txn(j), i, j, Lit{Lit::cc, i, j}, {}});
        out.add(Edge{txn(j), txn(i), j, i, Lit{Lit::cc, j, i}, {}});
        continue;
      }
      Exception x = excuse(j, i, true);
      out.add(Edge{txn(i), txn(j), i, j, Lit{Lit::before, i, j}, x});
      out.add(Edge{txn(j), txn(i), j, i, Lit{Lit::after, i, j}, x});
    }
  } else {
    // i fixed, j a write whose window holds i: found from j's side. Skip to after i.
    it = std::upper_bound(theirs.begin(), theirs.end(), i);
  }
  // Accesses surely after i's node.
  for (; it != theirs.end(); ++it) {
    std::uint32_t j = *it;
    const Event& b = tau[j];
    if (a.op == Op::read && b.op == Op::read) continue;
    Exception x;
    if (a.op == Op::read) x = excuse(i, j, b.op == Op::write);
    else if (b.op == Op::read) x = excuse(j, i, i_commit);
    out.add(Edge{txn(i), txn(j), i, j, {}, x});
    if (x.r == kNone) break;
  }
}

// Every potential conflict edge of the executions of tau between transactions of the
// segment [lo, hi], up to paths: an edge that a path of edges present in every
// execution where it is implies is left out (docs/trace-tso-z3.md, "Edges"). Same-thread
// edges follow program order and ⊚TSO's exceptions; a commit adds nothing its issue does
// not (FIFO and "before the next drain" are program order between the issues).
// Cross-thread edges: synchronisation, and accesses to one variable where one side
// writes memory (a commit or an rmw).
void potential_edges(std::span<const Event> tau, const Facts& f, std::uint32_t lo, std::uint32_t hi, EdgeSet& out) {
  const ExecFacts facts{std::vector<EventIndex>(f.n, kNoEvent), f.source};
  auto txn = [&](std::uint32_t k) { return f.tx.txn_of[k]; };
  std::unordered_map<ThreadId, std::vector<std::uint32_t>> by_thread;
  // Per variable (or lock), per thread: its accesses (acquires) in tau order.
  std::unordered_map<std::uint32_t, std::unordered_map<ThreadId, std::vector<std::uint32_t>>> by_var, acquires;
  std::vector<std::uint32_t> forks, joins, releases;
  for (std::uint32_t j = lo; j <= hi; ++j) {
    const Event& b = tau[j];
    if (!live(b) || is_block_op(b.op)) continue;
    // Program order: walk back to the first earlier event that conflicts with j and is
    // not a read (every earlier event of the thread conflicts with that one).
    auto& mine = by_thread[b.thread];
    for (std::size_t q = mine.size(); q-- > 0;) {
      std::uint32_t i = mine[q];
      if (!conflict(tau, facts, i, j)) continue;
      out.add(Edge{txn(i), txn(j), i, j, {}, {}});
      if (tau[i].op != Op::read) break;
    }
    mine.push_back(j);
    if (is_access(b.op)) by_var[b.target][b.thread].push_back(j);
    if (b.op == Op::acquire) acquires[b.target][b.thread].push_back(j);
    if (b.op == Op::release) releases.push_back(j);
    if (b.op == Op::fork) forks.push_back(j);
    if (b.op == Op::join) joins.push_back(j);
  }
  for (std::uint32_t a : forks)
    for (std::uint32_t k : by_thread[tau[a].target])
      if (k > a) out.add(Edge{txn(a), txn(k), a, k, {}, {}});
  for (std::uint32_t b : joins)
    for (std::uint32_t k : by_thread[tau[b].target])
      if (k < b) out.add(Edge{txn(k), txn(b), k, b, {}, {}});
  // A release orders the next acquire of the lock in every other thread; later ones of
  // that thread follow by program order.
  for (std::uint32_t r : releases)
    for (auto& [u, evs] : acquires[tau[r].target]) {
      if (u == tau[r].thread) continue;
      auto it = std::upper_bound(evs.begin(), evs.end(), r);
      if (it != evs.end()) out.add(Edge{txn(r), txn(*it), r, *it, {}, {}});
    }
  for (auto& [var, threads] : by_var)
    for (auto& [t, mine] : threads)
      for (std::uint32_t i : mine)
        for (auto& [u, theirs] : threads)
          if (u != t) access_edges(tau, f, i, theirs, out);
}

// Strongly connected components of the graph of potential edges over transactions
// [t0, t1): a cycle of an execution lies inside one of them. Returns, per transaction,
// its component (kNone when the component is a single transaction: no cycle there).
std::vector<std::uint32_t> components(std::size_t t0, std::size_t t1, const std::vector<Edge>& edges) {
  const std::size_t m = t1 - t0;
  std::vector<std::vector<std::uint32_t>> succ(m);
  for (const Edge& e : edges) succ[e.from - t0].push_back(static_cast<std::uint32_t>(e.to - t0));
  // Tarjan, iterative.
  std::vector<std::uint32_t> index(m, kNone), low(m, 0), comp(m, kNone), stack;
  std::vector<bool> on(m, false);
  std::vector<std::pair<std::uint32_t, std::size_t>> call;
  std::uint32_t next = 0, ncomp = 0;
  for (std::uint32_t root = 0; root < m; ++root) {
    if (index[root] != kNone) continue;
    call.push_back({root, 0});
    while (!call.empty()) {
      auto& [v, it] = call.back();
      if (it == 0) {
        index[v] = low[v] = next++;
        stack.push_back(v);
        on[v] = true;
      }
      if (it < succ[v].size()) {
        std::uint32_t w = succ[v][it++];
        if (index[w] == kNone) call.push_back({w, 0});
        else if (on[w]) low[v] = std::min(low[v], index[w]);
        continue;
      }
      if (low[v] == index[v]) {
        std::vector<std::uint32_t> members;
        std::uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on[w] = false;
          members.push_back(w);
        } while (w != v);
        std::uint32_t id = members.size() > 1 ? ncomp++ : kNone;
        for (std::uint32_t x : members) comp[x] = id;
      }
      std::uint32_t done = v;
      call.pop_back();
      if (!call.empty()) low[call.back().first] = std::min(low[call.back().first], low[done]);
    }
  }
  std::vector<std::uint32_t> out(t1, kNone);
  for (std::size_t t = 0; t < m; ++t) out[t0 + t] = comp[t];
  return out;
}

}  // namespace

// The context, and a thread that interrupts the solver once the deadline's flag is
// raised. Z3_interrupt is meant to be called from another thread, but it only reaches a
// check that is running, so the watcher repeats it until the check returns.
struct Z3Decider::Impl {
  z3::context ctx;
  std::mutex m;
  std::condition_variable cv;
  const std::atomic<bool>* watched = nullptr;  // set while a check runs
  bool quit = false;
  std::thread watcher;

  void watch() {
    std::unique_lock<std::mutex> lock(m);
    while (!quit) {
      if (watched == nullptr) {
        cv.wait(lock, [&] { return quit || watched != nullptr; });
        continue;
      }
      if (watched->load(std::memory_order_relaxed)) ctx.interrupt();
      cv.wait_for(lock, std::chrono::milliseconds(20));
    }
  }
  // Runs s.check() with the watcher on `flag` (nullptr: no watching).
  z3::check_result check(z3::solver& s, const std::atomic<bool>* flag) {
    if (flag == nullptr) return s.check();
    {
      std::lock_guard<std::mutex> lock(m);
      if (!watcher.joinable()) watcher = std::thread([this] { watch(); });
      watched = flag;
    }
    cv.notify_one();
    z3::check_result r = s.check();
    std::lock_guard<std::mutex> lock(m);
    watched = nullptr;
    return r;
  }
  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(m);
      quit = true;
    }
    cv.notify_one();
    if (watcher.joinable()) watcher.join();
  }
};
Z3Decider::Z3Decider() : impl_(std::make_unique<Impl>()) {}
Z3Decider::~Z3Decider() = default;

TraceVerdict decide_z3(std::span<const Event> tau, const Deadline& deadline) {
  Z3Decider d;
  return d.decide(tau, deadline);
}

namespace {

// A rational position read from a model.
struct Pos {
  std::int64_t num = 0, den = 1;
  bool operator<(const Pos& o) const {
    return static_cast<__int128>(num) * o.den < static_cast<__int128>(o.num) * den;
  }
  bool operator==(const Pos& o) const {
    return static_cast<__int128>(num) * o.den == static_cast<__int128>(o.num) * den;
  }
};

// The constraints of one segment on a solver: commit positions in their windows, FIFO,
// and, per strongly connected component of potential edges, Corollary 1's cycle.
class Encoder {
 public:
  Encoder(z3::context& ctx, z3::solver& s, std::span<const Event> tau, const Facts& f)
      : ctx_(ctx), s_(s), tau_(tau), f_(f) {}

  // Commit positions of the writes in [lo, hi]: after the issue, before the window's end,
  // FIFO (a previous write outside the segment commits before lo anyway).
  void windows(std::uint32_t lo, std::uint32_t hi) {
    for (std::uint32_t w = lo; w <= hi; ++w) {
      if (tau_[w].op != Op::write) continue;
      z3::expr c = commit(w);
      s_.add(c >= ctx_.real_val(static_cast<int>(w)));
      if (f_.end[w] < f_.n) s_.add(c < ctx_.real_val(static_cast<int>(f_.end[w])));
      if (std::uint32_t p = f_.prev_write[w]; p != kNone && p >= lo) s_.add(commit(p) < c);
    }
  }

  // The transactions of `members` and the edges between them: a non-empty set S of
  // them, each with a present edge to another member (a functional graph on S has a
  // cycle). Returns the selection variables, one per member.
  // `multi`: the members of two or more events; every cycle passes through one
  // (docs/trace-tso-fpt.md, "Unary traces"), so S must hold one.
  template <class Multi>
  std::vector<z3::expr> cycle(const std::vector<TxnId>& members, const std::vector<const Edge*>& edges,
                              std::unordered_map<TxnId, std::size_t>& slot, Multi multi) {
    std::vector<z3::expr> sel;
    slot.clear();
    for (TxnId t : members) {
      slot[t] = sel.size();
      sel.push_back(ctx_.bool_const(fmt::format("s{}", t).c_str()));
    }
    std::vector<z3::expr_vector> succ;
    for (std::size_t k = 0; k < members.size(); ++k) succ.emplace_back(ctx_);
    for (const Edge* e : edges) succ[slot[e->from]].push_back(present(*e) && sel[slot[e->to]]);
    z3::expr_vector any(ctx_);
    for (std::size_t k = 0; k < members.size(); ++k) {
      if (multi(members[k])) any.push_back(sel[k]);
      s_.add(z3::implies(sel[k], succ[k].empty() ? ctx_.bool_val(false) : z3::mk_or(succ[k])));
    }
    s_.add(z3::mk_or(any));
    return sel;
  }

  z3::expr present(const Edge& e) {
    z3::expr d = lit(e.dir);
    if (e.exc.r == kNone) return d;
    return d && !excused(e.exc);
  }

  z3::expr commit(std::uint32_t w) {
    auto it = c_.find(w);
    if (it != c_.end()) return it->second;
    return c_.emplace(w, ctx_.real_const(fmt::format("c{}", w).c_str())).first->second;
  }
  bool has_commit(std::uint32_t w) const { return c_.count(w) != 0; }
  // A new segment: its commits get their window constraints again.
  void forget() { c_.clear(); }
  // A new solver scope: constraints added in the popped one are gone.
  void scope() { distinct_.clear(); }

 private:
  z3::expr at(std::uint32_t k) { return ctx_.real_val(static_cast<int>(k)); }
  // c_a < c_b, and the two commits never share a position (a tie would leave the
  // order of the execution, and so the edge, undetermined).
  z3::expr before_commit(std::uint32_t a, std::uint32_t b) {
    std::uint64_t key = (std::uint64_t{std::min(a, b)} << 32) | std::max(a, b);
    if (distinct_.insert(key).second) s_.add(commit(a) != commit(b));
    return commit(a) < commit(b);
  }
  z3::expr lit(const Lit& l) {
    switch (l.kind) {
      case Lit::yes: return ctx_.bool_val(true);
      case Lit::before: return commit(l.a) < at(l.b);
      case Lit::after: return commit(l.a) >= at(l.b);
      case Lit::cc: return before_commit(l.a, l.b);
    }
    return ctx_.bool_val(true);
  }
  // (iv): r is served by its buffered write s (s commits after r) and the memory write m
  // comes between s's issue and its commit.
  z3::expr excused(const Exception& x) {
    z3::expr served = commit(x.s) >= at(x.r);
    if (x.m_is_commit) return served && commit(x.m) >= at(x.s) && before_commit(x.m, x.s);
    return served && commit(x.s) >= at(x.m);  // m > s by construction
  }

  z3::context& ctx_;
  z3::solver& s_;
  std::span<const Event> tau_;
  const Facts& f_;
  std::unordered_map<std::uint32_t, z3::expr> c_;
  std::unordered_set<std::uint64_t> distinct_;
};

Pos pos_of(const z3::model& mdl, const z3::expr& c) {
  z3::expr v = mdl.eval(c, true);
  Pos p;
  std::int64_t num = 0, den = 1;
  if (v.is_numeral() && v.numerator().is_numeral_i64(num) && v.denominator().is_numeral_i64(den)) p = Pos{num, den};
  return p;
}

TxnRef ref_of(const Facts& f, TxnId t) { return TxnRef{f.tx.txns[t].thread, f.tx.txns[t].first}; }

// The execution a model describes: every event at its tau position, each commit at its
// model position (just after an event it ties with), commits outside the segment right
// after their issue. As tau indices in execution order, a write twice.
std::vector<EventIndex> execution_from(std::span<const Event> tau, const z3::model& mdl, Encoder& enc) {
  struct Node {
    Pos at;
    int kind;  // 0 event, 1 commit
    std::uint32_t ev;
  };
  std::vector<Node> nodes;
  for (std::uint32_t k = 0; k < tau.size(); ++k) {
    if (!live(tau[k])) continue;
    nodes.push_back(Node{Pos{k, 1}, 0, k});
    if (tau[k].op == Op::write)
      nodes.push_back(Node{enc.has_commit(k) ? pos_of(mdl, enc.commit(k)) : Pos{k, 1}, 1, k});
  }
  std::stable_sort(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) {
    if (!(a.at == b.at)) return a.at < b.at;
    return a.kind < b.kind;
  });
  std::vector<EventIndex> out;
  for (const Node& x : nodes) out.push_back(x.ev);
  return out;
}

// Names Z3's "unknown": the deadline we know of, else Z3's reason.
std::string unknown_reason(const Deadline& deadline, z3::solver& s) {
  const char* why = deadline.expired();
  // Z3's timer may ring a moment before ours.
  if (*why == '\0' && deadline.timed() && Deadline::Clock::now() + std::chrono::milliseconds(100) >= deadline.at)
    why = "time limit";
  return *why != '\0' ? std::string(why) : "solver unknown: " + s.reason_unknown();
}

}  // namespace

TraceVerdict Z3Decider::decide(std::span<const Event> tau, const Deadline& deadline) {
  TraceVerdict v;
  if (const char* why = deadline.expired(); *why != '\0') {
    v.undecided = why;
    return v;
  }
  Facts f = facts_of(tau);
  z3::context& ctx = impl_->ctx;
  z3::solver s(ctx, "QF_RDL");
  Encoder enc(ctx, s, tau, f);
  // Transactions of one event (a write with its commit counted as one) are on no cycle
  // of their own: a cycle passes through a transaction of two or more events
  // (docs/trace-tso-fpt.md, "Unary traces"). Segments and components without one are
  // not encoded.
  std::vector<std::uint32_t> size_of(f.tx.txns.size(), 0);
  for (std::size_t k = 0; k < f.n; ++k)
    if (live(tau[k]) && !is_block_op(tau[k].op)) ++size_of[f.tx.txn_of[k]];
  auto multi = [&](TxnId t) { return size_of[t] >= 2; };
  for (auto [lo, hi] : segments(tau, f)) {
    if (const char* why = deadline.expired(); *why != '\0') {
      v.undecided = why;
      return v;
    }
    bool any_multi = false;
    for (std::uint32_t k = lo; k <= hi && !any_multi; ++k) any_multi = live(tau[k]) && multi(f.tx.txn_of[k]);
    if (!any_multi) continue;
    EdgeSet es;
    potential_edges(tau, f, lo, hi, es);
    TxnId t0 = f.tx.txn_of[lo], t1 = t0;
    for (std::uint32_t k = lo; k <= hi; ++k)
      if (live(tau[k])) t1 = std::max<TxnId>(t1, f.tx.txn_of[k] + 1);
    t0 = std::min(t0, t1);
    for (std::uint32_t k = lo; k <= hi; ++k)
      if (live(tau[k])) t0 = std::min<TxnId>(t0, f.tx.txn_of[k]);
    std::vector<std::uint32_t> comp = components(t0, t1, es.edges);
    // Group the edges inside each component.
    std::unordered_map<std::uint32_t, std::vector<const Edge*>> inside;
    std::unordered_map<std::uint32_t, std::vector<TxnId>> members_of;
    for (const Edge& e : es.edges)
      if (comp[e.from] != kNone && comp[e.from] == comp[e.to]) inside[comp[e.from]].push_back(&e);
    if (inside.empty()) continue;
    for (TxnId t = t0; t < t1; ++t)
      if (comp[t] != kNone) members_of[comp[t]].push_back(t);
    std::erase_if(inside, [&](const auto& kv) {
      return std::none_of(members_of[kv.first].begin(), members_of[kv.first].end(), multi);
    });
    if (inside.empty()) continue;
    s.push();
    enc.forget();
    enc.windows(lo, hi);
    for (auto& [id, edges] : inside) {
      if (const char* why = deadline.expired(); *why != '\0') {
        v.undecided = why;
        return v;
      }
      const std::vector<TxnId>& all_members = members_of[id];
      // First the transactions of two or more events alone (a cycle among them, as in
      // store buffering, is found on a formula the size of that set), then everyone.
      std::vector<TxnId> few;
      std::vector<const Edge*> few_edges;
      for (TxnId t : all_members)
        if (multi(t)) few.push_back(t);
      for (const Edge* e : edges)
        if (multi(e->from) && multi(e->to)) few_edges.push_back(e);
      const bool two = few.size() < all_members.size() && !few_edges.empty();
      for (int round = two ? 0 : 1; round < 2; ++round) {
        const std::vector<TxnId>& members = round == 0 ? few : all_members;
        const std::vector<const Edge*>& round_edges = round == 0 ? few_edges : edges;
        s.push();
        enc.scope();
        {
          z3::params p(ctx);
          p.set("ctrl_c", false);
          if (deadline.timed()) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline.at - Deadline::Clock::now()).count();
            // Z3 reads 0 as "no timeout".
            p.set("timeout", static_cast<unsigned>(std::clamp<long long>(left, 1, 1LL << 31)));
          }
          s.set(p);
        }
        std::unordered_map<TxnId, std::size_t> slot;
        std::vector<z3::expr> sel = enc.cycle(members, round_edges, slot, multi);
        ++v.work;
        z3::check_result r = impl_->check(s, deadline.interrupt);
        if (r == z3::unknown) {
          v.undecided = unknown_reason(deadline, s);
          return v;
        }
        if (r == z3::unsat) {
          s.pop();
          continue;
        }
        v.serializable = false;
        z3::model mdl = s.get_model();
        // Follow present edges inside S to a cycle.
        std::vector<int> seen(members.size(), -1);
        std::vector<CycleEdge> walk;
        std::size_t cur = 0;
        while (cur < sel.size() && !mdl.eval(sel[cur], true).is_true()) ++cur;
        while (cur < sel.size() && seen[cur] == -1) {
          seen[cur] = static_cast<int>(walk.size());
          const Edge* pick = nullptr;
          for (const Edge* e : round_edges)
            if (slot[e->from] == cur && mdl.eval(sel[slot[e->to]], true).is_true() &&
                mdl.eval(enc.present(*e), true).is_true()) {
              pick = e;
              break;
            }
          if (pick == nullptr) break;  // cannot happen in a model
          walk.push_back(CycleEdge{ref_of(f, pick->from), ref_of(f, pick->to), pick->from_event, pick->to_event});
          cur = slot[pick->to];
        }
        if (cur < sel.size() && seen[cur] != -1) v.cycle.assign(walk.begin() + seen[cur], walk.end());
        v.witness = execution_from(tau, mdl, enc);
        // The witness must be an execution of tau that is not TSO-serializable; if the
        // encoding and ⊚TSO ever disagree, say nothing rather than something false.
        if (check_execution(execution_of(tau, v.witness)).serializable) v.witness.clear();
        s.pop();
        s.pop();
        return v;
      }
    }
    s.pop();
  }
  return v;
}

}  // namespace atomcheck::tso
