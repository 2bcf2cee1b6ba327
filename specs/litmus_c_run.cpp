// The C dialect's runner: a parsed C test (litmus.hpp's CThread) as a program on the
// scheduler API. Each location is an atomic<int64_t> or, when plain, a shared<int64_t>
// (a relaxed atomic under rc11, see c_program); each thread's statements run without
// recursion, and every access is recorded with its line for the race report.
#include <deque>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "scheduler/runtime/api.hpp"
#include "specs/litmus_c_run.hpp"

namespace atomcheck::litmus::detail {

namespace {

// The locations of one execution: each an atomic or a plain shared variable.
struct CMemory {
  std::deque<atomic<std::int64_t>> atomics;
  std::deque<shared<std::int64_t>> plains;
  std::vector<std::pair<bool, std::size_t>> slot;  // per var: (atomic, index)

  std::int64_t load(std::uint32_t var, std::memory_order mo) {
    auto [is_atomic, i] = slot[var];
    return is_atomic ? atomics[i].load(mo) : plains[i].get();
  }
  void store(std::uint32_t var, std::int64_t v, std::memory_order mo) {
    auto [is_atomic, i] = slot[var];
    if (is_atomic) atomics[i].store(v, mo);
    else plains[i].set(v);
  }
  atomic<std::int64_t>& at(std::uint32_t var) { return atomics[slot[var].second]; }
};

// Runs a thread's statements on its fiber stack (64 KiB by default, 16 KiB at least with
// --stack-kib) without recursion: a chain `1 + 1 + ... + 1` is a tree as deep as it is
// long, which the parser accepts at any length, so expressions and nested ifs are walked
// with stacks on the heap. Operands are evaluated left to right, `&&` and `||`
// short-circuit, and every memory access comes in the order C's evaluation gives it.
class CRunner {
 public:
  CRunner(const CThread& code, const std::vector<std::string>& names, CMemory& mem, std::vector<std::int64_t>& locals,
          std::vector<CAccess>* log)
      : code_(code), names_(names), mem_(mem), locals_(locals), log_(log) {}

  // The statements [b, e). An `if` runs its then or its else part as a block of its own
  // and goes on after its else part: `outer` holds, per enclosing block, where the
  // enclosing one ends and where it goes on.
  void run(std::size_t b, std::size_t e) {
    std::vector<std::pair<std::size_t, std::size_t>> outer;
    for (std::size_t i = b;;) {
      if (i >= e) {
        if (outer.empty()) return;
        std::tie(e, i) = outer.back();
        outer.pop_back();
        continue;
      }
      const CStmt& s = code_.stmts[i];
      line_ = s.line;
      switch (s.kind) {
        case CStmt::Kind::assign: locals_[s.local] = eval(s.expr); break;
        case CStmt::Kind::eval: eval(s.expr); break;
        case CStmt::Kind::store: {
          // The address first, then the value (C leaves the order open; herd reads both).
          std::uint32_t var = s.indexed ? element(s.var, s.extent, eval(s.index)) : s.var;
          std::int64_t v = eval(s.expr);
          store(var, v, s.plain ? std::memory_order_relaxed : s.order);
          break;
        }
        case CStmt::Kind::fence: atomcheck::atomic_thread_fence(s.order); break;
        case CStmt::Kind::branch: {
          std::size_t then_b = i + 1, else_b = then_b + s.then_count, after = else_b + s.else_count;
          outer.emplace_back(e, after);
          if (eval(s.expr) != 0) std::tie(i, e) = std::pair(then_b, else_b);
          else std::tie(i, e) = std::pair(else_b, after);
          continue;
        }
      }
      ++i;
    }
  }

 private:
  // An expression node under evaluation: `stage` counts the operands already asked for;
  // an RMW keeps the location its index chose, a compare-exchange also the expected value
  // it read before its desired value.
  struct Step {
    std::uint32_t node;
    std::uint8_t stage;
    std::int64_t expected;
    std::uint32_t var;
  };

  // Element `offset` of the array starting at `var`; out of range, the execution fails
  // (C's undefined behaviour, which herd refuses too).
  std::uint32_t element(std::uint32_t var, std::uint32_t extent, std::int64_t offset) {
    if (offset < 0 || offset >= static_cast<std::int64_t>(extent)) {
      // The array's name: its element 0's without the "[0]".
      std::string name = var < names_.size() ? names_[var] : "?";
      if (extent > 1 && name.size() > 3) name.resize(name.size() - 3);
      check(false, fmt::format("line {}: index {} is out of {} ({} element{})", line_, offset, name, extent,
                               extent == 1 ? "" : "s"));
      return var;
    }
    return var + static_cast<std::uint32_t>(offset);
  }

