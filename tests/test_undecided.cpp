// Undecided is never a verdict (issue 24): every decider with a budget, a deadline or a
// solver that can say "unknown" answers undecided with the reason, never "serializable";
// and the commands print it, count it apart and exit 3, on a time limit and on Ctrl-C.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/xorshift.hpp"
#include "checkers/registry.hpp"
#include "checkers/tso_random.hpp"
#include "checkers/tso_trace.hpp"
#include "checkers/tso_trace_fpt.hpp"
#include "checkers/tso_trace_z3.hpp"
#include "checkers/view_serializability.hpp"
#include "checkers/wang_stoller_block.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/trace_builder.hpp"
#include "trace/trace_io.hpp"

namespace atomcheck {
namespace {

using testing::Build;
using testing::run_cli;
using testing::run_cli_interrupted;

// Four threads of 50 unary operations: about 200 events that the §6.2 search takes
// minutes over (it is serializable, so nothing ends the search early).
std::vector<Event> hard_trace() {
  tso::RandomTsoParams p;
  p.threads = 4;
  p.vars = 2;
  p.ops_per_thread = 50;
  p.max_txn_len = 3;
  p.block_permille = 0;
  p.fence_permille = 50;
  p.rmw_permille = 30;
  return drop_commits(tso::random_tso_execution(p, 0)).events;
}

// hard_trace() with one block of two events in the middle of thread 0 (a write and a
// read of a variable no one else touches): still serializable, but no longer made of
// transactions of one event only, which Z3 skips (no cycle passes through those alone:
// docs/trace-tso-fpt.md, "Unary traces"); the block joins the large component that Z3
// cannot refute in time.
std::vector<Event> hard_z3_trace() {
  std::vector<Event> tau = hard_trace();
  std::size_t k = tau.size() / 2;
  while (k < tau.size() && tau[k].thread != 0) ++k;
  std::vector<Event> block = Build{}.begin(0).w(0, 2).r(0, 2).end(0).ev;
  tau.insert(tau.begin() + static_cast<std::ptrdiff_t>(std::min(k + 1, tau.size())), block.begin(), block.end());
  return tau;
}

// A small trace every decider answers at once: store buffering, not serializable.
std::vector<Event> easy_trace() {
  return Build{}.begin(0).w(0, 0).r(0, 1).end(0).begin(1).w(1, 1).r(1, 0).end(1).ev;
}

Deadline in_ms(int ms) {
  Deadline d;
  d.at = Deadline::Clock::now() + std::chrono::milliseconds(ms);
  return d;
}

TEST(Undecided, Z3TimeoutIsUndecidedNotSerializable) {
  tso::Z3Decider z3;
  tso::TraceVerdict v = z3.decide(hard_z3_trace(), in_ms(1));
  EXPECT_EQ(v.undecided, "time limit");
  // The same decider, given time, decides a small trace: the answer above came from the
  // deadline, not from a decider that never answers.
  tso::TraceVerdict easy = z3.decide(easy_trace(), in_ms(60000));
  EXPECT_EQ(easy.undecided, "");
  EXPECT_FALSE(easy.serializable);
}

TEST(Undecided, Z3StopsWhenTheInterruptFlagIsRaised) {
  std::atomic<bool> flag{false};
  Deadline d = in_ms(120000);  // a safety net: "time limit" here means the flag was missed
  d.interrupt = &flag;
  std::thread raiser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    flag.store(true);
  });
  tso::Z3Decider z3;
  tso::TraceVerdict v = z3.decide(hard_z3_trace(), d);
  raiser.join();
  EXPECT_EQ(v.undecided, "interrupted");
}

TEST(Undecided, BruteForceLimitAndDeadline) {
  std::vector<Event> tau = hard_trace();
  tso::TraceVerdict limited = tso::decide_brute(tau, 100);
  EXPECT_EQ(limited.undecided.rfind("budget: no violation among the first 100", 0), 0u) << limited.undecided;
  std::atomic<bool> raised{true};
  Deadline d;
  d.interrupt = &raised;
  tso::TraceVerdict stopped = tso::decide_brute(tau, 0, d);
  EXPECT_EQ(stopped.undecided.rfind("interrupted after", 0), 0u) << stopped.undecided;
  EXPECT_EQ(tso::decide_brute(easy_trace(), 100).undecided, "");
}

TEST(Undecided, FptSearchDeadline) {
  tso::TraceVerdict v = tso::decide_fpt(hard_trace(), in_ms(0));
  EXPECT_EQ(v.undecided.rfind("time limit after", 0), 0u) << v.undecided;
  tso::TraceVerdict easy = tso::decide_fpt(easy_trace(), in_ms(0));
  EXPECT_EQ(easy.undecided, "") << "a search shorter than one polling period decides";
  EXPECT_FALSE(easy.serializable);
}

