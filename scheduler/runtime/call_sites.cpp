// The process-wide call-site table (call_sites.hpp) and the symbolizer for return
// addresses. Symbolizing uses libbacktrace (GCC's, read from the binary's DWARF line
// tables, inlined frames included) when the build found it; without it, or without line
// tables (no -g), a return address is named by module and offset.
#include "call_sites.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <deque>
#include <map>
#include <mutex>
#include <string_view>
#include <tuple>

#include "../../trace/trace.hpp"

#if ATOMCHECK_HAVE_LIBBACKTRACE
#include <backtrace.h>
#endif

namespace atomcheck::detail {
namespace {

std::string_view base_name(std::string_view path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// A header of the standard library (libstdc++, libc++) or of atomcheck's API: a lock
// called from there (std::unique_lock, condition_variable::wait) is the user's lock
// taken a few frames out.
bool in_library(std::string_view path) {
  return path.find("/include/c++/") != std::string_view::npos || path.find("/c++/v1/") != std::string_view::npos ||
         path.ends_with("scheduler/api.hpp") || path.ends_with("scheduler/sync.hpp");
}

struct Site {
  std::string file;  // empty for a return address
  std::uint32_t line = 0;
  const void* pc = nullptr;
  std::string name;  // filled on first request
  bool named = false;
};

#if ATOMCHECK_HAVE_LIBBACKTRACE
backtrace_state* symbolizer() {
  // Created once and never freed (libbacktrace has no destroy); threaded = 1 because
  // parallel workers may ask for names concurrently (we also hold the table's lock).
  static backtrace_state* state =
      backtrace_create_state(nullptr, 1, [](void*, const char*, int) {}, nullptr);
  return state;
}
#endif

// The innermost source line of the instruction before `return_address` (the call);
// with `outside_library`, the innermost one outside the standard library and atomcheck's
// own headers (the user's line around an inlined std::lock_guard). Empty when
// `outside_library` finds none.
std::string symbolize(const void* return_address, bool outside_library = false) {
  const auto pc = reinterpret_cast<std::uintptr_t>(return_address) - 1;
#if ATOMCHECK_HAVE_LIBBACKTRACE
  if (backtrace_state* state = symbolizer()) {
    struct Search {
      std::string found;
      bool outside_library;
    } search{{}, outside_library};
    // The callback sees the innermost inlined frame first; stopping there names the
    // user's line even when the user's function was inlined into another.
    backtrace_pcinfo(
        state, pc,
        [](void* data, std::uintptr_t, const char* file, int line, const char*) -> int {
          auto* s = static_cast<Search*>(data);
          if (!file || line <= 0) return 0;
          if (s->outside_library && in_library(file)) return 0;
          s->found = fmt::format("{}:{}", base_name(file), line);
          return 1;
        },
        [](void*, const char*, int) {}, &search);
    if (!search.found.empty() || outside_library) return search.found;
  }
#endif
  if (outside_library) return {};
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(pc), &info) && info.dli_fname && info.dli_fbase)
    return fmt::format("{}+{:#x}", base_name(info.dli_fname),
                       pc - reinterpret_cast<std::uintptr_t>(info.dli_fbase));
  return fmt::format("{:#x}", pc);
}

struct Table {
  std::mutex mu;
  std::deque<Site> sites{Site{}};  // sites[0]: unknown
  std::map<std::tuple<std::string_view, std::uint32_t, const void*>, std::uint32_t> ids;

  const std::string& name_locked(std::uint32_t id) {
    Site& s = sites[id];
    if (!s.named) {
      if (s.pc && !s.file.empty()) s.name = symbolize(s.pc, true);  // a location in the library
      if (s.name.empty())
        s.name = s.pc && s.file.empty() ? symbolize(s.pc) : fmt::format("{}:{}", base_name(s.file), s.line);
      s.named = true;
    }
    return s.name;
  }
};

Table& table() {
  static Table* t = new Table;  // never destroyed: fibers may still report at exit
  return *t;
}

}  // namespace

std::uint32_t intern_call_site(const CallSite& at) {
  if (!at.file && !at.pc) return 0;
  Table& t = table();
  std::lock_guard lock(t.mu);
  std::string_view file = at.file ? std::string_view(at.file) : std::string_view();
  // The return address matters only where the location is the library's: elsewhere one
  // line called from many places stays one site.
  const void* pc = at.pc;
  if (at.file && !in_library(file)) pc = nullptr;
  if (auto it = t.ids.find({file, at.line, pc}); it != t.ids.end()) return it->second;
  Site& s = t.sites.emplace_back(Site{std::string(file), at.line, pc, {}, false});
  // The key views the table's own copy of the file name (a deque never moves elements).
  const auto id = static_cast<std::uint32_t>(t.sites.size() - 1);
  t.ids.emplace(std::tuple<std::string_view, std::uint32_t, const void*>{s.file, at.line, pc}, id);
  return id;
}

std::string call_site_name(std::uint32_t id) {
  Table& t = table();
  std::lock_guard lock(t.mu);
  if (id == 0 || id >= t.sites.size()) return {};
  return t.name_locked(id);
}

void append_call_site_names(NameTable& names) {
  Table& t = table();
  std::lock_guard lock(t.mu);
  for (std::size_t id = names.names.size(); id < t.sites.size(); ++id)
    names.names.push_back(id == 0 ? std::string() : t.name_locked(static_cast<std::uint32_t>(id)));
}

}  // namespace atomcheck::detail
