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

std::size_t LineSource::capacity() const { return buf_.size() - kLineSlack; }

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
  buf_.resize(kBlock + kLineSlack);
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
  if (end_ == capacity()) {
    if (capacity() >= kMaxLine) {
      throw TraceError(fmt::format("{}:{}: line longer than {} MiB", display_, line_ + 1,
                                   kMaxLine >> 20));
    }
    buf_.resize(capacity() * 2 + kLineSlack);
  }
  for (;;) {
    ssize_t n = ::read(fd_, buf_.data() + end_, capacity() - end_);
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
