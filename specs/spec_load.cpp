// The spec loader: walks the positioned JSON tree once, checking every field's name and
// type, resolving names to dense ids, and enforcing the static rules (registers defined
// before use, balanced begin/end and lock/unlock per op list, bounded loops, threads
// spawned at most once). The first problem becomes one SpecError line
// `FILE:LINE:COL: /json/pointer: message`; nothing is checked lazily at run time.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "specs/spec.hpp"

namespace atomcheck::spec {

namespace {

constexpr std::string_view kOpNames[] = {
    "load", "store", "set", "cas", "xchg", "fetch_add", "fence", "lock", "unlock",
    "begin", "end", "loop", "if", "assert", "assume", "spawn", "join", "await",
    "wait", "notify", "read_lock", "read_unlock", "write_lock", "write_unlock",
};
static_assert(std::size(kOpNames) == static_cast<std::size_t>(OpKind::write_unlock) + 1);

constexpr std::string_view kBinaryOps[] = {"+", "-", "*", "&", "|", "^", "==", "!=",
                                           "<", "<=", ">", ">=", "&&", "||"};
constexpr std::string_view kUnaryOps[] = {"!", "-"};

// Total operations executed when every loop runs to its bound: kept small so that no
// spec makes one execution run for long between visible operations.
constexpr std::uint64_t kMaxUnrolled = 1000000;

using Kind = JsonValue::Kind;

std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) out += fmt::format("\\x{:02x}", u);
    else out += c;
  }
  return out;
}

// One JSON value plus its pointer, the unit every check reports against.
struct At {
  const JsonValue& v;
  std::string ptr;
  At member(const std::string& key) const {
    return At{*v.find(key), ptr + "/" + json_pointer_token(key)};
  }
  At item(std::size_t i) const { return At{v.items[i], ptr + "/" + std::to_string(i)}; }
  // The i-th member of an object (no lookup by name: loops over members stay linear).
  At member_at(std::size_t i) const {
    return At{v.members[i].second, ptr + "/" + json_pointer_token(v.members[i].first)};
  }
};

class Loader {
 public:
  Loader(std::string_view file, Spec& spec) : file_(file), spec_(spec) {}

  void load(const JsonValue& root) {
    At top{root, ""};
    expect_kind(top, Kind::object);
    fields(top, {"atomcheck", "name", "description", "vars", "locks", "condvars", "rwlocks", "threads", "atomic_sets",
                 "units_of_work", "observe", "expect", "max_steps"});
    if (!root.find("atomcheck")) fail(top, "missing field \"atomcheck\" (the format version, 1)");
    At ver = top.member("atomcheck");
    expect_kind(ver, Kind::integer);
    if (ver.v.integer != kFormatVersion)
      fail(ver, fmt::format("unsupported format version {} (this atomcheck reads version {})",
                            ver.v.integer, kFormatVersion));
    if (root.find("name")) spec_.name = string_of(top.member("name"));
    if (root.find("description")) spec_.description = string_of(top.member("description"));
    if (root.find("max_steps")) {
      At m = top.member("max_steps");
      spec_.max_steps = static_cast<std::uint64_t>(int_in(m, 1, 100000000));
    }
    if (root.find("vars")) load_vars(top.member("vars"));
    if (root.find("locks")) load_locks(top.member("locks"));
    if (root.find("condvars")) load_names(top.member("condvars"), "condition variable", cv_ix_, spec_.condvars);
    if (root.find("rwlocks")) load_names(top.member("rwlocks"), "rwlock", rwlock_ix_, spec_.rwlocks);
    if (!root.find("threads")) fail(top, "missing field \"threads\"");
    load_threads(top.member("threads"));
    // A spec always terminates (every loop is bounded), so the step bound that catches
    // unbounded spins in C++ programs must not cut it: each operation is at most one
    // step, plus a commit per store under TSO and each thread's start and end.
    if (spec_.max_steps == 0)
      spec_.max_steps = std::max<std::uint64_t>(kDefaultMaxSteps, 2 * unrolled_ + 4 * spec_.threads.size());
    if (root.find("atomic_sets")) load_atomic_sets(top.member("atomic_sets"));
    if (root.find("units_of_work")) load_units(top.member("units_of_work"));
    if (root.find("observe")) {
      At obs = top.member("observe");
      expect_kind(obs, Kind::array);
      for (std::size_t i = 0; i < obs.v.items.size(); ++i) observe(obs.item(i), string_of(obs.item(i)));
    }
    if (root.find("expect")) load_expect(top.member("expect"));
  }

 private:
  [[noreturn]] void fail_pos(Pos p, const std::string& ptr, const std::string& msg) const {
    // Names in the message come from the input; escaping control characters keeps the
    // error on one line whatever the input holds.
    throw SpecError(one_line(fmt::format("{}:{}:{}: {}: {}", file_, p.line, p.col, ptr.empty() ? "/" : ptr, msg)));
  }
  [[noreturn]] void fail(const At& at, const std::string& msg) const { fail_pos(at.v.pos, at.ptr, msg); }

