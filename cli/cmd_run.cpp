// `atomcheck list` and `atomcheck run NAME`: explores a registered test program
// (ATOMCHECK_PROGRAM) with the chosen strategy, memory model, limits and checkers and
// prints a summary table (or one JSON object with --json); `--replay SCHEDULE` re-runs
// one execution and prints its trace. Ctrl-C stops the search and prints what was
// explored so far; --checkpoint FILE saves the search's state there (at a stop, Ctrl-C,
// SIGTERM, every --checkpoint-every seconds) and --resume FILE goes on from it
// (cli/checkpoint.hpp). Exit 0 ok, 1 failure or checker violation, 2 bad input, 3 a limit
// cut the search (and nothing was found).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "checkers/linearizability.hpp"
#include "checkers/registry.hpp"
#include "cli/checkpoint.hpp"
#include "scheduler/explore/cluster.hpp"
#include "scheduler/explore/replay_flags.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "scheduler/runtime/crash_report.hpp"
#include "cli/progress.hpp"
#include "cli/report_graph.hpp"
#include "cli/report_html.hpp"
#include "cli/report_rc11_graph.hpp"
#include "cli/report_rc11_html.hpp"
#include "cli/target.hpp"
#include "scheduler/runtime/api.hpp"
#include "specs/litmus.hpp"
#include "specs/spec.hpp"

