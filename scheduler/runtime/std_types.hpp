// std_types: the production bundle of primitives for code templated on them. Instantiate
// with std_types in production and with atomcheck::model_types (scheduler/api.hpp) under the
// harness. Only standard headers: production code includes <atomcheck/types.hpp> and links
// atomcheck::types (no library, no harness).
#pragma once

#include <atomic>
#include <barrier>
#include <climits>
#include <condition_variable>
#include <cstddef>
#include <latch>
#include <mutex>
#include <semaphore>
#include <shared_mutex>
#include <string_view>
#include <thread>
#include <utility>

namespace atomcheck {

// Production primitives: the std:: types themselves.
struct std_types {
  template <class T>
  using atomic = std::atomic<T>;
  template <class T>
  using shared = T;
  using mutex = std::mutex;
  using thread = std::thread;
  using shared_mutex = std::shared_mutex;
  template <std::ptrdiff_t LeastMaxValue = INT_MAX>
  using counting_semaphore = std::counting_semaphore<LeastMaxValue>;
  using binary_semaphore = std::binary_semaphore;
  using latch = std::latch;
  using barrier = std::barrier<>;
  using atomic_flag = std::atomic_flag;
  using condition_variable = std::condition_variable;
  // A CAS-retry loop marker that atomcheck explores once per order of its successes.
  struct cas_loop {
    static constexpr bool retry() noexcept { return true; }
    template <class T>
    static bool compare_exchange_weak(std::atomic<T>& x, T& expected, T desired,
                                      std::memory_order mo = std::memory_order_seq_cst) noexcept {
      return x.compare_exchange_weak(expected, desired, mo);
    }
    template <class T>
    static bool compare_exchange_weak(std::atomic<T>& x, T& expected, T desired, std::memory_order success,
                                      std::memory_order failure) noexcept {
      return x.compare_exchange_weak(expected, desired, success, failure);
    }
    template <class T>
    static bool compare_exchange_strong(std::atomic<T>& x, T& expected, T desired,
                                        std::memory_order mo = std::memory_order_seq_cst) noexcept {
      return x.compare_exchange_strong(expected, desired, mo);
    }
    template <class T>
    static bool compare_exchange_strong(std::atomic<T>& x, T& expected, T desired, std::memory_order success,
                                        std::memory_order failure) noexcept {
      return x.compare_exchange_strong(expected, desired, success, failure);
    }
  };
  static void fence(std::memory_order mo) { std::atomic_thread_fence(mo); }
  // new and delete; model_types tracks the blocks (use after free, double free, leaks).
  template <class T, class... Args>
  static T* make(Args&&... args) {
    return new T(std::forward<Args>(args)...);
  }
  template <class T>
  static void destroy(T* p) {
    delete p;
  }
  // Names an object for atomcheck's reports; nothing in production. Call it where the
  // object is built: `Stack() { Types::name(head_, "head"); }`.
  template <class Object>
  static constexpr void name(Object&, std::string_view) noexcept {}
};

}  // namespace atomcheck
