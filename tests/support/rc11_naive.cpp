// The naive RC11 and SC enumerators of rc11_naive.hpp: every rf map, every mo order per
// location, every relation a 64x64 boolean matrix, every axiom the paper's formula
// written out with matrix union, composition and transitive closure. Slow on purpose
// where speed would need reasoning that could be wrong; docs/rc11-oracle.md has the cost.
#include "tests/support/rc11_naive.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace rc11naive {
namespace {

// ---- relations over at most 64 events: row a holds the b with (a, b) in the relation ----

constexpr int kMaxEvents = 64;
using Set = std::uint64_t;

Set bit(int i) { return Set{1} << i; }

struct Rel {
  std::array<Set, kMaxEvents> row{};
  bool has(int a, int b) const { return (row[a] >> b & 1) != 0; }
  void add(int a, int b) { row[a] |= bit(b); }
};

Rel id(Set s) {  // [S]
  Rel r;
  for (int i = 0; i < kMaxEvents; ++i)
    if (s & bit(i)) r.add(i, i);
  return r;
}
Rel operator|(Rel a, const Rel& b) {
  for (int i = 0; i < kMaxEvents; ++i) a.row[i] |= b.row[i];
  return a;
}
Rel operator&(Rel a, const Rel& b) {
  for (int i = 0; i < kMaxEvents; ++i) a.row[i] &= b.row[i];
  return a;
}
Rel minus(Rel a, const Rel& b) {
  for (int i = 0; i < kMaxEvents; ++i) a.row[i] &= ~b.row[i];
  return a;
}
Rel seq(const Rel& a, const Rel& b) {  // a;b
  Rel out;
  for (int i = 0; i < kMaxEvents; ++i)
    for (Set m = a.row[i]; m != 0; m &= m - 1) out.row[i] |= b.row[__builtin_ctzll(m)];
  return out;
}
Rel inverse(const Rel& a) {
  Rel out;
  for (int i = 0; i < kMaxEvents; ++i)
    for (Set m = a.row[i]; m != 0; m &= m - 1) out.add(__builtin_ctzll(m), i);
  return out;
}
Rel plus(Rel a) {  // a+ (Warshall, over the events that the relation touches)
  Set nodes = 0;
  for (int i = 0; i < kMaxEvents; ++i)
    if (a.row[i] != 0) nodes |= bit(i) | a.row[i];
  for (Set ks = nodes; ks != 0; ks &= ks - 1) {
    int k = __builtin_ctzll(ks);
    for (Set is = nodes; is != 0; is &= is - 1) {
      int i = __builtin_ctzll(is);
      if (a.has(i, k)) a.row[i] |= a.row[k];
    }
  }
  return a;
}
Rel opt(const Rel& a, Set events) { return a | id(events); }  // a? over the events
bool irreflexive(const Rel& a) {
  for (int i = 0; i < kMaxEvents; ++i)
    if (a.has(i, i)) return false;
  return true;
}
bool acyclic(const Rel& a) { return irreflexive(plus(a)); }
bool empty(const Rel& a) {
  for (Set s : a.row)
    if (s != 0) return false;
  return true;
}

// ---- events: fixed per program, except that a CAS's write exists only if it succeeds ----

struct Event {
  int thread = -1;  // -1: the initialisation write of `loc`
  int instr = -1;
  bool read = false, write = false, fence = false;
  int loc = -1;  // -1: a fence
};

struct Skeleton {
  std::vector<Event> ev;
  // Per thread, per instruction: its read, write and fence events (-1: none).
  std::vector<std::vector<std::array<int, 3>>> of;
  std::vector<int> reads;
  std::vector<std::vector<int>> writes;  // per location, its init write first
};

Skeleton skeleton(const Program& p) {
  Skeleton s;
  auto add = [&](Event e) {
    s.ev.push_back(e);
    return static_cast<int>(s.ev.size()) - 1;
  };
  s.writes.resize(p.init.size());
  for (std::size_t v = 0; v < p.init.size(); ++v) {
    Event e;
    e.write = true;
    e.loc = static_cast<int>(v);
    s.writes[v].push_back(add(e));
  }
  s.of.resize(p.threads.size());
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    for (std::size_t i = 0; i < p.threads[t].code.size(); ++i) {
      const Instr& in = p.threads[t].code[i];
      Event e;
      e.thread = static_cast<int>(t);
      e.instr = static_cast<int>(i);
      std::array<int, 3> ids{-1, -1, -1};
      if (in.kind == Kind::fence) {
        e.fence = true;
        ids[2] = add(e);
      } else {
        e.loc = in.var;
        // An RMW is two events, R then W, related by rmw ⊆ po (§3, execution graphs).
        if (in.kind != Kind::store) {
          Event r = e;
          r.read = true;
          ids[0] = add(r);
          s.reads.push_back(ids[0]);
        }
        if (in.kind != Kind::load) {
          Event w = e;
          w.write = true;
          ids[1] = add(w);
          s.writes[static_cast<std::size_t>(in.var)].push_back(ids[1]);
        }
      }
      s.of[t].push_back(ids);
    }
  }
  if (s.ev.size() > kMaxEvents) throw std::invalid_argument("rc11naive: more than 64 events");
  return s;
}

