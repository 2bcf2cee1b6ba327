// Block-based Wang-Stoller checker (see the header): blocks, 2-blocks, feasibility by
// Theorem 5.1 or the exact grid search, and the UR-FW enumeration of §5.4.
#include "checkers/wang_stoller_block.hpp"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "checkers/view_serializability.hpp"
#include "checkers/wang_stoller_common.hpp"

namespace atomcheck {

namespace {

using ws::Model;

// One read or write of a transaction; a read-modify-write gives a read (sub 0) and a
// write (sub 1) at the same event, with nothing able to fall between them.
struct Access {
  bool write = false;
  EventIndex ev = kNoEvent;
  std::uint8_t sub = 0;
  VarId var = kNoId;
  bool final_write = false;  // the last write to var in its transaction
  bool uninit_read = false;  // a read with no earlier write to var in its transaction
};

std::vector<Access> accesses_of(const Model& m, TxnId t) {
  std::vector<Access> out;
  for (EventIndex i : m.txn_events[t]) {
    const Event& e = m.ev[i];
    if (e.op == Op::read || e.op == Op::rmw) out.push_back(Access{false, i, 0, e.target});
    if (e.op == Op::write || e.op == Op::commit || e.op == Op::rmw) out.push_back(Access{true, i, 1, e.target});
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    bool later_write = false, earlier_write = false;
    for (std::size_t j = 0; j < out.size(); ++j) {
      if (out[j].var != out[k].var || !out[j].write) continue;
      if (j > k) later_write = true;
      if (j < k) earlier_write = true;
    }
    out[k].final_write = out[k].write && !later_write;
    out[k].uninit_read = !out[k].write && !earlier_write;
  }
  return out;
}

const char* op_letter(const Access& a) { return a.write ? "W" : "R"; }

std::string describe(const Access& a) {
  return fmt::format("{}(v{})@{}", op_letter(a), a.var, a.ev);
}

enum class Feas : std::uint8_t { no, yes, unsure };

// One event of a pattern, on side 0 (transaction t) or 1 (transaction u).
struct PatEv {
  int side;
  Access a;
};

// Feasibility of interleavings of two transactions t and u (§5.1).
class Feasibility {
 public:
  Feasibility(const Model& m, TxnId t, TxnId u) : m_(m) {
    txn_[0] = t;
    txn_[1] = u;
    for (int s = 0; s < 2; ++s) {
      const auto& evs = m.txn_events[txn_[s]];
      for (EventIndex i : evs) {
        during_[s].push_back(ws::held(m, i));
        max_held_ = std::max(max_held_, during_[s].back().size());
      }
      // Locks held between events: after k events (0 < k < n).
      state_[s].resize(evs.size() + 1);
      for (std::size_t k = 1; k < evs.size(); ++k)
        for (const ws::Hold& h : m.after[evs[k - 1]]) state_[s][k].push_back(h.lock);
    }
    deadlock_ = potential_deadlock();
  }

  bool potential_deadlock() const {
    auto locks = [&](EventIndex i) {
      std::vector<LockId> out;
      for (const ws::Hold& h : m_.before[i]) out.push_back(h.lock);
      return out;
    };
    for (EventIndex a : m_.txn_events[txn_[0]]) {
      if (m_.ev[a].op != Op::acquire) continue;
      std::vector<LockId> ha = locks(a);
      for (EventIndex b : m_.txn_events[txn_[1]]) {
        if (m_.ev[b].op != Op::acquire) continue;
        std::vector<LockId> hb = locks(b);
        LockId l2 = m_.ev[a].target, l1 = m_.ev[b].target;
        if (l1 == l2) continue;
        if (std::find(ha.begin(), ha.end(), l1) == ha.end() || std::find(hb.begin(), hb.end(), l2) == hb.end())
          continue;
        bool gated = false;
        for (LockId g : ha)
          if (g != l1 && std::find(hb.begin(), hb.end(), g) != hb.end()) gated = true;
        if (!gated) return true;
      }
    }
    return false;
  }