  void note(std::uint32_t var) {
    if (log_ != nullptr) log_->push_back({var, line_});
  }
  std::int64_t load(std::uint32_t var, std::memory_order mo) {
    note(var);
    return mem_.load(var, mo);
  }
  void store(std::uint32_t var, std::int64_t v, std::memory_order mo) {
    note(var);
    mem_.store(var, v, mo);
  }

  // Post-order over the tree: an operand is pushed onto `todo_` and its value comes back
  // on `values_`.
  std::int64_t eval(std::uint32_t root) {
    todo_.clear();
    values_.clear();
    todo_.push_back({root, 0, 0, kNoVar});
    auto operand = [&](std::uint32_t node) { todo_.push_back({node, 0, 0, kNoVar}); };
    auto result = [&] {
      std::int64_t v = values_.back();
      values_.pop_back();
      return v;
    };
    while (!todo_.empty()) {
      Step& st = todo_.back();  // until the next push
      const CExpr& x = code_.exprs[st.node];
      std::int64_t v = 0;
      switch (x.kind) {
        case CExpr::Kind::constant: v = x.value; break;
        case CExpr::Kind::local: v = locals_[x.local]; break;
        case CExpr::Kind::load:
          if (x.indexed && st.stage++ == 0) {
            operand(x.index);
            continue;
          }
          v = load(x.indexed ? element(x.var, x.extent, result()) : x.var,
                   x.plain ? std::memory_order_relaxed : x.order);
          break;
        case CExpr::Kind::rmw:
        case CExpr::Kind::cas:
          // Stage 0 asks for the index, 1 takes it and asks for the operand, 2 runs.
          if (st.stage == 0) {
            st.stage = 1;
            if (x.indexed) {
              operand(x.index);
              continue;
            }
          }
          if (st.stage == 1) {
            st.var = x.indexed ? element(x.var, x.extent, result()) : x.var;
            if (x.kind == CExpr::Kind::cas)
              st.expected = x.expected_var != kNoVar ? load(x.expected_var, std::memory_order_relaxed)
                                                     : locals_[x.local];
            st.stage = 2;
            operand(x.a);
            continue;
          }
          v = x.kind == CExpr::Kind::rmw ? rmw(x, st.var, result()) : cas(x, st.var, st.expected, result());
          break;
        case CExpr::Kind::unary: {
          if (st.stage++ == 0) {
            operand(x.a);
            continue;
          }
          std::int64_t a = result();
          // Through unsigned: -INT64_MIN wraps (signed overflow is undefined).
          if (x.op == CExpr::Op::neg) v = static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a));
          else v = x.op == CExpr::Op::lnot ? (a == 0) : ~a;
          break;
        }
        case CExpr::Kind::binary:
          if (st.stage == 0) {  // the left operand
            st.stage = 1;
            operand(x.a);
            continue;
          }
          if (st.stage == 1) {  // the right one, unless && or || is decided
            const bool logical = x.op == CExpr::Op::land || x.op == CExpr::Op::lor;
            if (logical && (values_.back() != 0) == (x.op == CExpr::Op::lor)) {
              result();
              v = x.op == CExpr::Op::lor;
              break;
            }
            st.stage = 2;
            operand(x.b);
            continue;
          }
          {
            std::int64_t b = result(), a = result();
            v = binary(x.op, a, b);
          }
          break;
      }
      todo_.pop_back();
      values_.push_back(v);
    }
    return values_.back();
  }

  std::int64_t rmw(const CExpr& x, std::uint32_t var, std::int64_t v) {
    note(var);
    auto& a = mem_.at(var);
    switch (x.rmw) {
      case CExpr::Rmw::exchange: return a.exchange(v, x.order);
      case CExpr::Rmw::add: return a.fetch_add(v, x.order);
      case CExpr::Rmw::sub: return a.fetch_sub(v, x.order);
      case CExpr::Rmw::band: return a.fetch_and(v, x.order);
      case CExpr::Rmw::bor: return a.fetch_or(v, x.order);
      case CExpr::Rmw::bxor: return a.fetch_xor(v, x.order);
    }
    return 0;
  }