namespace atomcheck::cli {

namespace {

// The default strategy: what a new user wants is every class once. Exhaustive runs get
// the library's default budget (explore.hpp), so a search stops with exit 3 rather than
// running for days.
constexpr const char* kDefaultStrategy = "optimal";

struct RunArgs {
  std::string name;
  std::vector<std::string> checkers;
  std::uint64_t max_executions = 0;
  double time_limit = 0;
  bool budget_given = false;    // --max-executions or --time-limit: no default budget
  bool max_executions_given = false;
  bool strategy_given = false;  // JSON specs choose DFS where their expectations count schedules
  std::uint64_t max_steps = kDefaultMaxSteps;
  bool max_steps_given = false;  // overrides a JSON spec's own max_steps
  double step_timeout = kDefaultStepTimeout;
  std::uint32_t spin_threshold = kDefaultSpinThreshold;
  bool no_spurious_wakeups = false;
  bool no_loop_reduction = false;
  bool sc_graphs = false;
  bool no_race_check = false;
  bool no_leak_check = false;
  bool reuse_freed = false;
  std::string replay;
  bool replay_given = false;
  std::uint64_t seed = 0;
  bool seed_given = false, pct_depth_given = false;  // litmus tests refuse them
  std::string strategy = kDefaultStrategy;
  unsigned pct_depth = 3;
  int preemption_bound = -1;
  std::uint64_t depth_bound = 0;
  std::string memory = "sc";
  bool memory_given = false;  // JSON specs default to the models their expectations name
  std::size_t stack_kib = 0;
  unsigned jobs = 0;  // not given: jobs_for()
  bool stop_on_failure = false;
  bool json = false;
  bool quiet = false;  // no progress on stderr
  std::string html, dot;  // --replay: report files for the first flagging checker
  std::string checkpoint, resume;  // files; "" when not given
  double checkpoint_every = 0;
  bool checkpoint_every_given = false;
};

// CLI11 has already checked the name against the accepted ones.
StrategyKind strategy_kind(const std::string& name) {
  return strategy_from_name(name).value_or(StrategyKind::dfs);
}

bool sampling(const std::string& strategy) { return strategy == "random" || strategy == "pct"; }

// The search options every path of `run` (registered programs, JSON specs) shares.
// Exhaustive strategies get a default budget unless the user set a limit, so a search
// that would take days stops with exit 3 and says how far it got.
void apply_search_args(const RunArgs& a, ExploreOptions& o, bool default_budget) {
  o.strategy = strategy_kind(a.strategy);
  o.seed = a.seed;
  // A limit the user set replaces both defaults; sampling runs end with their sample
  // count (unset: the default), not with a time budget.
  o.max_executions = a.max_executions;
  if (!a.max_executions_given && sampling(a.strategy)) o.max_executions.reset();
  o.time_limit_seconds = a.time_limit;
  if (default_budget && !a.budget_given && !sampling(a.strategy)) {
    o.max_executions = kDefaultMaxExecutions;
    o.time_limit_seconds = kDefaultTimeLimit;
  }
  o.max_steps = a.max_steps;
  o.step_timeout_seconds = a.step_timeout;
  o.spin_threshold = a.spin_threshold;
  o.spurious_wakeups = !a.no_spurious_wakeups;
  o.loop_reduction = !a.no_loop_reduction;
  o.sc_graphs = a.sc_graphs;
  o.race_check = !a.no_race_check;
  o.leak_check = !a.no_leak_check;
  o.reuse_freed = a.reuse_freed;
  o.stack_size = a.stack_kib * 1024;
  o.pct_depth = a.pct_depth;
  o.preemption_bound = a.preemption_bound;
  o.depth_bound = a.depth_bound;
  o.count_classes = !sampling(a.strategy);
  o.jobs = jobs_for(a.jobs, o.strategy);
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// One line for bad flag combinations, "" when fine.
std::string search_args_error(const RunArgs& a) {
  if (a.preemption_bound >= 0 && a.strategy != "dfs")
    return "--preemption-bound needs --strategy dfs (with DPOR a preemption bound loses classes)";
  if (a.checkpoint_every_given && a.checkpoint.empty()) return "--checkpoint-every needs --checkpoint FILE";
  if (!a.checkpoint.empty() || !a.resume.empty()) {
    const char* flag = a.checkpoint.empty() ? "--resume" : "--checkpoint";
    if (a.replay_given) return fmt::format("{} saves a search; --replay runs one execution", flag);
    if (ends_with(a.name, ".litmus") || ends_with(a.name, ".json"))
      return fmt::format("{} applies to registered programs, not to files", flag);
    // Split samples are N searches with N generators, which one state cannot hold.
    if (a.jobs > 1 && sampling(a.strategy))
      return fmt::format("{} of split samples needs one job; drop --jobs {}", flag, a.jobs);
  }
  if (a.replay_given) {  // one given execution: the options of a search would be ignored
    std::string unused = given_options({{a.strategy_given, "--strategy"},
                                        {a.seed_given, "--seed"},
                                        {a.pct_depth_given, "--pct-depth"},
                                        {a.max_executions_given, "--max-executions"},
                                        {a.time_limit > 0, "--time-limit"},
                                        {a.preemption_bound >= 0, "--preemption-bound"},
                                        {a.jobs > 1, "--jobs"},
                                        {a.stop_on_failure, "--stop-on-failure"}});
    if (!unused.empty()) return "--replay runs the one execution its schedule names; drop " + unused;
  }
  return "";
}

// What a checkpoint must match: every option that changes which executions run or how
// they are tallied. Budgets (--max-executions, --time-limit) only say where a run stops;
// --jobs (optimal's executions are the same for every N: a search saved with one job
// count goes on with any), --step-timeout, --stack-kib and the output flags change
// nothing of the search.
SearchIdentity search_identity(const RunArgs& a) {
  SearchIdentity id;
  id.program = a.name;
  auto flag = [](bool on) { return std::string(on ? "set" : ""); };
  std::string checkers;
  for (const std::string& c : a.checkers) checkers += (checkers.empty() ? "" : ",") + c;
  id.options = {{"--memory", a.memory},
                {"--strategy", a.strategy},
                {"--seed", std::to_string(a.seed)},  // dfs too: it seeds the size estimate
                {"--pct-depth", a.strategy == "pct" ? std::to_string(a.pct_depth) : ""},
                {"--preemption-bound", a.preemption_bound >= 0 ? std::to_string(a.preemption_bound) : ""},
                {"--depth-bound", a.depth_bound ? std::to_string(a.depth_bound) : ""},
                {"--max-steps", std::to_string(a.max_steps)},
                {"--spin-threshold", std::to_string(a.spin_threshold)},
                {"--no-spurious-wakeups", flag(a.no_spurious_wakeups)},
                {"--no-loop-reduction", flag(a.no_loop_reduction)},
                {"--sc-graphs", flag(a.sc_graphs)},
                {"--no-race-check", flag(a.no_race_check)},
                {"--no-leak-check", flag(a.no_leak_check)},
                {"--reuse-freed", flag(a.reuse_freed)},
                // random, pct: the sample count is where the strategy ends, and a sample
                // that ran its course is a finished checkpoint.
                {"--max-executions", sampling(a.strategy) ? std::to_string(a.max_executions_given ? a.max_executions
                                                                                                    : kDefaultSamples)
                                                          : ""},
                {"--checker", checkers},
                {"--stop-on-failure", flag(a.stop_on_failure)}};
  return id;
}

// What `run FILE.litmus` cannot honour, refused rather than ignored: herd's States need an
// exhaustive search, and the litmus output has no checkers or replay (`validate` has).
// The rest is honoured: --time-limit, --max-steps, --jobs and --stack-kib reach the
// search, --json the output; --stop-on-failure is what a litmus run always does (a
// failing execution is an error), and --quiet has no progress line to silence.
std::string litmus_args_error(const RunArgs& a) {
  if (a.strategy != "dfs" && a.strategy != "dpor" && a.strategy != "optimal")
    return fmt::format("litmus tests are explored exhaustively (herd's States need every final "
                       "state); --strategy {} samples: use optimal, dpor or dfs",
                       a.strategy);
  if (a.preemption_bound >= 0 || a.depth_bound > 0)
    return "litmus tests are explored exhaustively; drop --preemption-bound and --depth-bound";
  if (a.max_executions_given && a.max_executions != 0)  // 0, no limit, cuts nothing
    return "litmus tests are explored exhaustively (herd's States need every final state); drop "
           "--max-executions (--time-limit bounds the run)";
  if (!a.checkers.empty())
    return "run does not check litmus tests; use `atomcheck validate FILE.litmus --checker ...`";
  if (a.replay_given)
    return "run does not replay litmus tests; use `atomcheck validate FILE.litmus --replay ...`";
  if (!a.html.empty() || !a.dot.empty()) return "--html and --dot need --replay, which litmus tests do not take";
  if (a.seed_given || a.pct_depth_given) return "--seed and --pct-depth apply to the random and pct strategies only";
  return "";
}

// What `run SPEC.json` cannot honour, refused rather than ignored. Every search option
// reaches the spec's explorations; --quiet has no progress line to silence.
std::string spec_args_error(const RunArgs& a) {
  if (!a.html.empty() || !a.dot.empty())
    return "run does not draw spec executions; drop --html and --dot (`run SPEC.json --replay "
           "SCHEDULE` prints one)";
  if (a.replay_given && a.json) return "run SPEC.json --replay prints text only; drop --json";
  return "";
}

// File targets (`atomcheck run FILE.litmus` / `run SPEC.json`) go to the herd7 litmus
// runner and the JSON spec runner; any other file name is refused clearly.
int run_file_target(const RunArgs& args) {
  if (ends_with(args.name, ".litmus")) {  // herd7 litmus tests (specs/litmus.hpp)
    if (std::string e = litmus_args_error(args); !e.empty()) {
      fmt::print(stderr, "{}: {}\n", args.name, e);
      return kExitBadInput;
    }
    ExploreOptions base = litmus::litmus_defaults();
    apply_search_args(args, base, true);
    SigintScope sigint;  // Ctrl-C: the states found so far, "stopped: interrupted", exit 3
    base.interrupt = SigintScope::flag();
    return litmus::run_litmus_command(args.name, args.memory_given ? args.memory : "", base, args.json);
  }
  if (ends_with(args.name, ".json")) {  // engineer E: JSON program specs (specs/spec.hpp)
    if (std::string e = spec_args_error(args); !e.empty()) {
      fmt::print(stderr, "{}: {}\n", args.name, e);
      return kExitBadInput;
    }
    spec::CliRequest req;
    req.path = args.name;
    req.memory = args.memory_given ? args.memory : "";
    req.checkers = args.checkers;
    req.strategy_given = args.strategy_given;
    apply_search_args(args, req.explore, false);
    req.explore.stop_on_failure = args.stop_on_failure;
    req.max_steps_given = args.max_steps_given;
    req.replay = args.replay_given ? args.replay : "";
    req.json = args.json;
    SigintScope sigint;  // Ctrl-C: the report so far, expectations undecided, exit 3
    req.explore.interrupt = SigintScope::flag();
    return spec::run_spec_cli(req);
  }
  fmt::print(stderr, "{}: running files is not supported by this build of `run`\n", args.name);
  return kExitBadInput;
}

// A checker's note (the linearizability checker's failing history), indented under the
// line that names the checker.
void print_indented(const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    fmt::print("    {}\n", std::string_view(text).substr(at, nl - at));
    at = nl + 1;
  }
}

// `rc11`: with each access's memory order and the write each read read (rc11_note).
std::string describe_event(const Trace& t, const Event& e, bool rc11) {
  const Names& n = t.names;
  std::string what;
  switch (e.op) {
    case Op::read:
      if (e.failed_cas)
        what = fmt::format("failed cas {}: expected {}, saw {}", n.var(e.target), format_value(e.value2),
                           format_value(e.value));
      else
        what = fmt::format("read {} = {}{}", n.var(e.target), format_value(e.value), e.buffered ? " (buffered)" : "");
      break;
    case Op::write: what = fmt::format("write {} = {}", n.var(e.target), format_value(e.value)); break;
    case Op::commit:
      what = fmt::format("commit {} = {} (issued at {})", n.var(e.target), format_value(e.value), e.issue);
      break;
    case Op::rmw:
      what = fmt::format("rmw {}: {} -> {}", n.var(e.target), format_value(e.value), format_value(e.value2));
      break;
    case Op::fence: what = "fence"; break;
    case Op::acquire: what = fmt::format("acquire {}", n.lock(e.target)); break;
    case Op::release: what = fmt::format("release {}", n.lock(e.target)); break;
    case Op::fork: what = fmt::format("fork {}", n.thread(e.target)); break;
    case Op::join: what = fmt::format("join {}", n.thread(e.target)); break;
    case Op::begin:
      what = e.target == kNoId ? "begin" : fmt::format("begin {}", n.label(e.target));
      if (lin::is_operation_code(e.value2) && e.value != lin::kNone) what += fmt::format(" ({})", e.value);
      break;
    case Op::end: what = e.target == kNoId ? "end" : fmt::format("end {}", n.label(e.target)); break;
  }
  return rc11 ? what + rc11_note(e) : what;
}

// `rc11`: with the access's memory order ("order") and the event a read read ("reads",
// null for the initial value).
nlohmann::json event_json(const Trace& t, const Event& e, bool rc11) {
  nlohmann::json j;
  j["op"] = std::string(op_name(e.op));
  j["thread"] = t.names.thread(e.thread);
  if (is_access(e.op)) {
    j["var"] = t.names.var(e.target);
    j["value"] = e.value;
  }
  if (e.op == Op::rmw) j["new"] = e.value2;
  if (e.failed_cas) {  // still op "read" for tools; these say it was a compare-exchange
    j["failed_cas"] = true;
    j["expected"] = e.value2;
  }
  if (e.op == Op::read && e.buffered) j["buffered"] = true;
  if (e.op == Op::commit) j["issue"] = e.issue;
  if (is_lock_op(e.op)) j["lock"] = t.names.lock(e.target);
  if (is_thread_op(e.op)) j["child"] = t.names.thread(e.target);
  if (is_block_op(e.op) && e.target != kNoId) j["label"] = t.names.label(e.target);
  if (rc11 && !order_name(e.order).empty()) {
    j["order"] = std::string(order_name(e.order));
    if (e.op == Op::read || e.op == Op::rmw) j["reads"] = e.issue == kNoEvent ? nlohmann::json() : nlohmann::json(e.issue);
  }
  if (e.loc) j["at"] = t.names.loc(e.loc);
  return j;
}

// The memory model and the flags that shape one execution (replay_flags.hpp), which
// every command that replays one of this run's executions carries.
std::string execution_args(const RunArgs& a) {
  ExploreOptions o;
  apply_search_args(a, o, false);
  return (a.memory != "sc" ? " --memory " + a.memory : std::string()) + replay_flags(o);
}

std::string replay_command(const RunArgs& a, const std::string& schedule) {
  return fmt::format("{} run {} --replay '{}'{}", tool_name(), a.name, schedule, execution_args(a));
}

// How a replayed execution ended, in the words every report uses.
std::string ending_of(const ReplayResult& r) {
  if (r.failed) return fmt::format("failed ({}): {}", failure_kind_name(r.failure.kind), r.failure.message);
  if (r.blocked)
    return "blocked in a wait (spin_until, a yield() loop or a spin), then another thread "
           "changed what it read, or stopped at a failed assume(): the search discards it "
           "(covered by an execution where the read comes later)";
  return "completed";
}

// Under TSO, the stores issued but not committed when the execution failed (the other
// threads run on after a failure, so the buffers drain later) or ended (a bound cut it).
std::vector<std::string> pending_stores(const ReplayResult& r, const std::string& memory) {
  std::vector<std::string> out;
  if (memory != "tso") return out;
  const auto& ev = r.trace.events;
  const std::size_t end = r.failed && r.failure.event < ev.size() ? r.failure.event : ev.size();
  std::vector<bool> committed(ev.size(), false);
  for (std::size_t i = 0; i < end; ++i)
    if (ev[i].op == Op::commit && ev[i].issue < ev.size()) committed[ev[i].issue] = true;
  for (std::size_t i = 0; i < end; ++i)
    if (ev[i].op == Op::write && !committed[i])
      out.push_back(fmt::format("{}: {} = {} (event {})", r.trace.names.thread(ev[i].thread),
                                r.trace.names.var(ev[i].target), ev[i].value, i));
  return out;
}

// --html / --dot: the replayed execution of `schedule` as a page and as a graph, drawn
// for the first checker that flags it (else the first checker). False after printing a
// one-line error when a file cannot be written.
bool write_reports(const RunArgs& a, const std::string& schedule, const ReplayResult& r,
                   const ExploreOptions& options) {
  if (a.html.empty() && a.dot.empty()) return true;
  std::size_t k = 0;
  while (k < r.verdicts.size() && !r.verdicts[k].flags()) ++k;
  if (k == r.verdicts.size()) k = 0;
  Verdict v;
  if (k < r.verdicts.size()) v = report::verdict_on_execution(r.trace, r.verdicts[k]);
  if (k < options.checkers.size()) v.checker = options.checkers[k];
  std::string cmd = replay_command(a, schedule);
  if (!v.checker.empty()) cmd += " --checker " + v.checker;
  std::string error;
  report::HtmlHeader h;
  h.title = a.name;
  h.schedule = schedule;
  h.command = cmd;
  h.ending = ending_of(r);
  h.ending_bad = r.failed;
  h.pending = pending_stores(r, a.memory);
  if (r.failed && r.failure.event < r.trace.events.size() && r.failure.thread != kNoId)
    h.failed_at = fmt::format("T{} failed before event {}; the other threads ran on after it.", r.failure.thread,
                              r.failure.event);
  if (r.failed && r.failure.event != kNoEvent && r.failure.thread != kNoId) {
    h.failure_event = r.failure.event;
    h.failure_thread = r.failure.thread;
    h.failure_message = r.failure.message;
  }
  if (r.failed) {
    h.race_first = r.failure.race_first;
    h.race_second = r.failure.race_second;
  }
  // Under rc11 the picture is the execution graph (po, rf, mo, sw, hb), as GenMC draws it.
  const bool rc11 = options.memory == MemoryModelKind::rc11;
  auto page = [&] { return rc11 ? report::render_rc11_html(r.trace, h) : report::render_html(r.trace, v, h); };
  auto graph = [&] { return rc11 ? report::render_rc11_dot(r.trace, h) : report::render_dot(r.trace, v, h.ending); };
  if ((!a.html.empty() && !report::write_text_file(a.html, page(), error)) ||
      (!a.dot.empty() && !report::write_text_file(a.dot, graph(), error))) {
    fmt::print(stderr, "{}\n", error);
    return false;
  }
  return true;
}

// --html / --dot without --replay: the search's first failure, else the first execution
// a checker flagged, replayed and drawn. A search that found neither draws nothing.
bool write_search_reports(const RunArgs& a, const ProgramInfo& p, const ExploreOptions& options,
                          const ExploreResult& r) {
  if (a.html.empty() && a.dot.empty()) return true;
  std::string schedule;
  if (!r.failures.empty()) schedule = r.failures.front().schedule;
  for (const CheckerSummary& c : r.checkers)
    if (schedule.empty() && c.flagged > 0) schedule = c.first_schedule;
  if (schedule.empty()) {
    fmt::print(stderr, "{}: no failing or flagged execution, so no --html/--dot report was written\n",
               a.name);
    return true;
  }
  ExploreOptions o = options;
  o.interrupt = nullptr;
  o.progress = {};
  ReplayResult replayed;
  try {
    replayed = replay(p.body, schedule, o);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "{}: {}\n", a.name, e.what());
    return false;
  }
  return write_reports(a, schedule, replayed, o);
}

int do_replay(const RunArgs& a, const ProgramInfo& p, const ExploreOptions& options) {
  ReplayResult r;
  try {
    r = replay(p.body, a.replay, options);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "{}: {}\n", a.name, e.what());
    return kExitBadInput;
  }
  bool flagged = false, undecided = false;
  for (const Verdict& v : r.verdicts) {
    flagged |= v.flags();
    undecided |= !v.decided();
  }
  if (!write_reports(a, a.replay, r, options)) return kExitBadInput;
  if (a.json) {
    nlohmann::json j;
    j["program"] = a.name;
    j["schedule"] = a.replay;
    j["memory"] = a.memory;
    j["events"] = nlohmann::json::array();
    for (const Event& e : r.trace.events) j["events"].push_back(event_json(r.trace, e, a.memory == "rc11"));
    // What is no event (a free), placed before the event of index `before`.
    j["notes"] = nlohmann::json::array();
    for (const TraceNote& n : r.trace.notes)
      j["notes"].push_back({{"before", n.before},
                            {"thread", r.trace.names.thread(n.thread)},
                            {"text", n.text},
                            {"at", n.loc ? r.trace.names.loc(n.loc) : std::string()}});
    if (r.failed) {
      j["failure"] = {{"kind", std::string(failure_kind_name(r.failure.kind))},
                      {"message", r.failure.message}};
      // The events before the failure; the failing thread stopped there, the others ran on.
      if (r.failure.event != kNoEvent) j["failure"]["event"] = r.failure.event;
    }
    j["ending"] = r.failed ? "failed" : r.blocked ? "blocked" : "completed";
    j["pending_stores"] = pending_stores(r, a.memory);
    j["outcome"] = format_outcome(r.outcome);
    j["checkers"] = nlohmann::json::array();
    for (std::size_t k = 0; k < r.verdicts.size(); ++k) {
      nlohmann::json c = {{"name", options.checkers[k]},
                          {"serializable", r.verdicts[k].serializable},
                          {"blamed", r.verdicts[k].blamed.size()}};
      if (!r.verdicts[k].decided()) {
        c["serializable"] = nullptr;
        c["undecided"] = r.verdicts[k].undecided;
      }
      j["checkers"].push_back(c);
    }
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("replay of {} with schedule '{}' ({} events)\n", a.name, a.replay,
               r.trace.events.size());
    std::size_t note = 0;
    const auto notes_before = [&](std::size_t i) {  // a free: no event, no step of its own
      for (; note < r.trace.notes.size() && r.trace.notes[note].before <= i; ++note) {
        const TraceNote& n = r.trace.notes[note];
        fmt::print("{:>5}  {:<4} {}{}\n", "", r.trace.names.thread(n.thread), n.text,
                   n.loc ? "  at " + r.trace.names.loc(n.loc) : "");
      }
    };
    for (std::size_t i = 0; i < r.trace.events.size(); ++i) {
      const Event& e = r.trace.events[i];
      notes_before(i);
      if (r.failed && i == r.failure.event && r.failure.thread != kNoId)
        fmt::print("       ---- T{} failed here (below); the other threads ran on ----\n", r.failure.thread);
      std::string line = e.loc ? "  at " + r.trace.names.loc(e.loc) : "";
      fmt::print("{:>5}  {:<4} {}{}\n", i, r.trace.names.thread(e.thread),
                 describe_event(r.trace, e, a.memory == "rc11"), line);
    }
    notes_before(r.trace.events.size());
    if (!r.outcome.empty()) fmt::print("outcome: {}\n", format_outcome(r.outcome));
    // How it ended first, then what the checkers say of it.
    // Pending where the failing thread stopped, which the other threads' later flushes
    // do not change.
    const bool mid = r.failed && r.failure.event < r.trace.events.size() && r.failure.thread != kNoId;
    for (const std::string& p : pending_stores(r, a.memory))
      fmt::print("still in a store buffer{}: {}\n", mid ? fmt::format(" when T{} failed", r.failure.thread) : "", p);
    if (r.failed)
      fmt::print("failure ({}): {}\n", failure_kind_name(r.failure.kind), r.failure.message);
    else
      fmt::print("execution {}\n", ending_of(r));
    for (std::size_t k = 0; k < r.verdicts.size(); ++k) {
      const Verdict& v = r.verdicts[k];
      fmt::print("checker {}: {}\n", options.checkers[k],
                 !v.decided()        ? "undecided: " + v.undecided
                 : !v.serializable   ? std::string(v.checker == "linearizability" ? "not linearizable" : "not serializable")
                 : !v.blamed.empty() ? std::string("atomicity violation blamed")
                                     : std::string("ok"));
      if (v.flags()) print_indented(v.note);
    }
  }
  return r.failed || flagged ? kExitProblem : undecided ? kExitBudget : kExitOk;
}

