// The naive RC11/SC judge (tests/support/rc11_naive.hpp) on the literature's litmus tests
// with their known answers, its consistent-execution counts against GenMC's test suite,
// one mutant per axiom (each must change an answer, or the axiom is untested), and two
// properties over random programs: SC ⊆ RC11, and the SC enumerator agrees with the
// SC explorer. docs/rc11-oracle.md has the sources of every answer.
#include <cstdlib>
#include <gtest/gtest.h>
#include <gtest/gtest-spi.h>

#include <random>
#include <string>
#include <vector>

#include "scheduler/memory/memory.hpp"
#include "tests/support/rc11_naive.hpp"
#include "tests/support/rc11_program.hpp"

namespace {

using namespace rc11naive;

constexpr Order rlx = Order::rlx, acq = Order::acq, rel = Order::rel, acq_rel = Order::acq_rel, sc = Order::sc;
constexpr int x = 0, y = 1, z = 2;

Instr ld(int var, int reg, Order o) { return {Kind::load, var, reg, {}, 0, o, o}; }
Instr st(int var, std::int64_t v, Order o) { return {Kind::store, var, -1, {false, v}, 0, o, o}; }
Instr faa(int var, int reg, std::int64_t d, Order o) { return {Kind::fetch_add, var, reg, {false, d}, 0, o, o}; }
Instr xchg(int var, int reg, std::int64_t v, Order o) { return {Kind::exchange, var, reg, {false, v}, 0, o, o}; }
Instr cas(int var, int reg, std::int64_t expected, std::int64_t desired, Order ok, Order fail) {
  return {Kind::cas, var, reg, {false, desired}, expected, ok, fail};
}
Instr fence(Order o) { return {Kind::fence, 0, -1, {}, 0, o, o}; }

// Variables start at 0; each thread has as many registers as its highest one needs.
Program prog(int vars, std::vector<std::vector<Instr>> threads) {
  Program p;
  p.init.assign(static_cast<std::size_t>(vars), 0);
  for (auto& code : threads) {
    Thread t;
    for (const Instr& in : code) t.regs = std::max(t.regs, in.reg + 1);
    t.code = std::move(code);
    p.threads.push_back(std::move(t));
  }
  return p;
}

// Does some outcome begin with `prefix` (registers in thread order, then memory)?
bool reaches(const Outcomes& s, const std::vector<std::int64_t>& prefix) {
  for (const Outcome& o : s)
    if (o.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), o.begin())) return true;
  return false;
}

Axioms without(bool Axioms::*axiom) {
  Axioms a;
  a.*axiom = false;
  return a;
}

// ---- the classic shapes, each with a mode assignment and its RC11 answer ----

Program sb(Order w, Order r) { return prog(2, {{st(x, 1, w), ld(y, 0, r)}, {st(y, 1, w), ld(x, 0, r)}}); }
Program sb_fences() {
  return prog(2, {{st(x, 1, rlx), fence(sc), ld(y, 0, rlx)}, {st(y, 1, rlx), fence(sc), ld(x, 0, rlx)}});
}
Program mp(Order w, Order r) { return prog(2, {{st(x, 1, rlx), st(y, 1, w)}, {ld(y, 0, r), ld(x, 1, rlx)}}); }
Program mp_fences() {
  return prog(2, {{st(x, 1, rlx), fence(rel), st(y, 1, rlx)}, {ld(y, 0, rlx), fence(acq), ld(x, 1, rlx)}});
}
Program lb(Order r, Order w) { return prog(2, {{ld(x, 0, r), st(y, 1, w)}, {ld(y, 0, r), st(x, 1, w)}}); }
Program iriw(Order w, Order r) {
  return prog(2, {{st(x, 1, w)}, {ld(x, 0, r), ld(y, 1, r)}, {ld(y, 0, r), ld(x, 1, r)}, {st(y, 1, w)}});
}
// The paper's §2.1 example: a and b acquire, c and d and the writes sc.
Program iriw_acq_sc() {
  return prog(2, {{st(x, 1, sc)}, {ld(x, 0, acq), ld(y, 1, sc)}, {ld(y, 0, acq), ld(x, 1, sc)}, {st(y, 1, sc)}});
}
Program two_plus_two_w(Order o) { return prog(2, {{st(x, 1, o), st(y, 2, o)}, {st(y, 1, o), st(x, 2, o)}}); }
Program rwc_fences() {
  return prog(2, {{st(x, 1, rlx)}, {ld(x, 0, rlx), fence(sc), ld(y, 1, rlx)}, {st(y, 1, rlx), fence(sc), ld(x, 0, rlx)}});
}

