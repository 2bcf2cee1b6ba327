// `atomcheck check-trace FILE`: streams a trace file once through the well-formedness
// validator and the chosen checkers (all registered ones by default) and prints, per
// checker, its verdict, its witness by name (threads, variables, event indices, file
// lines) and the time it took. `atomcheck checkers` lists the catalogue.
// Exit 0 serializable and nothing blamed, 1 some checker found a violation, 2 bad input
// (unreadable or malformed file, unknown checker), 3 the oracle was asked for but the
// trace is too long for it.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "checkers/atomic_set.hpp"
#include "checkers/registry.hpp"
#include "cli/commands.hpp"
#include "cli/report_graph.hpp"
#include "cli/report_html.hpp"
#include "trace/trace_io.hpp"
#include "trace/validate.hpp"

namespace atomcheck::cli {

namespace {

// The oracle buffers the trace and builds a quadratic closure: beyond this many events it
// is skipped (with a note) rather than exhausting memory.
constexpr std::uint64_t kOracleMaxEvents = 20000;
// Line numbers are kept for this many events (witnesses of longer traces give indices).
constexpr std::uint64_t kMaxTrackedLines = 1u << 22;
// Events are read in chunks so each checker is timed on whole chunks.
constexpr std::size_t kChunk = 1u << 16;

struct CheckTraceOptions {
  std::string file;
  std::string format;
  std::vector<std::string> checkers;
  bool all = false;
  bool json = false;
  std::string html, dot;  // report files for the first checker that found a problem
  std::string atomic_sets;  // declarations for the atomic-set checkers (JSON)
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
  double seconds = 0;
  bool skipped = false;  // the oracle on a too-long trace
  Verdict verdict;
};

std::string valid_names() {
  std::string s;
  for (const CheckerInfo& c : checker_catalog()) {
    if (!s.empty()) s += ", ";
    s += c.name;
  }
  return s;
}

// Names and lines for printing witnesses.
struct Printer {
  const Names& names;
  const std::vector<Event>& events;  // the first kMaxTrackedLines events
  const std::vector<std::uint64_t>& lines;

