// Our JSON-lines trace format: one flat JSON object per line carrying everything the
// event vocabulary has (values, TSO commits and buffered reads, fences, rmw, labels).
//
//   {"thread":"T0","op":"write","var":"x","value":1,"loc":7}
//   {"thread":"T0","op":"commit","var":"x","value":1,"issue":0}
//
// Fields by op (every line has "thread" and "op"; "loc" is optional everywhere):
//   read     var, value?, buffered?      write   var, value?
//   commit   var, value?, issue          fence   -
//   rmw      var, old?, new?             acquire / release   lock
//   fork / join   child                  begin / end   label?
// Omitted integers are 0 and an omitted "buffered" is false. "issue" is the 0-based index,
// among the events of the file, of the write this commit sends to memory. The reader is
// strict: an unknown, duplicated, misplaced or mistyped field is an error naming it.
// The object is parsed by hand (flat objects only), which keeps the reader free of
// allocation per line and lets every error name its field.
#include <cstring>

#include <fmt/core.h>

#include "trace/io_detail.hpp"

namespace atomcheck {
namespace detail {

namespace {

enum Field : int { kThread, kOp, kVar, kLock, kChild, kLabel, kValue, kOld, kNew, kBuffered,
                   kIssue, kLoc, kFieldCount };
constexpr const char* kFieldNames[kFieldCount] = {"thread", "op", "var", "lock", "child", "label",
                                                   "value", "old", "new", "buffered", "issue", "loc"};
enum class Kind { string, integer, boolean };
constexpr Kind kFieldKinds[kFieldCount] = {
    Kind::string, Kind::string, Kind::string, Kind::string, Kind::string, Kind::string,
    Kind::integer, Kind::integer, Kind::integer, Kind::boolean, Kind::integer, Kind::integer};

int field_index(std::string_view key) {
  for (int i = 0; i < kFieldCount; ++i) {
    if (key == kFieldNames[i]) return i;
  }
  return -1;
}

// Which fields each op allows (bit i = Field i) and requires.
constexpr unsigned bit(Field f) { return 1u << f; }
constexpr unsigned kCommon = bit(kThread) | bit(kOp) | bit(kLoc);
unsigned allowed_fields(Op op) {
  switch (op) {
    case Op::read: return kCommon | bit(kVar) | bit(kValue) | bit(kBuffered);
    case Op::write: return kCommon | bit(kVar) | bit(kValue);
    case Op::commit: return kCommon | bit(kVar) | bit(kValue) | bit(kIssue);
    case Op::fence: return kCommon;
    case Op::rmw: return kCommon | bit(kVar) | bit(kOld) | bit(kNew);
    case Op::acquire:
    case Op::release: return kCommon | bit(kLock);
    case Op::fork:
    case Op::join: return kCommon | bit(kChild);
    case Op::begin:
    case Op::end: return kCommon | bit(kLabel);
  }
  return kCommon;
}
unsigned required_fields(Op op) {
  switch (op) {
    case Op::read:
    case Op::write:
    case Op::rmw: return bit(kVar);
    case Op::commit: return bit(kVar) | bit(kIssue);
    case Op::acquire:
    case Op::release: return bit(kLock);
    case Op::fork:
    case Op::join: return bit(kChild);
    default: return 0;
  }
}

void put_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

class JsonlReader final : public TraceReader {
 public:
  explicit JsonlReader(const std::string& path) : src_(path) {}

  bool next(Event& out) override {
    std::string_view line;
    for (;;) {
      if (!src_.next(line)) return false;
      if (is_blank(line)) continue;
      parse(line, out);
      ++events_;
      return true;
    }
  }
  const Names& names() const override { return names_; }
  std::uint64_t line() const override { return src_.line_number(); }

 private:
  [[noreturn]] void fail(std::string_view msg) const { src_.fail(msg); }

  void skip_ws() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r')) ++p_;
  }
  [[noreturn]] void fail_end() { fail("the line ends inside the JSON object"); }

