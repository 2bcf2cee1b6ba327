// `validate --traces DIR` and `validate --minimise`: the corpus mode and the delta
// debugging of disagreements, beside the exploring command in cmd_validate.cpp.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include <fmt/core.h>

#include "cli/interrupt.hpp"
#include "cli/minimise.hpp"
#include "cli/validate_core.hpp"
#include "trace/trace_io.hpp"
#include "trace/validate.hpp"

namespace atomcheck::cli::validate_impl {

bool judge_corpus(const std::string& path, MemoryRun& run, std::string& error) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec))
    if (e.is_regular_file()) files.push_back(e.path().string());
  if (ec) {
    error = fmt::format("{}: {}", path, ec.message());
    return false;
  }
  std::sort(files.begin(), files.end());
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string& f : files) {
    if (SigintScope::raised()) {
      run.result.stop = StopReason::interrupted;
      break;
    }
    Trace trace;
    try {
      trace = read_trace(f);
    } catch (const TraceError& e) {
      fmt::print(stderr, "not judged: {}\n", e.what());
      continue;
    }
    if (std::optional<std::string> bad = validate(trace, ValidateOptions{})) {
      fmt::print(stderr, "not judged: {}: {}\n", f, *bad);
      continue;
    }
    ++run.result.executions;
    evaluate(trace, run.instances);
    judge_execution(run, trace, run.judged++, f);
  }
  run.result.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.complete = run.result.stop == StopReason::none;
  return true;
}

// Fresh instances of the checker and its judge answer again at every step of the delta
// debugging.
void minimise_disagreements(const ValidateArgs& a, TraceDir& dir, const CheckerOptions& copt,
                            std::vector<MemoryRun>& runs) {
  for (MemoryRun& run : runs)
    for (Row& row : run.rows) {
      if (row.predictive) continue;  // its truth is over all executions, not one trace
      const Instance& original = run.instances[row.checker];
      std::vector<std::string> names;
      std::vector<ExternalSpec> ext;
      if (original.external)
        ext.push_back(original.external->spec());
      else
        names.push_back(original.name);
      for (QuestionStats& q : row.questions)
        for (std::optional<Disagreement>* d : {&q.first, &q.first_error}) {
          if (!*d || !(*d)->trace) continue;
          std::vector<Instance> pair;
          std::vector<Row> rows;
          std::vector<Skipped> skipped;
          std::string unused;
          build_rows(names, ext, &dir, copt, false, pair, rows, skipped, unused);
          if (rows.size() != 1) continue;
          Instance& c = pair[rows[0].checker];
          Instance& j = pair[rows[0].judge];
          const bool error = d == &q.first_error;
          const Question question = q.question;
          bool want_cp = false, want_jp = false, want_sets = false;
          // The same disagreement: the same answers again (blame: the sets still differ).
          auto answers = [&](const Trace& t) {
            evaluate(t, pair);
            if (c.external && !c.trace_file.empty()) std::remove(c.trace_file.c_str());
            if (error) return !c.error.empty();
            if (!c.error.empty() || !c.verdict.decided() || !j.verdict.decided()) return false;
            return positive(c, question) == want_cp && positive(j, question) == want_jp &&
                   (question == Question::serializability || c.external || (c.blamed != j.blamed) == want_sets);
          };
          evaluate(*(*d)->trace, pair);
          want_cp = positive(c, question);
          want_jp = positive(j, question);
          want_sets = c.blamed != j.blamed;
          if (!answers(*(*d)->trace)) continue;  // not reproduced (a flaky external checker)
          MinimiseResult m = minimise_trace(*(*d)->trace, answers, a.minimise_budget);
          // An external checker's own format (as it was given it); else STD when it
          // carries everything, JSONL otherwise.
          std::string text;
          TraceFormat format = c.external ? c.external->spec().format : TraceFormat::std_text;
          try {
            text = format == TraceFormat::jsonl ? to_jsonl_string(m.trace)
                   : c.external                 ? to_std_string(std_projection(m.trace))
                                                : to_std_string(m.trace);
          } catch (const TraceError&) {
            format = TraceFormat::jsonl;
            text = to_jsonl_string(m.trace);
          }
          const std::string file = dir.next_file(original.name + "-minimised", format);
          if (std::FILE* f = std::fopen(file.c_str(), "w")) {
            std::fputs(text.c_str(), f);
            std::fclose(f);
          }
          (*d)->minimised_file = file;
          (*d)->minimised_events = m.trace.events.size();
          Disagreement at = **d;
          at.schedule = at.kept_file = file;
          Target corpus;
          corpus.kind = "traces";
          (*d)->minimised_command = replay_of(corpus, run, row, at) +
                                    (m.budget_hit ? fmt::format("   (budget of {} tests reached)", a.minimise_budget) : "");
        }
    }
}

}  // namespace atomcheck::cli::validate_impl