// ---- values: given rf, run each thread as far as the values it reads are known ----

struct Values {
  std::vector<std::int64_t> val;   // per event: the value read or written
  std::vector<bool> exists;        // false: the write of a CAS that failed
  std::vector<bool> failed_cas;    // per read event: the read of a failed CAS
  std::vector<std::vector<std::int64_t>> regs;
};

std::int64_t operand(const Operand& o, const std::vector<std::int64_t>& regs) {
  return o.is_reg ? regs[static_cast<std::size_t>(o.value)] : o.value;
}

// False when the rf map is not an execution: a read reads a CAS's write although that
// CAS failed, or values depend on themselves around a po ∪ rf cycle (which both models
// forbid anyway: RC11's no-thin-air, SC's acyclicity). Values are found by a fixpoint
// over all events, not thread by thread, so that a write whose value does not depend on
// an unknown read (LB's constant stores) is known even after that read: the mutant
// without no-thin-air then sees LB's cycle.
bool resolve(const Program& p, const Skeleton& s, const std::vector<int>& rf_of, Values& out) {
  std::size_t n = s.ev.size();
  out.val.assign(n, 0);
  out.exists.assign(n, true);
  out.failed_cas.assign(n, false);
  out.regs.assign(p.threads.size(), {});
  std::vector<bool> known(n, false);
  for (std::size_t v = 0; v < p.init.size(); ++v) {
    out.val[static_cast<std::size_t>(s.writes[v][0])] = p.init[v];
    known[static_cast<std::size_t>(s.writes[v][0])] = true;
  }
  auto learn = [&](std::size_t e, std::int64_t value) {
    out.val[e] = value;
    known[e] = true;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t t = 0; t < p.threads.size(); ++t) {
      auto& regs = out.regs[t];
      std::vector<bool> reg_known(static_cast<std::size_t>(p.threads[t].regs), true);
      regs.assign(reg_known.size(), 0);
      for (std::size_t i = 0; i < p.threads[t].code.size(); ++i) {
        const Instr& in = p.threads[t].code[i];
        auto [r, w, f] = s.of[t][i];
        bool old_known = true;
        std::int64_t old = 0;
        if (r >= 0) {
          auto ri = static_cast<std::size_t>(r);
          auto src = static_cast<std::size_t>(rf_of[ri]);
          if (!out.exists[src]) return false;
          old_known = known[src];
          old = out.val[src];
          if (old_known && !known[ri]) {
            learn(ri, old);
            changed = true;
          }
          if (in.reg >= 0) {
            regs[static_cast<std::size_t>(in.reg)] = old;
            reg_known[static_cast<std::size_t>(in.reg)] = old_known;
          }
        }
        if (w < 0) continue;
        auto wi = static_cast<std::size_t>(w);
        if (known[wi] || !out.exists[wi]) continue;
        bool arg_known = !in.operand.is_reg || reg_known[static_cast<std::size_t>(in.operand.value)];
        std::int64_t arg = operand(in.operand, regs);
        bool before = known[wi];
        switch (in.kind) {
          case Kind::store:
          case Kind::exchange:
            if (arg_known) learn(wi, arg);
            break;
          case Kind::fetch_add:
            if (arg_known && old_known) learn(wi, old + arg);
            break;
          case Kind::cas:
            // A CAS reading `expected` is an RMW; otherwise it is a lone read (§3).
            if (!old_known) break;
            if (old != in.expected) {
              out.exists[wi] = false;
              out.failed_cas[static_cast<std::size_t>(r)] = true;
              changed = true;
            } else if (arg_known) {
              learn(wi, arg);
            }
            break;
          default: break;
        }
        changed = changed || known[wi] != before;
      }
    }
  }
  for (std::size_t e = 0; e < n; ++e)
    if (!known[e] && out.exists[e] && !s.ev[e].fence) return false;
  return true;
}

