// Linearizability tests of a concurrent object, Lincheck's way: declare the object's
// operations once, and atomcheck generates small scenarios (operations before, a parallel
// part of threads × operations, operations after), explores each exhaustively, records the
// history of every execution and checks it against a sequential specification
// (checkers/linearizability.hpp). A failing scenario is shrunk, one operation at a time,
// to one that still fails, and reported with the execution that shows it.
//
//   using S = Stack<atomcheck::model_types>;
//   const std::vector<atomcheck::lin::Op<S>> ops = {
//       {"push", [](S& s, std::int64_t v) { s.push(int(v)); return atomcheck::lin::kNone; }, 1, 3},
//       {"pop", [](S& s, std::int64_t) { return s.pop(); }}};
//   EXPECT_LINEARIZABLE(atomcheck::lin::check_scenarios<S>("stack", ops, {.threads = 2}));
//
// A scenario records its operations as `operation` blocks and is judged by the panel's
// `linearizability` checker, so every route (the panel, scenarios, `lincheck`, `validate`)
// reads one recording under one rule of what precedes what for the memory model explored
// (docs/linearizability.md "What precedes means"). Recording adds no scheduling point.
#pragma once

#include <cstdint>
#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <memory>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "../runtime/api.hpp"
#include "model.hpp"
#include "../../checkers/linearizability.hpp"

namespace atomcheck::lin {

// One operation of a concurrent object in a program explored with the panel's
// `linearizability` checker (`atomcheck run MODEL --checker linearizability`,
// ExploreOptions::checkers): an atomic block labelled "OBJECT.METHOD" whose begin and end
// events carry the operation (checkers/linearizability.hpp OperationCode), so that every
// execution's trace holds its history. `object` is a specification's name ("stack") or
// "NAME:SPEC" for one of several objects of a program ("left:stack", "right:stack").
//
//   int pop() {
//     atomcheck::lin::operation op("stack", "pop");
//     ...
//     return op.returns(v);  // kNone for "empty"
//   }
//
// It adds no scheduling point, so the explorer's classes are those of the object alone.
// An unknown specification or method fails the execution with a usage error.
class operation {
 public:
  operation(std::string_view object, std::string_view method, std::int64_t arg = kNone, std::int64_t arg2 = kNone,
            std::source_location loc = std::source_location::current());
  operation(const operation&) = delete;
  operation& operator=(const operation&) = delete;
  ~operation();
  // Records the result (the end event carries it) and hands it back.
  std::int64_t returns(std::int64_t result) {
    result_ = result;
    return result;
  }

