// Inputs on which a libFuzzer target of fuzz/ crashed (tests/data/fuzz-crashes/TARGET/,
// README there), each fed to its parser as `atomcheck` feeds it: every one must be
// refused with the parser's own one-line error, or parse, never crash or misbehave. Runs
// in every build (the fuzz targets need clang; these tests do not), so a fixed parser
// stays fixed under g++ and under ASan+UBSan too. Inputs nested too deeply for the stack
// are generated here at a depth that overflows any build's stack (the files of
// fuzz-crashes/ overflow the fuzz targets' ASan frames, not necessarily a Release
// build's). Also checks that the copies of scheduler functions the checkpoint fuzz target
// links instead of the scheduler still match their originals.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/checkpoint.hpp"
#include "scheduler/explore/explore.hpp"
#include "specs/litmus.hpp"
#include "specs/spec.hpp"
#include "trace/trace_io.hpp"

namespace atomcheck {
namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The files of tests/data/fuzz-crashes/TARGET (none when the directory does not exist),
// sorted; README files are not inputs.
std::vector<std::filesystem::path> crashes(const std::string& target) {
  std::vector<std::filesystem::path> out;
  std::filesystem::path dir = std::filesystem::path(ATOMCHECK_TEST_DATA) / "fuzz-crashes" / target;
  if (!std::filesystem::is_directory(dir)) return out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().filename().string().rfind("README", 0) != 0) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool one_line(const std::string& s) { return s.find('\n') == std::string::npos; }

// checkpoint_fuzzer found checkpoints whose integer fields hold JSON numbers beyond
// 2^64 (1.4674404407370955e+20): nlohmann's get<std::uint64_t> converts the double with
// static_cast, undefined behaviour (UBSan: "1.46744e+20 is outside the range of
// representable values of type 'unsigned long'", cli/checkpoint.cpp failure_from). Every
// file here is damaged (the checksum matches, a field does not): parse_checkpoint must
// say so in one line, as docs/checkpoint.md promises ("never a crash").
TEST(FuzzRegressions, CheckpointsAreRefusedInOneLine) {
  for (const auto& path : crashes("checkpoint")) {
    SCOPED_TRACE(path.string());
    cli::SearchIdentity id;
    SearchState state;
    std::string reason = cli::parse_checkpoint(slurp(path), id, state);
    EXPECT_NE(reason, "") << "a damaged checkpoint was accepted";
    EXPECT_TRUE(one_line(reason)) << reason;
  }
}

TEST(FuzzRegressions, LitmusTestsParseOrFailInOneLine) {
  for (const char* target : {"litmus_x86", "litmus_c"}) {
    for (const auto& path : crashes(target)) {
      SCOPED_TRACE(path.string());
      try {
        litmus::Test t = litmus::parse_litmus(slurp(path), "fuzz.litmus");
        (void)litmus::condition_text(t);
      } catch (const litmus::LitmusError& e) {
        std::string m = e.what();
        EXPECT_EQ(m.rfind("fuzz.litmus:", 0), 0u) << m;
        EXPECT_TRUE(one_line(m)) << m;
      }
    }
  }
}

TEST(FuzzRegressions, TracesReadOrFailInOneLine) {
  for (auto [target, format] : {std::pair{"trace_std", TraceFormat::std_text}, std::pair{"trace_jsonl", TraceFormat::jsonl}}) {
    for (const auto& path : crashes(target)) {
      SCOPED_TRACE(path.string());
      try {
        (void)read_trace(path.string(), format);
      } catch (const TraceError& e) {
        std::string m = e.what();
        EXPECT_EQ(m.rfind(path.string() + ":", 0), 0u) << m;
        EXPECT_TRUE(one_line(m)) << m;
      }
    }
  }
}

TEST(FuzzRegressions, SpecsLoadOrFailInOneLine) {
  for (const auto& path : crashes("spec_loader")) {
    SCOPED_TRACE(path.string());
    try {
      (void)spec::parse_spec(slurp(path), "fuzz.json");
    } catch (const spec::SpecError& e) {
      std::string m = e.what();
      EXPECT_EQ(m.rfind("fuzz.json:", 0), 0u) << m;
      EXPECT_TRUE(one_line(m)) << m;
    }
  }
}

std::string repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// Parses `text` and expects a one-line LitmusError; a parse that succeeds must leave a
// test whose condition prints (atomcheck run prints it).
void expect_litmus_refused(const std::string& text) {
  try {
    litmus::Test t = litmus::parse_litmus(text, "deep.litmus");
    (void)litmus::condition_text(t);
    ADD_FAILURE() << "parsed";
  } catch (const litmus::LitmusError& e) {
    std::string m = e.what();
    EXPECT_EQ(m.rfind("deep.litmus:", 0), 0u) << m;
    EXPECT_TRUE(one_line(m)) << m;
  }
}

constexpr int kDeep = 100000;
const std::string kX86Head = "X86 deep\n{ x=0; }\n P0 ;\n MOV EAX,[x] ;\n";
const std::string kCHead = "C deep\n{ x=0; }\nP0 (atomic_int* x) {\n int r0 = 1;\n";

// The condition parser (litmus_parser.hpp parse_or/parse_and/parse_implies/parse_not)
// recurses once per level of parentheses, negation and implication: 8600 parentheses (a
// 17 KB file) overflow a Release build's 8 MB stack (SIGSEGV in `atomcheck run`), 3700
// the fuzz target's.
TEST(FuzzRegressions, DeepLitmusConditionsAreRefused) {
  expect_litmus_refused(kX86Head + "exists " + repeat("(", kDeep) + "0:EAX=0" + repeat(")", kDeep) + "\n");
  expect_litmus_refused(kX86Head + "exists " + repeat("~", kDeep) + "0:EAX=0\n");
  expect_litmus_refused(kX86Head + "exists " + repeat("0:EAX=0 => ", kDeep) + "0:EAX=0\n");
}

// A long flat conjunction parses (parse_and loops) into a left-deep tree that
// condition_text (litmus.cpp print_node) and eval_proposition (eval_node) walk
// recursively: 44000 conjuncts overflow a Release build's stack in format_herd.
TEST(FuzzRegressions, LongLitmusConditionsPrintOrAreRefused) {
  const std::string text = kX86Head + "exists " + repeat("0:EAX=0 /\\ ", kDeep) + "0:EAX=0\n";
  try {
    litmus::Test t = litmus::parse_litmus(text, "long.litmus");
    EXPECT_FALSE(litmus::condition_text(t).empty());
    std::vector<std::int64_t> zeros(t.observed.size(), 0);
    EXPECT_TRUE(litmus::eval_proposition(t, zeros));
  } catch (const litmus::LitmusError& e) {
    EXPECT_TRUE(one_line(e.what())) << e.what();
  }
}

// The C dialect's parser recurses once per parenthesised expression and per nested
// statement (litmus_c.cpp parse_expr/parse_unary, parse_statement): 11000 parentheses
// or 12000 nested ifs overflow a Release build's stack.
TEST(FuzzRegressions, DeepCLitmusProgramsAreRefused) {
  expect_litmus_refused(kCHead + " r0 = " + repeat("(", kDeep) + "1" + repeat(")", kDeep) + ";\n}\nexists (0:r0=0)\n");
  expect_litmus_refused(kCHead + repeat("if (r0) { ", kDeep) + "r0 = 2;" + repeat(" }", kDeep) + "\n}\nexists (0:r0=0)\n");
}

// What the C parser accepts, the runner must run: CRunner (litmus_c_run.cpp) evaluates
// expressions and runs statements recursively on the test thread's fiber stack (64 KiB by
// default), so `r0 = 1 + 1 + ... + 1` with 507 terms (a 2 KB file) or 1000 nested ifs
// crash `atomcheck run` (SIGSEGV in a test thread). Either the parser refuses such a
// program in one line or the run completes.
TEST(FuzzRegressions, CLitmusProgramsTheParserAcceptsRun) {
  for (const std::string& body : {" r0 = " + repeat("1 + ", 5000) + "1;\n",
                                  repeat("if (r0) { ", 5000) + "r0 = 2;" + repeat(" }", 5000) + "\n"}) {
    SCOPED_TRACE(body.substr(0, 40));
    litmus::Test t;
    try {
      t = litmus::parse_litmus(kCHead + body + "}\nexists (0:r0=0)\n", "run.litmus");
    } catch (const litmus::LitmusError& e) {
      EXPECT_TRUE(one_line(e.what())) << e.what();
      continue;
    }
    litmus::RunResult r = litmus::run_litmus(t, MemoryModelKind::sc);
    EXPECT_EQ(r.error, "");
    EXPECT_TRUE(r.complete);
  }
}

// A checkpoint's checksum is computed by dumping its body (checkpoint.cpp canonical),
// which nlohmann does recursively: a body nested 75000 levels deep (a 150 KB file)
// overflows a Release build's stack before any field is checked.
TEST(FuzzRegressions, DeepCheckpointBodiesAreRefusedInOneLine) {
  const std::string text = R"({"format":"atomcheck checkpoint","version":1,"checksum":"0000000000000000","body":{"search":)" +
                           repeat("[", 4 * kDeep) + repeat("]", 4 * kDeep) + "}}";
  cli::SearchIdentity id;
  SearchState state;
  std::string reason = cli::parse_checkpoint(text, id, state);
  EXPECT_NE(reason, "");
  EXPECT_TRUE(one_line(reason)) << reason;
}

}  // namespace
}  // namespace atomcheck
