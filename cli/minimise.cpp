#include "cli/minimise.hpp"

#include <algorithm>

#include "trace/transactions.hpp"
#include "trace/validate.hpp"

namespace atomcheck::cli {

Trace subtrace(const Trace& t, const std::vector<std::size_t>& keep) {
  Trace out;
  out.names = t.names;
  std::vector<EventIndex> renumber(t.events.size(), kNoEvent);
  for (std::size_t i = 0; i < keep.size(); ++i) renumber[keep[i]] = static_cast<EventIndex>(i);
  for (std::size_t i : keep) {
    Event e = t.events[i];
    // A commit whose write is gone is caught by the well-formedness check.
    if (e.op == Op::commit && e.issue != kNoEvent) e.issue = e.issue < renumber.size() ? renumber[e.issue] : kNoEvent;
    out.events.push_back(e);
  }
  return out;
}

namespace {

bool has_commits(const Trace& t) {
  return std::any_of(t.events.begin(), t.events.end(), [](const Event& e) { return e.op == Op::commit; });
}

// ddmin with complements only (Zeller's reduce-to-complement): split the current units
// into n chunks, drop the first chunk whose removal keeps the disagreement, and refine
// the split when none can go. Units are groups of event indices of the original trace.
struct Reducer {
  const Trace& original;
  const std::function<bool(const Trace&)>& keeps;
  std::size_t budget;
  MinimiseResult& result;
  bool commits;

  Trace build(const std::vector<std::vector<std::size_t>>& units) const {
    std::vector<std::size_t> keep;
    for (const auto& u : units) keep.insert(keep.end(), u.begin(), u.end());
    std::sort(keep.begin(), keep.end());
    return subtrace(original, keep);
  }

  bool test(const Trace& t) {
    ValidateOptions vo;
    vo.check_commits = commits;
    if (validate(t, vo)) return false;  // not well formed: never shown to a checker
    if (result.tests >= budget) {
      result.budget_hit = true;
      return false;
    }
    ++result.tests;
    return keeps(t);
  }

  void reduce(std::vector<std::vector<std::size_t>>& units) {
    std::size_t n = 2;
    while (units.size() >= 2 && !result.budget_hit) {
      n = std::min(n, units.size());
      const std::size_t chunk = (units.size() + n - 1) / n;
      bool removed = false;
      for (std::size_t start = 0; start < units.size() && !result.budget_hit; start += chunk) {
        std::vector<std::vector<std::size_t>> rest(units.begin(), units.begin() + static_cast<std::ptrdiff_t>(start));
        rest.insert(rest.end(), units.begin() + static_cast<std::ptrdiff_t>(std::min(units.size(), start + chunk)),
                    units.end());
        Trace candidate = build(rest);
        if (test(candidate)) {
          units = std::move(rest);
          result.trace = std::move(candidate);
          n = std::max<std::size_t>(n - 1, 2);
          removed = true;
          break;
        }
      }
      if (removed) continue;
      if (n >= units.size()) break;
      n = std::min(units.size(), 2 * n);
    }
  }
};

}  // namespace

MinimiseResult minimise_trace(const Trace& start, const std::function<bool(const Trace&)>& keeps,
                              std::size_t budget) {
  MinimiseResult result;
  result.trace = start;
  Reducer r{start, keeps, budget, result, has_commits(start)};
  // Transactions first: removing whole ones keeps blocks matched, so big steps succeed.
  const Transactions tx = assign_transactions(start);
  std::vector<std::vector<std::size_t>> units(tx.txns.size());
  for (std::size_t i = 0; i < start.events.size(); ++i) units[tx.txn_of[i]].push_back(i);
  units.erase(std::remove_if(units.begin(), units.end(), [](const auto& u) { return u.empty(); }), units.end());
  r.reduce(units);
  // Then single events of what is left.
  std::vector<std::vector<std::size_t>> events;
  for (const auto& u : units)
    for (std::size_t i : u) events.push_back({i});
  std::sort(events.begin(), events.end());
  r.reduce(events);
  return result;
}

}  // namespace atomcheck::cli
