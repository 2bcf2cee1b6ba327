// The strategies by kind and name: adding a strategy is its file here, its value in
// StrategyKind and one row below.
#include <limits>

#include "scheduler/search/strategy.hpp"

namespace atomcheck {

namespace {

struct StrategyRow {
  StrategyKind kind;
  std::string_view name;
  bool by_name;  // selectable with --strategy (replay is selected by a schedule)
  bool samples;
  std::unique_ptr<Strategy> (*make)(const StrategyParams&);
};

std::uint64_t sample_count(const StrategyParams& p) {
  return p.samples ? p.samples : std::numeric_limits<std::uint64_t>::max();
}

constexpr StrategyRow kStrategies[] = {
    {StrategyKind::dfs, "dfs", true, false, [](const StrategyParams& p) { return make_dfs_strategy(p.preemption_bound); }},
    {StrategyKind::dpor, "dpor", true, false, [](const StrategyParams&) { return make_dpor_strategy(); }},
    {StrategyKind::optimal, "optimal", true, false,
     [](const StrategyParams& p) { return make_optimal_strategy(p.equivalence, p.tso, p.check_units); }},
    {StrategyKind::random, "random", true, true,
     [](const StrategyParams& p) { return make_random_strategy(p.seed, sample_count(p)); }},
    {StrategyKind::pct, "pct", true, true,
     [](const StrategyParams& p) { return make_pct_strategy(p.seed, p.pct_depth, sample_count(p)); }},
    {StrategyKind::replay, "replay", false, false, [](const StrategyParams& p) { return make_replay_strategy(p.replay); }},
};

const StrategyRow* row_of(StrategyKind kind) {
  for (const StrategyRow& r : kStrategies)
    if (r.kind == kind) return &r;
  return nullptr;
}

}  // namespace

std::optional<StrategyKind> strategy_from_name(std::string_view name) {
  for (const StrategyRow& r : kStrategies)
    if (r.by_name && r.name == name) return r.kind;
  return std::nullopt;
}

std::string_view strategy_name(StrategyKind kind) {
  const StrategyRow* r = row_of(kind);
  return r ? r->name : "?";
}

bool strategy_samples(StrategyKind kind) {
  const StrategyRow* r = row_of(kind);
  return r && r->samples;
}

std::unique_ptr<Strategy> make_strategy(StrategyKind kind, const StrategyParams& params) {
  const StrategyRow* r = row_of(kind);
  return r ? r->make(params) : make_dfs_strategy(params.preemption_bound);
}

}  // namespace atomcheck