// ---- the relations of one rf choice that do not depend on mo ----

bool at_least_rel(Order o) { return o == Order::rel || o == Order::acq_rel || o == Order::sc; }
bool at_least_acq(Order o) { return o == Order::acq || o == Order::acq_rel || o == Order::sc; }
// The modes of an RMW's two events: the read keeps the acquire half, the write the release half.
Order read_half(Order o) { return o == Order::rel ? Order::rlx : o == Order::acq_rel ? Order::acq : o; }
Order write_half(Order o) { return o == Order::acq ? Order::rlx : o == Order::acq_rel ? Order::rel : o; }

struct Base {
  Set E = 0, R = 0, W = 0, F = 0, Esc = 0, Fsc = 0, Erel = 0, Eacq = 0;
  Rel po, rf, rmw, sameloc, hb;
};

Base base_relations(const Program& p, const Skeleton& s, const std::vector<int>& rf_of,
                    const Values& v, const Axioms& ax) {
  Base b;
  int n = static_cast<int>(s.ev.size());
  for (int e = 0; e < n; ++e) {
    const Event& ev = s.ev[static_cast<std::size_t>(e)];
    if (!v.exists[static_cast<std::size_t>(e)]) continue;
    b.E |= bit(e);
    if (ev.read) b.R |= bit(e);
    if (ev.write) b.W |= bit(e);
    if (ev.fence) b.F |= bit(e);
    if (ev.thread < 0) continue;  // initialisation writes are non-atomic: no mode
    const Instr& in = p.threads[static_cast<std::size_t>(ev.thread)].code[static_cast<std::size_t>(ev.instr)];
    Order o = in.order;
    if (ev.read && v.failed_cas[static_cast<std::size_t>(e)]) o = in.failure;
    else if (ev.read && in.kind != Kind::load) o = read_half(o);
    else if (ev.write && in.kind != Kind::store) o = write_half(o);
    if (o == Order::sc) b.Esc |= bit(e);
    if (at_least_rel(o)) b.Erel |= bit(e);
    if (at_least_acq(o)) b.Eacq |= bit(e);
  }
  b.Fsc = b.F & b.Esc;
  for (int a = 0; a < n; ++a) {
    for (int c = 0; c < n; ++c) {
      if (!(b.E & bit(a)) || !(b.E & bit(c)) || a == c) continue;
      const Event& x = s.ev[static_cast<std::size_t>(a)];
      const Event& y = s.ev[static_cast<std::size_t>(c)];
      // Initialisation writes are po-before every other event (§3, execution graphs).
      bool po = (x.thread < 0 && y.thread >= 0) ||
                (x.thread >= 0 && x.thread == y.thread &&
                 (x.instr < y.instr || (x.instr == y.instr && x.read && y.write)));
      if (po) b.po.add(a, c);
      if (x.loc >= 0 && x.loc == y.loc) b.sameloc.add(a, c);
    }
    if ((b.E & bit(a)) && s.ev[static_cast<std::size_t>(a)].loc >= 0) b.sameloc.add(a, a);
  }
  for (int r : s.reads) b.rf.add(rf_of[static_cast<std::size_t>(r)], r);
  for (const auto& thread : s.of)
    for (auto [r, w, f] : thread)
      if (r >= 0 && w >= 0 && (b.E & bit(w))) b.rmw.add(r, w);
  // §3, derived relations: rs = [W];po|loc?;[W⊒rlx];(rf;rmw)*  (every write is ⊒rlx here).
  Rel po_loc = b.po & b.sameloc;
  Rel rs = id(b.W) | seq(seq(id(b.W), po_loc), id(b.W));
  if (ax.cpp20_rs) rs = id(b.W);
  rs = seq(rs, opt(plus(seq(b.rf, b.rmw)), b.E));
  // sw = [E⊒rel];([F];po)?;rs;rf;[R⊒rlx];(po;[F])?;[E⊒acq]
  Rel sw = seq(id(b.Erel), opt(seq(id(b.F), b.po), b.E));
  sw = seq(seq(seq(sw, rs), b.rf), id(b.R));
  sw = seq(seq(sw, opt(seq(b.po, id(b.F)), b.E)), id(b.Eacq));
  if (!ax.sw) sw = Rel{};
  b.hb = plus(b.po | sw);  // hb = (po ∪ sw)+
  return b;
}

