// `atomcheck validate TARGET`: explores a program, JSON spec or litmus test and judges
// every selected checker against its judge (CheckerInfo::judge, the exact checker for
// the same questions) on every execution, printing per checker and question a confusion
// matrix over executions (positive = "violation"), the first disagreement with a
// schedule that replays it, and the checker's share of the checker time. Predictive
// checkers are judged after the search: the truth for each execution is whether any
// explored execution was flagged by the judge. Exit 0 every checker agreed with its
// judge, 1 some disagreement, 2 bad input, 3 a budget stopped the search first.
#include <algorithm>
#include <any>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "checkers/registry.hpp"
#include "cli/commands.hpp"
#include "cli/external_checker.hpp"
#include "cli/interrupt.hpp"
#include "cli/minimise.hpp"
#include "cli/progress.hpp"
#include "cli/target.hpp"
#include "cli/validate_core.hpp"
#include "scheduler/explore/replay_flags.hpp"
#include "trace/sc_order.hpp"
#include "trace/trace_io.hpp"
#include "trace/validate.hpp"

namespace atomcheck::cli {

namespace validate_impl {

std::string txn_name(const Trace& t, const TxnRef& r) {
  return fmt::format("{}@{}", t.names.thread(r.thread), r.first);
}

std::string says(const Trace& t, const Instance& in, Question q) {
  if (!in.error.empty()) return "error (" + in.error + ")";
  if (!in.verdict.decided()) return "undecided (" + in.verdict.undecided + ")";
  if (in.external) return positive(in, q) ? "violation" : "no violation";
  if (q == Question::serializability) return in.verdict.serializable ? "serializable" : "not serializable";
  if (in.blamed.empty()) return "blames nothing";
  std::string s = "blames";
  for (std::size_t i = 0; i < in.blamed.size(); ++i) s += (i ? ", " : " ") + txn_name(t, in.blamed[i]);
  return s;
}

// An rc11 execution as its SC trace in `out` (trace/sc_order.hpp), or nullptr when no
// trace orders it.
const Trace* as_sc_trace(const Trace& run, Trace& out) {
  const ScOrder order = sc_order(run);
  if (!order.sc()) return nullptr;
  out = run;
  in_sc_order(run, order, out.events);
  return &out;
}

// Feeds one execution to every instance (commits only to those that read them), timing
// each, and records blamed transactions by their index in the execution so checkers
// fed different event streams compare.
void evaluate(const Trace& trace, std::vector<Instance>& instances) {
  using Clock = std::chrono::steady_clock;
  std::size_t tau_events = 0;
  for (const Event& e : trace.events) tau_events += e.op != Op::commit;
  for (Instance& in : instances) {
    in.left_out = tau_events > in.max_events;
    in.seconds = 0;
    if (in.left_out) continue;
    if (in.external) {
      // One process (or batch answer) per execution; the yes/no answer stands for both
      // questions, and the row compares the one the checker declared.
      ExternalAnswer ans = in.external->check(trace);
      in.verdict = Verdict{};
      in.verdict.serializable = ans.kind != ExternalAnswer::violation;
      if (ans.kind == ExternalAnswer::violation) in.verdict.blamed.push_back(Blame{});
      in.error = ans.kind == ExternalAnswer::error ? ans.detail : "";
      in.trace_file = ans.trace_file;
      in.seconds = ans.seconds;
      in.total_seconds += in.seconds;
      in.blamed.clear();
      continue;
    }
    Checker& c = *in.checker;
    const bool commits = c.wants_commits();
    in.original.clear();
    auto t0 = Clock::now();
    c.reset();
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
      const Event& e = trace.events[i];
      if (e.op == Op::commit && !commits) continue;
      c.on_event(e);
    }
    in.verdict = c.verdict();
    in.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    in.total_seconds += in.seconds;
    for (std::size_t i = 0; i < trace.events.size(); ++i)
      if (trace.events[i].op != Op::commit || commits) in.original.push_back(static_cast<EventIndex>(i));
    in.blamed.clear();
    for (const Blame& b : in.verdict.blamed) {
      TxnRef r = b.txn;
      if (r.first < in.original.size()) r.first = in.original[r.first];
      in.blamed.push_back(r);
    }
    auto less = [](const TxnRef& a, const TxnRef& b) {
      return a.thread != b.thread ? a.thread < b.thread : a.first < b.first;
    };
    std::sort(in.blamed.begin(), in.blamed.end(), less);
    in.blamed.erase(std::unique(in.blamed.begin(), in.blamed.end()), in.blamed.end());
  }
}

// The selected checkers and their judges as instances and rows; names without a
// usable judge go to `skipped`. Returns false (message in `error`) for unknown names.
bool build_rows(const std::vector<std::string>& selected, const std::vector<ExternalSpec>& externals,
                TraceDir* dir, const CheckerOptions& options, bool capped, std::vector<Instance>& instances,
                std::vector<Row>& rows, std::vector<Skipped>& skipped, std::string& error) {
  const auto& catalog = checker_catalog();
  auto info_of = [&](const std::string& name) -> const CheckerInfo* {
    for (const CheckerInfo& i : catalog)
      if (i.name == name) return &i;
    return nullptr;
  };
  auto instance_of = [&](const std::string& name) -> std::size_t {
    for (std::size_t i = 0; i < instances.size(); ++i)
      if (instances[i].name == name) return i;
    Instance in;
    in.name = name;
    in.info = info_of(name);
    in.checker = make_checker(name, options);
    if (capped && is_trace_tso(name)) in.max_events = kQuickTraceTsoEvents;
    instances.push_back(std::move(in));
    return instances.size() - 1;
  };
  for (const std::string& name : selected) {
    const CheckerInfo* info = info_of(name);
    if (!info || !make_checker(name)) {
      error = fmt::format("{}: unknown checker (see `atomcheck checkers`)", name);
      return false;
    }
    if (std::any_of(rows.begin(), rows.end(),
                    [&](const Row& r) { return instances[r.checker].name == name; }))
      continue;
    if (info->judge.empty()) {
      skipped.push_back({name, "an oracle: it is the judge of others"});
      continue;
    }
    const CheckerInfo* judge = info_of(info->judge);
    if (!judge || !make_checker(info->judge)) {
      skipped.push_back({name, fmt::format("its judge '{}' is not registered", info->judge)});
      continue;
    }
    Row row;
    row.predictive = info->predictive;
    auto add = [&row](Question q) {
      QuestionStats stats;
      stats.question = q;
      row.questions.push_back(std::move(stats));
    };
    if (info->serializability && judge->serializability) add(Question::serializability);
    if (info->blame && judge->blame) add(Question::blame);
    if (row.questions.empty()) {
      skipped.push_back({name, fmt::format("its judge '{}' answers none of its questions", info->judge)});
      continue;
    }
    row.checker = instance_of(name);
    row.judge = instance_of(info->judge);
    rows.push_back(std::move(row));
  }
  // External checkers are judged by the oracle of the question they declare.
  for (const ExternalSpec& spec : externals) {
    Row row;
    row.external = true;
    QuestionStats stats;
    stats.question = spec.blame ? Question::blame : Question::serializability;
    row.questions.push_back(std::move(stats));
    row.judge = instance_of("oracle");
    Instance in;
    in.name = spec.name;
    in.external = std::make_shared<ExternalChecker>(spec, *dir);
    instances.push_back(std::move(in));
    row.checker = instances.size() - 1;
    rows.push_back(std::move(row));
  }
  return true;
}


// Counts one decided answer of a row's checker against its judge; true when it is the
// row's first disagreement.
bool tally(const Row& row, QuestionStats& q, const Instance& c, const Instance& j, const Trace& trace,
           std::uint64_t index, std::string_view schedule) {
  if (row.predictive && !j.verdict.decided()) ++q.judge_undecided;
  const bool cp = positive(c, q.question), jp = positive(j, q.question);
  if (row.predictive) {
    std::optional<Disagreement>& first = cp ? q.first_pos : q.first_neg;
    (cp ? q.pos : q.neg) += 1;
    if (!first) first = Disagreement{index, std::string(schedule), says(trace, c, q.question), ""};
    if (jp && !q.witness)
      q.witness = Disagreement{index, std::string(schedule), "", says(trace, j, q.question)};
    return false;
  }
  bool mismatch = false;
  if (q.question == Question::blame && !row.external) {
    auto less = [](const TxnRef& x, const TxnRef& y) {
      return x.thread != y.thread ? x.thread < y.thread : x.first < y.first;
    };
    if (!std::includes(j.blamed.begin(), j.blamed.end(), c.blamed.begin(), c.blamed.end(), less)) ++q.extra;
    if (!std::includes(c.blamed.begin(), c.blamed.end(), j.blamed.begin(), j.blamed.end(), less)) ++q.missing;
  }
  if (cp && jp) {
    ++q.tp;
    if (q.question == Question::blame && !row.external && c.blamed != j.blamed) {
      ++q.set_mismatches;
      mismatch = true;
    }
  } else if (cp) {
    ++q.fp;
  } else if (jp) {
    ++q.fn;
  } else {
    ++q.tn;
  }
  if ((cp != jp || mismatch) && !q.first) {
    q.first = Disagreement{index, std::string(schedule), says(trace, c, q.question), says(trace, j, q.question),
                           std::make_shared<Trace>(trace), c.trace_file};
    return true;
  }
  return false;
}

void judge_execution(MemoryRun& run, const Trace& trace, std::uint64_t index, std::string_view schedule) {
  for (Row& row : run.rows) {
    const Instance& c = run.instances[row.checker];
    const Instance& j = run.instances[row.judge];
    for (QuestionStats& q : row.questions) {
      bool keep = false;
      if (!c.error.empty()) {
        // An error is its own column, never a verdict; the input stays for a rerun.
        keep = ++q.errors <= kKeptErrors;
        if (!q.first_error)
          q.first_error = Disagreement{index, std::string(schedule), says(trace, c, q.question),
                                       j.verdict.decided() ? says(trace, j, q.question) : "",
                                       std::make_shared<Trace>(trace), c.trace_file};
      } else if (c.left_out || j.left_out) {
        ++q.left_out;
      } else if (!c.verdict.decided() || (!row.predictive && !j.verdict.decided())) {
        ++q.undecided;
      } else {
        keep = tally(row, q, c, j, trace, index, schedule);
      }
      if (row.external && !keep && !c.trace_file.empty()) std::remove(c.trace_file.c_str());
    }
  }
}

// Predictive rows: every execution's truth is whether the judge flagged any execution.
void finish_predictive(MemoryRun& run) {
  for (Row& row : run.rows) {
    if (!row.predictive) continue;
    for (QuestionStats& q : row.questions) {
      const bool truth = q.witness.has_value();
      if (!truth && q.judge_undecided > 0) {
        // No violation found, but the judge could not answer on some execution: whether
        // the predictions are false alarms is unknown.
        q.undecided += q.pos + q.neg;
        q.pos = q.neg = 0;
      } else if (truth) {
        q.tp = q.pos;
        q.fn = q.neg;
        if (q.first_neg) {
          q.first = q.first_neg;
          q.first->judge_says = fmt::format("execution {} is a violation", q.witness->execution);
        }
      } else {
        q.fp = q.pos;
        q.tn = q.neg;
        if (q.first_pos) {
          q.first = q.first_pos;
          q.first->judge_says = "no explored execution is a violation";
        }
      }
    }
  }
}

// CLI11 has already checked the name against the accepted ones.
StrategyKind strategy_kind(const std::string& name) {
  return strategy_from_name(name).value_or(StrategyKind::dfs);
}

ExploreOptions base_options(const ValidateArgs& a, const Target& t) {
  ExploreOptions o;
  o.strategy = strategy_kind(a.strategy);
  o.stop_on_failure = false;  // every execution is judged, failing ones included
  o.seed = a.seed;
  // No default budget (0: unlimited) unless the user sets one; random and pct keep their
  // default sample count.
  o.max_executions = a.max_executions;
  if (!a.max_executions_given && (o.strategy == StrategyKind::random || o.strategy == StrategyKind::pct))
    o.max_executions.reset();
  o.time_limit_seconds = a.time_limit;
  o.max_steps = t.max_steps && !a.max_steps_given ? t.max_steps : a.max_steps;
  o.step_timeout_seconds = a.step_timeout;
  o.spin_threshold = a.spin_threshold;
  o.spurious_wakeups = !a.no_spurious_wakeups;
  o.loop_reduction = !a.no_loop_reduction;
  o.sc_graphs = a.sc_graphs;
  o.race_check = !a.no_race_check;
  o.stack_size = a.stack_kib * 1024;
  o.jobs = jobs_for(a.jobs, o.strategy);
  return o;
}

// ---- output ---------------------------------------------------------------------

double share(const MemoryRun& run, const Instance& in) {
  double total = 0;
  for (const Instance& i : run.instances) total += i.total_seconds;
  return total > 0 ? in.total_seconds / total : 0;
}

// A predictive FP is only certain when every execution was explored: a later one could
// have been the violation it predicted.
bool definite_disagreement(const MemoryRun& run, const Row& row, const QuestionStats& q) {
  if (!row.predictive) return !q.agrees();
  return q.fn > 0 || (q.fp > 0 && run.complete);
}

// How to see one answer again: the schedule replayed for explored executions, the
// trace file checked for corpus traces and external checkers (their kept input).
std::string replay_of(const Target& t, const MemoryRun& run, const Row& row, const Disagreement& d) {
  const Instance& c = run.instances[row.checker];
  const std::string& judge = run.instances[row.judge].name;
  if (c.external) {
    const std::string& file = d.kept_file.empty() ? d.schedule : d.kept_file;
    return fmt::format("{} check-trace {} --checker {}{}", tool_name(), shell_quote(file), judge,
                       external_flags(c.external->spec()));
  }
  if (t.kind == "traces") return fmt::format("{} check-trace {} --checker {},{}", tool_name(), shell_quote(d.schedule), c.name, judge);
  return t.replay_command(d.schedule, run.memory) + run.execution_flags + fmt::format(" --checker {},{}", c.name, judge);
}

// The rows left out of some execution for its size, comma-separated.
std::string left_out_names(const std::vector<MemoryRun>& runs) {
  std::vector<std::string> seen;
  std::string names;
  for (const MemoryRun& run : runs)
    for (const Row& row : run.rows) {
      const std::string& n = run.instances[row.checker].name;
      bool any = std::any_of(row.questions.begin(), row.questions.end(), [](const QuestionStats& q) { return q.left_out > 0; });
      if (!any || std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
      seen.push_back(n);
      names += (names.size() ? ", " : "") + n;
    }
  return names;
}

void print_disagreements(const Target& t, const MemoryRun& run) {
  bool header = false;
  for (const Row& row : run.rows) {
    const Instance& c = run.instances[row.checker];
    if (c.external && run.judged > 0)
      fmt::print("  {}: {:.1f} ms per execution (process{})\n", c.name, 1000 * c.total_seconds / run.judged,
                 c.external->spec().batch ? ": batch answers" : " per trace");
    for (const QuestionStats& q : row.questions) {
      for (const std::optional<Disagreement>* d : {&q.first, &q.first_error}) {
        if (!*d) continue;
        if (!header) fmt::print("  first disagreements\n");
        header = true;
        const Disagreement& x = **d;
        fmt::print("    {} / {}: {} {}: {}; {} says {}\n", c.name, question_name(q.question),
                   t.kind == "traces" ? "trace" : "execution", x.execution, x.checker_says,
                   run.instances[row.judge].name, x.judge_says.empty() ? "nothing (no answer to compare)" : x.judge_says);
        if (t.kind == "traces")
          fmt::print("      {}  ->  {}\n", x.schedule, replay_of(t, run, row, x));
        else
          fmt::print("      schedule '{}'  ->  {}\n", x.schedule, replay_of(t, run, row, x));
        if (!x.minimised_file.empty())
          fmt::print("      minimised to {} of {} events: {}\n        ->  {}\n", x.minimised_events,
                     x.trace ? x.trace->events.size() : 0, x.minimised_file, x.minimised_command);
      }
      if (row.predictive && q.first && q.witness)
        fmt::print("      violating execution {}: schedule '{}'  ->  {}\n", q.witness->execution,
                   q.witness->schedule, replay_of(t, run, row, *q.witness));
    }
  }
}

void print_text(const ValidateArgs& a, const Target& t, const std::vector<MemoryRun>& runs,
                const std::vector<Skipped>& skipped, int rc, const std::string& kept_dir) {
  fmt::print("validate {}{}\n", t.name, t.description.empty() ? "" : fmt::format("  ({})", t.description));
  fmt::print("{}; positive = violation; blame compared per execution (some transaction\n"
             "blamed), sets!= counts executions where both blame different transactions\n",
             t.kind == "traces" ? "trace files, each one execution"
                                : fmt::format("strategy {}{}", a.strategy,
                                              a.strategy == "random" ? fmt::format(" (seed {})", a.seed) : ""));
  for (const Skipped& s : skipped) fmt::print("not validated: {} ({})\n", s.name, s.reason);
  if (std::string names = left_out_names(runs); !names.empty())
    fmt::print("left out of executions over {} trace events: {} (exponential; their judge trace-tso-brute takes "
               "seconds beyond); name them with --checker to run them on every execution\n",
               kQuickTraceTsoEvents, names);
  bool any_undecided = false;
  for (const MemoryRun& run : runs)
    for (const Row& row : run.rows)
      for (const QuestionStats& q : row.questions) any_undecided |= q.undecided > 0;
  if (any_undecided)
    fmt::print("undec: executions where the checker or its judge could not answer (budget, --time-limit, "
               "Ctrl-C, solver unknown); never counted as TP/FP/TN/FN\n");
  for (const MemoryRun& run : runs) {
    const ExploreResult& r = run.result;
    if (t.kind == "traces")
      fmt::print("\n{} trace files{}, {} judged, {:.3f} s\n", r.executions,
                 r.stop == StopReason::none ? "" : " (interrupted)", run.judged, r.elapsed_seconds);
    else
      fmt::print("\nmemory {}: {} executions{}, {} judged, {:.3f} s, equivalence {}\n", memory_name(run.memory),
                 r.executions,
                 search_end(r) == SearchEnd::exhausted || search_end(r) == SearchEnd::sampled
                     ? fmt::format(" ({})", search_end_name(search_end(r)))
                     : fmt::format(" (stopped: {})", search_end_text(r)),
                 run.judged, r.elapsed_seconds, equivalence_name(r.equivalence));
    if (run.not_sc > 0)
      fmt::print("{} executions not SC: no trace orders them, so none was judged (each is not conflict "
                 "serializable; docs/rc11.md)\n", run.not_sc);
    fmt::print("{}", unmarked_spin_note(r, t.replay_command(r.unmarked_spin_schedule, run.memory) + run.execution_flags));
    std::size_t width = 7;
    for (const Row& row : run.rows) width = std::max(width, run.instances[row.checker].name.size());
    std::size_t jwidth = 5;
    for (const Row& row : run.rows) jwidth = std::max(jwidth, run.instances[row.judge].name.size());
    // The error column only where external checkers run, so the usual table is unchanged.
    const bool error_column = std::any_of(run.rows.begin(), run.rows.end(), [](const Row& r) { return r.external; });
    fmt::print("  {:<{}}  {:<{}}  {:<15} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6}{} {:>6}  {}\n", "checker", width, "judge",
               jwidth, "question", "TP", "FP", "TN", "FN", "undec", "sets!=",
               error_column ? fmt::format(" {:>6}", "error") : "", "time", "verdict");
    for (const Row& row : run.rows) {
      const Instance& c = run.instances[row.checker];
      bool first_line = true;
      for (const QuestionStats& q : row.questions) {
        std::string verdict = q.agrees()                          ? "agrees"
                              : definite_disagreement(run, row, q) ? "DISAGREES"
                                                                   : "disagrees (search incomplete)";
        if (row.predictive) verdict += " (predictive)";
        if (q.extra || q.missing) verdict += fmt::format(" (blames extra: {}, misses: {})", q.extra, q.missing);
        if (q.left_out) verdict += fmt::format(" (left out of {} executions over {} events)", q.left_out, kQuickTraceTsoEvents);
        fmt::print("  {:<{}}  {:<{}}  {:<15} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6}{} {:>6}  {}\n",
                   first_line ? c.name : "", width, first_line ? run.instances[row.judge].name : "", jwidth,
                   question_name(q.question), q.tp, q.fp, q.tn, q.fn, q.undecided,
                   q.question == Question::blame && !row.predictive && !row.external ? std::to_string(q.set_mismatches)
                                                                                      : "-",
                   error_column ? fmt::format(" {:>6}", row.external ? std::to_string(q.errors) : "-") : "",
                   first_line ? fmt::format("{:.1f}%", 100 * share(run, c)) : "", verdict);
        first_line = false;
      }
    }
    std::vector<std::string> judges;
    for (const Instance& in : run.instances)
      if (std::none_of(run.rows.begin(), run.rows.end(),
                       [&](const Row& row) { return &run.instances[row.checker] == &in; }))
        judges.push_back(fmt::format("{} {:.1f}%", in.name, 100 * share(run, in)));
    if (!judges.empty()) {
      fmt::print("  judges' time:");
      for (const std::string& j : judges) fmt::print(" {}", j);
      fmt::print("\n");
    }
    print_disagreements(t, run);
  }
  if (!kept_dir.empty())
    fmt::print("\ntrace files kept (external checkers' inputs of errors and first disagreements, minimised traces) in {}\n", kept_dir);
  std::size_t rows = 0, disagree = 0;
  for (const MemoryRun& run : runs)
    for (const Row& row : run.rows) {
      ++rows;
      if (std::any_of(row.questions.begin(), row.questions.end(),
                      [](const QuestionStats& q) { return !q.agrees(); }))
        ++disagree;
    }
  fmt::print("\nresult: {} of {} checker runs disagree with their judge (exit {})\n", disagree, rows, rc);
}

nlohmann::json disagreement_json(const Target& t, const MemoryRun& run, const Row& row, const Disagreement& d) {
  return {{"execution", d.execution},
          {"schedule", d.schedule},
          {"replay", replay_of(t, run, row, d)},
          {"minimised_file", d.minimised_file},
          {"minimised_events", d.minimised_events},
          {"minimised_command", d.minimised_command},
          {"checker", d.checker_says},
          {"judge", d.judge_says}};
}

void print_json(const ValidateArgs& a, const Target& t, const std::vector<MemoryRun>& runs,
                const std::vector<Skipped>& skipped, int rc, const std::string& kept_dir) {
  nlohmann::json j;
  if (!kept_dir.empty()) j["external_dir"] = kept_dir;
  j["target"] = t.name;
  j["kind"] = t.kind;
  j["description"] = t.description;
  j["strategy"] = a.strategy;
  if (a.strategy == "random") j["seed"] = a.seed;
  j["blame_comparison"] = "execution";
  j["skipped"] = nlohmann::json::array();
  for (const Skipped& s : skipped) j["skipped"].push_back({{"name", s.name}, {"reason", s.reason}});
  j["left_out_over_events"] = kQuickTraceTsoEvents;
  j["left_out"] = left_out_names(runs);
  j["runs"] = nlohmann::json::array();
  bool agree = true;
  for (const MemoryRun& run : runs) {
    nlohmann::json rj;
    const ExploreResult& r = run.result;
    rj["memory"] = std::string(memory_name(run.memory));
    rj["executions"] = r.executions;
    rj["equivalence"] = std::string(equivalence_name(r.equivalence));
    rj["judged"] = run.judged;
    if (run.memory == MemoryModelKind::rc11) rj["not_sc"] = run.not_sc;
    rj["exhaustive"] = run.complete;
    rj["stop"] = std::string(search_end_name(search_end(r)));
    rj["stop_detail"] = search_end_text(r);
    rj["unmarked_spins"] = r.unmarked_spins;
    rj["elapsed_seconds"] = r.elapsed_seconds;
    double total = 0;
    for (const Instance& in : run.instances) total += in.total_seconds;
    rj["checker_seconds"] = total;
    rj["checkers"] = nlohmann::json::array();
    for (const Row& row : run.rows) {
      const Instance& c = run.instances[row.checker];
      nlohmann::json cj;
      cj["name"] = c.name;
      cj["judge"] = run.instances[row.judge].name;
      cj["predictive"] = row.predictive;
      if (c.external) cj["external"] = c.external->spec().command;
      cj["seconds"] = c.total_seconds;
      cj["time_share"] = share(run, c);
      cj["questions"] = nlohmann::json::array();
      for (const QuestionStats& q : row.questions) {
        nlohmann::json qj;
        qj["question"] = std::string(question_name(q.question));
        qj["tp"] = q.tp;
        qj["fp"] = q.fp;
        qj["tn"] = q.tn;
        qj["fn"] = q.fn;
        qj["undecided"] = q.undecided;
        qj["left_out"] = q.left_out;
        if (q.question == Question::blame && !row.predictive) {
          qj["set_mismatches"] = q.set_mismatches;
          qj["blames_extra"] = q.extra;
          qj["blames_missing"] = q.missing;
        }
        if (row.external) {
          qj["errors"] = q.errors;
          qj["first_error"] = q.first_error ? disagreement_json(t, run, row, *q.first_error) : nlohmann::json(nullptr);
        }
        qj["agrees"] = q.agrees();
        qj["definite"] = definite_disagreement(run, row, q) || q.agrees();
        agree = agree && q.agrees();
        if (row.predictive) {
          qj["truth"] = q.witness.has_value();
          qj["witness"] = q.witness ? disagreement_json(t, run, row, *q.witness) : nlohmann::json(nullptr);
          if (q.witness) {
            qj["witness"].erase("checker");
          }
        }
        qj["first_disagreement"] = q.first ? disagreement_json(t, run, row, *q.first) : nlohmann::json(nullptr);
        cj["questions"].push_back(std::move(qj));
      }
      rj["checkers"].push_back(std::move(cj));
    }
    rj["judges"] = nlohmann::json::array();
    for (const Instance& in : run.instances)
      if (std::none_of(run.rows.begin(), run.rows.end(),
                       [&](const Row& row) { return &run.instances[row.checker] == &in; }))
        rj["judges"].push_back({{"name", in.name}, {"seconds", in.total_seconds}, {"time_share", share(run, in)}});
    j["runs"].push_back(std::move(rj));
  }
  j["agree"] = agree;
  j["exit_code"] = rc;
  fmt::print("{}\n", j.dump(2));
}

int exit_code(const std::vector<MemoryRun>& runs) {
  bool budget = false;
  for (const MemoryRun& run : runs) {
    for (const Row& row : run.rows)
      for (const QuestionStats& q : row.questions)
        if (definite_disagreement(run, row, q)) return kExitProblem;
    budget |= search_end_cut(search_end(run.result)) || run.result.unmarked_spins > 0;
    for (const Row& row : run.rows)
      for (const QuestionStats& q : row.questions) budget |= q.undecided > 0;
  }
  return budget ? kExitBudget : kExitOk;
}

std::string event_text(const Trace& t, const Event& e) {
  const Names& n = t.names;
  std::string s = fmt::format("{:<4} {}", n.thread(e.thread), op_name(e.op));
  if (is_access(e.op) || e.op == Op::commit) s += fmt::format(" {} = {}", n.var(e.target), e.value);
  if (e.op == Op::rmw) s += fmt::format(" -> {}", e.value2);
  if (e.op == Op::read && e.buffered) s += " (buffered)";
  if (is_lock_op(e.op)) s += " " + n.lock(e.target);
  if (is_thread_op(e.op)) s += " " + n.thread(e.target);
  if (is_block_op(e.op) && e.target != kNoId) s += " " + n.label(e.target);
  return s;
}

// Prints the runs and says where the external checkers' inputs are; the exit code.
int report(const ValidateArgs& a, const Target& target, std::vector<MemoryRun>& runs,
           const std::vector<Skipped>& skipped, TraceDir& dir, const CheckerOptions& copt) {
  if (a.minimise) minimise_disagreements(a, dir, copt, runs);
  std::string kept_dir;
  std::error_code ec;
  if (dir.made() && !std::filesystem::is_empty(dir.path(), ec)) kept_dir = dir.path();
  const int rc = exit_code(runs);
  if (a.json)
    print_json(a, target, runs, skipped, rc, kept_dir);
  else
    print_text(a, target, runs, skipped, rc, kept_dir);
  return rc;
}

// `validate --traces DIR`: the files instead of a search.
int validate_corpus(const ValidateArgs& a, Target& target, std::vector<Instance> instances, std::vector<Row> rows,
                    const std::vector<Skipped>& skipped, TraceDir& dir, const CheckerOptions& copt) {
  if (a.replay_given || a.memory != "sc") {
    fmt::print(stderr, "--traces judges the files as they are; drop --replay and --memory\n");
    return kExitBadInput;
  }
  MemoryRun run;
  run.instances = std::move(instances);
  run.rows = std::move(rows);
  std::string error;
  if (!judge_corpus(a.traces, run, error)) {
    fmt::print(stderr, "{}\n", error);
    return kExitBadInput;
  }
  target.description = fmt::format("{} trace files, labelled by the judges", run.judged);
  std::vector<MemoryRun> runs;
  runs.push_back(std::move(run));
  return report(a, target, runs, skipped, dir, copt);
}

// `validate TARGET --replay S`: one execution, every selected checker beside its judge.
int do_replay(const ValidateArgs& a, const Target& t, std::vector<Instance>& instances, std::vector<Row>& rows) {
  if (a.memory == "both") {
    fmt::print(stderr, "--replay needs one memory model (--memory sc, tso or rc11)\n");
    return kExitBadInput;
  }
  if (a.json) {  // refused rather than ignored: the replay report is text only
    fmt::print(stderr, "validate --replay prints text only; drop --json\n");
    return kExitBadInput;
  }
  ExploreOptions o = base_options(a, t);
  o.memory = memory_model_from_name(a.memory).value_or(MemoryModelKind::sc);
  ReplayResult r;
  try {
    r = replay(t.program, a.replay, o);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "{}: --replay {}: {}\n", t.name, a.replay, e.what());
    return kExitBadInput;
  }
  evaluate(r.trace, instances);
  for (const Instance& in : instances)
    if (!in.trace_file.empty() && in.error.empty()) std::remove(in.trace_file.c_str());
  fmt::print("replay of {} with schedule '{}' ({} events)\n", t.name, a.replay, r.trace.events.size());
  for (std::size_t i = 0; i < r.trace.events.size(); ++i)
    fmt::print("{:>5}  {}\n", i, event_text(r.trace, r.trace.events[i]));
  if (r.failed) fmt::print("failure ({}): {}\n", failure_kind_name(r.failure.kind), r.failure.message);
  bool disagree = false, undecided = false;
  for (const Row& row : rows) {
    const Instance& c = instances[row.checker];
    const Instance& j = instances[row.judge];
    for (const QuestionStats& q : row.questions) {
      const bool decided = c.verdict.decided() && j.verdict.decided();
      bool same = positive(c, q.question) == positive(j, q.question) &&
                  (q.question == Question::serializability || c.blamed == j.blamed);
      if (!row.predictive) disagree |= decided && !same;
      undecided |= !decided;
      fmt::print("{} / {}: {}; {} says {}{}\n", c.name, question_name(q.question), says(r.trace, c, q.question),
                 j.name, says(r.trace, j, q.question),
                 row.predictive ? "  (predictive: judged against every execution by `validate`)"
                 : !decided     ? "  (undecided)"
                 : same         ? "  (agree)"
                                : "  (DISAGREE)");
    }
  }
  return disagree ? kExitProblem : undecided ? kExitBudget : kExitOk;
}

int validate_command(const ValidateArgs& a) {
  Target target;
  std::string error;
  std::vector<ExternalSpec> externals;
  if (!parse_externals(a.ext, externals, error)) {
    fmt::print(stderr, "{}\n", error);
    return kExitBadInput;
  }
  if (a.traces.empty() == a.target.empty()) {
    fmt::print(stderr, "validate needs one of TARGET and --traces DIR\n");
    return kExitBadInput;
  }
  if (!a.traces.empty()) {
    target.name = a.traces;
    target.kind = "traces";
  } else if (!resolve_target(a.target, target, error)) {
    fmt::print(stderr, "{}\n", error);
    return kExitBadInput;
  }
  std::vector<std::string> selected = a.checkers;
  const bool capped = selected.empty() && !a.replay_given;
  // Named external checkers are what is validated, unless --checker adds built-in ones.
  if (selected.empty() && externals.empty())
    for (const CheckerInfo& i : checker_catalog()) {
      // Linearizability judges the operations a program declares, not its transactions:
      // validated when named.
      if (i.name.rfind("linearizability", 0) == 0) continue;
      if (target.kind != "traces" || !i.predictive) selected.push_back(i.name);
    }
  TraceDir dir(a.ext.dir);
  // Ctrl-C and --time-limit reach inside the checkers (an exponential decider stops
  // with an undecided verdict instead of holding the search).
  SigintScope sigint;
  CheckerOptions copt;
  copt.deadline = Deadline::after(a.time_limit, SigintScope::flag());
  if (a.memory != "both") copt.memory = static_cast<std::uint8_t>(memory_model_from_name(a.memory).value_or(MemoryModelKind::sc));
  // Under rc11 the checkers but linearizability read each SC execution as its SC trace
  // (trace/sc_order.hpp): the TSO ones do not run, and linearizability, which reads the
  // run's trace, is validated apart.
  bool rc11_sc_traces = false;
  if (a.memory == "rc11") {
    if (a.checkers.empty())
      std::erase_if(selected, [](const std::string& name) { return !checker_judges_rc11(name); });
    std::size_t lin = 0;
    for (const std::string& name : selected) {
      if (!checker_judges_rc11(name)) {
        fmt::print(stderr, "{}: judges TSO executions; under --memory rc11 validate the others\n", name);
        return kExitBadInput;
      }
      lin += checker_reads_rc11_trace(name);
    }
    if (lin > 0 && lin < selected.size()) {
      fmt::print(stderr, "under --memory rc11 validate linearizability apart from the other checkers "
                         "(it reads the run's trace, they the SC trace)\n");
      return kExitBadInput;
    }
    rc11_sc_traces = lin == 0;
  }
  std::vector<Instance> proto_instances;
  std::vector<Row> proto_rows;
  std::vector<Skipped> skipped;
  if (!build_rows(selected, externals, &dir, copt, capped, proto_instances, proto_rows, skipped, error)) {
    fmt::print(stderr, "{}\n", error);
    return kExitBadInput;
  }
  if (target.kind == "traces")
    return validate_corpus(a, target, std::move(proto_instances), std::move(proto_rows), skipped, dir, copt);
  std::vector<MemoryRun> runs;
  if (a.replay_given) {
    // One given execution: the options of a search would be ignored.
    std::string unused = given_options({{a.strategy != "dfs", "--strategy"},
                                        {a.seed != 0, "--seed"},
                                        {a.max_executions_given, "--max-executions"},
                                        {a.time_limit > 0, "--time-limit"},
                                        {a.jobs > 1, "--jobs"}});
    if (!unused.empty()) {
      fmt::print(stderr, "--replay runs the one execution its schedule names; drop {}\n", unused);
      return kExitBadInput;
    }
    return do_replay(a, target, proto_instances, proto_rows);
  }

  std::vector<MemoryModelKind> memories;
  if (a.memory == "sc" || a.memory == "both") memories.push_back(MemoryModelKind::sc);
  if (a.memory == "tso" || a.memory == "both") memories.push_back(MemoryModelKind::tso);
  if (a.memory == "rc11") memories.push_back(MemoryModelKind::rc11);

  ProgressDisplay progress(stderr, a.quiet ? ProgressMode::off : ProgressMode::automatic);
  for (MemoryModelKind m : memories) {
    MemoryRun run;
    run.memory = m;
    copt.memory = static_cast<std::uint8_t>(m);  // what "precedes" means to linearizability
    std::vector<Skipped> ignored;
    build_rows(selected, externals, &dir, copt, capped, run.instances, run.rows, ignored, error);
    ExploreOptions o = base_options(a, target);
    o.memory = m;
    run.execution_flags = replay_flags(o, target.max_steps ? target.max_steps : kDefaultMaxSteps);
    o.distribute = true;  // atomcheck-mpi: the other ranks share this search
    o.interrupt = SigintScope::flag();
    o.progress = progress.callback();
    // The checkers and judges run in the thread that ran the execution (with --jobs, a
    // worker), each thread on its own instances; the search's thread tallies in order.
    o.make_prepare = [&]() -> Prepare {
      auto mine = std::make_shared<std::vector<Instance>>();
      std::vector<Row> rows;
      std::vector<Skipped> ignored;
      std::string unused;
      build_rows(selected, externals, &dir, copt, capped, *mine, rows, ignored, unused);
      return [mine, sc_traces = rc11_sc_traces && m == MemoryModelKind::rc11](const ExecutionView& v, std::any& out) {
        if (v.failure == nullptr && v.outcome == nullptr) return;
        Trace sc;
        const Trace* t = sc_traces ? as_sc_trace(*v.trace, sc) : v.trace;
        if (!t) return;  // not SC: not judged
        evaluate(*t, *mine);
        std::vector<Answer> got;
        got.reserve(mine->size());
        for (Instance& in : *mine) got.push_back(std::move(static_cast<Answer&>(in)));
        out = std::move(got);
      };
    };
    if (memories.size() > 1) progress.set_label(fmt::format("{}: ", memory_name(m)));
    try {
      run.result = explore(target.program, o, [&](const ExecutionView& v) {
        // Pruned by assume, or a DPOR execution the sleep set marks redundant.
        auto* got = v.prepared ? std::any_cast<std::vector<Answer>>(v.prepared) : nullptr;
        if ((v.failure == nullptr && v.outcome == nullptr) || v.sleep_blocked) {
          // Answered by a worker but not judged: an external checker's input goes.
          if (got)
            for (const Answer& ans : *got)
              if (!ans.trace_file.empty()) std::remove(ans.trace_file.c_str());
          return;
        }
        Trace sc;
        const Trace* t = rc11_sc_traces && m == MemoryModelKind::rc11 ? as_sc_trace(*v.trace, sc) : v.trace;
        if (!t) {
          ++run.not_sc;
          return;
        }
        ++run.judged;
        if (got && got->size() == run.instances.size()) {
          for (std::size_t k = 0; k < got->size(); ++k) {
            Instance& in = run.instances[k];
            static_cast<Answer&>(in) = std::move((*got)[k]);
            in.total_seconds += in.seconds;
          }
        } else {
          evaluate(*t, run.instances);
        }
        judge_execution(run, *t, v.index, v.schedule);
      });
    } catch (const std::invalid_argument& e) {
      progress.clear();
      fmt::print(stderr, "{}: {}\n", target.name, e.what());
      return kExitBadInput;
    }
    progress.clear();
    if (!run.result.error.empty()) {
      fmt::print(stderr, "{}: {}\n", target.name, run.result.error);
      return kExitBadInput;
    }
    run.complete = run.result.exhausted() && !run.result.bounded && o.strategy != StrategyKind::random &&
                   o.strategy != StrategyKind::pct;
    finish_predictive(run);
    runs.push_back(std::move(run));
    if (SigintScope::raised()) break;
  }
  return report(a, target, runs, skipped, dir, copt);
}

}  // namespace validate_impl

