// herd7 x86 litmus tests: parser (X86 and X86_64 dialects) with `FILE:LINE: ...`
// errors, the runner onto the scheduler API, and the herd7-layout printer. The parser
// works on a copy of the text with OCaml comments blanked out (newlines kept), so every
// later stage can count lines without knowing about comments.
#include "specs/litmus.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <deque>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "scheduler/api.hpp"

namespace atomcheck::litmus {

namespace {

// ---- registers ---------------------------------------------------------------------

constexpr std::array<const char*, kRegisterCount> kX86Names = {
    "EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP",
    "R8D", "R9D", "R10D", "R11D", "R12D", "R13D", "R14D", "R15D"};
constexpr std::array<const char*, kRegisterCount> kX64Names = {
    "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
    "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

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

// ---- text helpers --------------------------------------------------------------------

std::string_view trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  return std::all_of(s.begin(), s.end(), is_ident_char);
}

// Parses a decimal or 0x integer with optional sign; false when `s` is not one.
bool parse_int(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  bool neg = false;
  std::size_t i = 0;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    i = 1;
  }
  int base = 10;
  if (s.size() > i + 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= s.size()) return false;
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    int d;
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else return false;
    if (v > (std::uint64_t{1} << 62)) return false;  // far beyond any litmus value
    v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
  }
  out = neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  return true;
}

// ---- the parser ----------------------------------------------------------------------

struct Token {
  enum class Kind : std::uint8_t { ident, number, sym, end };
  Kind kind = Kind::end;
  std::string text;
  std::int64_t number = 0;
  std::uint32_t line = 0;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : file_(file) {
    test_.file = std::string(file);
    clean_ = strip_comments(text);
    std::size_t start = 0;
    for (std::size_t i = 0; i <= clean_.size(); ++i) {
      if (i == clean_.size() || clean_[i] == '\n') {
        lines_.push_back(std::string_view(clean_).substr(start, i - start));
        start = i + 1;
      }
    }
  }

  Test parse() {
    std::size_t li = 0;
    skip_blank(li);
    if (li >= lines_.size()) fail(1, "empty file");
    parse_title(li);
    ++li;
    // herd's preamble: a quoted doc string and key=value lines, up to the init block.
    while (li < lines_.size() && (trim(lines_[li]).empty() || trim(lines_[li])[0] != '{')) ++li;
    if (li >= lines_.size())
      fail(last_line(), "unexpected end of file: missing the init block '{ ... }'");
    std::size_t col = lines_[li].find('{');
    auto [end_line, end_col] = parse_init(li, col + 1);
    // The thread table starts right after '}' (same line or below).
    std::string_view rest = lines_[end_line].substr(end_col + 1);
    std::size_t code_line = end_line;
    if (trim(rest).empty()) {
      code_line = end_line + 1;
      skip_blank(code_line);
      if (code_line >= lines_.size())
        fail(last_line(), "unexpected end of file: missing the thread table 'P0 | P1 ... ;'");
      rest = lines_[code_line];
    }
    parse_thread_header(rest, line_no(code_line));
    std::size_t li2 = code_line + 1;
    while (li2 < lines_.size()) {
      std::string_view l = trim(lines_[li2]);
      if (l.empty()) {
        ++li2;
        continue;
      }
      if (!is_code_row(l)) break;
      parse_code_row(l, line_no(li2));
      ++li2;
    }
    parse_condition_section(li2);
    finish();
    return std::move(test_);
  }

 private:
  [[noreturn]] void fail(std::uint32_t line, const std::string& what) const {
    throw LitmusError(fmt::format("{}:{}: {}", file_, line, what));
  }
  std::uint32_t line_no(std::size_t index) const { return static_cast<std::uint32_t>(index + 1); }
  std::uint32_t last_line() const {
    // The last line that has any text, or 1.
    for (std::size_t i = lines_.size(); i > 0; --i)
      if (!trim(lines_[i - 1]).empty()) return line_no(i - 1);
    return 1;
  }
  void skip_blank(std::size_t& li) const {
    while (li < lines_.size() && trim(lines_[li]).empty()) ++li;
  }

  // OCaml comments nest; they are replaced by spaces so columns and lines stay put.
  std::string strip_comments(std::string_view text) const {
    std::string out(text);
    int depth = 0;
    std::uint32_t line = 1, open_line = 1;
    bool in_string = false;
    for (std::size_t i = 0; i < out.size(); ++i) {
      char c = out[i];
      if (c == '\n') {
        ++line;
        in_string = false;  // doc strings never span lines
        continue;
      }
      if (depth == 0 && c == '"') in_string = !in_string;
      if (in_string) continue;
      if (c == '(' && i + 1 < out.size() && out[i + 1] == '*') {
        if (depth == 0) open_line = line;
        ++depth;
        out[i] = out[i + 1] = ' ';
        ++i;
      } else if (depth > 0 && c == '*' && i + 1 < out.size() && out[i + 1] == ')') {
        --depth;
        out[i] = out[i + 1] = ' ';
        ++i;
      } else if (depth > 0) {
        out[i] = ' ';
      }
    }
    if (depth > 0) fail(open_line, "unterminated comment '(*'");
    return out;
  }