  // Reads a JSON string at p_ (which is at the opening quote) into `out`.
  void read_string(std::string& out, const char* what) {
    ++p_;
    out.clear();
    for (;;) {
      if (p_ >= end_) fail_end();
      char c = *p_++;
      if (c == '"') return;
      if (static_cast<unsigned char>(c) < 0x20) fail(fmt::format("control character inside {}", what));
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (p_ >= end_) fail_end();
      char esc = *p_++;
      switch (esc) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          std::uint32_t cp = read_hex4(what);
          if (cp >= 0xD800 && cp < 0xDC00) {
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') {
              fail(fmt::format("unpaired surrogate escape in {}", what));
            }
            p_ += 2;
            std::uint32_t lo = read_hex4(what);
            if (lo < 0xDC00 || lo >= 0xE000) fail(fmt::format("unpaired surrogate escape in {}", what));
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp < 0xE000) {
            fail(fmt::format("unpaired surrogate escape in {}", what));
          }
          put_utf8(out, cp);
          break;
        }
        default:
          fail(fmt::format("invalid escape {} in {}", quote(std::string_view(p_ - 2, 2)), what));
      }
    }
  }

  std::uint32_t read_hex4(const char* what) {
    if (end_ - p_ < 4) fail_end();
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = *p_++;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else fail(fmt::format("invalid \\u escape in {}", what));
    }
    return v;
  }

  [[noreturn]] void fail_type(int f) {
    const char* want = kFieldKinds[f] == Kind::string ? "a string"
                       : kFieldKinds[f] == Kind::integer ? "an integer"
                                                         : "true or false";
    fail(fmt::format("field '{}' must be {}", kFieldNames[f], want));
  }

  void read_value(int f) {
    if (p_ >= end_) fail_end();
    switch (kFieldKinds[f]) {
      case Kind::string:
        if (*p_ != '"') fail_type(f);
        read_string(str_[f], fmt::format("field '{}'", kFieldNames[f]).c_str());
        return;
      case Kind::boolean:
        if (end_ - p_ >= 4 && std::memcmp(p_, "true", 4) == 0) {
          bool_ = true;
          p_ += 4;
        } else if (end_ - p_ >= 5 && std::memcmp(p_, "false", 5) == 0) {
          bool_ = false;
          p_ += 5;
        } else {
          fail_type(f);
        }
        return;
      case Kind::integer: {
        bool negative = false;
        if (*p_ == '-') {
          negative = true;
          ++p_;
        }
        if (p_ >= end_ || *p_ < '0' || *p_ > '9') fail_type(f);
        std::uint64_t v = 0;
        bool overflow = false;
        while (p_ < end_ && *p_ >= '0' && *p_ <= '9') {
          std::uint64_t d = static_cast<std::uint64_t>(*p_ - '0');
          if (v > (UINT64_MAX - d) / 10) overflow = true;
          else v = v * 10 + d;
          ++p_;
        }
        if (p_ < end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) fail_type(f);
        if (overflow || v > (negative ? std::uint64_t{1} << 63 : std::uint64_t{INT64_MAX})) {
          fail(fmt::format("field '{}' is out of range", kFieldNames[f]));
        }
        int_[f] = negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
        return;
      }
    }
  }

  void parse(std::string_view line, Event& out) {
    p_ = line.data();
    end_ = line.data() + line.size();
    unsigned seen = 0;
    skip_ws();
    if (p_ >= end_ || *p_ != '{') fail("expected a JSON object");
    ++p_;
    skip_ws();
    if (p_ < end_ && *p_ == '}') {
      ++p_;
    } else {
      for (;;) {
        skip_ws();
        if (p_ >= end_) fail_end();
        if (*p_ != '"') fail("expected a field name in double quotes");
        read_string(key_, "a field name");
        int f = field_index(key_);
        if (f < 0) fail(fmt::format("unknown field {}", quote(key_)));
        if (seen & (1u << f)) fail(fmt::format("duplicate field '{}'", kFieldNames[f]));
        seen |= 1u << f;
        skip_ws();
        if (p_ >= end_) fail_end();
        if (*p_ != ':') fail(fmt::format("expected ':' after field '{}'", kFieldNames[f]));
        ++p_;
        skip_ws();
        read_value(f);
        if (f == kBuffered) buffered_ = bool_;
        skip_ws();
        if (p_ >= end_) fail_end();
        if (*p_ == ',') {
          ++p_;
          continue;
        }
        if (*p_ == '}') {
          ++p_;
          break;
        }
        fail(fmt::format("expected ',' or '}}' after field '{}'", kFieldNames[f]));
      }
    }
    skip_ws();
    if (p_ != end_) fail("unexpected text after the JSON object");

    if (!(seen & bit(kThread))) fail("missing field 'thread'");
    if (!(seen & bit(kOp))) fail("missing field 'op'");
    Op op = Op::read;
    if (!parse_op(str_[kOp], op)) {
      fail(fmt::format("field 'op': unknown operation {} (expected read, write, commit, fence, "
                       "rmw, acquire, release, fork, join, begin or end)", quote(str_[kOp])));
    }
    unsigned extra = seen & ~allowed_fields(op);
    for (int f = 0; f < kFieldCount; ++f) {
      if (extra & (1u << f)) {
        fail(fmt::format("field '{}' does not apply to op '{}'", kFieldNames[f], op_name(op)));
      }
    }
    unsigned missing = required_fields(op) & ~seen;
    for (int f = 0; f < kFieldCount; ++f) {
      if (missing & (1u << f)) {
        fail(fmt::format("missing field '{}' (required by op '{}')", kFieldNames[f], op_name(op)));
      }
    }
    for (int f : {kThread, kVar, kLock, kChild, kLabel}) {
      if ((seen & (1u << f)) && str_[f].empty()) {
        fail(fmt::format("field '{}' must not be empty", kFieldNames[f]));
      }
    }
    auto num = [&](Field f) { return (seen & bit(f)) ? int_[f] : 0; };
    std::int64_t loc = num(kLoc);
    if (loc < INT32_MIN || loc > INT32_MAX) fail("field 'loc' is out of range (a 32-bit integer)");

    out = Event{};
    out.op = op;
    out.thread = names_.threads.intern(str_[kThread]);
    out.loc = static_cast<std::uint32_t>(static_cast<std::int32_t>(loc));
    switch (op) {
      case Op::read:
        out.buffered = (seen & bit(kBuffered)) && buffered_;
        [[fallthrough]];
      case Op::write:
        out.target = names_.vars.intern(str_[kVar]);
        out.value = num(kValue);
        break;
      case Op::commit: {
        std::int64_t issue = int_[kIssue];
        if (issue < 0 || static_cast<std::uint64_t>(issue) >= events_) {
          fail(fmt::format("field 'issue': {} is not the index of an earlier event", issue));
        }
        out.target = names_.vars.intern(str_[kVar]);
        out.value = num(kValue);
        out.issue = static_cast<EventIndex>(issue);
        break;
      }
      case Op::rmw:
        out.target = names_.vars.intern(str_[kVar]);
        out.value = num(kOld);
        out.value2 = num(kNew);
        break;
      case Op::acquire:
      case Op::release:
        out.target = names_.locks.intern(str_[kLock]);
        break;
      case Op::fork:
      case Op::join:
        out.target = names_.threads.intern(str_[kChild]);
        break;
      case Op::begin:
      case Op::end:
        out.target = (seen & bit(kLabel)) ? names_.labels.intern(str_[kLabel]) : kNoId;
        break;
      case Op::fence:
        break;
    }
  }

  LineSource src_;
  Names names_;
  std::uint64_t events_ = 0;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::string key_;
  std::string str_[kFieldCount];
  std::int64_t int_[kFieldCount] = {};
  bool bool_ = false, buffered_ = false;
};

