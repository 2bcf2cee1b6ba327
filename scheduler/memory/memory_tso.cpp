// x86-TSO memory: SC memory plus a FIFO store buffer per thread, with store forwarding.
// Buffers are flat vectors with a head index, reused across executions, so a store or
// flush never allocates once warm.
#include "scheduler/memory/memory.hpp"

namespace atomcheck::detail {

namespace {

class TsoMemory final : public MemoryModel {
 public:
  void reset() override {
    mem_.clear();
    for (Buffer& b : buffers_) {
      b.clear();
      b.flushed = 0;
    }
    nonempty_ = 0;
  }
  void add_var(std::int64_t initial) override { mem_.push_back(initial); }
  void set_initial(VarId v, std::int64_t initial) override { mem_[v] = initial; }
  std::int64_t load(ThreadId t, VarId v, bool& buffered) override {
    if (t < buffers_.size()) {
      const Buffer& b = buffers_[t];
      for (std::size_t i = b.entries.size(); i > b.head; --i) {
        const Entry& e = b.entries[i - 1];
        if (e.var == v) {
          buffered = true;
          return e.value;
        }
      }
    }
    buffered = false;
    return mem_[v];
  }
  // Only seq_cst stores are compiled to xchg; every other store is a buffered mov.
  bool store_is_buffered(std::memory_order mo) const override {
    return mo != std::memory_order_seq_cst;
  }
  bool drains(Action a, std::memory_order mo) const override {
    switch (a) {
      case Action::write: return mo == std::memory_order_seq_cst;
      case Action::rmw:
      case Action::fence:
      case Action::acquire:
      case Action::try_acquire:
      case Action::release: return true;
      default: return false;
    }
  }
  void buffer_store(ThreadId t, VarId v, std::int64_t value, EventIndex issue) override {
    if (t >= buffers_.size()) buffers_.resize(static_cast<std::size_t>(t) + 1);
    Buffer& b = buffers_[t];
    if (b.empty()) ++nonempty_;
    b.entries.push_back(Entry{v, value, issue});
  }
  std::int64_t read_memory(VarId v) const override { return mem_[v]; }
  void write_memory(VarId v, std::int64_t value) override { mem_[v] = value; }
  bool buffer_empty(ThreadId t) const override {
    return t >= buffers_.size() || buffers_[t].empty();
  }
  bool buffer_has(ThreadId t, VarId v) const override {
    if (t >= buffers_.size()) return false;
    const Buffer& b = buffers_[t];
    for (std::size_t i = b.head; i < b.entries.size(); ++i)
      if (b.entries[i].var == v) return true;
    return false;
  }
  bool all_buffers_empty() const override { return nonempty_ == 0; }
  void append_flushes(std::vector<Transition>& out) const override {
    if (nonempty_ == 0) return;
    for (std::size_t t = 0; t < buffers_.size(); ++t) {
      const Buffer& b = buffers_[t];
      if (!b.empty()) {
        out.push_back(Transition{static_cast<ThreadId>(t), Action::flush, b.entries[b.head].var});
        out.back().seq = b.flushed;
      }
    }
  }
  Flushed flush(ThreadId t) override {
    Buffer& b = buffers_[t];
    const Entry e = b.entries[b.head++];
    ++b.flushed;
    if (b.empty()) {
      b.clear();
      --nonempty_;
    }
    mem_[e.var] = e.value;
    return Flushed{e.var, e.value, e.issue};
  }
  std::size_t buffered_count(ThreadId t) const override {
    return t < buffers_.size() ? buffers_[t].entries.size() - buffers_[t].head : 0;
  }
  std::uint32_t next_store_seq(ThreadId t) const override {
    return t < buffers_.size() ? buffers_[t].flushed + static_cast<std::uint32_t>(buffered_count(t)) : 0;
  }

 private:
  struct Entry {
    VarId var;
    std::int64_t value;
    EventIndex issue;
  };
  struct Buffer {
    std::vector<Entry> entries;
    std::size_t head = 0;
    std::uint32_t flushed = 0;  // stores of this thread committed so far in the execution
    bool empty() const { return head == entries.size(); }
    void clear() {
      entries.clear();
      head = 0;
    }
  };
  std::vector<std::int64_t> mem_;
  std::vector<Buffer> buffers_;
  std::size_t nonempty_ = 0;
};

}  // namespace

std::unique_ptr<MemoryModel> make_tso_memory() { return std::make_unique<TsoMemory>(); }

}  // namespace atomcheck::detail