// A budget, a bound or an incomplete reduction left part of the space unexplored.
bool cut_short(const ExploreResult& r) { return search_end_cut(search_end(r)); }

std::string strategy_label(const RunArgs& a) {
  std::string s = a.strategy;
  if (a.strategy == "random") s += fmt::format(" (seed {})", a.seed);
  if (a.strategy == "pct") s += fmt::format(" (seed {}, depth {})", a.seed, a.pct_depth);
  if (a.preemption_bound >= 0) s += fmt::format("   preemption bound {}", a.preemption_bound);
  if (a.depth_bound > 0) s += fmt::format("   depth bound {}", a.depth_bound);
  return s;
}

}  // namespace

std::string unmarked_spin_note(const ExploreResult& r, const std::string& replay) {
  if (r.unmarked_spins == 0) return {};
  return fmt::format(
      "*** SPIN WITHOUT yield(): {} (in {} execution{}); taken to wait for a change there, as yield() would, "
      "and the result rests on that: write the loop with spin_until or yield() (--spin-threshold) ***\n"
      "*** first such execution: {} ***\n",
      r.unmarked_spin, r.unmarked_spins, r.unmarked_spins == 1 ? "" : "s", replay);
}

namespace {

std::string executions_text(std::uint64_t n) { return fmt::format("{} execution{}", n, n == 1 ? "" : "s"); }

// Says loudly what part of the space was not explored, so nobody mistakes a cut search
// for a proof.
void print_cut_banner(const RunArgs& a, const ExploreResult& r) {
  fmt::print("{}", unmarked_spin_note(r, replay_command(a, r.unmarked_spin_schedule)));
  if (!cut_short(r)) return;
  fmt::print("*** INCOMPLETE SEARCH: {} ***\n", search_end_text(r));
  // The estimate is of the DFS tree: for DPOR, which explores one execution per class,
  // it bounds the work from above and says nothing of how much of it is left.
  if (a.strategy == "dfs")
    fmt::print("*** explored {} of an estimated {:.3g} executions; no result holds for the rest ***\n",
               r.executions, r.estimate);
  else
    fmt::print("*** explored {} (DFS would take about {:.3g}: an upper bound, not {}'s size); no result "
               "holds for the rest ***\n",
               executions_text(r.executions), r.estimate, a.strategy);
}

void print_summary(const RunArgs& a, const ProgramInfo& p, const ExploreResult& r, unsigned jobs) {
  double rate = r.elapsed_seconds > 0 ? static_cast<double>(r.executions) / r.elapsed_seconds : 0;
  fmt::print("program        {}  ({})\n", p.name, p.description);
  fmt::print("memory         {}   strategy {}   jobs {}\n", a.memory, strategy_label(a), jobs);
  const bool graphs = a.memory == "rc11" || (a.memory == "sc" && a.sc_graphs);  // TruSt's summary
  if (r.estimate > 0)
    fmt::print("estimate       {:.3g} executions{}\n", r.estimate,
               a.strategy == "dfs"    ? ""
               : graphs ? " (DFS tree size, reads' choices counted; not a bound: TruSt "
                          "also starts runs it cuts)"
                                    : " (DFS tree size: an upper bound for DPOR)");
  const SearchEnd end = search_end(r);
  fmt::print("executions     {}  ({}{})\n", r.executions,
             end == SearchEnd::exhausted || end == SearchEnd::sampled ? "" : "stopped: ",
             search_end_name(end));
  if (!sampling(a.strategy)) {
    // Under rc11 TruSt's cut runs are revisits the memory model found inconsistent on
    // replay and runs whose wait no write can end: GenMC does not count either.
    fmt::print("blocked        {}   ({} {}, pruned by assume or a wait {})\n", r.sleep_blocked + r.pruned,
               graphs ? "cut: a revisit refused, a wait no write ends" : "sleep-set blocked", r.sleep_blocked,
               r.pruned);
    fmt::print("classes        {} ({})   rf+co classes {}   distinct outcomes {}\n", r.classes,
               equivalence_name(r.equivalence), r.rf_co_classes, r.outcomes.size());
  }
  if (r.bound_cut) fmt::print("depth-cut      {}\n", r.bound_cut);
  fmt::print("completed      {}\n", r.completed);
  fmt::print("failed         {}   deadlocked {}   step-bounded {}{}\n", r.failed, r.deadlocks,
             r.step_bounded, r.pruned ? fmt::format("   pruned {}", r.pruned) : "");
  fmt::print("steps          {}   events {}\n", r.steps, r.events);
  bool named_outcomes = !(r.outcomes.size() == 1 && r.outcomes.begin()->first.empty());
  if (!r.outcomes.empty() && named_outcomes) {
    fmt::print("outcomes       {} distinct\n", r.outcomes.size());
    for (const auto& [o, count] : r.outcomes)
      fmt::print("  {:<40} {}\n", o.empty() ? "(none recorded)" : format_outcome(o), count);
  }
  if (!r.checkers.empty()) {
    fmt::print("checkers\n");
    std::size_t width = 0;
    for (const CheckerSummary& c : r.checkers) width = std::max(width, c.name.size());
    for (const CheckerSummary& c : r.checkers) {
      fmt::print("  {:<{}} flagged {:<8}{}{}\n", c.name, width, c.flagged,
                 c.flagged ? fmt::format(" first: execution {}, schedule '{}'", c.first_execution,
                                         c.first_schedule)
                           : "",
                 c.undecided ? fmt::format("  undecided {} ({})", c.undecided, c.first_undecided) : "");
    }
  }
  if (!r.failures.empty()) {
    fmt::print("failures (first {} of {})\n", r.failures.size(), r.failures_total());
    for (const Failure& f : r.failures) {
      fmt::print("  [{}] {}\n", failure_kind_name(f.kind), f.message);
      fmt::print("      schedule '{}'  ->  {}\n", f.schedule, replay_command(a, f.schedule));
    }
  }
  for (const CheckerSummary& c : r.checkers)
    if (c.flagged) {
      fmt::print("checker {} flagged execution {}  ->  {} --checker {}\n", c.name,
                 c.first_execution, replay_command(a, c.first_schedule), c.name);
      print_indented(c.first_verdict.note);
    }
  fmt::print("elapsed        {:.3f} s   {:.0f} executions/s\n", r.elapsed_seconds, rate);
  print_cut_banner(a, r);
}

void print_json(const RunArgs& a, const ProgramInfo& p, const ExploreResult& r, unsigned jobs) {
  nlohmann::json j;
  j["program"] = p.name;
  j["memory"] = a.memory;
  j["strategy"] = a.strategy;
  j["jobs"] = jobs;
  if (sampling(a.strategy)) j["seed"] = a.seed;
  if (a.strategy == "pct") j["pct_depth"] = a.pct_depth;
  j["preemption_bound"] = a.preemption_bound;
  j["depth_bound"] = a.depth_bound;
  j["executions"] = r.executions;
  j["blocked"] = r.sleep_blocked + r.pruned;
  j["sleep_blocked"] = r.sleep_blocked;
  j["classes"] = r.classes;
  j["rf_co_classes"] = r.rf_co_classes;
  j["equivalence"] = std::string(equivalence_name(r.equivalence));
  j["distinct_outcomes"] = r.outcomes.size();
  j["bounded"] = r.bounded;
  j["bound_cut"] = r.bound_cut;
  j["estimate"] = r.estimate;
  j["complete"] = !cut_short(r) && !sampling(a.strategy);
  j["completed"] = r.completed;
  j["failed"] = r.failed;
  j["deadlocks"] = r.deadlocks;
  j["step_bounded"] = r.step_bounded;
  j["pruned"] = r.pruned;
  j["steps"] = r.steps;
  j["events"] = r.events;
  j["exhausted"] = r.exhausted();
  j["reduction_incomplete"] = r.reduction_incomplete;
  j["stop"] = std::string(search_end_name(search_end(r)));
  j["stop_detail"] = search_end_text(r);
  j["unmarked_spins"] = r.unmarked_spins;
  if (r.unmarked_spins) {
    j["unmarked_spin"] = r.unmarked_spin;
    j["unmarked_spin_schedule"] = r.unmarked_spin_schedule;
  }
  j["outcomes"] = nlohmann::json::array();
  for (const auto& [o, count] : r.outcomes) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [name, value] : o) values[name] = value;
    j["outcomes"].push_back({{"outcome", format_outcome(o)}, {"values", values}, {"count", count}});
  }
  j["checkers"] = nlohmann::json::array();
  for (const CheckerSummary& c : r.checkers)
    j["checkers"].push_back({{"name", c.name},
                             {"flagged", c.flagged},
                             {"undecided", c.undecided},
                             {"first_undecided", c.first_undecided},
                             {"first_schedule", c.first_schedule},
                             {"first_execution", c.first_execution}});
  j["failures"] = nlohmann::json::array();
  for (const Failure& f : r.failures)
    j["failures"].push_back({{"kind", std::string(failure_kind_name(f.kind))},
                             {"message", f.message},
                             {"schedule", f.schedule},
                             {"execution", f.execution}});
  j["elapsed_seconds"] = r.elapsed_seconds;
  j["executions_per_second"] =
      r.elapsed_seconds > 0 ? static_cast<double>(r.executions) / r.elapsed_seconds : 0.0;
  if (!r.error.empty()) j["error"] = r.error;
  fmt::print("{}\n", j.dump(2));
}

