// C litmus tests with data races, arrays and dependencies: a racy test prints herd7's
// states (racy executions included), `Undef`, `Flag *undef*` and our line naming the
// racing accesses, in text and JSON; the races under rc11 follow rc11.cat's `dr` (each
// rule of its happens-before shown by a race-free test and a racy twin); herd7's and
// Dat3M's tests (tests/data/litmus-c/herdtools7, dat3m) give their stored answers; the
// array and address grammar parses, runs, and refuses what it cannot do in one line.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "specs/litmus.hpp"
#include "specs/litmus_c_run.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/litmus_text.hpp"
#include "tests/support/hb_judge.hpp"

namespace {

using namespace atomcheck;
using namespace atomcheck::litmus;
using LitmusTest = atomcheck::litmus::Test;
namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string parse_error(const std::string& text, const std::string& file = "t.litmus") {
  return testing_support::litmus_parse_error(text, file);
}
using testing_support::replaced;

std::string answer(const RunResult& r) { return r.racy ? "Undef" : r.ok ? "Ok" : "No"; }

// herd's part of our output: from `Test` to `Observation`.
std::string herd_part(const std::string& out) {
  std::string kept, line;
  std::istringstream in(out);
  while (std::getline(in, line)) {
    kept += line + "\n";
    if (line.rfind("Observation ", 0) == 0) break;
  }
  return kept;
}

// herd's .expected text as we print it: no Hash line, no blank lines, 0x1f read as 31
// (herd prints hexadecimal when its configuration says `hexa true`).
std::string normalised_expected(const std::string& text) {
  std::string out, line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("Hash=", 0) == 0) continue;
    std::string conv;
    for (std::size_t i = 0; i < line.size();) {
      if (line.compare(i, 2, "0x") == 0 && i + 2 < line.size() && std::isxdigit(static_cast<unsigned char>(line[i + 2]))) {
        std::size_t j = i + 2;
        while (j < line.size() && std::isxdigit(static_cast<unsigned char>(line[j]))) ++j;
        conv += std::to_string(std::stoll(line.substr(i + 2, j - i - 2), nullptr, 16));
        i = j;
      } else {
        conv += line[i++];
      }
    }
    out += conv + "\n";
  }
  return out;
}

const std::string kMpPath = "litmus-c/MP+plain+rlx.litmus";

// ---- the racy message-passing test ----

TEST(LitmusCRaces, RacyMessagePassingPrintsHerdsStatesUndefAndTheRace) {
  const LitmusTest t = load_litmus(atomcheck::testing::data_path(kMpPath));
  const RunResult r = run_litmus(t, MemoryModelKind::rc11);
  ASSERT_TRUE(r.error.empty()) << r.error;
  const std::string out = format_herd(t, r);
  EXPECT_EQ(herd_part(out), normalised_expected(read_file(atomcheck::testing::data_path(kMpPath + ".expected"))))
      << out;
  // Ours: the write of x (line 7) and the read of x (line 13), in its own line.
  EXPECT_NE(out.find("\nData race: P0 writes x at line 7, P1 reads x at line 13\n"), std::string::npos) << out;
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(t.vars[r.races[0].var], "x");
  EXPECT_EQ(r.races[0].first, (RaceAccess{0, 7, RaceAccess::Kind::write}));
  EXPECT_EQ(r.races[0].second, (RaceAccess{1, 13, RaceAccess::Kind::read}));

  // Release/acquire on the flag does not remove the race: x is read unconditionally.
  const std::string text = read_file(atomcheck::testing::data_path(kMpPath));
  const std::string ra = replaced(replaced(text, "(y, 1, memory_order_relaxed)", "(y, 1, memory_order_release)"),
                                  "(y, memory_order_relaxed)", "(y, memory_order_acquire)");
  const LitmusTest t2 = parse_litmus(ra, "ra.litmus");
  const RunResult r2 = run_litmus(t2, MemoryModelKind::rc11);
  EXPECT_TRUE(r2.racy);
  // ... but it removes the weak state: the read of y=1 synchronises, x reads 1.
  EXPECT_EQ(r2.states.size(), 3u) << format_herd(t2, r2);
  EXPECT_FALSE(r2.reachable());
}

