// RAPID's STD text format: one event a line, `thread|op(target)|location`.
//
// Grammar followed (RAPID's parse/std/Parse.java): a line splits at '|' into exactly
// three fields; the operation is `r w acq rel fork join` with an operand in parentheses
// (the operand runs from the first '(' to the final ')' and holds no whitespace), or
// `begin` / `end` with no operand; the location is a Java int (optional sign, digits).
// Where we decided something RAPID leaves open or gets wrong:
//  - a line RAPID cannot parse is silently re-read as the previous event there; here it
//    is an error `FILE:LINE: what is wrong`;
//  - RAPID has no comments or blank lines; we skip lines whose first character is '#'
//    and lines of only spaces/tabs, so test traces can carry their verdicts;
//  - RAPID takes any op starting with "begin"/"end" (e.g. `begin(x)`); we accept exactly
//    `begin` and `end`;
//  - RAPID keeps whitespace inside the thread name; we reject it (it is never intended
//    and could not be told apart from a typo), and one trailing '\r' is dropped (CRLF);
//  - the location is stored as the 32 bits of the Java int, so negative locations
//    round-trip.
#include <cstring>

#include <fmt/core.h>

#include "trace/io_detail.hpp"

namespace atomcheck {
namespace detail {

namespace {

bool has_space(std::string_view s) {
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') return true;
  }
  return false;
}

// The STD operation names with their Op; `begin`/`end` take no operand.
bool std_op(std::string_view name, Op& op) {
  switch (name.size()) {
    case 1:
      if (name[0] == 'r') return op = Op::read, true;
      if (name[0] == 'w') return op = Op::write, true;
      return false;
    case 3:
      if (name == "acq") return op = Op::acquire, true;
      if (name == "rel") return op = Op::release, true;
      if (name == "end") return op = Op::end, true;
      return false;
    case 4:
      if (name == "fork") return op = Op::fork, true;
      if (name == "join") return op = Op::join, true;
      return false;
    case 5:
      if (name == "begin") return op = Op::begin, true;
      return false;
    default:
      return false;
  }
}

// A one-entry cache in front of a NameTable: traces name the same thread (and often the
// same variable) on consecutive lines, and a compare is cheaper than a hash lookup.
struct CachedTable {
  NameTable* table = nullptr;
  std::string last;
  std::uint32_t last_id = kNoId;

  std::uint32_t intern(std::string_view name) {
    if (last_id != kNoId && name == last) return last_id;
    last_id = table->intern(name);
    last.assign(name.data(), name.size());  // no allocation once the capacity fits
    return last_id;
  }
};

class StdReader final : public TraceReader {
 public:
  explicit StdReader(const std::string& path) : src_(path) {
    threads_.table = &names_.threads;
    vars_.table = &names_.vars;
  }

  bool next(Event& out) override {
    std::string_view line;
    for (;;) {
      if (!src_.next(line)) return false;
      if (line.empty() || line[0] == '#') continue;
      if ((line[0] == ' ' || line[0] == '\t') && is_blank(line)) continue;
      parse(line, out);
      return true;
    }
  }
  const Names& names() const override { return names_; }
  std::uint64_t line() const override { return src_.line_number(); }

 private:
  [[noreturn]] void fail(std::string_view msg) const { src_.fail(msg); }

  void parse(std::string_view line, Event& out) {
    const char* s = line.data();
    const std::size_t n = line.size();
    const char* bar1 = static_cast<const char*>(std::memchr(s, '|', n));
    const char* bar2 = bar1 == nullptr ? nullptr
        : static_cast<const char*>(std::memchr(bar1 + 1, '|', n - (bar1 + 1 - s)));
    if (bar2 == nullptr || std::memchr(bar2 + 1, '|', n - (bar2 + 1 - s)) != nullptr) {
      std::size_t fields = 1;
      for (char c : line) fields += c == '|';
      fail(fmt::format("expected 3 fields 'thread|op(target)|location', found {}", fields));
    }
    std::string_view thread(s, static_cast<std::size_t>(bar1 - s));
    std::string_view opfield(bar1 + 1, static_cast<std::size_t>(bar2 - bar1 - 1));
    std::string_view locfield(bar2 + 1, static_cast<std::size_t>(s + n - bar2 - 1));

    if (thread.empty()) fail("empty thread name");
    if (has_space(thread)) fail(fmt::format("thread name {} contains whitespace", quote(thread)));

    Op op = Op::read;
    std::size_t paren = opfield.find('(');
    std::string_view opname = paren == std::string_view::npos ? opfield : opfield.substr(0, paren);
    if (!std_op(opname, op)) {
      fail(fmt::format("unknown operation {} (expected r, w, acq, rel, fork, join, begin or end)",
                       quote(opname)));
    }
    std::string_view operand;
    if (op == Op::begin || op == Op::end) {
      if (paren != std::string_view::npos) {
        fail(fmt::format("'{}' takes no operand, found {}", opname, quote(opfield)));
      }
    } else {
      if (paren == std::string_view::npos) {
        fail(fmt::format("'{}' needs an operand in parentheses, as {}(x)", opname, opname));
      }
      if (opfield.back() != ')' || opfield.size() == paren + 1) {
        fail(fmt::format("missing ')' at the end of {}", quote(opfield)));
      }
      operand = opfield.substr(paren + 1, opfield.size() - paren - 2);
      if (operand.empty()) fail(fmt::format("empty operand in {}", quote(opfield)));
      if (has_space(operand)) {
        fail(fmt::format("operand {} contains whitespace", quote(operand)));
      }
    }

    std::int32_t loc = 0;
    if (locfield.empty()) fail("empty location (expected an integer)");
    if (!parse_int32(locfield, loc)) {
      fail(fmt::format("location {} is not a 32-bit integer", quote(locfield)));
    }

    out = Event{};
    out.op = op;
    out.thread = threads_.intern(thread);
    out.loc = static_cast<std::uint32_t>(loc);
    switch (op) {
      case Op::read:
      case Op::write:
        out.target = vars_.intern(operand);
        break;
      case Op::acquire:
      case Op::release:
        out.target = names_.locks.intern(operand);
        break;
      case Op::fork:
      case Op::join:
        out.target = names_.threads.intern(operand);
        break;
      default:
        break;  // begin/end: no label in STD
    }
  }

