// model() and check_model(): explore, pick the execution to show (the first failure,
// else the first execution a checker flagged), replay it for its events and names, and
// render the report a test runner prints. Environment overrides are parsed here.
#include "scheduler/explore/model.hpp"
#include "scheduler/explore/replay_flags.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>  // also program_invocation_short_name (glibc)
#include <csignal>
#include <signal.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/core.h>

namespace atomcheck {

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

bool parse_u64(const char* name, const char* text, std::uint64_t& out, std::string& error) {
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(text, &end, 10);
  if (*text < '0' || *text > '9' || *end != '\0' || errno == ERANGE) {
    error = fmt::format("{}='{}': expected a non-negative integer", name, text);
    return false;
  }
  out = v;
  return true;
}

// "1 execution", "2 executions".
std::string executions(std::uint64_t n) { return fmt::format("{} execution{}", n, n == 1 ? "" : "s"); }

TestNameSource test_name_source = nullptr;

// The test a report is from, for ATOMCHECK_REPORT_FILE: GoogleTest's current test when
// atomcheck/gtest.hpp is linked in, else the registered program, else the binary.
std::string test_name(std::string_view program) {
  if (test_name_source)
    if (std::string t = test_name_source(); !t.empty()) return t;
  if (!program.empty()) return std::string(program);
  return program_invocation_short_name;
}

// A non-negative number of seconds (fractions allowed); `hint` ends the error message.
bool parse_seconds(const char* name, const char* text, const char* hint, double& out, std::string& error) {
  errno = 0;
  char* end = nullptr;
  double s = std::strtod(text, &end);
  if (*end != '\0' || errno == ERANGE || !(s >= 0)) {
    error = fmt::format("{}='{}': expected a non-negative number of seconds{}", name, text, hint);
    return false;
  }
  out = s;
  return true;
}

std::string memory_name(MemoryModelKind m) { return std::string(memory_model_name(m)); }

std::string describe_event_plain(const Trace& t, const Event& e) {
  const Names& n = t.names;
  switch (e.op) {
    case Op::read:
      if (e.failed_cas)
        return fmt::format("failed cas {}: expected {}, saw {}", n.var(e.target), format_value(e.value2),
                           format_value(e.value));
      return fmt::format("read {} = {}{}", n.var(e.target), format_value(e.value), e.buffered ? " (own buffer)" : "");
    case Op::write: return fmt::format("write {} = {}", n.var(e.target), format_value(e.value));
    case Op::commit:
      return fmt::format("flush {} = {} (write #{})", n.var(e.target), format_value(e.value), e.issue);
    case Op::rmw:
      return fmt::format("rmw {}: {} -> {}", n.var(e.target), format_value(e.value), format_value(e.value2));
    case Op::fence: return "fence";
    case Op::acquire: return fmt::format("lock {}", n.lock(e.target));
    case Op::release: return fmt::format("unlock {}", n.lock(e.target));
    case Op::fork: return fmt::format("spawn {}", n.thread(e.target));
    case Op::join: return fmt::format("join {}", n.thread(e.target));
    case Op::begin: return e.target == kNoId ? "begin" : fmt::format("begin {}", n.label(e.target));
    case Op::end: return e.target == kNoId ? "end" : fmt::format("end {}", n.label(e.target));
  }
  return "?";
}

// `rc11`: with each access's memory order and the write each read read (rc11_note).
std::string describe_event(const Trace& t, const Event& e, bool rc11) {
  std::string what = describe_event_plain(t, e);
  if (rc11) what += rc11_note(e);
  return what;
}

// One line per event, one column per thread. A TSO flush is a line of its own in the
// column of the thread whose buffer it drains, marked "flush". A failed execution marks
// where its thread failed (`failure`): the other threads ran on after it.
std::string render_columns(const Trace& t, const Failure* failure = nullptr, bool rc11 = false) {
  ThreadId threads = 0;
  // A started thread has a column even without events of its own (blocked from its start
  // on a lock the failing thread still holds), as has a thread that failed before any.
  for (const Event& e : t.events)
    threads = std::max({threads, e.thread + 1, e.op == Op::fork ? e.target + 1 : ThreadId{0}});
  if (failure && failure->thread != kNoId) threads = std::max(threads, failure->thread + 1);
  std::vector<std::string> what(t.events.size());
  std::vector<std::size_t> width(threads, 0);
  for (ThreadId th = 0; th < threads; ++th) width[th] = t.names.thread(th).size();
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    what[i] = describe_event(t, t.events[i], rc11);
    width[t.events[i].thread] = std::max(width[t.events[i].thread], what[i].size());
  }
  std::string out = "   step | ";
  for (ThreadId th = 0; th < threads; ++th)
    out += fmt::format("{:<{}} | ", t.names.thread(th), width[th]);
  out += "at\n   -----+-";
  for (ThreadId th = 0; th < threads; ++th) {
    out.append(width[th], '-');
    out += "-+-";
  }
  out += "-----\n";
  // A note (a free) is a row without a step number of its own, before the step it precedes.
  std::size_t note = 0;
  const auto notes_before = [&](std::size_t i) {
    for (; note < t.notes.size() && t.notes[note].before <= i; ++note) {
      const TraceNote& n = t.notes[note];
      out += "        | ";
      for (ThreadId th = 0; th < threads; ++th)
        out += fmt::format("{:<{}} | ", th == n.thread ? n.text : "", width[th]);
      if (n.loc) out += t.names.loc(n.loc);
      while (!out.empty() && out.back() == ' ') out.pop_back();
      out += '\n';
    }
  };
  for (const TraceNote& n : t.notes)
    if (n.thread < threads) width[n.thread] = std::max(width[n.thread], n.text.size());
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    notes_before(i);
    if (failure && failure->event == i && failure->thread != kNoId)
      out += fmt::format("   ---- {} failed here; the other threads ran on\n", t.names.thread(failure->thread));
    out += fmt::format("   {:>4} | ", i);
    for (ThreadId th = 0; th < threads; ++th)
      out += fmt::format("{:<{}} | ", th == e.thread ? what[i] : "", width[th]);
    if (e.loc) out += t.names.loc(e.loc);
    // No trailing blanks: a test runner's diff of the text stays readable.
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += '\n';
  }
  notes_before(t.events.size());
  if (failure && failure->event >= t.events.size() && failure->thread != kNoId)
    out += fmt::format("   ---- {} failed here, at the end\n", t.names.thread(failure->thread));
  std::vector<bool> ran(threads, false);
  for (const Event& e : t.events) ran[e.thread] = true;
  for (ThreadId th = 0; th < threads; ++th)
    if (!ran[th] && !(failure && failure->thread == th))
      out += fmt::format("   {} ran no operation of its own (blocked from its start, e.g. on a lock the "
                         "failing thread holds)\n", t.names.thread(th));
  return out;
}