TEST(LitmusCRaces, RaceFreeTestHasNoUndefNoFlagNoRaceLine) {
  const LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus-c/MP+rel+acq+plain.litmus"));
  const RunResult r = run_litmus(t, MemoryModelKind::rc11);
  const std::string out = format_herd(t, r);
  EXPECT_FALSE(r.racy);
  EXPECT_TRUE(r.races.empty());
  EXPECT_NE(out.find("\nNo\nWitnesses\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("Flag"), std::string::npos) << out;
  EXPECT_EQ(out.find("Data race"), std::string::npos) << out;
}

// Under sc and tso the race detector names the same pair; the racy executions' states
// are listed too (SC's three: the weak one needs RC11).
TEST(LitmusCRaces, ScAndTsoNameTheSameRace) {
  const LitmusTest t = load_litmus(atomcheck::testing::data_path(kMpPath));
  for (MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::tso}) {
    const RunResult r = run_litmus(t, m);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(answer(r), "Undef");
    EXPECT_EQ(r.states.size(), 3u) << format_herd(t, r);
    EXPECT_EQ(r.positive + r.negative, 3u);
    ASSERT_EQ(r.races.size(), 1u) << format_herd(t, r);
    EXPECT_EQ(race_text(t, r.races[0]), "P0 writes x at line 7, P1 reads x at line 13");
  }
}

TEST(LitmusCRaces, CommandPrintsUndefExitsZeroAndJsonNamesTheRace) {
  const std::string path = atomcheck::testing::data_path(kMpPath);
  auto text = atomcheck::testing::run_cli({"run", path});
  EXPECT_EQ(text.exit_code, 0) << text.err;  // Undef is an answer, as Ok and No are
  EXPECT_NE(text.out.find("\nUndef\nWitnesses\nPositive: 1 Negative: 3\nFlag *undef*\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\nData race: P0 writes x at line 7, P1 reads x at line 13\n"), std::string::npos) << text.out;
  auto j = atomcheck::testing::run_cli({"run", path, "--json"});
  EXPECT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  const auto& res = doc["results"][0];
  EXPECT_EQ(res["answer"], "Undef");
  EXPECT_EQ(res["racy"], true);
  EXPECT_EQ(res["states"].size(), 4u);
  ASSERT_EQ(res["races"].size(), 1u);
  EXPECT_EQ(res["races"][0]["location"], "x");
  EXPECT_EQ(res["races"][0]["first"]["thread"], 0);
  EXPECT_EQ(res["races"][0]["first"]["line"], 7);
  EXPECT_EQ(res["races"][0]["first"]["access"], "writes");
  EXPECT_EQ(res["races"][0]["second"]["thread"], 1);
  EXPECT_EQ(res["races"][0]["second"]["line"], 13);
  EXPECT_EQ(res["races"][0]["second"]["access"], "reads");
  auto clean = atomcheck::testing::run_cli({"run", atomcheck::testing::data_path("litmus-c/SB+rlx.litmus"), "--json"});
  const nlohmann::json c = nlohmann::json::parse(clean.out);
  EXPECT_EQ(c["results"][0]["answer"], "Ok");
  EXPECT_TRUE(c["results"][0]["races"].empty());
}

// ---- herd7's outputs ----

// Every `*.litmus.expected` under tests/data/litmus-c: herd7's output under rc11.cat
// (herdtools7's own for C08 and C11), which ours must equal from Test to Observation.
TEST(LitmusCRaces, HerdExpectedOutputsUnderRc11) {
  std::size_t compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(atomcheck::testing::data_path("litmus-c"))) {
    const std::string p = e.path().string();
    if (p.size() < 16 || p.compare(p.size() - 16, 16, ".litmus.expected") != 0) continue;
    const std::string litmus = p.substr(0, p.size() - 9);
    const LitmusTest t = load_litmus(litmus);
    const RunResult r = run_litmus(t, MemoryModelKind::rc11);
    EXPECT_TRUE(r.error.empty()) << litmus << r.error;
    EXPECT_EQ(herd_part(format_herd(t, r)), normalised_expected(read_file(p))) << litmus;
    ++compared;
  }
  EXPECT_GE(compared, 3u);
}

