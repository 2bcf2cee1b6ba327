// libFuzzer target for the herd7 litmus parser (specs/litmus.cpp, litmus_x86.cpp,
// litmus_c.cpp, litmus_parser.hpp; linked with the C runner, litmus_c_run.cpp and
// litmus_c_races.cpp, which it never calls), built twice: litmus_x86_fuzzer (seeds: X86 and
// X86_64 tests) and litmus_c_fuzzer (seeds: C tests). Both call the public entry,
// parse_litmus, which picks the dialect from the title as `atomcheck run` does.
//
// Any byte string must either parse or raise exactly one LitmusError whose message is
// one line `fuzz.litmus:LINE:COL: ...`. A test that parses must be one the runner can
// run: every index it holds (variables, registers, locals, expressions, statements,
// condition nodes, observed locations) in range, and the pure functions `atomcheck run`
// calls on it before exploring (location_name, condition_text, eval_proposition,
// eval_filter) must work. Anything else (a crash, a sanitizer report, another exception,
// a multi-line message, a test the runner would index out of bounds) aborts: a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include "specs/litmus.hpp"

namespace {

using namespace atomcheck::litmus;

[[noreturn]] void bad(const char* what) {
  std::fprintf(stderr, "litmus fuzz target: the parsed test breaks the runner's assumptions: %s\n", what);
  std::abort();
}
void require(bool ok, const char* what) {
  if (!ok) bad(what);
}

bool reg_ok(int r) { return r >= 0 && r < kRegisterCount; }

// Every proposition node reachable from `root` in range and the graph acyclic (the
// printer and the evaluator recurse on it). Iterative, with colours (0 new, 1 on the
// path, 2 done), so that a deep condition overflows the parser's or the printer's stack,
// never this check's: the report then names the code at fault.
void check_nodes(const Test& t, std::uint32_t root, std::vector<char>& colour) {
  const auto& nodes = t.condition.nodes;
  std::vector<std::pair<std::uint32_t, bool>> todo{{root, false}};  // (node, children pushed)
  while (!todo.empty()) {
    auto [i, expanded] = todo.back();
    todo.pop_back();
    require(i < nodes.size(), "a condition node index out of range");
    if (expanded) {
      colour[i] = 2;
      continue;
    }
    if (colour[i] == 2) continue;
    require(colour[i] != 1, "the condition's nodes form a cycle");
    colour[i] = 1;
    todo.push_back({i, true});
    const CondNode& n = nodes[i];
    switch (n.kind) {
      case CondNode::Kind::atom: require(n.loc < t.observed.size(), "an atom's location out of range"); break;
      case CondNode::Kind::same:
        require(n.loc < t.observed.size() && n.loc2 < t.observed.size(), "a location=location atom out of range");
        break;
      case CondNode::Kind::negation: todo.push_back({n.lhs, false}); break;
      case CondNode::Kind::conj:
      case CondNode::Kind::disj:
      case CondNode::Kind::implies:
        todo.push_back({n.lhs, false});
        todo.push_back({n.rhs, false});
        break;
      case CondNode::Kind::truth:
      case CondNode::Kind::falsity: break;
    }
  }
}

void check_x86(const Test& t) {
  require(t.c_threads.empty(), "an X86 test with C threads");
  require(t.reg_init.size() == t.threads.size(), "reg_init does not have one row per thread");
  for (const auto& row : t.reg_init) require(row.size() == kRegisterCount, "a reg_init row is not kRegisterCount long");
  for (const auto& code : t.threads) {
    for (const Instr& in : code) {
      switch (in.op) {
        case Opcode::store:
          require(in.var < t.vars.size(), "a store's variable out of range");
          require(in.src.is_imm || reg_ok(in.src.reg), "a store's source register out of range");
          break;
        case Opcode::load: require(in.var < t.vars.size() && reg_ok(in.reg), "a load's operands out of range"); break;
        case Opcode::move:
          require(reg_ok(in.reg) && (in.src.is_imm || reg_ok(in.src.reg)), "a move's registers out of range");
          break;
        case Opcode::mfence: break;
        case Opcode::xchg:
        case Opcode::cmpxchg:
        case Opcode::xadd:
          require(in.var < t.vars.size() && reg_ok(in.reg), "a locked instruction's operands out of range");
          break;
      }
    }
  }
  for (const Location& l : t.observed)
    if (l.is_reg)
      require(l.thread >= 0 && static_cast<std::size_t>(l.thread) < t.threads.size() && reg_ok(l.reg),
              "an observed register out of range");
}

// The expression tree under `root` in range and acyclic (CRunner::eval recurses on it);
// iterative like check_nodes.
// An access's location: in range, and for an indexed one every element of its array
// (the index chooses one at run time) in range and, for an RMW, atomic.
template <class Access>
void check_address(const Test& t, const Access& x, bool needs_atomic, const char* what) {
  const std::uint64_t n = x.indexed ? x.extent : 1;
  require(x.extent >= 1 && x.var < t.vars.size() && x.var + n <= t.vars.size(), what);
  for (std::uint64_t i = 0; i < n && needs_atomic; ++i)
    require(t.var_atomic[x.var + i], "a read-modify-write on a location that is not atomic");
}

void check_exprs(const Test& t, const CThread& th, std::uint32_t root, std::vector<char>& colour) {
  std::vector<std::pair<std::uint32_t, bool>> todo{{root, false}};
  while (!todo.empty()) {
    auto [i, expanded] = todo.back();
    todo.pop_back();
    require(i < th.exprs.size(), "an expression index out of range");
    if (expanded) {
      colour[i] = 2;
      continue;
    }
    if (colour[i] == 2) continue;
    require(colour[i] != 1, "a thread's expressions form a cycle");
    colour[i] = 1;
    todo.push_back({i, true});
    const CExpr& x = th.exprs[i];
    if (x.indexed && (x.kind == CExpr::Kind::load || x.kind == CExpr::Kind::rmw || x.kind == CExpr::Kind::cas))
      todo.push_back({x.index, false});
    switch (x.kind) {
      case CExpr::Kind::constant: break;
      case CExpr::Kind::local: require(x.local < th.locals.size(), "a local out of range"); break;
      case CExpr::Kind::load: check_address(t, x, false, "a load's variable out of range"); break;
      case CExpr::Kind::rmw:
        // CMemory::at indexes the atomics: the location must be one.
        check_address(t, x, true, "a read-modify-write's variable out of range");
        todo.push_back({x.a, false});
        break;
      case CExpr::Kind::cas:
        check_address(t, x, true, "a compare-exchange's variable out of range");
        require(x.expected_var == kNoVar ? x.local < th.locals.size() : x.expected_var < t.vars.size(),
                "a compare-exchange's expected value out of range");
        todo.push_back({x.a, false});
        break;
      case CExpr::Kind::unary: todo.push_back({x.a, false}); break;
      case CExpr::Kind::binary:
        todo.push_back({x.a, false});
        todo.push_back({x.b, false});
        break;
    }
  }
}

// The statements as CRunner::run walks them: a branch's then and else parts lie inside
// the block that holds the branch. Iterative (a stack of block ends).
void check_stmts(const Test& t, const CThread& th, std::vector<char>& colour) {
  std::vector<std::size_t> ends{th.stmts.size()};
  for (std::size_t i = 0; i < th.stmts.size(); ++i) {
    while (i >= ends.back()) ends.pop_back();  // the outermost end is stmts.size(): never popped
    const CStmt& s = th.stmts[i];
    switch (s.kind) {
      case CStmt::Kind::assign:
        require(s.local < th.locals.size(), "an assignment's local out of range");
        check_exprs(t, th, s.expr, colour);
        break;
      case CStmt::Kind::eval: check_exprs(t, th, s.expr, colour); break;
      case CStmt::Kind::store:
        check_address(t, s, false, "a store's variable out of range");
        if (s.indexed) check_exprs(t, th, s.index, colour);
        check_exprs(t, th, s.expr, colour);
        break;
      case CStmt::Kind::fence: break;
      case CStmt::Kind::branch: {
        check_exprs(t, th, s.expr, colour);
        std::size_t then_b = i + 1, else_b = then_b + s.then_count, end = else_b + s.else_count;
        require(end <= ends.back(), "an if statement's parts run past their block");
        ends.push_back(end);
        if (s.else_count > 0) ends.push_back(else_b);
        break;
      }
    }
  }
}

void check_c(const Test& t) {
  require(t.threads.empty(), "a C test with X86 threads");
  require(t.var_atomic.size() == t.vars.size(), "var_atomic does not have one entry per location");
  for (const Test::Array& a : t.arrays)
    require(a.extent >= 1 && a.first < t.vars.size() && a.first + a.extent <= t.vars.size(), "an array out of range");
  for (const CThread& th : t.c_threads) {
    for (std::uint32_t v : th.params) require(v < t.vars.size(), "a thread parameter out of range");
    std::vector<char> colour(th.exprs.size(), 0);
    check_stmts(t, th, colour);
  }
  for (const Location& l : t.observed)
    if (l.is_reg)
      require(l.thread >= 0 && static_cast<std::size_t>(l.thread) < t.c_threads.size() && l.reg >= 0 &&
                  static_cast<std::size_t>(l.reg) < t.c_threads[static_cast<std::size_t>(l.thread)].locals.size(),
              "an observed local out of range");
}

void check_test(const Test& t) {
  require(t.var_init.size() == t.vars.size(), "var_init does not have one entry per location");
  require(t.shown <= t.observed.size(), "more shown locations than observed ones");
  for (const Location& l : t.observed)
    if (!l.is_reg) require(l.var < t.vars.size(), "an observed location out of range");
  if (t.arch == Arch::c) check_c(t);
  else check_x86(t);
  std::vector<char> colour(t.condition.nodes.size(), 0);
  check_nodes(t, t.condition.root, colour);
  if (t.condition.has_filter) check_nodes(t, t.condition.filter_root, colour);

  // What `atomcheck run` computes from the test before and after exploring it.
  for (const Location& l : t.observed) (void)location_name(t, l);
  (void)condition_text(t);
  std::vector<std::int64_t> zeros(t.observed.size(), 0);
  (void)eval_proposition(t, zeros);
  (void)eval_filter(t, zeros);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Test test;
  try {
    test = parse_litmus(text, "fuzz.litmus");
  } catch (const LitmusError& e) {
    const char* m = e.what();
    if (std::strncmp(m, "fuzz.litmus:", 12) != 0 || std::strchr(m, '\n') != nullptr) {
      std::fprintf(stderr, "litmus fuzz target: not a one-line 'fuzz.litmus:LINE:COL: ...' message: %s\n", m);
      std::abort();
    }
    return 0;
  }
  check_test(test);
  return 0;
}