// A transaction named by its thread and first event, in the execution's numbering:
// checkers number the trace without commits, the columns number the execution.
std::string describe_verdict(const Trace& execution, const Verdict& v) {
  std::vector<EventIndex> index;
  for (EventIndex i = 0; i < execution.events.size(); ++i)
    if (execution.events[i].op != Op::commit) index.push_back(i);
  auto txn = [&](const TxnRef& r) {
    EventIndex at = r.first < index.size() ? index[r.first] : r.first;
    return fmt::format("{}@{}", execution.names.thread(r.thread), at);
  };
  if (!v.decided()) return "undecided: " + v.undecided;
  // Its note says it all: the object, the shortest failing history, what ordered it.
  if ((v.checker == "linearizability" || v.checker == "linearizability-oracle") && !v.serializable && !v.note.empty())
    return v.note;
  std::string out;
  if (!v.serializable) {
    out = v.checker == "linearizability-oracle" ? "not linearizable" : "not serializable";
    if (!v.cycle.empty()) {
      out += ", cycle ";
      for (const CycleEdge& e : v.cycle) out += fmt::format("{} -> ", txn(e.from));
      out += txn(v.cycle.front().from);
    }
  }
  if (!v.blamed.empty()) {
    out += out.empty() ? "blames " : "; blames ";
    for (std::size_t k = 0; k < v.blamed.size(); ++k)
      out += fmt::format("{}{}", k ? ", " : "", txn(v.blamed[k].txn));
  }
  if (!v.note.empty()) out += fmt::format(" ({})", v.note);
  return out;
}