// C08: load buffering over plain locations; both pairs race in every execution.
TEST(LitmusCRaces, HerdC08NamesBothRaces) {
  const LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus-c/herdtools7/C08.litmus"));
  const RunResult r = run_litmus(t, MemoryModelKind::rc11);
  ASSERT_EQ(r.races.size(), 2u) << format_herd(t, r);
  EXPECT_EQ(race_text(t, r.races[0]), "P0 writes y at line 10, P1 reads y at line 14");
  EXPECT_EQ(race_text(t, r.races[1]), "P0 reads x at line 8, P1 writes x at line 16");
  EXPECT_NE(format_herd(t, r).find("\nData races: P0 writes y at line 10, P1 reads y at line 14; P0 reads x at line 8, "
                                   "P1 writes x at line 16\n"),
            std::string::npos);
}

// ---- Dat3M's tests ----

TEST(LitmusCRaces, Dat3mTestsGiveTheirRc11Answers) {
  std::ifstream in(atomcheck::testing::data_path("litmus-c/dat3m/RC11-expected.csv"));
  std::string line;
  std::size_t checked = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto comma = line.find(',');
    ASSERT_NE(comma, std::string::npos) << line;
    const std::string file = line.substr(0, comma);
    const bool reachable = line.substr(comma + 1) == "1";
    const LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus-c/dat3m/" + file));
    const RunResult r = run_litmus(t, MemoryModelKind::rc11);
    EXPECT_TRUE(r.error.empty() && r.complete) << file << r.error;
    EXPECT_EQ(r.reachable(), reachable) << file << "\n" << format_herd(t, r);
    EXPECT_EQ(r.positive + r.negative, r.classes) << file;
    // Only the message passing of plain data under a relaxed flag races.
    EXPECT_EQ(r.racy, file == "mp_relaxed.litmus") << file << "\n" << format_herd(t, r);
    ++checked;
  }
  EXPECT_EQ(checked, 8u);
  const LitmusTest mp = load_litmus(atomcheck::testing::data_path("litmus-c/dat3m/mp_relaxed.litmus"));
  const RunResult r = run_litmus(mp, MemoryModelKind::rc11);
  ASSERT_EQ(r.races.size(), 1u);
  EXPECT_EQ(race_text(mp, r.races[0]), "P0 writes x at line 13, P1 reads x at line 21");
  // The racy execution reads x = 0 after the flag: herd's weak state, listed.
  EXPECT_TRUE(r.reachable());
}

// ---- happens-before under rc11, rule by rule ----

// P1 reads the plain x only when its flag read saw `want`; race-free iff the flag's
// protocol synchronises.
std::string guarded(const std::string& p0, const std::string& p1, const std::string& p2, int want) {
  return "C G\n{ [x] = 0; [y] = 0; }\n"
         "P0 (int* x, atomic_int* y) {\n  *x = 1;\n" + p0 + "}\n"
         "P1 (int* x, atomic_int* y) {\n  int r1 = -1;\n" + p1 + "  if (r0 == " + std::to_string(want) +
         ") { r1 = *x; }\n}\n" + (p2.empty() ? "" : "P2 (atomic_int* y) {\n" + p2 + "}\n") + "exists (1:r1=0)\n";
}

bool racy_rc11(const std::string& text) {
  const LitmusTest t = parse_litmus(text, "g.litmus");
  const RunResult r = run_litmus(t, MemoryModelKind::rc11);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.racy, !r.races.empty());
  return r.racy;
}