  void parse_title(std::size_t li) {
    std::istringstream words{std::string(lines_[li])};
    std::string arch, name;
    words >> arch >> name;
    if (arch == "X86" || lower(arch) == "x86") test_.arch = Arch::x86;
    else if (lower(arch) == "x86_64") test_.arch = Arch::x86_64;
    else
      fail(line_no(li), fmt::format("unsupported architecture '{}' (atomcheck reads X86 and "
                                    "X86_64 litmus tests)",
                                    arch));
    if (name.empty()) fail(line_no(li), fmt::format("missing test name after '{}'", arch));
    test_.name = name;
  }

  // ---- tokens (init block and condition) ----

  // Tokenizes lines [from_line, end) starting at column `col` of the first; stops after
  // `stop` (a symbol) when given.
  std::vector<Token> tokenize(std::size_t from_line, std::size_t col, std::size_t to_line) const {
    std::vector<Token> out;
    for (std::size_t li = from_line; li < to_line && li < lines_.size(); ++li) {
      std::string_view l = lines_[li];
      std::size_t i = li == from_line ? col : 0;
      while (i < l.size()) {
        char c = l[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
          ++i;
          continue;
        }
        Token t;
        t.line = line_no(li);
        auto two = [&](const char* s) { return l.substr(i, 2) == s; };
        if (std::isdigit(static_cast<unsigned char>(c)) ||
            (c == '-' && i + 1 < l.size() && std::isdigit(static_cast<unsigned char>(l[i + 1])))) {
          std::size_t j = i + 1;
          while (j < l.size() && std::isalnum(static_cast<unsigned char>(l[j]))) ++j;
          t.kind = Token::Kind::number;
          t.text = std::string(l.substr(i, j - i));
          if (!parse_int(t.text, t.number)) fail(t.line, fmt::format("bad number '{}'", t.text));
          i = j;
        } else if (is_ident_start(c) || c == '%') {
          std::size_t j = i + 1;
          while (j < l.size() && is_ident_char(l[j])) ++j;
          t.kind = Token::Kind::ident;
          t.text = std::string(l.substr(i, j - i));
          i = j;
        } else if (two("/\\") || two("\\/") || two("!=") || two("=>")) {
          t.kind = Token::Kind::sym;
          t.text = std::string(l.substr(i, 2));
          i += 2;
        } else {
          t.kind = Token::Kind::sym;
          t.text = std::string(1, c);
          ++i;
        }
        out.push_back(std::move(t));
      }
    }
    return out;
  }

  // ---- locations ----

  std::uint32_t intern_var(std::string_view name) {
    auto it = var_ids_.find(std::string(name));
    if (it != var_ids_.end()) return it->second;
    auto id = static_cast<std::uint32_t>(test_.vars.size());
    test_.vars.emplace_back(name);
    test_.var_init.push_back(0);
    var_ids_.emplace(std::string(name), id);
    return id;
  }

  // A thread prefix: "0" (number token) or "P0" (identifier).
  bool thread_prefix(const Token& t, int& thread) const {
    if (t.kind == Token::Kind::number && t.number >= 0 && t.number < 1000) {
      thread = static_cast<int>(t.number);
      return true;
    }
    if (t.kind == Token::Kind::ident && t.text.size() > 1 && (t.text[0] == 'P' || t.text[0] == 'p')) {
      std::int64_t n;
      if (parse_int(std::string_view(t.text).substr(1), n) && n >= 0 && n < 1000) {
        thread = static_cast<int>(n);
        return true;
      }
    }
    return false;
  }

  int condition_register(const Token& t) const {
    std::string_view name = t.text;
    if (!name.empty() && name[0] == '%') name.remove_prefix(1);
    int r = t.kind == Token::Kind::ident ? lookup_register(test_.arch, name) : -1;
    if (r < 0) fail(t.line, fmt::format("unknown register '{}'", t.text));
    return r;
  }

  // ---- init block ----

  // Parses from (line li, column col) just after '{' to the matching '}'; returns the
  // position of '}'.
  std::pair<std::size_t, std::size_t> parse_init(std::size_t li, std::size_t col) {
    std::size_t end_line = li, end_col = std::string_view::npos;
    for (std::size_t l = li; l < lines_.size(); ++l) {
      std::size_t from = l == li ? col : 0;
      std::size_t p = lines_[l].find('}', from);
      if (p != std::string_view::npos) {
        end_line = l;
        end_col = p;
        break;
      }
    }
    if (end_col == std::string_view::npos)
      fail(last_line(), "unexpected end of file in the init block (missing '}')");
    // Tokens strictly inside the braces.
    std::vector<Token> toks;
    for (Token& t : tokenize(li, col, end_line + 1)) {
      if (t.line == line_no(end_line) && t.kind == Token::Kind::sym && t.text == "}") break;
      toks.push_back(std::move(t));
    }
    std::vector<Token> entry;
    for (std::size_t i = 0; i <= toks.size(); ++i) {
      if (i == toks.size() || (toks[i].kind == Token::Kind::sym && toks[i].text == ";")) {
        if (!entry.empty()) parse_init_entry(entry);
        entry.clear();
      } else {
        entry.push_back(toks[i]);
      }
    }
    return {end_line, end_col};
  }