// The C++ expression that replays `schedule` with the options that shape its execution
// (replay_flags.hpp says which), each named when it is not the default.
std::string replay_call(const std::string& schedule, const ExploreOptions& o) {
  std::vector<std::string> fields;
  // Designated initializers, in ExploreOptions' member order, or the call does not compile.
  if (o.memory != MemoryModelKind::sc)
    fields.push_back(fmt::format(".memory = atomcheck::MemoryModelKind::{}", memory_model_name(o.memory)));
  if (o.max_steps != kDefaultMaxSteps) fields.push_back(fmt::format(".max_steps = {}", o.max_steps));
  if (o.spin_threshold != kDefaultSpinThreshold)
    fields.push_back(fmt::format(".spin_threshold = {}", o.spin_threshold));
  if (!o.spurious_wakeups) fields.push_back(".spurious_wakeups = false");
  if (!o.loop_reduction) fields.push_back(".loop_reduction = false");
  if (o.sc_graphs && o.memory == MemoryModelKind::sc) fields.push_back(".sc_graphs = true");
  if (!o.race_check) fields.push_back(".race_check = false");
  if (!o.leak_check) fields.push_back(".leak_check = false");
  if (o.reuse_freed) fields.push_back(".reuse_freed = true");
  if (!o.checkers.empty()) {
    std::string list;
    for (const std::string& c : o.checkers) list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", c);
    fields.push_back(fmt::format(".checkers = {{{}}}", list));
  }
  if (o.depth_bound) fields.push_back(fmt::format(".depth_bound = {}", o.depth_bound));
  std::string call = fmt::format("atomcheck::replay(body, \"{}\"", schedule);
  if (!fields.empty()) {
    call += ", {";
    for (std::size_t k = 0; k < fields.size(); ++k) call += fmt::format("{}{}", k ? ", " : "", fields[k]);
    call += "}";
  }
  call += ")";
  // Declared sets are data, not a literal a report can print; the verdicts of the
  // atomic-set checkers rest on them.
  if (!o.checkers.empty() && o.checker_options.atomic_sets != AtomicSets{})
    call += "   (with the test's checker_options.atomic_sets)";
  return call;
}

// ATOMCHECK_MEMORY is the one variable that shapes an execution. It is named whenever the
// model is not SC, as the model may have come from the environment of the run that failed
// (CI's ATOMCHECK_MEMORY=tso), which a rerun need not have; and whenever the environment
// changed the test's own model, back to SC included.
std::string rerun_environment(const ExploreOptions& o, MemoryModelKind test_memory) {
  if (o.memory == MemoryModelKind::sc && test_memory == MemoryModelKind::sc) return {};
  return fmt::format("ATOMCHECK_MEMORY={} ", memory_model_name(o.memory));
}

std::string cli_line(const std::string& schedule, const ExploreOptions& o, std::string_view name) {
  std::string line = fmt::format("run {} --replay '{}'", name.empty() ? "NAME" : name, schedule);
  if (o.memory != MemoryModelKind::sc) line += fmt::format(" --memory {}", memory_model_name(o.memory));
  if (!o.checkers.empty()) {
    line += " --checker ";
    for (std::size_t k = 0; k < o.checkers.size(); ++k) line += fmt::format("{}{}", k ? "," : "", o.checkers[k]);
  }
  line += replay_flags(o);
  if (name.empty())
    line += "   (NAME: the body registered with ATOMCHECK_PROGRAM, in a binary calling atomcheck::cli_main)";
  else
    line += "   (in a binary calling atomcheck::cli_main with the program registered)";
  return line;
}