  // Can the pattern's events occur in the given order in some feasible interleaving?
  Feas check(const std::vector<PatEv>& order) const {
    // Program order of each side, and nothing between the two halves of an rmw.
    for (std::size_t i = 0; i < order.size(); ++i)
      for (std::size_t j = i + 1; j < order.size(); ++j) {
        if (order[i].side != order[j].side) continue;
        const Access &a = order[i].a, &b = order[j].a;
        if (a.ev > b.ev || (a.ev == b.ev && a.sub > b.sub)) return Feas::no;
        if (a.ev == b.ev)
          for (std::size_t k = i + 1; k < j; ++k)
            if (order[k].side != order[i].side) return Feas::no;
      }
    bool thm51 = theorem_5_1(order);
    if (!deadlock_) return thm51 ? Feas::yes : Feas::no;
    if (max_held_ <= 2) return grid(order) ? Feas::yes : Feas::no;
    return thm51 ? Feas::unsure : Feas::no;
  }

  bool deadlock() const { return deadlock_; }

 private:
  // Theorem 5.1 for every event lying between two consecutive events of the other side.
  bool theorem_5_1(const std::vector<PatEv>& order) const {
    for (std::size_t i = 0; i < order.size(); ++i)
      for (std::size_t j = i + 1; j < order.size(); ++j) {
        if (order[i].side != order[j].side) continue;
        std::vector<LockId> h12 = ws::held_between(m_, order[i].a.ev, order[j].a.ev);
        for (std::size_t k = i + 1; k < j; ++k)
          if (order[k].side != order[i].side && ws::intersects(h12, ws::held(m_, order[k].a.ev))) return false;
      }
    return true;
  }

  // Exact: is there a lock-respecting interleaving of the two transactions (both run to
  // their end) placing the pattern's events in order? Reachability over (i, j) = events
  // of t and u done; each pattern event of u must run while t has done a bounded range.
  bool grid(const std::vector<PatEv>& order) const {
    const auto& te = m_.txn_events[txn_[0]];
    const auto& ue = m_.txn_events[txn_[1]];
    const std::size_t n = te.size(), nu = ue.size();
    std::vector<std::size_t> lo(nu, 0), hi(nu, n);
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (order[k].side != 1) continue;
      std::size_t j = m_.pos_in_txn[order[k].a.ev];
      for (std::size_t p = 0; p < order.size(); ++p) {
        if (order[p].side != 0) continue;
        std::size_t i = m_.pos_in_txn[order[p].a.ev];
        if (p < k) lo[j] = std::max(lo[j], i + 1);
        else hi[j] = std::min(hi[j], i);
      }
    }
    auto held_state = [&](int s, std::size_t k, std::size_t len) -> const std::vector<LockId>& {
      static const std::vector<LockId> none;
      return (k == 0 || k == len) ? none : state_[s][k];
    };
    std::vector<char> reach((n + 1) * (nu + 1), 0);
    auto at = [&](std::size_t i, std::size_t j) -> char& { return reach[i * (nu + 1) + j]; };
    at(0, 0) = 1;
    for (std::size_t i = 0; i <= n; ++i)
      for (std::size_t j = 0; j <= nu; ++j) {
        if (!at(i, j)) continue;
        if (i < n && !ws::intersects(during_[0][i], held_state(1, j, nu))) at(i + 1, j) = 1;
        if (j < nu && i >= lo[j] && i <= hi[j] && !ws::intersects(during_[1][j], held_state(0, i, n)))
          at(i, j + 1) = 1;
      }
    return at(n, nu);
  }