  std::int64_t init_value(const std::vector<Token>& e, std::size_t i) const {
    if (i >= e.size()) fail(e.back().line, "missing value after '=' in the init block");
    if (e[i].kind == Token::Kind::ident)
      fail(e[i].line, fmt::format("initialising with an address ('{}') is not supported",
                                  e[i].text));
    if (e[i].kind != Token::Kind::number)
      fail(e[i].line, fmt::format("expected a number in the init block, found '{}'", e[i].text));
    if (i + 1 != e.size())
      fail(e[i + 1].line, fmt::format("unexpected '{}' in the init block", e[i + 1].text));
    return e[i].number;
  }

  void parse_init_entry(const std::vector<Token>& e) {
    auto is = [&](std::size_t i, const char* s) {
      return i < e.size() && e[i].kind == Token::Kind::sym && e[i].text == s;
    };
    int thread;
    if (e.size() >= 3 && thread_prefix(e[0], thread) && is(1, ":")) {
      int reg = condition_register(e[2]);
      if (!is(3, "=")) fail(e[2].line, "expected '=' after a register in the init block");
      std::int64_t v = init_value(e, 4);
      pending_reg_init_.push_back({thread, reg, v, e[0].line});
      return;
    }
    if (is(0, "[")) {
      if (e.size() < 3 || e[1].kind != Token::Kind::ident || !is(2, "]"))
        fail(e[0].line, "expected '[location]' in the init block");
      std::uint32_t var = intern_var(e[1].text);
      if (is(3, "=")) test_.var_init[var] = init_value(e, 4);
      else if (e.size() > 3) fail(e[3].line, fmt::format("unexpected '{}' in the init block", e[3].text));
      return;
    }
    // [type words] location [= value]
    std::size_t eq = 0;
    while (eq < e.size() && !is(eq, "=")) ++eq;
    if (eq == 0) fail(e[0].line, fmt::format("unexpected '{}' in the init block", e[0].text));
    const Token& loc = e[eq - 1];
    if (loc.kind != Token::Kind::ident || !is_identifier(loc.text))
      fail(loc.line, fmt::format("expected a location name in the init block, found '{}'", loc.text));
    for (std::size_t i = 0; i + 1 < eq; ++i)
      if (e[i].kind != Token::Kind::ident)
        fail(e[i].line, fmt::format("unexpected '{}' in the init block", e[i].text));
    std::uint32_t var = intern_var(loc.text);
    if (eq < e.size()) test_.var_init[var] = init_value(e, eq + 1);
  }

  // ---- thread table ----

