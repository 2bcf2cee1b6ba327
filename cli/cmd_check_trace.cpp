// `atomcheck check-trace FILE`: streams a trace file once through the well-formedness
// validator and the chosen checkers (by default every SC conflict checker) and prints, per
// checker, its verdict, its witness by name (threads, variables, event indices, file
// lines) and the time it took. `atomcheck checkers` lists the catalogue.
//
// Memory stays flat however long the trace: a reader thread parses and validates blocks
// while the checkers consume the previous one (cli/trace_stream.hpp), and of the past
// only the events an online checker may still cite are kept (Checker::live_events).
// Checkers that keep the whole trace themselves (oracles, predictive, TSO) run on traces
// up to a limit and are skipped, with a message naming the online checkers, beyond it.
// Exit 0 serializable and nothing blamed, 1 some checker found a violation, 2 bad input
// (unreadable or malformed file, unknown checker), 3 a checker that was asked for was
// skipped because the trace is too long for it, or was undecided (its budget,
// --time-limit or Ctrl-C stopped it; then the summary says so per checker).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "checkers/atomic_set.hpp"
#include "checkers/registry.hpp"
#include "cli/commands.hpp"
#include "cli/external_checker.hpp"
#include "cli/interrupt.hpp"
#include "cli/report_graph.hpp"
#include "cli/report_html.hpp"
#include "cli/trace_stream.hpp"
#include "trace/trace_io.hpp"
#include "trace/validate.hpp"

namespace atomcheck::cli {

namespace {

// The exponential oracles build a quadratic closure: beyond this many events they are
// skipped (with a note) rather than exhausting memory.
constexpr std::uint64_t kOracleMaxEvents = 20000;
// Checkers that are not online keep every event (as does --atomic-sets, which runs the
// atomic-set checkers again once names are resolved): beyond this many events they are
// skipped and their events freed, so a long trace never exhausts memory.
constexpr std::uint64_t kBufferedMaxEvents = std::uint64_t{1} << 22;
// --html/--dot draw the whole trace up to this many events, else a window around the
// violation of this many events before and after it.
constexpr std::uint64_t kReportWholeMax = 20000;
constexpr std::size_t kWindowBefore = 300, kWindowAfter = 100;
// Events per block handed from the reader thread to the checkers.
constexpr std::size_t kBlockEvents = std::size_t{1} << 15;

struct CheckTraceOptions {
  std::string file;
  std::string format;
  std::vector<std::string> checkers;
  bool all = false;
  bool json = false;
  std::string html, dot;  // report files for the first checker that found a problem
  std::string atomic_sets;  // declarations for the atomic-set checkers (JSON)
  double time_limit = 0;    // seconds, 0: none; reaches inside the checkers
  // Hidden option: tests force tiny blocks, forgotten after each one.
  std::size_t block_events = kBlockEvents;
  ExternalCliOptions ext;
};

// Reads "atomic_sets" ({set: [variables]}) and "units_of_work" ([{label, sets}]) from a
// JSON file, the same members a program spec has (a spec file itself will do).
bool read_atomic_set_names(const std::string& path, AtomicSetNames& out, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = fmt::format("{}: cannot read", path);
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    auto j = nlohmann::json::parse(text.str());
    if (!j.is_object()) throw std::runtime_error("not a JSON object");
    if (j.contains("atomic_sets"))
      for (auto& [set, vars] : j.at("atomic_sets").items())
        out.sets.push_back({set, vars.get<std::vector<std::string>>()});
    if (j.contains("units_of_work"))
      for (auto& u : j.at("units_of_work"))
        out.units.push_back({u.at("label").get<std::string>(), u.at("sets").get<std::vector<std::string>>()});
  } catch (const std::exception& e) {
    error = fmt::format("{}:1: atomic sets: {}", path, e.what());
    return false;
  }
  return true;
}

struct Run {
  std::string name;
  std::unique_ptr<Checker> checker;
  bool online = false;      // says what it may cite (Checker::live_events)
  double seconds = 0;
  bool skipped = false;     // the trace is too long for it
  std::string skip_reason;
  Verdict verdict;          // in file indices once converted
};

std::string valid_names() {
  std::string s;
  for (const CheckerInfo& c : checker_catalog()) {
    if (!s.empty()) s += ", ";
    s += c.name;
  }
  return s;
}

// Names and lines for printing witnesses: every event a verdict names, by file index.
struct Printer {
  const Names& names;
  const std::unordered_map<EventIndex, KeptEvent>& events;