// ---- the axioms, given mo (§3, the definition of RC11-consistency; the section numbers
// are from memory, docs/rc11-oracle.md says what was checked against what) ----

// kat/rc11.kat's psc without its fence-only parts (those are psc_F).
Rel kater_psc_base(const Base& b, const Rel& mo, const Rel& rb) {
  Rel sc = id(b.Esc);
  Rel scb = b.po | b.rf | mo | rb;
  Rel left = opt(seq(id(b.F), b.hb), b.E), right = opt(seq(b.hb, id(b.F)), b.E);
  return seq(seq(seq(seq(sc, b.po), b.hb), b.po), sc) | seq(seq(seq(seq(sc, left), scb), right), sc) |
         seq(seq(sc, b.po), sc);
}

bool rc11_consistent(const Base& b, const Rel& mo, const Axioms& ax) {
  Rel rb = seq(inverse(b.rf), mo);       // rb = rf⁻¹;mo
  Rel eco = plus(b.rf | mo | rb);        // eco = (rf ∪ mo ∪ rb)+
  if (ax.coherence && !irreflexive(seq(b.hb, opt(eco, b.E)))) return false;  // hb;eco? irreflexive
  if (ax.atomicity && !empty(b.rmw & seq(rb, mo))) return false;           // rmw ∩ (rb;mo) = ∅
  if (ax.sc) {
    // scb = po ∪ po|≠loc;hb;po|≠loc ∪ hb|loc ∪ mo ∪ rb
    Rel po_nloc = minus(b.po, b.sameloc);
    Rel scb = b.po | seq(seq(po_nloc, b.hb), po_nloc) | (b.hb & b.sameloc) | mo | rb;
    if (ax.c11_scb) scb = scb | b.hb;
    // psc_base = ([E_sc] ∪ [F_sc];hb?);scb;([E_sc] ∪ hb?;[F_sc])
    Rel hb_opt = opt(b.hb, b.E);
    Rel left = id(b.Esc) | seq(id(b.Fsc), hb_opt);
    Rel right = id(b.Esc) | seq(hb_opt, id(b.Fsc));
    Rel psc_base = seq(seq(left, scb), right);
    // psc_F = [F_sc];(hb ∪ hb;eco;hb);[F_sc]
    Rel middle = ax.psc_f_eco ? b.hb | seq(seq(b.hb, eco), b.hb) : b.hb;
    Rel psc_f = seq(seq(id(b.Fsc), middle), id(b.Fsc));
    if (ax.kater_psc) psc_base = kater_psc_base(b, mo, rb);
    if (!acyclic(psc_base | psc_f)) return false;
  }
  return !ax.no_thin_air || acyclic(b.po | b.rf);  // po ∪ rf acyclic
}

bool sc_consistent(const Base& b, const Rel& mo) {
  Rel rb = seq(inverse(b.rf), mo);
  return acyclic(b.po | b.rf | mo | rb) && empty(b.rmw & seq(rb, mo));
}

// ---- the enumeration ----

using Check = std::function<bool(const Base&, const Rel&)>;

std::uint64_t factorial(std::size_t n) { return n <= 1 ? 1 : n * factorial(n - 1); }