  void parse_thread_header(std::string_view text, std::uint32_t line) {
    std::string_view t = trim(text);
    if (!t.empty() && t.back() == ';') t.remove_suffix(1);
    std::size_t k = 0;
    std::size_t start = 0;
    while (true) {
      std::size_t bar = t.find('|', start);
      std::string_view cell = trim(t.substr(start, bar == std::string_view::npos ? bar : bar - start));
      std::int64_t n = -1;
      if (cell.size() < 2 || (cell[0] != 'P' && cell[0] != 'p') || !parse_int(cell.substr(1), n) ||
          n != static_cast<std::int64_t>(k))
        fail(line, fmt::format("expected the thread header 'P0 | P1 | ... ;', found '{}'", trim(text)));
      ++k;
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
    test_.threads.resize(k);
    test_.reg_init.assign(k, std::vector<std::int64_t>(kRegisterCount, 0));
  }

  static bool is_condition_word(std::string_view l) {
    for (std::string_view w : {"exists", "~exists", "forall", "locations", "filter", "~"}) {
      if (l.substr(0, w.size()) == w &&
          (l.size() == w.size() || !is_ident_char(l[w.size()]) || w == "~"))
        return true;
    }
    return false;
  }
  static bool is_code_row(std::string_view l) {
    if (is_condition_word(l)) return false;
    return l.back() == ';' || l.find('|') != std::string_view::npos;
  }

  void parse_code_row(std::string_view l, std::uint32_t line) {
    if (l.back() == ';') l.remove_suffix(1);
    std::size_t col = 0, start = 0;
    while (true) {
      std::size_t bar = l.find('|', start);
      std::string_view cell = trim(l.substr(start, bar == std::string_view::npos ? bar : bar - start));
      if (col >= test_.threads.size())
        fail(line, fmt::format("this row has more columns than the {} threads of the header",
                               test_.threads.size()));
      if (!cell.empty()) test_.threads[col].push_back(parse_instruction(cell, line));
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

  Operand parse_operand(std::string_view text, std::uint32_t line) {
    std::string_view s = trim(text);
    Operand op;
    if (s.empty()) fail(line, "missing operand");
    bool intel = test_.arch == Arch::x86;
    char open = intel ? '[' : '(', close = intel ? ']' : ')';
    if (s[0] == '[' || s[0] == '(') {
      if (s[0] != open || s.back() != close)
        fail(line, fmt::format("bad memory operand '{}' ({} writes memory as {}x{})", s,
                               intel ? "X86" : "X86_64", open, close));
      std::string_view inner = trim(s.substr(1, s.size() - 2));
      std::string_view reg_part = inner;
      if (!reg_part.empty() && reg_part[0] == '%') reg_part.remove_prefix(1);
      if (lookup_register(test_.arch, reg_part) >= 0)
        fail(line, fmt::format("indirect addressing '{}' is not supported", s));
      if (!is_identifier(inner)) fail(line, fmt::format("bad memory operand '{}'", s));
      op.kind = Operand::Kind::mem;
      op.var = intern_var(inner);
      return op;
    }
    if (s[0] == '$' || s[0] == '-' || std::isdigit(static_cast<unsigned char>(s[0]))) {
      std::string_view num = s[0] == '$' ? s.substr(1) : s;
      if (!parse_int(trim(num), op.imm)) fail(line, fmt::format("bad immediate '{}'", s));
      op.kind = Operand::Kind::imm;
      return op;
    }
    if (!intel) {
      if (s[0] != '%')
        fail(line, fmt::format("bad operand '{}' (X86_64 writes registers as %eax, memory as "
                               "(x), immediates as $1)",
                               s));
      op.reg = lookup_register(test_.arch, s.substr(1));
    } else {
      op.reg = lookup_register(test_.arch, s);
    }
    if (op.reg < 0) fail(line, fmt::format("unknown register '{}'", s));
    op.kind = Operand::Kind::reg;
    return op;
  }

  Instr parse_instruction(std::string_view cell, std::uint32_t line) {
    static constexpr const char* kSubset =
        "atomcheck reads MOV, MFENCE, XCHG, LOCK CMPXCHG and LOCK XADD";
    // mnemonic [operands]
    auto split_word = [](std::string_view s) {
      s = trim(s);
      std::size_t sp = 0;
      while (sp < s.size() && !std::isspace(static_cast<unsigned char>(s[sp]))) ++sp;
      return std::pair{s.substr(0, sp), trim(s.substr(sp))};
    };
    auto [word, rest] = split_word(cell);
    std::string mnem = lower(word);
    bool locked = false;
    if (mnem == "lock") {
      locked = true;
      auto [w2, r2] = split_word(rest);
      if (w2.empty()) fail(line, "LOCK prefix without an instruction");
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
    if (!known(mnem))
      fail(line, fmt::format("unsupported instruction '{}' ({})", trim(cell), kSubset));

    std::vector<Operand> ops;
    if (!rest.empty()) {
      std::size_t start = 0;
      while (true) {
        std::size_t comma = rest.find(',', start);
        ops.push_back(parse_operand(
            rest.substr(start, comma == std::string_view::npos ? comma : comma - start), line));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
    }
    // Operands in Intel order (destination first) from here on.
    if (test_.arch == Arch::x86_64) std::reverse(ops.begin(), ops.end());
    using K = Operand::Kind;
    Instr in;
    in.line = line;
    auto want = [&](std::size_t n) {
      if (ops.size() != n)
        fail(line, fmt::format("'{}' takes {} operand{}, found {}", trim(cell), n, n == 1 ? "" : "s",
                               ops.size()));
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
      if (locked) fail(line, "LOCK prefix is not valid on MFENCE");
      in.op = Opcode::mfence;
      return in;
    }
    want(2);
    if (mnem == "mov") {
      if (locked) fail(line, "LOCK prefix is not valid on MOV");
      const Operand &dst = ops[0], &src = ops[1];
      if (dst.kind == K::mem && src.kind == K::mem)
        fail(line, fmt::format("'{}': MOV cannot move memory to memory", trim(cell)));
      if (dst.kind == K::imm) fail(line, fmt::format("'{}': cannot store into an immediate", trim(cell)));
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
      if (!locked)
        fail(line, fmt::format("'{}' without LOCK is not atomic ({})", trim(cell), kSubset));
      if (ops[0].kind == K::mem) mem = &ops[0];
      if (ops[1].kind == K::reg) reg = &ops[1];
      in.op = mnem == "cmpxchg" ? Opcode::cmpxchg : Opcode::xadd;
    }
    if (mem == nullptr || reg == nullptr)
      fail(line, fmt::format("'{}' needs a memory operand and a register ({})", trim(cell),
                             test_.arch == Arch::x86 ? "[x],EAX" : "%eax,(x)"));
    in.var = mem->var;
    in.reg = reg->reg;
    return in;
  }

  // ---- condition ----

  class TokenStream {
   public:
    TokenStream(std::vector<Token> toks, std::uint32_t eof_line)
        : toks_(std::move(toks)), eof_line_(eof_line) {}
    bool at_end() const { return pos_ >= toks_.size(); }
    const Token& peek() const {
      static const Token kEnd{};
      return at_end() ? kEnd : toks_[pos_];
    }
    bool peek_sym(const char* s) const {
      return !at_end() && toks_[pos_].kind == Token::Kind::sym && toks_[pos_].text == s;
    }
    bool peek_ident(const char* s) const {
      return !at_end() && toks_[pos_].kind == Token::Kind::ident && toks_[pos_].text == s;
    }
    Token next() { return at_end() ? Token{} : toks_[pos_++]; }
    std::uint32_t line() const { return at_end() ? eof_line_ : toks_[pos_].line; }

   private:
    std::vector<Token> toks_;
    std::size_t pos_ = 0;
    std::uint32_t eof_line_;
  };

  void parse_condition_section(std::size_t li) {
    TokenStream ts(tokenize(li, 0, lines_.size()), last_line());
    auto eof_in_condition = [&] { fail(last_line(), "unexpected end of file in the condition"); };
    if (ts.peek_ident("locations")) {
      ts.next();
      if (!ts.peek_sym("[")) fail(ts.line(), "expected '[' after 'locations'");
      ts.next();
      while (!ts.peek_sym("]")) {
        if (ts.at_end()) fail(last_line(), "unexpected end of file in 'locations [...]'");
        if (ts.peek_sym(";")) {
          ts.next();
          continue;
        }
        parse_location(ts);  // only adds it to the observed locations
      }
      ts.next();
    }
    if (ts.peek_ident("filter")) fail(ts.line(), "'filter' is not supported");
    if (ts.at_end())
      fail(last_line(), "missing condition (exists, ~exists or forall) after the thread table");
    test_.condition.line = ts.line();
    if (ts.peek_ident("exists")) {
      test_.condition.quantifier = Quantifier::exists;
    } else if (ts.peek_ident("forall")) {
      test_.condition.quantifier = Quantifier::forall;
    } else if (ts.peek_sym("~")) {
      ts.next();
      if (!ts.peek_ident("exists"))
        fail(ts.line(), fmt::format("expected 'exists' after '~', found '{}'", ts.peek().text));
      test_.condition.quantifier = Quantifier::not_exists;
    } else {
      fail(ts.line(), fmt::format("expected a condition (exists, ~exists or forall), found '{}'",
                                  ts.peek().text));
    }
    ts.next();
    if (ts.at_end()) eof_in_condition();
    test_.condition.root = parse_disj(ts);
    // Anything after the proposition is one of the trailing sections herd ignores.
  }

  std::uint32_t add_node(CondNode n) {
    test_.condition.nodes.push_back(n);
    return static_cast<std::uint32_t>(test_.condition.nodes.size() - 1);
  }

  std::uint32_t parse_disj(TokenStream& ts) {
    std::uint32_t l = parse_conj(ts);
    while (ts.peek_sym("\\/")) {
      ts.next();
      std::uint32_t r = parse_conj(ts);
      l = add_node({CondNode::Kind::disj, 0, 0, l, r});
    }
    return l;
  }
  std::uint32_t parse_conj(TokenStream& ts) {
    std::uint32_t l = parse_unary(ts);
    while (ts.peek_sym("/\\")) {
      ts.next();
      std::uint32_t r = parse_unary(ts);
      l = add_node({CondNode::Kind::conj, 0, 0, l, r});
    }
    return l;
  }
  std::uint32_t parse_unary(TokenStream& ts) {
    if (ts.at_end()) fail(last_line(), "unexpected end of file in the condition");
    if (ts.peek_sym("~") || ts.peek_ident("not")) {
      ts.next();
      std::uint32_t c = parse_unary(ts);
      return add_node({CondNode::Kind::negation, 0, 0, c, 0});
    }
    if (ts.peek_sym("(")) {
      ts.next();
      std::uint32_t e = parse_disj(ts);
      if (ts.at_end()) fail(last_line(), "unexpected end of file in the condition (missing ')')");
      if (!ts.peek_sym(")")) fail(ts.line(), fmt::format("expected ')', found '{}'", ts.peek().text));
      ts.next();
      return e;
    }
    if (ts.peek_ident("true")) {
      ts.next();
      return add_node({CondNode::Kind::truth, 0, 0, 0, 0});
    }
    if (ts.peek_ident("false")) {
      ts.next();
      return add_node({CondNode::Kind::falsity, 0, 0, 0, 0});
    }
    std::uint32_t loc = parse_location(ts);
    if (ts.at_end()) fail(last_line(), "unexpected end of file in the condition");
    bool negate = false;
    if (ts.peek_sym("!=")) negate = true;
    else if (!ts.peek_sym("=")) fail(ts.line(), fmt::format("expected '=', found '{}'", ts.peek().text));
    ts.next();
    if (ts.at_end()) fail(last_line(), "unexpected end of file in the condition");
    Token v = ts.next();
    if (v.kind != Token::Kind::number)
      fail(v.line, fmt::format("expected a number in the condition, found '{}'", v.text));
    std::uint32_t atom = add_node({CondNode::Kind::atom, loc, v.number, 0, 0});
    return negate ? add_node({CondNode::Kind::negation, 0, 0, atom, 0}) : atom;
  }

  // A location of the condition; returns its index in condition_locs_ (remapped to
  // Test::observed in finish()).
  std::uint32_t parse_location(TokenStream& ts) {
    Token t = ts.next();
    Location loc;
    int thread;
    if (t.kind == Token::Kind::sym && t.text == "[") {
      Token name = ts.next();
      if (name.kind != Token::Kind::ident || !is_identifier(name.text))
        fail(name.line ? name.line : last_line(), "expected a location name after '['");
      if (!ts.peek_sym("]")) fail(ts.line(), "expected ']'");
      ts.next();
      loc.var = intern_var(name.text);
    } else if (thread_prefix(t, thread) && ts.peek_sym(":")) {
      ts.next();
      if (ts.at_end()) fail(last_line(), "unexpected end of file in the condition");
      Token r = ts.next();
      if (thread >= static_cast<int>(test_.threads.size()))
        fail(t.line, fmt::format("thread {} does not exist (the test has {} threads)", thread,
                                 test_.threads.size()));
      loc.is_reg = true;
      loc.thread = thread;
      loc.reg = condition_register(r);
    } else if (t.kind == Token::Kind::ident && is_identifier(t.text)) {
      loc.var = intern_var(t.text);
    } else {
      fail(t.line ? t.line : last_line(),
           fmt::format("expected a location (0:EAX, [x] or x), found '{}'", t.text));
    }
    auto it = std::find(condition_locs_.begin(), condition_locs_.end(), loc);
    if (it != condition_locs_.end()) return static_cast<std::uint32_t>(it - condition_locs_.begin());
    condition_locs_.push_back(loc);
    return static_cast<std::uint32_t>(condition_locs_.size() - 1);
  }

  void finish() {
    for (const auto& r : pending_reg_init_) {
      if (r.thread >= static_cast<int>(test_.threads.size()))
        fail(r.line, fmt::format("thread {} does not exist (the test has {} threads)", r.thread,
                                 test_.threads.size()));
      test_.reg_init[static_cast<std::size_t>(r.thread)][static_cast<std::size_t>(r.reg)] = r.value;
    }
    // herd7's display order: registers by (thread, register), then memory by name.
    std::vector<Location> all = condition_locs_;
    auto less = [&](const Location& a, const Location& b) {
      if (a.is_reg != b.is_reg) return a.is_reg;
      if (a.is_reg) return std::pair(a.thread, a.reg) < std::pair(b.thread, b.reg);
      return test_.vars[a.var] < test_.vars[b.var];
    };
    std::sort(all.begin(), all.end(), less);
    all.erase(std::unique(all.begin(), all.end()), all.end());
    test_.observed = all;
    for (CondNode& n : test_.condition.nodes) {
      if (n.kind != CondNode::Kind::atom) continue;
      const Location& l = condition_locs_[n.loc];
      n.loc = static_cast<std::uint32_t>(std::find(all.begin(), all.end(), l) - all.begin());
    }
  }

  struct RegInit {
    int thread, reg;
    std::int64_t value;
    std::uint32_t line;
  };

  std::string file_;
  std::string clean_;
  std::vector<std::string_view> lines_;
  Test test_;
  std::unordered_map<std::string, std::uint32_t> var_ids_;
  std::vector<RegInit> pending_reg_init_;
  std::vector<Location> condition_locs_;  // every location the condition or `locations` name
};

}  // namespace

std::string register_name(Arch arch, int reg) {
  auto i = static_cast<std::size_t>(reg);
  return arch == Arch::x86 ? kX86Names[i] : kX64Names[i];
}

Test parse_litmus(std::string_view text, std::string_view file) {
  return Parser(text, file).parse();
}

Test load_litmus(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LitmusError(fmt::format("{}: cannot open file", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_litmus(ss.str(), path);
}

std::string location_name(const Test& test, const Location& loc) {
  if (loc.is_reg) return fmt::format("{}:{}", loc.thread, register_name(test.arch, loc.reg));
  return fmt::format("[{}]", test.vars[loc.var]);
}

namespace {

// Precedence: disjunction 1, conjunction 2, atoms and negation 3.
void print_node(const Test& test, std::uint32_t i, int context, std::string& out) {
  const CondNode& n = test.condition.nodes[i];
  switch (n.kind) {
    case CondNode::Kind::atom:
      out += fmt::format("{}={}", location_name(test, test.observed[n.loc]), n.value);
      return;
    case CondNode::Kind::truth:
      out += "true";
      return;
    case CondNode::Kind::falsity:
      out += "false";
      return;
    case CondNode::Kind::negation:
      out += "~";
      print_node(test, n.lhs, 3, out);
      return;
    case CondNode::Kind::conj:
    case CondNode::Kind::disj: {
      int prec = n.kind == CondNode::Kind::conj ? 2 : 1;
      if (prec < context) out += "(";
      print_node(test, n.lhs, prec, out);
      out += n.kind == CondNode::Kind::conj ? " /\\ " : " \\/ ";
      print_node(test, n.rhs, prec + 1, out);
      if (prec < context) out += ")";
      return;
    }
  }
}

bool eval_node(const Test& test, std::uint32_t i, const std::vector<std::int64_t>& state) {
  const CondNode& n = test.condition.nodes[i];
  switch (n.kind) {
    case CondNode::Kind::atom: return state[n.loc] == n.value;
    case CondNode::Kind::truth: return true;
    case CondNode::Kind::falsity: return false;
    case CondNode::Kind::negation: return !eval_node(test, n.lhs, state);
    case CondNode::Kind::conj: return eval_node(test, n.lhs, state) && eval_node(test, n.rhs, state);
    case CondNode::Kind::disj: return eval_node(test, n.lhs, state) || eval_node(test, n.rhs, state);
  }
  return false;
}

}  // namespace

std::string condition_text(const Test& test) {
  std::string body;
  print_node(test, test.condition.root, 0, body);
  std::string_view q = test.condition.quantifier == Quantifier::exists       ? "exists"
                       : test.condition.quantifier == Quantifier::not_exists ? "~exists"
                                                                              : "forall";
  return fmt::format("{} ({})", q, body);
}

bool eval_proposition(const Test& test, const std::vector<std::int64_t>& state) {
  return eval_node(test, test.condition.root, state);
}

namespace {

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

// herd7 counts executions as distinct (reads-from, coherence order) pairs. Both follow
// from the event sequence: a write is named by (thread, its ordinal among that thread's
// writes), the initial value by 0; a read takes the newest own buffered write when it
// was served by the buffer, else the write memory holds; coherence is the order in
// which writes reach memory (commits under TSO). The key lists reads per thread in
// program order and coherence per variable, so interleavings of one execution share it.
std::vector<std::int64_t> execution_key(const Trace& trace, bool tso) {
  std::uint32_t threads = 0, vars = 0;
  for (const Event& e : trace.events) {
    threads = std::max(threads, e.thread + 1);
    if (is_access(e.op)) vars = std::max(vars, e.target + 1);
  }
  struct Pending {
    VarId var;
    std::int64_t id;
  };
  std::vector<std::deque<Pending>> buffer(threads);
  std::vector<std::int64_t> written(threads, 0), memory(vars, 0);
  std::vector<std::vector<std::int64_t>> reads(threads), co(vars);
  auto new_id = [&](ThreadId t) { return (static_cast<std::int64_t>(t) << 24) | ++written[t]; };
  for (const Event& e : trace.events) {
    switch (e.op) {
      case Op::read: {
        std::int64_t src = memory[e.target];
        if (e.buffered) {
          const auto& b = buffer[e.thread];
          for (auto it = b.rbegin(); it != b.rend(); ++it)
            if (it->var == e.target) {
              src = it->id;
              break;
            }
        }
        reads[e.thread].push_back(src);
        break;
      }
      case Op::write: {
        std::int64_t id = new_id(e.thread);
        if (tso) {
          buffer[e.thread].push_back({e.target, id});
        } else {
          memory[e.target] = id;
          co[e.target].push_back(id);
        }
        break;
      }
      case Op::commit: {
        auto& b = buffer[e.thread];
        if (b.empty()) break;  // cannot happen in a well-formed TSO execution
        Pending p = b.front();
        b.pop_front();
        memory[p.var] = p.id;
        co[p.var].push_back(p.id);
        break;
      }
      case Op::rmw: {
        reads[e.thread].push_back(memory[e.target]);
        std::int64_t id = new_id(e.thread);
        memory[e.target] = id;
        co[e.target].push_back(id);
        break;
      }
      default: break;
    }
  }
  std::vector<std::int64_t> key;
  for (const auto& r : reads) {
    key.insert(key.end(), r.begin(), r.end());
    key.push_back(-1);
  }
  for (const auto& c : co) {
    key.insert(key.end(), c.begin(), c.end());
    key.push_back(-1);
  }
  return key;
}

}  // namespace

Program litmus_program(const Test& test) {
  std::vector<std::string> names;
  for (const Location& l : test.observed) names.push_back(location_name(test, l));
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

RunResult run_litmus(const Test& test, MemoryModelKind memory, const ExploreOptions& base) {
  ExploreOptions options = base;
  options.strategy = StrategyKind::dfs;
  options.memory = memory;
  options.replay.clear();
  options.checkers.clear();
  options.stop_on_failure = true;

  std::vector<std::string> names;
  std::map<std::string, std::size_t, std::less<>> index;
  for (const Location& l : test.observed) {
    index.emplace(location_name(test, l), names.size());
    names.push_back(location_name(test, l));
  }

  Program program = litmus_program(test);

  std::set<std::vector<std::int64_t>> states;
  std::map<std::vector<std::int64_t>, bool> executions;  // key -> proposition holds
  std::string error;
  const bool tso = memory == MemoryModelKind::tso;
  auto on_execution = [&](const ExecutionView& view) {
    if (view.failure != nullptr || view.outcome == nullptr) {
      if (error.empty() && view.failure != nullptr) error = view.failure->message;
      return;
    }
    std::vector<std::int64_t> state(names.size(), 0);
    for (const auto& [name, value] : *view.outcome) {
      auto it = index.find(name);
      if (it != index.end()) state[it->second] = value;
    }
    bool holds = eval_proposition(test, state);
    states.insert(state);
    executions.emplace(execution_key(*view.trace, tso), holds);
  };
  ExploreResult res = explore(program, options, on_execution);

  RunResult out;
  out.memory = memory;
  out.executions = res.executions;
  out.complete = res.exhausted();
  if (!res.error.empty()) out.error = res.error;
  else if (!error.empty()) out.error = error;
  else if (!res.failures.empty()) out.error = res.failures.front().message;
  out.states.assign(states.begin(), states.end());
  for (const auto& s : out.states) out.state_matches.push_back(eval_proposition(test, s));
  std::uint64_t holds = 0, fails = 0;
  for (const auto& [key, h] : executions) (h ? holds : fails) += 1;
  bool reachable = out.reachable();
  switch (test.condition.quantifier) {
    case Quantifier::exists:
      out.ok = reachable;
      out.positive = holds;
      out.negative = fails;
      break;
    case Quantifier::not_exists:
      out.ok = !reachable;
      out.positive = fails;
      out.negative = holds;
      break;
    case Quantifier::forall:
      out.ok = fails == 0 && std::all_of(out.state_matches.begin(), out.state_matches.end(),
                                         [](bool b) { return b; });
      out.positive = holds;
      out.negative = fails;
      break;
  }
  return out;
}

std::string format_herd(const Test& test, const RunResult& r) {
  std::string out;
  std::string_view kind = test.condition.quantifier == Quantifier::exists       ? "Allowed"
                          : test.condition.quantifier == Quantifier::not_exists ? "Forbidden"
                                                                                 : "Required";
  out += fmt::format("Test {} {}\n", test.name, kind);
  out += fmt::format("States {}\n", r.states.size());
  for (const auto& s : r.states) {
    std::string line;
    for (std::size_t i = 0; i < s.size(); ++i)
      line += fmt::format("{}={}; ", location_name(test, test.observed[i]), s[i]);
    if (!line.empty()) line.pop_back();
    out += line + "\n";
  }
  out += r.ok ? "Ok\n" : "No\n";
  out += "Witnesses\n";
  out += fmt::format("Positive: {} Negative: {}\n", r.positive, r.negative);
  out += fmt::format("Condition {}\n", condition_text(test));
  // Observation counts executions where the bare proposition holds / does not.
  std::uint64_t holds = test.condition.quantifier == Quantifier::not_exists ? r.negative : r.positive;
  std::uint64_t fails = test.condition.quantifier == Quantifier::not_exists ? r.positive : r.negative;
  std::string_view obs = holds == 0 ? "Never" : fails == 0 ? "Always" : "Sometimes";
  out += fmt::format("Observation {} {} {} {}\n", test.name, obs, holds, fails);
  out += fmt::format("Memory {}\n", r.memory == MemoryModelKind::sc ? "SC" : "TSO");
  if (!r.complete) out += "Incomplete: the search stopped before exhausting the executions\n";
  if (!r.error.empty()) out += fmt::format("Error: {}\n", r.error);
  return out;
}

int run_litmus_command(const std::string& path, std::string_view memory, const ExploreOptions& base,
                       bool json) {
  std::vector<MemoryModelKind> models;
  if (memory == "sc" || memory == "both") models.push_back(MemoryModelKind::sc);
  if (memory == "tso" || memory == "both") models.push_back(MemoryModelKind::tso);
  if (models.empty()) {
    fmt::print(stderr, "atomcheck: --memory must be sc, tso or both, not '{}'\n", memory);
    return 2;
  }
  Test test;
  try {
    test = load_litmus(path);
  } catch (const LitmusError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  int rc = 0;
  nlohmann::json out = {{"test", test.name}, {"file", path}, {"condition", condition_text(test)}};
  out["results"] = nlohmann::json::array();
  for (std::size_t i = 0; i < models.size(); ++i) {
    RunResult r = run_litmus(test, models[i], base);
    if (!r.error.empty()) rc = std::max(rc, 1);
    else if (!r.complete) rc = std::max(rc, 3);
    if (json) {
      nlohmann::json j = {{"memory", r.memory == MemoryModelKind::sc ? "sc" : "tso"},
                          {"ok", r.ok},
                          {"reachable", r.reachable()},
                          {"positive", r.positive},
                          {"negative", r.negative},
                          {"executions", r.executions},
                          {"complete", r.complete}};
      j["states"] = nlohmann::json::array();
      for (std::size_t s = 0; s < r.states.size(); ++s) {
        nlohmann::json st = nlohmann::json::object();
        for (std::size_t k = 0; k < test.observed.size(); ++k)
          st[location_name(test, test.observed[k])] = r.states[s][k];
        j["states"].push_back({{"values", st}, {"matches", static_cast<bool>(r.state_matches[s])}});
      }
      if (!r.error.empty()) j["error"] = r.error;
      out["results"].push_back(j);
      continue;
    }
    if (i > 0) fmt::print("\n");
    fmt::print("{}", format_herd(test, r));
    std::fflush(stdout);
  }
  if (json) fmt::print("{}\n", out.dump());
  return rc;
}

bool RunResult::reachable() const {
  return std::find(state_matches.begin(), state_matches.end(), true) != state_matches.end();
}

}  // namespace atomcheck::litmus