TEST(Rc11Naive, StoreBuffering) {
  // Weak outcome: both loads read 0. Regs: T0 r0, T1 r0.
  EXPECT_TRUE(reaches(outcomes_rc11(sb(rlx, rlx)), {0, 0}));
  EXPECT_TRUE(reaches(outcomes_rc11(sb(rel, acq)), {0, 0}));
  EXPECT_FALSE(reaches(outcomes_rc11(sb(sc, sc)), {0, 0}));
  EXPECT_FALSE(reaches(outcomes_rc11(sb_fences()), {0, 0}));
  EXPECT_FALSE(reaches(outcomes_sc(sb(rlx, rlx)), {0, 0}));
  EXPECT_EQ(outcomes_sc(sb(rlx, rlx)).size(), 3u);
  // Mutant: without the SC axiom both sc versions reach it.
  EXPECT_TRUE(reaches(outcomes_rc11(sb(sc, sc), without(&Axioms::sc)), {0, 0}));
  EXPECT_TRUE(reaches(outcomes_rc11(sb_fences(), without(&Axioms::sc)), {0, 0}));
}

TEST(Rc11Naive, MessagePassing) {
  // Weak outcome: the flag read 1, the data 0.
  EXPECT_TRUE(reaches(outcomes_rc11(mp(rlx, rlx)), {1, 0}));
  EXPECT_FALSE(reaches(outcomes_rc11(mp(rel, acq)), {1, 0}));
  EXPECT_TRUE(reaches(outcomes_rc11(mp(rel, rlx)), {1, 0}));
  EXPECT_TRUE(reaches(outcomes_rc11(mp(rlx, acq)), {1, 0}));
  EXPECT_FALSE(reaches(outcomes_rc11(mp_fences()), {1, 0}));
  // Mutant: with sw = ∅, release/acquire synchronise nothing.
  EXPECT_TRUE(reaches(outcomes_rc11(mp(rel, acq), without(&Axioms::sw)), {1, 0}));
  EXPECT_TRUE(reaches(outcomes_rc11(mp_fences(), without(&Axioms::sw)), {1, 0}));
}

TEST(Rc11Naive, LoadBufferingIsForbiddenByNoThinAir) {
  EXPECT_FALSE(reaches(outcomes_rc11(lb(rlx, rlx)), {1, 1}));
  EXPECT_EQ(outcomes_rc11(lb(rlx, rlx)).size(), 3u);
  // Mutant: without po ∪ rf acyclicity, relaxed LB reaches 1/1 (as C11 allowed); with
  // acquire/release it stays forbidden by coherence (hb = po;sw;po;sw is a cycle).
  EXPECT_TRUE(reaches(outcomes_rc11(lb(rlx, rlx), without(&Axioms::no_thin_air)), {1, 1}));
  EXPECT_FALSE(reaches(outcomes_rc11(lb(acq, rel), without(&Axioms::no_thin_air)), {1, 1}));
}

TEST(Rc11Naive, IndependentReadsOfIndependentWrites) {
  // Weak outcome: the readers see the writes in opposite orders (1 0 | 1 0).
  EXPECT_TRUE(reaches(outcomes_rc11(iriw(rel, acq)), {1, 0, 1, 0}));
  EXPECT_TRUE(reaches(outcomes_rc11(iriw(rlx, rlx)), {1, 0, 1, 0}));
  EXPECT_FALSE(reaches(outcomes_rc11(iriw(sc, sc)), {1, 0, 1, 0}));
  EXPECT_TRUE(reaches(outcomes_rc11(iriw(sc, sc), without(&Axioms::sc)), {1, 0, 1, 0}));
}