TEST(LitmusCRaces, Rc11HappensBeforeRules) {
  const std::string rel = "  atomic_store_explicit(y, 1, memory_order_release);\n";
  const std::string rlx = "  atomic_store_explicit(y, 1, memory_order_relaxed);\n";
  const std::string acq = "  int r0 = atomic_load_explicit(y, memory_order_acquire);\n";
  const std::string rlx_load = "  int r0 = atomic_load_explicit(y, memory_order_relaxed);\n";
  // release/acquire synchronise; either side relaxed does not.
  EXPECT_FALSE(racy_rc11(guarded(rel, acq, "", 1)));
  EXPECT_TRUE(racy_rc11(guarded(rlx, acq, "", 1)));
  EXPECT_TRUE(racy_rc11(guarded(rel, rlx_load, "", 1)));
  // Fences: a release fence before a relaxed store, an acquire fence after a relaxed load.
  const std::string fence_rel = "  atomic_thread_fence(memory_order_release);\n" + rlx;
  const std::string fence_acq = rlx_load + "  atomic_thread_fence(memory_order_acquire);\n";
  EXPECT_FALSE(racy_rc11(guarded(fence_rel, fence_acq, "", 1)));
  EXPECT_TRUE(racy_rc11(guarded(rlx, fence_acq, "", 1)));
  EXPECT_TRUE(racy_rc11(guarded(fence_rel, rlx_load, "", 1)));
  // The release sequence: a relaxed RMW of another thread continues it...
  const std::string add = "  atomic_fetch_add_explicit(y, 1, memory_order_relaxed);\n";
  EXPECT_FALSE(racy_rc11(guarded(rel, acq, add, 2)));
  EXPECT_TRUE(racy_rc11(guarded(rlx, acq, add, 2)));
  // ... a plain store of another thread ends it (reading 2 is reading P2's write).
  const std::string store2 = "  atomic_store_explicit(y, 2, memory_order_relaxed);\n";
  EXPECT_TRUE(racy_rc11(guarded(rel, acq, store2, 2)));
  // ... and a later relaxed store of the releasing thread continues it (RC11's rs).
  EXPECT_FALSE(racy_rc11(guarded(rel + store2, acq, "", 2)));
  EXPECT_TRUE(racy_rc11(guarded(rlx + store2, acq, "", 2)));
}

// A plain flag synchronises nothing, fences or not (rc11.cat's sw needs atomic W and R):
// the flag's own accesses race, and so does the data; herd lists three states, the stale
// read of x after the flag among them (the fences do not order it).
TEST(LitmusCRaces, PlainFlagDoesNotSynchronise) {
  const std::string text = R"(C MP+plainflag+fences
{ [x] = 0; [y] = 0; }
P0 (int* x, int* y) {
  *x = 1;
  atomic_thread_fence(memory_order_release);
  *y = 1;
}
P1 (int* x, int* y) {
  int r1 = -1;
  int r0 = *y;
  atomic_thread_fence(memory_order_acquire);
  if (r0 == 1) { r1 = *x; }
}
exists (1:r0=1 /\ 1:r1=0)
)";
  const LitmusTest t = parse_litmus(text, "pf.litmus");
  const RunResult r = run_litmus(t, MemoryModelKind::rc11);
  ASSERT_TRUE(r.racy);
  EXPECT_EQ(r.states.size(), 3u);
  EXPECT_EQ(r.positive, 1u);  // 1:r0=1 /\ 1:r1=0
  std::vector<std::string> lines;
  for (const Race& race : r.races) lines.push_back(race_text(t, race));
  EXPECT_NE(std::find(lines.begin(), lines.end(), "P0 writes y at line 6, P1 reads y at line 10"), lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(), "P0 writes x at line 4, P1 reads x at line 12"), lines.end());
}

// A random C test over two plain and two atomic locations, one access or fence a line;
// every write of a location writes a value of its own (the judge finds rf by value).
std::string random_test(std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  static constexpr std::array<const char*, 3> kStore = {"memory_order_relaxed", "memory_order_release",
                                                        "memory_order_seq_cst"};
  static constexpr std::array<const char*, 3> kLoad = {"memory_order_relaxed", "memory_order_acquire",
                                                       "memory_order_seq_cst"};
  static constexpr std::array<const char*, 5> kRmw = {"memory_order_relaxed", "memory_order_acquire",
                                                      "memory_order_release", "memory_order_acq_rel",
                                                      "memory_order_seq_cst"};
  static constexpr std::array<const char*, 4> kFence = {"memory_order_acquire", "memory_order_release",
                                                        "memory_order_acq_rel", "memory_order_seq_cst"};
  std::array<int, 4> next{1, 1, 1, 1};  // the next value written to x0, x1, y0, y1
  std::string text = "C R\n{ [x0] = 0; [x1] = 0; [y0] = 0; [y1] = 0; }\n";
  const std::size_t threads = 2 + pick(2);
  for (std::size_t t = 0; t < threads; ++t) {
    text += "P" + std::to_string(t) + " (int* x0, int* x1, atomic_int* y0, atomic_int* y1) {\n";
    const std::size_t ops = 2 + pick(4);
    for (std::size_t i = 0; i < ops; ++i) {
      const std::size_t v = pick(4) == 0;  // mostly x0 and y0: more pairs that conflict
      const std::string x = "x" + std::to_string(v), y = "y" + std::to_string(v), r = "int r" + std::to_string(i) + " = ";
      switch (pick(6)) {
        case 0: text += "  *" + x + " = " + std::to_string(next[v]++) + ";\n"; break;
        case 1: text += "  " + r + "*" + x + ";\n"; break;
        case 2:
          text += "  atomic_store_explicit(" + y + ", " + std::to_string(next[2 + v]++) + ", " + kStore[pick(3)] + ");\n";
          break;
        case 3: text += "  " + r + "atomic_load_explicit(" + y + ", " + kLoad[pick(3)] + ");\n"; break;
        case 4:
          text += "  " + r + "atomic_exchange_explicit(" + y + ", " + std::to_string(next[2 + v]++) + ", " +
                  kRmw[pick(5)] + ");\n";
          break;
        default: text += std::string("  atomic_thread_fence(") + kFence[pick(4)] + ");\n"; break;
      }
    }
    text += "}\n";
  }
  return text + "exists (x0=0)\n";
}