  const Model& m_;
  TxnId txn_[2];
  std::vector<std::vector<LockId>> during_[2];
  std::vector<std::vector<LockId>> state_[2];
  std::size_t max_held_ = 0;
  bool deadlock_ = false;
};

// A finding: a pattern that makes the pair (or the set) not atomic.
struct Finding {
  Feas how = Feas::no;  // yes: definite; unsure
  WangStollerBlock::Stage stage = WangStollerBlock::Stage::none;
  std::string note;
  Blame blame;
  // A finding exists (an empty Finding means "nothing found"); not std::optional, whose
  // string member trips g++ 12's -Wmaybe-uninitialized under the sanitizers.
  explicit operator bool() const { return how != Feas::no; }
};

// UP1-UP4 for e1, e2 (a block of one transaction) and e3 (of the other).
const char* unserializable_pattern(const Access& e1, const Access& e2, const Access& e3) {
  if (e1.write && e2.write && !e3.write) return "UP1";
  if (!e1.write && !e2.write && e3.write) return "UP2";
  if (e1.write && !e2.write && e3.write) return "UP3";
  if (!e1.write && e2.write && e3.write && e3.final_write) return "UP4";
  return nullptr;
}

// The blocks of a transaction's projection on one variable (B1): pairs of indices into
// `acc`, the second -1 for the dummy of a lone access.
std::vector<std::pair<int, int>> blocks_of(const std::vector<Access>& acc) {
  std::vector<std::pair<int, int>> out;
  const int k = static_cast<int>(acc.size());
  if (k == 1) out.push_back({0, -1});
  for (int j = 1; j < k; ++j) {
    int last_w = -1, last_r = -1;
    for (int i = 0; i < j; ++i) (acc[i].write ? last_w : last_r) = i;
    if (last_w >= 0) out.push_back({last_w, j});
    else if (last_r >= 0) out.push_back({last_r, j});
    if (acc[j].final_write)
      for (int i = 0; i < j; ++i)
        if (acc[i].uninit_read) out.push_back({i, j});
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct PairChecker {
  const Model& m;
  TxnId t, u;
  Feasibility feas;
  std::vector<Access> at, au;
  Finding unsure;  // the first unsure pattern, kept while looking for definite ones

  PairChecker(const Model& model, TxnId t_, TxnId u_)
      : m(model), t(t_), u(u_), feas(model, t_, u_), at(accesses_of(model, t_)), au(accesses_of(model, u_)) {}

  Blame blame_for(int side, const Access& second, const Access& between) const {
    TxnId x = side == 0 ? t : u;
    return Blame{TxnRef{m.tx.txns[x].thread, m.tx.txns[x].first}, between.ev, second.ev};
  }

  // Records a feasible pattern: returns the definite finding, keeps the first unsure one.
  Finding consider(Feas f, Finding found) {
    if (f == Feas::no) return Finding{};
    found.how = f;
    if (f == Feas::yes) return found;
    if (!unsure) unsure = found;
    return Finding{};
  }

  Finding one_var() {
    std::vector<VarId> vars;
    for (const Access& a : at)
      for (const Access& b : au)
        if (a.var == b.var) vars.push_back(a.var);
    std::sort(vars.begin(), vars.end());
    vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
    for (VarId x : vars) {
      std::vector<Access> px[2];
      for (const Access& a : at)
        if (a.var == x) px[0].push_back(a);
      for (const Access& a : au)
        if (a.var == x) px[1].push_back(a);
      auto bl0 = blocks_of(px[0]), bl1 = blocks_of(px[1]);
      for (int side = 0; side < 2; ++side) {
        const auto& mine = side == 0 ? bl0 : bl1;
        const auto& theirs = side == 0 ? bl1 : bl0;
        const auto& pm = px[side];
        const auto& po = px[1 - side];
        for (auto [i1, i2] : mine) {
          if (i2 < 0) continue;
          for (auto [j1, j2] : theirs)
            for (int j : {j1, j2}) {
              if (j < 0) continue;
              const char* up = unserializable_pattern(pm[i1], pm[i2], po[j]);
              if (!up) continue;
              // The other event of the second block sits where its transaction's order
              // puts it; it is tried in every such place, since it may make the pattern
              // infeasible or (UP1: a write of its own between the other's first write
              // and its read) not the pattern at all.
              int partner = j == j1 ? j2 : j1;
              std::vector<std::vector<PatEv>> orders;
              std::vector<PatEv> base = {{side, pm[i1]}, {1 - side, po[j]}, {side, pm[i2]}};
              if (partner < 0) {
                orders.push_back(base);
              } else {
                std::size_t from = partner < j ? 0 : 2, to = partner < j ? 1 : 3;
                for (std::size_t slot = from; slot <= to; ++slot) {
                  std::vector<PatEv> o = base;
                  o.insert(o.begin() + static_cast<std::ptrdiff_t>(slot), PatEv{1 - side, po[partner]});
                  bool between_e1_e3 = slot == 1;
                  if (std::string_view(up) == "UP1" && po[partner].write && between_e1_e3) continue;
                  orders.push_back(std::move(o));
                }
              }
              Feas f = Feas::no;
              for (const auto& o : orders) {
                Feas g = feas.check(o);
                if (g == Feas::yes) {
                  f = g;
                  break;
                }
                if (g == Feas::unsure) f = g;
              }
              TxnId a = side == 0 ? t : u, b = side == 0 ? u : t;
              Finding found;
              found.stage = WangStollerBlock::Stage::one_var;
              found.note = fmt::format("{} on v{}: {} of {} can fall between {} and {} of {}", up, x,
                                       describe(po[j]), ws::describe_txn(m, b), describe(pm[i1]),
                                       describe(pm[i2]), ws::describe_txn(m, a));
              found.blame = blame_for(side, pm[i2], po[j]);
              if (auto r = consider(f, found)) return r;
            }
        }
      }
    }
    return Finding{};
  }

  // UR(t) (first uninitialized read per variable) and FW(t), in transaction order.
  static std::vector<Access> ur_fw(const std::vector<Access>& acc) {
    std::vector<Access> out;
    std::vector<VarId> seen_ur;
    for (const Access& a : acc) {
      if (a.uninit_read && std::find(seen_ur.begin(), seen_ur.end(), a.var) == seen_ur.end()) {
        seen_ur.push_back(a.var);
        out.push_back(a);
      } else if (a.final_write) {
        out.push_back(a);
      }
    }
    return out;
  }

  // Is the four-event trace view-equivalent to neither serial order of its two halves?
  static bool unserializable4(const std::vector<PatEv>& order) {
    auto flow = [](const std::vector<PatEv>& seq) {
      // per event (by side and index in seq's own order): writer identity; then finals
      std::vector<std::pair<std::pair<int, EventIndex>, std::pair<int, EventIndex>>> rf;
      std::vector<std::pair<VarId, std::pair<int, EventIndex>>> last;
      for (const PatEv& p : seq) {
        std::pair<int, EventIndex> w{-1, kNoEvent};
        for (auto& [v, who] : last)
          if (v == p.a.var) w = who;
        if (!p.a.write) rf.push_back({{p.side, p.a.ev * 2 + p.a.sub}, w});
        if (p.a.write) {
          bool found = false;
          for (auto& [v, who] : last)
            if (v == p.a.var) {
              who = {p.side, p.a.ev * 2 + p.a.sub};
              found = true;
            }
          if (!found) last.push_back({p.a.var, {p.side, p.a.ev * 2 + p.a.sub}});
        }
      }
      std::sort(rf.begin(), rf.end());
      std::sort(last.begin(), last.end());
      return std::make_pair(rf, last);
    };
    auto mine = flow(order);
    for (int first = 0; first < 2; ++first) {
      std::vector<PatEv> serial;
      for (int s : {first, 1 - first})
        for (const PatEv& p : order)
          if (p.side == s) serial.push_back(p);
      if (flow(serial) == mine) return false;
    }
    return true;
  }

  Finding two_blocks() {
    std::vector<Access> et = ur_fw(at), eu = ur_fw(au);
    auto conflict = [](const Access& a, const Access& b) { return a.var == b.var && (a.write || b.write); };
    for (std::size_t a1 = 0; a1 < et.size(); ++a1)
      for (std::size_t a2 = a1 + 1; a2 < et.size(); ++a2) {
        if (et[a1].var == et[a2].var) continue;
        for (std::size_t b1 = 0; b1 < eu.size(); ++b1)
          for (std::size_t b2 = b1 + 1; b2 < eu.size(); ++b2) {
            if (eu[b1].var == eu[b2].var) continue;
            const Access* e[2] = {&et[a1], &et[a2]};
            const Access* f[2] = {&eu[b1], &eu[b2]};
            int conflicts = 0;
            for (const Access* x : e)
              for (const Access* y : f) conflicts += conflict(*x, *y);
            if (conflicts < 2) continue;
            // The four non-serial orders: positions of t's two events among four slots.
            static const int kSlots[4][2] = {{0, 2}, {0, 3}, {1, 2}, {1, 3}};
            for (const auto& s : kSlots) {
              std::vector<PatEv> order;
              int ti = 0, ui = 0;
              for (int slot = 0; slot < 4; ++slot) {
                if (slot == s[0] || slot == s[1]) order.push_back({0, *e[ti++]});
                else order.push_back({1, *f[ui++]});
              }
              if (!unserializable4(order)) continue;
              Feas fz = feas.check(order);
              Finding found;
              found.stage = WangStollerBlock::Stage::two_block;
              std::string seq;
              for (const PatEv& p : order)
                seq += fmt::format("{}{} {}", seq.empty() ? "" : " ", p.side == 0 ? "t" : "u", describe(p.a));
              found.note = fmt::format("2-blocks of t = {} and u = {} interleave unserializably as {}",
                                       ws::describe_txn(m, t), ws::describe_txn(m, u), seq);
              // Blame t when one of u's events falls between t's two (every order but
              // u t t u, where u's two enclose t's).
              int side = (s[0] == 1 && s[1] == 2) ? 1 : 0;
              const Access* between = &order[static_cast<std::size_t>(side == 0 ? s[0] + 1 : 1)].a;
              const Access* second = side == 0 ? e[1] : f[1];
              found.blame = blame_for(side, *second, *between);
              if (auto r = consider(fz, found)) return r;
            }
          }
      }
    return Finding{};
  }
};

}  // namespace

std::vector<WsBlock> ws_blocks(std::span<const Event> events, TxnId t, VarId x) {
  Model m = ws::build_model(events);
  std::vector<WsBlock> out;
  if (t >= m.txn_events.size()) return out;
  std::vector<Access> px;
  for (const Access& a : accesses_of(m, t))
    if (a.var == x) px.push_back(a);
  for (auto [i, j] : blocks_of(px)) {
    WsBlock b;
    b.op1 = px[static_cast<std::size_t>(i)].write ? 'W' : 'R';
    b.fw1 = px[static_cast<std::size_t>(i)].final_write;
    b.h1 = ws::held(m, px[static_cast<std::size_t>(i)].ev);
    if (j >= 0) {
      const Access& e2 = px[static_cast<std::size_t>(j)];
      b.op2 = e2.write ? 'W' : 'R';
      b.fw2 = e2.final_write;
      b.h2 = ws::held(m, e2.ev);
      b.h12 = ws::held_between(m, px[static_cast<std::size_t>(i)].ev, e2.ev);
    }
    if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  }
  return out;
}

Verdict WangStollerBlock::verdict() {
  Verdict v;
  v.checker = "ws-block";
  v.answers_serializability = true;
  stage_ = Stage::none;
  unsure_ = false;
  // Pairs of transactions are quadratic and the UR-FW enumeration exponential (and
  // recursive): past this size the answer is undecided, never a crash or an hour.
  constexpr std::size_t kMaxEvents = 5000;
  if (events_.size() > kMaxEvents) {
    v.undecided = fmt::format("{}the trace has {} events, more than the {} the block-based algorithm examines",
                              Verdict::kInputTooLarge, events_.size(), kMaxEvents);
    return v;
  }
  Model m = ws::build_model(events_);
  v.open_at_end = m.tx.any_open_at_end;
  Finding definite, unsure;
  std::string undecided;  // the UR-FW enumeration stopped: why
  const TxnId nt = static_cast<TxnId>(m.txn_events.size());
  for (TxnId t = 0; t < nt && !definite; ++t)
    for (TxnId u = t + 1; u < nt && !definite; ++u) {
      if (m.tx.txns[t].thread == m.tx.txns[u].thread) continue;
      PairChecker pc(m, t, u);
      if (pc.at.empty() || pc.au.empty()) continue;
      if (use_one_var) definite = pc.one_var();
      if (!definite && use_two_blocks) definite = pc.two_blocks();
      if (!unsure && pc.unsure) unsure = pc.unsure;
    }
  if (!definite && use_ur_fw) {
    // UR-FW(T): synchronization, uninitialized reads and final writes only.
    std::vector<Event> reduced;
    std::vector<EventIndex> origin;
    std::vector<char> keep_read(m.ev.size(), 0), keep_write(m.ev.size(), 0);
    for (TxnId t = 0; t < nt; ++t)
      for (const Access& a : accesses_of(m, t)) {
        if (a.uninit_read) keep_read[a.ev] = 1;
        if (a.final_write) keep_write[a.ev] = 1;
      }
    for (EventIndex i = 0; i < m.ev.size(); ++i) {
      Event e = m.ev[i];
      if (is_access(e.op)) {
        bool r = keep_read[i], w = keep_write[i];
        if (!r && !w) continue;
        if (e.op == Op::rmw && !(r && w)) e.op = r ? Op::read : Op::write;
      }
      reduced.push_back(e);
      origin.push_back(i);
    }
    // The paper's optimization, made exact: threads that share no variable and do not
    // fork or join each other fall into separate groups, enumerated one at a time
    // (a group's interleaving runs with every other group before or after it, and the
    // serial orders of the groups combine freely).
    std::vector<ThreadId> parent;
    auto find = [&](ThreadId x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    ThreadId max_thread = 0;
    for (const Event& e : reduced) {
      max_thread = std::max(max_thread, e.thread);
      if (is_thread_op(e.op) && e.target != kNoId) max_thread = std::max(max_thread, e.target);
    }
    parent.resize(static_cast<std::size_t>(max_thread) + 1);
    for (ThreadId x = 0; x <= max_thread; ++x) parent[x] = x;
    std::vector<std::pair<VarId, ThreadId>> var_thread;
    for (const Event& e : reduced) {
      if (is_thread_op(e.op) && e.target != kNoId) parent[find(e.thread)] = find(e.target);
      if (is_access(e.op)) var_thread.push_back({e.target, e.thread});
    }
    std::sort(var_thread.begin(), var_thread.end());
    for (std::size_t k = 1; k < var_thread.size(); ++k)
      if (var_thread[k].first == var_thread[k - 1].first) parent[find(var_thread[k].second)] = find(var_thread[k - 1].second);
    std::vector<ThreadId> roots;
    for (const Event& e : reduced)
      if (is_access(e.op)) roots.push_back(find(e.thread));
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    for (ThreadId root : roots) {
      std::vector<Event> group;
      std::vector<EventIndex> group_origin;
      for (std::size_t k = 0; k < reduced.size(); ++k)
        if (find(reduced[k].thread) == root) {
          group.push_back(reduced[k]);
          group_origin.push_back(origin[k]);
        }
      InterleavingLimits lim;
      lim.max_nodes = ur_fw_budget;
      lim.view.deadline = options_.deadline;
      InterleavingResult r = every_interleaving_view_serializable(group, lim);
      if (r.all_serializable == Tri::no) {
        Finding f;
        f.how = Feas::yes;
        f.stage = Stage::ur_fw;
        std::string seq;
        for (EventIndex k : r.witness)
          if (is_access(group[k].op))
            seq += (seq.empty() ? "" : " ") + ws::describe(m.ev[group_origin[k]], group_origin[k]);
        f.note = "UR-FW interleaving not view serializable: " + seq;
        definite = f;
        break;
      }
      // The enumeration is the exact judge of the UR-FW stage: stopped, it knows nothing.
      if (r.all_serializable == Tri::unknown && undecided.empty()) undecided = "UR-FW: " + r.undecided;
    }
  }
  if (definite) {
    v.serializable = false;
    v.note = definite.note;
    stage_ = definite.stage;
    if (definite.stage != Stage::ur_fw) v.blamed.push_back(definite.blame);
  } else if (unsure) {
    v.serializable = false;
    unsure_ = true;
    stage_ = unsure.stage;
    v.note = "unsure: " + unsure.note + " (potential deadlock, more than two locks held)";
    v.blamed.push_back(unsure.blame);
  } else if (!undecided.empty()) {
    v.undecided = undecided;
    stage_ = Stage::ur_fw;
  }
  if (v.open_at_end) {
    if (!v.note.empty()) v.note += "; ";
    v.note += "a transaction was still open at the end of the trace; judged as ended there";
  }
  return v;
}

}  // namespace atomcheck