TEST(Rc11Naive, IriwAcqScIsAllowedAfterTheRepair) {
  // §2.1: C11 forbade a=b=1, c=d=0 (its S contained hb), Power with leading syncs
  // allows it; RC11 allows it. The C11 mutant (scb ⊇ hb) forbids it again.
  EXPECT_TRUE(reaches(outcomes_rc11(iriw_acq_sc()), {1, 0, 1, 0}));
  Axioms c11;
  c11.c11_scb = true;
  EXPECT_FALSE(reaches(outcomes_rc11(iriw_acq_sc(), c11), {1, 0, 1, 0}));
}

TEST(Rc11Naive, TwoPlusTwoWrites) {
  // Weak outcome: x=1 and y=1 at the end (each thread's first write is mo-last).
  EXPECT_TRUE(reaches(outcomes_rc11(two_plus_two_w(rlx)), {1, 1}));
  EXPECT_TRUE(reaches(outcomes_rc11(two_plus_two_w(rel)), {1, 1}));
  EXPECT_FALSE(reaches(outcomes_rc11(two_plus_two_w(sc)), {1, 1}));
  EXPECT_TRUE(reaches(outcomes_rc11(two_plus_two_w(sc), without(&Axioms::sc)), {1, 1}));
  Program fenced = prog(2, {{st(x, 1, rlx), fence(sc), st(y, 2, rlx)}, {st(y, 1, rlx), fence(sc), st(x, 2, rlx)}});
  EXPECT_FALSE(reaches(outcomes_rc11(fenced), {1, 1}));
}

TEST(Rc11Naive, RwcWithScFencesNeedsEcoInPscF) {
  // a=1 b=0 | c=0 is forbidden: F1 -> F2 through psc_base (hb;rb;hb), F2 -> F1 only
  // through psc_F's hb;eco;hb (rb;rf). The mutant with C11's psc_F allows it.
  EXPECT_FALSE(reaches(outcomes_rc11(rwc_fences()), {1, 0, 0}));
  EXPECT_TRUE(reaches(outcomes_rc11(rwc_fences(), without(&Axioms::psc_f_eco)), {1, 0, 0}));
}

TEST(Rc11Naive, RmwAtomicity) {
  Program p = prog(1, {{faa(x, 0, 1, rlx)}, {faa(x, 0, 1, rlx)}});
  Outcomes all = outcomes_rc11(p);
  EXPECT_EQ(all, (Outcomes{{0, 1, 2}, {1, 0, 2}}));
  EXPECT_EQ(outcomes_sc(p), all);
  // Mutant: without atomicity both read 0 and x ends 1.
  EXPECT_TRUE(outcomes_rc11(p, without(&Axioms::atomicity)).count({0, 0, 1}));
  Program x2 = prog(1, {{xchg(x, 0, 1, rlx)}, {xchg(x, 0, 2, rlx)}});
  EXPECT_EQ(outcomes_rc11(x2), (Outcomes{{0, 1, 2}, {2, 0, 1}}));
}

TEST(Rc11Naive, CoherenceOfReadRead) {
  // CoRR: x = 1 || r0 = x; r1 = x: r0=1 r1=0 is forbidden.
  Program p = prog(1, {{st(x, 1, rlx)}, {ld(x, 0, rlx), ld(x, 1, rlx)}});
  EXPECT_FALSE(reaches(outcomes_rc11(p), {1, 0}));
  EXPECT_EQ(outcomes_rc11(p).size(), 3u);
  // Mutant: without coherence the second read may go back to the initial value.
  EXPECT_TRUE(reaches(outcomes_rc11(p, without(&Axioms::coherence)), {1, 0}));
}