TEST(Undecided, OnePassDeciderBudgetsAndInterrupt) {
  // Out of summaries: undecided, never "serializable" (the trace is serializable; with
  // transactions of one event only it would be decided without summaries).
  tso::StreamLimits tiny;
  tiny.max_states = 2;
  tso::TraceVerdict b = tso::decide_stream(hard_z3_trace(), {}, tiny);
  EXPECT_EQ(b.undecided.rfind("budget: more than 2 placement summaries", 0), 0u) << b.undecided;
  std::atomic<bool> raised{true};
  Deadline d;
  d.interrupt = &raised;
  tso::TraceVerdict i = tso::decide_stream(hard_trace(), d);
  EXPECT_EQ(i.undecided.rfind("interrupted at trace event", 0), 0u) << i.undecided;
  // Streamed: the flag raised half-way stops it there.
  std::atomic<bool> flag{false};
  Deadline later;
  later.interrupt = &flag;
  tso::TraceStream s;
  std::vector<Event> tau = hard_trace();
  for (std::size_t k = 0; k < tau.size(); ++k) {
    if (k == 100) flag.store(true);
    s.on_event(tau[k], later);
  }
  tso::TraceVerdict half = s.finish(later);
  EXPECT_EQ(half.undecided.rfind("interrupted at trace event 1", 0), 0u) << half.undecided;
  // Given room, the same decider answers.
  tso::StreamLimits small;
  small.max_states = 50;
  tso::TraceVerdict easy = tso::decide_stream(easy_trace(), {}, small);
  EXPECT_EQ(easy.undecided, "");
  EXPECT_FALSE(easy.serializable);
}

TEST(Undecided, TraceTsoCheckersCarryTheReason) {
  CheckerOptions o;
  o.deadline = in_ms(0);
  for (const char* name : {"trace-tso-z3", "trace-tso-fpt", "trace-tso", "trace-tso-search"}) {
    auto c = make_checker(name, o);
    for (const Event& e : hard_trace()) c->on_event(e);
    Verdict v = c->verdict();
    EXPECT_FALSE(v.decided()) << name;
    EXPECT_FALSE(v.flags()) << name;
    EXPECT_EQ(v.undecided.rfind("time limit", 0), 0u) << name << ": " << v.undecided;
  }
}

TEST(Undecided, ViewOracleBudgets) {
  // Three transactions the serial-order search must place: one node is not enough.
  std::vector<Event> ev = Build{}.begin(0).w(0, 0).end(0).begin(1).r(1, 0).end(1).begin(2).w(2, 0).end(2).ev;
  ViewLimits nodes;
  nodes.max_nodes = 1;
  ViewResult a = view_serializable(ev, nodes);
  EXPECT_EQ(a.serializable, Tri::unknown);
  EXPECT_EQ(a.undecided.rfind("node budget", 0), 0u) << a.undecided;
  ViewLimits txns;
  txns.max_transactions = 2;
  ViewResult b = view_serializable(ev, txns);
  EXPECT_EQ(b.serializable, Tri::unknown);
  EXPECT_EQ(b.undecided.rfind("input too large", 0), 0u) << b.undecided;
  EXPECT_EQ(view_serializable(ev).serializable, Tri::yes);
  // The checker with an expired deadline, on a trace of 1,500 transactions (the search
  // polls every 1,024 nodes).
  Build big;
  for (int k = 0; k < 1500; ++k) big.begin(k % 3).w(k % 3, 0).end(k % 3);
  CheckerOptions o;
  o.deadline = in_ms(0);
  auto c = make_checker("view-oracle", o);
  for (const Event& e : big.ev) c->on_event(e);
  Verdict v = c->verdict();
  EXPECT_EQ(v.undecided.rfind("time limit after", 0), 0u) << v.undecided;
}

TEST(Undecided, WangStollerBlockTooLarge) {
  Build b;
  for (int k = 0; k < 2600; ++k) b.begin(k % 2).w(k % 2, 0).end(k % 2);
  WangStollerBlock c;
  for (const Event& e : b.ev) c.on_event(e);
  Verdict v = c.verdict();
  EXPECT_EQ(v.undecided.rfind("input too large", 0), 0u) << v.undecided;
  EXPECT_FALSE(v.flags());
}

std::string write_hard_trace() {
  std::string path = testing::temp_dir() + "/t200.jsonl";
  Trace t;
  t.events = hard_z3_trace();
  std::FILE* f = std::fopen(path.c_str(), "w");
  write_jsonl(f, t);
  std::fclose(f);
  return path;
}

