// herd7's C dialect, the parser: threads `P0 (atomic_int* x, int* y) { ... }` with C11
// atomics (atomic_load/store/exchange/compare_exchange/fetch_op, explicit or seq_cst, and
// atomic_thread_fence), plain `*x` accesses, int locals, expressions and if/else. The
// init block and the condition are the shared state grammar (litmus_parser.hpp); the
// program is tokenised and parsed here into CThread's flat vectors, which
// litmus_c_run.cpp runs on the scheduler API.
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "specs/litmus.hpp"
#include "specs/litmus_parser.hpp"

namespace atomcheck::litmus {

namespace {

using namespace detail;  // the parser's helpers

constexpr const char* kCalls =
    "atomcheck reads atomic_load, atomic_store, atomic_exchange, "
    "atomic_compare_exchange_strong/weak, atomic_fetch_add/sub/and/or/xor (each also "
    "_explicit) and atomic_thread_fence";

struct OrderName {
  const char* name;
  std::memory_order order;
};
constexpr std::array<OrderName, 6> kOrders = {{
    {"memory_order_relaxed", std::memory_order_relaxed},
    {"memory_order_consume", std::memory_order_consume},
    {"memory_order_acquire", std::memory_order_acquire},
    {"memory_order_release", std::memory_order_release},
    {"memory_order_acq_rel", std::memory_order_acq_rel},
    {"memory_order_seq_cst", std::memory_order_seq_cst},
}};

// Binary operators by C precedence (higher binds tighter).
struct BinOp {
  const char* text;
  int prec;
  CExpr::Op op;
};
constexpr std::array<BinOp, 18> kBinOps = {{
    {"*", 10, CExpr::Op::mul},  {"/", 10, CExpr::Op::div},  {"%", 10, CExpr::Op::mod},
    {"+", 9, CExpr::Op::add},   {"-", 9, CExpr::Op::sub},   {"<<", 8, CExpr::Op::shl},
    {">>", 8, CExpr::Op::shr},  {"<", 7, CExpr::Op::lt},    {"<=", 7, CExpr::Op::le},
    {">", 7, CExpr::Op::gt},    {">=", 7, CExpr::Op::ge},   {"==", 6, CExpr::Op::eq},
    {"!=", 6, CExpr::Op::ne},   {"&", 5, CExpr::Op::band},  {"^", 4, CExpr::Op::bxor},
    {"|", 3, CExpr::Op::bor},   {"&&", 2, CExpr::Op::land}, {"||", 1, CExpr::Op::lor},
}};

// Words that start a declaration of a local (a type) rather than a statement.
bool is_type_word(std::string_view w) {
  static constexpr std::array<std::string_view, 20> kTypes = {
      "int",     "long",    "short",    "char",     "unsigned", "signed",   "const",
      "volatile", "int8_t", "int16_t",  "int32_t",  "int64_t",  "uint8_t",  "uint16_t",
      "uint32_t", "uint64_t", "intptr_t", "size_t", "__int128", "_Bool"};
  return std::find(kTypes.begin(), kTypes.end(), w) != kTypes.end();
}

// A parameter of the thread being parsed: a location, or an array of the init block
// (`var` its element 0).
struct Param {
  std::string name;
  std::uint32_t var = kNoVar;
  std::uint32_t extent = 1;
};

// Where an access goes: element `var` of `param`'s array, or (indexed) the element the
// value of expression `index` chooses.
struct Address {
  const Param& param;
  std::uint32_t var = kNoVar;
  bool indexed = false;
  std::uint32_t index = 0;
};

class CParser final : public LitmusParser {
 public:
  CParser(std::string_view text, std::string_view file) : LitmusParser(text, file, true) {}

 private:
  // ---- the hooks ----

  void set_arch(std::string_view arch, std::size_t pos) override {
    if (arch != "C")
      fail(pos, fmt::format("unsupported architecture '{}' (atomcheck reads X86, X86_64 and C "
                            "litmus tests)",
                            arch));
    test_.arch = Arch::c;
  }