  LineSource src_;
  Names names_;
  CachedTable threads_, vars_;
};

// Why an event cannot be written as STD, or empty when it can.
std::string std_obstacle(const Event& e) {
  switch (e.op) {
    case Op::commit:
    case Op::fence:
    case Op::rmw:
      return fmt::format("STD has no '{}' events (only r w acq rel fork join begin end)",
                         op_name(e.op));
    case Op::read:
      if (e.buffered) return "STD cannot mark a read as served by the store buffer";
      [[fallthrough]];
    case Op::write:
      if (e.value != 0) return fmt::format("STD cannot carry values ({} has value {})",
                                            op_name(e.op), e.value);
      return {};
    case Op::begin:
    case Op::end:
      if (e.target != kNoId) return fmt::format("STD cannot carry the label of '{}'", op_name(e.op));
      return {};
    default:
      return {};
  }
}

std::string name_obstacle(std::string_view name, bool is_thread) {
  if (name.empty()) return "an empty name";
  if (name.find('|') != std::string_view::npos) return fmt::format("name {} contains '|'", quote(name));
  if (has_space(name)) return fmt::format("name {} contains whitespace", quote(name));
  if (is_thread && name[0] == '#') return fmt::format("thread name {} starts with '#'", quote(name));
  return {};
}

}  // namespace

std::unique_ptr<TraceReader> make_std_reader(const std::string& path) {
  return std::make_unique<StdReader>(path);
}

namespace {

// Checks the whole trace first so a failed write leaves no partial output behind.
void check_std(const Trace& trace) {
  std::string scratch;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const Event& e = trace.events[i];
    std::string why = std_obstacle(e);
    if (why.empty()) {
      why = name_obstacle(name_of(trace.names.threads, e.thread, "T", scratch), true);
    }
    if (why.empty()) {
      switch (e.op) {
        case Op::read:
        case Op::write:
          why = name_obstacle(name_of(trace.names.vars, e.target, "v", scratch), false);
          break;
        case Op::acquire:
        case Op::release:
          why = name_obstacle(name_of(trace.names.locks, e.target, "l", scratch), false);
          break;
        case Op::fork:
        case Op::join:
          why = name_obstacle(name_of(trace.names.threads, e.target, "T", scratch), false);
          break;
        default:
          break;
      }
    }
    if (!why.empty()) {
      throw TraceError(fmt::format("event {}: cannot be written in STD format: {}; use JSONL", i, why));
    }
  }
}

template <typename Sink>
void emit_std(const Trace& trace, Sink&& sink) {
  std::string line, scratch;
  for (const Event& e : trace.events) {
    line.clear();
    line += name_of(trace.names.threads, e.thread, "T", scratch);
    line.push_back('|');
    const NameTable* table = nullptr;
    const char* prefix = "";
    switch (e.op) {
      case Op::read: line += "r("; table = &trace.names.vars; prefix = "v"; break;
      case Op::write: line += "w("; table = &trace.names.vars; prefix = "v"; break;
      case Op::acquire: line += "acq("; table = &trace.names.locks; prefix = "l"; break;
      case Op::release: line += "rel("; table = &trace.names.locks; prefix = "l"; break;
      case Op::fork: line += "fork("; table = &trace.names.threads; prefix = "T"; break;
      case Op::join: line += "join("; table = &trace.names.threads; prefix = "T"; break;
      case Op::begin: line += "begin"; break;
      case Op::end: line += "end"; break;
      default: break;  // excluded by check_std
    }
    if (table != nullptr) {
      line += name_of(*table, e.target, prefix, scratch);
      line.push_back(')');
    }
    line.push_back('|');
    fmt::format_to(std::back_inserter(line), "{}\n", static_cast<std::int32_t>(e.loc));
    sink(line);
  }
}

}  // namespace
}  // namespace detail

void write_std(std::FILE* out, const Trace& trace) {
  detail::check_std(trace);
  std::string block;
  detail::emit_std(trace, [&](const std::string& line) {
    block += line;
    if (block.size() >= (1u << 16)) {
      std::fwrite(block.data(), 1, block.size(), out);
      block.clear();
    }
  });
  std::fwrite(block.data(), 1, block.size(), out);
}

std::string to_std_string(const Trace& trace) {
  detail::check_std(trace);
  std::string all;
  detail::emit_std(trace, [&](const std::string& line) { all += line; });
  return all;
}

}  // namespace atomcheck