TEST(Rc11Naive, FailedCasReadsWithItsFailureMode) {
  // MP whose reader is a CAS on the flag expecting 2: reading 1 it fails, and only its
  // failure mode decides whether it synchronises with the release store.
  auto reader = [](std::int64_t expected, Order fail) {
    return prog(2, {{st(x, 1, rlx), st(y, 1, rel)}, {cas(y, 0, expected, 3, acq, fail), ld(x, 1, rlx)}});
  };
  EXPECT_TRUE(reaches(outcomes_rc11(reader(2, rlx)), {1, 0}));   // failed, relaxed
  EXPECT_FALSE(reaches(outcomes_rc11(reader(2, acq)), {1, 0}));  // failed, acquire
  EXPECT_FALSE(reaches(outcomes_rc11(reader(1, rlx)), {1, 0}));  // succeeded: acquire
  // A failed CAS does not write: y stays 1 (outcome: T1 r0, T1 r1, x, y).
  for (const Outcome& o : outcomes_rc11(reader(2, rlx))) EXPECT_EQ(o[3], 1) << describe(reader(2, rlx), o);
  for (const Outcome& o : outcomes_rc11(reader(1, rlx))) EXPECT_EQ(o[3], o[0] == 1 ? 3 : 1) << describe(reader(1, rlx), o);
}

// ---- consistent-execution counts against GenMC (tests/correct/litmus/*/expected.*.mo.in) ----

struct Counted {
  const char* name;
  Program program;
  std::uint64_t genmc_rc11, genmc_sc;
  std::uint64_t paper_rc11 = 0;  // 0: the same as GenMC's
};

std::uint64_t consistent(const Program& p, const Axioms* rc11) {
  Stats s;
  if (rc11) outcomes_rc11(p, *rc11, &s);
  else outcomes_sc(p, &s);
  return s.consistent;
}

std::vector<Counted> genmc_table();

TEST(Rc11Naive, ConsistentExecutionsMatchGenmcCounts) {
  Axioms paper, genmc;
  genmc.cpp20_rs = genmc.kater_psc = true;
  for (const Counted& c : genmc_table()) {
    std::uint64_t paper_count = c.paper_rc11 ? c.paper_rc11 : c.genmc_rc11;
    EXPECT_EQ(consistent(c.program, &paper), paper_count) << c.name << ": " << describe(c.program);
    EXPECT_EQ(consistent(c.program, &genmc), c.genmc_rc11) << c.name << " (GenMC's RC11): " << describe(c.program);
    EXPECT_EQ(consistent(c.program, nullptr), c.genmc_sc) << c.name << " (SC): " << describe(c.program);
  }
}

// The explorer (`optimal`, the default: TruSt's revisits, and the interleavings with
// their graph cut) completes exactly one execution per consistent graph: GenMC's counts, or the paper's where its RC11 differs
// (relseq, Z6.U, above).
TEST(Rc11Explorer, GraphsMatchGenmcCounts) {
  for (const Counted& c : genmc_table()) {
    atomcheck::ExploreOptions o;
    o.memory = atomcheck::MemoryModelKind::rc11;
    o.count_classes = true;
    const atomcheck::ExploreResult r = atomcheck::explore(atomcheck::testing_support::scheduler_program(c.program), o);
    EXPECT_TRUE(r.ok() && r.exhausted()) << c.name;
    EXPECT_EQ(r.classes, c.paper_rc11 ? c.paper_rc11 : c.genmc_rc11) << c.name << ": " << describe(c.program);
    // Optimal: one execution per graph; the others were cut short as redundant.
    EXPECT_EQ(r.executions - r.sleep_blocked, r.classes) << c.name;
    o.rc11_revisits = false;  // the interleavings with their cut: the same graphs
    const atomcheck::ExploreResult old = atomcheck::explore(atomcheck::testing_support::scheduler_program(c.program), o);
    EXPECT_EQ(old.classes, r.classes) << c.name;
    EXPECT_EQ(old.executions - old.sleep_blocked, old.classes) << c.name;
    o.rc11_revisits = true;
    std::printf("[genmc] %-16s graphs %llu, executions %llu (%llu cut as redundant)\n", c.name,
                static_cast<unsigned long long>(r.classes), static_cast<unsigned long long>(r.executions),
                static_cast<unsigned long long>(r.sleep_blocked));
  }
}

