// The buffered line source behind both readers, format selection and whole-file reads.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/core.h>

#include "trace/io_detail.hpp"

namespace atomcheck {

namespace detail {

namespace {
// Large reads keep the per-line cost down to the parsing itself; a line may grow the
// buffer up to kMaxLine, beyond which the input is not a trace.
constexpr std::size_t kBlock = std::size_t{1} << 20;
constexpr std::size_t kMaxLine = std::size_t{64} << 20;
}  // namespace

LineSource::LineSource(const std::string& path) {
  if (path == "-") {
    fd_ = 0;
    display_ = "<stdin>";
  } else {
    display_ = path;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw TraceError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    own_fd_ = true;
  }
  buf_.resize(kBlock);
}

LineSource::~LineSource() {
  if (own_fd_) ::close(fd_);
}

bool LineSource::fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buf_.size()) {
    if (buf_.size() >= kMaxLine) {
      throw TraceError(fmt::format("{}:{}: line longer than {} MiB", display_, line_ + 1,
                                   kMaxLine >> 20));
    }
    buf_.resize(buf_.size() * 2);
  }
  for (;;) {
    ssize_t n = ::read(fd_, buf_.data() + end_, buf_.size() - end_);
    if (n > 0) {
      end_ += static_cast<std::size_t>(n);
      return true;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    if (errno == EINTR) continue;
    throw TraceError(fmt::format("{}: cannot read: {}", display_, std::strerror(errno)));
  }
}

bool LineSource::next(std::string_view& line) {
  std::size_t scanned = 0;  // bytes after begin_ already known to hold no '\n'
  for (;;) {
    const char* start = buf_.data() + begin_;
    const void* nl = std::memchr(start + scanned, '\n', end_ - begin_ - scanned);
    if (nl != nullptr) {
      std::size_t len = static_cast<std::size_t>(static_cast<const char*>(nl) - start);
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

void LineSource::fail(std::string_view message) const {
  if (unterminated_) {
    throw TraceError(fmt::format("{}:{}: {} (the last line has no newline: truncated file?)",
                                 display_, line_, message));
  }
  throw TraceError(fmt::format("{}:{}: {}", display_, line_, message));
}

std::string quote(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    out.push_back(c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c));
  }
  if (text.size() > kMax) out += "...";
  out.push_back('\'');
  return out;
}

bool parse_int32(std::string_view text, std::int32_t& out) {
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

std::string_view name_of(const NameTable& table, std::uint32_t id, const char* prefix,
                         std::string& scratch) {
  if (id < table.size()) return table.name(id);
  scratch = prefix + std::to_string(id);
  return scratch;
}

}  // namespace detail

TraceFormat format_for_path(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".jsonl") || ends_with(".json") ? TraceFormat::jsonl : TraceFormat::std_text;
}

std::unique_ptr<TraceReader> open_trace(const std::string& path, TraceFormat format) {
  return format == TraceFormat::jsonl ? detail::make_jsonl_reader(path)
                                      : detail::make_std_reader(path);
}

std::unique_ptr<TraceReader> open_trace(const std::string& path) {
  return open_trace(path, format_for_path(path));
}

Trace read_trace(const std::string& path, TraceFormat format) {
  auto reader = open_trace(path, format);
  Trace trace;
  Event e;
  while (reader->next(e)) trace.events.push_back(e);
  trace.names = reader->names();
  return trace;
}

Trace read_trace(const std::string& path) { return read_trace(path, format_for_path(path)); }

}  // namespace atomcheck
