// SC memory: one value per variable, every store straight to memory.
#include "scheduler/memory/memory.hpp"

namespace atomcheck::detail {

namespace {

class ScMemory final : public UnbufferedMemory {
 public:
  void reset() override { mem_.clear(); }
  void add_var(std::int64_t initial) override { mem_.push_back(initial); }
  void set_initial(VarId v, std::int64_t initial) override { mem_[v] = initial; }
  std::int64_t load(ThreadId, VarId v, bool& buffered) override {
    buffered = false;
    return mem_[v];
  }
  void buffer_store(ThreadId, VarId v, std::int64_t value, EventIndex) override { mem_[v] = value; }
  std::int64_t read_memory(VarId v) const override { return mem_[v]; }
  void write_memory(VarId v, std::int64_t value) override { mem_[v] = value; }

 private:
  std::vector<std::int64_t> mem_;
};

}  // namespace

std::unique_ptr<MemoryModel> make_sc_memory() { return std::make_unique<ScMemory>(); }

}  // namespace atomcheck::detail
