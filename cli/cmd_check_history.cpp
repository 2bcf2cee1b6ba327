// `atomcheck check-history FILE...|-`: decides recorded histories (Jepsen etcd logs,
// Jepsen/Knossos EDN, Porcupine's kv logs, atomcheck's JSONL; docs/check-history.md)
// against a named specification, one line per file. Exit 0 all linearizable, 1 some not,
// 2 bad input (one line naming file, line and field), 3 some undecided (a budget ran out).
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "checkers/lin_history_io.hpp"
#include "cli/commands.hpp"
#include "cli/report_history_html.hpp"

namespace atomcheck::cli {

namespace {

struct CheckHistoryArgs {
  std::vector<std::string> files;
  std::string format, spec, html, algorithm = "wing-gong";
  bool json = false, no_partition = false;
  std::uint64_t max_steps = 1'000'000'000;
  double timeout = 0;
  std::uint64_t max_memory_mib = 2048;
  unsigned jobs = 0;
};

// One file's outcome, for the line printed and the exit code.
struct FileOutcome {
  int rc = kExitOk;
  nlohmann::json json;
  std::string line;
};

FileOutcome bad_input(const std::string& file, const lin::HistoryError& e) {
  FileOutcome o;
  o.rc = kExitBadInput;
  const std::string where = e.line ? fmt::format("{}:{}", file, e.line) : file;
  o.line = e.field.empty() ? fmt::format("{}: {}", where, e.what()) : fmt::format("{}: {}: {}", where, e.field, e.what());
  o.json = {{"file", file}, {"verdict", "bad input"}, {"error", e.what()}, {"line", e.line}, {"field", e.field}};
  return o;
}

// The operations of the shortest failing prefix, as indices into `b.history`, and the
// line of the return that ends it.
struct Prefix {
  std::vector<std::uint32_t> ops;
  std::uint32_t last_line = 0;
  std::uint32_t last_op = 0;  // index into b.history: the return that fails
};
Prefix failing_prefix(const lin::BoundHistory& b, const lin::RecordedHistory& r, const lin::Spec& spec,
                      const lin::Options& o) {
  Prefix p;
  const lin::History pre = lin::shortest_failing_prefix(b.history, spec, o);
  std::uint64_t cut = 0;
  for (const lin::Operation& op : pre) cut = std::max(cut, op.call + 1);
  // The cut is just after a return: the latest return of an operation called before it.
  std::uint64_t last_ret = 0;
  for (std::uint32_t i = 0; i < b.history.size(); ++i) {
    const lin::Operation& op = b.history[i];
    if (op.call >= cut && !pre.empty()) continue;
    p.ops.push_back(i);
  }
  for (const lin::Operation& q : pre)
    if (!q.pending()) last_ret = std::max(last_ret, q.ret);
  for (std::uint32_t i : p.ops)
    if (!b.history[i].pending() && b.history[i].ret == last_ret) {
      p.last_op = i;
      p.last_line = r.ops[b.recorded[i]].ret_line;
    }
  return p;
}

FileOutcome check_one(const std::string& file, const CheckHistoryArgs& a, std::string* html) {
  const auto t0 = std::chrono::steady_clock::now();
  lin::RecordedHistory r;
  try {
    std::optional<lin::HistoryFormat> format;
    if (!a.format.empty()) format = lin::history_format_from_name(a.format);
    if (file == "-") {
      r = lin::read_history(std::cin, format);
    } else {
      std::ifstream in(file, std::ios::binary);
      if (!in) return bad_input(file, lin::HistoryError(0, "", "cannot be read"));
      r = lin::read_history(in, format);
    }
  } catch (const lin::HistoryError& e) {
    return bad_input(file, e);
  }
  const std::string spec_name = a.spec.empty() ? lin::default_history_spec(r) : a.spec;
  std::unique_ptr<lin::Spec> spec = lin::make_history_spec(spec_name, r.values);
  lin::BoundHistory b;
  try {
    b = lin::bind_history(r, *spec);
  } catch (const lin::HistoryError& e) {
    return bad_input(file, e);
  }
  lin::Options o;
  o.algorithm = a.algorithm == "just-in-time" ? lin::Algorithm::just_in_time : lin::Algorithm::wing_gong;
  o.max_steps = a.max_steps;
  o.timeout_seconds = a.timeout;
  o.max_memory = a.max_memory_mib << 20;
  o.jobs = a.jobs;
  o.partition = !a.no_partition;
  o.report_parts = a.json;
  lin::Answer ans = lin::check(b.history, *spec, o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  FileOutcome out;
  const std::string verdict = !ans.undecided.empty() ? "undecided" : ans.linearizable ? "linearizable" : "not linearizable";
  out.rc = !ans.undecided.empty() ? kExitBudget : ans.linearizable ? kExitOk : kExitProblem;
  out.line = fmt::format("{}: {} ({}, {}, {} operations, {:.3f} s){}", file, verdict, lin::history_format_name(r.format),
                         spec_name, b.history.size(), seconds, ans.undecided.empty() ? "" : ": " + ans.undecided);
  out.json = {{"file", file},         {"format", lin::history_format_name(r.format)},
              {"spec", spec_name},    {"operations", b.history.size()},
              {"verdict", verdict},   {"seconds", seconds},
              {"steps", ans.steps}};
  if (!ans.undecided.empty()) out.json["reason"] = ans.undecided;
  if (a.json) {
    nlohmann::json keys = nlohmann::json::array();
    for (const lin::PartAnswer& p : ans.parts)
      keys.push_back({{"key", p.key ? r.values->value(*p.key) : nlohmann::json(nullptr)},
                      {"operations", p.operations},
                      {"verdict", p.verdict},
                      {"steps", p.steps},
                      {"seconds", p.seconds}});
    out.json["keys"] = std::move(keys);
  }
  // The shortest failing prefix costs more searches than the verdict (1.2 s against 0.02 s on
  // Porcupine's c50-bad): computed when --json or --html asks for it.
  if (!ans.linearizable && ans.undecided.empty() && !a.json && !html)
    out.line += "; --json or --html shows where it fails";
  if (ans.linearizable || !ans.undecided.empty() || (!a.json && !html)) return out;
  const Prefix p = failing_prefix(b, r, *spec, o);
  if (a.json) {
    nlohmann::json ops = nlohmann::json::array();
    for (std::uint32_t i : p.ops) {
      const lin::RecordedOp& rop = r.ops[b.recorded[i]];
      ops.push_back({{"client", r.clients[rop.client]},
                     {"op", lin::describe_op(rop, *r.values)},
                     {"call_line", rop.call_line},
                     {"return_line", rop.ret_line}});
    }
    out.json["failing_prefix"] = {{"operations", p.ops.size()}, {"ends_at_line", p.last_line}, {"ops", std::move(ops)}};
  }
  if (html && html->empty()) {
    report::HistoryPicture pic;
    pic.title = file;
    pic.spec = spec_name;
    pic.prefix_ops = p.ops;
    pic.failing_op = p.last_op;
    pic.failing_line = p.last_line;
    pic.longest = ans.longest;
    *html = report::render_history_html(r, b, pic);
  }
  return out;
}

int run_check_history(const CheckHistoryArgs& a) {
  if (!a.format.empty() && !lin::history_format_from_name(a.format)) {
    fmt::print(stderr, "--format {}: not a history format (etcd, edn, kv, jsonl)\n", a.format);
    return kExitBadInput;
  }
  if (!a.spec.empty() && !lin::make_history_spec(a.spec, nullptr)) {
    std::string names;
    for (const std::string& n : lin::history_spec_names()) names += (names.empty() ? "" : ", ") + n;
    fmt::print(stderr, "--spec {}: not a specification ({})\n", a.spec, names);
    return kExitBadInput;
  }
  int stdin_uses = 0;
  for (const std::string& f : a.files) stdin_uses += f == "-";
  if (stdin_uses > 1) {
    fmt::print(stderr, "'-' (standard input) can be named once\n");
    return kExitBadInput;
  }
  bool any_bad = false, any_problem = false, any_budget = false;
  std::string html;
  for (const std::string& f : a.files) {
    FileOutcome o = check_one(f, a, a.html.empty() ? nullptr : &html);
    if (a.json) {
      fmt::print("{}\n", o.json.dump());
    } else {
      fmt::print(o.rc == kExitBadInput ? stderr : stdout, "{}\n", o.line);
    }
    std::fflush(stdout);
    any_bad |= o.rc == kExitBadInput;
    any_problem |= o.rc == kExitProblem;
    any_budget |= o.rc == kExitBudget;
  }
  if (!a.html.empty()) {
    if (html.empty()) {
      fmt::print(stderr, "--html {}: no history was found not linearizable, no picture written\n", a.html);
    } else {
      std::ofstream out(a.html, std::ios::binary);
      out << html;
      if (!out) {
        fmt::print(stderr, "--html {}: cannot be written\n", a.html);
        return kExitBadInput;
      }
    }
  }
  return any_bad ? kExitBadInput : any_problem ? kExitProblem : any_budget ? kExitBudget : kExitOk;
}

}  // namespace

void add_check_history_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<CheckHistoryArgs>();
  CLI::App* cmd = app.add_subcommand(
      "check-history",
      "Decide recorded histories (Jepsen etcd logs, Jepsen/Knossos EDN, Porcupine kv logs, JSONL) for "
      "linearizability against a specification, one line per file (docs/check-history.md)");
  cmd->add_option("files", a->files, "History files; - reads standard input")->required();
  cmd->add_option("--format", a->format, "etcd, edn (kv: the same), jsonl (default: detected from the content)");
  cmd->add_option("--spec", a->spec,
                  "cas-register, kv, register, set, map, counter, queue, stack, deque, mutex or a registered one "
                  "(default: etcd logs cas-register; EDN and JSONL kv when operations have keys, else cas-register)");
  cmd->add_flag("--json", a->json,
                "One JSON object per file: verdict, the shortest failing prefix, each key's verdict and time");
  cmd->add_option("--html", a->html, "Write a picture of the first history found not linearizable to this file");
  cmd->add_option("--algorithm", a->algorithm, "wing-gong (default, as Porcupine) or just-in-time (Lowe's)")
      ->check(CLI::IsMember({"wing-gong", "just-in-time"}));
  cmd->add_option("--max-steps", a->max_steps, "Search steps per file, then undecided (default 10^9)")
      ->check(at_least_one);
  cmd->add_option("--timeout", a->timeout, "Seconds per file, then undecided (default: none)")
      ->check(non_negative_seconds);
  cmd->add_option("--max-memory", a->max_memory_mib, "MiB of search memo per file, then undecided (default 2048)")
      ->check(at_least_one);
  cmd->add_option("--jobs", a->jobs, "Threads deciding keys at once (default: every core)")->check(unsigned_integer);
  cmd->add_flag("--no-partition", a->no_partition, "Decide a keyed history whole, not key by key");
  cmd->callback([a, &rc] { rc = run_check_history(*a); });
}

}  // namespace atomcheck::cli
