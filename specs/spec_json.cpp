// Recursive-descent JSON reader with positions (see spec_json.hpp). Written by hand
// rather than on nlohmann's SAX interface because SAX callbacks are not told where a
// token starts; a reader of ~250 lines is simpler than recovering positions afterwards.
#include "specs/spec_json.hpp"

#include <charconv>
#include <unordered_set>

#include <fmt/core.h>

namespace atomcheck::spec {

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& m : members)
    if (m.first == key) return &m.second;
  return nullptr;
}

std::string_view json_kind_name(JsonValue::Kind kind) {
  switch (kind) {
    case JsonValue::Kind::null: return "null";
    case JsonValue::Kind::boolean: return "a boolean";
    case JsonValue::Kind::integer: return "an integer";
    case JsonValue::Kind::number: return "a non-integer number";
    case JsonValue::Kind::string: return "a string";
    case JsonValue::Kind::array: return "an array";
    case JsonValue::Kind::object: return "an object";
  }
  return "?";
}

std::string json_pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

namespace {

// Internal: thrown to unwind the recursion on the first error.
struct Fail {
  Pos pos;
  std::string message;
};

class Reader {
 public:
  explicit Reader(std::string_view text) : s_(text) {}

  void document(JsonValue& out) {
    skip_ws();
    if (i_ >= s_.size()) fail("empty input: expected a JSON value");
    value(out, 0);
    skip_ws();
    if (i_ < s_.size()) fail("unexpected text after the JSON value");
  }

 private:
  [[noreturn]] void fail(std::string message) { throw Fail{pos(), std::move(message)}; }
  [[noreturn]] void fail_at(Pos p, std::string message) { throw Fail{p, std::move(message)}; }

  Pos pos() const { return Pos{line_, static_cast<std::uint32_t>(i_ - line_start_ + 1)}; }

