// A small JSON reader that remembers where every value starts (line and column), which
// nlohmann::json does not, so the spec loader can point at the exact field it rejects.
// It accepts RFC 8259 JSON only (no comments, no trailing commas), keeps integers
// exact (64-bit) and refuses nesting deeper than kMaxDepth, so no input can exhaust the
// stack. Errors are reported as a position plus a message; the caller adds the file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace atomcheck::spec {

// 1-based line and column of a value's first character (columns count bytes).
struct Pos {
  std::uint32_t line = 1;
  std::uint32_t col = 1;
};

struct JsonMember;

// One JSON value with its position. Objects keep their members in input order.
struct JsonValue {
  enum class Kind : std::uint8_t { null, boolean, integer, number, string, array, object };
  Kind kind = Kind::null;
  Pos pos;
  bool boolean = false;
  std::int64_t integer = 0;  // Kind::integer: exact value
  std::string text;          // Kind::string: the decoded string; Kind::number: the literal
  std::vector<JsonValue> items;                               // Kind::array
  std::vector<JsonMember> members;                            // Kind::object
  std::vector<Pos> key_pos;                                   // Kind::object: per member

  // The member named `key`, or nullptr.
  const JsonValue* find(std::string_view key) const;
};

// A member of an object (a named struct rather than std::pair, which cannot hold the
// still-incomplete JsonValue inside JsonValue's own definition).
struct JsonMember {
  std::string first;  // the name
  JsonValue second;   // the value
};

// "null", "a boolean", "an integer", ... for messages.
std::string_view json_kind_name(JsonValue::Kind kind);

inline constexpr int kMaxDepth = 64;

// A syntax error: where and what (without the file name).
struct JsonSyntaxError {
  Pos pos;
  std::string message;
};

// Parses `text` into `out`. Returns false and fills `error` on bad input. Duplicate
// member names are syntax errors (they would make a JSON pointer ambiguous).
bool parse_json(std::string_view text, JsonValue& out, JsonSyntaxError& error);

// Escapes one reference token of a JSON pointer (RFC 6901: ~ -> ~0, / -> ~1).
std::string json_pointer_token(std::string_view key);

}  // namespace atomcheck::spec
