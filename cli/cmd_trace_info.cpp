// `atomcheck trace-info FILE`: streams a trace file once and prints what RAPID's metadata
// engine prints (events by kind, threads, variables, locks, locations) plus transactions,
// the deepest begin/end nesting and whether the trace is well formed. Exit 0 when well
// formed, 1 when not (the first problem is printed), 2 when the file cannot be read.
#include <cstdio>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "trace/summary.hpp"
#include "trace/trace_io.hpp"
#include "trace/validate.hpp"

namespace atomcheck::cli {

namespace {

struct TraceInfoOptions {
  std::string file;
  std::string format;  // "", "std" or "jsonl"
  bool json = false;
};

int run_trace_info(const TraceInfoOptions& opt) {
  TraceFormat format = opt.format.empty() ? format_for_path(opt.file)
                       : opt.format == "jsonl" ? TraceFormat::jsonl
                                               : TraceFormat::std_text;
  TraceSummary s;
  std::string problem;
  try {
    auto reader = open_trace(opt.file, format);
    ValidateOptions vopt;
    // STD has no commits; JSONL may, and then every write is tracked until committed.
    vopt.check_commits = format == TraceFormat::jsonl;
    TraceValidator validator(reader->names(), vopt);
    SummaryBuilder summary;
    Event e;
    while (reader->next(e)) {
      summary.on_event(e);
      validator.on_event(e, reader->line());
    }
    if (!validator.finish() || !validator.ok()) {
      problem = fmt::format("{}:{}: {}", opt.file == "-" ? "<stdin>" : opt.file,
                            validator.problem_line(), validator.problem());
    }
    s = summary.result(reader->names());
  } catch (const TraceError& err) {
    fmt::print(stderr, "{}\n", err.what());
    return kExitBadInput;
  }

  const char* format_name = format == TraceFormat::jsonl ? "jsonl" : "std";
  if (opt.json) {
    nlohmann::ordered_json j;
    j["file"] = opt.file;
    j["format"] = format_name;
    j["events"] = s.events;
    nlohmann::ordered_json kinds;
    for (int i = 0; i < kOpCount; ++i) kinds[std::string(op_name(static_cast<Op>(i)))] = s.by_op[i];
    j["by_kind"] = kinds;
    j["buffered_reads"] = s.buffered_reads;
    j["threads"] = s.threads;
    j["named_threads"] = s.named_threads;
    j["variables"] = s.variables;
    j["read_variables"] = s.read_variables;
    j["written_variables"] = s.written_variables;
    j["locks"] = s.locks;
    j["locations"] = s.locations;
    j["transactions"] = s.transactions;
    j["blocks"] = s.blocks;
    j["unary"] = s.unary;
    j["open_at_end"] = s.open_blocks;
    j["max_nesting"] = s.max_nesting;
    j["well_formed"] = problem.empty();
    j["problem"] = problem.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(problem);
    fmt::print("{}\n", j.dump());
  } else {
    fmt::print("{:<16}{}\n", "file", opt.file);
    fmt::print("{:<16}{}\n", "format", format_name);
    fmt::print("{:<16}{}\n", "events", s.events);
    for (int i = 0; i < kOpCount; ++i) {
      fmt::print("  {:<14}{}\n", op_name(static_cast<Op>(i)), s.by_op[i]);
    }
    fmt::print("{:<16}{}\n", "buffered reads", s.buffered_reads);
    fmt::print("{:<16}{}", "threads", s.threads);
    if (s.named_threads != s.threads) fmt::print(" ({} named)", s.named_threads);
    fmt::print("\n");
    fmt::print("{:<16}{} (read {}, written {})\n", "variables", s.variables, s.read_variables,
               s.written_variables);
    fmt::print("{:<16}{}\n", "locks", s.locks);
    fmt::print("{:<16}{}\n", "locations", s.locations);
    fmt::print("{:<16}{} ({} blocks, {} unary; {} open at end)\n", "transactions", s.transactions,
               s.blocks, s.unary, s.open_blocks);
    fmt::print("{:<16}{}\n", "max nesting", s.max_nesting);
    if (problem.empty()) {
      fmt::print("{:<16}yes\n", "well formed");
    } else {
      fmt::print("{:<16}no: {}\n", "well formed", problem);
    }
  }
  return problem.empty() ? kExitOk : kExitProblem;
}

}  // namespace

void add_trace_info_command(CLI::App& app, int& rc) {
  auto opt = std::make_shared<TraceInfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "trace-info", "Print statistics of a trace file (STD or JSONL) and whether it is well formed");
  cmd->add_option("file", opt->file, "Trace file; '-' reads standard input")->required();
  cmd->add_option("--format", opt->format,
                  "std or jsonl (default: from the file name, .jsonl/.json being JSONL)")
      ->check(CLI::IsMember({"std", "jsonl"}));
  cmd->add_flag("--json", opt->json, "Print one JSON object instead of the table");
  cmd->callback([opt, &rc] { rc = run_trace_info(*opt); });
}

}  // namespace atomcheck::cli