  int register_of(int thread, const Token& t) override {
    if (in_init_)
      fail(t.offset, "C locals cannot be initialised in the init block (initialise them in "
                     "their thread)");
    if (thread < 0 || static_cast<std::size_t>(thread) >= test_.c_threads.size())
      fail(t.offset, fmt::format("thread {} does not exist (the test has {} threads)", thread,
                                 test_.c_threads.size()));
    const auto& locals = test_.c_threads[static_cast<std::size_t>(thread)].locals;
    auto it = std::find(locals.begin(), locals.end(), t.text);
    if (t.kind != Token::Kind::ident || it == locals.end())
      fail(t.offset, fmt::format("P{} has no local {}", thread, shown_text(t)));
    return static_cast<int>(it - locals.begin());
  }

  std::string reg_name(int thread, int reg) const override {
    return test_.c_threads[static_cast<std::size_t>(thread)].locals[static_cast<std::size_t>(reg)];
  }
  std::size_t thread_count() const override { return test_.c_threads.size(); }

  // ---- tokens ----

  std::vector<Token> c_tokens(std::size_t b, std::size_t e) const {
    static constexpr std::array<const char*, 16> kTwo = {"&&", "||", "==", "!=", "<=", ">=", "<<", ">>",
                                                         "->", "++", "--", "+=", "-=", "|=", "&=", "^="};
    std::vector<Token> out;
    std::size_t i = b;
    while (i < e) {
      char c = clean_[i];
      if (is_space(c)) {
        ++i;
        continue;
      }
      if (c == '/' && i + 1 < e && clean_[i + 1] == '/') {  // C line comment
        while (i < e && clean_[i] != '\n') ++i;
        continue;
      }
      Token t;
      t.offset = i;
      if (std::isdigit(static_cast<unsigned char>(c))) {
        std::size_t j = i;
        while (j < e && std::isalnum(static_cast<unsigned char>(clean_[j]))) ++j;
        t.kind = Token::Kind::number;
        t.text = std::string(range(i, j));
        if (!parse_int(t.text, t.number)) fail(i, fmt::format("bad number '{}'", t.text));
        i = j;
      } else if (is_ident_start(c)) {
        std::size_t j = i;
        while (j < e && (std::isalnum(static_cast<unsigned char>(clean_[j])) || clean_[j] == '_')) ++j;
        t.kind = Token::Kind::ident;
        t.text = std::string(range(i, j));
        i = j;
      } else {
        t.kind = Token::Kind::sym;
        t.text = std::string(1, c);
        for (const char* two : kTwo)
          if (i + 1 < e && c == two[0] && clean_[i + 1] == two[1]) t.text = two;
        i += t.text.size();
      }
      out.push_back(std::move(t));
    }
    return out;
  }

  // ---- the program: P0 (params) { body } ... ----

  void parse_program(std::size_t b, std::size_t e) override {
    for (std::uint32_t v : init_atomic_) mark_atomic(v);
    std::size_t i = skip_space(b, e);
    if (i < e && clean_[i] == ';') ++i;  // `};` closes the init block
    std::vector<Token> toks = c_tokens(i, e);
    std::size_t end = e;  // where "end of file" points: after the program's last character
    while (end > i && is_space(clean_[end - 1])) --end;
    TokenStream ts(std::move(toks), end);
    if (ts.at_end()) fail(ts.offset(), "unexpected end of file: missing the threads 'P0 (...) { ... }'");
    while (!ts.at_end()) parse_thread(ts);
  }

  void expect(TokenStream& ts, const char* s, const char* where) {
    if (!ts.sym(s)) fail(ts.offset(), fmt::format("expected '{}' {}, found {}", s, where, shown_text(ts.peek())));
    ts.next();
  }

