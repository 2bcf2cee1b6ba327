// Trace file parsing speed: reads a generated 10^7-event STD file (and a 10^6-event JSONL
// file) and reports events per second. The files are generated once into
// $TMPDIR/atomcheck-bench/ from a fixed seed (8 threads, 1000 variables, 16 locks, forks
// and nested blocks), so runs are comparable. ATOMCHECK_BENCH_EVENTS overrides the STD
// size. The page cache is warm after the first iteration: this measures the parser, not
// the disk.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/core.h>

#include "trace/random_trace.hpp"
#include "trace/summary.hpp"
#include "trace/trace_io.hpp"
#include "trace/validate.hpp"

namespace {

using namespace atomcheck;

std::uint64_t std_events() {
  const char* env = std::getenv("ATOMCHECK_BENCH_EVENTS");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 10'000'000ULL;
}

RandomTraceParams bench_params(std::uint64_t events) {
  RandomTraceParams p;
  p.threads = 8;
  p.vars = 1000;
  p.locks = 16;
  p.events = static_cast<std::uint32_t>(events);
  p.max_txn_len = 20;
  p.max_nesting = 3;
  p.rmw_permille = 0;  // STD has no rmw
  return p;
}

// Writes the generated trace in chunks so that 10^7 events never sit in memory.
std::string generate(std::uint64_t events, bool jsonl) {
  const char* tmp = std::getenv("TMPDIR");
  std::filesystem::path dir = std::filesystem::path(tmp != nullptr ? tmp : "/tmp") / "atomcheck-bench";
  std::filesystem::create_directories(dir);
  std::string path = (dir / fmt::format("parse-{}.{}", events, jsonl ? "jsonl" : "std")).string();
  if (std::filesystem::exists(path)) return path;
  std::string tmp_path = path + ".part";
  std::FILE* f = std::fopen(tmp_path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("cannot write " + tmp_path);
  RandomTraceParams p = bench_params(events);
  RandomTraceGenerator gen(p, 12345);
  Trace chunk;
  gen.fill_names(chunk.names);
  Event e;
  std::uint64_t loc = 1;
  bool more = true;
  while (more) {
    chunk.events.clear();
    while (chunk.events.size() < 100000 && (more = gen.next(e))) {
      if (!jsonl) e.value = 0;  // STD carries no values
      e.loc = static_cast<std::uint32_t>(loc++ % 5000);
      chunk.events.push_back(e);
    }
    if (jsonl) write_jsonl(f, chunk);
    else write_std(f, chunk);
  }
  std::fclose(f);
  std::filesystem::rename(tmp_path, path);
  return path;
}

void parse_file(benchmark::State& state, const std::string& path, TraceFormat format) {
  std::uint64_t events = 0;
  for (auto _ : state) {
    auto reader = open_trace(path, format);
    Event e;
    events = 0;
    std::uint64_t sink = 0;
    while (reader->next(e)) {
      ++events;
      sink += e.target;
    }
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events * state.iterations()));
  state.SetBytesProcessed(
      static_cast<std::int64_t>(std::filesystem::file_size(path) * state.iterations()));
  state.counters["events"] = static_cast<double>(events);
}

void BM_ParseStd(benchmark::State& state) {
  parse_file(state, generate(std_events(), false), TraceFormat::std_text);
}
BENCHMARK(BM_ParseStd)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ParseJsonl(benchmark::State& state) {
  parse_file(state, generate(1'000'000, true), TraceFormat::jsonl);
}
BENCHMARK(BM_ParseJsonl)->Unit(benchmark::kMillisecond)->Iterations(3);

// What trace-info does per event: parse, validate and summarize.
void BM_TraceInfoStd(benchmark::State& state) {
  std::string path = generate(std_events(), false);
  std::uint64_t events = 0;
  for (auto _ : state) {
    auto reader = open_trace(path, TraceFormat::std_text);
    ValidateOptions vopt;
    vopt.check_commits = false;
    TraceValidator validator(reader->names(), vopt);
    SummaryBuilder summary;
    Event e;
    while (reader->next(e)) {
      summary.on_event(e);
      validator.on_event(e, reader->line());
    }
    events = validator.events();
    if (!validator.ok()) state.SkipWithError(validator.problem().c_str());
    benchmark::DoNotOptimize(summary.result(reader->names()).events);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(events * state.iterations()));
}
BENCHMARK(BM_TraceInfoStd)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
