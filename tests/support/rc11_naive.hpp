// An independent, deliberately naive judge of RC11 (Lahav, Vafeiadis, Kang, Hur, Dreyer,
// "Repairing Sequential Consistency in C/C++11", PLDI 2017) and of SC, for straight-line
// litmus programs. It enumerates every rf choice and every mo order of a small program,
// builds the execution graph's relations as boolean matrices and keeps the candidates
// that satisfy the paper's axioms, literally. It shares no code with the scheduler or its
// memory models (only the standard library): a judge that shares a definition with what
// it judges cannot catch a shared mistake. docs/rc11-oracle.md explains it.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace rc11naive {

// Access modes of the paper's §3 (non-atomics are left out: every access is atomic).
enum class Order : std::uint8_t { rlx, acq, rel, acq_rel, sc };

enum class Kind : std::uint8_t { load, store, fetch_add, exchange, cas, fence };

// A constant, or (is_reg) the current value of register `value` of the same thread.
struct Operand {
  bool is_reg = false;
  std::int64_t value = 0;
};

// One instruction. `reg` receives the value read (load, fetch_add, exchange, cas: the old
// value, which is what compare_exchange leaves in `expected` either way); -1 discards it.
// `operand` is the stored value, the addend, the exchanged value or the CAS's desired
// value. `failure` is the mode of a CAS that reads a value other than `expected`.
struct Instr {
  Kind kind = Kind::load;
  int var = 0;
  int reg = -1;
  Operand operand{};
  std::int64_t expected = 0;
  Order order = Order::sc;
  Order failure = Order::sc;
};

struct Thread {
  std::vector<Instr> code;
  int regs = 0;  // registers start at 0
};

struct Program {
  std::vector<std::int64_t> init;  // one initial value per variable
  std::vector<Thread> threads;
};

// Every register of every thread (thread 0's first), then every variable's final value
// (the value of its mo-maximal write).
using Outcome = std::vector<std::int64_t>;
using Outcomes = std::set<Outcome>;

// Which RC11 axioms are checked. All on is RC11; switching one off gives a mutant whose
// answers must differ on at least one of the literature's examples (the tests check
// which), so that every axiom is shown to matter.
struct Axioms {
  bool coherence = true;    // hb;eco? irreflexive
  bool atomicity = true;    // rmw ∩ (rb;mo) = ∅
  bool sc = true;           // psc acyclic
  bool no_thin_air = true;  // po ∪ rf acyclic
  bool sw = true;           // false: sw = ∅ (hb = po)
  bool psc_f_eco = true;    // false: psc_F = [F_sc];hb;[F_sc] (C11's fences)
  bool c11_scb = false;     // true: scb uses all of hb, as C11's S did before the repair
  // GenMC's RC11 (github.com/MPI-SWS/kater, kat/rc11.kat), which its test suite's counts
  // follow: C++20's release sequence, rs = [W];(rf;rmw)*, and its psc =
  //   [E_sc];po;hb;po;[E_sc] ∪ [E_sc];([F];hb)?;(po ∪ rf ∪ mo ∪ rb);(hb;[F])?;[E_sc]
  //   ∪ [F_sc];(hb ∪ hb;eco;hb);[F_sc] ∪ [E_sc];po;[E_sc]
  // (po;hb;po without the paper's ≠loc, which orders an RMW's own read and write).
  bool cpp20_rs = false;
  bool kater_psc = false;
  // Not an axiom: false checks complete mo orders only (the tests compare the two).
  bool prune_mo_prefixes = true;
};

// What the enumeration did, for the cost figures of docs/rc11-oracle.md.
struct Stats {
  std::uint64_t rf_choices = 0;  // rf maps tried
  std::uint64_t candidates = 0;  // (rf, mo) pairs decided: per rf map that gives values
                                 // and passes no-thin-air, the product of |W_x|! over x
  std::uint64_t checks = 0;      // axiom evaluations (complete or partial mo)
  std::uint64_t consistent = 0;  // consistent (rf, mo) pairs
};

Outcomes outcomes_rc11(const Program& p, const Axioms& axioms = {}, Stats* stats = nullptr);
// SC: po ∪ rf ∪ mo ∪ rb acyclic, and rmw atomicity (modes are ignored).
Outcomes outcomes_sc(const Program& p, Stats* stats = nullptr, bool prune_mo_prefixes = true);

// Readable forms for failure messages: "T0: r0 = x.load(acq); ..." and
// "T0:r0=1 T1:r0=0 x=1 y=2".
std::string describe(const Program& p);
std::string describe(const Program& p, const Outcome& o);

}  // namespace rc11naive