  void parse_thread(TokenStream& ts) {
    const Token& head = ts.peek();
    std::string want = fmt::format("P{}", test_.c_threads.size());
    if (head.kind != Token::Kind::ident || head.text != want)
      fail(head.offset, fmt::format("expected the thread '{} (...) {{ ... }}', found {}", want, shown_text(head)));
    ts.next();
    test_.c_threads.emplace_back();
    thread_ = &test_.c_threads.back();
    params_.clear();
    expect(ts, "(", fmt::format("after {}", want).c_str());
    if (ts.sym(")")) ts.next();
    else
      while (true) {
        parse_param(ts);
        if (ts.sym(",")) {
          ts.next();
          continue;
        }
        expect(ts, ")", "after the parameters");
        break;
      }
    expect(ts, "{", fmt::format("to open the body of {}", want).c_str());
    while (!ts.sym("}")) {
      if (ts.at_end()) fail(ts.offset(), fmt::format("unexpected end of file in {} (missing '}}')", want));
      parse_statement(ts);
    }
    ts.next();
  }

  // [type words] * name, or [type words] name[N] / name[]: the type says whether the
  // location is atomic. An array of the init block is passed by its name.
  void parse_param(TokenStream& ts) {
    bool atomic = false, pointer = false;
    std::size_t start = ts.offset();
    Token name;
    while (!ts.sym(",") && !ts.sym(")")) {
      if (ts.at_end()) fail(ts.offset(), "unexpected end of file in the parameters");
      Token t = ts.next();
      if (t.kind == Token::Kind::ident) {
        if (t.text == "_Atomic" || t.text.rfind("atomic_", 0) == 0) atomic = true;
        name = t;
      } else if (t.text == "*") {
        pointer = true;
      } else if (t.text == "[" && name.kind == Token::Kind::ident) {  // `int y[2]`, `int y[]`
        if (ts.peek().kind == Token::Kind::number) ts.next();
        expect(ts, "]", "to close the parameter's '['");
        pointer = true;
      } else {
        fail(t.offset, fmt::format("unexpected {} in a parameter", shown_text(t)));
      }
    }
    if (name.kind != Token::Kind::ident) fail(start, "missing parameter name");
    if (!pointer)
      fail(name.offset, fmt::format("parameter '{}' must be a pointer (herd's C threads take "
                                    "their locations as 'int* {}')",
                                    name.text, name.text));
    Param p{name.text, kNoVar, 1};
    if (const Test::Array* a = array_named(name.text)) {
      p.var = a->first;
      p.extent = a->extent;
    } else {
      p.var = intern_var(name.text);
    }
    if (param_of(name.text) != nullptr) fail(name.offset, fmt::format("parameter '{}' twice", name.text));
    params_.push_back(p);
    thread_->params.push_back(p.var);
    if (atomic) mark_atomic(p);
  }

  void mark_atomic(std::uint32_t var) {
    if (test_.var_atomic.size() <= var) test_.var_atomic.resize(var + 1, false);
    test_.var_atomic[var] = true;
  }
  // An array is atomic or not as a whole, as its C type is.
  void mark_atomic(const Param& p) {
    for (std::uint32_t i = 0; i < p.extent; ++i) mark_atomic(p.var + i);
  }

  // ---- statements ----

  // The parser recurses once an `if` and a block, and once a parenthesis, a unary
  // operator and a call in an expression (a chain of binary operators is a loop; the
  // operands of tighter ones add a call a precedence level at most). Deeper input is
  // refused in one line; the runner does not recurse (CRunner).
  static constexpr int kMaxStatementDepth = 64;
  static constexpr int kMaxExpressionDepth = 64;
  Nesting statement_level(const TokenStream& ts) {
    return Nesting(*this, statement_depth_, kMaxStatementDepth, ts.offset(), "statements", "'if' and '{ }' block");
  }
  Nesting expression_level(const TokenStream& ts) {
    return Nesting(*this, expression_depth_, kMaxExpressionDepth, ts.offset(), "expressions",
                   "parenthesis, unary operator and call");
  }