// The program's registered name, if `body` is a registered program's function.
std::string registered_name(const Program& body) {
  if (const auto* fn = body.target<void (*)()>())
    for (const ProgramInfo* p : registered_programs())
      if (p->body == *fn) return p->name;
  return {};
}

void append_to_file(const std::string& path, const std::string& text, std::string& report, std::string_view program) {
  std::ofstream f(path, std::ios::app);
  f << "==== " << test_name(program) << " ====\n" << text << '\n';
  f.flush();
  if (!f) report += fmt::format("(could not append this report to ATOMCHECK_REPORT_FILE={})\n", path);
}

// The execution of `schedule` as columns plus how to get it again. `test_memory`: the
// model the test itself asked for, before the environment's override.
std::string execution_block(const Program& body, const ExploreOptions& o, const std::string& schedule,
                            std::string_view name, const ReplayResult* replayed, MemoryModelKind test_memory) {
  std::string out;
  ReplayResult again;
  if (!replayed) {
    try {
      again = replay(body, schedule, o);
      replayed = &again;
    } catch (const std::exception& e) {
      out += fmt::format("(the execution could not be replayed: {})\n", e.what());
    }
  }
  if (replayed) {
    out += '\n';
    out += render_columns(replayed->trace, replayed->failed ? &replayed->failure : nullptr,
                          graph_memory(o));
    if (!replayed->outcome.empty()) out += fmt::format("   outcome: {}\n", format_outcome(replayed->outcome));
    for (std::size_t k = 0; k < replayed->verdicts.size() && k < o.checkers.size(); ++k)
      if (replayed->verdicts[k].flags())
        out += fmt::format("   checker {}: {}\n", o.checkers[k],
                           describe_verdict(replayed->trace, replayed->verdicts[k]));
    out += "\n";
  }
  out += fmt::format("schedule: {}\n", schedule);
  out += fmt::format("replay:   {}\n", replay_call(schedule, o));
  out += fmt::format("rerun:    {}ATOMCHECK_REPLAY='{}' <this test>   (runs that execution alone and prints it)\n",
                     rerun_environment(o, test_memory), schedule);
  out += fmt::format("cli:      {}\n", cli_line(schedule, o, name));
  return out;
}

ModelReport replay_report(const Program& body, ModelReport rep, const std::string& schedule,
                          std::string_view name, MemoryModelKind test_memory) {
  ReplayResult r;
  try {
    r = replay(body, schedule, rep.options);
  } catch (const std::exception& e) {
    rep.ok = false;
    rep.text = fmt::format("atomcheck::model: ATOMCHECK_REPLAY='{}': {}\n", schedule, e.what());
    // A schedule that runs out is mostly a prefix copied from somewhere else than a report.
    if (std::string_view(e.what()).find("needs more") != std::string_view::npos)
      rep.text += fmt::format(
          "ATOMCHECK_REPLAY takes a whole schedule, as a report's `schedule:` line prints it: '{}' is only a "
          "prefix of an execution, which needed more steps after it. Copy the full schedule, or unset ATOMCHECK_REPLAY to search.\n",
          schedule);
    return rep;
  }
  bool any_flag = false;
  for (const Verdict& v : r.verdicts) any_flag |= v.flags();
  rep.replayed = true;
  rep.ok = !r.failed && !any_flag;
  rep.schedule = schedule;
  rep.result.executions = 1;
  rep.result.completed = r.failed ? 0 : 1;
  if (r.failed) {
    rep.result.failures.push_back(r.failure);
    (r.failure.kind == FailureKind::deadlock      ? rep.result.deadlocks
     : r.failure.kind == FailureKind::step_bound ? rep.result.step_bounded
                                                  : rep.result.failed) = 1;
  }
  rep.text = fmt::format("atomcheck::model: replayed schedule '{}' (ATOMCHECK_REPLAY, {}): {}\n", schedule,
                         memory_name(rep.options.memory),
                         r.failed ? fmt::format("{} — {}", failure_kind_name(r.failure.kind), r.failure.message)
                         : any_flag ? std::string("a checker flags it")
                                    : std::string("completed, nothing flagged"));
  rep.text += execution_block(body, rep.options, schedule, name, &r, test_memory);
  return rep;
}