  // An await's or a wait's body is re-evaluated by the search at will: loads, sets and
  // ifs only.
  void reads_only(const std::vector<Operation>& body, const char* where) const {
    for (const Operation& op : body) {
      if (op.kind == OpKind::if_) {
        reads_only(op.body, where);
        reads_only(op.else_body, where);
      } else if (op.kind != OpKind::load && op.kind != OpKind::set) {
        fail_pos(op.origin.pos, op.origin.pointer,
                 fmt::format("\"{}\" in {}: it may only read (load, set, if), since a failed "
                             "attempt is taken back",
                             op_kind_name(op.kind), where));
      }
    }
  }

  static Origin origin(const At& at) { return Origin{at.v.pos, at.ptr}; }

  void expect_kind(const At& at, Kind k) const {
    if (at.v.kind == k) return;
    if (k == Kind::integer && at.v.kind == Kind::number)
      fail(at, fmt::format("expected an integer, got {} ({})", at.v.text.find_first_of(".eE") == std::string::npos
                                                                   ? "an integer out of the 64-bit range"
                                                                   : "a non-integer number",
                           at.v.text));
    fail(at, fmt::format("expected {}, got {}", json_kind_name(k), json_kind_name(at.v.kind)));
  }

  // Rejects members not in `allowed`, naming the first unknown one at its key.
  void fields(const At& at, std::initializer_list<std::string_view> allowed) const {
    for (std::size_t i = 0; i < at.v.members.size(); ++i) {
      const std::string& key = at.v.members[i].first;
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        std::string list;
        for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail_pos(at.v.key_pos[i], at.ptr + "/" + json_pointer_token(key),
                 fmt::format("unknown field \"{}\" (expected one of: {})", key, list));
      }
    }
  }

  At required(const At& at, const std::string& key, std::string_view why = {}) const {
    if (!at.v.find(key))
      fail(at, why.empty() ? fmt::format("missing field \"{}\"", key)
                           : fmt::format("missing field \"{}\" ({})", key, why));
    return at.member(key);
  }

  // An operation's optional "order": one of `allowed` (std::memory_order names without the
  // prefix), as a std::memory_order value; kDefaultOrder when absent.
  std::uint8_t order_of(const At& at, std::initializer_list<std::string_view> allowed) {
    if (!at.v.find("order")) return kDefaultOrder;
    At o = at.member("order");
    const std::string name = string_of(o);
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
      fail(o, fmt::format("\"{}\" is not an order of this operation ({})", name, list));
    // std::memory_order's values by name (trace.hpp's order_name is not linked into the
    // loader's fuzzer, which builds the loader alone).
    static constexpr std::string_view kNames[] = {"relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"};
    return static_cast<std::uint8_t>(std::find(std::begin(kNames), std::end(kNames), name) - std::begin(kNames));
  }

  std::string string_of(const At& at) const {
    expect_kind(at, Kind::string);
    return at.v.text;
  }

  std::int64_t int_in(const At& at, std::int64_t lo, std::int64_t hi) const {
    expect_kind(at, Kind::integer);
    if (at.v.integer < lo || at.v.integer > hi)
      fail(at, fmt::format("{} is out of range [{}, {}]", at.v.integer, lo, hi));
    return at.v.integer;
  }

  // Names of variables, locks, threads, registers and labels: non-empty, printable, and
  // free of the characters that separate names in locations and reports.
  std::string name_of(const At& at, std::string_view what) const {
    std::string s = string_of(at);
    if (s.empty()) fail(at, fmt::format("empty {} name", what));
    if (s.size() > 64) fail(at, fmt::format("{} name longer than 64 characters", what));
    for (char c : s) {
      auto u = static_cast<unsigned char>(c);
      if (u <= 0x20 || u == 0x7f || c == '.' || c == '=' || c == ',' || c == '"')
        fail(at, fmt::format("invalid {} name \"{}\" (no spaces, control characters, '.', '=', "
                             "',' or '\"')",
                             what, s));
    }
    return s;
  }

  std::uint32_t var_id(const At& at) const {
    std::string n = string_of(at);
    if (auto it = var_ix_.find(n); it != var_ix_.end()) return it->second;
    fail(at, fmt::format("undefined variable \"{}\"", n));
  }

  std::uint32_t lock_id(const At& at) const {
    std::string n = string_of(at);
    if (auto it = lock_ix_.find(n); it != lock_ix_.end()) return it->second;
    fail(at, fmt::format("undefined lock \"{}\"", n));
  }

  std::uint32_t thread_id(const At& at) const {
    std::string n = string_of(at);
    for (std::size_t i = 0; i < spec_.threads.size(); ++i)
      if (spec_.threads[i].name == n) return static_cast<std::uint32_t>(i);
    fail(at, fmt::format("undefined thread \"{}\"", n));
  }

  void load_vars(const At& at) {
    expect_kind(at, Kind::object);
    for (std::size_t i = 0; i < at.v.members.size(); ++i) {
      const std::string& key = at.v.members[i].first;
      At val = at.member_at(i);
      Variable var;
      var.name = key;
      {
        JsonValue k;
        k.kind = Kind::string;
        k.text = key;
        k.pos = at.v.key_pos[i];
        name_of(At{k, val.ptr}, "variable");
      }
      expect_kind(val, Kind::integer);
      var.init = val.v.integer;
      var.origin = origin(val);
      var_ix_.emplace(var.name, static_cast<std::uint32_t>(spec_.vars.size()));
      spec_.vars.push_back(std::move(var));
    }
  }

  void load_locks(const At& at) {
    expect_kind(at, Kind::array);
    for (std::size_t i = 0; i < at.v.items.size(); ++i) {
      At l = at.item(i);
      std::string n = name_of(l, "lock");
      if (!lock_ix_.emplace(n, static_cast<std::uint32_t>(spec_.locks.size())).second)
        fail(l, fmt::format("lock \"{}\" is declared twice", n));
      spec_.locks.push_back(n);
    }
  }

  void load_names(const At& at, const char* what, std::map<std::string, std::uint32_t>& ix,
                  std::vector<std::string>& out) {
    expect_kind(at, Kind::array);
    for (std::size_t i = 0; i < at.v.items.size(); ++i) {
      At l = at.item(i);
      std::string n = name_of(l, what);
      if (!ix.emplace(n, static_cast<std::uint32_t>(out.size())).second)
        fail(l, fmt::format("{} \"{}\" is declared twice", what, n));
      out.push_back(n);
    }
  }
  std::uint32_t named(const At& at, const char* what, const char* list,
                      const std::map<std::string, std::uint32_t>& ix) const {
    const std::string n = string_of(at);
    auto it = ix.find(n);
    if (it == ix.end()) fail(at, fmt::format("unknown {} \"{}\" (declare it in \"{}\")", what, n, list));
    return it->second;
  }

  // ---- threads ---------------------------------------------------------------------

  // Per-thread state of the static checks.
  struct ThreadCtx {
    std::uint32_t index = 0;
    std::set<std::uint32_t> spawned_here;  // threads this thread spawns (so far)
  };

  void load_threads(const At& at) {
    expect_kind(at, Kind::array);
    if (at.v.items.empty()) fail(at, "a spec needs at least one thread");
    if (at.v.items.size() > kMaxThreads) fail(at, fmt::format("more than {} threads", kMaxThreads));
    // Names first, so that spawn/join may name a thread declared later.
    for (std::size_t i = 0; i < at.v.items.size(); ++i) {
      At t = at.item(i);
      expect_kind(t, Kind::object);
      fields(t, {"name", "regs", "ops"});
      Thread th;
      th.name = name_of(required(t, "name"), "thread");
      for (const Thread& o : spec_.threads)
        if (o.name == th.name) fail(t.member("name"), fmt::format("thread \"{}\" is declared twice", th.name));
      th.origin = origin(t);
      spec_.threads.push_back(std::move(th));
    }
    spawn_count_.assign(spec_.threads.size(), 0);
    reg_ix_.assign(spec_.threads.size(), {});
    for (std::size_t i = 0; i < at.v.items.size(); ++i) {
      At t = at.item(i);
      Thread& th = spec_.threads[i];
      if (t.v.find("regs")) {
        At regs = t.member("regs");
        expect_kind(regs, Kind::object);
        for (std::size_t k = 0; k < regs.v.members.size(); ++k) {
          const std::string& key = regs.v.members[k].first;
          At val = regs.member_at(k);
          JsonValue kv;
          kv.kind = Kind::string;
          kv.text = key;
          kv.pos = regs.v.key_pos[k];
          name_of(At{kv, val.ptr}, "register");
          expect_kind(val, Kind::integer);
          reg_ix_[i].emplace(key, static_cast<std::uint32_t>(th.regs.size()));
          th.regs.push_back(key);
          th.reg_init.push_back(val.v.integer);
        }
      }
      ThreadCtx ctx;
      ctx.index = static_cast<std::uint32_t>(i);
      At ops = required(t, "ops");
      std::uint64_t cost = 0;
      th.ops = op_list(ops, ctx, 1, cost);
      unrolled_ += cost;
    }
    for (std::size_t i = 0; i < spec_.threads.size(); ++i)
      spec_.threads[i].spawned_by_op = spawn_count_[i] > 0;
    if (std::none_of(spec_.threads.begin(), spec_.threads.end(),
                     [](const Thread& t) { return !t.spawned_by_op; }))
      fail(at, "every thread is started by a spawn operation, so none ever runs");
  }

  std::uint32_t reg_use(const At& at, ThreadCtx& ctx) const {
    std::string n = string_of(at);
    const auto& ix = reg_ix_[ctx.index];
    if (auto it = ix.find(n); it != ix.end()) return it->second;
    // A quoted number is the likeliest slip: strings name registers, numbers are bare.
    bool numeric = !n.empty() && n.find_first_not_of("-0123456789") == std::string::npos;
    fail(at, fmt::format("undefined register \"{}\" (declare it in \"regs\" or assign it before "
                         "this use){}",
                         n, numeric ? fmt::format("; strings name registers: for the number write {} "
                                                  "without quotes", n)
                                    : ""));
  }

  std::uint32_t reg_def(const At& at, ThreadCtx& ctx) {
    std::string n = name_of(at, "register");
    Thread& th = spec_.threads[ctx.index];
    auto [it, fresh] = reg_ix_[ctx.index].emplace(n, static_cast<std::uint32_t>(th.regs.size()));
    if (!fresh) return it->second;
    th.regs.push_back(n);
    th.reg_init.push_back(0);
    return static_cast<std::uint32_t>(th.regs.size() - 1);
  }

  std::uint32_t expr(const At& at, ThreadCtx& ctx) {
    Expr e;
    switch (at.v.kind) {
      case Kind::integer:
        e.kind = Expr::Kind::constant;
        e.value = at.v.integer;
        break;
      case Kind::boolean:
        e.kind = Expr::Kind::constant;
        e.value = at.v.boolean ? 1 : 0;
        break;
      case Kind::string:
        e.kind = Expr::Kind::reg;
        e.reg = reg_use(at, ctx);
        break;
      case Kind::object: {
        if (at.v.members.size() != 1)
          fail(at, "an expression object has exactly one member: {\"OP\": [operands]}");
        const std::string& op = at.v.members[0].first;
        At args = at.member(op);
        bool binary = std::find(std::begin(kBinaryOps), std::end(kBinaryOps), op) != std::end(kBinaryOps);
        bool unary = std::find(std::begin(kUnaryOps), std::end(kUnaryOps), op) != std::end(kUnaryOps);
        if (!binary && !unary)
          fail_pos(at.v.key_pos[0], args.ptr,
                   fmt::format("unknown operator \"{}\" (expected one of: + - * & | ^ == != < <= > >= "
                               "&& || !)",
                               op));
        expect_kind(args, Kind::array);
        std::size_t n = args.v.items.size();
        if (!((binary && n == 2) || (unary && n == 1)))
          fail(args, fmt::format("operator \"{}\" takes {}, got {} operand{}", op,
                                 op == "-" ? "1 or 2 operands" : binary ? "2 operands" : "1 operand", n,
                                 n == 1 ? "" : "s"));
        e.op = op;
        e.lhs = expr(args.item(0), ctx);
        if (n == 2) {
          e.kind = Expr::Kind::binary;
          e.rhs = expr(args.item(1), ctx);
        } else {
          e.kind = Expr::Kind::unary;
        }
        break;
      }
      default:
        fail(at, fmt::format("expected an expression (an integer, a register name or "
                             "{{\"OP\": [operands]}}), got {}",
                             json_kind_name(at.v.kind)));
    }
    spec_.exprs.push_back(std::move(e));
    return static_cast<std::uint32_t>(spec_.exprs.size() - 1);
  }

  // The state of begin/end nesting and held locks along one op list.
  struct Balance {
    std::vector<std::pair<std::uint32_t, Origin>> held;  // lock, where acquired
    std::vector<Origin> open;                            // open begins
  };

  std::vector<Operation> op_list(const At& at, ThreadCtx& ctx, std::uint64_t multiplier,
                                 std::uint64_t& cost) {
    expect_kind(at, Kind::array);
    std::vector<Operation> out;
    Balance bal;
    for (std::size_t i = 0; i < at.v.items.size(); ++i)
      out.push_back(operation(at.item(i), ctx, bal, multiplier, cost));
    if (!bal.open.empty())
      fail_pos(bal.open.back().pos, bal.open.back().pointer,
               "\"begin\" without \"end\" (begin and end must pair up within one op list)");
    if (!bal.held.empty())
      fail_pos(bal.held.back().second.pos, bal.held.back().second.pointer,
               fmt::format("lock \"{}\" is still held at the end of its op list (lock and "
                           "unlock must pair up within one op list)",
                           spec_.locks[bal.held.back().first]));
    return out;
  }

  Operation operation(const At& at, ThreadCtx& ctx, Balance& bal, std::uint64_t multiplier,
                      std::uint64_t& cost) {
    expect_kind(at, Kind::object);
    Operation op;
    op.origin = origin(at);
    std::string name = string_of(required(at, "op"));
    auto it = std::find(std::begin(kOpNames), std::end(kOpNames), name);
    if (it == std::end(kOpNames)) {
      std::string list;
      for (std::string_view n : kOpNames) list += (list.empty() ? "" : ", ") + std::string(n);
      fail(at.member("op"), fmt::format("unknown operation \"{}\" (expected one of: {})", name, list));
    }
    op.kind = static_cast<OpKind>(it - std::begin(kOpNames));
    cost += multiplier;
    if (cost > kMaxUnrolled)
      fail(at, fmt::format("the thread runs more than {} operations when its loops are unrolled",
                           kMaxUnrolled));
    const JsonValue& v = at.v;
    switch (op.kind) {
      case OpKind::load:
        fields(at, {"op", "var", "reg", "order"});
        op.var = var_id(required(at, "var"));
        op.reg = reg_def(required(at, "reg"), ctx);
        op.order = order_of(at, {"relaxed", "acquire", "seq_cst"});
        break;
      case OpKind::store:
        fields(at, {"op", "var", "value", "order"});
        op.var = var_id(required(at, "var"));
        op.value = expr(required(at, "value"), ctx);
        op.order = order_of(at, {"relaxed", "release", "seq_cst"});
        break;
      case OpKind::set:
        fields(at, {"op", "reg", "value"});
        op.value = expr(required(at, "value"), ctx);
        op.reg = reg_def(required(at, "reg"), ctx);
        break;
      case OpKind::cas:
        fields(at, {"op", "var", "expected", "desired", "reg", "ok", "order"});
        op.var = var_id(required(at, "var"));
        op.order = order_of(at, {"relaxed", "acquire", "release", "acq_rel", "seq_cst"});
        op.expected = expr(required(at, "expected"), ctx);
        op.value = expr(required(at, "desired"), ctx);
        if (v.find("reg")) op.reg = reg_def(at.member("reg"), ctx);
        if (v.find("ok")) op.ok_reg = reg_def(at.member("ok"), ctx);
        break;
      case OpKind::xchg:
      case OpKind::fetch_add:
        fields(at, {"op", "var", "value", "reg", "order"});
        op.var = var_id(required(at, "var"));
        op.value = expr(required(at, "value"), ctx);
        if (v.find("reg")) op.reg = reg_def(at.member("reg"), ctx);
        op.order = order_of(at, {"relaxed", "acquire", "release", "acq_rel", "seq_cst"});
        break;
      case OpKind::fence:
        fields(at, {"op", "order"});
        op.order = order_of(at, {"acquire", "release", "acq_rel", "seq_cst"});
        break;
      case OpKind::lock: {
        fields(at, {"op", "lock"});
        op.lock = lock_id(required(at, "lock"));
        for (const auto& h : bal.held)
          if (h.first == op.lock)
            fail(at, fmt::format("lock \"{}\" is already held here (locking it again would "
                                 "deadlock)",
                                 spec_.locks[op.lock]));
        bal.held.emplace_back(op.lock, op.origin);
        break;
      }
      case OpKind::unlock: {
        fields(at, {"op", "lock"});
        op.lock = lock_id(required(at, "lock"));
        auto h = std::find_if(bal.held.begin(), bal.held.end(),
                              [&](const auto& p) { return p.first == op.lock; });
        if (h == bal.held.end())
          fail(at, fmt::format("unlock of lock \"{}\", which is not held here", spec_.locks[op.lock]));
        bal.held.erase(h);
        break;
      }
      case OpKind::begin:
        fields(at, {"op", "label"});
        if (v.find("label")) op.label = name_of(at.member("label"), "label");
        bal.open.push_back(op.origin);
        break;
      case OpKind::end:
        fields(at, {"op"});
        if (bal.open.empty()) fail(at, "\"end\" without \"begin\"");
        bal.open.pop_back();
        break;
      case OpKind::loop: {
        fields(at, {"op", "bound", "while", "yield", "body"});
        op.bound = int_in(required(at, "bound", "every loop needs a bound"), 0, kMaxLoopBound);
        if (v.find("while")) op.cond = expr(at.member("while"), ctx);
        if (v.find("yield")) {
          At y = at.member("yield");
          expect_kind(y, Kind::boolean);
          op.yield = y.v.boolean;
        }
        std::uint64_t m = multiplier * static_cast<std::uint64_t>(std::max<std::int64_t>(op.bound, 1));
        if (m > kMaxUnrolled)
          fail(at, fmt::format("the thread runs more than {} operations when its loops are unrolled",
                               kMaxUnrolled));
        ++loop_depth_;
        op.body = op_list(required(at, "body"), ctx, m, cost);
        --loop_depth_;
        break;
      }
      case OpKind::if_:
        fields(at, {"op", "cond", "then", "else"});
        op.cond = expr(required(at, "cond"), ctx);
        op.body = op_list(required(at, "then"), ctx, multiplier, cost);
        if (v.find("else")) op.else_body = op_list(at.member("else"), ctx, multiplier, cost);
        break;
      case OpKind::assert_:
        fields(at, {"op", "cond", "message"});
        op.cond = expr(required(at, "cond"), ctx);
        if (v.find("message")) op.message = string_of(at.member("message"));
        else op.message = fmt::format("{} at {}", spec_.threads[ctx.index].name, at.ptr);
        break;
      case OpKind::assume:
        fields(at, {"op", "cond"});
        op.cond = expr(required(at, "cond"), ctx);
        break;
      case OpKind::spawn: {
        fields(at, {"op", "thread"});
        At t = required(at, "thread");
        op.thread = thread_id(t);
        if (op.thread == ctx.index) fail(t, "a thread cannot spawn itself");
        if (spawn_count_[op.thread]++ > 0 || loop_depth_ > 0)
          fail(t, fmt::format("thread \"{}\" may be spawned more than once (spawn each thread "
                              "once, outside loops)",
                              spec_.threads[op.thread].name));
        ctx.spawned_here.insert(op.thread);
        break;
      }
      case OpKind::await: {
        // spin_until: a failed attempt blocks the thread for the rest of the execution,
        // so the body runs at most once per execution (no unrolling), and it may only
        // read: checked here, where the error can name the operation's line.
        fields(at, {"op", "body", "until"});
        op.body = op_list(required(at, "body"), ctx, multiplier, cost);
        reads_only(op.body, "an await body");
        op.cond = expr(required(at, "until"), ctx);
        break;
      }
      case OpKind::wait: {
        // condition_variable::wait with a predicate: the body reads under the lock each
        // time the wait returns, until `until` holds (the waits of sync.hpp).
        fields(at, {"op", "cv", "lock", "body", "until"});
        op.cv = named(required(at, "cv"), "condition variable", "condvars", cv_ix_);
        At l = required(at, "lock");
        op.lock = lock_id(l);
        if (std::none_of(bal.held.begin(), bal.held.end(), [&](const auto& h) { return h.first == op.lock; }))
          fail(l, fmt::format("wait with lock \"{}\", which is not held here", spec_.locks[op.lock]));
        // Each round of the wait re-runs the body and takes the lock again (and the
        // condition variable's own operations); a round repeats only after some other
        // thread changed what it read, so a few dozen rounds bound a spec's step count.
        constexpr std::uint64_t kRounds = 32, kRoundOps = 8;
        cost += multiplier * kRounds * kRoundOps;
        if (v.find("body")) op.body = op_list(at.member("body"), ctx, multiplier * kRounds, cost);
        reads_only(op.body, "a wait body");
        op.cond = expr(required(at, "until"), ctx);
        break;
      }
      case OpKind::notify:
        fields(at, {"op", "cv", "all"});
        op.cv = named(required(at, "cv"), "condition variable", "condvars", cv_ix_);
        if (v.find("all")) {
          At all = at.member("all");
          expect_kind(all, Kind::boolean);
          op.all = all.v.boolean;
        }
        break;
      case OpKind::read_lock:
      case OpKind::read_unlock:
      case OpKind::write_lock:
      case OpKind::write_unlock:
        fields(at, {"op", "rwlock"});
        op.rwlock = named(required(at, "rwlock"), "rwlock", "rwlocks", rwlock_ix_);
        break;
      case OpKind::join: {
        fields(at, {"op", "thread"});
        At t = required(at, "thread");
        op.thread = thread_id(t);
        if (!ctx.spawned_here.count(op.thread))
          fail(t, fmt::format("join of thread \"{}\", which this thread does not spawn before "
                              "this point",
                              spec_.threads[op.thread].name));
        break;
      }
    }
    return op;
  }

  // ---- atomic sets and units of work --------------------------------------------------

  void load_atomic_sets(const At& at) {
    expect_kind(at, Kind::object);
    for (std::size_t i = 0; i < at.v.members.size(); ++i) {
      const std::string& key = at.v.members[i].first;
      At val = at.member_at(i);
      JsonValue kv;
      kv.kind = Kind::string;
      kv.text = key;
      kv.pos = at.v.key_pos[i];
      AtomicSet s;
      s.name = name_of(At{kv, val.ptr}, "atomic set");
      s.origin = origin(val);
      expect_kind(val, Kind::array);
      if (val.v.items.empty()) fail(val, fmt::format("atomic set \"{}\" is empty", key));
      std::set<std::uint32_t> seen;
      for (std::size_t k = 0; k < val.v.items.size(); ++k) {
        std::uint32_t id = var_id(val.item(k));
        if (!seen.insert(id).second)
          fail(val.item(k), fmt::format("variable \"{}\" is listed twice", spec_.vars[id].name));
        s.vars.push_back(id);
      }
      spec_.atomic_sets.push_back(std::move(s));
    }
  }

  void collect_labels(const std::vector<Operation>& ops, std::set<std::string>& out) const {
    for (const Operation& op : ops) {
      if (op.kind == OpKind::begin && !op.label.empty()) out.insert(op.label);
      collect_labels(op.body, out);
      collect_labels(op.else_body, out);
    }
  }

  void load_units(const At& at) {
    expect_kind(at, Kind::array);
    std::set<std::string> labels;
    for (const Thread& t : spec_.threads) collect_labels(t.ops, labels);
    std::unordered_map<std::string, std::uint32_t> set_ix;
    for (std::size_t j = 0; j < spec_.atomic_sets.size(); ++j)
      set_ix.emplace(spec_.atomic_sets[j].name, static_cast<std::uint32_t>(j));
    std::set<std::string> declared;
    for (std::size_t i = 0; i < at.v.items.size(); ++i) {
      At u = at.item(i);
      expect_kind(u, Kind::object);
      fields(u, {"label", "sets"});
      UnitOfWork w;
      w.origin = origin(u);
      At l = required(u, "label");
      w.label = name_of(l, "label");
      if (!labels.count(w.label))
        fail(l, fmt::format("no \"begin\" has the label \"{}\"", w.label));
      if (!declared.insert(w.label).second)
        fail(l, fmt::format("unit of work \"{}\" is declared twice", w.label));
      At sets = required(u, "sets");
      expect_kind(sets, Kind::array);
      if (sets.v.items.empty()) fail(sets, "a unit of work is declared on at least one atomic set");
      std::set<std::uint32_t> seen;
      for (std::size_t k = 0; k < sets.v.items.size(); ++k) {
        At s = sets.item(k);
        std::string n = string_of(s);
        auto it = set_ix.find(n);
        if (it == set_ix.end()) fail(s, fmt::format("undefined atomic set \"{}\"", n));
        std::uint32_t id = it->second;
        if (!seen.insert(id).second)
          fail(s, fmt::format("atomic set \"{}\" is listed twice", n));
        w.sets.push_back(id);
      }
      spec_.units_of_work.push_back(std::move(w));
    }
  }

  // ---- observed locations and expectations --------------------------------------------

  // Resolves "x" (a variable) or "T1.r0" (a register) to an index into spec.observed.
  std::uint32_t observe(const At& at, const std::string& loc) {
    if (auto it = obs_ix_.find(loc); it != obs_ix_.end()) return it->second;
    Observed o;
    o.name = loc;
    auto dot = loc.find('.');
    if (dot == std::string::npos) {
      if (auto it = var_ix_.find(loc); it != var_ix_.end()) o.var = it->second;
      if (o.var == kNone)
        fail(at, fmt::format("undefined variable \"{}\" (a location is a variable or "
                             "THREAD.REGISTER)",
                             loc));
    } else {
      std::string tn = loc.substr(0, dot), rn = loc.substr(dot + 1);
      for (std::size_t i = 0; i < spec_.threads.size(); ++i)
        if (spec_.threads[i].name == tn) o.thread = static_cast<std::uint32_t>(i);
      if (o.thread == kNone) fail(at, fmt::format("undefined thread \"{}\" in location \"{}\"", tn, loc));
      const auto& ix = reg_ix_[o.thread];
      if (auto it = ix.find(rn); it != ix.end()) o.reg = it->second;
      if (o.reg == kNone)
        fail(at, fmt::format("undefined register \"{}\" of thread \"{}\"", rn, tn));
      o.is_reg = true;
    }
    obs_ix_.emplace(loc, static_cast<std::uint32_t>(spec_.observed.size()));
    spec_.observed.push_back(std::move(o));
    return static_cast<std::uint32_t>(spec_.observed.size() - 1);
  }

  void load_expect(const At& at) {
    expect_kind(at, Kind::object);
    fields(at, {"sc", "tso", "rc11"});
    if (at.v.find("sc")) expectations(at.member("sc"), spec_.expect_sc);
    if (at.v.find("tso")) expectations(at.member("tso"), spec_.expect_tso);
    if (at.v.find("rc11")) {
      expectations(at.member("rc11"), spec_.expect_rc11);
      // The conflict checkers read an rc11 execution as its SC trace (docs/rc11.md); the
      // TSO ones judge store buffers, which rc11 has not.
      for (const CheckerExpectation& c : spec_.expect_rc11.checkers)
        if (!checker_judges_rc11(c.checker))
          fail(at.member("rc11").member("checkers"),
               fmt::format("checker \"{}\" judges TSO executions, not rc11's (docs/rc11.md)", c.checker));
    }
  }

  std::vector<OutcomePattern> patterns(const At& at) {
    expect_kind(at, Kind::array);
    std::vector<OutcomePattern> out;
    for (std::size_t i = 0; i < at.v.items.size(); ++i) {
      At p = at.item(i);
      expect_kind(p, Kind::object);
      if (p.v.members.empty()) fail(p, "an outcome names at least one location");
      OutcomePattern pat;
      pat.origin = origin(p);
      for (std::size_t k = 0; k < p.v.members.size(); ++k) {
        const std::string& key = p.v.members[k].first;
        At val = p.member_at(k);
        JsonValue kv;
        kv.kind = Kind::string;
        kv.text = key;
        kv.pos = p.v.key_pos[k];
        std::uint32_t id = observe(At{kv, val.ptr}, key);
        expect_kind(val, Kind::integer);
        pat.values.emplace_back(id, val.v.integer);
      }
      out.push_back(std::move(pat));
    }
    return out;
  }

  Count count(const At& at) const {
    Count c;
    if (at.v.kind == Kind::integer) {
      if (at.v.integer < 0) fail(at, fmt::format("{} is out of range (a count is at least 0)", at.v.integer));
      c.kind = Count::Kind::exactly;
      c.n = static_cast<std::uint64_t>(at.v.integer);
      return c;
    }
    if (at.v.kind != Kind::string)
      fail(at, fmt::format("expected \"none\", \"some\", \"all\" or a number, got {}",
                           json_kind_name(at.v.kind)));
    if (at.v.text == "none") c.kind = Count::Kind::none;
    else if (at.v.text == "some") c.kind = Count::Kind::some;
    else if (at.v.text == "all") c.kind = Count::Kind::all;
    else fail(at, fmt::format("unknown count \"{}\" (expected \"none\", \"some\", \"all\" or a number)", at.v.text));
    return c;
  }

  void expectations(const At& at, Expectations& e) {
    expect_kind(at, Kind::object);
    fields(at, {"reachable", "unreachable", "always", "serializable", "failures", "executions",
                "checkers"});
    e.present = true;
    e.origin = origin(at);
    if (at.v.find("reachable")) e.reachable = patterns(at.member("reachable"));
    if (at.v.find("unreachable")) e.unreachable = patterns(at.member("unreachable"));
    if (at.v.find("always")) {
      e.always_origin = origin(at.member("always"));
      e.always = patterns(at.member("always"));
      if (e.always.empty()) fail(at.member("always"), "\"always\" lists at least one outcome");
    }
    if (at.v.find("serializable")) {
      At s = at.member("serializable");
      std::string t = string_of(s);
      Count c;
      if (t == "all") c.kind = Count::Kind::none;           // no execution is non-serializable
      else if (t == "some-not") c.kind = Count::Kind::some;  // some execution is not
      else if (t == "none") c.kind = Count::Kind::all;       // every execution is not
      else fail(s, fmt::format("unknown value \"{}\" (expected \"all\", \"some-not\" or \"none\")", t));
      e.serializable_count = c;
      e.serializable_text = t;
      e.serializable_origin = origin(s);
    }
    if (at.v.find("failures")) {
      e.failures = count(at.member("failures"));
      e.failures_origin = origin(at.member("failures"));
    }
    if (at.v.find("executions")) {
      At x = at.member("executions");
      e.executions = static_cast<std::uint64_t>(int_in(x, 0, std::numeric_limits<std::int64_t>::max()));
      e.executions_origin = origin(x);
    }
    if (at.v.find("checkers")) {
      At cs = at.member("checkers");
      expect_kind(cs, Kind::object);
      for (std::size_t i = 0; i < cs.v.members.size(); ++i) {
        const std::string& name = cs.v.members[i].first;
        At c = cs.member_at(i);
        CheckerExpectation ce;
        ce.checker = name;
        ce.origin = origin(c);
        if (c.v.kind == Kind::object) {
          fields(c, {"flagged", "not_serializable", "blamed"});
          if (c.v.members.empty()) fail(c, "expected at least one of \"flagged\", \"not_serializable\", \"blamed\"");
          if (c.v.find("flagged")) ce.flagged = count(c.member("flagged"));
          if (c.v.find("not_serializable")) ce.not_serializable = count(c.member("not_serializable"));
          if (c.v.find("blamed")) ce.blamed = count(c.member("blamed"));
        } else {
          ce.flagged = count(c);
        }
        e.checkers.push_back(std::move(ce));
      }
    }
  }

  std::string file_;
  Spec& spec_;
  std::vector<int> spawn_count_;
  std::uint64_t unrolled_ = 0;  // operations of all threads with every loop at its bound
  // Name -> dense id, so that loading stays linear in the size of the input.
  std::unordered_map<std::string, std::uint32_t> var_ix_, lock_ix_, obs_ix_;
  std::map<std::string, std::uint32_t> cv_ix_, rwlock_ix_;
  std::vector<std::unordered_map<std::string, std::uint32_t>> reg_ix_;
  int loop_depth_ = 0;
};

}  // namespace