  std::uint32_t add_stmt(CStmt s, std::size_t offset) {
    s.line = line_of(offset);
    thread_->stmts.push_back(s);
    return static_cast<std::uint32_t>(thread_->stmts.size() - 1);
  }

  std::uint32_t declare(const Token& name) {
    auto& locals = thread_->locals;
    if (param_of(name.text) != nullptr)
      fail(name.offset, fmt::format("local '{}' has the name of a location", name.text));
    auto it = std::find(locals.begin(), locals.end(), name.text);
    if (it != locals.end()) return static_cast<std::uint32_t>(it - locals.begin());
    locals.push_back(name.text);
    return static_cast<std::uint32_t>(locals.size() - 1);
  }

  const Param* param_of(const std::string& name) const {
    for (const Param& p : params_)
      if (p.name == name) return &p;
    return nullptr;
  }

  std::uint32_t local_of(const Token& t) const {
    const auto& locals = thread_->locals;
    auto it = std::find(locals.begin(), locals.end(), t.text);
    return it == locals.end() ? kNoVar : static_cast<std::uint32_t>(it - locals.begin());
  }

  // The parameter a name token names; fails naming `what` otherwise.
  const Param& param_token(const Token& t, const std::string& what) {
    const Param* p = t.kind == Token::Kind::ident ? param_of(t.text) : nullptr;
    if (p == nullptr) {
      if (t.kind == Token::Kind::ident)
        fail(t.offset, fmt::format("undeclared location '{}'{}{} (not a parameter of P{})", t.text,
                                   what.empty() ? "" : " ", what, test_.c_threads.size() - 1));
      fail(t.offset, fmt::format("expected a location{}{}, found {}", what.empty() ? "" : " ", what, shown_text(t)));
    }
    return *p;
  }

  // The element `index` of parameter `p`'s array: a constant index is checked and folded
  // now; any other is evaluated when the access runs.
  Address element(const Param& p, std::uint32_t index, std::size_t offset) {
    const CExpr& x = thread_->exprs[index];
    if (x.kind == CExpr::Kind::constant) {
      if (x.value < 0 || x.value >= p.extent)
        fail(offset, fmt::format("index {} is out of {} (of {} element{})", x.value, p.name, p.extent,
                                 p.extent == 1 ? "" : "s"));
      return {p, p.var + static_cast<std::uint32_t>(x.value), false, 0};
    }
    return {p, p.var, true, index};
  }

  // An address: `x` (a parameter: its element 0), `x + e`, `&x[e]`, `(address)`. `e` is
  // any int expression: `x + (r0 - r0)` is an address dependency.
  Address address(TokenStream& ts, const std::string& what) {
    if (ts.sym("(")) {
      Nesting level = expression_level(ts);
      ts.next();
      Address a = address(ts, what);
      expect(ts, ")", "to close the address");
      return a;
    }
    if (ts.sym("&")) {
      ts.next();
      const Param& p = param_token(ts.next(), what);
      if (!ts.sym("["))
        fail(ts.offset(), fmt::format("expected '[' after '&{}' ('{}' is already an address)", p.name, p.name));
      std::size_t at = ts.next().offset;
      std::uint32_t index = parse_expr(ts);
      expect(ts, "]", "to close the index");
      return element(p, index, at);
    }
    const Token name = ts.next();
    const Param& p = param_token(name, what);
    if (ts.sym("["))
      fail(ts.offset(), fmt::format("'{}[...]' is an element, not an address: write '&{}[...]' or '{} + ...'",
                                    name.text, name.text, name.text));
    if (!ts.sym("+")) return {p, p.var, false, 0};
    std::size_t at = ts.next().offset;
    return element(p, parse_expr(ts), at);
  }

