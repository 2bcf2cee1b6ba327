// herd7's x86 dialects: X86 (Intel operand order) and X86_64 (AT&T order). The program
// section is a table of threads (`P0 | P1 ;` then rows of cells), one instruction per
// cell; the rest of the file is the shared state grammar (litmus_parser.hpp). Also the
// interpreter that runs a thread's instructions on the scheduler API.
#include <algorithm>
#include <array>
#include <cctype>
#include <deque>

#include <fmt/core.h>

#include "scheduler/runtime/api.hpp"
#include "specs/litmus.hpp"
#include "specs/litmus_parser.hpp"

namespace atomcheck::litmus {

namespace {

using namespace detail;  // the parser's helpers
// ---- registers ---------------------------------------------------------------------

constexpr std::array<const char*, kRegisterCount> kX86Names = {
    "EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP",
    "R8D", "R9D", "R10D", "R11D", "R12D", "R13D", "R14D", "R15D"};
constexpr std::array<const char*, kRegisterCount> kX64Names = {
    "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};


// The register family of a name (without '%'), or -1. X86 knows the eight 32-bit names;
// X86_64 knows the 64/32/16/8-bit names of all sixteen families.
int lookup_register(Arch arch, std::string_view written) {
  std::string n = lower(written);
  if (arch == Arch::x86) {
    for (int i = 0; i < 8; ++i)
      if (n == lower(kX86Names[static_cast<std::size_t>(i)])) return i;
    return -1;
  }
  // Every spelling of each family: 64, 32, 16 and 8-bit.
  static constexpr std::array<std::array<const char*, 4>, kRegisterCount> kSpellings = {{
      {"rax", "eax", "ax", "al"},     {"rbx", "ebx", "bx", "bl"},
      {"rcx", "ecx", "cx", "cl"},     {"rdx", "edx", "dx", "dl"},
      {"rsi", "esi", "si", "sil"},    {"rdi", "edi", "di", "dil"},
      {"rbp", "ebp", "bp", "bpl"},    {"rsp", "esp", "sp", "spl"},
      {"r8", "r8d", "r8w", "r8b"},    {"r9", "r9d", "r9w", "r9b"},
      {"r10", "r10d", "r10w", "r10b"}, {"r11", "r11d", "r11w", "r11b"},
      {"r12", "r12d", "r12w", "r12b"}, {"r13", "r13d", "r13w", "r13b"},
      {"r14", "r14d", "r14w", "r14b"}, {"r15", "r15d", "r15w", "r15b"},
  }};
  for (std::size_t i = 0; i < kSpellings.size(); ++i)
    for (const char* sp : kSpellings[i])
      if (n == sp) return static_cast<int>(i);
  return -1;
}


class X86Parser final : public LitmusParser {
 public:
  using LitmusParser::LitmusParser;

 private:
  void set_arch(std::string_view arch, std::size_t pos) override {
    if (lower(arch) == "x86") test_.arch = Arch::x86;
    else if (lower(arch) == "x86_64") test_.arch = Arch::x86_64;
    else
      fail(pos, fmt::format("unsupported architecture '{}' (atomcheck reads X86, X86_64 and C "
                            "litmus tests)",
                            arch));
  }

  int register_of(int /*thread*/, const Token& t) override {
    std::string_view name = t.text;
    if (!name.empty() && name[0] == '%') name.remove_prefix(1);
    int r = t.kind == Token::Kind::ident ? lookup_register(test_.arch, name) : -1;
    if (r < 0) fail(t.offset, fmt::format("unknown register {}", shown_text(t)));
    return r;
  }

  std::string reg_name(int /*thread*/, int reg) const override { return register_name(test_.arch, reg); }
  std::size_t thread_count() const override { return test_.threads.size(); }

  void parse_program(std::size_t b, std::size_t e) override {
    std::size_t i = skip_space(b, e);
    if (i < e && clean_[i] == ';') i = i + 1;  // `};`: herd's optional ';' after the init block
    std::vector<std::string_view> rows;
    std::size_t start = i;
    for (std::size_t k = i; k < e; ++k) {
      if (clean_[k] != ';') continue;
      rows.push_back(range(start, k));
      start = k + 1;
    }
    if (skip_space(start, e) < e) rows.push_back(range(start, e));  // a last row without ';'
    if (rows.empty() || trim(rows[0]).empty())
      fail(e < clean_.size() ? skip_space(i, e) : eof_,
           "unexpected end of file: missing the thread table 'P0 | P1 ... ;'");
    parse_thread_header(rows[0]);
    for (std::size_t r = 1; r < rows.size(); ++r) parse_code_row(rows[r]);
  }

  void parse_thread_header(std::string_view row) {
    std::size_t k = 0, start = 0;
    while (true) {
      std::size_t bar = row.find('|', start);
      std::string_view cell = trim(row.substr(start, bar == std::string_view::npos ? bar : bar - start));
      std::int64_t n = -1;
      if (cell.size() < 2 || cell[0] != 'P' || !parse_int(cell.substr(1), n) ||
          n != static_cast<std::int64_t>(k))
        fail_at(cell.empty() ? row.substr(start) : cell,
                fmt::format("expected the thread header 'P0 | P1 | ... ;', found '{}'", one_line(row)));
      ++k;
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
    test_.threads.resize(k);
    test_.reg_init.assign(k, std::vector<std::int64_t>(kRegisterCount, 0));
  }

  void parse_code_row(std::string_view row) {
    std::size_t col = 0, start = 0;
    while (true) {
      std::size_t bar = row.find('|', start);
      std::string_view cell = trim(row.substr(start, bar == std::string_view::npos ? bar : bar - start));
      if (col >= test_.threads.size())
        fail_at(cell.empty() ? row.substr(start) : cell,
                fmt::format("this row has more columns than the {} threads of the header",
                            test_.threads.size()));
      // Labels (`L0:`) name positions for jumps, which atomcheck does not read: no-ops.
      while (!cell.empty() && is_ident_start(cell[0])) {
        std::size_t j = 0;
        while (j < cell.size() && is_word_char(cell[j])) ++j;
        std::size_t k = j;
        while (k < cell.size() && is_space(cell[k])) ++k;
        if (k >= cell.size() || cell[k] != ':') break;
        cell = trim(cell.substr(k + 1));
      }
      if (!cell.empty()) test_.threads[col].push_back(parse_instruction(cell));
      ++col;
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
  }

  struct Operand {
    enum class Kind : std::uint8_t { reg, imm, mem } kind = Kind::imm;
    int reg = 0;
    std::int64_t imm = 0;
    std::uint32_t var = kNoVar;
  };

  Operand parse_operand(std::string_view text, std::string_view cell) {
    std::string_view s = trim(text);
    Operand op;
    if (s.empty()) fail_at(text.empty() ? cell : text, "missing operand");
    bool intel = test_.arch == Arch::x86;
    char open = intel ? '[' : '(', close = intel ? ']' : ')';
    if (s[0] == '[' || s[0] == '(') {
      if (s[0] != open || s.back() != close)
        fail_at(s, fmt::format("bad memory operand '{}' ({} writes memory as {}x{})", one_line(s),
                               intel ? "X86" : "X86_64", open, close));
      std::string_view inner = trim(s.substr(1, s.size() - 2));
      std::string_view reg_part = inner;
      if (!reg_part.empty() && reg_part[0] == '%') reg_part.remove_prefix(1);
      if (lookup_register(test_.arch, reg_part) >= 0)
        fail_at(s, fmt::format("indirect addressing '{}' is not supported", one_line(s)));
      if (!is_identifier(inner)) fail_at(s, fmt::format("bad memory operand '{}'", one_line(s)));
      op.kind = Operand::Kind::mem;
      op.var = intern_var(inner);
      return op;
    }
    if (s[0] == '$' || s[0] == '-' || std::isdigit(static_cast<unsigned char>(s[0]))) {
      std::string_view num = s[0] == '$' ? s.substr(1) : s;
      if (!parse_int(trim(num), op.imm)) fail_at(s, fmt::format("bad immediate '{}'", one_line(s)));
      op.kind = Operand::Kind::imm;
      return op;
    }
    if (!intel) {
      if (s[0] != '%')
        fail_at(s, fmt::format("bad operand '{}' (X86_64 writes registers as %eax, memory as "
                               "(x), immediates as $1)",
                               one_line(s)));
      op.reg = lookup_register(test_.arch, s.substr(1));
    } else {
      op.reg = lookup_register(test_.arch, s);
    }
    if (op.reg < 0) fail_at(s, fmt::format("unknown register '{}'", one_line(s)));
    op.kind = Operand::Kind::reg;
    return op;
  }

  Instr parse_instruction(std::string_view cell) {
    static constexpr const char* kSubset =
        "atomcheck reads MOV, MFENCE, XCHG, LOCK CMPXCHG and LOCK XADD";
    // mnemonic [operands]
    auto split_word = [](std::string_view s) {
      s = trim(s);
      std::size_t sp = 0;
      while (sp < s.size() && !is_space(s[sp])) ++sp;
      return std::pair{s.substr(0, sp), trim(s.substr(sp))};
    };
    auto [word, rest] = split_word(cell);
    std::string mnem = lower(word);
    bool locked = false;
    if (mnem == "lock") {
      locked = true;
      auto [w2, r2] = split_word(rest);
      if (w2.empty()) fail_at(cell, "LOCK prefix without an instruction");
      mnem = lower(w2);
      rest = r2;
    }
    // AT&T size suffixes (movl, xchgq, cmpxchgl, xaddl).
    auto known = [](const std::string& m) {
      return m == "mov" || m == "xchg" || m == "cmpxchg" || m == "xadd" || m == "mfence";
    };
    if (!known(mnem) && mnem.size() > 1 && std::string_view("bwlq").find(mnem.back()) != std::string_view::npos &&
        known(mnem.substr(0, mnem.size() - 1)) && mnem != "mfence")
      mnem.pop_back();
    if (!known(mnem)) fail_at(cell, fmt::format("unsupported instruction '{}' ({})", one_line(cell), kSubset));

    std::vector<Operand> ops;
    if (!rest.empty()) {
      std::size_t start = 0;
      while (true) {
        std::size_t comma = rest.find(',', start);
        ops.push_back(parse_operand(rest.substr(start, comma == std::string_view::npos ? comma : comma - start),
                                    cell));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
    }
    // Operands in Intel order (destination first) from here on.
    if (test_.arch == Arch::x86_64) std::reverse(ops.begin(), ops.end());
    using K = Operand::Kind;
    Instr in;
    in.line = line_of(offset_of(cell));
    auto want = [&](std::size_t n) {
      if (ops.size() != n)
        fail_at(cell, fmt::format("'{}' takes {} operand{}, found {}", one_line(cell), n, n == 1 ? "" : "s", ops.size()));
    };
    auto to_source = [](const Operand& o) {
      Source s;
      s.is_imm = o.kind == K::imm;
      s.imm = o.imm;
      s.reg = o.reg;
      return s;
    };
    if (mnem == "mfence") {
      want(0);
      if (locked) fail_at(cell, "LOCK prefix is not valid on MFENCE");
      in.op = Opcode::mfence;
      return in;
    }
    want(2);
    if (mnem == "mov") {
      if (locked) fail_at(cell, "LOCK prefix is not valid on MOV");
      const Operand &dst = ops[0], &src = ops[1];
      if (dst.kind == K::mem && src.kind == K::mem)
        fail_at(cell, fmt::format("'{}': MOV cannot move memory to memory", one_line(cell)));
      if (dst.kind == K::imm) fail_at(cell, fmt::format("'{}': cannot store into an immediate", one_line(cell)));
      if (dst.kind == K::mem) {
        in.op = Opcode::store;
        in.var = dst.var;
        in.src = to_source(src);
      } else if (src.kind == K::mem) {
        in.op = Opcode::load;
        in.reg = dst.reg;
        in.var = src.var;
      } else {
        in.op = Opcode::move;
        in.reg = dst.reg;
        in.src = to_source(src);
      }
      return in;
    }
    // XCHG, CMPXCHG, XADD: one memory operand and one register.
    const Operand* mem = nullptr;
    const Operand* reg = nullptr;
    if (mnem == "xchg") {
      for (const Operand& o : ops) {
        if (o.kind == K::mem) mem = &o;
        if (o.kind == K::reg) reg = &o;
      }
      in.op = Opcode::xchg;
    } else {
      if (!locked) fail_at(cell, fmt::format("'{}' without LOCK is not atomic ({})", one_line(cell), kSubset));
      if (ops[0].kind == K::mem) mem = &ops[0];
      if (ops[1].kind == K::reg) reg = &ops[1];
      in.op = mnem == "cmpxchg" ? Opcode::cmpxchg : Opcode::xadd;
    }
    if (mem == nullptr || reg == nullptr)
      fail_at(cell, fmt::format("'{}' needs a memory operand and a register ({})", one_line(cell),
                                test_.arch == Arch::x86 ? "[x],EAX" : "%eax,(x)"));
    in.var = mem->var;
    in.reg = reg->reg;
    return in;
  }
};

using Registers = std::array<std::int64_t, kRegisterCount>;

// One litmus thread: its instructions against the shared locations, with the x86
// mapping (plain MOV store = relaxed store, buffered under TSO; MFENCE = seq_cst fence;
// locked instructions = seq_cst read-modify-writes, which drain the buffer first).
void interpret(const std::vector<Instr>& code, std::deque<atomic<std::int64_t>>& mem, Registers& r) {
  auto value = [&r](const Source& s) { return s.is_imm ? s.imm : r[static_cast<std::size_t>(s.reg)]; };
  for (const Instr& in : code) {
    auto reg = static_cast<std::size_t>(in.reg);
    switch (in.op) {
      case Opcode::store: mem[in.var].store(value(in.src), std::memory_order_relaxed); break;
      case Opcode::load: r[reg] = mem[in.var].load(std::memory_order_relaxed); break;
      case Opcode::move: r[reg] = value(in.src); break;
      case Opcode::mfence: atomcheck::atomic_thread_fence(std::memory_order_seq_cst); break;
      case Opcode::xchg: r[reg] = mem[in.var].exchange(r[reg], std::memory_order_seq_cst); break;
      case Opcode::cmpxchg: {
        // EAX holds the expected value and receives memory's value on failure.
        std::int64_t expected = r[kRegAx];
        mem[in.var].compare_exchange_strong(expected, r[reg], std::memory_order_seq_cst);
        r[kRegAx] = expected;
        break;
      }
      case Opcode::xadd: r[reg] = mem[in.var].fetch_add(r[reg], std::memory_order_seq_cst); break;
    }
  }
}

}  // namespace

std::string register_name(Arch arch, int reg) {
  auto i = static_cast<std::size_t>(reg);
  return arch == Arch::x86 ? kX86Names[i] : kX64Names[i];
}

namespace detail {

Test parse_x86(std::string_view text, std::string_view file) { return X86Parser(text, file).parse(); }

Program x86_program(const Test& test, std::vector<std::string> names) {
  // The final state is read by the body after joining every thread; join waits for the
  // child's store buffer to drain, as herd7 reads final states of drained buffers.
  return [&test, names]() {
    std::deque<atomic<std::int64_t>> mem;
    for (std::size_t v = 0; v < test.vars.size(); ++v) mem.emplace_back(test.var_init[v], test.vars[v]);
    std::vector<Registers> regs(test.threads.size());
    for (std::size_t t = 0; t < test.threads.size(); ++t)
      std::copy(test.reg_init[t].begin(), test.reg_init[t].end(), regs[t].begin());
    std::vector<thread> threads;
    threads.reserve(test.threads.size());
    for (std::size_t t = 0; t < test.threads.size(); ++t)
      threads.emplace_back([&test, &mem, &regs, t] { interpret(test.threads[t], mem, regs[t]); });
    for (thread& t : threads) t.join();
    for (std::size_t i = 0; i < test.observed.size(); ++i) {
      const Location& l = test.observed[i];
      std::int64_t v = l.is_reg ? regs[static_cast<std::size_t>(l.thread)][static_cast<std::size_t>(l.reg)]
                                : mem[l.var].load(std::memory_order_seq_cst);
      outcome(names[i], v);
    }
  };
}

}  // namespace detail

}  // namespace atomcheck::litmus