std::span<const std::string_view> op_kind_names() { return kOpNames; }
std::string_view op_kind_name(OpKind kind) { return kOpNames[static_cast<std::size_t>(kind)]; }

std::string format_count(const Count& c) {
  switch (c.kind) {
    case Count::Kind::none: return "none";
    case Count::Kind::some: return "some";
    case Count::Kind::all: return "all";
    case Count::Kind::exactly: return std::to_string(c.n);
  }
  return "?";
}

Spec parse_spec(std::string_view text, std::string_view file) {
  JsonValue root;
  JsonSyntaxError err;
  if (!parse_json(text, root, err))
    throw SpecError(fmt::format("{}:{}:{}: {}", file, err.pos.line, err.pos.col, err.message));
  Spec spec;
  spec.file = std::string(file);
  Loader(file, spec).load(root);
  if (spec.name.empty()) {
    std::string f(file);
    auto slash = f.find_last_of('/');
    if (slash != std::string::npos) f = f.substr(slash + 1);
    auto dot = f.find_last_of('.');
    if (dot != std::string::npos && dot > 0) f = f.substr(0, dot);
    spec.name = f;
  }
  return spec;
}

Spec load_spec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(fmt::format("{}: cannot read the file", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw SpecError(fmt::format("{}: cannot read the file", path));
  return parse_spec(ss.str(), path);
}

}  // namespace atomcheck::spec