using validate_impl::ValidateArgs;
using validate_impl::validate_command;

void add_validate_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Judge checkers against their exact judges on every explored execution (confusion matrix per checker)");
  cmd->add_option("target", a->target,
                  "Registered program name, JSON spec (.json) or herd7 litmus test (.litmus); not with --traces");
  cmd->add_option("--traces", a->traces,
                  "Judge the trace files (STD, or JSONL by name) of DIR instead of exploring a target; labels "
                  "by the judges (the oracle), predictive checkers left out");
  cmd->add_option("--checker", a->checkers,
                  "Checkers to validate (comma-separated; default: every registered checker with a judge but "
                  "linearizability, which is validated when named)")
      ->delimiter(',');
  cmd->add_option("--memory", a->memory, "Memory model: sc, tso, both or rc11 (every checker but the TSO ones, each SC execution read as its SC trace; default sc)")
      ->check(CLI::IsMember({"sc", "tso", "both", "rc11"}));
  cmd->add_option("--strategy", a->strategy, "dfs (default), dpor, random, optimal or pct")
      ->check(CLI::IsMember({"dfs", "dpor", "random", "optimal", "pct"}));
  cmd->add_option("--seed", a->seed, "Seed of the random strategies")->check(unsigned_integer);
  cmd->add_option("--max-executions", a->max_executions, "Stop after N executions (random: the sample size)")
      ->check(unsigned_integer)
      ->each([a](const std::string&) { a->max_executions_given = true; });
  cmd->add_option("--time-limit", a->time_limit, "Stop after SECONDS")->check(non_negative_seconds);
  cmd->add_option("--max-steps", a->max_steps,
                  "Steps per execution before it is reported as not terminating (default 1000)")
      ->check(at_least_one)
      ->each([a](const std::string&) { a->max_steps_given = true; });
  cmd->add_option("--spin-threshold", a->spin_threshold, kSpinThresholdHelp)->check(unsigned_integer);
  cmd->add_flag("--no-spurious-wakeups", a->no_spurious_wakeups, kNoSpuriousWakeupsHelp);
  cmd->add_flag("--no-loop-reduction", a->no_loop_reduction, kNoLoopReductionHelp);
  cmd->add_flag("--sc-graphs", a->sc_graphs, kScGraphsHelp);
  cmd->add_flag("--no-race-check", a->no_race_check, kNoRaceCheckHelp);
  cmd->add_option("--step-timeout", a->step_timeout,
                  "Seconds a test thread may run without a step before it is reported as hung (exit 3); "
                  "default 60, 0: never")
      ->check(non_negative_seconds);
  cmd->add_option("--stack-kib", a->stack_kib, "Fiber stack size in KiB")->check(stack_size_kib);
  cmd->add_option("--jobs", a->jobs, kJobsHelp)->check(at_least_one);
  cmd->add_option("--replay", a->replay,
                  "Re-run one execution and print each checker's answer beside its judge's")
      ->each([a](const std::string&) { a->replay_given = true; });
  cmd->add_flag("--json", a->json, "Print one JSON object instead of the matrix");
  cmd->add_flag("--minimise", a->minimise,
                "Shrink each first disagreement and first error by delta debugging (transactions, then events), "
                "write the smallest trace and print the command that shows it");
  cmd->add_option("--minimise-budget", a->minimise_budget,
                  "Checker runs per minimised disagreement (default 2000)")
      ->check(at_least_one);
  add_external_options(*cmd, a->ext);
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr (a line redrawn on a terminal, else a line every 10 s)");
  cmd->footer(
      "Positive means \"violation\". Each checker is compared with its judge (`atomcheck checkers`)\n"
      "on every execution; predictive checkers with whether any explored execution is a\n"
      "violation. Blame is compared per execution (some transaction blamed); executions where\n"
      "both blame but different transactions are counted as sets!= and are disagreements.\n"
      "Progress is shown on stderr when it is a terminal and the search takes over a second.\n"
      "An external checker (--external) is judged by the oracle of its --external-question; its\n"
      "crashes, timeouts and unreadable answers are counted in the error column, never as a\n"
      "verdict, and their trace files are kept (the report says where).\n\n"
      "Exit codes: 0 every checker agreed with its judge, 1 some checker disagreed or failed (the matrix\n"
      "says which; replay the schedule shown), 2 bad input or usage, 3 a budget (--max-executions,\n"
      "--time-limit, Ctrl-C) stopped the search before it finished.");
  cmd->callback([a, &rc] { rc = validate_command(*a); });
}

}  // namespace atomcheck::cli