// The report of a search cut short (a budget, the time limit, Ctrl-C) that found
// nothing: how far it got and how to widen it. Not a pass: a test that explored part of
// the program proves nothing about the rest, and CI would take it for coverage.
ModelReport incomplete_report(ModelReport rep, const std::string& program) {
  const ExploreResult& r = rep.result;
  const ExploreOptions& o = rep.options;
  rep.ok = false;
  rep.text = fmt::format("atomcheck::model: search incomplete ({}, {}, {}): no problem found in the {} explored",
                         strategy_name(o.strategy), memory_name(o.memory), search_end_text(r),
                         executions(r.executions));
  if (r.estimate > 0)
    rep.text += fmt::format(" (a DFS of the whole program would run about {:.3g})", r.estimate);
  rep.text += ", which proves nothing for the rest\n";
  if (search_end(r) == SearchEnd::interrupted) {
    rep.text += "interrupted: Ctrl-C\n";
    return rep;
  }
  rep.text += fmt::format(
      "widen:    ExploreOptions::max_executions = 0 / time_limit_seconds = 0 (no limit), or "
      "ATOMCHECK_MAX_EXECUTIONS=0 ATOMCHECK_TIME_LIMIT=0 <this test>{}\n"
      "accept:   ExploreOptions::allow_incomplete = true (or ATOMCHECK_ALLOW_INCOMPLETE=1) passes a partial "
      "search with this note; a preemption bound or random/pct sampling asks for one\n",
      program.empty() ? "" : fmt::format(" (program {})", program));
  return rep;
}

// Ctrl-C during a search of check_model(): the search stops, the partial report is
// printed, and the signal is raised again so the test run ends as the user asked. Only
// when the caller gave no interrupt flag of its own and SIGINT has no handler installed
// (a test runner's or the program's own handler is left alone).
std::atomic<bool> g_sigint{false};
// C linkage for a signal handler, so its name must be unique in the program (the CLI has one too).
extern "C" void atomcheck_model_on_sigint(int) { g_sigint.store(true, std::memory_order_relaxed); }

class SigintScope {
 public:
  explicit SigintScope(ExploreOptions& o) {
    if (o.interrupt) return;
    struct sigaction sa {};
    sa.sa_handler = atomcheck_model_on_sigint;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGINT, nullptr, &old_) != 0 || old_.sa_handler != SIG_DFL) return;
    g_sigint.store(false, std::memory_order_relaxed);
    if (sigaction(SIGINT, &sa, nullptr) != 0) return;
    installed_ = true;
    o.interrupt = &g_sigint;
    options_ = &o;
  }
  ~SigintScope() { restore(); }
  SigintScope(const SigintScope&) = delete;
  SigintScope& operator=(const SigintScope&) = delete;
  bool raised() const { return installed_ && g_sigint.load(std::memory_order_relaxed); }
  const std::atomic<bool>* flag() const { return installed_ ? &g_sigint : nullptr; }
  void reraise() {
    restore();
    std::raise(SIGINT);
  }

 private:
  void restore() {
    if (!installed_) return;
    sigaction(SIGINT, &old_, nullptr);
    installed_ = false;
    options_->interrupt = nullptr;
  }
  struct sigaction old_ {};
  bool installed_ = false;
  ExploreOptions* options_ = nullptr;
};