// The execution as the judge reads it: the locations' initial writes, then the trace's
// thread starts and joins, fences and the C threads' accesses (each named by the
// record: its location and line), in trace order.
struct Judged {
  std::vector<testing_support::JudgeEvent> events;
  std::vector<Race> site;  // per judge event: var and first = (C thread, line, kind)
};

Judged judged(const LitmusTest& test, const Trace& trace, const litmus::detail::CRecord& record) {
  using testing_support::JudgeEvent;
  Judged out;
  for (std::uint32_t v = 0; v < test.vars.size(); ++v) {
    JudgeEvent e;
    e.kind = JudgeEvent::write;
    e.target = static_cast<int>(v);
    e.atomic = test.var_atomic[v];
    e.value = test.var_init[v];
    e.init = true;
    out.events.push_back(e);
    out.site.push_back({});
  }
  std::map<std::uint32_t, int> c_thread;  // trace thread -> C thread (the k-th fork is Pk)
  std::vector<std::size_t> made(record.accesses.size(), 0);
  for (const Event& e : trace.events) {
    JudgeEvent j;
    j.thread = static_cast<int>(e.thread);
    Race site;
    if (e.op == Op::fork || e.op == Op::join) {
      if (e.op == Op::fork) c_thread.emplace(e.target, static_cast<int>(c_thread.size()));
      j.kind = e.op == Op::fork ? JudgeEvent::spawn : JudgeEvent::join;
      j.target = static_cast<int>(e.target);
    } else if (e.op == Op::fence) {
      j.kind = JudgeEvent::fence;
      j.mo = static_cast<std::memory_order>(e.order);
    } else if ((e.op == Op::read || e.op == Op::write || e.op == Op::rmw) && c_thread.count(e.thread) != 0) {
      const auto c = static_cast<std::size_t>(c_thread[e.thread]);
      const litmus::detail::CAccess& a = record.accesses.at(c).at(made[c]++);
      j.kind = e.op == Op::read ? JudgeEvent::read : e.op == Op::write ? JudgeEvent::write : JudgeEvent::rmw;
      j.target = static_cast<int>(a.var);
      j.atomic = test.var_atomic[a.var];
      j.mo = static_cast<std::memory_order>(e.order);
      j.value = e.op == Op::rmw ? e.value2 : e.value;
      j.old = e.value;
      site = {a.var, {static_cast<int>(c), a.line, e.op == Op::read    ? RaceAccess::Kind::read
                                                   : e.op == Op::write ? RaceAccess::Kind::write
                                                                       : RaceAccess::Kind::update}, {}};
    } else {
      continue;  // the main thread's final reads, after every join
    }
    out.events.push_back(j);
    out.site.push_back(site);
  }
  return out;
}