  // The location argument of an atomic_* call, marked atomic.
  Address location_arg(TokenStream& ts, const std::string& fn) {
    Address a = address(ts, fmt::format("in {}", fn));
    mark_atomic(a.param);
    return a;
  }
  template <class Access>
  static void set_address(Access& x, const Address& a) {
    x.var = a.var;
    x.indexed = a.indexed;
    x.index = a.index;
    x.extent = a.param.extent;
  }

  // A plain lvalue after `*`: `*x` or `*(address)`; or `y[e]`.
  Address plain_location(TokenStream& ts) {
    if (ts.sym("(")) return address(ts, "");
    const Param& p = param_token(ts.next(), "");
    return {p, p.var, false, 0};
  }
  Address indexed_location(TokenStream& ts) {
    const Param& p = param_token(ts.next(), "");
    std::size_t at = ts.next().offset;  // '['
    std::uint32_t index = parse_expr(ts);
    expect(ts, "]", "to close the index");
    return element(p, index, at);
  }

  void parse_statement(TokenStream& ts) {
    const Token& t = ts.peek();
    if (ts.sym(";")) {
      ts.next();
      return;
    }
    if (ts.sym("{")) {
      Nesting level = statement_level(ts);
      ts.next();
      while (!ts.sym("}")) {
        if (ts.at_end()) fail(ts.offset(), "unexpected end of file in a block (missing '}')");
        parse_statement(ts);
      }
      ts.next();
      return;
    }
    if (t.kind == Token::Kind::ident) {
      if (t.text == "if") return parse_if(ts);
      if (t.text == "while" || t.text == "for" || t.text == "do" || t.text == "goto")
        fail(t.offset, fmt::format("loops ('{}') are not supported", t.text));
      if (t.text == "return" || t.text == "switch" || t.text == "break")
        fail(t.offset, fmt::format("'{}' is not supported", t.text));
      // A type name: a known one, or any word followed by a name or '*' (`__int128_t r1`).
      bool typed = ts.peek(1).kind == Token::Kind::ident || (ts.sym("*", 1) && ts.peek(2).kind == Token::Kind::ident && ts.sym("=", 3));
      if (is_type_word(t.text) || t.text == "_Atomic" || (typed && t.text != "else")) return parse_declaration(ts);
    }
    std::size_t at = t.offset;
    const bool element_store = t.kind == Token::Kind::ident && ts.sym("[", 1) && param_of(t.text) != nullptr;
    if (ts.sym("*") || element_store) {  // *x = e; *(y + r0) = e; y[r0] = e;
      Address a = element_store ? indexed_location(ts) : (ts.next(), plain_location(ts));
      expect(ts, "=", "after the location (atomcheck reads '*x = value;')");
      CStmt s;
      s.kind = CStmt::Kind::store;
      set_address(s, a);
      s.plain = true;
      s.order = std::memory_order_relaxed;
      s.expr = parse_expr(ts);
      end_statement(ts);
      add_stmt(s, at);
      return;
    }
    if (t.kind == Token::Kind::ident && ts.sym("=", 1)) {  // r = e;
      Token name = ts.next();
      std::uint32_t local = local_of(name);
      if (local == kNoVar) {
        if (param_of(name.text) != nullptr)
          fail(name.offset, fmt::format("'{}' is a location: write '*{} = ...' or atomic_store", name.text, name.text));
        fail(name.offset, fmt::format("undeclared local '{}'", name.text));
      }
      ts.next();
      CStmt s;
      s.kind = CStmt::Kind::assign;
      s.local = local;
      s.expr = parse_expr(ts);
      end_statement(ts);
      add_stmt(s, at);
      return;
    }
    if (t.kind == Token::Kind::ident && ts.sym("(", 1)) {
      if (t.text == "atomic_store" || t.text == "atomic_store_explicit") return parse_store(ts);
      if (t.text == "atomic_thread_fence") return parse_fence(ts);
      CStmt s;
      s.kind = CStmt::Kind::eval;
      s.expr = parse_expr(ts);
      end_statement(ts);
      add_stmt(s, at);
      return;
    }
    fail(t.offset, fmt::format("expected a statement, found {}", shown_text(t)));
  }

