// The rc11 answers of the bundled C litmus tests (tests/data/litmus-c/EXPECTED.tsv) were
// derived by hand from rc11.cat's axioms; here the independent RC11 judge
// (tests/support/rc11_naive, every rf and mo of the program) decides them again. Every
// test that is straight-line code over atomics (no plain accesses, no `if`) is translated
// into the judge's program form; its Ok/No under RC11 and under SC must be the table's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "specs/litmus.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/rc11_naive.hpp"

namespace {

namespace fs = std::filesystem;
using atomcheck::litmus::CExpr;
using atomcheck::litmus::CStmt;
using LitmusTest = atomcheck::litmus::Test;

rc11naive::Order order_of(std::memory_order o) {
  switch (o) {
    case std::memory_order_relaxed: return rc11naive::Order::rlx;
    case std::memory_order_consume:
    case std::memory_order_acquire: return rc11naive::Order::acq;
    case std::memory_order_release: return rc11naive::Order::rel;
    case std::memory_order_acq_rel: return rc11naive::Order::acq_rel;
    default: return rc11naive::Order::sc;
  }
}

// An operand of a store or an RMW: a constant or a local (register).
std::optional<rc11naive::Operand> operand(const atomcheck::litmus::CThread& t, std::uint32_t e) {
  const CExpr& x = t.exprs[e];
  if (x.kind == CExpr::Kind::constant) return rc11naive::Operand{false, x.value};
  if (x.kind == CExpr::Kind::local) return rc11naive::Operand{true, static_cast<std::int64_t>(x.local)};
  return std::nullopt;
}

// An access expression (a load, an exchange, a fetch_add) as one instruction; nullopt
// otherwise (a CAS, other RMWs, arithmetic).
std::optional<rc11naive::Instr> access(const atomcheck::litmus::CThread& t, std::uint32_t e, int reg) {
  const CExpr& x = t.exprs[e];
  if (x.indexed) return std::nullopt;  // an address computed at run time
  rc11naive::Instr in;
  in.var = static_cast<int>(x.var);
  in.reg = reg;
  in.order = order_of(x.order);
  if (x.kind == CExpr::Kind::load && !x.plain) {
    in.kind = rc11naive::Kind::load;
    return in;
  }
  if (x.kind == CExpr::Kind::rmw && (x.rmw == CExpr::Rmw::exchange || x.rmw == CExpr::Rmw::add)) {
    auto a = operand(t, x.a);
    if (!a) return std::nullopt;
    in.kind = x.rmw == CExpr::Rmw::exchange ? rc11naive::Kind::exchange : rc11naive::Kind::fetch_add;
    in.operand = *a;
    return in;
  }
  return std::nullopt;
}

// The test in the judge's form, or nullopt when it has what the judge does not model.
std::optional<rc11naive::Program> translate(const LitmusTest& test) {
  rc11naive::Program p;
  for (std::size_t v = 0; v < test.vars.size(); ++v) {
    if (!test.var_atomic[v]) return std::nullopt;
    p.init.push_back(test.var_init[v]);
  }
  for (const auto& t : test.c_threads) {
    rc11naive::Thread th;
    th.regs = static_cast<int>(t.locals.size());
    for (const CStmt& s : t.stmts) {
      switch (s.kind) {
        case CStmt::Kind::store: {
          if (s.plain || s.indexed) return std::nullopt;
          auto a = operand(t, s.expr);
          if (!a) return std::nullopt;
          rc11naive::Instr in;
          in.kind = rc11naive::Kind::store;
          in.var = static_cast<int>(s.var);
          in.operand = *a;
          in.order = order_of(s.order);
          th.code.push_back(in);
          break;
        }
        case CStmt::Kind::fence: {
          rc11naive::Instr in;
          in.kind = rc11naive::Kind::fence;
          in.order = order_of(s.order);
          th.code.push_back(in);
          break;
        }
        case CStmt::Kind::assign:
        case CStmt::Kind::eval: {
          const int reg = s.kind == CStmt::Kind::assign ? static_cast<int>(s.local) : -1;
          auto in = access(t, s.expr, reg);
          if (!in) return std::nullopt;
          th.code.push_back(*in);
          break;
        }
        default: return std::nullopt;  // a branch
      }
    }
    p.threads.push_back(th);
  }
  return p;
}

// herd's Ok/No for the test's quantified condition over these outcomes.
std::string answer(const LitmusTest& test, const rc11naive::Program& p, const rc11naive::Outcomes& outcomes) {
  std::vector<std::size_t> reg_base;
  std::size_t n = 0;
  for (const auto& t : p.threads) reg_base.push_back(n), n += static_cast<std::size_t>(t.regs);
  bool reachable = false, all = true;
  for (const rc11naive::Outcome& o : outcomes) {
    std::vector<std::int64_t> state;
    for (const auto& loc : test.observed)
      state.push_back(loc.is_reg ? o[reg_base[static_cast<std::size_t>(loc.thread)] + static_cast<std::size_t>(loc.reg)]
                                 : o[n + loc.var]);
    if (!atomcheck::litmus::eval_filter(test, state)) continue;
    state.resize(test.shown);
    const bool holds = atomcheck::litmus::eval_proposition(test, state);
    reachable = reachable || holds;
    all = all && holds;
  }
  using Q = atomcheck::litmus::Quantifier;
  const bool ok = test.condition.quantifier == Q::exists ? reachable : test.condition.quantifier == Q::not_exists ? !reachable : all;
  return ok ? "Ok" : "No";
}

TEST(LitmusCRc11, HandDerivedAnswersAgreeWithTheAxiomaticJudge) {
  std::ifstream in(atomcheck::testing::data_path("litmus-c/EXPECTED.tsv"));
  std::string line;
  std::size_t judged = 0, rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string file, sc, tso, rc11;
    std::getline(ss, file, '\t');
    std::getline(ss, sc, '\t');
    std::getline(ss, tso, '\t');
    std::getline(ss, rc11, '\t');
    ++rows;
    const LitmusTest test = atomcheck::litmus::load_litmus(atomcheck::testing::data_path("litmus-c/" + file));
    std::optional<rc11naive::Program> p = translate(test);
    if (!p) continue;
    ++judged;
    EXPECT_EQ(answer(test, *p, rc11naive::outcomes_rc11(*p)), rc11) << file << "\n" << rc11naive::describe(*p);
    EXPECT_EQ(answer(test, *p, rc11naive::outcomes_sc(*p)), sc) << file << "\n" << rc11naive::describe(*p);
  }
  std::printf("judged %zu of %zu bundled C litmus tests with the RC11 judge\n", judged, rows);
  EXPECT_GE(judged, 20u);  // the classic shapes are all straight-line over atomics
}

}  // namespace