// The part of every completion's mo that is fixed once `placed[l]` are the first writes
// of location l in mo order (after the initialisation write, which coherence puts first
// since it is po-before them all): the placed ones in order, each before every write
// not yet placed.
Rel partial_mo(const Skeleton& s, const std::vector<std::vector<int>>& placed, const std::vector<std::vector<int>>& rest) {
  Rel mo;
  for (std::size_t l = 0; l < placed.size(); ++l) {
    std::vector<int> chain{s.writes[l][0]};
    chain.insert(chain.end(), placed[l].begin(), placed[l].end());
    for (std::size_t i = 0; i < chain.size(); ++i) {
      for (std::size_t j = i + 1; j < chain.size(); ++j) mo.add(chain[i], chain[j]);
      for (int u : rest[l]) mo.add(chain[i], u);
    }
  }
  return mo;
}

// Calls `check` on every mo: per location a total order of its existing writes, the
// initialisation write first. With `prune`, mo is built one write at a time and `check`
// also runs on each partial order: every axiom says that a relation monotone in mo
// (eco, rb, scb, psc, po ∪ rf ∪ mo ∪ rb) is irreflexive, acyclic or disjoint from rmw,
// so a partial mo that fails fails every completion, and its subtree is skipped. Leaves
// are always checked with the complete mo.
void each_mo(const Skeleton& s, const Values& v, const Base& b, bool prune, Outcomes& out, Stats& st,
             const Check& check) {
  std::size_t locs = s.writes.size();
  std::vector<std::vector<int>> placed(locs), rest(locs);
  std::uint64_t space = 1;
  for (std::size_t l = 0; l < locs; ++l) {
    for (std::size_t i = 1; i < s.writes[l].size(); ++i)
      if (v.exists[static_cast<std::size_t>(s.writes[l][i])]) rest[l].push_back(s.writes[l][i]);
    space *= factorial(rest[l].size());
  }
  st.candidates += space;
  std::function<void()> go = [&] {
    std::size_t l = 0;
    while (l < locs && rest[l].empty()) ++l;
    if (l == locs || prune) {
      ++st.checks;
      if (!check(b, partial_mo(s, placed, rest))) return;
    }
    if (l == locs) {
      ++st.consistent;
      Outcome o;
      for (const auto& regs : v.regs) o.insert(o.end(), regs.begin(), regs.end());
      for (std::size_t k = 0; k < locs; ++k)
        o.push_back(v.val[static_cast<std::size_t>(placed[k].empty() ? s.writes[k][0] : placed[k].back())]);
      out.insert(o);
      return;
    }
    for (std::size_t i = 0; i < rest[l].size(); ++i) {
      int w = rest[l][i];
      rest[l].erase(rest[l].begin() + static_cast<std::ptrdiff_t>(i));
      placed[l].push_back(w);
      go();
      placed[l].pop_back();
      rest[l].insert(rest[l].begin() + static_cast<std::ptrdiff_t>(i), w);
    }
  };
  go();
}

// Every rf map (each read from any write of its location, the initialisation included),
// then every mo for it. `prune` is a condition of the model that does not depend on mo:
// when it fails, no mo can make the candidate consistent, and the mo loop is skipped.
Outcomes enumerate(const Program& p, const Axioms& ax, Stats* stats, bool sc_model) {
  Skeleton s = skeleton(p);
  Stats st;
  Outcomes out;
  std::vector<int> choice(s.reads.size(), 0);
  std::vector<int> rf_of(s.ev.size(), -1);
  Values v;
  Check check = sc_model ? Check([](const Base& b, const Rel& mo) { return sc_consistent(b, mo); })
                         : Check([&ax](const Base& b, const Rel& mo) { return rc11_consistent(b, mo, ax); });
  for (;;) {
    for (std::size_t i = 0; i < s.reads.size(); ++i) {
      auto r = static_cast<std::size_t>(s.reads[i]);
      rf_of[r] = s.writes[static_cast<std::size_t>(s.ev[r].loc)][static_cast<std::size_t>(choice[i])];
    }
    ++st.rf_choices;
    if (resolve(p, s, rf_of, v)) {
      Base b = base_relations(p, s, rf_of, v, ax);
      bool prune = (sc_model || ax.no_thin_air) && !acyclic(b.po | b.rf);
      if (!prune) each_mo(s, v, b, ax.prune_mo_prefixes, out, st, check);
    }
    std::size_t i = 0;
    for (; i < s.reads.size(); ++i) {
      auto r = static_cast<std::size_t>(s.reads[i]);
      if (++choice[i] < static_cast<int>(s.writes[static_cast<std::size_t>(s.ev[r].loc)].size())) break;
      choice[i] = 0;
    }
    if (i == s.reads.size()) break;
  }
  if (stats) {
    stats->rf_choices += st.rf_choices;
    stats->candidates += st.candidates;
    stats->checks += st.checks;
    stats->consistent += st.consistent;
  }
  return out;
}

