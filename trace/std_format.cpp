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
#include <bit>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// An open-addressing index in front of a NameTable, owned by one reader: every name
// of the table enters through it, so a probe that reaches an empty slot proves the name
// new. Names of up to 16 bytes sit in the slot itself as two words, so a hit costs one
// hash and one slot read; std::unordered_map costs several times that, and lookups
// are most of the work of parsing a line. Lookups read 16 bytes at the name (the line
// buffer's slack makes that safe) and assume a little-endian machine.
static_assert(std::endian::native == std::endian::little, "FastInterner masks little-endian words");

class FastInterner {
 public:
  explicit FastInterner(NameTable& table) : table_(table) { slots_.resize(1024); }

  // `name` must have 16 readable bytes at its start (LineSource slack).
  std::uint32_t intern(std::string_view name) {
    Key k = key(name.data(), name.size());
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = k.hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.id == kNoId) break;
      if (slot.len == name.size() && slot.w0 == k.w0 && slot.w1 == k.w1 &&
          (name.size() <= 16 || table_.names[slot.id] == name)) {
        return slot.id;
      }
    }
    std::uint32_t id = table_.intern(name);
    if (table_.size() * 2 > slots_.size()) {
      rehash(slots_.size() * 2);
    } else {
      place(id);
    }
    return id;
  }

 private:
  struct Slot {
    std::uint64_t w0 = 0, w1 = 0;  // the first 16 bytes, zero-padded
    std::uint32_t id = kNoId;
    std::uint32_t len = 0;
  };
  struct Key {
    std::uint64_t w0, w1, hash;
  };
  static std::uint64_t load8(const char* p) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  }
  static std::uint64_t low_bytes(std::uint64_t w, std::size_t k) {
    return k >= 8 ? w : k == 0 ? 0 : w & ((std::uint64_t{1} << (8 * k)) - 1);
  }
  static Key key(const char* p, std::size_t n) {
    Key k;
    k.w0 = low_bytes(load8(p), n);
    k.w1 = n > 8 ? low_bytes(load8(p + 8), n - 8) : 0;
    std::uint64_t h = (k.w0 ^ (0x9E3779B97F4A7C15ULL * (n + 1))) * 0xff51afd7ed558ccdULL;
    h = (h ^ (h >> 32) ^ k.w1) * 0xc4ceb9fe1a85ec53ULL;
    for (std::size_t i = 16; i + 8 <= n; i += 8) {
      h = (h ^ load8(p + i)) * 0xff51afd7ed558ccdULL;
    }
    if (n > 16 && n % 8 != 0) h = (h ^ load8(p + n - 8)) * 0xc4ceb9fe1a85ec53ULL;
    k.hash = h ^ (h >> 29);
    return k;
  }
  void place(std::uint32_t id) {
    // The stored name may lack 16 readable bytes after it: key a padded copy.
    const std::string& name = table_.names[id];
    std::string padded = name;
    padded.resize(name.size() + 16, '\0');
    Key k = key(padded.data(), name.size());
    std::size_t mask = slots_.size() - 1;
    std::size_t i = k.hash & mask;
    while (slots_[i].id != kNoId) i = (i + 1) & mask;
    slots_[i] = Slot{k.w0, k.w1, id, static_cast<std::uint32_t>(name.size())};
  }
  void rehash(std::size_t size) {
    slots_.assign(size, Slot{});
    for (std::uint32_t id = 0; id < table_.size(); ++id) place(id);
  }

  NameTable& table_;
  std::vector<Slot> slots_;
};

class StdReader final : public TraceReader {
 public:
  explicit StdReader(const std::string& path)
      : src_(path), threads_(names_.threads), vars_(names_.vars), locks_(names_.locks) {}

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
    // Finds the bars and the first whitespace 16 bytes at a time (LineSource guarantees
    // readable slack after the line); a byte loop mispredicts at every field end.
    const char* s = line.data();
    const std::size_t n = line.size();
    std::size_t bar[2] = {0, 0};
    std::size_t bars = 0;
    std::size_t first_space = n;
#if defined(__SSE2__)
    const __m128i vbar = _mm_set1_epi8('|');
    const __m128i vspace = _mm_set1_epi8(' ');
    for (std::size_t off = 0; off < n; off += 16) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + off));
      unsigned mb = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, vbar)));
      // max(v, ' ') == ' ' exactly for the bytes <= ' ' (unsigned)
      unsigned ms = static_cast<unsigned>(
          _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, vspace), vspace)));
      if (n - off < 16) {
        unsigned keep = (1u << (n - off)) - 1;
        mb &= keep;
        ms &= keep;
      }
      if (ms != 0 && first_space == n) first_space = off + static_cast<std::size_t>(__builtin_ctz(ms));
      while (mb != 0) {
        if (bars < 2) bar[bars] = off + static_cast<std::size_t>(__builtin_ctz(mb));
        ++bars;
        mb &= mb - 1;
      }
    }
#else
    for (std::size_t i = 0; i < n; ++i) {
      char c = s[i];
      if (c == '|') {
        if (bars < 2) bar[bars] = i;
        ++bars;
      } else if (static_cast<unsigned char>(c) <= ' ' && first_space == n) {
        first_space = i;
      }
    }
#endif
    if (bars != 2) {
      fail(fmt::format("expected 3 fields 'thread|op(target)|location', found {}", bars + 1));
    }
    std::string_view thread(s, bar[0]);
    std::string_view opfield(s + bar[0] + 1, bar[1] - bar[0] - 1);
    std::string_view locfield(s + bar[1] + 1, n - bar[1] - 1);

    if (thread.empty()) fail("empty thread name");
    if (first_space < bar[0] && has_space(thread)) fail(fmt::format("thread name {} contains whitespace", quote(thread)));

    Op op = Op::read;
    // Op names have at most 5 characters: look for '(' only there (a library find would
    // be a memchr call per line).
    std::size_t paren = std::string_view::npos;
    for (std::size_t i = 0; i < opfield.size() && i < 6; ++i) {
      if (opfield[i] == '(') {
        paren = i;
        break;
      }
    }
    std::string_view opname = paren == std::string_view::npos ? opfield : opfield.substr(0, paren);
    if (!std_op(opname, op)) {
      opname = opfield.substr(0, opfield.find('('));
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
      if (first_space < bar[1] && has_space(operand)) {
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
        out.target = locks_.intern(operand);
        break;
      case Op::fork:
      case Op::join:
        out.target = threads_.intern(operand);
        break;
      default:
        break;  // begin/end: no label in STD
    }
  }

  LineSource src_;
  Names names_;
  FastInterner threads_, vars_, locks_;
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
