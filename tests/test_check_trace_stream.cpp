// Streaming check-trace (issue 23): what it prints about a witness must be what the
// whole trace in memory says, although only the events the online checkers may still
// cite are kept. Each random trace is checked by the CLI with one-event blocks (so the
// archive forgets after every event) and compared with the checkers run in memory on
// the same trace: verdict, detection, cycle and blames, and every event they name with
// its thread, operation and file line. Also: the archive stays bounded on long streams,
// the limits of the checkers that are not online, empty and non-trace inputs, stdin,
// and the report window on long traces.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "checkers/registry.hpp"
#include "cli/trace_stream.hpp"
#include "tests/support/cli_runner.hpp"
#include "trace/random_trace.hpp"
#include "trace/trace_io.hpp"

namespace atomcheck {
namespace {

using testing::run_cli;

const std::vector<std::string> kOnline = {
    "aerodrome",  "aerodrome-opt",     "aerodrome-fixed",  "aerodrome-opt-fixed", "velodrome",
    "regiontrack-blame", "regiontrack", "regiontrack-fixed"};

std::string join_names(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& n : v) {
    if (!s.empty()) s += ',';
    s += n;
  }
  return s;
}

std::string write_file(const std::string& name, const std::string& text) {
  std::string path = testing::temp_dir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// The event object the CLI prints for file event i of `t` (JSONL: line = i + 1).
nlohmann::json expected_event(const Trace& t, EventIndex i) {
  if (i == kNoEvent) return nullptr;
  nlohmann::json j;
  j["index"] = i;
  j["line"] = i + 1;
  j["thread"] = t.names.thread(t.events[i].thread);
  j["op"] = std::string(op_name(t.events[i].op));
  return j;
}

nlohmann::json expected_txn(const Trace& t, const TxnRef& r) {
  nlohmann::json j;
  j["thread"] = t.names.thread(r.thread);
  j["first_event"] = r.first == kNoEvent ? nlohmann::json(nullptr) : nlohmann::json(r.first);
  return j;
}

// Every online checker, each listing the past it may cite (the archive relies on it).
TEST(CheckTraceStream, OnlineCheckersListTheirLiveEvents) {
  for (const std::string& n : kOnline) {
    auto c = make_checker(n, CheckerOptions{});
    ASSERT_TRUE(c) << n;
    LiveEvents le;
    EXPECT_TRUE(c->live_events(le)) << n;
  }
  for (const char* n : {"trace-tso", "trace-tso-fpt"}) {  // they stream (tso_trace_fpt.hpp)
    auto c = make_checker(n, CheckerOptions{});
    LiveEvents le;
    EXPECT_TRUE(c->live_events(le)) << n;
  }
  for (const char* n : {"oracle", "view-oracle", "atomic-set-oracle", "trace-tso-search", "ws-block"}) {
    auto c = make_checker(n, CheckerOptions{});
    ASSERT_TRUE(c) << n;
    LiveEvents le;
    EXPECT_FALSE(c->live_events(le)) << n;
  }
}

void compare_with_memory(std::uint64_t seed, const RandomTraceParams& params, std::size_t block,
                         bool all) {
  // The in-memory side reads the file back, as check-trace did before streaming, so
  // thread ids (which notes print) are those of the file.
  std::string path = write_file(fmt::format("r{}.jsonl", seed), to_jsonl_string(random_trace(params, seed)));
  Trace t = read_trace(path);
  std::vector<std::string> args = {"check-trace", path, "--checker", join_names(kOnline), "--json",
                                   "--block-events", std::to_string(block)};
  if (all) args.push_back("--all");
  auto r = run_cli(args);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << "seed " << seed << ": " << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["checkers"].size(), kOnline.size());
  CheckerOptions copt;
  copt.all = all;
  for (std::size_t c = 0; c < kOnline.size(); ++c) {
    SCOPED_TRACE(fmt::format("seed {} block {} {}", seed, block, kOnline[c]));
    auto checker = make_checker(kOnline[c], copt);
    for (const Event& e : t.events) checker->on_event(e);
    Verdict v = checker->verdict();
    const nlohmann::json& got = j["checkers"][c];
    EXPECT_EQ(got["checker"], kOnline[c]);
    if (v.answers_serializability) {
      EXPECT_EQ(got["serializable"], v.serializable);
    }
    EXPECT_EQ(got["detected_at"], expected_event(t, v.detected_at));
    ASSERT_EQ(got["cycle"].size(), v.cycle.size());
    for (std::size_t k = 0; k < v.cycle.size(); ++k) {
      EXPECT_EQ(got["cycle"][k]["from"], expected_txn(t, v.cycle[k].from));
      EXPECT_EQ(got["cycle"][k]["to"], expected_txn(t, v.cycle[k].to));
      EXPECT_EQ(got["cycle"][k]["from_event"], expected_event(t, v.cycle[k].from_event));
      EXPECT_EQ(got["cycle"][k]["to_event"], expected_event(t, v.cycle[k].to_event));
    }
    if (v.answers_blame) {
      ASSERT_EQ(got["blamed"].size(), v.blamed.size());
      for (std::size_t k = 0; k < v.blamed.size(); ++k) {
        EXPECT_EQ(got["blamed"][k]["txn"], expected_txn(t, v.blamed[k].txn));
        EXPECT_EQ(got["blamed"][k]["interfering"], expected_event(t, v.blamed[k].interfering));
        EXPECT_EQ(got["blamed"][k]["at"], expected_event(t, v.blamed[k].at));
      }
    }
    EXPECT_EQ(got["note"], v.note);
  }
}

// The random-trace property corpus: small, varied traces (the checkers' own property
// tests use the same generator), and longer ones where witnesses reach far back.
TEST(CheckTraceStream, WitnessesEqualInMemoryOnRandomTraces) {
  // Each trace is one child process: fewer under the sanitizers, whose start is slow.
  const bool sanitized = std::getenv("ATOMCHECK_SANITIZED") != nullptr;
  const std::uint64_t small = sanitized ? 40 : 120, large = sanitized ? 10 : 30;
  int violations = 0;
  for (std::uint64_t seed = 1; seed <= small; ++seed) {
    RandomTraceParams p = random_small_params(seed, 40);
    compare_with_memory(seed, p, seed % 3 + 1, seed % 4 == 0);
    if (HasFatalFailure()) return;
    Trace t = random_trace(p, seed);
    auto v = make_checker("velodrome", CheckerOptions{});
    for (const Event& e : t.events) v->on_event(e);
    violations += v->verdict().serializable ? 0 : 1;
  }
  for (std::uint64_t seed = 1000; seed < 1000 + large; ++seed) {
    RandomTraceParams p;
    p.threads = 4;
    p.vars = 6;
    p.locks = 2;
    p.events = 400;
    p.max_txn_len = 12;
    compare_with_memory(seed, p, 1 + seed % 5, seed % 2 == 0);
    if (HasFatalFailure()) return;
    Trace t = random_trace(p, seed);
    auto v = make_checker("velodrome", CheckerOptions{});
    for (const Event& e : t.events) v->on_event(e);
    violations += v->verdict().serializable ? 0 : 1;
  }
  // The corpus exercises witnesses, not only "serializable".
  EXPECT_GE(violations, sanitized ? 8 : 20);
}

// A serializable stream of locked transactions (two-phase locking), as in the issue's
// RAPID traces: `threads` threads, `locks` locks each guarding `per_lock` variables.
class LockedStream {
 public:
  LockedStream(std::uint32_t threads, std::uint32_t locks, std::uint32_t per_lock)
      : threads_(threads), locks_(locks), per_lock_(per_lock), rng_(11), state_(threads, 0),
        lock_(threads, 0), left_(threads, 0), held_(locks, false) {}
  Event next() {
    for (;;) {
      Event e;
      const auto t = static_cast<ThreadId>(rng_.below(threads_));
      e.thread = t;
      switch (state_[t]) {
        case 0:
          state_[t] = 1;
          e.op = Op::begin;
          return e;
        case 1: {
          const auto l = static_cast<LockId>(rng_.below(locks_));
          if (held_[l]) continue;
          held_[l] = true;
          lock_[t] = l;
          left_[t] = 6;
          state_[t] = 2;
          e.op = Op::acquire;
          e.target = l;
          return e;
        }
        case 2:
          if (left_[t] > 0) {
            --left_[t];
            e.op = rng_.chance(300) ? Op::write : Op::read;
            e.target = static_cast<VarId>(lock_[t] * per_lock_ + rng_.below(per_lock_));
            return e;
          }
          held_[lock_[t]] = false;
          state_[t] = 3;
          e.op = Op::release;
          e.target = lock_[t];
          return e;
        default:
          state_[t] = 0;
          e.op = Op::end;
          return e;
      }
    }
  }

