// Trace files: RAPID's STD text format and our JSON-lines format, each with a streaming
// reader (one event at a time, so a 10 GB file is never loaded whole) and a writer.
// Every malformed input raises TraceError carrying "FILE:LINE: what is wrong".
#pragma once

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "trace.hpp"

namespace atomcheck {

enum class TraceFormat { std_text, jsonl };

// A malformed or unreadable trace file. what() is the whole one-line message,
// "FILE:LINE: what is wrong" (LINE omitted when the problem is not tied to a line).
struct TraceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Chooses the format from the file name: .jsonl/.json -> jsonl, anything else -> STD.
TraceFormat format_for_path(const std::string& path);

// Pull-style streaming reader. Names are interned into names() as they appear.
class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // Reads the next event; false at a clean end of file. Throws TraceError.
  virtual bool next(Event& out) = 0;
  virtual const Names& names() const = 0;
  // 1-based line number of the event last returned.
  virtual std::uint64_t line() const = 0;
};

// Opens `path` ("-" is standard input) in the given format. Throws TraceError when the
// file cannot be opened.
std::unique_ptr<TraceReader> open_trace(const std::string& path, TraceFormat format);
std::unique_ptr<TraceReader> open_trace(const std::string& path);

// Reads a whole file into memory (for small traces, tests and the oracles).
Trace read_trace(const std::string& path);
Trace read_trace(const std::string& path, TraceFormat format);

// Writers produce exactly what the readers accept; write(read(f)) == f for files the
// writer produced.
void write_std(std::FILE* out, const Trace& trace);
void write_jsonl(std::FILE* out, const Trace& trace);
std::string to_std_string(const Trace& trace);
std::string to_jsonl_string(const Trace& trace);

}  // namespace atomcheck