  const KeptEvent* find(EventIndex i) const {
    auto it = events.find(i);
    return it == events.end() ? nullptr : &it->second;
  }
  std::string line_of(EventIndex i) const {
    const KeptEvent* k = find(i);
    if (k != nullptr && k->line != 0) return fmt::format(" (line {})", k->line);
    return "";
  }
  std::string event(EventIndex i) const {
    if (i == kNoEvent) return "?";
    const KeptEvent* k = find(i);
    if (k == nullptr) return fmt::format("event {}", i);
    const Event& e = k->event;
    std::string what;
    if (is_access(e.op)) what = fmt::format("{}({})", op_name(e.op), names.var(e.target));
    else if (is_lock_op(e.op)) what = fmt::format("{}({})", op_name(e.op), names.lock(e.target));
    else if (is_thread_op(e.op)) what = fmt::format("{}({})", op_name(e.op), names.thread(e.target));
    else what = std::string(op_name(e.op));
    return fmt::format("event {} {} {}{}", i, names.thread(e.thread), what, line_of(i));
  }
  std::string txn(const TxnRef& t) const {
    if (t.first == kNoEvent) return fmt::format("a transaction of {}", names.thread(t.thread));
    return fmt::format("{}@{}", names.thread(t.thread), t.first);
  }
};

nlohmann::ordered_json txn_json(const Printer& p, const TxnRef& t) {
  nlohmann::ordered_json j;
  j["thread"] = p.names.thread(t.thread);
  j["first_event"] = t.first == kNoEvent ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(t.first);
  return j;
}

nlohmann::ordered_json event_json(const Printer& p, EventIndex i) {
  if (i == kNoEvent) return nullptr;
  nlohmann::ordered_json j;
  j["index"] = i;
  const KeptEvent* k = p.find(i);
  if (k != nullptr && k->line != 0) j["line"] = k->line;
  if (k != nullptr) {
    j["thread"] = p.names.thread(k->event.thread);
    j["op"] = std::string(op_name(k->event.op));
  }
  return j;
}

bool found_problem(const Run& r) { return !r.skipped && r.verdict.flags(); }

// Every event index a verdict names, the witness execution's included, so each can be
// converted and looked up.
template <class F>
void for_each_index(Verdict& v, F&& f) {
  for_each_event_index(v, f);
  for (EventIndex& k : v.witness_execution) f(k);
}

std::string online_names() {
  std::string s;
  for (const CheckerInfo& c : checker_catalog()) {
    auto ch = make_checker(c.name, CheckerOptions{});
    LiveEvents probe;
    if (!ch || !ch->live_events(probe)) continue;
    if (!s.empty()) s += ", ";
    s += c.name;
  }
  return s;
}

// The default panel (no --checker): every SC conflict checker of the catalogue; apart so
// the reasons for leaving a checker out read as a list.
std::vector<std::string> default_checkers() {
  std::vector<std::string> wanted;
  for (const CheckerInfo& c : checker_catalog()) {
    // The TSO checkers answer another question (TSO, not SC, serializability) and the
    // trace ones are exponential: they run only when named.
    if (c.name.rfind("tso-", 0) == 0 || c.name.rfind("trace-tso", 0) == 0) continue;
    // Linearizability judges objects' operations, which trace files do not record.
    if (c.name.rfind("linearizability", 0) == 0) continue;
    // Predictive checkers answer for every interleaving, not for this trace.
    if (c.predictive) continue;
    wanted.push_back(c.name);
  }
  return wanted;
}

// What every step of one panel run shares: the options, the checkers and whether they
// were named, the options they were made with (deadline, resolved atomic sets).
struct Panel {
  const CheckTraceOptions& opt;
  bool explicit_list = false;
  bool report = false;  // --html or --dot
  std::string shown;    // the file as messages name it
  CheckerOptions copt;
  AtomicSetNames declared;
  std::vector<Run> runs;
};

// Reads --atomic-sets and makes the checkers, before the trace is opened so that a typo
// is reported before a long file is read; false (the message printed) on bad input.
bool make_runs(Panel& panel, const std::vector<std::string>& wanted) {
  if (!panel.opt.atomic_sets.empty()) {
    std::string error;
    if (!read_atomic_set_names(panel.opt.atomic_sets, panel.declared, error)) {
      fmt::print(stderr, "{}\n", error);
      return false;
    }
  }
  for (const std::string& n : wanted) {
    auto c = make_checker(n, panel.copt);
    if (!c) {
      fmt::print(stderr, "atomcheck: unknown checker '{}'; valid names: {}\n", n, valid_names());
      return false;
    }
    Run r;
    r.name = n;
    r.checker = std::move(c);
    LiveEvents probe;
    r.online = r.checker->live_events(probe);
    panel.runs.push_back(std::move(r));
  }
  return true;
}

// The trace length beyond which a checker is skipped: apart because the reading loop
// and the stopped-early message both ask it.
std::uint64_t limit_of(const Run& r) {
  if (r.online) return kNoEvent;
  if (r.name == "oracle" || r.name == "atomic-set-oracle") return kOracleMaxEvents;
  return kBufferedMaxEvents;
}

// What reading the trace leaves for the verdicts and the reports: the reader (which owns
// the names), the archive of what the online checkers may cite, every event while
// something needs them, the map from tau to file indices, and where reading stopped.
struct Stream {
  std::unique_ptr<BlockReader> reader;
  WitnessArchive archive;
  // Every event, while a checker that is not online, --atomic-sets or a whole-trace
  // report needs them (bounded by kBufferedMaxEvents).
  std::vector<KeptEvent> all;
  bool keep_all = true;
  // Event numbers of checkers that do not see commits are indices into tau; the file
  // index of tau event k is k before the first commit, tau_origin[k - tau_prefix] after.
  std::uint64_t tau_count = 0, tau_prefix = kNoEvent;
  std::vector<std::uint64_t> tau_origin;
  std::uint64_t count = 0;
  bool stopped_early = false;
  std::string stopped_reading;  // why the file was not read to its end
  std::vector<EventIndex> live;
  std::size_t retain_at = 0;
};

// Opens the trace on its reader thread; apart so the streaming state starts in one
// place. False (the message printed) when the file cannot be opened.
bool open_trace(const Panel& panel, Stream& s) {
  const CheckTraceOptions& opt = panel.opt;
  TraceFormat format = opt.format.empty() ? format_for_path(opt.file)
                       : opt.format == "jsonl" ? TraceFormat::jsonl
                                               : TraceFormat::std_text;
  s.archive = WitnessArchive(panel.report ? kWindowBefore : 0, panel.report ? kWindowAfter : 0);
  s.retain_at = opt.block_events == kBlockEvents ? 2 * opt.block_events : opt.block_events;
  try {
    s.reader = std::make_unique<BlockReader>(opt.file, format, opt.block_events);
  } catch (const TraceError& err) {
    fmt::print(stderr, "{}\n", err.what());
    return false;
  }
  return true;
}

// Whether every event of a trace of n events so far must still be kept.
bool keep_all_needed(const Panel& panel, std::uint64_t n) {
  if (!panel.opt.atomic_sets.empty() && n <= kBufferedMaxEvents) return true;
  if (panel.report && n <= kReportWholeMax) return true;
  for (const Run& r : panel.runs)
    if (!r.skipped && !r.online) return true;
  return false;
}

// The past the online checkers may still cite is kept; everything else goes.
void retain(Panel& panel, Stream& s) {
  s.live.clear();
  for (std::size_t i = 0; i < panel.runs.size(); ++i) {
    Run& r = panel.runs[i];
    if (r.skipped || !r.online) continue;
    LiveEvents le;
    le.events.swap(s.live);
    r.checker->live_events(le);
    s.live.swap(le.events);
    if (panel.report && le.first_problem != kNoEvent) s.archive.open_window(i, le.first_problem);
  }
  std::size_t n = s.live.size();
  for (auto& b : s.archive.retain(s.live)) s.reader->recycle(std::move(b));
  // Amortised: the live set is gathered again only after twice its size in events,
  // and two blocks at least (tests that set the block size forget after each one).
  const std::size_t block_events = panel.opt.block_events;
  s.retain_at = block_events == kBlockEvents ? std::max(2 * block_events, 2 * n) : block_events;
}

// Checkers beyond their limit stop here, before their memory grows further; returns
// whether any checker is left.
bool skip_beyond_limits(std::vector<Run>& runs, std::uint64_t end) {
  bool any_left = false;
  for (Run& r : runs) {
    if (!r.skipped && end > limit_of(r)) {
      r.skipped = true;
      r.skip_reason = fmt::format("the trace has more than {} events", limit_of(r));
      r.checker.reset();
    }
    any_left |= !r.skipped;
  }
  return any_left;
}

// Hands one block to every checker still running, timing each: the hot loop.
void feed_block(std::vector<Run>& runs, const EventBlock& block) {
  for (Run& r : runs) {
    if (r.skipped) continue;
    auto t0 = std::chrono::steady_clock::now();
    // Checkers of the trace tau never see commits (DESIGN.md "Events").
    Checker& c = *r.checker;
    if (!block.has_commits || c.wants_commits()) {
      for (const Event& e : block.events) c.on_event(e);
    } else {
      for (const Event& e : block.events)
        if (e.op != Op::commit) c.on_event(e);
    }
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
}

// Keeps the block's events while something needs the whole trace (dropping them once
// nothing does) and extends the tau-to-file index map.
void keep_events(const Panel& panel, Stream& s, const EventBlock& block) {
  if (s.keep_all && !keep_all_needed(panel, block.end())) {
    s.keep_all = false;
    // A report of a serializable long trace draws its beginning.
    s.all.resize(std::min<std::size_t>(s.all.size(), kWindowBefore + kWindowAfter));
    s.all.shrink_to_fit();
    std::vector<std::uint64_t>().swap(s.tau_origin);
  }
  for (std::size_t k = 0; k < block.events.size(); ++k) {
    const Event& e = block.events[k];
    const EventIndex f = block.first + k;
    if (s.keep_all) s.all.push_back(KeptEvent{kNoEvent, f, block.lines[k], e});
    if (e.op == Op::commit) {
      if (s.tau_prefix == kNoEvent) s.tau_prefix = s.tau_count;
    } else {
      if (s.tau_prefix != kNoEvent && s.keep_all) s.tau_origin.push_back(f);
      ++s.tau_count;
    }
  }
}

// Streams the trace once through the checkers, block by block, until its end, the
// deadline, or (named checkers all skipped) the point where nothing asked for can run.
void read_trace(Panel& panel, Stream& s) {
  while (std::unique_ptr<EventBlock> block = s.reader->next()) {
    if (const char* why = panel.copt.deadline.expired(); *why != '\0') {
      s.stopped_reading = fmt::format("{} after {} events of the trace were read", why, s.count);
      break;
    }
    const std::uint64_t end = block->end();
    if (!skip_beyond_limits(panel.runs, end) && panel.explicit_list) {
      // Nothing asked for can run on this trace: say so now rather than read it all.
      s.stopped_early = true;
      s.count = end;
      break;
    }
    feed_block(panel.runs, *block);
    keep_events(panel, s, *block);
    s.count = end;
    s.archive.push(std::move(block));
    if (s.archive.pending_events() >= s.retain_at) retain(panel, s);
  }
}

// Every checker that was named keeps the whole trace and this one is too long: says so,
// naming the online checkers, and exits 3.
int report_stopped_early(const Panel& panel, const Stream& s) {
  const std::vector<Run>& runs = panel.runs;
  std::string names;
  for (const Run& r : runs) names += (names.empty() ? "" : ", ") + r.name;
  std::uint64_t limit = 0;
  for (const Run& r : runs) limit = std::max(limit, limit_of(r));
  fmt::print(stderr,
             "{}: stopped after {} events: {} keep{} the whole trace and {} skipped beyond {} "
             "events; the online checkers run on traces of any length: {}\n",
             panel.shown, s.count, names, runs.size() == 1 ? "s" : "", runs.size() == 1 ? "is" : "are",
             limit, online_names());
  return kExitBudget;
}

// Declarations name variables and labels, which have ids only once the trace is read:
// the atomic-set checkers run again over the kept events with the resolved ids. False
// (the message printed) on bad declarations or a trace too long to keep.
bool rerun_atomic_set_checkers(Panel& panel, const Stream& s, const Names& names) {
  const CheckTraceOptions& opt = panel.opt;
  if (opt.atomic_sets.empty() || !s.stopped_reading.empty()) return true;
  std::string error;
  if (s.count > kBufferedMaxEvents)
    error = fmt::format("{}: --atomic-sets keeps the whole trace and stops at {} events; this one "
                        "has {}", panel.shown, kBufferedMaxEvents, s.count);
  else if (!resolve_atomic_sets(panel.declared, names, panel.copt.atomic_sets, error))
    error = fmt::format("{}:1: {}", opt.atomic_sets, error);
  if (!error.empty()) {
    fmt::print(stderr, "{}\n", error);
    return false;
  }
  for (Run& r : panel.runs) {
    if (r.skipped || r.name.rfind("atomic-set", 0) != 0) continue;
    r.checker = make_checker(r.name, panel.copt);
    auto t0 = std::chrono::steady_clock::now();
    for (const KeptEvent& k : s.all)
      if (k.event.op != Op::commit) r.checker->on_event(k.event);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return true;
}

// Converts run i's verdict to file indices, by the way that checker numbers events, and
// looks up once every event it names.
void name_events(Panel& panel, Stream& s, std::size_t i, std::unordered_map<EventIndex, KeptEvent>& named) {
  Run& r = panel.runs[i];
  auto from_all = [&](EventIndex f) {
    if (f != kNoEvent && f < s.all.size()) named.emplace(f, s.all[f]);
  };
  if (r.checker->wants_commits()) {
    for_each_index(r.verdict, [&](EventIndex& k) { from_all(k); });
  } else if (r.online) {
    // A violation found at the very end (transactions closed by verdict()) has no
    // window yet: the last blocks are still held.
    if (panel.report && s.archive.window(i).empty()) {
      EventIndex centre = r.verdict.detected_at;
      if (centre == kNoEvent && !r.verdict.blamed.empty()) centre = r.verdict.blamed.front().at;
      if (centre != kNoEvent) s.archive.open_window(i, centre);
    }
    for_each_index(r.verdict, [&](EventIndex& k) {
      if (k == kNoEvent) return;
      const KeptEvent* e = s.archive.find_tau(k);
      if (e == nullptr) return;  // not kept: printed by number only
      k = e->file;
      named.emplace(k, *e);
    });
  } else {
    for_each_index(r.verdict, [&](EventIndex& k) {
      if (k != kNoEvent && s.tau_prefix != kNoEvent && k >= s.tau_prefix)
        k = k - s.tau_prefix < s.tau_origin.size() ? s.tau_origin[k - s.tau_prefix] : k;
      from_all(k);
    });
  }
}

// Takes every checker's verdict (none when reading stopped: a verdict on part of the
// trace is no verdict on it), converted to file indices; returns the events they name.
std::unordered_map<EventIndex, KeptEvent> take_verdicts(Panel& panel, Stream& s) {
  std::unordered_map<EventIndex, KeptEvent> named;
  for (std::size_t i = 0; i < panel.runs.size(); ++i) {
    Run& r = panel.runs[i];
    if (r.skipped) continue;
    if (!s.stopped_reading.empty()) {  // a verdict on part of the trace is no verdict on it
      r.verdict = Verdict{};
      r.verdict.checker = r.name;
      r.verdict.undecided = s.stopped_reading;
      continue;
    }
    auto t0 = std::chrono::steady_clock::now();
    r.verdict = r.checker->verdict();
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // A default checker whose size limit this trace passes is skipped, as the oracles
    // are beyond theirs; one that was named is undecided (exit 3).
    if (!panel.explicit_list && r.verdict.too_large()) {
      r.skipped = true;
      r.skip_reason = r.verdict.undecided.substr(Verdict::kInputTooLarge.size());
      continue;
    }
    name_events(panel, s, i, named);
  }
  return named;
}

// Whether some checker found a violation (exit 1, "violation" in --json).
bool any_problem(const std::vector<Run>& runs) {
  bool problem = false;
  for (const Run& r : runs) problem |= found_problem(r);
  return problem;
}

// The exit code: a violation first, then a named checker skipped or any undecided.
int exit_code(const std::vector<Run>& runs, bool explicit_list) {
  bool problem = false, skipped_named = false, undecided = false;
  for (const Run& r : runs) {
    problem |= found_problem(r);
    skipped_named |= r.skipped && explicit_list;
    undecided |= !r.skipped && !r.verdict.decided();
  }
  if (problem) return kExitProblem;
  return skipped_named || undecided ? kExitBudget : kExitOk;
}

// What --html and --dot draw, and the note saying which window of the trace it is.
struct ReportView {
  Trace trace;
  Verdict verdict;
  std::string window_note;
};

// The report draws the first checker that found a violation (else the first): the
// whole trace when it is short, else a window around the violation, renumbered.
ReportView report_view(const Panel& panel, const Stream& s, const Names& names) {
  ReportView view;
  const std::vector<Run>& runs = panel.runs;
  const std::vector<KeptEvent>& all = s.all;
  const std::uint64_t count = s.count;
  const bool whole = s.keep_all && all.size() == count;
  const Run* shown_run = nullptr;
  std::size_t shown_id = 0;
  for (std::size_t i = 0; i < runs.size() && !shown_run; ++i)
    if (found_problem(runs[i])) shown_run = &runs[i], shown_id = i;
  for (std::size_t i = 0; i < runs.size() && !shown_run; ++i)
    if (!runs[i].skipped) shown_run = &runs[i], shown_id = i;
  Verdict& report_verdict = view.verdict;
  report_verdict = shown_run ? shown_run->verdict : Verdict{};
  if (shown_run) report_verdict.checker = shown_run->name;
  view.trace.names = names;
  std::vector<KeptEvent> window;
  if (whole && count <= kReportWholeMax) {
    for (const KeptEvent& k : all) view.trace.events.push_back(k.event);
    return view;
  }
  EventIndex centre = report_verdict.detected_at;
  if (centre == kNoEvent && !report_verdict.blamed.empty()) centre = report_verdict.blamed.front().at;
  if (whole && centre != kNoEvent) {
    EventIndex from = centre > kWindowBefore ? centre - kWindowBefore : 0;
    for (EventIndex f = from; f < all.size() && f <= centre + kWindowAfter; ++f) window.push_back(all[f]);
  } else if (shown_run && shown_run->online && found_problem(*shown_run)) {
    window = s.archive.window(shown_id);
  } else {
    window = all;  // the beginning of a trace with nothing to show
  }
  const EventIndex from = window.empty() ? 0 : window.front().file;
  const EventIndex n = window.size();
  for (const KeptEvent& k : window) view.trace.events.push_back(k.event);
  for_each_index(report_verdict, [&](EventIndex& k) {
    k = k != kNoEvent && k >= from && k - from < n ? k - from : kNoEvent;
  });
  view.window_note = n == 0 ? fmt::format("the report shows none of the {} events", count)
                            : fmt::format("the report shows events {}..{} of {} (a window around the "
                                          "violation): event k there is event {}+k of the file",
                                          from, from + n - 1, count, from);
  if (!report_verdict.note.empty()) report_verdict.note += "; ";
  report_verdict.note += view.window_note;
  return view;
}

// One checker's entry in --json: its verdict, cycle, blames and witness execution.
nlohmann::ordered_json run_json(const Printer& p, const Run& r) {
  nlohmann::ordered_json c;
  c["checker"] = r.name;
  c["seconds"] = r.seconds;
  if (r.skipped) {
    c["skipped"] = r.skip_reason;
    return c;
  }
  const Verdict& v = r.verdict;
  c["answers_serializability"] = v.answers_serializability;
  c["answers_blame"] = v.answers_blame;
  if (v.answers_serializability) c["serializable"] = v.serializable;
  if (!v.decided()) {
    c["serializable"] = nullptr;
    c["undecided"] = v.undecided;
  }
  c["detected_at"] = event_json(p, v.detected_at);
  nlohmann::ordered_json cyc = nlohmann::ordered_json::array();
  for (const CycleEdge& e : v.cycle) {
    nlohmann::ordered_json ej;
    ej["from"] = txn_json(p, e.from);
    ej["to"] = txn_json(p, e.to);
    ej["from_event"] = event_json(p, e.from_event);
    ej["to_event"] = event_json(p, e.to_event);
    cyc.push_back(ej);
  }
  c["cycle"] = cyc;
  nlohmann::ordered_json bl = nlohmann::ordered_json::array();
  for (const Blame& b : v.blamed) {
    nlohmann::ordered_json bj;
    bj["txn"] = txn_json(p, b.txn);
    bj["interfering"] = event_json(p, b.interfering);
    bj["at"] = event_json(p, b.at);
    bl.push_back(bj);
  }
  if (v.answers_blame) c["blamed"] = bl;
  if (!v.witness_execution.empty()) {
    // The execution that witnesses the violation: events in order, a write's second
    // appearance being its commit.
    nlohmann::ordered_json wx = nlohmann::ordered_json::array();
    std::set<EventIndex> issued;
    for (EventIndex k : v.witness_execution) {
      nlohmann::ordered_json wj;
      wj["event"] = k;
      wj["commit"] = !issued.insert(k).second;
      wx.push_back(wj);
    }
    c["witness_execution"] = wx;
  }
  c["open_at_end"] = v.open_at_end;
  c["note"] = v.note;
  return c;
}

// --json: one object for the whole panel.
void print_json(const Panel& panel, const Stream& s, const Printer& p, const std::string& window_note) {
  nlohmann::ordered_json j;
  j["file"] = panel.opt.file;
  j["events"] = s.count;
  j["well_formed"] = s.stopped_reading.empty() ? nlohmann::ordered_json(true) : nlohmann::ordered_json(nullptr);
  if (!s.stopped_reading.empty()) j["stopped"] = s.stopped_reading;
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const Run& r : panel.runs) arr.push_back(run_json(p, r));
  j["checkers"] = arr;
  j["violation"] = any_problem(panel.runs);
  if (!window_note.empty()) j["report_window"] = window_note;
  fmt::print("{}\n", j.dump());
}

// One checker's lines of the text summary: its answer and time, then its witness by name.
void print_run_text(const Printer& p, const Run& r) {
  if (r.skipped) {
    fmt::print("{:<22} skipped: {} (it keeps the whole trace; online checkers: {})\n", r.name,
               r.skip_reason, online_names());
    return;
  }
  const Verdict& v = r.verdict;
  std::string what;
  if (v.answers_serializability) what = v.serializable ? "serializable" : "NOT serializable";
  if (v.answers_blame) {
    if (!what.empty()) what += ", ";
    what += v.blamed.empty() ? "no transaction to blame"
                             : fmt::format("{} transaction(s) to blame", v.blamed.size());
  }
  if (!v.decided()) what = "undecided: " + v.undecided;
  fmt::print("{:<22} {:<44} {:>10.3f} ms\n", r.name, what, r.seconds * 1e3);
  if (v.detected_at != kNoEvent) fmt::print("  detected at {}\n", p.event(v.detected_at));
  if (!v.cycle.empty()) {
    fmt::print("  cycle:\n");
    for (const CycleEdge& e : v.cycle) {
      fmt::print("    {} -> {}", p.txn(e.from), p.txn(e.to));
      if (e.from_event != kNoEvent)
        fmt::print(": {} before {}", p.event(e.from_event), p.event(e.to_event));
      fmt::print("\n");
    }
  }
  for (const Blame& b : v.blamed)
    fmt::print("  blame {}: {} interferes, reaching {}\n", p.txn(b.txn), p.event(b.interfering),
               p.event(b.at));
  if (!v.witness_execution.empty()) {
    std::string line;
    std::set<EventIndex> issued;
    for (EventIndex k : v.witness_execution)
      line += issued.insert(k).second ? fmt::format(" {}", k) : fmt::format(" c{}", k);
    fmt::print("  witness execution (event indices; cN = the commit of write N):{}\n", line);
  }
  if (!v.note.empty()) fmt::print("  note: {}\n", v.note);
}

// The default output: a header line, then each checker's lines.
void print_text(const Panel& panel, const Stream& s, const Printer& p) {
  if (s.stopped_reading.empty()) fmt::print("{}: {} events, well formed\n", panel.shown, s.count);
  else fmt::print("{}: stopped reading ({}): partial summary\n", panel.shown, s.stopped_reading);
  for (const Run& r : panel.runs) print_run_text(p, r);
}

// Writes --html and --dot (after the text summary's window note); false (the message
// printed) when a file cannot be written.
bool write_reports(const Panel& panel, const ReportView& view) {
  const CheckTraceOptions& opt = panel.opt;
  if (!view.window_note.empty() && !opt.json) fmt::print("note: {}\n", view.window_note);
  std::string error;
  report::HtmlHeader h;
  h.title = panel.shown;
  h.command = fmt::format("atomcheck check-trace '{}' --checker {}", opt.file, view.verdict.checker);
  if ((!opt.html.empty() &&
       !report::write_text_file(opt.html, report::render_html(view.trace, view.verdict, h), error)) ||
      (!opt.dot.empty() &&
       !report::write_text_file(opt.dot, report::render_dot(view.trace, view.verdict), error))) {
    fmt::print(stderr, "{}\n", error);
    return false;
  }
  return true;
}

// The panel run of check-trace: its steps in order, each a function above.
int run_builtin_checkers(const CheckTraceOptions& opt) {
  Panel panel{.opt = opt,
              .explicit_list = !opt.checkers.empty(),
              .report = !opt.html.empty() || !opt.dot.empty(),
              .shown = opt.file == "-" ? "<stdin>" : opt.file,
              .copt = {},
              .declared = {},
              .runs = {}};
  // Checkers first, so a typo is reported before a long file is read.
  const std::vector<std::string> wanted = panel.explicit_list ? opt.checkers : default_checkers();
  panel.copt.all = opt.all;
  // Ctrl-C and --time-limit stop the reading and the exponential deciders: what was not
  // answered by then is printed as undecided, exit 3.
  SigintScope sigint;
  panel.copt.deadline = Deadline::after(opt.time_limit, SigintScope::flag());
  if (!make_runs(panel, wanted)) return kExitBadInput;

  Stream s;
  if (!open_trace(panel, s)) return kExitBadInput;
  read_trace(panel, s);
  if (s.stopped_reading.empty() && !s.reader->error().empty()) {
    fmt::print(stderr, "{}\n", s.reader->error());
    return kExitBadInput;
  }
  if (s.stopped_early) return report_stopped_early(panel, s);
  if (s.stopped_reading.empty()) s.count = s.reader->events();
  const Names& names = s.reader->names();
  if (!rerun_atomic_set_checkers(panel, s, names)) return kExitBadInput;

  // Verdicts, converted to file indices; every event they name is looked up once.
  const std::unordered_map<EventIndex, KeptEvent> named = take_verdicts(panel, s);
  const Printer p{names, named};
  const ReportView view = panel.report ? report_view(panel, s, names) : ReportView{};
  if (opt.json) print_json(panel, s, p, view.window_note);
  else print_text(panel, s, p);
  if (panel.report && !write_reports(panel, view)) return kExitBadInput;
  return exit_code(panel.runs, panel.explicit_list);
}

// External checkers alone, or after the built-in ones named with --checker; the exit
// code is the more serious of the two (a violation before an error).
int run_check_trace(const CheckTraceOptions& opt) {
  std::vector<ExternalSpec> externals;
  std::string error;
  if (!parse_externals(opt.ext, externals, error)) {
    fmt::print(stderr, "{}\n", error);
    return kExitBadInput;
  }
  if (externals.empty()) return run_builtin_checkers(opt);
  if (opt.json || !opt.html.empty() || !opt.dot.empty()) {
    fmt::print(stderr, "--external prints text only; drop --json, --html and --dot\n");
    return kExitBadInput;
  }
  if (opt.file == "-") {
    fmt::print(stderr, "--external reads the trace file twice; give a file, not '-'\n");
    return kExitBadInput;
  }
  const int builtin = opt.checkers.empty() ? kExitOk : run_builtin_checkers(opt);
  if (builtin == kExitBadInput) return builtin;
  std::fflush(stdout);
  const int external = check_trace_externals(opt.file, opt.format, externals, opt.ext.dir);
  if (builtin == kExitProblem || external == kExitProblem) return kExitProblem;
  return std::max(builtin, external);
}

int run_list_checkers(bool json) {
  if (json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const CheckerInfo& c : checker_catalog()) {
      nlohmann::ordered_json j;
      j["name"] = c.name;
      j["description"] = c.description;
      j["serializability"] = c.serializability;
      j["blame"] = c.blame;
      arr.push_back(j);
    }
    nlohmann::ordered_json j;
    j["checkers"] = arr;
    fmt::print("{}\n", j.dump());
    return kExitOk;
  }
  for (const CheckerInfo& c : checker_catalog()) {
    std::string q = c.serializability && c.blame ? "serializability+blame"
                    : c.serializability        ? "serializability"
                                               : "blame";
    fmt::print("{:<22} {:<22} {}\n", c.name, q, c.description);
  }
  return kExitOk;
}

}  // namespace