void put_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

template <typename Sink>
void emit_jsonl(const Trace& trace, Sink&& sink) {
  std::string line, scratch;
  auto field = [&](const char* key, std::string_view value) {
    fmt::format_to(std::back_inserter(line), ",\"{}\":", key);
    put_json_string(line, value);
  };
  auto number = [&](const char* key, std::int64_t v) {
    fmt::format_to(std::back_inserter(line), ",\"{}\":{}", key, v);
  };
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const Event& e = trace.events[i];
    if (e.op == Op::commit && (e.issue == kNoEvent || e.issue >= i)) {
      throw TraceError(fmt::format("event {}: commit without an earlier issue cannot be written", i));
    }
    line.assign("{\"thread\":");
    put_json_string(line, name_of(trace.names.threads, e.thread, "T", scratch));
    fmt::format_to(std::back_inserter(line), ",\"op\":\"{}\"", op_name(e.op));
    switch (e.op) {
      case Op::read:
      case Op::write:
      case Op::commit:
        field("var", name_of(trace.names.vars, e.target, "v", scratch));
        number("value", e.value);
        if (e.op == Op::read && e.buffered) line += ",\"buffered\":true";
        if (e.op == Op::commit) number("issue", static_cast<std::int64_t>(e.issue));
        break;
      case Op::rmw:
        field("var", name_of(trace.names.vars, e.target, "v", scratch));
        number("old", e.value);
        number("new", e.value2);
        break;
      case Op::acquire:
      case Op::release:
        field("lock", name_of(trace.names.locks, e.target, "l", scratch));
        break;
      case Op::fork:
      case Op::join:
        field("child", name_of(trace.names.threads, e.target, "T", scratch));
        break;
      case Op::begin:
      case Op::end:
        if (e.target != kNoId) field("label", name_of(trace.names.labels, e.target, "b", scratch));
        break;
      case Op::fence:
        break;
    }
    if (e.loc != 0) number("loc", static_cast<std::int32_t>(e.loc));
    line += "}\n";
    sink(line);
  }
}

}  // namespace

std::unique_ptr<TraceReader> make_jsonl_reader(const std::string& path) {
  return std::make_unique<JsonlReader>(path);
}

}  // namespace detail

void write_jsonl(std::FILE* out, const Trace& trace) {
  // Built whole first so that a trace the format cannot hold leaves no partial output.
  std::string all = to_jsonl_string(trace);
  std::fwrite(all.data(), 1, all.size(), out);
}

std::string to_jsonl_string(const Trace& trace) {
  std::string all;
  detail::emit_jsonl(trace, [&](const std::string& line) { all += line; });
  return all;
}

}  // namespace atomcheck
