// Atomic sets and units of work declared by a test program (scheduler/api.hpp
// atomic_set, unit_of_work), recorded per execution in that execution's variable ids.
// Units are declared by label name and resolved to label ids only when asked, because a
// label gets its id when a block with it first begins, which differs between schedules.
#include <fmt/core.h>

#include "scheduler/runtime/execution.hpp"

namespace atomcheck::detail {

void Execution::fresh_declarations() {
  if (decl_serial_ == serial_) return;
  decl_serial_ = serial_;
  decl_.names.clear();
  decl_.var_set.clear();
  decl_.label_units.clear();
  nunit_decls_ = 0;
}

namespace {

std::uint32_t set_id(AtomicSets& d, std::string_view name) {
  for (std::uint32_t s = 0; s < d.names.size(); ++s)
    if (d.names[s] == name) return s;
  if (d.names.size() >= AtomicSets::kMaxSets)
    throw UsageError(fmt::format("atomcheck: more than {} atomic sets", AtomicSets::kMaxSets));
  d.names.emplace_back(name);
  return static_cast<std::uint32_t>(d.names.size() - 1);
}

}  // namespace

void Execution::declare_atomic_set(std::string_view name, const VarId* vars, std::size_t n) {
  fresh_declarations();
  const std::uint32_t s = set_id(decl_, name);
  for (std::size_t i = 0; i < n; ++i) {
    const VarId v = vars[i];
    if (v >= nvars_)
      throw UsageError(fmt::format("atomcheck: atomic_set(\"{}\"): not a variable of this execution", name));
    if (decl_.var_set.size() <= v) decl_.var_set.resize(v + 1, kNoId);
    if (decl_.var_set[v] != kNoId && decl_.var_set[v] != s)
      throw UsageError(fmt::format("atomcheck: variable {} is in atomic sets \"{}\" and \"{}\"",
                                   var_name(v), decl_.names[decl_.var_set[v]], name));
    decl_.var_set[v] = s;
  }
}

void Execution::declare_unit_of_work(std::string_view label, const std::string_view* sets,
                                     std::size_t n) {
  fresh_declarations();
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < n; ++i) mask |= std::uint64_t{1} << set_id(decl_, sets[i]);
  for (std::size_t i = 0; i < nunit_decls_; ++i)
    if (unit_decls_[i].first == label) {
      unit_decls_[i].second |= mask;
      return;
    }
  if (nunit_decls_ == unit_decls_.size()) unit_decls_.emplace_back();
  unit_decls_[nunit_decls_].first.assign(label);
  unit_decls_[nunit_decls_].second = mask;
  ++nunit_decls_;
}

const AtomicSets& Execution::atomic_sets() {
  fresh_declarations();
  decl_.label_units.clear();
  for (std::size_t i = 0; i < nunit_decls_; ++i)
    for (LabelId b = 0; b < nlabels_; ++b)
      if (labels_[b] == unit_decls_[i].first) {
        if (decl_.label_units.size() <= b) decl_.label_units.resize(b + 1, AtomicSets::kEverySet);
        decl_.label_units[b] = unit_decls_[i].second;
      }
  return decl_;
}

void op_atomic_set(std::string_view name, const VarId* vars, std::size_t n) {
  Execution::current_or_throw("atomic_set").declare_atomic_set(name, vars, n);
}

void op_unit_of_work(std::string_view label, const std::string_view* sets, std::size_t n) {
  Execution::current_or_throw("unit_of_work").declare_unit_of_work(label, sets, n);
}

}  // namespace atomcheck::detail
