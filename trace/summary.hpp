// Streaming statistics of a trace for `atomcheck trace-info`: what RAPID's MetaInfoEngine
// prints (events by kind, threads, variables read/written, locks, locations) plus
// transactions (outermost begin/end blocks and unary events, as in trace/transactions.hpp),
// the deepest nesting and well-formedness. One pass, memory per thread/variable/lock only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "trace.hpp"

namespace atomcheck {

// The numbers trace-info reports.
struct TraceSummary {
  std::uint64_t events = 0;
  std::array<std::uint64_t, kOpCount> by_op{};  // indexed by Op
  std::uint64_t buffered_reads = 0;
  std::uint64_t threads = 0;            // threads that perform at least one event (as RAPID)
  std::uint64_t named_threads = 0;      // also those only forked or joined
  std::uint64_t variables = 0, read_variables = 0, written_variables = 0;
  std::uint64_t locks = 0;
  std::uint64_t locations = 0;          // distinct location values (0 included, as RAPID)
  std::uint64_t transactions = 0;       // blocks + unary
  std::uint64_t blocks = 0;             // outermost begin/end blocks (ended or open)
  std::uint64_t open_blocks = 0;        // of those, still open at the end
  std::uint64_t unary = 0;              // events outside every block (commits excepted)
  std::uint32_t max_nesting = 0;
};

// Accumulates a TraceSummary one event at a time.
class SummaryBuilder {
 public:
  void on_event(const Event& e);
  // The summary so far; `names` gives the sizes of the name tables.
  TraceSummary result(const Names& names) const;

 private:
  TraceSummary s_;
  std::vector<std::uint32_t> depth_;      // per thread
  std::vector<std::uint8_t> acted_;       // per thread
  std::vector<std::uint8_t> var_flags_;   // per variable: 1 read, 2 written
  std::vector<std::uint8_t> lock_used_;   // per lock
  std::unordered_set<std::uint32_t> locations_;
};

TraceSummary summarize(const Trace& trace);

}  // namespace atomcheck
