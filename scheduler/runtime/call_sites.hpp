// Dense ids for the places in a test program that operations are called from
// (Event::loc). Process-wide and append-only, so every execution, worker and replay of
// one process gives a call site the same id; 0 is "unknown". A site is a file and line
// (from std::source_location) or a return address (operators that cannot take a
// source_location, api.hpp CallSite), symbolized from the binary's line tables only when
// a report asks for its name.
#pragma once

#include <cstdint>
#include <string>

#include "api.hpp"

namespace atomcheck {
struct NameTable;
}

namespace atomcheck::detail {

// The id of a call site, registering it on first use. Thread-safe; takes a lock, so
// callers on a hot path keep a cache in front (CallSiteCache).
std::uint32_t intern_call_site(const CallSite& at);

// "file.cpp:12" (the file's base name); for a return address without line tables,
// "binary+0xOFFSET" (what addr2line takes). Empty for 0 or an unknown id.
std::string call_site_name(std::uint32_t id);

// Appends to `table.names` the names of the sites it does not have yet, so that
// table.names[id] is call_site_name(id) for every id so far (names[0] is empty). The
// names are not interned: two sites may share a name (a return address and a
// source_location on one line).
void append_call_site_names(NameTable& table);

// A direct-mapped cache in front of intern_call_site, one per Execution: one compare
// per operation on a hit, no lock.
class CallSiteCache {
 public:
  std::uint32_t id(const CallSite& at) {
    const auto key = reinterpret_cast<std::uintptr_t>(at.file) ^ reinterpret_cast<std::uintptr_t>(at.pc);
    if (key == 0) return 0;
    Slot& s = slots_[((key >> 3) * 31 + at.line) % kSlots];
    if (s.id == 0 || s.key != key || s.line != at.line) s = Slot{key, at.line, intern_call_site(at)};
    return s.id;
  }

 private:
  static constexpr std::size_t kSlots = 256;
  struct Slot {
    std::uintptr_t key = 0;
    std::uint32_t line = 0;
    std::uint32_t id = 0;
  };
  Slot slots_[kSlots];
};

}  // namespace atomcheck::detail
