// The dialect-independent half of the herd7 litmus parser, shared by litmus_x86.cpp and
// litmus_c.cpp: herd7's splitter (title, `key=value` lines, init block, program,
// constraints), the init block, the constraints (locations, filter, condition) and the
// final ordering of the observed locations. A dialect derives from LitmusParser and
// parses the program section and names its registers. Internal to specs/.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "litmus.hpp"

namespace atomcheck::litmus::detail {

inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The register family of a name (without '%'), or -1. X86 knows the eight 32-bit names;

// ---- text helpers --------------------------------------------------------------------

inline std::string_view trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

inline bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
inline bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
inline bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  return std::all_of(s.begin(), s.end(), is_ident_char);
}

// Parses a decimal or 0x integer with optional sign; false when `s` is not one.
inline bool parse_int(std::string_view s, std::int64_t& out) {
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

inline bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}
inline bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Source text quoted in a message: one line (rows may span lines), at most 60 bytes.
inline std::string one_line(std::string_view s) {
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


// The sections and the state grammar; a dialect supplies the program and its registers.
class LitmusParser {
 public:
  // `c_code`: the program is C, where `(*p)` is code and comments are `/* */` or `//`.
  LitmusParser(std::string_view text, std::string_view file, bool c_code = false) : file_(file) {
    c_code_ = c_code;
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
    // C's array initialisers (`atomic_int y[2] = {0, 0};`) nest braces in the init block.
    std::size_t close = open + 1;
    for (int depth = 0; close < clean_.size(); ++close) {
      if (c_code_ && clean_[close] == '{') ++depth;
      else if (clean_[close] == '}' && depth-- == 0) break;
    }
    if (close == clean_.size()) close = std::string::npos;
    if (close == std::string::npos)
      fail(eof_, "unexpected end of file in the init block (missing '}')");
    parse_init(open + 1, close);
    std::size_t constraints = find_constraints(close + 1);
    parse_program(close + 1, constraints);
    parse_constraints(constraints, clean_.size());
    finish();
    return std::move(test_);
  }

  virtual ~LitmusParser() = default;
  LitmusParser(const LitmusParser&) = delete;
  LitmusParser& operator=(const LitmusParser&) = delete;

 protected:
  // ---- what a dialect supplies ----

  // Checks the title's architecture word (at `pos`) and sets Test::arch.
  virtual void set_arch(std::string_view arch, std::size_t pos) = 0;
  // The program section [b, e): the threads and their code.
  virtual void parse_program(std::size_t b, std::size_t e) = 0;
  // The register (or local) a location `thread:name` names; fails with a message when
  // there is none. in_init_ says whether the init block is being read.
  virtual int register_of(int thread, const Token& t) = 0;
  // The name herd prints for a register of a thread.
  virtual std::string reg_name(int thread, int reg) const = 0;
  virtual std::size_t thread_count() const = 0;

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
  // In C code (inside braces after the init block's) `(*` is code, and C's own comments
  // are blanked instead.
  std::string strip_comments(std::string_view text) const {
    std::string out(text);
    int depth = 0;
    std::size_t open = 0;
    bool in_string = false;
    int braces = 0;
    bool init_closed = false;
    for (std::size_t i = 0; i < out.size(); ++i) {
      char c = out[i];
      if (c == '\n') {
        in_string = false;  // doc strings never span lines
        continue;
      }
      if (depth == 0 && c == '"') in_string = !in_string;
      if (in_string) continue;
      bool in_c = c_code_ && depth == 0 && init_closed && braces > 0;
      if (in_c && c == '/' && i + 1 < out.size() && (out[i + 1] == '/' || out[i + 1] == '*')) {
        bool line = out[i + 1] == '/';
        std::size_t j = i + 2;
        while (j < out.size() && (line ? out[j] != '\n' : out.compare(j, 2, "*/") != 0)) ++j;
        if (!line && j >= out.size()) fail(i, "unterminated comment '/*'");
        std::size_t end = line ? j : j + 2;
        for (std::size_t k = i; k < end; ++k)
          if (out[k] != '\n') out[k] = ' ';
        i = end - 1;
        continue;
      }
      if (depth == 0 && c_code_ && (c == '{' || c == '}')) {
        braces += c == '{' ? 1 : -1;
        if (braces == 0) init_closed = true;
      }
      if (!in_c && c == '(' && i + 1 < out.size() && out[i + 1] == '*') {
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

  // A level of nesting the parser recurses into (a parenthesis, a block, ...): counts
  // `depth` up for its lifetime and fails at `at` beyond `max`, so that deep input is
  // refused in one line rather than overflowing the stack. The message says what nests
  // and what makes a level: "conditions nest at most 256 deep (each parenthesis, '~' and
  // '=>' is a level)".
  class Nesting {
   public:
    Nesting(const LitmusParser& p, int& depth, int max, std::size_t at, const char* what, const char* levels)
        : depth_(depth) {
      if (depth_ >= max) p.fail(at, fmt::format("{} nest at most {} deep (each {} is a level)", what, max, levels));
      ++depth_;
    }
    ~Nesting() { --depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    int& depth_;
  };

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
    set_arch(range(pos, arch_end), pos);
    std::string arch(range(pos, arch_end));
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
      loc.reg = register_of(thread, r);
      thread_refs_.push_back({thread, t.offset});
      return loc;
    }
    if (ts.sym("[")) {
      ts.next();
      Token name = ts.next();
      if (name.kind != Token::Kind::ident || !is_identifier(name.text))
        fail(name.offset, fmt::format("expected a location name after '[', found {}", shown_text(name)));
      if (c_code_ && array_named(name.text) != nullptr) {
        if (!ts.sym("["))
          fail(name.offset, fmt::format("'{}' is an array: name one element, as '{}[0]'", name.text, name.text));
        loc.var = array_element(ts, name);
      } else {
        loc.var = intern_var(name.text);
      }
      if (!ts.sym("]")) fail(ts.offset(), fmt::format("expected ']', found {}", shown_text(ts.peek())));
      ts.next();
      return loc;
    }
    if (t.kind == Token::Kind::ident && t.text.size() > 1 && t.text[0] == '%')
      fail(t.offset, fmt::format("register '{}' needs its thread ('0:{}')", t.text, t.text));
    if (t.kind == Token::Kind::ident && is_identifier(t.text)) {
      Token name = ts.next();
      if (ts.sym("[") && c_code_) {
        loc.var = array_element(ts, name);
        return loc;
      }
      if (c_code_ && array_named(name.text) != nullptr)
        fail(name.offset, fmt::format("'{}' is an array: name one element, as '{}[0]'", name.text, name.text));
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

  // C: `y[1]` names an element of an array the init block declares.
  const Test::Array* array_named(std::string_view name) const {
    for (const Test::Array& a : test_.arrays)
      if (a.name == name) return &a;
    return nullptr;
  }
  std::uint32_t array_element(TokenStream& ts, const Token& name) {
    const Test::Array* a = array_named(name.text);
    if (a == nullptr) fail(name.offset, fmt::format("'{}' is not an array of the init block", name.text));
    ts.next();  // '['
    const Token& i = ts.peek();
    if (i.kind != Token::Kind::number || i.number < 0 || i.number >= a->extent)
      fail(i.offset, fmt::format("expected an index of {} from 0 to {}, found {}", name.text, a->extent - 1,
                                 shown_text(i)));
    ts.next();
    if (!ts.sym("]")) fail(ts.offset(), fmt::format("expected ']', found {}", shown_text(ts.peek())));
    ts.next();
    return a->first + static_cast<std::uint32_t>(i.number);
  }

  // C: `[type] name[N] [= {v, ...}]` or `name[] = {v, ...}`: N locations `name[0]`...
  void parse_init_array(TokenStream& ts, bool atomic_type) {
    static constexpr std::int64_t kMaxExtent = 64;
    Token name = ts.next();
    if (array_named(name.text) != nullptr || var_ids_.count(name.text) != 0)
      fail(name.offset, fmt::format("{} is declared twice", name.text));
    ts.next();  // '['
    std::int64_t extent = -1;
    if (ts.peek().kind == Token::Kind::number) {
      const Token& n = ts.next();
      if (n.number < 1 || n.number > kMaxExtent)
        fail(n.offset, fmt::format("an array has 1 to {} elements, not {}", kMaxExtent, n.text));
      extent = n.number;
    }
    if (!ts.sym("]")) fail(ts.offset(), fmt::format("expected ']', found {}", shown_text(ts.peek())));
    ts.next();
    std::vector<std::int64_t> values;
    if (ts.sym("=")) {
      ts.next();
      if (!ts.sym("{"))
        fail(ts.offset(),
             fmt::format("expected '{{' to initialise array {}, found {}", name.text, shown_text(ts.peek())));
      ts.next();
      while (!ts.sym("}")) {
        const Token& v = ts.peek();
        if (v.kind != Token::Kind::number)
          fail(v.offset,
               fmt::format("expected a number in the initialiser of {}, found {}", name.text, shown_text(v)));
        values.push_back(ts.next().number);
        if (static_cast<std::int64_t>(values.size()) > (extent < 0 ? kMaxExtent : extent))
          fail(v.offset, fmt::format("too many values for {}", name.text));
        if (ts.sym(",")) ts.next();
        else if (!ts.sym("}"))
          fail(ts.offset(), fmt::format("expected ',' or '}}', found {}", shown_text(ts.peek())));
      }
      ts.next();
    }
    if (extent < 0) {
      if (values.empty()) fail(name.offset, fmt::format("array {} needs a length or values", name.text));
      extent = static_cast<std::int64_t>(values.size());
    }
    if (!ts.at_end()) fail(ts.offset(), fmt::format("unexpected {} in the init block", shown_text(ts.peek())));
    Test::Array a{name.text, static_cast<std::uint32_t>(test_.vars.size()), static_cast<std::uint32_t>(extent)};
    for (std::int64_t i = 0; i < extent; ++i) {
      std::uint32_t v = intern_var(fmt::format("{}[{}]", name.text, i));
      initialised_.insert(v);
      if (atomic_type) init_atomic_.insert(v);
      test_.var_init[v] = i < static_cast<std::int64_t>(values.size()) ? values[static_cast<std::size_t>(i)] : 0;
    }
    test_.arrays.push_back(std::move(a));
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
    in_init_ = true;
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
    in_init_ = false;
  }

  // [_Atomic] [type] location [= value], as herd's init grammar has it for scalars.
  void parse_init_item(std::vector<Token> item, std::size_t end) {
    TokenStream ts(std::move(item), end);
    bool atomic_type = false;  // `_Atomic int x`, `atomic_int x`, `atomic_t x`
    if (ts.word("_Atomic")) {
      atomic_type = true;
      ts.next();
    }
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
        if (ts.peek(2).kind == Token::Kind::number || ts.sym("]", 2)) {
          if (c_code_) return parse_init_array(ts, atomic_type);
          fail(ts.offset(), fmt::format("arrays ('{}[...]') are not supported", ts.peek().text));
        }
      }
      if (ts.peek().text == "_Atomic" || ts.peek().text.rfind("atomic_", 0) == 0) atomic_type = true;
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
          fail(at, fmt::format("{}:{} is initialised twice", loc.thread, reg_name(loc.thread, loc.reg)));
      pending_reg_init_.push_back({loc.thread, loc.reg, value, at});
    } else {
      if (!initialised_.insert(loc.var).second)
        fail(at, fmt::format("{} is initialised twice", test_.vars[loc.var]));
      if (atomic_type) init_atomic_.insert(loc.var);
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

  // The parser recurses once a parenthesis, `~` and `=>`; chains of `/\` and `\/` are
  // loops (and litmus.cpp walks them without recursion).
  static constexpr int kMaxConditionDepth = 256;
  Nesting condition_level(const TokenStream& ts) {
    return Nesting(*this, condition_depth_, kMaxConditionDepth, ts.offset(), "conditions",
                   "parenthesis, '~' and '=>'");
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
    Nesting level = condition_level(ts);
    ts.next();
    std::uint32_t r = parse_implies(ts, shown);
    return add_node({CondNode::Kind::implies, 0, 0, 0, l, r});
  }
  std::uint32_t parse_not(TokenStream& ts, bool shown) {
    if (ts.at_end()) fail(ts.offset(), "unexpected end of file in the condition");
    if (ts.sym("~") || ts.word("not")) {
      Nesting level = condition_level(ts);
      ts.next();
      std::uint32_t c = parse_not(ts, shown);
      return add_node({CondNode::Kind::negation, 0, 0, 0, c, 0});
    }
    if (ts.sym("(")) {
      Nesting level = condition_level(ts);
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
    int threads = static_cast<int>(thread_count());
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
      // C locals by name, as herd compares them (strings); x86 registers by family.
      if (a.is_reg && test_.arch == Arch::c)
        return std::pair(a.thread, reg_name(a.thread, a.reg)) < std::pair(b.thread, reg_name(b.thread, b.reg));
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
  bool in_init_ = false;        // the init block is being read
  bool c_code_ = false;         // the program is C (see strip_comments)
  std::set<std::uint32_t> init_atomic_;  // locations the init block declares with an atomic type
  int condition_depth_ = 0;     // the parentheses, '~' and '=>' the condition parser is inside
};

// The dialects: parsers (called by parse_litmus on the title's first word) and the
// thread bodies of litmus_program, which records the observed locations under `names`
// (the C dialect's, c_program, is in litmus_c_run.hpp).
Test parse_x86(std::string_view text, std::string_view file);
Test parse_c(std::string_view text, std::string_view file);
Program x86_program(const Test& test, std::vector<std::string> names);

}  // namespace atomcheck::litmus::detail