// A line on stderr every `seconds` of a long search (ATOMCHECK_PROGRESS), so that a
// test that runs for minutes says how far it is; nothing for searches shorter than that.
class ProgressLines {
 public:
  ProgressLines(ExploreOptions& o, double seconds, const std::string& program) {
    if (o.progress || seconds <= 0) return;
    o.progress_interval = std::min(1.0, seconds);
    o.progress = [seconds, program, next = seconds](const ExploreProgress& p) mutable {
      if (p.elapsed_seconds < next) return;
      next = p.elapsed_seconds + seconds;
      std::string est = p.estimate > 0 ? fmt::format(" (DFS bound about {:.3g})", p.estimate) : "";
      std::fprintf(stderr, "atomcheck::model%s%s: %llu executions in %.0f s%s\n", program.empty() ? "" : " ",
                   program.c_str(), static_cast<unsigned long long>(p.executions), p.elapsed_seconds, est.c_str());
      std::fflush(stderr);
    };
    options_ = &o;
  }
  ~ProgressLines() {
    if (options_) options_->progress = nullptr;
  }
  ProgressLines(const ProgressLines&) = delete;
  ProgressLines& operator=(const ProgressLines&) = delete;

 private:
  ExploreOptions* options_ = nullptr;
};

// Explores with the environment's options (falling back to DFS where DPOR meets a wait
// it does not model) and renders the report: a failure, an incomplete search, or a pass.
ModelReport search_report(const Program& body, ModelReport rep, const ModelEnvironment& envs,
                          const std::string& program, const std::atomic<bool>* sigint, MemoryModelKind test_memory) {
  auto interrupted = [&] { return sigint && sigint->load(std::memory_order_relaxed); };
  std::string fallback;
  try {
    ProgressLines progress(rep.options, envs.progress_seconds, program);
    rep.result = explore(body, rep.options);
    // A wait optimal DPOR does not model (a yield() loop that stores): DFS explores it,
    // as `atomcheck run` does when no strategy was asked for.
    if (rep.result.reduction_incomplete && rep.result.ok() && !interrupted()) {
      fallback = fmt::format("; {} met {}, which it does not model: explored with dfs instead",
                             strategy_name(rep.options.strategy), rep.result.reduction_incomplete_by);
      rep.options.strategy = StrategyKind::dfs;
      rep.result = explore(body, rep.options);
    }
  } catch (const std::exception& e) {
    rep.ok = false;
    rep.text = fmt::format("atomcheck::model: {}\n", e.what());
    return rep;
  }
  const ExploreOptions& o = rep.options;
  const ExploreResult& r = rep.result;
  std::string how = fmt::format("{}, {}, {}{}", strategy_name(o.strategy), memory_name(o.memory),
                                search_end_text(r), fallback);
  // A loop taken for a spin: the result rests on it (README "Waits").
  if (r.unmarked_spins)
    how += fmt::format("; spin without yield(): {}, taken to wait for a change there (first in schedule '{}'); "
                       "write the loop with spin_until or yield()",
                       r.unmarked_spin, r.unmarked_spin_schedule);
  rep.ok = r.ok();
  if (rep.ok) {
    const SearchEnd end = search_end(r);
    // A bound was asked for (a preemption or depth bound): it passes with its note.
    if (search_end_cut(end) && end != SearchEnd::bound && !o.allow_incomplete)
      return incomplete_report(std::move(rep), program);
    // Not a failure, but no proof either: say which checker could not judge.
    std::string undecided;
    for (const CheckerSummary& c : r.checkers)
      if (c.undecided) undecided += fmt::format("; {} undecided on {} ({})", c.name, c.undecided, c.first_undecided);
    rep.text = fmt::format("atomcheck::model: {}, no problem found ({}{})\n", executions(r.executions), how,
                           undecided);
    // A pass that proves less than "every class of the program": said wherever it passes.
    if (end != SearchEnd::exhausted || !undecided.empty() || r.unmarked_spins || !fallback.empty())
      rep.note = rep.text;
    return rep;
  }
  if (!r.error.empty()) {
    rep.text = fmt::format("atomcheck::model: {}\n", r.error);
    return rep;
  }
  // The first failure, else the first execution a checker flagged.
  std::string headline;
  if (!r.failures.empty()) {
    const Failure& f = r.failures.front();
    rep.schedule = f.schedule;
    headline = fmt::format("failure ({}) in execution #{}: {}", failure_kind_name(f.kind), f.execution, f.message);
  } else {
    for (const CheckerSummary& c : r.checkers)
      if (c.flagged > 0) {
        rep.schedule = c.first_schedule;
        headline = fmt::format("checker {} flags execution #{}", c.name, c.first_execution);
        break;
      }
  }
  std::string counts;
  if (r.failed) counts += fmt::format(", {} failed", r.failed);
  if (r.deadlocks) counts += fmt::format(", {} deadlocked", r.deadlocks);
  if (r.step_bounded) counts += fmt::format(", {} did not terminate", r.step_bounded);
  for (const CheckerSummary& c : r.checkers)
    if (c.flagged) counts += fmt::format(", {} flagged by {}", c.flagged, c.name);
  rep.text = fmt::format("atomcheck::model: {}\n{}{} ({})\n", headline, executions(r.executions), counts, how);
  rep.text += execution_block(body, o, rep.schedule, program, nullptr, test_memory);
  return rep;
}

}  // namespace