int run_command(RunArgs a) {
  if (a.preemption_bound >= 0 && !a.strategy_given) a.strategy = "dfs";
  if (std::string e = search_args_error(a); !e.empty()) {
    fmt::print(stderr, "{}\n", e);
    return kExitBadInput;
  }
  if (ends_with(a.name, ".litmus")) return run_file_target(a);
  if (ends_with(a.name, ".json")) return run_file_target(a);
  if (a.memory == "both") {
    fmt::print(stderr, "--memory both applies to .litmus and .json files only\n");
    return kExitBadInput;
  }
  const ProgramInfo* p = find_program(a.name);
  if (!p) {
    fmt::print(stderr, "{}\n", unknown_program_message(a.name));
    return kExitBadInput;
  }
  ExploreOptions o;
  o.checkers = a.checkers;
  for (const std::string& c : o.checkers) {
    if (!make_checker(c)) {
      fmt::print(stderr, "{}: unknown checker (see `atomcheck checkers`)\n", c);
      return kExitBadInput;
    }
  }
  o.memory = memory_model_from_name(a.memory).value_or(MemoryModelKind::sc);
  if (o.memory == MemoryModelKind::rc11)
    for (const std::string& c : o.checkers)
      if (!checker_judges_rc11(c)) {
        fmt::print(stderr, "atomcheck: --checker {} judges TSO executions; under --memory rc11 the others run "
                           "(see `atomcheck checkers`)\n", c);
        return kExitBadInput;
      }
  apply_search_args(a, o, true);
  if (o.memory == MemoryModelKind::rc11 && o.jobs > 1 && o.strategy == StrategyKind::dfs) {
    if (a.jobs > 1) fmt::print(stderr, "note: --memory rc11 --strategy dfs explores on one thread; --jobs {} ignored\n", a.jobs);
    o.jobs = 1;
  }
  o.stop_on_failure = a.stop_on_failure;
  if (a.replay_given) return do_replay(a, *p, o);

  const SearchIdentity identity = search_identity(a);
  SearchState resume_state;
  if (!a.resume.empty()) {
    if (std::string e = load_checkpoint(a.resume, identity, resume_state); !e.empty()) {
      fmt::print(stderr, "{}: {}: {}\n", tool_name(), a.resume, e);
      return kExitBadInput;
    }
    o.resume = &resume_state;
  }
  // The last write failed: said once on stderr, and the run ends with exit 2.
  bool checkpoint_failed = false;
  bool saved_resumable = false;  // the last write was a state to go on from
  // Its executions: fewer than the summary's when a parallel search stopped inside a
  // unit's runs (docs/checkpoint.md), and the resumed search starts from these.
  std::uint64_t saved_executions = 0;
  if (!a.checkpoint.empty()) {
    // (Under atomcheck-mpi rank 0 alone writes it, and alone probes: the ranks share a
    // file system, and two probes of one FILE.tmp would race.)
    const detail::Cluster* c = detail::cluster();
    if (std::string e = c && c->rank() != 0 ? std::string() : probe_checkpoint_path(a.checkpoint); !e.empty()) {
      fmt::print(stderr, "{}: {}: {}\n", tool_name(), a.checkpoint, e);
      return kExitBadInput;
    }
    o.checkpoint_every = a.checkpoint_every;
    o.checkpoint = [&a, &identity, &checkpoint_failed, &saved_resumable, &saved_executions](const SearchState& st) {
      std::string e = write_checkpoint_file(a.checkpoint, checkpoint_text(identity, st));
      if (!e.empty() && !checkpoint_failed) fmt::print(stderr, "{}: {}: {}\n", tool_name(), a.checkpoint, e);
      checkpoint_failed = !e.empty();
      saved_resumable = e.empty() && !st.finished;
      saved_executions = st.result.executions;
    };
  }

  SigintScope sigint(!a.checkpoint.empty());  // SIGTERM too: a batch system's pre-emption
  o.interrupt = SigintScope::flag();
  // A crash in the body names the command that replays its execution.
  detail::CrashScope crash_report(fmt::format("{} run {}{}", tool_name(), a.name, execution_args(a)), a.step_timeout);
  ProgressDisplay progress(stderr, a.quiet ? ProgressMode::off : ProgressMode::automatic);
  o.progress = progress.callback();
  o.distribute = true;  // atomcheck-mpi: the other ranks share this search
  ExploreResult r;
  try {
    r = explore(p->body, o);
  } catch (const std::invalid_argument& e) {  // a state that does not fit (checked in explore)
    progress.clear();
    fmt::print(stderr, "{}: {}: {}\n", tool_name(), a.resume.empty() ? a.checkpoint : a.resume, e.what());
    return kExitBadInput;
  }
  if (r.reduction_incomplete && !a.strategy_given && !SigintScope::raised() && !o.checkpoint && !o.resume) {
    // The default reduction does not model waits in yield()/assume(); a user who did not
    // ask for it gets the sound search instead of a partial answer.
    fmt::print(stderr,
               "note: {} waits in {}, which DPOR does not model; exploring with --strategy dfs instead\n",
               p->name, r.reduction_incomplete_by);
    a.strategy = "dfs";
    o.strategy = StrategyKind::dfs;
    r = explore(p->body, o);
  }
  progress.clear();
  if (a.json)
    print_json(a, *p, r, o.jobs);
  else
    print_summary(a, *p, r, o.jobs);
  if (!r.error.empty()) {
    fmt::print(stderr, "{}: {}\n", a.name, r.error);
    return kExitBadInput;
  }
  // Where the user stopped a long search, the one thing to know is how to go on.
  if (saved_resumable && cut_short(r))
    fmt::print(stderr, "{}: {}: search saved after {} executions; go on with --resume {} and the same options\n",
               tool_name(), a.checkpoint, saved_executions, a.checkpoint);
  if (!write_search_reports(a, *p, o, r)) return kExitBadInput;
  if (checkpoint_failed) return kExitBadInput;
  if (r.failures_total() > 0 || r.any_checker_flagged()) return kExitProblem;
  if (cut_short(r) || r.any_checker_undecided() || r.unmarked_spins) return kExitBudget;
  return kExitOk;
}

