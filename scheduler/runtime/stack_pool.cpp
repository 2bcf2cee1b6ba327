// Pooled, guard-paged fiber stacks and the ASan and TSan switch annotations.
#include "scheduler/runtime/stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <new>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define ATOMCHECK_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define ATOMCHECK_TSAN 1
#endif

namespace atomcheck::detail {

std::size_t default_stack_size() {
#if defined(ATOMCHECK_ASAN)
  return 256 * 1024;
#else
  return 64 * 1024;
#endif
}

StackPool::StackPool(std::size_t size) : page_(static_cast<std::size_t>(::sysconf(_SC_PAGESIZE))) {
  if (size < 16 * 1024) size = 16 * 1024;
  size_ = (size + page_ - 1) / page_ * page_;
}

StackPool::~StackPool() {
  for (void* base : all_) ::munmap(base, size_ + page_);
}

boost::context::stack_context StackPool::take() {
  void* base;
  if (!free_.empty()) {
    base = free_.back();
    free_.pop_back();
  } else {
    base = ::mmap(nullptr, size_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                  -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    // The stack grows down: the guard page is the lowest page.
    ::mprotect(base, page_, PROT_NONE);
    all_.push_back(base);
    free_.reserve(all_.size());
  }
  boost::context::stack_context sctx;
  sctx.size = size_;
  sctx.sp = static_cast<char*>(base) + page_ + size_;
  return sctx;
}

void StackPool::give_back(boost::context::stack_context& sctx) noexcept {
  char* base = static_cast<char*>(sctx.sp) - size_ - page_;
#if defined(ATOMCHECK_ASAN)
  // Frames that were jumped out of (Boost's entry trampoline) leave poisoned shadow.
  __asan_unpoison_memory_region(base + page_, size_);
#endif
  free_.push_back(base);  // capacity reserved in take(): never allocates
}

void asan_start_switch(void** fake_stack_save, const void* bottom, std::size_t size) {
#if defined(ATOMCHECK_ASAN)
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#else
  (void)fake_stack_save;
  (void)bottom;
  (void)size;
#endif
}

void asan_finish_switch(void* fake_stack_save, const void** bottom_old, std::size_t* size_old) {
#if defined(ATOMCHECK_ASAN)
  __sanitizer_finish_switch_fiber(fake_stack_save, bottom_old, size_old);
#else
  (void)fake_stack_save;
  (void)bottom_old;
  (void)size_old;
#endif
}

#if defined(ATOMCHECK_TSAN)
void* tsan_current_fiber() { return __tsan_get_current_fiber(); }
void* tsan_create_fiber() { return __tsan_create_fiber(0); }
void tsan_destroy_fiber(void* fiber) {
  if (fiber) __tsan_destroy_fiber(fiber);
}
void tsan_switch_to_fiber(void* fiber) { __tsan_switch_to_fiber(fiber, 0); }
#else
void* tsan_current_fiber() { return nullptr; }
void* tsan_create_fiber() { return nullptr; }
void tsan_destroy_fiber(void*) {}
void tsan_switch_to_fiber(void*) {}
#endif

}  // namespace atomcheck::detail