void add_check_trace_command(CLI::App& app, int& rc) {
  auto opt = std::make_shared<CheckTraceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "check-trace", "Check a trace file (STD or JSONL) for conflict-serializability violations");
  cmd->add_option("file", opt->file, "Trace file; '-' reads standard input")->required();
  cmd->add_option("--checker", opt->checkers,
                  "Comma-separated checker names (default: every SC conflict checker; the TSO "
                  "and predictive ones run only when named; `atomcheck checkers` lists them)")
      ->delimiter(',');
  cmd->add_option("--format", opt->format,
                  "std or jsonl (default: from the file name, .jsonl/.json being JSONL)")
      ->check(CLI::IsMember({"std", "jsonl"}));
  cmd->add_flag("--all", opt->all, "Keep going after the first violation");
  cmd->add_option("--time-limit", opt->time_limit,
                  "Stop after SECONDS, 0: no limit; a checker not done by then is undecided (exit 3)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--atomic-sets", opt->atomic_sets,
                  "JSON with \"atomic_sets\" and \"units_of_work\" as in a spec, for the "
                  "atomic-set checkers (default: one set, every block a unit of work)");
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of the report");
  cmd->add_option("--html", opt->html, "Write the counterexample as a self-contained HTML page");
  cmd->add_option("--dot", opt->dot, "Write the transaction graph for Graphviz");
  // Tests force tiny blocks, so the archive's forgetting is exercised on short traces.
  cmd->add_option("--block-events", opt->block_events, "Events per block read ahead")
      ->group("")
      ->check(whole_number_in(1, std::uint64_t{1} << 24,
                              "a whole number from 1 to 16777216 (--block-events)"));
  add_external_options(*cmd, opt->ext);
  cmd->callback([opt, &rc] { rc = run_check_trace(*opt); });

  auto json = std::make_shared<bool>(false);
  CLI::App* list = app.add_subcommand("checkers", "List the registered checkers");
  list->add_flag("--json", *json, "Print one JSON object instead of the table");
  list->callback([json, &rc] { rc = run_list_checkers(*json); });
}

}  // namespace atomcheck::cli