  void end_statement(TokenStream& ts) {
    if (!ts.sym(";"))
      fail(ts.offset(), fmt::format("expected ';' at the end of the statement, found {}", shown_text(ts.peek())));
    ts.next();
  }

  // type words, then name [= expr] {, name [= expr]} ;
  void parse_declaration(TokenStream& ts) {
    while (ts.peek().kind == Token::Kind::ident && (ts.peek(1).kind == Token::Kind::ident || ts.sym("*", 1)))
      ts.next();
    while (true) {
      if (ts.sym("*")) fail(ts.offset(), "local pointers are not supported (only 'int' locals)");
      Token name = ts.next();
      if (name.kind != Token::Kind::ident)
        fail(name.offset, fmt::format("expected the name of a local, found {}", shown_text(name)));
      if (ts.sym("[")) fail(ts.offset(), "local arrays are not supported (declare arrays in the init block)");
      std::uint32_t local = declare(name);
      CStmt s;
      s.kind = CStmt::Kind::assign;
      s.local = local;
      if (ts.sym("=")) {
        ts.next();
        s.expr = parse_expr(ts);
      } else {
        s.expr = add_expr({});  // uninitialised locals read 0, as herd's do
      }
      add_stmt(s, name.offset);
      if (!ts.sym(",")) break;
      ts.next();
    }
    end_statement(ts);
  }

  void parse_if(TokenStream& ts) {
    Nesting level = statement_level(ts);
    std::size_t at = ts.next().offset;
    expect(ts, "(", "after 'if'");
    CStmt s;
    s.kind = CStmt::Kind::branch;
    s.expr = parse_expr(ts);
    expect(ts, ")", "after the condition of 'if'");
    std::uint32_t at_if = add_stmt(s, at);
    std::size_t before = thread_->stmts.size();
    parse_statement(ts);
    thread_->stmts[at_if].then_count = static_cast<std::uint32_t>(thread_->stmts.size() - before);
    if (ts.word("else")) {
      ts.next();
      before = thread_->stmts.size();
      parse_statement(ts);
      thread_->stmts[at_if].else_count = static_cast<std::uint32_t>(thread_->stmts.size() - before);
    }
  }

  std::memory_order order_arg(TokenStream& ts, std::string_view fn, std::string_view what) {
    Token t = ts.next();
    for (const OrderName& o : kOrders)
      if (t.kind == Token::Kind::ident && t.text == o.name) {
        std::memory_order mo = o.order;
        bool bad = (what == "load" && (mo == std::memory_order_release || mo == std::memory_order_acq_rel)) ||
                   (what == "store" && mo != std::memory_order_relaxed && mo != std::memory_order_release &&
                    mo != std::memory_order_seq_cst) ||
                   (what == "failure" && (mo == std::memory_order_release || mo == std::memory_order_acq_rel));
        if (bad) fail(t.offset, fmt::format("{} is not a valid order for {}", t.text, fn));
        return mo;
      }
    fail(t.offset, fmt::format("bad memory order {} in {} (memory_order_relaxed, _consume, _acquire, "
                               "_release, _acq_rel or _seq_cst)",
                               shown_text(t), fn));
  }

  // Reads `(` name and returns whether the call is an _explicit one.
  bool open_call(TokenStream& ts, std::string& fn) {
    fn = ts.next().text;
    ts.next();  // '('
    return fn.size() > 9 && fn.compare(fn.size() - 9, 9, "_explicit") == 0;
  }

  void comma(TokenStream& ts, const std::string& fn) { expect(ts, ",", fmt::format("between the arguments of {}", fn).c_str()); }