void set_test_name_source(TestNameSource source) { test_name_source = source; }

std::string replay_flags(const ExploreOptions& o, std::uint64_t own_max_steps) {
  std::string out;
  if (o.max_steps != own_max_steps) out += fmt::format(" --max-steps {}", o.max_steps);
  if (o.spin_threshold != kDefaultSpinThreshold) out += fmt::format(" --spin-threshold {}", o.spin_threshold);
  if (!o.spurious_wakeups) out += " --no-spurious-wakeups";
  if (!o.loop_reduction) out += " --no-loop-reduction";
  if (o.sc_graphs && o.memory == MemoryModelKind::sc) out += " --sc-graphs";
  if (!o.race_check) out += " --no-race-check";
  if (!o.leak_check) out += " --no-leak-check";
  if (o.reuse_freed) out += " --reuse-freed";
  if (o.depth_bound) out += fmt::format(" --depth-bound {}", o.depth_bound);
  return out;
}

bool apply_model_environment(ExploreOptions& o, ModelEnvironment& e, std::string& error) {
  std::uint64_t n = 0;
  bool strategy_set = false;
  if (const char* v = env("ATOMCHECK_STRATEGY")) {
    std::optional<StrategyKind> k = strategy_from_name(v);
    if (!k) {
      error = fmt::format("ATOMCHECK_STRATEGY='{}': expected one of dfs, dpor, optimal, random, pct", v);
      return false;
    }
    o.strategy = *k;
    strategy_set = true;
  }
  if (const char* v = env("ATOMCHECK_MAX_EXECUTIONS")) {
    if (!parse_u64("ATOMCHECK_MAX_EXECUTIONS", v, n, error)) return false;
    o.max_executions = n;
  }
  if (const char* v = env("ATOMCHECK_TIME_LIMIT")) {
    if (!parse_seconds("ATOMCHECK_TIME_LIMIT", v, "", o.time_limit_seconds, error)) return false;
  }
  if (const char* v = env("ATOMCHECK_SEED")) {
    if (!parse_u64("ATOMCHECK_SEED", v, n, error)) return false;
    o.seed = n;
  }
  if (const char* v = env("ATOMCHECK_MEMORY")) {
    std::string_view m = v;
    const std::optional<MemoryModelKind> kind = memory_model_from_name(m);
    if (!kind) {
      error = fmt::format("ATOMCHECK_MEMORY='{}': expected sc, tso or rc11", v);
      return false;
    }
    o.memory = *kind;
  }
  if (const char* v = env("ATOMCHECK_PREEMPTION_BOUND")) {
    if (!parse_u64("ATOMCHECK_PREEMPTION_BOUND", v, n, error)) return false;
    if (n > 1000000) {
      error = fmt::format("ATOMCHECK_PREEMPTION_BOUND='{}': at most 1000000", v);
      return false;
    }
    o.preemption_bound = static_cast<int>(n);
    // A bound is a DFS-only option (explore.hpp); asking for one asks for DFS.
    if (!strategy_set) o.strategy = StrategyKind::dfs;
  }
  if (const char* v = env("ATOMCHECK_JOBS")) {
    if (!parse_u64("ATOMCHECK_JOBS", v, n, error)) return false;
    if (n == 0 || n > 4096) {
      error = fmt::format("ATOMCHECK_JOBS='{}': expected a number of threads from 1 to 4096", v);
      return false;
    }
    e.jobs = static_cast<unsigned>(n);
    o.jobs = e.jobs;
  }
  auto flag = [&](const char* name, bool& out) {
    const char* v = env(name);
    if (!v) return true;
    std::string_view t = v;
    if (t != "0" && t != "1") {
      error = fmt::format("{}='{}': expected 0 or 1", name, v);
      return false;
    }
    out = t == "1";
    return true;
  };
  if (!flag("ATOMCHECK_STOP_ON_FAILURE", o.stop_on_failure)) return false;
  if (!flag("ATOMCHECK_ALLOW_INCOMPLETE", o.allow_incomplete)) return false;
  if (const char* v = env("ATOMCHECK_PROGRESS")) {
    if (!parse_seconds("ATOMCHECK_PROGRESS", v, " (0: off)", e.progress_seconds, error)) return false;
  }
  if (const char* v = env("ATOMCHECK_REPLAY")) e.replay = v;
  if (const char* v = env("ATOMCHECK_REPORT_FILE")) e.report_file = v;
  return true;
}