 private:
  ::atomcheck::detail::CallSite at_;  // not lin::detail (lin_search.hpp has one)
  LabelId label_ = kNoId;
  std::int64_t arg2_ = kNone;
  std::int64_t result_ = kNone;
};

// One operation of the object under test: its name in the specification, how to run it
// on the object, the range its argument is drawn from (no argument when lo > hi), and its
// role: operations of one non-empty `group` are called by one thread of the parallel part
// only (Lincheck's non-parallel groups: an SPSC ring's "producer" and "consumer").
template <class Object>
struct Op {
  std::string method;
  std::function<std::int64_t(Object&, std::int64_t)> run;
  std::int64_t lo = 1, hi = 0;
  std::string group{};
};

// A scenario: indices into the operations with their arguments, in three parts.
struct Step {
  std::uint32_t op = 0;
  std::int64_t arg = kNone;
};
struct Scenario {
  std::vector<Step> before;
  std::vector<std::vector<Step>> parallel;  // one list per thread
  std::vector<Step> after;
  std::size_t size() const;
};

struct ScenarioOptions {
  std::uint32_t threads = 2;
  std::uint32_t ops_per_thread = 2;
  std::uint32_t ops_before = 0;
  std::uint32_t ops_after = 0;
  std::uint32_t scenarios = 20;  // random scenarios explored
  std::uint64_t seed = 1;
  bool minimise = true;
  ExploreOptions explore{};  // per scenario (default: optimal DPOR under SC)
  // All the scenarios' time, shrinking included (0: none); a scenario it cuts is
  // reported incomplete.
  double time_limit_seconds = 0;
};

// The verdict of check_scenarios: ok; or the report of the first failing scenario, shrunk;
// or, when no scenario failed but a budget, a time limit or an interrupt cut one's search,
// `incomplete` with that scenario, what cut it and how to widen it (not ok: nothing was
// proved of it, and nothing is shrunk).
struct ScenarioReport {
  bool ok = true;
  bool incomplete = false;
  std::string text;        // the scenario with its operations, then the execution's report
  Scenario scenario;       // the (minimised) failing scenario
  std::size_t tried = 0;   // scenarios explored, shrinking included
  std::size_t original = 0;  // operations of the failing scenario before shrinking
};

// "before: push(1) | T1: push(2) pop() | T2: pop() | after: pop()".
std::string format_scenario(const Scenario& s, const std::vector<std::string>& names);
// Random scenarios of the given shape, deterministic in the seed. `groups` (one per
// operation, "" for none): the k-th group met is called by parallel thread k mod threads
// only; before and after, on the main thread, any operation.
Scenario random_scenario(std::uint64_t seed, const ScenarioOptions& options,
                         const std::vector<std::pair<std::int64_t, std::int64_t>>& arg_ranges,
                         const std::vector<std::string>& groups = {});
// The scenarios one operation smaller, in Lincheck's order (the last thread's last
// operation first, then the parts around it).
std::vector<Scenario> smaller_scenarios(const Scenario& s);

namespace detail {
// The name `operation` records the scenario's operations under: the specification's, which
// is registered first when it is a Spec of one's own (register_spec).
std::string scenario_object(const Spec& spec);
// `explore` with the panel's linearizability checker added.
ExploreOptions scenario_options(const ExploreOptions& explore);
ScenarioReport scenario_report(const Scenario& failing, std::size_t original, std::size_t tried,
                               const ModelReport& report, const std::vector<std::string>& names);
void check_ops(const Spec& spec, const std::vector<std::string>& names);
// Is the report a search cut short (by a budget, the time limit or an interrupt) that
// found nothing, rather than a failure?
bool cut_short(const ModelReport& report);
// The report of a scenario cut short; `failed` is the failing scenario reported with it,
// if any.
ScenarioReport incomplete_report(const Scenario& s, std::size_t tried, const ModelReport& report,
                                 const std::vector<std::string>& names, const ScenarioReport* failed);
}  // namespace detail

// Explores `scenario` on a fresh Object per execution, each operation an `operation`
// block, and judges every execution with the panel's linearizability checker.
template <class Object>
ModelReport check_scenario(const Spec& spec, const std::vector<Op<Object>>& ops, const Scenario& scenario,
                           const ExploreOptions& explore) {
  const std::string object = detail::scenario_object(spec);
  Program body = [&object, &ops, &scenario] {
    Object o;
    auto run = [&](const Step& s) {
      const Op<Object>& op = ops[s.op];
      operation rec(object, op.method, s.arg);
      rec.returns(op.run(o, s.arg));
    };
    for (const Step& s : scenario.before) run(s);
    std::vector<thread> threads;
    for (const std::vector<Step>& part : scenario.parallel)
      threads.push_back(thread([&run, &part] {  // constructed here: the spawn site reports name
        for (const Step& s : part) run(s);
      }));
    for (thread& t : threads) t.join();
    for (const Step& s : scenario.after) run(s);
  };
  return check_model(body, detail::scenario_options(explore));
}

// Runs `options.scenarios` random scenarios of the object's operations against the named
// built-in specification (make_spec) or a Spec of one's own, and shrinks the first that fails.
template <class Object>
ScenarioReport check_scenarios(const Spec& spec, const std::vector<Op<Object>>& ops,
                               const ScenarioOptions& options = {}) {
  std::vector<std::string> names, groups;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  for (const Op<Object>& op : ops) {
    names.push_back(op.method);
    groups.push_back(op.group);
    ranges.push_back({op.lo, op.hi});
  }
  detail::check_ops(spec, names);
  const auto start = std::chrono::steady_clock::now();
  // Each exploration gets what is left of the scenarios' time limit.
  auto explore = [&](const Scenario& s) {
    ExploreOptions o = options.explore;
    if (options.time_limit_seconds > 0) {
      const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double left = std::max(options.time_limit_seconds - spent, 1e-3);
      o.time_limit_seconds = o.time_limit_seconds > 0 ? std::min(o.time_limit_seconds, left) : left;
    }
    return check_scenario(spec, ops, s, o);
  };
  ScenarioReport out;
  std::optional<std::pair<Scenario, ModelReport>> cut;  // the first scenario cut short
  for (std::uint32_t k = 0; k < options.scenarios; ++k) {
    Scenario s = random_scenario(options.seed + k, options, ranges, groups);
    ModelReport r = explore(s);
    ++out.tried;
    if (r.ok) continue;
    if (detail::cut_short(r)) {
      if (!cut) cut.emplace(s, std::move(r));
      continue;
    }
    const std::size_t original = s.size();
    // Shrink greedily to a fixed point: keep any one-smaller scenario that still fails (one
    // cut short is not known to fail).
    for (bool smaller = options.minimise; smaller;) {
      smaller = false;
      for (const Scenario& t : smaller_scenarios(s)) {
        ModelReport rt = explore(t);
        ++out.tried;
        if (!rt.ok && !detail::cut_short(rt)) {
          s = t;
          r = std::move(rt);
          smaller = true;
          break;
        }
      }
    }
    ScenarioReport failed = detail::scenario_report(s, original, out.tried, r, names);
    if (cut) failed.text += "\n" + detail::incomplete_report(cut->first, out.tried, cut->second, names, &failed).text;
    return failed;
  }
  if (cut) return detail::incomplete_report(cut->first, out.tried, cut->second, names, nullptr);
  out.text = "linearizable in " + std::to_string(out.tried) + " scenarios";
  return out;
}

template <class Object>
ScenarioReport check_scenarios(std::string_view spec_name, const std::vector<Op<Object>>& ops,
                               const ScenarioOptions& options = {}) {
  std::unique_ptr<Spec> spec = make_spec(spec_name);
  if (!spec) throw std::invalid_argument("check_scenarios: no specification named '" + std::string(spec_name) + "'");
  return check_scenarios(*spec, ops, options);
}

// A concurrent object registered for the command line (`atomcheck lincheck NAME`): its
// name, the specification it is checked against, one line for the listing, and its
// scenarios run with the options the command gives.
struct LinObjectInfo {
  std::string name;
  std::string spec;
  std::string description;
  std::function<ScenarioReport(const ScenarioOptions&)> check;
};

// Adds an object to the registry (static initialisation, ATOMCHECK_LIN_OBJECT); throws
// std::invalid_argument for an empty or taken name or an unknown specification.
bool register_lin_object(LinObjectInfo info);
// The registered objects, by name.
std::vector<const LinObjectInfo*> registered_lin_objects();
const LinObjectInfo* find_lin_object(std::string_view name);

template <class Object>
bool register_lin_object(std::string name, std::string spec, std::string description, std::vector<Op<Object>> ops) {
  const std::string spec_name = spec;
  return register_lin_object(LinObjectInfo{
      std::move(name), std::move(spec), std::move(description),
      [spec_name, ops = std::move(ops)](const ScenarioOptions& o) { return check_scenarios<Object>(spec_name, ops, o); }});
}

}  // namespace atomcheck::lin

// Registers Object's operations under NAME for `atomcheck lincheck NAME`, checked against
// the built-in specification SPEC: ATOMCHECK_LIN_OBJECT(treiber, "treiber-stack", "stack",
// "a Treiber stack", Stack, {{"push", ..., 1, 3}, {"pop", ...}}); in a binary that calls
// atomcheck::cli_main.
#define ATOMCHECK_LIN_OBJECT(id, name, spec, description, Object, ...)                      \
  static const bool atomcheck_lin_object_##id = ::atomcheck::lin::register_lin_object<Object>( \
      name, spec, description, std::vector<::atomcheck::lin::Op<Object>> __VA_ARGS__)
