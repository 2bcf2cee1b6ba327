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
// Recording adds no scheduling point: a call and a return are noted where the thread runs,
// so the explorer's classes (and counts) are those of the object alone. The real-time order
// is that of the explored execution; an order between a return and a call that no visible
// operation fixes is taken as the explorer ran it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "api.hpp"
#include "model.hpp"
#include "../checkers/linearizability.hpp"

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
  detail::CallSite at_;
  LabelId label_ = kNoId;
  std::int64_t arg2_ = kNone;
  std::int64_t result_ = kNone;
};

// The history of one execution, recorded by the threads that call the object.
class Recorder {
 public:
  explicit Recorder(const Spec& spec) : spec_(spec) {}
  // Runs `run` as the calling thread's operation `method` (a name of the specification's
  // methods) with its arguments; its return value is the operation's result (kNone for
  // an operation without one).
  template <class Run>
  std::int64_t call(std::string_view method, std::int64_t arg, std::int64_t arg2, Run&& run) {
    const std::size_t i = begin(method, arg, arg2);
    const std::int64_t result = run();
    end(i, result);
    return result;
  }
  template <class Run>
  std::int64_t call(std::string_view method, std::int64_t arg, Run&& run) {
    return call(method, arg, kNone, std::forward<Run>(run));
  }
  const History& history() const { return history_; }
  // Fails the execution (atomcheck::check) with the shortest failing prefix of the history
  // when it is not linearizable. Call it from the body once every thread has joined.
  void check() const;

 private:
  std::size_t begin(std::string_view method, std::int64_t arg, std::int64_t arg2);
  void end(std::size_t i, std::int64_t result);
  const Spec& spec_;
  History history_;
  std::uint64_t clock_ = 0;
};

// One operation of the object under test: its name in the specification, how to run it
// on the object, and the range its argument is drawn from (no argument when lo > hi).
template <class Object>
struct Op {
  std::string method;
  std::function<std::int64_t(Object&, std::int64_t)> run;
  std::int64_t lo = 1, hi = 0;
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
};

// The verdict of check_scenarios: ok, or the report of the first failing scenario, shrunk.
struct ScenarioReport {
  bool ok = true;
  std::string text;        // the scenario with its operations, then the execution's report
  Scenario scenario;       // the (minimised) failing scenario
  std::size_t tried = 0;   // scenarios explored, shrinking included
  std::size_t original = 0;  // operations of the failing scenario before shrinking
};

// "before: push(1) | T1: push(2) pop() | T2: pop() | after: pop()".
std::string format_scenario(const Scenario& s, const std::vector<std::string>& names);
// Random scenarios of the given shape, deterministic in the seed.
Scenario random_scenario(std::uint64_t seed, const ScenarioOptions& options,
                         const std::vector<std::pair<std::int64_t, std::int64_t>>& arg_ranges);
// The scenarios one operation smaller, in Lincheck's order (the last thread's last
// operation first, then the parts around it).
std::vector<Scenario> smaller_scenarios(const Scenario& s);

// Explores `scenario` on a fresh Object per execution and checks every history.
template <class Object>
ModelReport check_scenario(const Spec& spec, const std::vector<Op<Object>>& ops, const Scenario& scenario,
                           const ExploreOptions& explore) {
  Program body = [&spec, &ops, &scenario] {
    Object object;
    Recorder rec(spec);
    auto run = [&](const Step& s) {
      const Op<Object>& op = ops[s.op];
      rec.call(op.method, s.arg, [&] { return op.run(object, s.arg); });
    };
    for (const Step& s : scenario.before) run(s);
    std::vector<thread> threads;
    for (const std::vector<Step>& part : scenario.parallel)
      threads.push_back(thread([&run, &part] {  // constructed here: the spawn site reports name
        for (const Step& s : part) run(s);
      }));
    for (thread& t : threads) t.join();
    for (const Step& s : scenario.after) run(s);
    rec.check();
  };
  return check_model(body, explore);
}

namespace detail {
ScenarioReport scenario_report(const Scenario& failing, std::size_t original, std::size_t tried,
                               const ModelReport& report, const std::vector<std::string>& names);
void check_ops(const Spec& spec, const std::vector<std::string>& names);
}  // namespace detail

// Runs `options.scenarios` random scenarios of the object's operations against the named
// built-in specification (make_spec) or a Spec of one's own, and shrinks the first that fails.
template <class Object>
ScenarioReport check_scenarios(const Spec& spec, const std::vector<Op<Object>>& ops,
                               const ScenarioOptions& options = {}) {
  std::vector<std::string> names;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  for (const Op<Object>& op : ops) {
    names.push_back(op.method);
    ranges.push_back({op.lo, op.hi});
  }
  detail::check_ops(spec, names);
  ScenarioReport out;
  for (std::uint32_t k = 0; k < options.scenarios; ++k) {
    Scenario s = random_scenario(options.seed + k, options, ranges);
    ModelReport r = check_scenario(spec, ops, s, options.explore);
    ++out.tried;
    if (r.ok) continue;
    const std::size_t original = s.size();
    // Shrink greedily to a fixed point: keep any one-smaller scenario that still fails.
    for (bool smaller = options.minimise; smaller;) {
      smaller = false;
      for (const Scenario& t : smaller_scenarios(s)) {
        ModelReport rt = check_scenario(spec, ops, t, options.explore);
        ++out.tried;
        if (!rt.ok) {
          s = t;
          r = rt;
          smaller = true;
          break;
        }
      }
    }
    ScenarioReport failed = detail::scenario_report(s, original, out.tried, r, names);
    return failed;
  }
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
