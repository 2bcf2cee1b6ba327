// Forced into every fuzz target (clang++ -include): std::source_location for clang 14.
// libstdc++ 12 defines std::source_location only when the compiler has
// __builtin_source_location (GCC 11+, clang 15+), and scheduler/api.hpp, which the litmus
// parsers include for their runner half, uses it in default arguments. clang 14 has the
// older __builtin_FILE/__builtin_LINE/__builtin_COLUMN/__builtin_FUNCTION, which this
// stand-in is built on. The fuzz targets never call into the scheduler, and no object
// compiled with the real type is linked into them, so the layout needs to match nothing.
#pragma once

#include <version>

#if defined(__clang__) && !__has_builtin(__builtin_source_location)
#include <cstdint>
#define _GLIBCXX_SRCLOC 1  // libstdc++'s <source_location> then adds nothing
namespace std {
struct source_location {
  // constexpr rather than consteval: clang 14 refuses a consteval call in a default
  // argument. The default arguments are still evaluated at the caller's call site.
  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           const char* function = __builtin_FUNCTION(),
                                           std::uint_least32_t line = __builtin_LINE(),
                                           std::uint_least32_t column = __builtin_COLUMN()) noexcept {
    source_location l;
    l.file_ = file;
    l.function_ = function;
    l.line_ = line;
    l.column_ = column;
    return l;
  }
  constexpr source_location() noexcept = default;
  constexpr std::uint_least32_t line() const noexcept { return line_; }
  constexpr std::uint_least32_t column() const noexcept { return column_; }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  std::uint_least32_t line_ = 0;
  std::uint_least32_t column_ = 0;
};
}  // namespace std
#endif
