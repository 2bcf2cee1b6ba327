// Z3 on Corollary 1 (see tso_trace_z3.hpp).
#include "checkers/tso_trace_z3.hpp"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <fmt/core.h>
#include <z3++.h>

#include "checkers/tso_conflict.hpp"

namespace atomcheck::tso {

namespace {

TxnRef ref_of(const TraceGraph& g, TxnId t) { return TxnRef{g.tx.txns[t].thread, g.tx.txns[t].first}; }

// Fills witness and (when missing) cycle from an orientation that induces a cycle.
void witness_from_orientation(std::span<const Event> tau, const TraceGraph& g, TraceVerdict& v) {
  std::vector<EventIndex> order = realise(tau, g, v.orientation);
  if (order.empty()) return;
  ExecVerdict ev = check_execution(execution_of(tau, order));
  if (ev.serializable) return;
  v.witness = order;
  if (!v.cycle.empty()) return;
  v.cycle = ev.cycle;
  for (CycleEdge& e : v.cycle) {
    e.from.first = order[e.from.first];
    e.to.first = order[e.to.first];
    e.from_event = order[e.from_event];
    e.to_event = order[e.to_event];
  }
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

TraceVerdict Z3Decider::decide(std::span<const Event> tau, const Deadline& deadline) {
  TraceVerdict v;
  if (const char* why = deadline.expired(); *why != '\0') {
    v.undecided = why;
    return v;
  }
  TraceGraph g = event_graph(tau);
  TraceConflictGraph cg = conflict_graph(g);
  const std::size_t m = cg.txns;
  if (m == 0) return v;
  z3::context& ctx = impl_->ctx;
  z3::solver s(ctx, "QF_LRA");
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
  std::vector<z3::expr> pos, orient, sel;
  // Events other than commits sit at their tau positions; a write's node is its
  // commit, a real-valued position after its issue, FIFO, before its thread's next drain.
  for (std::size_t k = 0; k < g.n; ++k) {
    if (tau[k].op == Op::write) pos.push_back(ctx.real_const(fmt::format("c{}", k).c_str()));
    else pos.push_back(ctx.real_val(static_cast<int>(k)));
  }
  for (std::uint32_t k = 0; k < g.vars; ++k) orient.push_back(ctx.bool_const(fmt::format("o{}", k).c_str()));
  for (std::size_t t = 0; t < m; ++t) sel.push_back(ctx.bool_const(fmt::format("s{}", t).c_str()));
  {
    std::vector<std::size_t> last_write;
    for (std::size_t k = 0; k < g.n; ++k) {
      const Event& e = tau[k];
      if (e.op != Op::write) continue;
      s.add(pos[k] > ctx.real_val(static_cast<int>(k)));
      if (g.next_drain[k] < g.n) s.add(pos[k] < ctx.real_val(static_cast<int>(g.next_drain[k])));
      if (e.thread >= last_write.size()) last_write.resize(e.thread + 1, g.n);
      if (last_write[e.thread] != g.n) s.add(pos[last_write[e.thread]] < pos[k]);
      last_write[e.thread] = k;
    }
  }
  // The orientation is realisable (see valid_orientation): cross-thread edges order the
  // positions, a write at its commit.
  auto movable = [&](std::uint32_t k) { return tau[k].op == Op::write; };
  for (auto [a, b] : g.directed)
    if (tau[a].thread != tau[b].thread && (movable(a) || movable(b))) s.add(pos[a] < pos[b]);
  for (const UEdge& e : g.undirected) {
    if (e.tied) continue;  // forward: the read precedes the write's issue; back: via its own write
    if (e.semi) {
      z3::expr w_first = e.base_lo_is_write ? orient[e.base] : !orient[e.base];
      s.add(z3::implies(orient[e.var], pos[e.lo] < pos[e.hi] || w_first));
      s.add(z3::implies(!orient[e.var], pos[e.hi] < pos[e.lo] && pos[e.source] < pos[e.lo]));
      continue;
    }
    s.add(z3::ite(orient[e.var], pos[e.lo] < pos[e.hi], pos[e.hi] < pos[e.lo]));
  }
  // A non-empty set S of transactions, each with an induced conflict edge to another
  // member: the functional graph on S has a cycle.
  std::vector<z3::expr_vector> succ;
  for (std::size_t t = 0; t < m; ++t) succ.emplace_back(ctx);
  for (auto [a, b] : cg.directed) succ[a].push_back(sel[b]);
  for (const UEdge& e : g.undirected) {
    TxnId a = g.tx.txn_of[e.lo], b = g.tx.txn_of[e.hi];
    if (a == b) continue;
    succ[a].push_back(sel[b] && orient[e.var]);
    succ[b].push_back(sel[a] && !orient[e.var]);
  }
  z3::expr_vector any(ctx);
  for (std::size_t t = 0; t < m; ++t) {
    any.push_back(sel[t]);
    if (succ[t].empty()) s.add(!sel[t]);
    else s.add(z3::implies(sel[t], z3::mk_or(succ[t])));
  }
  s.add(z3::mk_or(any));
  v.work = 1;
  switch (impl_->check(s, deadline.interrupt)) {
    case z3::unsat: return v;
    case z3::unknown: {
      // Z3 reports a timeout or an interrupt as "canceled": name the cause we know.
      const char* why = deadline.expired();
      // Z3's timer may ring a moment before ours.
      if (*why == '\0' && deadline.timed() && Deadline::Clock::now() + std::chrono::milliseconds(100) >= deadline.at)
        why = "time limit";
      v.undecided = *why != '\0' ? std::string(why) : "solver unknown: " + s.reason_unknown();
      return v;
    }
    case z3::sat: break;
  }
  v.serializable = false;
  z3::model mdl = s.get_model();
  v.orientation.assign(g.vars, true);
  for (std::uint32_t k = 0; k < g.vars; ++k) v.orientation[k] = mdl.eval(orient[k], true).is_true();
  // Follow chosen successors inside S to a cycle, naming each edge by its events.
  std::vector<bool> in_s(m);
  for (std::size_t t = 0; t < m; ++t) in_s[t] = mdl.eval(sel[t], true).is_true();
  struct Step {
    TxnId to;
    EventIndex from_event, to_event;
  };
  std::vector<std::vector<Step>> out(m);
  for (auto [a, b] : g.directed) {
    TxnId x = g.tx.txn_of[a], y = g.tx.txn_of[b];
    if (x != y) out[x].push_back({y, a, b});
  }
  for (const UEdge& e : g.undirected) {
    TxnId x = g.tx.txn_of[e.lo], y = g.tx.txn_of[e.hi];
    if (x == y) continue;
    if (v.orientation[e.var]) out[x].push_back({y, e.lo, e.hi});
    else out[y].push_back({x, e.hi, e.lo});
  }
  TxnId start = 0;
  while (start < m && !in_s[start]) ++start;
  std::vector<int> seen_at(m, -1);
  std::vector<CycleEdge> walk;
  TxnId cur = start;
  while (seen_at[cur] == -1) {
    seen_at[cur] = static_cast<int>(walk.size());
    const Step* pick = nullptr;
    for (const Step& st : out[cur])
      if (in_s[st.to]) {
        pick = &st;
        break;
      }
    if (pick == nullptr) break;  // cannot happen in a model
    walk.push_back(CycleEdge{ref_of(g, cur), ref_of(g, pick->to), pick->from_event, pick->to_event});
    cur = pick->to;
  }
  if (seen_at[cur] != -1) v.cycle.assign(walk.begin() + seen_at[cur], walk.end());
  witness_from_orientation(tau, g, v);
  return v;
}


}  // namespace atomcheck::tso
