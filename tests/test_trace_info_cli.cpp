// `atomcheck trace-info` end to end: the exact table and JSON, the exact stderr line and
// exit code 2 for each class of malformed input (empty, truncated, unreadable files
// included), exit 1 for an ill-formed trace, standard input, --format; and the streaming
// statistics checked against an independent count (trace/transactions.hpp) on random traces.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"
#include "trace/random_trace.hpp"
#include "trace/summary.hpp"
#include "trace/trace_io.hpp"
#include "trace/transactions.hpp"

namespace atomcheck {
namespace {

using testing::run_cli;

std::string write_temp(const std::string& name, const std::string& content) {
  static const std::string dir = testing::temp_dir();
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

TEST(TraceInfoCli, PrintsTheTable) {
  std::string path = testing::data_path("traces/aerodrome-fig2-rho2.std");
  auto r = run_cli({"trace-info", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, fmt::format(
                       "file            {}\n"
                       "format          std\n"
                       "events          8\n"
                       "  read          2\n"
                       "  write         2\n"
                       "  commit        0\n"
                       "  fence         0\n"
                       "  rmw           0\n"
                       "  acquire       0\n"
                       "  release       0\n"
                       "  fork          0\n"
                       "  join          0\n"
                       "  begin         2\n"
                       "  end           2\n"
                       "buffered reads  0\n"
                       "threads         2\n"
                       "variables       2 (read 2, written 2)\n"
                       "locks           0\n"
                       "locations       8\n"
                       "transactions    2 (2 blocks, 0 unary; 0 open at end)\n"
                       "max nesting     1\n"
                       "well formed     yes\n",
                       path));
}

TEST(TraceInfoCli, JsonCarriesEveryFigure) {
  std::string path = write_temp("mix.std",
                                "# forks, locks, nesting, unary events and an open block\n"
                                "main|fork(w1)|1\n"
                                "w1|begin|2\n"
                                "w1|begin|3\n"
                                "w1|acq(m)|4\n"
                                "w1|w(x)|5\n"
                                "w1|rel(m)|6\n"
                                "w1|end|7\n"
                                "w1|end|7\n"
                                "main|r(x)|8\n"
                                "main|r(y)|8\n"
                                "main|join(w1)|9\n"
                                "main|fork(w2)|10\n"
                                "main|begin|11\n");
  auto r = run_cli({"trace-info", "--json", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["file"], path);
  EXPECT_EQ(j["format"], "std");
  EXPECT_EQ(j["events"], 13);
  EXPECT_EQ(j["by_kind"]["begin"], 3);
  EXPECT_EQ(j["by_kind"]["end"], 2);
  EXPECT_EQ(j["by_kind"]["fork"], 2);
  EXPECT_EQ(j["by_kind"]["acquire"], 1);
  EXPECT_EQ(j["threads"], 2);        // w2 is forked but never acts (RAPID counts actors)
  EXPECT_EQ(j["named_threads"], 3);
  EXPECT_EQ(j["variables"], 2);
  EXPECT_EQ(j["read_variables"], 2);
  EXPECT_EQ(j["written_variables"], 1);
  EXPECT_EQ(j["locks"], 1);
  EXPECT_EQ(j["locations"], 11);
  EXPECT_EQ(j["blocks"], 2);
  EXPECT_EQ(j["unary"], 5);  // fork, r, r, join, fork
  EXPECT_EQ(j["transactions"], 7);
  EXPECT_EQ(j["open_at_end"], 1);
  EXPECT_EQ(j["max_nesting"], 2);
  EXPECT_EQ(j["well_formed"], true);
  EXPECT_TRUE(j["problem"].is_null());
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1);  // one line
}

TEST(TraceInfoCli, JsonlExecution) {
  auto r = run_cli({"trace-info", "--json", testing::data_path("traces/tso-sb-execution.jsonl")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "jsonl");
  EXPECT_EQ(j["events"], 13);
  EXPECT_EQ(j["by_kind"]["commit"], 2);
  EXPECT_EQ(j["by_kind"]["fence"], 1);
  EXPECT_EQ(j["by_kind"]["rmw"], 1);
  EXPECT_EQ(j["buffered_reads"], 1);
  EXPECT_EQ(j["unary"], 2);  // the commits join their writes' blocks; fence and rmw are unary
  EXPECT_EQ(j["well_formed"], true);
}

TEST(TraceInfoCli, EmptyAndBlankFilesAreEmptyTraces) {
  for (const char* content : {"", "  \n\n\t\n", "# nothing but a comment\n"}) {
    std::string path = write_temp("empty.std", content);
    auto r = run_cli({"trace-info", path});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\nevents          0\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nwell formed     yes\n"), std::string::npos) << r.out;
  }
  auto r = run_cli({"trace-info", "--json", write_temp("empty.jsonl", "")});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(nlohmann::json::parse(r.out)["events"], 0);
}

// Every class of malformed input: one stderr line, exit code 2, nothing on stdout.
TEST(TraceInfoCli, MalformedInputIsOneLineAndExitCode2) {
  struct Case {
    const char* name;
    const char* content;
    const char* error;  // after "PATH:"
  };
  const Case cases[] = {
      {"a.std", "T0|w(x)|1\nT0|w(x)\n", "2: expected 3 fields 'thread|op(target)|location', found 2"},
      {"b.std", "T0|wr(x)|1\n", "1: unknown operation 'wr' (expected r, w, acq, rel, fork, join, begin or end)"},
      {"c.std", "T0|acq|1\n", "1: 'acq' needs an operand in parentheses, as acq(x)"},
      {"d.std", "T0|begin(x)|1\n", "1: 'begin' takes no operand, found 'begin(x)'"},
      {"e.std", "T0|w(x)|L7\n", "1: location 'L7' is not a 32-bit integer"},
      {"f.std", "T0|w(x)|1\nT0|w(x)|", "2: empty location (expected an integer) (the last line has no newline: truncated file?)"},
      {"g.jsonl", "{\"thread\":\"T0\",\"op\":\"read\",\"var\":\"x\",\"size\":4}\n", "1: unknown field 'size'"},
      {"h.jsonl", "{\"thread\":\"T0\",\"op\":\"read\",\"var\":7}\n", "1: field 'var' must be a string"},
      {"i.jsonl", "{\"thread\":\"T0\",\"op\":\"acquire\"}\n", "1: missing field 'lock' (required by op 'acquire')"},
      {"j.jsonl", "{\"thread\":\"T0\",\"op\":\"fence\"}\n{\"thread\":\"T0\",\"op\":\"wri",
       "2: the line ends inside the JSON object (the last line has no newline: truncated file?)"},
  };
  for (const Case& c : cases) {
    std::string path = write_temp(c.name, c.content);
    for (bool json : {false, true}) {
      std::vector<std::string> args = {"trace-info", path};
      if (json) args.push_back("--json");
      auto r = run_cli(args);
      EXPECT_EQ(r.exit_code, 2) << c.name;
      EXPECT_EQ(r.err, fmt::format("{}:{}\n", path, c.error)) << c.name;
      EXPECT_EQ(r.out, "") << c.name;
    }
  }
}

TEST(TraceInfoCli, UnreadableFile) {
  auto r = run_cli({"trace-info", "/nonexistent/t.std"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "/nonexistent/t.std: cannot open: No such file or directory\n");
  EXPECT_EQ(r.out, "");
}

TEST(TraceInfoCli, IllFormedTraceExits1WithItsFirstProblem) {
  std::string path = write_temp("ill.std", "T0|acq(m)|1\n# c\nT1|acq(m)|2\nT1|end|3\n");
  auto r = run_cli({"trace-info", path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "");
  std::string last = "well formed     no: " + path + ":3: T1 acquires lock m, which T0 holds (acquired at line 1)\n";
  ASSERT_GE(r.out.size(), last.size());
  EXPECT_EQ(r.out.substr(r.out.size() - last.size()), last);
  EXPECT_NE(r.out.find("\nevents          3\n"), std::string::npos);  // counted to the end

  auto j = run_cli({"trace-info", "--json", path});
  EXPECT_EQ(j.exit_code, 1);
  auto o = nlohmann::json::parse(j.out);
  EXPECT_EQ(o["well_formed"], false);
  EXPECT_EQ(o["problem"], path + ":3: T1 acquires lock m, which T0 holds (acquired at line 1)");

  std::string jl = write_temp("ill.jsonl",
                              "{\"thread\":\"T0\",\"op\":\"write\",\"var\":\"x\"}\n"
                              "{\"thread\":\"T0\",\"op\":\"write\",\"var\":\"y\"}\n"
                              "{\"thread\":\"T0\",\"op\":\"commit\",\"var\":\"y\",\"issue\":1}\n");
  auto k = run_cli({"trace-info", jl});
  EXPECT_EQ(k.exit_code, 1);
  EXPECT_NE(k.out.find("well formed     no: " + jl + ":3: T0: commit of event 1, but the oldest "
                       "uncommitted write of T0 is event 0 (commits keep FIFO order)\n"),
            std::string::npos) << k.out;
}

TEST(TraceInfoCli, StandardInputAndFormatOption) {
  auto r = run_cli({"trace-info", "--json", "-"}, "T0|w(x)|1\nT0|r(x)|2\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["events"], 2);
  auto bad = run_cli({"trace-info", "-"}, "T0|w(x)|1\nnonsense\n");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "<stdin>:2: expected 3 fields 'thread|op(target)|location', found 1\n");
  auto jl = run_cli({"trace-info", "--format", "jsonl", "--json", "-"},
                    "{\"thread\":\"T0\",\"op\":\"fence\"}\n");
  ASSERT_EQ(jl.exit_code, 0) << jl.err;
  EXPECT_EQ(nlohmann::json::parse(jl.out)["by_kind"]["fence"], 1);
  // The extension says STD, the option says JSONL.
  std::string txt = write_temp("t.txt", "{\"thread\":\"T0\",\"op\":\"fence\"}\n");
  EXPECT_EQ(run_cli({"trace-info", txt}).exit_code, 2);
  EXPECT_EQ(run_cli({"trace-info", "--format", "jsonl", txt}).exit_code, 0);
  auto usage = run_cli({"trace-info", "--format", "csv", txt});
  EXPECT_EQ(usage.exit_code, 2);
}

// The streaming counts agree with the whole-trace transaction assignment of B1's
// trace/transactions.hpp and with plain recounts, on random traces (open blocks and
// commits included).
TEST(Summary, AgreesWithTransactionsAndRecounts) {
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    Trace t = random_trace(random_small_params(seed, 50), seed);
    TraceSummary s = summarize(t);
    Transactions tx = assign_transactions(t);
    ASSERT_EQ(s.transactions, tx.txns.size()) << "seed " << seed;
    std::uint64_t unary = 0, open = 0;
    for (const TxnInfo& x : tx.txns) {
      unary += x.unary;
      open += x.open_at_end;
    }
    ASSERT_EQ(s.unary, unary) << "seed " << seed;
    ASSERT_EQ(s.open_blocks, open) << "seed " << seed;
    ASSERT_EQ(s.events, t.size());
    std::uint32_t depth_max = 0;
    std::vector<std::uint32_t> depth(16, 0);
    std::uint64_t reads = 0;
    for (const Event& e : t.events) {
      if (e.op == Op::begin) depth_max = std::max(depth_max, ++depth[e.thread]);
      if (e.op == Op::end && depth[e.thread] > 0) --depth[e.thread];
      reads += e.op == Op::read;
    }
    ASSERT_EQ(s.max_nesting, depth_max) << "seed " << seed;
    ASSERT_EQ(s.by_op[static_cast<int>(Op::read)], reads);
  }
}

}  // namespace
}  // namespace atomcheck