  std::string line_of(EventIndex i) const {
    if (i < lines.size() && lines[i] != 0) return fmt::format(" (line {})", lines[i]);
    return "";
  }
  std::string event(EventIndex i) const {
    if (i == kNoEvent) return "?";
    if (i >= events.size()) return fmt::format("event {}", i);
    const Event& e = events[i];
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
  if (i < p.lines.size() && p.lines[i] != 0) j["line"] = p.lines[i];
  if (i < p.events.size()) {
    j["thread"] = p.names.thread(p.events[i].thread);
    j["op"] = std::string(op_name(p.events[i].op));
  }
  return j;
}

bool found_problem(const Run& r) {
  return !r.skipped && (!r.verdict.serializable || !r.verdict.blamed.empty());
}

int run_check_trace(const CheckTraceOptions& opt) {
  // Checkers first, so a typo is reported before a long file is read.
  std::vector<std::string> wanted = opt.checkers;
  bool explicit_list = !wanted.empty();
  if (!explicit_list)
    for (const CheckerInfo& c : checker_catalog()) {
      // The TSO checkers answer another question (TSO, not SC, serializability) and the
      // trace ones are exponential: they run only when named.
      if (c.name.rfind("tso-", 0) == 0 || c.name.rfind("trace-tso", 0) == 0) continue;
      // Predictive checkers answer for every interleaving, not for this trace.
      if (c.predictive) continue;
      wanted.push_back(c.name);
    }
  CheckerOptions copt;
  copt.all = opt.all;
  AtomicSetNames declared;
  if (!opt.atomic_sets.empty()) {
    std::string error;
    if (!read_atomic_set_names(opt.atomic_sets, declared, error)) {
      fmt::print(stderr, "{}\n", error);
      return kExitBadInput;
    }
  }
  std::vector<Run> runs;
  for (const std::string& n : wanted) {
    auto c = make_checker(n, copt);
    if (!c) {
      fmt::print(stderr, "atomcheck: unknown checker '{}'; valid names: {}\n", n, valid_names());
      return kExitBadInput;
    }
    Run r;
    r.name = n;
    r.checker = std::move(c);
    runs.push_back(std::move(r));
  }

  TraceFormat format = opt.format.empty() ? format_for_path(opt.file)
                       : opt.format == "jsonl" ? TraceFormat::jsonl
                                               : TraceFormat::std_text;
  const std::string shown = opt.file == "-" ? "<stdin>" : opt.file;
  std::unique_ptr<TraceReader> reader;
  std::vector<Event> kept;  // events kept for printing witnesses
  std::vector<std::uint64_t> lines;
  std::uint64_t count = 0;
  // Event numbers of checkers that do not see commits are indices into tau; the file
  // index of tau event k is k before the first commit, tau_origin[k - tau_prefix] after.
  std::uint64_t tau_count = 0, tau_prefix = kNoEvent;
  std::vector<std::uint64_t> tau_origin;
  try {
    reader = open_trace(opt.file, format);
    ValidateOptions vopt;
    vopt.check_commits = format == TraceFormat::jsonl;
    TraceValidator validator(reader->names(), vopt);
    std::vector<Event> chunk;
    chunk.reserve(kChunk);
    auto feed = [&]() {
      for (Run& r : runs) {
        if (r.skipped) continue;
        if ((r.name == "oracle" || r.name == "atomic-set-oracle") && count > kOracleMaxEvents) {
          r.skipped = true;
          r.checker->reset();
          continue;
        }
        auto t0 = std::chrono::steady_clock::now();
        // Checkers of the trace tau never see commits (DESIGN.md "Events").
        bool drop = !r.checker->wants_commits();
        for (const Event& e : chunk)
          if (!drop || e.op != Op::commit) r.checker->on_event(e);
        r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      chunk.clear();
    };
    Event e;
    while (reader->next(e)) {
      if (!validator.on_event(e, reader->line())) {
        fmt::print(stderr, "{}:{}: {}\n", shown, validator.problem_line(), validator.problem());
        return kExitBadInput;
      }
      if (count < kMaxTrackedLines) {
        kept.push_back(e);
        lines.push_back(reader->line());
      }
      if (e.op == Op::commit) {
        if (tau_prefix == kNoEvent) tau_prefix = tau_count;
      } else {
        if (tau_prefix != kNoEvent) tau_origin.push_back(count);
        ++tau_count;
      }
      ++count;
      chunk.push_back(e);
      if (chunk.size() == kChunk) feed();
    }
    feed();
  } catch (const TraceError& err) {
    fmt::print(stderr, "{}\n", err.what());
    return kExitBadInput;
  }
  // Declarations name variables and labels, which have ids only once the trace is read:
  // the atomic-set checkers run again over the kept events with the resolved ids.
  if (!opt.atomic_sets.empty()) {
    std::string error;
    if (count > kMaxTrackedLines) error = fmt::format("{}: too long for --atomic-sets", shown);
    else if (!resolve_atomic_sets(declared, reader->names(), copt.atomic_sets, error))
      error = fmt::format("{}:1: {}", opt.atomic_sets, error);
    if (!error.empty()) {
      fmt::print(stderr, "{}\n", error);
      return kExitBadInput;
    }
    for (Run& r : runs) {
      if (r.skipped || r.name.rfind("atomic-set", 0) != 0) continue;
      r.checker = make_checker(r.name, copt);
      auto t0 = std::chrono::steady_clock::now();
      for (const Event& e : kept)
        if (e.op != Op::commit) r.checker->on_event(e);
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
  }
  auto file_index = [&](EventIndex k) -> EventIndex {
    if (k == kNoEvent || tau_prefix == kNoEvent || k < tau_prefix) return k;
    return k - tau_prefix < tau_origin.size() ? tau_origin[k - tau_prefix] : k;
  };
  for (Run& r : runs) {
    if (r.skipped) continue;
    auto t0 = std::chrono::steady_clock::now();
    r.verdict = r.checker->verdict();
    r.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r.checker->wants_commits()) continue;
    Verdict& v = r.verdict;
    v.detected_at = file_index(v.detected_at);
    for (CycleEdge& e : v.cycle) {
      e.from.first = file_index(e.from.first);
      e.to.first = file_index(e.to.first);
      e.from_event = file_index(e.from_event);
      e.to_event = file_index(e.to_event);
    }
    for (Blame& b : v.blamed) {
      b.txn.first = file_index(b.txn.first);
      b.interfering = file_index(b.interfering);
      b.at = file_index(b.at);
    }
    for (EventIndex& k : v.witness_execution) k = file_index(k);
  }

  Printer p{reader->names(), kept, lines};
  bool problem = false, oracle_skipped = false;
  for (const Run& r : runs) {
    problem |= found_problem(r);
    oracle_skipped |= r.skipped && explicit_list;
  }

  if (opt.json) {
    nlohmann::ordered_json j;
    j["file"] = opt.file;
    j["events"] = count;
    j["well_formed"] = true;
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const Run& r : runs) {
      nlohmann::ordered_json c;
      c["checker"] = r.name;
      c["seconds"] = r.seconds;
      if (r.skipped) {
        c["skipped"] = fmt::format("the trace has more than {} events", kOracleMaxEvents);
        arr.push_back(c);
        continue;
      }
      const Verdict& v = r.verdict;
      c["answers_serializability"] = v.answers_serializability;
      c["answers_blame"] = v.answers_blame;
      if (v.answers_serializability) c["serializable"] = v.serializable;
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
      arr.push_back(c);
    }
    j["checkers"] = arr;
    j["violation"] = problem;
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{}: {} events, well formed\n", shown, count);
    for (const Run& r : runs) {
      if (r.skipped) {
        fmt::print("{:<22} skipped: the trace has more than {} events\n", r.name, kOracleMaxEvents);
        continue;
      }
      const Verdict& v = r.verdict;
      std::string what;
      if (v.answers_serializability) what = v.serializable ? "serializable" : "NOT serializable";
      if (v.answers_blame) {
        if (!what.empty()) what += ", ";
        what += v.blamed.empty() ? "no transaction to blame"
                                 : fmt::format("{} transaction(s) to blame", v.blamed.size());
      }
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
  }
  if (!opt.html.empty() || !opt.dot.empty()) {
    const Run* shown_run = nullptr;
    for (const Run& r : runs)
      if (!shown_run && found_problem(r)) shown_run = &r;
    for (const Run& r : runs)
      if (!shown_run && !r.skipped) shown_run = &r;
    Verdict v = shown_run ? shown_run->verdict : Verdict{};
    if (shown_run) v.checker = shown_run->name;
    Trace t{kept, reader->names()};
    std::string error;
    report::HtmlHeader h{shown, "",
                         fmt::format("atomcheck check-trace '{}' --checker {}", opt.file, v.checker)};
    if ((!opt.html.empty() && !report::write_text_file(opt.html, report::render_html(t, v, h), error)) ||
        (!opt.dot.empty() && !report::write_text_file(opt.dot, report::render_dot(t, v), error))) {
      fmt::print(stderr, "{}\n", error);
      return kExitBadInput;
    }
  }
  if (problem) return kExitProblem;
  return oracle_skipped ? kExitBudget : kExitOk;
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
                  "Comma-separated checker names (default: every registered checker; "
                  "`atomcheck checkers` lists them)")
      ->delimiter(',');
  cmd->add_option("--format", opt->format,
                  "std or jsonl (default: from the file name, .jsonl/.json being JSONL)")
      ->check(CLI::IsMember({"std", "jsonl"}));
  cmd->add_flag("--all", opt->all, "Keep going after the first violation");
  cmd->add_option("--atomic-sets", opt->atomic_sets,
                  "JSON with \"atomic_sets\" and \"units_of_work\" as in a spec, for the "
                  "atomic-set checkers (default: one set, every block a unit of work)");
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of the report");
  cmd->add_option("--html", opt->html, "Write the counterexample as a self-contained HTML page");
  cmd->add_option("--dot", opt->dot, "Write the transaction graph for Graphviz");
  cmd->callback([opt, &rc] { rc = run_check_trace(*opt); });

  auto json = std::make_shared<bool>(false);
  CLI::App* list = app.add_subcommand("checkers", "List the registered checkers");
  list->add_flag("--json", *json, "Print one JSON object instead of the table");
  list->callback([json, &rc] { rc = run_list_checkers(*json); });
}

}  // namespace atomcheck::cli