// A trace the one-pass decider needs seconds for (hard_trace() takes it milliseconds):
// what `gen_tso_trace --events=20000 --threads=4 --vars=8 --fence=120 --rmw=20 --seed=1`
// writes, with drains rare enough that the store buffers run deep.
std::string write_deep_buffer_trace() {
  std::string path = testing::temp_dir() + "/deep20000.jsonl";
  std::FILE* f = std::fopen(path.c_str(), "w");
  XorShiftRng rng{1 * 0x9E3779B97F4A7C15ULL + 1};
  // A block of two events first: a trace of one-event transactions only is decided
  // without summaries (docs/trace-tso-fpt.md, "Unary traces").
  std::fprintf(f, "{\"thread\":\"T0\",\"op\":\"begin\"}\n{\"thread\":\"T0\",\"op\":\"write\",\"var\":\"y\"}\n"
                  "{\"thread\":\"T0\",\"op\":\"read\",\"var\":\"y\"}\n{\"thread\":\"T0\",\"op\":\"end\"}\n");
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t t = rng.below(4);
    const std::uint32_t x = rng.below(8);
    const std::uint32_t r = rng.below(1000);
    if (r < 120) std::fprintf(f, "{\"thread\":\"T%u\",\"op\":\"fence\"}\n", t);
    else if (r < 140) std::fprintf(f, "{\"thread\":\"T%u\",\"op\":\"rmw\",\"var\":\"x%u\"}\n", t, x);
    else if (rng.below(2) == 0) std::fprintf(f, "{\"thread\":\"T%u\",\"op\":\"read\",\"var\":\"x%u\"}\n", t, x);
    else std::fprintf(f, "{\"thread\":\"T%u\",\"op\":\"write\",\"var\":\"x%u\"}\n", t, x);
  }
  std::fclose(f);
  return path;
}

TEST(UndecidedCli, CheckTraceTimeLimitStopsZ3) {
  std::string trace = write_hard_trace();
  auto r = run_cli({"check-trace", trace, "--checker", "trace-tso-z3", "--time-limit", "1"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("trace-tso-z3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("undecided: time limit"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" serializable "), std::string::npos) << r.out;
  auto j = run_cli({"check-trace", write_deep_buffer_trace(), "--checker", "trace-tso-fpt", "--time-limit", "0.5", "--json"});
  EXPECT_EQ(j.exit_code, 3) << j.out << j.err;
  EXPECT_NE(j.out.find("\"undecided\":\"time limit at trace event"), std::string::npos) << j.out;
}

TEST(UndecidedCli, ValidateAnswersWithinItsTimeLimit) {
  // The default checker set on ~200-event executions: the trace TSO rows are left out of
  // executions that size, and the time limit reaches inside the rest.
  auto r = run_cli({"validate", testing::data_path("validate/tso-200.json"), "--memory", "tso", "--time-limit", "2",
                    "--quiet"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("stopped: time"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("left out of executions over 16 trace events: trace-tso-fpt, trace-tso, trace-tso-search, trace-tso-z3"),
            std::string::npos)
      << r.out;
  // Named, the brute force judge runs on them and is cut by the time limit: undecided,
  // counted in its own column.
  auto named = run_cli({"validate", testing::data_path("validate/tso-200.json"), "--memory", "tso", "--checker",
                        "trace-tso-z3", "--time-limit", "2", "--json", "--quiet"});
  EXPECT_EQ(named.exit_code, 3) << named.out << named.err;
  EXPECT_NE(named.out.find("\"undecided\": 1"), std::string::npos) << named.out;
}

TEST(UndecidedCli, CtrlCOnASpecPrintsThePartialReport) {
  auto r = run_cli_interrupted({"run", testing::data_path("validate/tso-200.json"), "--memory", "tso"}, 300);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("not exhaustive: interrupted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("UNDECIDED"), std::string::npos) << r.out;
}

TEST(UndecidedCli, CtrlCOnALitmusTestPrintsTheStatesSoFar) {
  // Five threads of eight accesses explored by DFS: far more schedules than a test waits for.
  std::string path = testing::temp_dir() + "/BIG.litmus";
  {
    std::ofstream f(path);
    f << "X86 BIG\n{ x=0; y=0; }\n";
    const int threads = 5;
    for (int t = 0; t < threads; ++t) f << (t ? " | " : " ") << "P" << t;
    f << " ;\n";
    for (int row = 0; row < 8; ++row) {
      for (int t = 0; t < threads; ++t) {
        const char* v = (row + t) % 2 ? "x" : "y";
        f << (t ? " | " : " ") << (row % 2 ? std::string("MOV EAX,[") + v + "]" : std::string("MOV [") + v + "],$1");
      }
      f << " ;\n";
    }
    f << "exists (0:EAX=0)\n";
  }
  auto r = run_cli_interrupted({"run", path, "--strategy", "dfs"}, 300);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("interrupted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("States"), std::string::npos) << r.out;
}

TEST(UndecidedCli, CtrlCOnCheckTraceStopsZ3) {
  std::string trace = write_hard_trace();
  auto r = run_cli_interrupted({"check-trace", trace, "--checker", "trace-tso-z3,velodrome"}, 300);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("undecided: interrupted"), std::string::npos) << r.out;
}

TEST(UndecidedCli, CtrlCOnCheckTraceStopsTraceTso) {
  std::string trace = write_deep_buffer_trace();
  auto r = run_cli_interrupted({"check-trace", trace, "--checker", "trace-tso"}, 300);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("undecided: interrupted"), std::string::npos) << r.out;
}

TEST(UndecidedCli, CtrlCOnValidatePrintsTheMatrixSoFar) {
  auto r = run_cli_interrupted(
      {"validate", testing::data_path("validate/tso-200.json"), "--memory", "tso", "--checker", "velodrome"}, 300);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("stopped: interrupted"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("velodrome"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace atomcheck
