// The memory models by kind and name: adding a model is its file here, its value in
// model_kind.hpp and one row below.
#include "scheduler/memory/memory.hpp"
#include "scheduler/memory/model_kind.hpp"

namespace atomcheck::detail {

namespace {

struct ModelRow {
  MemoryModelKind kind;
  std::string_view name;
  std::unique_ptr<MemoryModel> (*make)();
};
constexpr ModelRow kModels[] = {
    {MemoryModelKind::sc, "sc", &make_sc_memory},
    {MemoryModelKind::tso, "tso", &make_tso_memory},
    {MemoryModelKind::rc11, "rc11", &make_rc11_memory},
};

}  // namespace

std::unique_ptr<MemoryModel> make_memory_model(MemoryModelKind kind) {
  for (const ModelRow& m : kModels)
    if (m.kind == kind) return m.make();
  return make_sc_memory();
}

}  // namespace atomcheck::detail

namespace atomcheck {

std::optional<MemoryModelKind> memory_model_from_name(std::string_view name) {
  for (const detail::ModelRow& m : detail::kModels)
    if (m.name == name) return m.kind;
  return std::nullopt;
}

std::string_view memory_model_name(MemoryModelKind kind) {
  for (const detail::ModelRow& m : detail::kModels)
    if (m.kind == kind) return m.name;
  return "?";
}

}  // namespace atomcheck