std::vector<Counted> genmc_table() {
  // GenMC (github.com/MPI-SWS/genmc, tests/correct/litmus/<name>/expected.rc11.mo.in and
  // expected.sc.mo.in) counts the consistent (rf, mo) graphs of each test under its RC11
  // and under SC; these are its straight-line tests, transcribed. GenMC's RC11 is
  // kater's kat/rc11.kat, which differs from the paper in two places (Axioms::cpp20_rs,
  // Axioms::kater_psc); with both switched on the counts must be GenMC's, and with the
  // paper's axioms they differ exactly where the differences matter:
  //  - relseq: the paper's rs includes y.store(2)'s po|loc step after the release store,
  //    so a reader of 2 (or of the exchange after it) synchronises: 16, not 20.
  //  - Z6.U: kater's [E_sc];po;hb;po;[E_sc] orders x.store(1, sc) before the sc
  //    fetch_add's write (po;sw to its read, then po to its write), which the paper's
  //    po|≠loc;hb;po|≠loc does not; the paper (§2.1) allows Z6.U's weak outcome
  //    on purpose, so 24 graphs, not 22.
  std::vector<Counted> table = {
      {"SB", sb(rel, acq), 4, 3},
      {"SB+4sc", sb(sc, sc), 3, 3},
      {"SB+scfs", sb_fences(), 3, 3},
      {"SB+rfis", prog(2, {{st(x, 1, rel), ld(x, 0, sc), ld(y, 1, sc)}, {st(y, 1, rel), ld(y, 0, sc), ld(x, 1, sc)}}), 4, 3},
      {"MP", prog(2, {{st(x, 1, rel), st(y, 1, rel)}, {ld(y, 0, acq), ld(x, 1, acq)}}), 3, 3},
      {"LB", lb(acq, rel), 3, 3},
      {"LB+rel", lb(rlx, rel), 3, 3},
      {"IRIW-acq-sc", iriw_acq_sc(), 16, 15},
      {"RWC+syncs", rwc_fences(), 7, 7},
      {"W+RWC", prog(3, {{st(x, 1, rlx), st(z, 1, rel)}, {ld(z, 0, acq), fence(sc), ld(y, 1, rlx)},
                         {st(y, 1, rlx), fence(sc), ld(x, 0, rlx)}}), 7, 7},
      {"2+2W", two_plus_two_w(rel), 4, 3},
      {"2+2W+4sc", two_plus_two_w(sc), 3, 3},
      {"2+2W+scfs", prog(2, {{st(x, 1, rlx), fence(sc), st(y, 2, rlx)}, {st(y, 1, rlx), fence(sc), st(x, 2, rlx)}}), 3, 3},
      {"CoRR", prog(1, {{st(x, 1, rel), st(x, 2, rel)}, {ld(x, 0, acq), ld(x, 1, acq)}}), 6, 6},
      {"CoRR1", prog(1, {{st(x, 1, rel)}, {st(x, 2, rel)}, {ld(x, 0, acq), ld(x, 1, acq)}, {ld(x, 0, acq)}}), 36, 36},
      {"CoRR2", prog(1, {{st(x, 1, rel)}, {st(x, 2, rel)}, {ld(x, 0, acq), ld(x, 1, acq)}, {ld(x, 0, acq), ld(x, 1, acq)}}), 72, 72},
      {"CoRW", prog(1, {{ld(x, 0, acq), st(x, 1, rel)}, {st(x, 2, rel)}}), 3, 3},
      {"CoWR", prog(1, {{st(x, 1, rel), ld(x, 0, acq)}, {st(x, 2, rel)}}), 3, 3},
      {"2CoWR", prog(2, {{ld(y, 0, acq)}, {ld(x, 0, acq)}, {st(x, 1, rel)}, {st(y, 1, rel)}}), 4, 4},
      {"relseq", prog(2, {{st(x, 1, rlx), st(y, 1, rel), st(y, 2, rlx)}, {xchg(y, 0, 3, rlx)},
                          {ld(y, 0, rlx), fence(acq_rel), ld(x, 1, rlx)}}), 20, 16, 16},
      {"Z6.U", prog(2, {{st(x, 1, sc), st(y, 1, rel)}, {faa(y, 0, 1, sc), ld(y, 1, rlx)}, {st(y, 3, sc), ld(x, 0, sc)}}),
       22, 18, 24},
      {"rinc+wr", prog(1, {{faa(x, 0, 1, rlx)}, {st(x, 2, rlx), ld(x, 0, rlx)}}), 3, 3},
      {"inc2w", prog(1, {{faa(x, 0, 1, rlx)}, {st(x, 4, rel)}, {faa(x, 0, 2, rlx)}}), 6, 6},
      {"W+RRR+W", prog(1, {{st(x, 1, rlx)}, {ld(x, 0, rlx), ld(x, 1, rlx), ld(x, 2, rlx)}, {st(x, 2, rlx)}}), 20, 20},
      {"inc+inc+RR+W+RR", prog(1, {{faa(x, 0, 1, rlx)}, {faa(x, 0, 1, rlx)}, {ld(x, 0, rlx), ld(x, 1, rlx)},
                                   {st(x, 42, rlx)}, {ld(x, 0, rlx), ld(x, 1, rlx)}}), 600, 600},
  };
  return table;
}

