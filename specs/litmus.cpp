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
//
// herd7 cuts a test into sections before parsing them (its splitter): the title line
// `ARCH NAME ["doc"]`, `key=value` lines, the init block `{ ... }` (up to the first `}`),
// the program (an optional `;`, so `};` closes the init block, then the thread header
// `P0 | P1 ;` and rows of cells, each row ending in `;`), and the constraints, from the
// first of `locations`, `filter`, `exists`, `~exists`, `forall`, `final`, `observed`,
// `cases` to the end of the file or `<<`. The init block and the constraints share one
// grammar (herd's state parser), which this parser follows for what fits integer
// locations; the rest of that grammar (addresses, pointers, arrays, tags, faults, page
// table entries, labels as values) is refused with a `FILE:LINE:COL:` message.

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Source text quoted in a message: one line (rows may span lines), at most 60 bytes.
std::string one_line(std::string_view s) {
  std::string out;
  for (char c : trim(s)) {
    if (is_space(c)) {
      if (out.empty() || out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  if (out.size() > 60) out = out.substr(0, 57) + "...";
  return out;
}

struct Token {
  enum class Kind : std::uint8_t { ident, number, sym, end };
  Kind kind = Kind::end;
  std::string text;
  std::int64_t number = 0;
  std::size_t offset = 0;  // in the text (comments blanked, so offsets are the file's)
};

class TokenStream {
 public:
  TokenStream(std::vector<Token> toks, std::size_t eof) : toks_(std::move(toks)) {
    end_.offset = eof;
    end_.text = "end of file";
  }
  bool at_end() const { return pos_ >= toks_.size(); }
  const Token& peek(std::size_t k = 0) const {
    return pos_ + k < toks_.size() ? toks_[pos_ + k] : end_;
  }
  bool sym(const char* s, std::size_t k = 0) const {
    return peek(k).kind == Token::Kind::sym && peek(k).text == s;
  }
  bool word(const char* s, std::size_t k = 0) const {
    return peek(k).kind == Token::Kind::ident && peek(k).text == s;
  }
  Token next() { return at_end() ? end_ : toks_[pos_++]; }
  std::size_t offset() const { return peek().offset; }

 private:
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  Token end_;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : file_(file) {
    test_.file = std::string(file);
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') line_starts_.push_back(i + 1);
    clean_ = strip_comments(text);
    std::size_t e = clean_.size();
    while (e > 0 && is_space(clean_[e - 1])) --e;
    eof_ = e;
  }

  Test parse() {
    std::size_t pos = skip_space(0, clean_.size());
    if (pos == clean_.size()) fail(0, "empty file");
    pos = parse_title(pos);
    std::size_t open = find_init(pos);
    std::size_t close = clean_.find('}', open + 1);
    if (close == std::string::npos)
      fail(eof_, "unexpected end of file in the init block (missing '}')");
    parse_init(open + 1, close);
    std::size_t constraints = find_constraints(close + 1);
    parse_program(close + 1, constraints);
    parse_constraints(constraints, clean_.size());
    finish();
    return std::move(test_);
  }

 private:
  // ---- positions and errors ----

  std::pair<std::size_t, std::size_t> line_col(std::size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    auto line = static_cast<std::size_t>(it - line_starts_.begin());
    return {line, offset - line_starts_[line - 1] + 1};
  }
  [[noreturn]] void fail(std::size_t offset, const std::string& what) const {
    auto [line, col] = line_col(offset);
    throw LitmusError(fmt::format("{}:{}:{}: {}", file_, line, col, what));
  }
  // A view into clean_ knows where it is.
  std::size_t offset_of(std::string_view s) const {
    return static_cast<std::size_t>(s.data() - clean_.data());
  }
  [[noreturn]] void fail_at(std::string_view where, const std::string& what) const {
    fail(offset_of(where), what);
  }
  std::uint32_t line_of(std::size_t offset) const {
    return static_cast<std::uint32_t>(line_col(offset).first);
  }
  std::size_t skip_space(std::size_t i, std::size_t e) const {
    while (i < e && is_space(clean_[i])) ++i;
    return i;
  }
  std::string_view range(std::size_t b, std::size_t e) const {
    return std::string_view(clean_).substr(b, e - b);
  }

  // OCaml comments nest; they are replaced by spaces so offsets, lines and columns stay.
  std::string strip_comments(std::string_view text) const {
    std::string out(text);
    int depth = 0;
    std::size_t open = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < out.size(); ++i) {
      char c = out[i];
      if (c == '\n') {
        in_string = false;  // doc strings never span lines
        continue;
      }
      if (depth == 0 && c == '"') in_string = !in_string;
      if (in_string) continue;
      if (c == '(' && i + 1 < out.size() && out[i + 1] == '*') {
        if (depth == 0) open = i;
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
    if (depth > 0) fail(open, "unterminated comment '(*'");
    return out;
  }

  // ---- sections ----

  // `ARCH NAME ...`; returns the offset after the name.
  std::size_t parse_title(std::size_t pos) {
    std::size_t e = clean_.find('\n', pos);
    if (e == std::string::npos) e = clean_.size();
    auto word_end = [&](std::size_t i) {
      while (i < e && !is_space(clean_[i])) ++i;
      return i;
    };
    std::size_t arch_end = word_end(pos);
    std::string arch(range(pos, arch_end));
    if (lower(arch) == "x86") test_.arch = Arch::x86;
    else if (lower(arch) == "x86_64") test_.arch = Arch::x86_64;
    else
      fail(pos, fmt::format("unsupported architecture '{}' (atomcheck reads X86 and X86_64 "
                            "litmus tests)",
                            arch));
    std::size_t name = skip_space(arch_end, e);
    std::size_t name_end = word_end(name);
    if (name == name_end) fail(arch_end, fmt::format("missing test name after '{}'", arch));
    test_.name = std::string(range(name, name_end));
    return name_end;
  }

  // herd's splitter: `key=value` lines are skipped whole, quoted doc strings too; the
  // first other `{` opens the init block.
  std::size_t find_init(std::size_t i) const {
    bool line_start = false;
    while (i < clean_.size()) {
      char c = clean_[i];
      if (c == '\n') {
        line_start = true;
        ++i;
        continue;
      }
      if (line_start) {
        line_start = false;
        std::size_t k = i;
        if (std::isalpha(static_cast<unsigned char>(clean_[k]))) {
          while (k < clean_.size() && (is_word_char(clean_[k]) || clean_[k] == '/' || clean_[k] == '-')) ++k;
          while (k < clean_.size() && (clean_[k] == ' ' || clean_[k] == '\t')) ++k;
          if (k < clean_.size() && clean_[k] == '=') {
            i = clean_.find('\n', k);
            if (i == std::string::npos) break;
            continue;
          }
        }
      }
      if (c == '"') {
        std::size_t q = clean_.find_first_of("\"\n", i + 1);
        if (q == std::string::npos) break;
        i = clean_[q] == '"' ? q + 1 : q;
        continue;
      }
      if (c == '{') return i;
      ++i;
    }
    fail(eof_, "unexpected end of file: missing the init block '{ ... }'");
  }

  // The first keyword that starts the constraints, or the end of the file.
  std::size_t find_constraints(std::size_t i) const {
    static constexpr std::array<const char*, 8> kStart = {
        "final", "forall", "exists", "cases", "observed", "Observed", "locations", "filter"};
    while (i < clean_.size()) {
      char c = clean_[i];
      if (c == '~') {
        std::size_t k = i + 1;
        while (k < clean_.size() && (clean_[k] == ' ' || clean_[k] == '\t')) ++k;
        if (clean_.compare(k, 6, "exists") == 0 &&
            (k + 6 == clean_.size() || !is_word_char(clean_[k + 6])))
          return i;
        ++i;
        continue;
      }
      if (!is_word_char(c)) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < clean_.size() && is_word_char(clean_[j])) ++j;
      std::string_view w = range(i, j);
      for (const char* k : kStart)
        if (w == k) return i;
      i = j;
    }
    return clean_.size();
  }

  // ---- tokens (init block and constraints) ----

  // Tokens of [b, e); stops at `<<` (herd's configuration section).
  std::vector<Token> tokenize(std::size_t b, std::size_t e) const {
    std::vector<Token> out;
    std::size_t i = b;
    while (i < e) {
      char c = clean_[i];
      if (is_space(c)) {
        ++i;
        continue;
      }
      Token t;
      t.offset = i;
      auto two = [&](const char* s) { return i + 1 < e && clean_[i] == s[0] && clean_[i + 1] == s[1]; };
      auto digit = [](char d) { return std::isdigit(static_cast<unsigned char>(d)) != 0; };
      if (two("<<")) break;
      if (digit(c) || (c == '-' && i + 1 < e && digit(clean_[i + 1]))) {
        std::size_t j = i + 1;
        while (j < e && std::isalnum(static_cast<unsigned char>(clean_[j]))) ++j;
        t.kind = Token::Kind::number;
        t.text = std::string(range(i, j));
        if (!parse_int(t.text, t.number)) fail(i, fmt::format("bad number '{}'", t.text));
        i = j;
      } else if (is_ident_start(c) || (c == '%' && i + 1 < e && is_ident_start(clean_[i + 1]))) {
        std::size_t j = i + 1;
        while (j < e && is_ident_char(clean_[j])) ++j;
        t.kind = Token::Kind::ident;
        t.text = std::string(range(i, j));
        i = j;
      } else if (two("/\\") || two("\\/") || two("!=") || two("<>") || two("==") || two("=>")) {
        t.kind = Token::Kind::sym;
        t.text = std::string(range(i, i + 2));
        i += 2;
      } else {
        t.kind = Token::Kind::sym;
        t.text = std::string(1, c);
        ++i;
      }
      out.push_back(std::move(t));
    }
    return out;
  }

  std::size_t end_of(const std::vector<Token>& toks, std::size_t fallback) const {
    return toks.empty() ? fallback : toks.back().offset + toks.back().text.size();
  }

  static std::string shown_text(const Token& t) {
    return t.kind == Token::Kind::end ? t.text : fmt::format("'{}'", t.text);
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

  // A thread prefix: "0" (number) or "P0" (identifier), followed by ':'.
  static bool thread_prefix(const TokenStream& ts, int& thread) {
    if (!ts.sym(":", 1)) return false;
    const Token& t = ts.peek();
    if (t.kind == Token::Kind::number && t.number >= 0 && t.number < 1000) {
      thread = static_cast<int>(t.number);
      return true;
    }
    if (t.kind == Token::Kind::ident && t.text.size() > 1 && t.text[0] == 'P') {
      std::int64_t n;
      if (parse_int(std::string_view(t.text).substr(1), n) && n >= 0 && n < 1000 &&
          std::isdigit(static_cast<unsigned char>(t.text[1]))) {
        thread = static_cast<int>(n);
        return true;
      }
    }
    return false;
  }

  int register_of(const Token& t) const {
    std::string_view name = t.text;
    if (!name.empty() && name[0] == '%') name.remove_prefix(1);
    int r = t.kind == Token::Kind::ident ? lookup_register(test_.arch, name) : -1;
    if (r < 0) fail(t.offset, fmt::format("unknown register {}", shown_text(t)));
    return r;
  }

  // Can a location start here? (`0:EAX`, `P0:EAX`, `[x]`, `x`)
  bool location_ahead(const TokenStream& ts) const {
    int thread;
    if (thread_prefix(ts, thread) || ts.sym("[")) return true;
    return ts.peek().kind == Token::Kind::ident && is_identifier(ts.peek().text);
  }

  // location: N:reg | PN:reg | [x] | x. The thread of a register is checked in finish().
  Location parse_location(TokenStream& ts, const char* where) {
    Location loc;
    int thread;
    const Token& t = ts.peek();
    if (thread_prefix(ts, thread)) {
      ts.next();
      ts.next();
      Token r = ts.next();
      loc.is_reg = true;
      loc.thread = thread;
      loc.reg = register_of(r);
      thread_refs_.push_back({thread, t.offset});
      return loc;
    }
    if (ts.sym("[")) {
      ts.next();
      Token name = ts.next();
      if (name.kind != Token::Kind::ident || !is_identifier(name.text))
        fail(name.offset, fmt::format("expected a location name after '[', found {}", shown_text(name)));
      if (!ts.sym("]")) fail(ts.offset(), fmt::format("expected ']', found {}", shown_text(ts.peek())));
      ts.next();
      loc.var = intern_var(name.text);
      return loc;
    }
    if (t.kind == Token::Kind::ident && t.text.size() > 1 && t.text[0] == '%')
      fail(t.offset, fmt::format("register '{}' needs its thread ('0:{}')", t.text, t.text));
    if (t.kind == Token::Kind::ident && is_identifier(t.text)) {
      Token name = ts.next();
      if (ts.sym("["))
        fail(name.offset, fmt::format("arrays ('{}[...]') are not supported", name.text));
      if (ts.sym("("))
        fail(name.offset, fmt::format("'{}(...)' (faults, page tables, tags) is not supported", name.text));
      if (ts.sym(":"))
        fail(name.offset, fmt::format("tagged locations ('{}:...') are not supported", name.text));
      loc.var = intern_var(name.text);
      return loc;
    }
    if (ts.sym("*")) fail(t.offset, "pointers ('*x') are not supported");
    fail(t.offset, fmt::format("expected a location (0:EAX, [x] or x) {}, found {}", where, shown_text(t)));
  }

  // Index of a location of the condition, locations or filter in locs_.
  std::uint32_t intern_loc(const Location& loc, bool shown) {
    auto it = std::find(locs_.begin(), locs_.end(), loc);
    if (it != locs_.end()) {
      auto i = static_cast<std::size_t>(it - locs_.begin());
      if (shown) shown_[i] = true;
      return static_cast<std::uint32_t>(i);
    }
    locs_.push_back(loc);
    shown_.push_back(shown);
    return static_cast<std::uint32_t>(locs_.size() - 1);
  }

  // ---- init block ----

  void parse_init(std::size_t b, std::size_t e) {
    std::vector<Token> toks = tokenize(b, e);
    std::vector<Token> item;
    for (std::size_t i = 0; i <= toks.size(); ++i) {
      if (i == toks.size() || (toks[i].kind == Token::Kind::sym && toks[i].text == ";")) {
        if (!item.empty()) parse_init_item(item, i == toks.size() ? e : toks[i].offset);
        item.clear();
      } else {
        item.push_back(toks[i]);
      }
    }
  }

  // [_Atomic] [type] location [= value], as herd's init grammar has it for scalars.
  void parse_init_item(std::vector<Token> item, std::size_t end) {
    TokenStream ts(std::move(item), end);
    if (ts.word("_Atomic")) ts.next();
    // Type words: an identifier followed by what can start a location.
    while (ts.peek().kind == Token::Kind::ident) {
      int thread;
      if (thread_prefix(ts, thread)) break;
      const Token& n = ts.peek(1);
      bool more = (n.kind == Token::Kind::ident) || (n.kind == Token::Kind::number && ts.sym(":", 2)) ||
                  (n.kind == Token::Kind::sym && (n.text == "[" || n.text == "*"));
      if (!more) break;
      if (ts.sym("[", 1)) {
        // `int x[2]` declares an array; `t [x]` a typed bracketed location.
        if (ts.peek(2).kind == Token::Kind::number || ts.sym("]", 2))
          fail(ts.offset(), fmt::format("arrays ('{}[...]') are not supported", ts.peek().text));
      }
      ts.next();
    }
    if (ts.sym("*")) fail(ts.offset(), "pointers ('*x') are not supported");
    if (!location_ahead(ts))
      fail(ts.offset(), fmt::format("expected a location in the init block, found {}", shown_text(ts.peek())));
    std::size_t at = ts.offset();
    // Registers are checked against the threads in finish(); they are not observed.
    Location loc;
    {
      std::size_t refs = thread_refs_.size();
      loc = parse_location(ts, "in the init block");
      thread_refs_.resize(refs);
    }
    std::int64_t value = 0;
    if (ts.sym("=")) {
      ts.next();
      value = init_value(ts);
    }
    if (!ts.at_end())
      fail(ts.offset(), fmt::format("unexpected '{}' in the init block", ts.peek().text));
    if (loc.is_reg) {
      for (const RegInit& r : pending_reg_init_)
        if (r.thread == loc.thread && r.reg == loc.reg)
          fail(at, fmt::format("{}:{} is initialised twice", loc.thread, register_name(test_.arch, loc.reg)));
      pending_reg_init_.push_back({loc.thread, loc.reg, value, at});
    } else {
      if (!initialised_.insert(loc.var).second)
        fail(at, fmt::format("{} is initialised twice", test_.vars[loc.var]));
      test_.var_init[loc.var] = value;
    }
  }

  std::int64_t init_value(TokenStream& ts) {
    const Token& t = ts.peek();
    if (t.kind == Token::Kind::number) {
      if (ts.sym(":", 1)) fail(t.offset, "labels and tags as values are not supported");
      return ts.next().number;
    }
    if (ts.word("ATOMIC_INIT") && ts.sym("(", 1)) {
      ts.next();
      ts.next();
      if (ts.peek().kind != Token::Kind::number)
        fail(ts.offset(), fmt::format("expected a number in ATOMIC_INIT(...), found {}", shown_text(ts.peek())));
      std::int64_t v = ts.next().number;
      if (!ts.sym(")")) fail(ts.offset(), fmt::format("expected ')', found {}", shown_text(ts.peek())));
      ts.next();
      return v;
    }
    if (ts.at_end()) fail(t.offset, "missing value after '=' in the init block");
    if (ts.sym("&") || t.kind == Token::Kind::ident)
      fail(t.offset, fmt::format("initialising with an address ({}) is not supported",
                                 ts.sym("&") ? std::string("'&'") : shown_text(t)));
    if (ts.sym("{")) fail(t.offset, "arrays ('{...}') are not supported");
    if (ts.sym("(")) fail(t.offset, "page table entries ('(oa:...)') are not supported");
    fail(t.offset, fmt::format("expected a number in the init block, found {}", shown_text(t)));
  }

  // ---- program ----

  void parse_program(std::size_t b, std::size_t e) {
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

  // ---- constraints: locations, filter, condition ----

  void parse_constraints(std::size_t b, std::size_t e) {
    std::vector<Token> toks = tokenize(b, e);
    std::size_t eof = end_of(toks, eof_);
    TokenStream ts(std::move(toks), eof);
    if (ts.word("locations")) {
      ts.next();
      if (!ts.sym("[")) fail(ts.offset(), fmt::format("expected '[' after 'locations', found {}", shown_text(ts.peek())));
      ts.next();
      while (!ts.sym("]")) {
        if (ts.at_end()) fail(ts.offset(), "unexpected end of file in 'locations [...]'");
        intern_loc(parse_location(ts, "in 'locations [...]'"), true);
        // herd allows a type after a location: `x int`, `x int*`, `x*`.
        if (ts.peek().kind == Token::Kind::ident) ts.next();
        if (ts.sym("*")) ts.next();
        if (ts.sym(";")) ts.next();
        else if (!ts.sym("]"))
          fail(ts.offset(), fmt::format("expected ';' or ']' in 'locations [...]', found {}", shown_text(ts.peek())));
      }
      ts.next();
    }
    if (ts.word("filter")) {
      ts.next();
      if (ts.at_end()) fail(ts.offset(), "unexpected end of file in the filter");
      test_.condition.filter_root = parse_or(ts, false);
      test_.condition.has_filter = true;
    }
    Condition& c = test_.condition;
    c.line = line_of(ts.at_end() ? eof : ts.offset());
    bool negated = (ts.sym("~") || ts.word("not")) && ts.word("exists", 1);
    if (ts.at_end() || ts.sym(";") || ts.word("with")) {
      // herd: no condition is `forall true`.
      c.quantifier = Quantifier::forall;
      c.root = add_node({CondNode::Kind::truth});
    } else if (ts.word("exists") || ts.word("forall") || ts.word("final") || negated) {
      c.quantifier = ts.word("forall") ? Quantifier::forall : negated ? Quantifier::not_exists : Quantifier::exists;
      if (negated) ts.next();
      ts.next();
      if (ts.at_end()) fail(ts.offset(), "unexpected end of file in the condition");
      c.root = parse_or(ts, true);
    } else if (ts.sym("(")) {
      c.quantifier = Quantifier::exists;  // herd reads a bare `(P)` as `exists (P)`
      c.root = parse_or(ts, true);
    } else if (ts.word("observed") || ts.word("Observed")) {
      ts.next();
      c.quantifier = Quantifier::exists;
      c.root = parse_observed(ts);
    } else if (ts.word("cases")) {
      fail(ts.offset(), "'cases' conditions are not supported");
    } else {
      fail(ts.offset(), fmt::format("expected a condition (exists, ~exists, forall, final or "
                                    "observed), found {}",
                                    shown_text(ts.peek())));
    }
    if (ts.sym(";")) ts.next();
    if (ts.word("with")) {  // per-model kinds (`with tso: exists;`): herd's, not ours
      ts.next();
      while (!ts.at_end()) {
        Token name = ts.next();
        if (name.kind != Token::Kind::ident || !ts.sym(":"))
          fail(name.offset, fmt::format("expected 'name: exists' after 'with', found {}", shown_text(name)));
        ts.next();
        if (ts.sym("~") || ts.word("not")) ts.next();
        if (!ts.word("exists") && !ts.word("forall"))
          fail(ts.offset(), fmt::format("expected exists, ~exists or forall, found {}", shown_text(ts.peek())));
        ts.next();
        if (ts.sym(";")) ts.next();
      }
    }
    if (!ts.at_end())
      fail(ts.offset(), fmt::format("unexpected '{}' after the condition", ts.peek().text));
  }

  std::uint32_t add_node(CondNode n) {
    test_.condition.nodes.push_back(n);
    return static_cast<std::uint32_t>(test_.condition.nodes.size() - 1);
  }

  // herd's precedence, loosest first: \/, /\, => (right), ~.
  std::uint32_t parse_or(TokenStream& ts, bool shown) {
    std::uint32_t l = parse_and(ts, shown);
    while (ts.sym("\\/")) {
      ts.next();
      std::uint32_t r = parse_and(ts, shown);
      l = add_node({CondNode::Kind::disj, 0, 0, 0, l, r});
    }
    return l;
  }
  std::uint32_t parse_and(TokenStream& ts, bool shown) {
    std::uint32_t l = parse_implies(ts, shown);
    while (ts.sym("/\\")) {
      ts.next();
      std::uint32_t r = parse_implies(ts, shown);
      l = add_node({CondNode::Kind::conj, 0, 0, 0, l, r});
    }
    return l;
  }
  std::uint32_t parse_implies(TokenStream& ts, bool shown) {
    std::uint32_t l = parse_not(ts, shown);
    if (!ts.sym("=>")) return l;
    ts.next();
    std::uint32_t r = parse_implies(ts, shown);
    return add_node({CondNode::Kind::implies, 0, 0, 0, l, r});
  }
  std::uint32_t parse_not(TokenStream& ts, bool shown) {
    if (ts.at_end()) fail(ts.offset(), "unexpected end of file in the condition");
    if (ts.sym("~") || ts.word("not")) {
      ts.next();
      std::uint32_t c = parse_not(ts, shown);
      return add_node({CondNode::Kind::negation, 0, 0, 0, c, 0});
    }
    if (ts.sym("(")) {
      ts.next();
      std::uint32_t e = parse_or(ts, shown);
      if (ts.at_end()) fail(ts.offset(), "unexpected end of file in the condition (missing ')')");
      if (!ts.sym(")")) fail(ts.offset(), fmt::format("expected ')', found '{}'", ts.peek().text));
      ts.next();
      return e;
    }
    if (ts.word("true")) {
      ts.next();
      return add_node({CondNode::Kind::truth});
    }
    if (ts.word("false")) {
      ts.next();
      return add_node({CondNode::Kind::falsity});
    }
    return parse_atom(ts, shown);
  }

  // location (= | == | != | <>) (number | location)
  std::uint32_t parse_atom(TokenStream& ts, bool shown) {
    if (ts.word("fault") || ts.word("Fault")) fail(ts.offset(), "fault(...) atoms are not supported");
    std::uint32_t loc = intern_loc(parse_location(ts, "in the condition"), shown);
    if (ts.at_end()) fail(ts.offset(), "unexpected end of file in the condition");
    bool negate = ts.sym("!=") || ts.sym("<>");
    if (!negate && !ts.sym("=") && !ts.sym("=="))
      fail(ts.offset(), fmt::format("expected '=', found '{}'", ts.peek().text));
    ts.next();
    if (ts.at_end()) fail(ts.offset(), "unexpected end of file in the condition");
    const Token& v = ts.peek();
    int thread;
    std::uint32_t atom;
    if (v.kind == Token::Kind::number && !ts.sym(":", 1)) {
      atom = add_node({CondNode::Kind::atom, loc, 0, ts.next().number});
    } else if (thread_prefix(ts, thread) || ts.sym("[")) {
      std::uint32_t loc2 = intern_loc(parse_location(ts, "in the condition"), shown);
      atom = add_node({CondNode::Kind::same, loc, loc2});
    } else if (v.kind == Token::Kind::ident && is_identifier(v.text) && !ts.sym("[", 1)) {
      fail(v.offset, fmt::format("'{}' here is the address of {}, and atomcheck's locations hold "
                                 "integers (write [{}] for its value)",
                                 v.text, v.text, v.text));
    } else if (ts.sym("{")) {
      fail(v.offset, "arrays ('{...}') are not supported");
    } else if (ts.sym("(")) {
      fail(v.offset, "page table entries ('(oa:...)') are not supported");
    } else if (ts.sym("*")) {
      fail(v.offset, "pointers ('*x') are not supported");
    } else {
      fail(v.offset, fmt::format("expected a number in the condition, found '{}'", v.text));
    }
    return negate ? add_node({CondNode::Kind::negation, 0, 0, 0, atom, 0}) : atom;
  }

  // `observed a; b; and c;` is exists ((a /\ b) \/ c).
  std::uint32_t parse_observed(TokenStream& ts) {
    std::uint32_t disj = 0;
    bool any = false;
    while (true) {
      std::uint32_t conj = 0;
      bool have = false;
      while (!ts.at_end() && !ts.word("and") && !ts.word("with")) {
        std::uint32_t a = parse_atom(ts, true);
        if (!ts.sym(";")) fail(ts.offset(), fmt::format("expected ';' after an observed atom, found {}", shown_text(ts.peek())));
        ts.next();
        conj = have ? add_node({CondNode::Kind::conj, 0, 0, 0, conj, a}) : a;
        have = true;
      }
      if (!have) conj = add_node({CondNode::Kind::truth});
      disj = any ? add_node({CondNode::Kind::disj, 0, 0, 0, disj, conj}) : conj;
      any = true;
      if (!ts.word("and")) break;
      ts.next();
    }
    return disj;
  }

  // ---- the whole test ----

  void finish() {
    int threads = static_cast<int>(test_.threads.size());
    auto no_thread = [&](int t, std::size_t at) {
      fail(at, fmt::format("thread {} does not exist (the test has {} threads)", t, threads));
    };
    for (const auto& [t, at] : thread_refs_)
      if (t >= threads) no_thread(t, at);
    for (const RegInit& r : pending_reg_init_) {
      if (r.thread >= threads) no_thread(r.thread, r.offset);
      test_.reg_init[static_cast<std::size_t>(r.thread)][static_cast<std::size_t>(r.reg)] = r.value;
    }
    // herd7's display order: registers by (thread, register), then memory by name; the
    // locations only the filter reads come after the shown ones.
    auto less = [&](const Location& a, const Location& b) {
      if (a.is_reg != b.is_reg) return a.is_reg;
      if (a.is_reg) return std::pair(a.thread, a.reg) < std::pair(b.thread, b.reg);
      return test_.vars[a.var] < test_.vars[b.var];
    };
    std::vector<Location> shown, hidden;
    for (std::size_t i = 0; i < locs_.size(); ++i) (shown_[i] ? shown : hidden).push_back(locs_[i]);
    std::sort(shown.begin(), shown.end(), less);
    std::sort(hidden.begin(), hidden.end(), less);
    test_.shown = shown.size();
    test_.observed = shown;
    test_.observed.insert(test_.observed.end(), hidden.begin(), hidden.end());
    auto index = [&](std::uint32_t i) {
      const auto& all = test_.observed;
      return static_cast<std::uint32_t>(std::find(all.begin(), all.end(), locs_[i]) - all.begin());
    };
    for (CondNode& n : test_.condition.nodes) {
      if (n.kind != CondNode::Kind::atom && n.kind != CondNode::Kind::same) continue;
      n.loc = index(n.loc);
      if (n.kind == CondNode::Kind::same) n.loc2 = index(n.loc2);
    }
  }

  struct RegInit {
    int thread, reg;
    std::int64_t value;
    std::size_t offset;
  };

  std::string file_;
  std::string clean_;
  std::vector<std::size_t> line_starts_;
  std::size_t eof_ = 0;  // just after the last non-blank character
  Test test_;
  std::unordered_map<std::string, std::uint32_t> var_ids_;
  std::set<std::uint32_t> initialised_;
  std::vector<RegInit> pending_reg_init_;
  std::vector<std::pair<int, std::size_t>> thread_refs_;  // registers named outside the init
  std::vector<Location> locs_;  // every location the condition, `locations` or filter name
  std::vector<bool> shown_;     // ... and whether herd shows it (not the filter's alone)
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

// Precedence: disjunction 1, conjunction 2, atoms and negation 4. An implication is put
// in parentheses everywhere but at the top and on the right of another (herd binds `=>`
// tighter than `/\\` and to the right; the parentheses spare the reader that rule).
constexpr int kTop = 0, kImpliesRhs = 100;
void print_node(const Test& test, std::uint32_t i, int context, std::string& out) {
  const CondNode& n = test.condition.nodes[i];
  switch (n.kind) {
    case CondNode::Kind::atom:
      out += fmt::format("{}={}", location_name(test, test.observed[n.loc]), n.value);
      return;
    case CondNode::Kind::same:
      out += fmt::format("{}={}", location_name(test, test.observed[n.loc]),
                         location_name(test, test.observed[n.loc2]));
      return;
    case CondNode::Kind::truth:
      out += "true";
      return;
    case CondNode::Kind::falsity:
      out += "false";
      return;
    case CondNode::Kind::negation:
      out += "~";
      print_node(test, n.lhs, 4, out);
      return;
    case CondNode::Kind::implies: {
      bool paren = context != kTop && context != kImpliesRhs;
      if (paren) out += "(";
      print_node(test, n.lhs, 4, out);
      out += " => ";
      print_node(test, n.rhs, kImpliesRhs, out);
      if (paren) out += ")";
      return;
    }
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
    case CondNode::Kind::same: return state[n.loc] == state[n.loc2];
    case CondNode::Kind::truth: return true;
    case CondNode::Kind::falsity: return false;
    case CondNode::Kind::negation: return !eval_node(test, n.lhs, state);
    case CondNode::Kind::conj: return eval_node(test, n.lhs, state) && eval_node(test, n.rhs, state);
    case CondNode::Kind::disj: return eval_node(test, n.lhs, state) || eval_node(test, n.rhs, state);
    case CondNode::Kind::implies: return !eval_node(test, n.lhs, state) || eval_node(test, n.rhs, state);
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

bool eval_filter(const Test& test, const std::vector<std::int64_t>& state) {
  return !test.condition.has_filter || eval_node(test, test.condition.filter_root, state);
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

ExploreOptions litmus_defaults() {
  ExploreOptions o;
  o.strategy = StrategyKind::optimal;
  return o;
}

bool litmus_strategy(StrategyKind kind) {
  return kind == StrategyKind::dfs || kind == StrategyKind::dpor || kind == StrategyKind::optimal;
}

RunResult run_litmus(const Test& test, MemoryModelKind memory, const ExploreOptions& base) {
  if (!litmus_strategy(base.strategy)) {
    RunResult bad;
    bad.memory = memory;
    bad.strategy = base.strategy;
    bad.complete = false;
    bad.error = "litmus tests are explored exhaustively: use the dfs, dpor or optimal strategy";
    return bad;
  }
  ExploreOptions options = base;
  options.memory = memory;
  // Final states are all a litmus test observes: the coarsest equivalence is exact.
  options.equivalence = Equivalence::automatic;
  options.count_classes = true;
  options.preemption_bound = -1;
  options.depth_bound = 0;
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
    if (!eval_filter(test, state)) return;  // herd's filter discards the execution
    state.resize(test.shown);
    bool holds = eval_proposition(test, state);
    states.insert(state);
    executions.emplace(execution_key(*view.trace, tso), holds);
  };
  ExploreResult res = explore(program, options, on_execution);

  RunResult out;
  out.memory = memory;
  out.executions = res.executions;
  out.classes = res.classes;
  out.rf_co_classes = res.rf_co_classes;
  out.equivalence = res.equivalence;
  out.strategy = options.strategy;
  out.elapsed_seconds = res.elapsed_seconds;
  out.end = search_end(res);
  out.end_text = search_end_text(res);
  out.complete = res.exhausted() && !res.bounded;
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

namespace {

}  // namespace

std::string explored_line(const RunResult& r) {
  return fmt::format("Explored {} executions, {} classes ({}), strategy {}{}\n", r.executions,
                     r.classes, equivalence_name(r.equivalence), strategy_name(r.strategy),
                     r.complete ? "" : fmt::format(", stopped: {}", r.end_text));
}

int run_litmus_command(const std::string& path, std::string_view memory, const ExploreOptions& base,
                       bool json) {
  // No model asked for: the one the test's architecture has, as herd7 runs an X86 test
  // under x86-TSO (every dialect read here is an x86 one).
  if (memory.empty()) memory = "tso";
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
                          {"strategy", std::string(strategy_name(r.strategy))},
                          {"equivalence", std::string(equivalence_name(r.equivalence))},
                          {"ok", r.ok},
                          {"reachable", r.reachable()},
                          {"positive", r.positive},
                          {"negative", r.negative},
                          {"executions", r.executions},
                          {"classes", r.classes},
                          {"rf_co_classes", r.rf_co_classes},
                          {"complete", r.complete},
                          {"stop", std::string(search_end_name(r.end))},
                          {"stop_detail", r.end_text},
                          {"elapsed_seconds", r.elapsed_seconds}};
      j["states"] = nlohmann::json::array();
      for (std::size_t s = 0; s < r.states.size(); ++s) {
        nlohmann::json st = nlohmann::json::object();
        for (std::size_t k = 0; k < test.shown; ++k)
          st[location_name(test, test.observed[k])] = r.states[s][k];
        j["states"].push_back({{"values", st}, {"matches", static_cast<bool>(r.state_matches[s])}});
      }
      if (!r.error.empty()) j["error"] = r.error;
      out["results"].push_back(j);
      continue;
    }
    if (i > 0) fmt::print("\n");
    fmt::print("{}{}", format_herd(test, r), explored_line(r));
    std::fflush(stdout);
  }
  if (json) fmt::print("{}\n", out.dump());
  return rc;
}

bool RunResult::reachable() const {
  return std::find(state_matches.begin(), state_matches.end(), true) != state_matches.end();
}

}  // namespace atomcheck::litmus