  void parse_store(TokenStream& ts) {
    std::size_t at = ts.offset();
    std::string fn;
    bool explicit_order = open_call(ts, fn);
    CStmt s;
    s.kind = CStmt::Kind::store;
    set_address(s, location_arg(ts, fn));
    comma(ts, fn);
    s.expr = parse_expr(ts);
    if (explicit_order) {
      comma(ts, fn);
      s.order = order_arg(ts, fn, "store");
    }
    expect(ts, ")", fmt::format("to close {}", fn).c_str());
    end_statement(ts);
    add_stmt(s, at);
  }

  void parse_fence(TokenStream& ts) {
    std::size_t at = ts.offset();
    std::string fn;
    open_call(ts, fn);
    CStmt s;
    s.kind = CStmt::Kind::fence;
    s.order = order_arg(ts, fn, "fence");
    expect(ts, ")", "to close atomic_thread_fence");
    end_statement(ts);
    add_stmt(s, at);
  }

  // ---- expressions ----

  std::uint32_t add_expr(CExpr e) {
    thread_->exprs.push_back(e);
    return static_cast<std::uint32_t>(thread_->exprs.size() - 1);
  }

  std::uint32_t parse_expr(TokenStream& ts, int min_prec = 1) {
    std::uint32_t lhs = parse_unary(ts);
    while (ts.peek().kind == Token::Kind::sym) {
      const BinOp* op = nullptr;
      for (const BinOp& b : kBinOps)
        if (ts.peek().text == b.text) op = &b;
      if (op == nullptr || op->prec < min_prec) break;
      ts.next();
      std::uint32_t rhs = parse_expr(ts, op->prec + 1);
      CExpr e;
      e.kind = CExpr::Kind::binary;
      e.op = op->op;
      e.a = lhs;
      e.b = rhs;
      lhs = add_expr(e);
    }
    return lhs;
  }

  std::uint32_t parse_unary(TokenStream& ts) {
    if (ts.at_end()) fail(ts.offset(), "unexpected end of file in an expression");
    const Token& t = ts.peek();
    if (ts.sym("!") || ts.sym("-") || ts.sym("~") || ts.sym("+")) {
      Nesting level = expression_level(ts);
      char c = ts.next().text[0];
      std::uint32_t a = parse_unary(ts);
      if (c == '+') return a;
      CExpr e;
      e.kind = CExpr::Kind::unary;
      e.op = c == '!' ? CExpr::Op::lnot : c == '-' ? CExpr::Op::neg : CExpr::Op::bnot;
      e.a = a;
      return add_expr(e);
    }
    if (ts.sym("(")) {
      Nesting level = expression_level(ts);
      ts.next();
      std::uint32_t e = parse_expr(ts);
      expect(ts, ")", "to close the parenthesis");
      return e;
    }
    const bool element_load = t.kind == Token::Kind::ident && ts.sym("[", 1) && param_of(t.text) != nullptr;
    if (ts.sym("*") || element_load) {  // a plain load: *x, *(y + r0), y[r0]
      Nesting level = expression_level(ts);
      Address a = element_load ? indexed_location(ts) : (ts.next(), plain_location(ts));
      CExpr e;
      e.kind = CExpr::Kind::load;
      set_address(e, a);
      e.plain = true;
      e.order = std::memory_order_relaxed;
      return add_expr(e);
    }
    if (t.kind == Token::Kind::number) {
      CExpr e;
      e.value = ts.next().number;
      return add_expr(e);
    }
    if (t.kind == Token::Kind::ident && (ts.sym("(", 1) || ts.sym("{", 1))) return parse_call(ts);
    if (t.kind == Token::Kind::ident) {
      if (t.text == "true" || t.text == "false") {
        CExpr e;
        e.value = ts.next().text == "true" ? 1 : 0;
        return add_expr(e);
      }
      std::uint32_t local = local_of(t);
      if (local == kNoVar) {
        if (param_of(t.text) != nullptr)
          fail(t.offset, fmt::format("'{}' is a location: write '*{}' or atomic_load to read it", t.text, t.text));
        fail(t.offset, fmt::format("undeclared local '{}'", t.text));
      }
      ts.next();
      CExpr e;
      e.kind = CExpr::Kind::local;
      e.local = local;
      return add_expr(e);
    }
    fail(t.offset, fmt::format("expected an expression, found {}", shown_text(t)));
  }