ModelReport check_model(const Program& body, const ExploreOptions& options, std::string_view name) {
  ModelReport rep;
  rep.options = options;
  ModelEnvironment envs;
  std::string error;
  if (!apply_model_environment(rep.options, envs, error)) {
    rep.ok = false;
    rep.text = fmt::format("atomcheck::model: {}\n", error);
    return rep;
  }
  std::string program = name.empty() ? registered_name(body) : std::string(name);
  if (!envs.replay.empty()) {
    rep = replay_report(body, std::move(rep), envs.replay, program, options.memory);
    if (!envs.report_file.empty()) append_to_file(envs.report_file, rep.text, rep.text, program);
    return rep;
  }
  SigintScope sigint(rep.options);
  rep = search_report(body, std::move(rep), envs, program, sigint.flag(), options.memory);
  // Every report that fails the test (a failure, an incomplete search, an error) goes to
  // the report file too.
  if (!rep.ok && !envs.report_file.empty()) append_to_file(envs.report_file, rep.text, rep.text, program);
  if (sigint.raised()) {
    // As on the command line: what the search had, then the interrupt takes its course.
    std::fprintf(stderr, "%s", rep.text.c_str());
    std::fflush(stderr);
    sigint.reraise();
  }
  return rep;
}

ModelFailure::ModelFailure(ModelReport r) : std::runtime_error(r.text), report(std::move(r)) {}

ExploreResult model(const Program& body, const ExploreOptions& options, std::string_view name) {
  ModelReport rep = check_model(body, options, name);
  if (!rep.ok) throw ModelFailure(std::move(rep));
  // A replayed execution is shown even when it passes, and so is a pass with a note (a
  // bounded, sampled or allowed-incomplete search, an undecided checker).
  if (rep.replayed || !rep.note.empty()) std::fprintf(stderr, "%s", rep.text.c_str());
  return std::move(rep.result);
}

}  // namespace atomcheck