 private:
  std::uint32_t threads_, locks_, per_lock_;
  PortableRng rng_;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint32_t> lock_, left_;
  std::vector<bool> held_;
};

// The archive keeps what is live, not the past: on a long stream it stays the size of
// the checkers' state (threads x (variables + locks)), and cited events are found.
TEST(CheckTraceStream, ArchiveStaysBoundedOnLongStreams) {
  LockedStream stream(6, 4, 10);
  std::vector<std::unique_ptr<Checker>> checkers;
  for (const char* n : {"aerodrome-opt-fixed", "velodrome", "regiontrack-fixed"})
    checkers.push_back(make_checker(n, CheckerOptions{}));
  cli::WitnessArchive archive;
  EventIndex index = 0;
  std::size_t peak = 0;
  while (index < 200000) {
    auto b = std::make_unique<cli::EventBlock>();
    b->first = b->first_tau = index;
    while (b->events.size() < 1000) {
      b->events.push_back(stream.next());
      b->lines.push_back(index + 1);
      ++index;
    }
    for (auto& c : checkers)
      for (const Event& ev : b->events) c->on_event(ev);
    archive.push(std::move(b));
    std::vector<EventIndex> live;
    for (auto& c : checkers) {
      LiveEvents le;
      le.events.swap(live);
      ASSERT_TRUE(c->live_events(le));
      live.swap(le.events);
    }
    archive.retain(live);
    peak = std::max(peak, archive.kept());
  }
  // A few events per thread, variable and lock (6, 40, 4) per checker, plus Velodrome's
  // live transactions: far below the 2*10^5 events read.
  EXPECT_LT(peak, 1500u);
  EXPECT_GT(peak, 10u);
  // Every event the tables still name resolves to itself (line = index + 1 here).
  LiveEvents le;
  checkers[1]->live_events(le);
  for (EventIndex i : le.events) {
    const cli::KeptEvent* k = archive.find_tau(i);
    ASSERT_NE(k, nullptr) << i;
    EXPECT_EQ(k->line, i + 1);
    EXPECT_EQ(k->file, i);
  }
}

TEST(CheckTraceStream, EmptyInputIsZeroEventsButNonTraceIsBadInput) {
  auto r = run_cli({"check-trace", write_file("empty.std", ""), "--checker", "velodrome"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 events"), std::string::npos) << r.out;
  r = run_cli({"check-trace", write_file("comments.std", "# only a comment\n\n"), "--checker", "velodrome"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 events"), std::string::npos) << r.out;
  r = run_cli({"check-trace", write_file("prose.std", "this is not a trace\nnor is this\n")});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("prose.std:1:"), std::string::npos) << r.err;
  r = run_cli({"check-trace", write_file("obj.jsonl", "{\"hello\": 1}\n")});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  // A bad line far into the file stops the run with its line, whatever the block size.
  std::string text;
  for (int i = 0; i < 100; ++i) text += "T0|r(x)|1\n";
  text += "T0|oops|1\n";
  r = run_cli({"check-trace", write_file("late.std", text), "--block-events", "7"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("late.std:101:"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(CheckTraceStream, StandardInput) {
  const std::string rho2 =
      "T1|begin|1\nT2|begin|2\nT1|w(x)|3\nT2|r(x)|4\nT2|w(y)|5\nT1|r(y)|6\nT1|end|7\nT2|end|8\n";
  auto r = run_cli({"check-trace", "-", "--checker", "velodrome,aerodrome-opt-fixed"}, rho2);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("<stdin>: 8 events"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("detected at event 5 T1 read(y) (line 6)"), std::string::npos) << r.out;
}

// A long serializable trace of `n` events: locked transactions of two threads.
std::string locked_trace(int n) {
  std::string s;
  int k = 0;
  while (k < n) {
    for (int t = 0; t < 2 && k < n; ++t) {
      s += fmt::format("T{0}|begin|1\nT{0}|acq(m)|2\nT{0}|w(x)|3\nT{0}|rel(m)|4\nT{0}|end|5\n", t);
      k += 5;
    }
  }
  return s;
}

TEST(CheckTraceStream, CheckersThatAreNotOnlineStopAtANamedLimit) {
  std::string path = write_file("long.std", locked_trace(20010));
  // Only the oracle asked for: it cannot run, so the run stops and says why.
  auto r = run_cli({"check-trace", path, "--checker", "oracle"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("20000 events"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("aerodrome-opt-fixed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("velodrome"), std::string::npos) << r.err;
  // Together with an online checker: that one answers, the oracle is reported skipped.
  r = run_cli({"check-trace", path, "--checker", "oracle,velodrome"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("oracle                 skipped: the trace has more than 20000 events"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("velodrome              serializable"), std::string::npos) << r.out;
  // The default list skips what cannot run without failing.
  r = run_cli({"check-trace", path});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(CheckTraceStream, ReportOnALongTraceDrawsAWindow) {
  std::string text = locked_trace(30000);
  text += "T0|begin|1\nT1|begin|2\nT0|w(a)|3\nT1|r(a)|4\nT1|w(b)|5\nT0|r(b)|6\nT0|end|7\nT1|end|8\n";
  text += locked_trace(1000);
  std::string dir = testing::temp_dir();
  std::string path = write_file("window.std", text);
  auto r = run_cli({"check-trace", path, "--checker", "velodrome", "--html", dir + "/w.html", "--dot",
                    dir + "/w.dot"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("a window around the violation"), std::string::npos) << r.out;
  std::ifstream in(dir + "/w.html");
  std::stringstream html;
  html << in.rdbuf();
  EXPECT_NE(html.str().find("a window around the violation"), std::string::npos);
  EXPECT_NE(html.str().find("Witness cycle"), std::string::npos);
  // Windows are small: the page does not draw the 31,000 events.
  EXPECT_LT(html.str().size(), 2000000u);
  // Blocks smaller than the trace: the window is taken while streaming.
  r = run_cli({"check-trace", path, "--checker", "velodrome,aerodrome-opt-fixed", "--html",
               dir + "/b.html", "--block-events", "1000"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("the report shows events 29"), std::string::npos) << r.out;
  // A short trace is still drawn whole, with no window note.
  std::string shorter = locked_trace(100) +
      "T0|begin|1\nT1|begin|2\nT0|w(a)|3\nT1|r(a)|4\nT1|w(b)|5\nT0|r(b)|6\nT0|end|7\nT1|end|8\n";
  r = run_cli({"check-trace", write_file("short.std", shorter), "--checker", "velodrome", "--html",
               dir + "/s.html"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out.find("window"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace atomcheck
