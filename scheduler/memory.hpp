// The memory model behind the API objects: what a load returns, where a store goes, and
// (under TSO) the store buffers whose flushes are extra transitions. One small interface,
// SC and x86-TSO implementations; variables and threads are dense ids.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "explore.hpp"
#include "strategy.hpp"
#include "../trace/event.hpp"

namespace atomcheck::detail {

// A store that reached memory from a buffer.
struct Flushed {
  VarId var = kNoId;
  std::int64_t value = 0;
  EventIndex issue = kNoEvent;
};

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  // Forgets every variable and buffer (keeps capacity).
  virtual void reset() = 0;
  // Variables get ids 0, 1, ... in order of add_var.
  virtual void add_var(std::int64_t initial) = 0;
  // What a load by `t` of `v` returns; `buffered` says it came from t's own buffer.
  virtual std::int64_t load(ThreadId t, VarId v, bool& buffered) = 0;
  // Does a store with this order go through the store buffer (true) or straight to
  // memory (false)?
  virtual bool store_is_buffered(std::memory_order mo) const = 0;
  // Must t's buffer be empty before this action (fence, locked rmw, mutex op, xchg
  // store)?
  virtual bool drains(Action a, std::memory_order mo) const = 0;
  // Puts a store in t's buffer (only when store_is_buffered).
  virtual void buffer_store(ThreadId t, VarId v, std::int64_t value, EventIndex issue) = 0;
  // Memory itself (rmw, unbuffered stores); callers ensure t's buffer is empty under TSO.
  virtual std::int64_t read_memory(VarId v) const = 0;
  virtual void write_memory(VarId v, std::int64_t value) = 0;
  virtual bool buffer_empty(ThreadId t) const = 0;
  // Does t's buffer hold a store to v (a load by t of v would be served by it)?
  virtual bool buffer_has(ThreadId t, VarId v) const = 0;
  virtual bool all_buffers_empty() const = 0;
  // Appends one flush transition per non-empty buffer, in thread order.
  virtual void append_flushes(std::vector<Transition>& out) const = 0;
  // Commits the oldest entry of t's buffer to memory.
  virtual Flushed flush(ThreadId t) = 0;
  // Number of entries in t's buffer (for reports).
  virtual std::size_t buffered_count(ThreadId t) const = 0;
  // The index, among t's buffered stores of this execution, that t's next buffered store
  // gets (Transition::seq); a flush's seq is the index of the store it commits.
  virtual std::uint32_t next_store_seq(ThreadId t) const = 0;
};

std::unique_ptr<MemoryModel> make_memory_model(MemoryModelKind kind);

}  // namespace atomcheck::detail