  std::uint32_t parse_call(TokenStream& ts) {
    Nesting level = expression_level(ts);
    const Token& t = ts.peek();
    std::string name = t.text;
    std::string base = name;
    if (base.size() > 9 && base.compare(base.size() - 9, 9, "_explicit") == 0) base.resize(base.size() - 9);
    static const std::map<std::string, CExpr::Rmw, std::less<>> kRmw = {
        {"atomic_exchange", CExpr::Rmw::exchange}, {"atomic_fetch_add", CExpr::Rmw::add},
        {"atomic_fetch_sub", CExpr::Rmw::sub},     {"atomic_fetch_and", CExpr::Rmw::band},
        {"atomic_fetch_or", CExpr::Rmw::bor},      {"atomic_fetch_xor", CExpr::Rmw::bxor}};
    bool known = base == "atomic_load" || kRmw.count(base) != 0 || base == "atomic_compare_exchange_strong" ||
                 base == "atomic_compare_exchange_weak";
    if (base == "atomic_store" || base == "atomic_thread_fence")
      fail(t.offset, fmt::format("{} returns nothing: it is a statement of its own", name));
    if (!known) fail(t.offset, fmt::format("unknown function '{}' ({})", name, kCalls));
    std::string fn;
    bool explicit_order = open_call(ts, fn);
    CExpr e;
    set_address(e, location_arg(ts, fn));
    if (base == "atomic_load") {
      e.kind = CExpr::Kind::load;
      if (explicit_order) {
        comma(ts, fn);
        e.order = order_arg(ts, fn, "load");
      }
    } else if (kRmw.count(base) != 0) {
      e.kind = CExpr::Kind::rmw;
      e.rmw = kRmw.find(base)->second;
      comma(ts, fn);
      e.a = parse_expr(ts);
      if (explicit_order) {
        comma(ts, fn);
        e.order = order_arg(ts, fn, "rmw");
      }
    } else {
      e.kind = CExpr::Kind::cas;
      comma(ts, fn);
      if (ts.sym("&")) {  // &r: a local
        ts.next();
        Token r = ts.next();
        e.local = local_of(r);
        if (e.local == kNoVar) fail(r.offset, fmt::format("undeclared local {}", shown_text(r)));
      } else {
        // A location's plain value (herd's C16): a fixed one, not an address expression.
        Address expected = address(ts, fmt::format("in {}", fn));
        if (expected.indexed) fail(ts.offset(), fmt::format("the expected value of {} must be a fixed location", fn));
        e.expected_var = expected.var;
      }
      comma(ts, fn);
      e.a = parse_expr(ts);
      if (explicit_order) {
        comma(ts, fn);
        e.order = order_arg(ts, fn, "rmw");
        comma(ts, fn);
        e.failure_order = order_arg(ts, fn, "failure");
      }
    }
    expect(ts, ")", fmt::format("to close {}", fn).c_str());
    return add_expr(e);
  }

  std::vector<Param> params_;  // the parameters of the thread being parsed
  CThread* thread_ = nullptr;  // the thread being parsed
  int statement_depth_ = 0;    // the ifs and blocks parse_statement is inside
  int expression_depth_ = 0;   // the parentheses, unary operators and calls parse_unary is inside
};

}  // namespace

namespace detail {

Test parse_c(std::string_view text, std::string_view file) {
  Test t = CParser(text, file).parse();
  t.var_atomic.resize(t.vars.size(), false);
  return t;
}

}  // namespace detail

}  // namespace atomcheck::litmus