TEST(Rc11Naive, Z6UWeakOutcomeIsAllowed) {
  // §2.1's Z6.U: x.store(1, sc); y.store(1, rel) || b = y.fetch_add(1, sc); c = y.load(rlx)
  // || y.store(3, sc); a = x.load(sc). b=1 c=3 a=0 is allowed by Power with the
  // standard compilation, so RC11 allows it; kater's psc (GenMC) forbids it.
  Program z6u = prog(2, {{st(x, 1, sc), st(y, 1, rel)}, {faa(y, 0, 1, sc), ld(y, 1, rlx)}, {st(y, 3, sc), ld(x, 0, sc)}});
  EXPECT_TRUE(reaches(outcomes_rc11(z6u), {1, 3, 0}));
  Axioms kater;
  kater.kater_psc = true;
  EXPECT_FALSE(reaches(outcomes_rc11(z6u, kater), {1, 3, 0}));
  EXPECT_FALSE(reaches(outcomes_sc(z6u), {1, 3, 0}));
}

// ---- properties over random programs (CI-sized; long_rc11_naive.cpp runs 10^4 and more) ----

TEST(Rc11NaiveProperties, PrunedMoSearchDecidesLikeTheFullOne) {
  // The partial-mo pruning (each_mo) is sound only because every axiom is monotone in
  // mo; this compares it with checking complete mo orders alone.
  std::mt19937_64 rng(4303);
  Axioms full;
  full.prune_mo_prefixes = false;
  for (int i = 0; i < 300; ++i) {
    Program p = atomcheck::testing_support::random_rc11_program(rng, {.max_rf_maps = 1e3});
    Stats pruned_stats, full_stats;
    ASSERT_EQ(outcomes_rc11(p, {}, &pruned_stats), outcomes_rc11(p, full, &full_stats)) << describe(p);
    ASSERT_EQ(pruned_stats.consistent, full_stats.consistent) << describe(p);
    ASSERT_EQ(outcomes_sc(p), outcomes_sc(p, nullptr, false)) << describe(p);
  }
}

TEST(Rc11NaiveProperties, ScIsIncludedInRc11) {
  atomcheck::testing_support::check_sc_included_in_rc11(1000, 4304);
}

TEST(Rc11NaiveProperties, AllScProgramsHaveOnlyScOutcomes) {
  atomcheck::testing_support::check_all_sc_programs_are_sc(1000, 4306);
}

// The agreement check can fail: the RC11 judge against the SC explorer finds a program
// whose weak outcomes only the judge reaches.
void rc11_judge_against_the_sc_explorer() {
  atomcheck::testing_support::check_judge_against_explorer(300, 4305, atomcheck::testing_support::rc11_judge,
                                                          atomcheck::MemoryModelKind::sc);
}

TEST(Rc11NaiveProperties, AgreementFailsForAWrongJudge) {
  EXPECT_FATAL_FAILURE(rc11_judge_against_the_sc_explorer(), "only the judge");
}

