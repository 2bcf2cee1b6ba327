// `atomcheck run SPEC.json`: loads the spec, runs it under the requested memory models,
// prints the summary or JSON, or replays one schedule and prints that execution's trace.
// Kept beside the spec code so the CLI's dispatch is one call.
#include <algorithm>
#include <cstdio>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "checkers/registry.hpp"
#include "specs/spec.hpp"

namespace atomcheck::spec {

namespace {

std::string event_text(const Trace& t, const Event& e) {
  std::string who = t.names.thread(e.thread);
  switch (e.op) {
    case Op::read:
      return fmt::format("{} read {} = {}{}", who, t.names.var(e.target), e.value, e.buffered ? " (own buffer)" : "");
    case Op::write: return fmt::format("{} write {} = {}", who, t.names.var(e.target), e.value);
    case Op::commit: return fmt::format("{} commit {} = {}", who, t.names.var(e.target), e.value);
    case Op::rmw: return fmt::format("{} rmw {}: {} -> {}", who, t.names.var(e.target), e.value, e.value2);
    case Op::fence: return fmt::format("{} fence", who);
    case Op::acquire: return fmt::format("{} acquire {}", who, t.names.lock(e.target));
    case Op::release: return fmt::format("{} release {}", who, t.names.lock(e.target));
    case Op::fork: return fmt::format("{} fork {}", who, t.names.thread(e.target));
    case Op::join: return fmt::format("{} join {}", who, t.names.thread(e.target));
    case Op::begin:
      return fmt::format("{} begin{}", who, e.target == kNoId ? "" : " " + t.names.label(e.target));
    case Op::end: return fmt::format("{} end", who);
  }
  return who;
}

nlohmann::json report_json(const Spec& spec, const RunReport& report) {
  nlohmann::json j;
  j["spec"] = spec.file;
  j["name"] = spec.name;
  j["models"] = nlohmann::json::array();
  for (const ModelReport& m : report.models) {
    nlohmann::json mj;
    mj["memory"] = std::string(memory_model_name(m.memory));
    mj["strategy"] = m.strategy;
    mj["executions"] = m.result.executions;
    mj["completed"] = m.result.completed;
    mj["failed"] = m.result.failures_total();
    mj["cut_by_assume"] = m.result.pruned;
    mj["exhaustive"] = m.exhaustive;
    if (!m.error.empty()) mj["error"] = m.error;
    mj["outcomes"] = nlohmann::json::array();
    for (const auto& [o, n] : m.outcomes) mj["outcomes"].push_back({{"outcome", o}, {"executions", n}});
    mj["checkers"] = nlohmann::json::array();
    for (const CheckerSummary& c : m.result.checkers)
      mj["checkers"].push_back({{"name", c.name},
                                {"flagged", c.flagged},
                                {"undecided", c.undecided},
                                {"first_undecided", c.first_undecided},
                                {"first_schedule", c.first_schedule}});
    mj["expectations"] = nlohmann::json::array();
    for (const ExpectationResult& e : m.expectations)
      mj["expectations"].push_back({{"expectation", e.what},
                                    {"holds", e.holds},
                                    {"undecided", e.inconclusive},
                                    {"detail", e.detail},
                                    {"line", e.origin.pos.line},
                                    {"column", e.origin.pos.col},
                                    {"pointer", e.origin.pointer}});
    j["models"].push_back(std::move(mj));
  }
  j["ok"] = report.all_hold();
  j["exit_code"] = report.exit_code();
  return j;
}

}  // namespace

int run_spec_cli(const CliRequest& req) {
  Spec spec;
  try {
    spec = load_spec(req.path);
  } catch (const SpecError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  for (const std::string& c : req.checkers) {
    if (!make_checker(c)) {
      fmt::print(stderr, "{}: unknown checker (see `atomcheck checkers`)\n", c);
      return 2;
    }
  }
  RunOptions options;
  options.extra_checkers = req.checkers;
  options.explore = req.explore;
  options.max_steps_given = req.max_steps_given;
  if (req.strategy_given) options.strategy = req.explore.strategy;
  options.stop_on_failure = req.explore.stop_on_failure;
  if (req.memory == "sc") options.memories = {MemoryModelKind::sc};
  else if (req.memory == "tso") options.memories = {MemoryModelKind::tso};
  else if (req.memory == "rc11") options.memories = {MemoryModelKind::rc11};
  else if (req.memory == "both") options.memories = {MemoryModelKind::sc, MemoryModelKind::tso};
  else if (!req.memory.empty()) {
    fmt::print(stderr, "--memory {}: expected sc, tso, rc11 or both\n", req.memory);
    return 2;
  }

  if (!req.replay.empty()) {
    ExploreOptions eo = req.explore;
    eo.memory = req.memory == "tso"    ? MemoryModelKind::tso
                : req.memory == "rc11" ? MemoryModelKind::rc11
                                       : MemoryModelKind::sc;
    if (req.memory == "both") {
      fmt::print(stderr, "--replay needs one memory model (--memory sc, tso or rc11)\n");
      return 2;
    }
    eo.checkers = req.checkers;
    if (spec.max_steps && !req.max_steps_given) eo.max_steps = spec.max_steps;
    Program program = spec_program(spec, eo.memory == MemoryModelKind::rc11);
    ReplayResult r;
    try {
      r = replay(program, req.replay, eo);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: --replay {}: {}\n", req.path, req.replay, e.what());
      return 2;
    }
    for (std::size_t i = 0; i < r.trace.events.size(); ++i)
      fmt::print("{:>4}  {}\n", i, event_text(r.trace, r.trace.events[i]));
    if (r.failed) fmt::print("failed: {}\n", r.failure.message);
    else fmt::print("outcome: {}\n", format_outcome(r.outcome));
    for (const Verdict& v : r.verdicts) {
      std::string what;
      if (v.answers_serializability) what = v.serializable ? "serializable" : "not serializable";
      if (v.answers_blame)
        what += fmt::format("{}{} transaction(s) blamed", what.empty() ? "" : ", ", v.blamed.size());
      if (!v.decided()) what = "undecided: " + v.undecided;
      fmt::print("checker {}: {}\n", v.checker, what);
    }
    bool undecided = std::any_of(r.verdicts.begin(), r.verdicts.end(), [](const Verdict& v) { return !v.decided(); });
    return r.failed ? 1 : undecided ? 3 : 0;
  }

  RunReport report = run_spec(spec, options);
  if (req.json) fmt::print("{}\n", report_json(spec, report).dump(2));
  else fmt::print("{}", format_report(spec, report));
  return report.exit_code();
}

}  // namespace atomcheck::spec