int list_command(bool json) {
  auto programs = registered_programs();
  if (json) {
    nlohmann::json j = nlohmann::json::array();
    for (const ProgramInfo* p : programs)
      j.push_back({{"name", p->name}, {"description", p->description}});
    fmt::print("{}\n", j.dump(2));
    return kExitOk;
  }
  std::size_t width = 0;
  for (const ProgramInfo* p : programs) width = std::max(width, p->name.size());
  for (const ProgramInfo* p : programs) fmt::print("{:<{}}  {}\n", p->name, width, p->description);
  return kExitOk;
}

}  // namespace

void add_run_commands(CLI::App& app, int& rc) {
  auto list_json = std::make_shared<bool>(false);
  CLI::App* list = app.add_subcommand("list", "List the registered test programs");
  list->add_flag("--json", *list_json, "Print one JSON array instead of the table");
  list->callback([list_json, &rc] { rc = list_command(*list_json); });

  auto a = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand(
      "run", "Explore the executions of a registered test program (see `atomcheck list`)");
  run->add_option("name", a->name, "Program name (or a .litmus / .json file)")->required();
  run->add_option("--checker", a->checkers,
                  "Checkers to run on every execution (comma-separated; see `atomcheck checkers`)")
      ->delimiter(',');
  run->add_option("--max-executions", a->max_executions,
                  "Stop after N executions, 0: no limit (random, pct: how many to sample, "
                  "default 1000; exhaustive strategies default to 1000000 or 600 s)")
      ->check(unsigned_integer)
      ->each([a](const std::string&) { a->budget_given = a->max_executions_given = true; });
  run->add_option("--time-limit", a->time_limit, "Stop after SECONDS, 0: no limit")
      ->check(non_negative_seconds)
      ->each([a](const std::string&) { a->budget_given = true; });
  run->add_option("--max-steps", a->max_steps,
                  "Steps per execution before it is reported as not terminating (default 1000)")
      ->check(at_least_one)
      ->each([a](const std::string&) { a->max_steps_given = true; });
  run->add_option("--spin-threshold", a->spin_threshold, kSpinThresholdHelp)->check(unsigned_integer);
  run->add_flag("--no-spurious-wakeups", a->no_spurious_wakeups, kNoSpuriousWakeupsHelp);
  run->add_flag("--no-loop-reduction", a->no_loop_reduction, kNoLoopReductionHelp);
  run->add_flag("--sc-graphs", a->sc_graphs, kScGraphsHelp);
  run->add_flag("--no-race-check", a->no_race_check, kNoRaceCheckHelp);
  run->add_flag("--no-leak-check", a->no_leak_check, kNoLeakCheckHelp);
  run->add_flag("--reuse-freed", a->reuse_freed, kReuseFreedHelp);
  run->add_option("--step-timeout", a->step_timeout,
                  "Seconds a test thread may run without a step before it is reported as hung with its "
                  "schedule, ending the run (exit 3); default 60, 0: never")
      ->check(non_negative_seconds);
  run->add_option("--replay", a->replay, "Re-run exactly the execution with this schedule and print its trace")
      ->each([a](const std::string&) { a->replay_given = true; });
  run->add_option("--strategy", a->strategy,
                  "optimal (default: optimal DPOR, one execution per class), dpor (source-DPOR), "
                  "dfs (every schedule), random or pct (sampling)")
      ->check(CLI::IsMember({"dfs", "dpor", "optimal", "random", "pct"}))
      ->each([a](const std::string&) { a->strategy_given = true; });
  run->add_option("--seed", a->seed, "Seed of the random and pct strategies (and of the estimate)")
      ->check(unsigned_integer)
      ->each([a](const std::string&) { a->seed_given = true; });
  run->add_option("--pct-depth", a->pct_depth, "PCT: the bug depth d targeted (d - 1 change points), default 3")
      ->check(at_least_one)
      ->each([a](const std::string&) { a->pct_depth_given = true; });
  run->add_option("--preemption-bound", a->preemption_bound,
                  "DFS: explore only schedules with at most N preemptions (exit 3 if it cut any)")
      ->check(unsigned_integer);
  run->add_option("--depth-bound", a->depth_bound,
                  "Cut every execution after N steps (not a failure; exit 3 if it cut any)")
      ->check(unsigned_integer);
  run->add_option("--memory", a->memory,
                  "Memory model: sc (sequential consistency), tso (x86-TSO store buffers) or rc11 (the C++ "
                  "memory model, RC11: every memory order honoured, no load buffering, consume = acquire; "
                  "one execution per graph under optimal; every checker but the TSO ones, docs/rc11.md); both = sc and tso, for .litmus "
                  "and .json files. "
                  "Default: sc for programs; a .litmus file's dialect (tso for X86/X86_64, rc11 for C, as "
                  "herd7); a .json spec's expectations")
      ->check(CLI::IsMember({"sc", "tso", "both", "rc11"}))
      ->each([a](const std::string&) { a->memory_given = true; });
  run->add_option("--jobs", a->jobs, kJobsHelp)->check(at_least_one);
  run->add_option("--stack-kib", a->stack_kib, "Fiber stack size in KiB (default 64)")->check(stack_size_kib);
  run->add_flag("--stop-on-failure", a->stop_on_failure, "Stop at the first failing execution");
  run->add_option("--checkpoint", a->checkpoint,
                  "Save the search's state in FILE when it stops (a limit, Ctrl-C, SIGTERM) and every "
                  "--checkpoint-every seconds (docs/checkpoint.md)");
  run->add_option("--checkpoint-every", a->checkpoint_every, "With --checkpoint: also save every SECONDS")
      ->check(non_negative_seconds)
      ->each([a](const std::string&) { a->checkpoint_every_given = true; });
  run->add_option("--resume", a->resume,
                  "Go on from the search saved in FILE (by --checkpoint; the same program and search "
                  "options): the summary is the uninterrupted search's");
  run->add_flag("--json", a->json, "Print one JSON object instead of the table");
  run->add_flag("--quiet", a->quiet, "No progress on stderr (a line redrawn on a terminal, else a line every 10 s)");
  run->add_option("--html", a->html,
                  "Write an execution as a self-contained HTML page: the replayed one, else the "
                  "first failing or flagged one");
  run->add_option("--dot", a->dot,
                  "Write an execution's transaction graph for Graphviz (under rc11 its execution graph: "
                  "po, rf, mo, sw, hb): the replayed one, else the first failing or flagged one");
  run->callback([a, &rc] { rc = run_command(*a); });
}

}  // namespace atomcheck::cli
