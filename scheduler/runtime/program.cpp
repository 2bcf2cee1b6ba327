// The program registry and the names of failures and outcomes (see program.hpp).
#include "scheduler/runtime/program.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace atomcheck {

std::string_view failure_kind_name(FailureKind kind) {
  switch (kind) {
    case FailureKind::assertion: return "assertion";
    case FailureKind::exception: return "exception";
    case FailureKind::deadlock: return "deadlock";
    case FailureKind::step_bound: return "step bound";
    case FailureKind::usage: return "usage";
    case FailureKind::data_race: return "data race";
    case FailureKind::use_after_free: return "use after free";
    case FailureKind::double_free: return "double free";
    case FailureKind::leak: return "leak";
  }
  return "?";
}

std::string format_outcome(const Outcome& outcome) {
  std::string out;
  for (const auto& [name, value] : outcome) {
    if (!out.empty()) out += ' ';
    out += fmt::format("{}={}", name, value);
  }
  return out;
}

namespace {
// Filled by ProgramRegistrar during static initialisation only; read-only afterwards.
std::vector<ProgramInfo>& registry() {
  static std::vector<ProgramInfo> programs;
  return programs;
}
}  // namespace

detail::ProgramRegistrar::ProgramRegistrar(const char* name, const char* description,
                                           void (*body)(), const char* file, int line) {
  registry().push_back(ProgramInfo{name, description, body, file, line});
}

std::vector<const ProgramInfo*> registered_programs() {
  std::vector<const ProgramInfo*> out;
  for (const ProgramInfo& p : registry()) out.push_back(&p);
  std::stable_sort(out.begin(), out.end(),
                   [](const ProgramInfo* a, const ProgramInfo* b) { return a->name < b->name; });
  return out;
}

const ProgramInfo* find_program(std::string_view name) {
  for (const ProgramInfo& p : registry())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace atomcheck