  std::int64_t cas(const CExpr& x, std::uint32_t var, std::int64_t expected, std::int64_t desired) {
    note(var);
    bool ok = mem_.at(var).compare_exchange_strong(expected, desired, x.order, x.failure_order);
    if (!ok) {  // C writes what it found back to *expected
      if (x.expected_var != kNoVar) store(x.expected_var, expected, std::memory_order_relaxed);
      else locals_[x.local] = expected;
    }
    return ok ? 1 : 0;
  }

  // `a op b`; && and || have had their short circuit, here b decides. +, - and * wrap
  // (through unsigned: signed overflow is undefined), x / 0 and x % 0 give 0, x / -1 is
  // -x and x % -1 is 0 (INT64_MIN / -1 and INT64_MIN % -1 trap on x86).
  static std::int64_t binary(CExpr::Op op, std::int64_t a, std::int64_t b) {
    using Op = CExpr::Op;
    auto wrap = [](std::uint64_t u) { return static_cast<std::int64_t>(u); };
    const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    switch (op) {
      case Op::mul: return wrap(ua * ub);
      case Op::div: return b == 0 ? 0 : b == -1 ? wrap(0 - ua) : a / b;
      case Op::mod: return b == 0 || b == -1 ? 0 : a % b;
      case Op::add: return wrap(ua + ub);
      case Op::sub: return wrap(ua - ub);
      case Op::shl: return b < 0 || b > 62 ? 0 : wrap(ua << b);
      case Op::shr: return b < 0 || b > 62 ? 0 : a >> b;
      case Op::lt: return a < b;
      case Op::le: return a <= b;
      case Op::gt: return a > b;
      case Op::ge: return a >= b;
      case Op::eq: return a == b;
      case Op::ne: return a != b;
      case Op::band: return a & b;
      case Op::bxor: return a ^ b;
      case Op::bor: return a | b;
      case Op::land:
      case Op::lor: return b != 0;
      default: return 0;
    }
  }

  const CThread& code_;
  const std::vector<std::string>& names_;  // the locations' names
  CMemory& mem_;
  std::vector<std::int64_t>& locals_;
  std::vector<CAccess>* log_;  // null: not recorded
  std::uint32_t line_ = 0;     // the line of the statement running
  std::vector<Step> todo_;
  std::vector<std::int64_t> values_;
};

}  // namespace

Program c_program(const Test& test, std::vector<std::string> names, CRecord* record, bool plain_as_relaxed) {
  return [&test, names, record, plain_as_relaxed]() {
    if (record != nullptr) {
      record->accesses.assign(test.c_threads.size(), {});
      record->state.clear();
      record->finished = false;
    }
    CMemory mem;
    for (std::size_t v = 0; v < test.vars.size(); ++v) {
      if (test.var_atomic[v] || plain_as_relaxed) {
        mem.slot.emplace_back(true, mem.atomics.size());
        mem.atomics.emplace_back(test.var_init[v], test.vars[v]);
        // A plain location reads what rc11.cat lets a racy plain read read, and a fence
        // does not synchronise through it.
        if (!test.var_atomic[v]) atomcheck::detail::AtomicInternals::unsynchronised(mem.atomics.back());
      } else {
        mem.slot.emplace_back(false, mem.plains.size());
        mem.plains.emplace_back(test.var_init[v], test.vars[v]);
      }
    }
    std::vector<std::vector<std::int64_t>> locals(test.c_threads.size());
    for (std::size_t t = 0; t < test.c_threads.size(); ++t) locals[t].assign(test.c_threads[t].locals.size(), 0);
    std::vector<thread> threads;
    threads.reserve(test.c_threads.size());
    for (std::size_t t = 0; t < test.c_threads.size(); ++t)
      threads.emplace_back([&test, &mem, &locals, record, t] {
        CRunner(test.c_threads[t], test.vars, mem, locals[t], record != nullptr ? &record->accesses[t] : nullptr)
            .run(0, test.c_threads[t].stmts.size());
      });
    for (thread& t : threads) t.join();
    for (std::size_t i = 0; i < test.observed.size(); ++i) {
      const Location& l = test.observed[i];
      std::int64_t v = l.is_reg ? locals[static_cast<std::size_t>(l.thread)][static_cast<std::size_t>(l.reg)]
                                : mem.load(l.var, std::memory_order_seq_cst);
      outcome(names[i], v);
      if (record != nullptr) record->state.push_back(v);
    }
    if (record != nullptr) record->finished = true;
  };
}


}  // namespace atomcheck::litmus::detail