  void skip_ws() {
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == '\n') {
        ++i_;
        ++line_;
        line_start_ = i_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
      } else {
        break;
      }
    }
  }

  std::string describe_here() const {
    if (i_ >= s_.size()) return "end of input";
    unsigned char c = static_cast<unsigned char>(s_[i_]);
    if (c >= 0x21 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("byte 0x{:02x}", c);
  }

  void value(JsonValue& out, int depth) {
    out.pos = pos();
    if (i_ >= s_.size()) fail("unexpected end of input: expected a value");
    char c = s_[i_];
    switch (c) {
      case '{': object(out, depth); return;
      case '[': array(out, depth); return;
      case '"':
        out.kind = JsonValue::Kind::string;
        string(out.text);
        return;
      case 't': literal("true", out, JsonValue::Kind::boolean, true); return;
      case 'f': literal("false", out, JsonValue::Kind::boolean, false); return;
      case 'n': literal("null", out, JsonValue::Kind::null, false); return;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          number(out);
          return;
        }
        fail(fmt::format("unexpected {}: expected a value", describe_here()));
    }
  }

  void literal(std::string_view word, JsonValue& out, JsonValue::Kind kind, bool b) {
    if (s_.substr(i_, word.size()) != word) fail(fmt::format("invalid literal: expected '{}'", word));
    i_ += word.size();
    out.kind = kind;
    out.boolean = b;
  }

  void number(JsonValue& out) {
    std::size_t start = i_;
    bool integral = true;
    if (s_[i_] == '-') ++i_;
    if (i_ >= s_.size() || !(s_[i_] >= '0' && s_[i_] <= '9')) fail("invalid number: expected a digit");
    if (s_[i_] == '0') {
      ++i_;
      if (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') fail("invalid number: leading zero");
    } else {
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      integral = false;
      ++i_;
      if (i_ >= s_.size() || !(s_[i_] >= '0' && s_[i_] <= '9'))
        fail("invalid number: expected a digit after '.'");
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      integral = false;
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || !(s_[i_] >= '0' && s_[i_] <= '9'))
        fail("invalid number: expected a digit in the exponent");
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    out.text.assign(s_.substr(start, i_ - start));
    if (!integral) {
      out.kind = JsonValue::Kind::number;
      return;
    }
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s_.data() + start, s_.data() + i_, v);
    if (ec != std::errc() || ptr != s_.data() + i_) {
      // Out of the 64-bit range: kept as a number so the loader says "integer expected"
      // with the literal rather than silently wrapping.
      out.kind = JsonValue::Kind::number;
      return;
    }
    out.kind = JsonValue::Kind::integer;
    out.integer = v;
  }

  unsigned hex4() {
    if (i_ + 4 > s_.size()) fail("invalid \\u escape: expected four hex digits");
    unsigned v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else fail("invalid \\u escape: expected four hex digits");
    }
    return v;
  }

  static void put_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xc0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xe0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }

  void string(std::string& out) {
    Pos start = pos();
    ++i_;  // opening quote
    out.clear();
    for (;;) {
      if (i_ >= s_.size()) fail_at(start, "unterminated string");
      char c = s_[i_];
      if (c == '"') {
        ++i_;
        return;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        if (c == '\n') fail("unterminated string (raw newline in a string)");
        fail(fmt::format("control character 0x{:02x} in a string (escape it)", static_cast<unsigned>(c)));
      }
      if (c != '\\') {
        out += c;
        ++i_;
        continue;
      }
      ++i_;
      if (i_ >= s_.size()) fail_at(start, "unterminated string");
      char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xd800 && cp <= 0xdbff) {
            if (i_ + 2 > s_.size() || s_[i_] != '\\' || s_[i_ + 1] != 'u')
              fail("invalid \\u escape: unpaired high surrogate");
            i_ += 2;
            unsigned lo = hex4();
            if (lo < 0xdc00 || lo > 0xdfff) fail("invalid \\u escape: unpaired high surrogate");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
          } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            fail("invalid \\u escape: unpaired low surrogate");
          }
          put_utf8(out, cp);
          break;
        }
        default:
          --i_;
          fail(fmt::format("invalid escape: unexpected {} after '\\'", describe_here()));
      }
    }
  }

  void array(JsonValue& out, int depth) {
    if (depth >= kMaxDepth) fail(fmt::format("nesting deeper than {} levels", kMaxDepth));
    out.kind = JsonValue::Kind::array;
    ++i_;
    skip_ws();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return;
    }
    for (;;) {
      skip_ws();
      out.items.emplace_back();
      value(out.items.back(), depth + 1);
      skip_ws();
      if (i_ >= s_.size()) fail("unexpected end of input: expected ',' or ']'");
      if (s_[i_] == ',') {
        ++i_;
        skip_ws();
        if (i_ < s_.size() && s_[i_] == ']') fail("trailing comma before ']'");
        continue;
      }
      if (s_[i_] == ']') {
        ++i_;
        return;
      }
      fail(fmt::format("unexpected {}: expected ',' or ']'", describe_here()));
    }
  }

  void object(JsonValue& out, int depth) {
    if (depth >= kMaxDepth) fail(fmt::format("nesting deeper than {} levels", kMaxDepth));
    out.kind = JsonValue::Kind::object;
    std::unordered_set<std::string> seen;
    ++i_;
    skip_ws();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return;
    }
    for (;;) {
      skip_ws();
      if (i_ >= s_.size()) fail("unexpected end of input: expected a member name");
      if (s_[i_] != '"') fail(fmt::format("unexpected {}: expected a member name in double quotes", describe_here()));
      Pos kp = pos();
      std::string key;
      string(key);
      if (!seen.insert(key).second) fail_at(kp, fmt::format("duplicate member \"{}\"", key));
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != ':') fail(fmt::format("unexpected {}: expected ':'", describe_here()));
      ++i_;
      skip_ws();
      out.members.push_back(JsonMember{std::move(key), JsonValue{}});
      out.key_pos.push_back(kp);
      value(out.members.back().second, depth + 1);
      skip_ws();
      if (i_ >= s_.size()) fail("unexpected end of input: expected ',' or '}'");
      if (s_[i_] == ',') {
        ++i_;
        skip_ws();
        if (i_ < s_.size() && s_[i_] == '}') fail("trailing comma before '}'");
        continue;
      }
      if (s_[i_] == '}') {
        ++i_;
        return;
      }
      fail(fmt::format("unexpected {}: expected ',' or '}}'", describe_here()));
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
  std::size_t line_start_ = 0;
  std::uint32_t line_ = 1;
};

}  // namespace

bool parse_json(std::string_view text, JsonValue& out, JsonSyntaxError& error) {
  out = JsonValue{};
  try {
    Reader(text).document(out);
    return true;
  } catch (const Fail& f) {
    error.pos = f.pos;
    error.message = f.message;
    return false;
  }
}

}  // namespace atomcheck::spec
