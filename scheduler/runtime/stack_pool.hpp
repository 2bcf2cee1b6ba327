// A pool of fixed-size fiber stacks reused across executions, so starting a thread costs
// no system call and no allocation once the pool is warm. Each stack is mmap'ed with a
// PROT_NONE guard page below it, so a test program that overflows its fiber stack
// crashes at once instead of corrupting a neighbour. Also the AddressSanitizer fiber
// annotations, which Boost's fcontext backend does not make itself.
#pragma once

#include <cstddef>
#include <vector>

#include <boost/context/stack_context.hpp>

namespace atomcheck::detail {

class StackPool {
 public:
  // `size` is the usable size of each stack (rounded up to whole pages).
  explicit StackPool(std::size_t size);
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  boost::context::stack_context take();
  void give_back(boost::context::stack_context& sctx) noexcept;
  std::size_t stack_size() const { return size_; }
  std::size_t allocated() const { return all_.size(); }

 private:
  std::size_t size_;
  std::size_t page_;
  std::vector<void*> free_;  // bases (guard page included) of stacks not in use
  std::vector<void*> all_;
};

// The StackAllocator concept of Boost.Context, backed by a StackPool.
struct PoolStackAllocator {
  StackPool* pool;
  boost::context::stack_context* last = nullptr;  // receives the stack handed out (ASan)
  boost::context::stack_context allocate() {
    boost::context::stack_context s = pool->take();
    if (last) *last = s;
    return s;
  }
  void deallocate(boost::context::stack_context& sctx) noexcept { pool->give_back(sctx); }
};

// Default stack size: 64 KiB, 256 KiB under ASan (its redzones grow frames).
std::size_t default_stack_size();

// ASan fiber-switch annotations; no-ops without ASan.
void asan_start_switch(void** fake_stack_save, const void* bottom, std::size_t size);
void asan_finish_switch(void* fake_stack_save, const void** bottom_old, std::size_t* size_old);

// ThreadSanitizer fiber annotations (the TSan build, ATOMCHECK_TSAN): without them TSan
// takes a stack switch for a jump within one thread and reports nonsense. No-ops (and
// null handles) without TSan.
void* tsan_current_fiber();
void* tsan_create_fiber();
void tsan_destroy_fiber(void* fiber);
void tsan_switch_to_fiber(void* fiber);

}  // namespace atomcheck::detail
