// The history recorder and the scenarios of linearizability tests (see lin_test.hpp).
#include "scheduler/explore/lin_test.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <stdexcept>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "scheduler/runtime/execution.hpp"
#include "scheduler/search/splitmix.hpp"

namespace atomcheck::lin {

namespace {

// The operation code of "OBJECT.METHOD" labels. Object ids come from one process-wide
// table, so that every exploring thread gives an object the same id: the parallel search
// replays an execution's prefix on another thread and must see the same events. Each
// thread keeps what it resolved, so an operation of a warm execution neither allocates
// nor takes the lock.
struct Resolved {
  std::string object, method;
  std::string label;  // "OBJECT.METHOD"
  std::int64_t code = 0;
  std::string error;  // why the label names no operation
};

std::uint32_t object_id(std::string_view object) {
  static std::mutex mutex;
  static std::vector<std::string> objects;  // object names, by id
  std::lock_guard lock(mutex);
  auto o = std::find(objects.begin(), objects.end(), object);
  if (o == objects.end()) o = objects.insert(objects.end(), std::string(object));
  return static_cast<std::uint32_t>(o - objects.begin());
}

// A reference into this thread's cache, which only grows (a deque: entries never move).
const Resolved& resolve(std::string_view object, std::string_view method) {
  thread_local std::deque<Resolved> cache;
  for (const Resolved& r : cache)
    if (r.object == object && r.method == method) return r;
  Resolved r;
  r.object = object;
  r.method = method;
  r.label = fmt::format("{}.{}", object, method);
  const std::size_t colon = object.find(':');
  const std::string_view spec_name = colon == std::string_view::npos ? object : object.substr(colon + 1);
  const std::vector<std::string>& names = spec_names();
  auto spec_it = std::find(names.begin(), names.end(), spec_name);
  std::unique_ptr<Spec> spec = spec_it == names.end() ? nullptr : make_spec(spec_name);
  if (!spec) {
    r.error = fmt::format("operation {}: no specification named '{}' (built in: {})", r.label, spec_name,
                          fmt::join(names, ", "));
  } else {
    auto m = std::find(spec->methods().begin(), spec->methods().end(), method);
    if (m == spec->methods().end()) {
      r.error = fmt::format("operation {}: the {} specification has no method '{}' (it has: {})", r.label,
                            spec_name, method, fmt::join(spec->methods(), ", "));
    } else {
      OperationCode code;
      code.spec = static_cast<std::uint32_t>(spec_it - names.begin());
      code.object = object_id(object);
      code.method = static_cast<std::uint32_t>(m - spec->methods().begin());
      r.code = encode_operation(code);
    }
  }
  cache.push_back(std::move(r));
  return cache.back();
}

}  // namespace

operation::operation(std::string_view object, std::string_view method, std::int64_t arg, std::int64_t arg2,
                     std::source_location loc)
    : at_(loc), arg2_(arg2) {
  const Resolved& r = resolve(object, method);
  atomcheck::detail::Execution& e = atomcheck::detail::Execution::current_or_throw("lin::operation");
  if (!r.error.empty()) atomcheck::check(false, r.error, loc);
  label_ = e.begin_block(r.label, e.site(at_), arg, r.code);
}

operation::~operation() {
  if (atomcheck::detail::Execution* e = atomcheck::detail::Execution::current())
    e->end_block(label_, e->site(at_), result_, arg2_);
}

std::size_t Scenario::size() const {
  std::size_t n = before.size() + after.size();
  for (const auto& t : parallel) n += t.size();
  return n;
}

std::string format_scenario(const Scenario& s, const std::vector<std::string>& names) {
  auto steps = [&](const std::vector<Step>& part) {
    std::string out;
    for (const Step& st : part)
      out += fmt::format("{}{}({})", out.empty() ? "" : " ", names[st.op], st.arg == kNone ? "" : std::to_string(st.arg));
    return out;
  };
  std::string out;
  if (!s.before.empty()) out += "before: " + steps(s.before) + " | ";
  for (std::size_t t = 0; t < s.parallel.size(); ++t)
    out += fmt::format("T{}: {}{}", t + 1, steps(s.parallel[t]), t + 1 < s.parallel.size() ? " | " : "");
  if (!s.after.empty()) out += " | after: " + steps(s.after);
  return out;
}

Scenario random_scenario(std::uint64_t seed, const ScenarioOptions& options,
                         const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges,
                         const std::vector<std::string>& groups) {
  std::uint64_t state = seed;
  // The operations each parallel thread may call: ungrouped ones, and those of the groups
  // it is given (the k-th group met goes to thread k mod threads).
  std::vector<std::string> seen;
  std::vector<std::vector<std::uint32_t>> allowed(std::max<std::uint32_t>(options.threads, 1));
  for (std::uint32_t i = 0; i < ranges.size(); ++i) {
    const std::string g = i < groups.size() ? groups[i] : std::string();
    if (g.empty()) {
      for (auto& a : allowed) a.push_back(i);
      continue;
    }
    auto at = std::find(seen.begin(), seen.end(), g);
    if (at == seen.end()) at = seen.insert(seen.end(), g);
    allowed[static_cast<std::size_t>(at - seen.begin()) % allowed.size()].push_back(i);
  }
  std::vector<std::uint32_t> any(ranges.size());
  for (std::uint32_t i = 0; i < any.size(); ++i) any[i] = i;
  auto step = [&](const std::vector<std::uint32_t>& from) {
    Step s;
    s.op = from[atomcheck::detail::splitmix64_next(state) % from.size()];
    auto [lo, hi] = ranges[s.op];
    if (lo <= hi)
      s.arg = lo + static_cast<std::int64_t>(atomcheck::detail::splitmix64_next(state) % static_cast<std::uint64_t>(hi - lo + 1));
    return s;
  };
  Scenario s;
  for (std::uint32_t i = 0; i < options.ops_before; ++i) s.before.push_back(step(any));
  s.parallel.resize(options.threads);
  for (std::size_t t = 0; t < s.parallel.size(); ++t)
    for (std::uint32_t i = 0; i < options.ops_per_thread && !allowed[t].empty(); ++i) s.parallel[t].push_back(step(allowed[t]));
  std::erase_if(s.parallel, [](const std::vector<Step>& part) { return part.empty(); });
  for (std::uint32_t i = 0; i < options.ops_after; ++i) s.after.push_back(step(any));
  return s;
}

std::vector<Scenario> smaller_scenarios(const Scenario& s) {
  std::vector<Scenario> out;
  for (std::size_t t = s.parallel.size(); t-- > 0;)
    for (std::size_t i = s.parallel[t].size(); i-- > 0;) {
      Scenario c = s;
      c.parallel[t].erase(c.parallel[t].begin() + static_cast<std::ptrdiff_t>(i));
      if (c.parallel[t].empty()) c.parallel.erase(c.parallel.begin() + static_cast<std::ptrdiff_t>(t));
      out.push_back(std::move(c));
    }
  for (std::size_t i = s.after.size(); i-- > 0;) {
    Scenario c = s;
    c.after.erase(c.after.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(std::move(c));
  }
  for (std::size_t i = s.before.size(); i-- > 0;) {
    Scenario c = s;
    c.before.erase(c.before.begin() + static_cast<std::ptrdiff_t>(i));
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

std::vector<std::unique_ptr<LinObjectInfo>>& lin_objects() {
  static std::vector<std::unique_ptr<LinObjectInfo>> objects;  // filled at static initialisation
  return objects;
}

}  // namespace

bool register_lin_object(LinObjectInfo info) {
  if (info.name.empty()) throw std::invalid_argument("register_lin_object: empty name");
  if (find_lin_object(info.name)) throw std::invalid_argument("register_lin_object: '" + info.name + "' is taken");
  if (!make_spec(info.spec))
    throw std::invalid_argument(fmt::format("register_lin_object: {}: no specification named '{}'", info.name, info.spec));
  lin_objects().push_back(std::make_unique<LinObjectInfo>(std::move(info)));
  return true;
}

std::vector<const LinObjectInfo*> registered_lin_objects() {
  std::vector<const LinObjectInfo*> out;
  for (const auto& o : lin_objects()) out.push_back(o.get());
  std::sort(out.begin(), out.end(), [](const LinObjectInfo* a, const LinObjectInfo* b) { return a->name < b->name; });
  return out;
}

const LinObjectInfo* find_lin_object(std::string_view name) {
  for (const auto& o : lin_objects())
    if (o->name == name) return o.get();
  return nullptr;
}

namespace detail {

ScenarioReport scenario_report(const Scenario& failing, std::size_t original, std::size_t tried,
                               const ModelReport& report, const std::vector<std::string>& names) {
  ScenarioReport r;
  r.ok = false;
  r.scenario = failing;
  r.tried = tried;
  r.original = original;
  r.text = fmt::format("linearizability: a failing scenario, minimised from {} to {} operations ({} scenarios "
                       "explored):\n  {}\n{}",
                       original, failing.size(), tried, format_scenario(failing, names), report.text);
  return r;
}

std::string scenario_object(const Spec& spec) {
  const std::string name(spec.name());
  const std::vector<std::string>& names = spec_names();
  // A built-in's name is the built-in (make_spec's specifications are those); a Spec of
  // one's own is registered under its name, in the place of an earlier one of that name.
  if (std::find(names.begin(), names.begin() + kBuiltinSpecs, name) == names.begin() + kBuiltinSpecs)
    register_spec(std::shared_ptr<const Spec>(&spec, [](const Spec*) {}));
  return name;
}

ExploreOptions scenario_options(const ExploreOptions& explore) {
  ExploreOptions o = explore;
  if (std::find(o.checkers.begin(), o.checkers.end(), "linearizability") == o.checkers.end())
    o.checkers.push_back("linearizability");
  return o;
}

bool cut_short(const ModelReport& report) {
  const ExploreResult& r = report.result;
  return !report.ok && r.error.empty() && r.failures_total() == 0 && !r.any_checker_flagged() &&
         (r.stop == StopReason::max_executions || r.stop == StopReason::time_limit ||
          r.stop == StopReason::interrupted || r.reduction_incomplete);
}

ScenarioReport incomplete_report(const Scenario& s, std::size_t tried, const ModelReport& report,
                                 const std::vector<std::string>& names, const ScenarioReport* failed) {
  ScenarioReport r;
  r.ok = false;
  r.incomplete = failed == nullptr;
  r.scenario = s;
  r.tried = tried;
  r.original = s.size();
  const ExploreResult& e = report.result;
  const std::string why = e.reduction_incomplete ? "a construct the reduction cannot follow"
                          : e.stop == StopReason::time_limit
                              ? "the time limit (ExploreOptions::time_limit_seconds, or ScenarioOptions::time_limit_seconds for all scenarios)"
                          : e.stop == StopReason::interrupted ? "an interrupt"
                                                              : "the budget of executions (ExploreOptions::max_executions)";
  r.text = fmt::format("linearizability: incomplete: a scenario's search was cut short by {} after {} executions, "
                       "with no failure found ({} scenarios explored); widen it to decide:\n  {}\n{}",
                       why, e.executions, tried, format_scenario(s, names), report.text);
  return r;
}

void check_ops(const Spec& spec, const std::vector<std::string>& names) {
  if (names.empty()) throw std::invalid_argument("check_scenarios: no operations");
  for (const std::string& n : names)
    if (std::find(spec.methods().begin(), spec.methods().end(), n) == spec.methods().end())
      throw std::invalid_argument(fmt::format("check_scenarios: the {} specification has no method '{}'", spec.name(), n));
}

}  // namespace detail

}  // namespace atomcheck::lin