// Text is built with cat(): GCC 12 reports a false -Wrestrict for "literal" +
// std::string at -O3.
std::string cat(std::initializer_list<std::string> parts) {
  std::string out;
  for (const auto& s : parts) out += s;
  return out;
}

std::string var_name(int v) {
  static const char* names[] = {"x", "y", "z", "w"};
  return v >= 0 && v < 4 ? std::string(names[v]) : cat({"v", std::to_string(v)});
}

std::string order_name(Order o) {
  switch (o) {
    case Order::rlx: return "rlx";
    case Order::acq: return "acq";
    case Order::rel: return "rel";
    case Order::acq_rel: return "acq_rel";
    case Order::sc: return "sc";
  }
  return "?";
}

std::string operand_text(const Operand& o) {
  return o.is_reg ? cat({"r", std::to_string(o.value)}) : std::to_string(o.value);
}

std::string instr_text(const Instr& in) {
  std::string lhs = in.reg >= 0 ? cat({"r", std::to_string(in.reg), " = "}) : std::string();
  std::string x = var_name(in.var);
  std::string o = order_name(in.order);
  switch (in.kind) {
    case Kind::load: return cat({lhs, x, ".load(", o, ")"});
    case Kind::store: return cat({x, ".store(", operand_text(in.operand), ", ", o, ")"});
    case Kind::fetch_add: return cat({lhs, x, ".fetch_add(", operand_text(in.operand), ", ", o, ")"});
    case Kind::exchange: return cat({lhs, x, ".exchange(", operand_text(in.operand), ", ", o, ")"});
    case Kind::cas:
      return cat({lhs, x, ".cas(", std::to_string(in.expected), ", ", operand_text(in.operand), ", ", o, ", ",
                  order_name(in.failure), ")"});
    case Kind::fence: return cat({"fence(", o, ")"});
  }
  return "?";
}

}  // namespace

Outcomes outcomes_rc11(const Program& p, const Axioms& axioms, Stats* stats) {
  return enumerate(p, axioms, stats, false);
}

Outcomes outcomes_sc(const Program& p, Stats* stats, bool prune_mo_prefixes) {
  Axioms ax;
  ax.prune_mo_prefixes = prune_mo_prefixes;
  return enumerate(p, ax, stats, true);
}

std::string describe(const Program& p) {
  std::string out;
  for (std::size_t v = 0; v < p.init.size(); ++v)
    out += cat({var_name(static_cast<int>(v)), "=", std::to_string(p.init[v]), "; "});
  for (std::size_t t = 0; t < p.threads.size(); ++t) {
    out += cat({t ? " || T" : "T", std::to_string(t), ":"});
    for (const Instr& in : p.threads[t].code) out += cat({" ", instr_text(in), ";"});
  }
  return out;
}

std::string describe(const Program& p, const Outcome& o) {
  std::string out;
  std::size_t k = 0;
  for (std::size_t t = 0; t < p.threads.size(); ++t)
    for (int r = 0; r < p.threads[t].regs && k < o.size(); ++r, ++k)
      out += cat({"T", std::to_string(t), ":r", std::to_string(r), "=", std::to_string(o[k]), " "});
  for (std::size_t v = 0; v < p.init.size() && k < o.size(); ++v, ++k)
    out += cat({var_name(static_cast<int>(v)), "=", std::to_string(o[k]), " "});
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace rc11naive