TEST(Rc11NaiveProperties, ScEnumeratorAgreesWithTheScExplorer) {
  atomcheck::testing_support::check_judge_against_explorer(1000, 4305, atomcheck::testing_support::sc_judge,
                                                          atomcheck::MemoryModelKind::sc);
}

}  // namespace

namespace {

// The sanitizer builds run a tenth of the programs (ATOMCHECK_SANITIZED, scripts/test.sh).
std::size_t scaled(std::size_t n) { return std::getenv("ATOMCHECK_SANITIZED") ? n / 10 : n; }

// The RC11 explorer (scheduler/memory_rc11.cpp) against the judge written from the
// axioms: the same outcome sets on 10^4 random programs with every memory order.
TEST(Rc11Explorer, AgreesWithTheJudgeOnRandomPrograms) {
  atomcheck::testing_support::check_judge_against_explorer(scaled(10000), 4317,
                                                          atomcheck::testing_support::rc11_judge,
                                                          atomcheck::MemoryModelKind::rc11);
}

// All-seq_cst programs: the explorer gives SC's outcomes (the judge's SC enumerator).
TEST(Rc11Explorer, AllScProgramsGiveScOutcomes) {
  atomcheck::testing_support::Rc11Shape shape;
  shape.all_sc = true;
  atomcheck::testing_support::check_judge_against_explorer(scaled(1000), 4318,
                                                          atomcheck::testing_support::sc_judge,
                                                          atomcheck::MemoryModelKind::rc11, shape);
}

}  // namespace

