// Internals shared by the trace file readers and writers: a buffered line source that
// reads large blocks with read(2) and hands out lines as string_views into its buffer
// (no per-line allocation, no iostreams), and helpers that format error messages.
// Not part of the public interface; include trace/trace_io.hpp instead.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "trace_io.hpp"

namespace atomcheck::detail {

// Bytes readable after the end of every line LineSource returns (inside its buffer, of
// unspecified value), so a parser may load 16 bytes at a time without a bounds check.
inline constexpr std::size_t kLineSlack = 64;

// Reads a file (or standard input for "-") line by line. A line is returned without its
// '\n' and without one trailing '\r' (so CRLF files read like LF files).
class LineSource {
 public:
  // Throws TraceError "FILE: cannot open: reason".
  explicit LineSource(const std::string& path);
  ~LineSource();
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;

  // The next line; false at end of file. The view stays valid until the next call.
  bool next(std::string_view& line);
  // 1-based number of the line last returned.
  std::uint64_t line_number() const { return line_; }
  // True when the line last returned is the file's last and has no '\n' after it.
  bool unterminated() const { return unterminated_; }
  // The name used in messages: the path, or "<stdin>".
  const std::string& display_name() const { return display_; }

  // Throws TraceError "FILE:LINE: message" for the line last returned, adding a hint
  // when that line is an unterminated last line (a truncated file).
  [[noreturn]] void fail(std::string_view message) const;

 private:
  bool fill();  // reads more bytes; false at end of file (out of line: rare)
  std::size_t capacity() const;  // buffer bytes usable for data (the rest is slack)

  int fd_ = -1;
  bool own_fd_ = false;
  std::string display_;
  std::vector<char> buf_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  bool unterminated_ = false;
  std::uint64_t line_ = 0;
};

// A piece of input quoted for an error message: at most 40 characters, control
// characters shown as '?', so a binary line cannot flood the terminal.
std::string quote(std::string_view text);

// Whether a line holds nothing but spaces, tabs and carriage returns.
inline bool is_blank(std::string_view line) {
  for (char c : line) {
    if (c != ' ' && c != '\t' && c != '\r') return false;
  }
  return true;
}

// Parses a decimal signed 32-bit integer exactly as Java's Integer.parseInt accepts it
// (optional sign, digits). False when it is not one.
inline bool parse_int32(std::string_view text, std::int32_t& out) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    negative = text[i] == '-';
    ++i;
  }
  if (i == text.size()) return false;
  std::int64_t v = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
    if (v > std::int64_t{1} << 31) return false;
  }
  if (negative) v = -v;
  if (v > INT32_MAX || v < INT32_MIN) return false;
  out = static_cast<std::int32_t>(v);
  return true;
}


// memchr for the short distances between newlines: inline 16-byte steps beat a library
// call per line. Reads up to 15 bytes past `n`, which the buffer's slack allows.
inline const char* find_newline(const char* p, std::size_t n) {
#if defined(__SSE2__)
  const __m128i vnl = _mm_set1_epi8('\n');
  for (std::size_t off = 0; off < n; off += 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + off));
    unsigned m = static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, vnl)));
    if (n - off < 16) m &= (1u << (n - off)) - 1;
    if (m != 0) return p + off + static_cast<std::size_t>(__builtin_ctz(m));
  }
  return nullptr;
#else
  return static_cast<const char*>(std::memchr(p, '\n', n));
#endif
}

inline bool LineSource::next(std::string_view& line) {
  std::size_t scanned = 0;  // bytes after begin_ already known to hold no '\n'
  for (;;) {
    const char* start = buf_.data() + begin_;
    const char* nl = find_newline(start + scanned, end_ - begin_ - scanned);
    if (nl != nullptr) {
      std::size_t len = static_cast<std::size_t>(nl - start);
      line = std::string_view(start, len);
      if (len > 0 && line.back() == '\r') line.remove_suffix(1);
      begin_ += len + 1;
      ++line_;
      unterminated_ = false;
      return true;
    }
    scanned = end_ - begin_;
    if (!fill()) {
      if (begin_ == end_) return false;
      line = std::string_view(buf_.data() + begin_, end_ - begin_);
      if (line.back() == '\r') line.remove_suffix(1);
      begin_ = end_;
      ++line_;
      unterminated_ = true;
      return true;
    }
  }
}

std::unique_ptr<TraceReader> make_std_reader(const std::string& path);
std::unique_ptr<TraceReader> make_jsonl_reader(const std::string& path);

// The printable name of an id without allocating when the table has it; otherwise the
// synthetic name of Names (written into `scratch`).
std::string_view name_of(const NameTable& table, std::uint32_t id, const char* prefix,
                         std::string& scratch);

}  // namespace atomcheck::detail