// Every execution of 300 random tests under rc11: the racing pairs c_races_rc11 finds
// from the graph are the judge's (tests/support/hb_judge, RC11's hb from the definitions,
// rf from values, no code in common), pair for pair.
TEST(LitmusCRaces, Rc11RacesAgreeWithTheHappensBeforeJudge) {
  std::mt19937_64 rng(20261128);
  std::size_t executions = 0, racy = 0, pairs = 0;
  for (int n = 0; n < 300; ++n) {
    const std::string text = random_test(rng);
    const LitmusTest test = parse_litmus(text, "random.litmus");
    std::vector<std::string> names;
    for (const Location& l : test.observed) names.push_back(location_name(test, l));
    litmus::detail::CRecord record;
    ExploreOptions o = litmus_defaults();
    o.memory = MemoryModelKind::rc11;
    bool agreed = true;
    explore(litmus::detail::c_program(test, names, &record, true), o, [&](const ExecutionView& view) {
      if (view.outcome == nullptr || view.trace == nullptr || !agreed) return;
      ++executions;
      const std::vector<Race> found = litmus::detail::c_races_rc11(test, *view.trace, record);
      const Judged j = judged(test, *view.trace, record);
      std::set<Race> want;
      for (const auto& [a, b] : testing_support::racing_pairs(j.events)) {
        Race r{j.site[a].var, j.site[a].first, j.site[b].first};
        if (r.second < r.first) std::swap(r.first, r.second);
        want.insert(r);
      }
      const std::set<Race> got(found.begin(), found.end());
      racy += !want.empty();
      pairs += want.size();
      if (got != want) {
        agreed = false;
        ADD_FAILURE() << "test " << n << ", execution " << view.index << ": " << got.size() << " pairs found, the judge "
                      << want.size() << "\n" << text;
      }
    });
  }
  std::printf("%zu executions, %zu racy, %zu racing pairs\n", executions, racy, pairs);
  EXPECT_GT(racy, 100u);               // races are common enough to be judged
  EXPECT_GT(executions - racy, 100u);  // and so are race-free executions
}

// ---- arrays, pointer arithmetic, dependencies ----

TEST(LitmusCArrays, DeclarationsParamsAndElements) {
  const LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus-c/MP+array+rel+acq.litmus"));
  // `int d[2] = {5, 6}; atomic_int f[2];`: four locations, atomic as their type says.
  ASSERT_EQ(t.arrays.size(), 2u);
  EXPECT_EQ(t.arrays[0].name, "d");
  EXPECT_EQ(t.arrays[0].extent, 2u);
  EXPECT_EQ(t.vars[t.arrays[0].first + 1], "d[1]");
  EXPECT_EQ(t.var_init[t.arrays[0].first], 5);
  EXPECT_EQ(t.var_init[t.arrays[0].first + 1], 6);
  EXPECT_FALSE(t.var_atomic[t.arrays[0].first + 1]);
  EXPECT_TRUE(t.var_atomic[t.arrays[1].first + 1]);
  // `&f[1]` and `f + 1` are the constant element f[1]; `*(d + r0)` is indexed at run time.
  const CThread& p0 = t.c_threads[0];
  const CThread& p1 = t.c_threads[1];
  EXPECT_EQ(p0.stmts[0].var, t.arrays[0].first + 1);  // d[1] = 7
  EXPECT_FALSE(p0.stmts[0].indexed);
  EXPECT_EQ(p0.stmts[1].var, t.arrays[1].first + 1);  // &f[1]
  bool indexed_load = false;
  for (const CExpr& x : p1.exprs)
    if (x.kind == CExpr::Kind::load && x.indexed) {
      indexed_load = true;
      EXPECT_EQ(x.var, t.arrays[0].first);
      EXPECT_EQ(x.extent, 2u);
      EXPECT_TRUE(x.plain);
    }
  EXPECT_TRUE(indexed_load);
  // It runs: d[1] is read only after the flag, so it is 7, never 6.
  const RunResult r = run_litmus(t, MemoryModelKind::rc11);
  EXPECT_EQ(answer(r), "No") << format_herd(t, r);
  EXPECT_EQ(r.states, (std::vector<std::vector<std::int64_t>>{{0, -1}, {1, 7}}));
}

TEST(LitmusCArrays, ConditionNamesElementsAndIndexedStoresLand) {
  const std::string text = R"(C ARR
{ atomic_int y[3] = {1}; int z[2]; }
P0 (atomic_int* y, int* z) {
  int r0 = atomic_load_explicit(&y[0], memory_order_relaxed);
  atomic_store_explicit(y + r0 + 1, 5, memory_order_relaxed);
  z[r0] = 4;
  *(z + (r0 - 1)) = 3;
}
exists (y[2]=5 /\ z[1]=4 /\ [z[0]]=3 /\ y[1]=0)
)";
  const LitmusTest t = parse_litmus(text, "arr.litmus");
  EXPECT_EQ(t.var_init[t.arrays[0].first], 1);  // missing values are 0
  EXPECT_EQ(t.var_init[t.arrays[0].first + 2], 0);
  EXPECT_EQ(condition_text(t), "exists ([y[2]]=5 /\\ [z[1]]=4 /\\ [z[0]]=3 /\\ [y[1]]=0)");
  for (MemoryModelKind m : {MemoryModelKind::sc, MemoryModelKind::rc11}) {
    const RunResult r = run_litmus(t, m);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_EQ(answer(r), "Ok") << format_herd(t, r);
    EXPECT_EQ(r.states.size(), 1u);
  }
}