namespace {

// Optimality on random programs: under `optimal` the explorer completes exactly one
// execution per consistent (rf, mo) graph the judge counts, by TruSt's revisits and by
// the interleavings with their graph cut, and `dfs` (every interleaving) reaches the
// same graphs.
TEST(Rc11Explorer, OneExecutionPerGraphOnRandomPrograms) {
  std::mt19937_64 rng(4319);
  const std::size_t programs = std::getenv("ATOMCHECK_SANITIZED") ? 200 : 2000;
  std::uint64_t graphs = 0, cut = 0, old_cut = 0;
  for (std::size_t i = 0; i < programs; ++i) {
    const Program p = atomcheck::testing_support::random_rc11_program(rng);
    Stats stats;
    outcomes_rc11(p, Axioms{}, &stats);
    atomcheck::ExploreOptions o;
    o.memory = atomcheck::MemoryModelKind::rc11;
    o.count_classes = true;
    const atomcheck::ExploreResult r = atomcheck::explore(atomcheck::testing_support::scheduler_program(p), o);
    ASSERT_TRUE(r.ok() && r.exhausted()) << describe(p) << r.error;
    ASSERT_EQ(r.executions - r.sleep_blocked, stats.consistent) << describe(p);
    ASSERT_EQ(r.classes, stats.consistent) << describe(p);
    graphs += r.classes;
    cut += r.sleep_blocked;
    // The interleaving exploration with its graph cut, the second judge: the same graphs,
    // one execution each.
    o.rc11_revisits = false;
    const atomcheck::ExploreResult old = atomcheck::explore(atomcheck::testing_support::scheduler_program(p), o);
    ASSERT_EQ(old.classes, stats.consistent) << describe(p);
    ASSERT_EQ(old.executions - old.sleep_blocked, stats.consistent) << describe(p);
    ASSERT_EQ(old.outcomes, r.outcomes) << describe(p);
    old_cut += old.sleep_blocked;
    o.rc11_revisits = true;
    if (i % 10 == 0) {  // and plain DFS finds the same graphs
      o.strategy = atomcheck::StrategyKind::dfs;
      const atomcheck::ExploreResult d = atomcheck::explore(atomcheck::testing_support::scheduler_program(p), o);
      ASSERT_EQ(d.classes, stats.consistent) << describe(p);
    }
  }
  std::printf("checked %zu random programs: %llu graphs, one execution each; TruSt's revisits start %llu more "
              "(revisits the memory model refused), the interleavings' cut %llu more\n",
              programs, static_cast<unsigned long long>(graphs), static_cast<unsigned long long>(cut),
              static_cast<unsigned long long>(old_cut));
}


// The SC axiom's check when every access is seq_cst and there is no fence (memory_rc11.cpp,
// sc_graph_acyclic: acyclicity of po ∪ rf ∪ mo ∪ rb ∪ hb through the new events) against
// its general form (psc over the whole graph), on random all-seq_cst programs: the same
// graphs, the judge's count, the same runs and outcomes.
TEST(Rc11Explorer, FastScCheckAgreesWithTheGeneralOne) {
  std::mt19937_64 rng(4323);
  atomcheck::testing_support::Rc11Shape shape;
  shape.all_sc = true;
  const std::size_t programs = scaled(1500);
  std::size_t unfenced = 0;
  for (std::size_t i = 0; i < programs; ++i) {
    const Program p = atomcheck::testing_support::random_rc11_program(rng, shape);
    bool fenced = false;
    for (const Thread& th : p.threads)
      for (const Instr& in : th.code) fenced = fenced || in.kind == Kind::fence;
    unfenced += !fenced;
    Stats stats;
    outcomes_rc11(p, Axioms{}, &stats);
    atomcheck::ExploreOptions o;
    o.memory = atomcheck::MemoryModelKind::rc11;
    o.count_classes = true;
    const atomcheck::ExploreResult fast = atomcheck::explore(atomcheck::testing_support::scheduler_program(p), o);
    atomcheck::detail::rc11_general_psc_check(true);
    const atomcheck::ExploreResult general = atomcheck::explore(atomcheck::testing_support::scheduler_program(p), o);
    atomcheck::detail::rc11_general_psc_check(false);
    ASSERT_TRUE(fast.ok() && fast.exhausted() && general.ok() && general.exhausted()) << describe(p);
    ASSERT_EQ(fast.classes, stats.consistent) << describe(p);
    ASSERT_EQ(general.classes, stats.consistent) << describe(p);
    ASSERT_EQ(fast.executions, general.executions) << describe(p);
    ASSERT_EQ(fast.outcomes, general.outcomes) << describe(p);
  }
  EXPECT_GT(unfenced, programs / 4) << "too few programs without a fence take the fast check";
}


// SC as a graph model (ExploreOptions::sc_graphs): on all-seq_cst programs its graphs are
// the judge's (RC11 on such programs is SC), one execution each, and its outcomes SC's; on
// programs with every memory order it ignores the orders, as sc does: the SC explorer's
// outcomes.
TEST(ScGraphs, OneExecutionPerScGraphAndScOutcomes) {
  std::mt19937_64 rng(4327);
  const std::size_t programs = scaled(1000);
  for (std::size_t i = 0; i < programs; ++i) {
    atomcheck::testing_support::Rc11Shape shape;
    shape.all_sc = i % 2 == 0;
    const Program p = atomcheck::testing_support::random_rc11_program(rng, shape);
    atomcheck::ExploreOptions o;
    o.memory = atomcheck::MemoryModelKind::sc;
    o.count_classes = true;
    const atomcheck::ExploreResult interleavings = atomcheck::explore(atomcheck::testing_support::scheduler_program(p), o);
    o.sc_graphs = true;
    const atomcheck::ExploreResult graphs = atomcheck::explore(atomcheck::testing_support::scheduler_program(p), o);
    ASSERT_TRUE(graphs.ok() && graphs.exhausted()) << describe(p) << graphs.error;
    ASSERT_EQ(graphs.outcomes.size(), interleavings.outcomes.size()) << describe(p);
    for (const auto& [outcome, n] : interleavings.outcomes) ASSERT_TRUE(graphs.outcomes.count(outcome)) << describe(p);
    ASSERT_LE(graphs.completed, interleavings.completed) << describe(p);
    if (!shape.all_sc) continue;
    Stats stats;
    outcomes_rc11(p, Axioms{}, &stats);
    ASSERT_EQ(graphs.classes, stats.consistent) << describe(p);
    ASSERT_EQ(graphs.executions - graphs.sleep_blocked, stats.consistent) << describe(p);
  }
}

}  // namespace