// An index out of its array at run time fails the execution, naming the line.
TEST(LitmusCArrays, IndexOutOfRangeAtRunTimeIsAnError) {
  const std::string text = R"(C OOB
{ int x[2]; [y] = 0; }
P0 (int* x, atomic_int* y) {
  int r0 = atomic_load(y) + 1;
  *(x + r0) = 1;
}
P1 (atomic_int* y) { atomic_store(y, 1); }
exists (x[1]=1)
)";
  const LitmusTest t = parse_litmus(text, "oob.litmus");
  const RunResult r = run_litmus(t, MemoryModelKind::sc);
  EXPECT_NE(r.error.find("line 5: index 2 is out of x (2 elements)"), std::string::npos) << r.error;
  std::string path = atomcheck::testing::temp_dir() + "/oob.litmus";
  std::ofstream(path) << text;
  auto cli = atomcheck::testing::run_cli({"run", path});
  EXPECT_EQ(cli.exit_code, 1) << cli.out;
}

TEST(LitmusCArrays, Errors) {
  const std::string g = R"(C E
{ atomic_int y[2] = {0, 0}; int x; }
P0 (atomic_int* y, int* x) {
  int r0 = atomic_load_explicit(y + 1, memory_order_relaxed);
  *x = r0;
}
exists (y[1]=0)
)";
  EXPECT_EQ(parse_error(g), "<no error>");
  const std::pair<std::string, std::string> cases[] = {
      {replaced(g, "y + 1,", "y + 2,"), "t.litmus:4:35: index 2 is out of y (of 2 elements)"},
      {replaced(g, "y + 1,", "&y,"), "t.litmus:4:35: expected '[' after '&y' ('y' is already an address)"},
      {replaced(g, "y + 1,", "y[1],"), "t.litmus:4:34: 'y[...]' is an element, not an address: write '&y[...]' or 'y + ...'"},
      {replaced(g, "int r0 =", "int r0[2]; r0 ="), "t.litmus:4:9: local arrays are not supported (declare arrays in the init block)"},
      {replaced(g, "int x; }", "int x; int y[3]; }"), "t.litmus:2:40: y is declared twice"},
      {replaced(g, "exists (y[1]=0)", "exists (y=0)"), "t.litmus:7:9: 'y' is an array: name one element, as 'y[0]'"},
      {replaced(g, "exists (y[1]=0)", "exists (y[2]=0)"), "t.litmus:7:11: expected an index of y from 0 to 1, found '2'"},
      {replaced(g, "exists (y[1]=0)", "exists (x[0]=0)"), "t.litmus:7:9: 'x' is not an array of the init block"},
      {replaced(g, "{0, 0}", "{0, 0, 0}"), "t.litmus:2:28: too many values for y"},
      {replaced(g, "y[2] = {0, 0}", "y[0]"), "t.litmus:2:16: an array has 1 to 64 elements, not 0"},
      {replaced(g, "y[2] = {0, 0}", "y[]"), "t.litmus:2:14: array y needs a length or values"},
      {replaced(g, "*x = r0;", "*(x + r0) = 1;"), "<no error>"},
      {replaced(g, "*x = r0;", "*(z + r0) = 1;"), "t.litmus:5:5: undeclared location 'z' (not a parameter of P0)"},
  };
  for (const auto& [text, message] : cases) EXPECT_EQ(parse_error(text), message) << text;
}

// herd's X86 grammar keeps refusing arrays: only C has them.
TEST(LitmusCArrays, X86StillRefusesArrays) {
  const std::string x86 = "X86 A\n{ int a[2]; }\n P0 ;\n MOV [a],$1 ;\nexists ([a]=1)\n";
  EXPECT_EQ(parse_error(x86), "t.litmus:2:7: arrays ('a[...]') are not supported");
}

}  // namespace
