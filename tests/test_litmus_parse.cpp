// The herd7 litmus parser: every test of tests/data/litmus parses into the expected
// shape, the syntax variants herd7 accepts are read the same way, and bad input gives
// one exact `FILE:LINE: ...` message (and exit code 2 from `atomcheck run`).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "specs/litmus.hpp"
#include "tests/support/cli_runner.hpp"

namespace {

using namespace atomcheck::litmus;
using LitmusTest = atomcheck::litmus::Test;
namespace fs = std::filesystem;

std::vector<fs::path> all_litmus_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(atomcheck::testing::data_path("litmus")))
    if (e.path().extension() == ".litmus") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string parse_error(const std::string& text, const std::string& file = "t.litmus") {
  try {
    parse_litmus(text, file);
  } catch (const LitmusError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(LitmusParse, EveryDataFileParses) {
  auto files = all_litmus_files();
  ASSERT_EQ(files.size(), 53u);  // 23 X86 + 28 X86_64 + 2 herd tests
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    LitmusTest t;
    ASSERT_NO_THROW(t = load_litmus(f.string()));
    EXPECT_EQ(t.name + ".litmus", f.filename().string());
    EXPECT_GE(t.threads.size(), 1u);
    EXPECT_FALSE(t.observed.empty());
    for (const auto& th : t.threads) EXPECT_FALSE(th.empty());
    EXPECT_EQ(t.arch, f.parent_path().filename() == "herdtools7-x86" ? Arch::x86 : Arch::x86_64);
  }
}

TEST(LitmusParse, IntelSB) {
  LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus/herdtools7-x86/SB.litmus"));
  EXPECT_EQ(t.name, "SB");
  ASSERT_EQ(t.threads.size(), 2u);
  ASSERT_EQ(t.threads[0].size(), 2u);
  const Instr& st = t.threads[0][0];
  EXPECT_EQ(st.op, Opcode::store);
  EXPECT_EQ(t.vars[st.var], "x");
  EXPECT_TRUE(st.src.is_imm);
  EXPECT_EQ(st.src.imm, 1);
  EXPECT_EQ(st.line, 11u);
  const Instr& ld = t.threads[0][1];
  EXPECT_EQ(ld.op, Opcode::load);
  EXPECT_EQ(t.vars[ld.var], "y");
  EXPECT_EQ(ld.reg, kRegAx);
  EXPECT_EQ(t.condition.quantifier, Quantifier::exists);
  EXPECT_EQ(condition_text(t), "exists (0:EAX=0 /\\ 1:EAX=0)");
  ASSERT_EQ(t.observed.size(), 2u);
  EXPECT_EQ(location_name(t, t.observed[1]), "1:EAX");
}

TEST(LitmusParse, AttSB) {
  LitmusTest t = load_litmus(atomcheck::testing::data_path("litmus/herdtools7-x86_64/SB.litmus"));
  ASSERT_EQ(t.threads.size(), 2u);
  EXPECT_EQ(t.threads[1][0].op, Opcode::store);
  EXPECT_EQ(t.vars[t.threads[1][0].var], "y");
  EXPECT_EQ(t.threads[1][1].op, Opcode::load);
  EXPECT_EQ(t.vars[t.threads[1][1].var], "x");
  EXPECT_EQ(condition_text(t), "exists (0:rax=0 /\\ 1:rax=0)");
}

TEST(LitmusParse, HerdTestsXchgNotExistsForall) {
  LitmusTest a = load_litmus(atomcheck::testing::data_path("litmus/herdtools7-herd-tests-X86_64/A011.litmus"));
  ASSERT_EQ(a.threads.size(), 2u);
  ASSERT_EQ(a.threads[1].size(), 2u);
  EXPECT_EQ(a.threads[1][0].op, Opcode::move);
  EXPECT_EQ(a.threads[1][0].src.imm, 2);
  EXPECT_EQ(a.threads[1][1].op, Opcode::xchg);
  EXPECT_EQ(a.condition.quantifier, Quantifier::not_exists);
  EXPECT_EQ(condition_text(a), "~exists (1:rax=1 /\\ [y]=1)");
  LitmusTest b = load_litmus(atomcheck::testing::data_path("litmus/herdtools7-herd-tests-X86_64/A012.litmus"));
  EXPECT_EQ(b.threads.size(), 1u);
  EXPECT_EQ(b.condition.quantifier, Quantifier::forall);
  EXPECT_EQ(condition_text(b), "forall ([x]=1)");
}

// Every variant herd7 accepts reads as the same test.
TEST(LitmusParse, SyntaxVariants) {
  const std::string text =
      "X86 Variants\n"
      "(* a comment (* nested *) spanning\n"
      "   two lines *)\n"
      "\"doc string\"\n"
      "{ x=1; [y]=2; int z; uint64_t w = 7; 0:EAX=5; P1:EBX=-3; }\n"
      " P0          | P1              ;\n"
      " mov [x],2   | MOV EAX,[y]     ;\n"
      " Mfence      | lock xadd [z],EBX ;\n"
      " xchg EAX,[w] | LOCK CMPXCHG [x],ECX ;\n"
      "             | MOV ECX,$4 (* trailing *) ;\n"
      "locations [x; 1:ECX;]\n"
      "exists\n"
      "(P0:EAX=7 /\\ (1:EAX=2 \\/ ~[z]=0) /\\ y=2)\n"
      "Observed whatever herd ignores\n";
  LitmusTest t = parse_litmus(text, "v.litmus");
  EXPECT_EQ(t.name, "Variants");
  ASSERT_EQ(t.vars.size(), 4u);
  EXPECT_EQ(t.var_init[0], 1);  // x
  EXPECT_EQ(t.var_init[1], 2);  // y
  EXPECT_EQ(t.var_init[2], 0);  // z
  EXPECT_EQ(t.var_init[3], 7);  // w
  EXPECT_EQ(t.reg_init[0][kRegAx], 5);
  EXPECT_EQ(t.reg_init[1][1], -3);
  ASSERT_EQ(t.threads[0].size(), 3u);
  EXPECT_EQ(t.threads[0][0].src.imm, 2);
  EXPECT_EQ(t.threads[0][1].op, Opcode::mfence);
  EXPECT_EQ(t.threads[0][2].op, Opcode::xchg);
  EXPECT_EQ(t.vars[t.threads[0][2].var], "w");
  ASSERT_EQ(t.threads[1].size(), 4u);
  EXPECT_EQ(t.threads[1][1].op, Opcode::xadd);
  EXPECT_EQ(t.threads[1][1].reg, 1);
  EXPECT_EQ(t.threads[1][2].op, Opcode::cmpxchg);
  EXPECT_EQ(t.threads[1][2].reg, 2);
  EXPECT_EQ(t.threads[1][3].op, Opcode::move);
  EXPECT_EQ(t.threads[1][3].line, 10u);
  // Observed: registers by thread, then memory by name; locations [...] adds x, 1:ECX.
  std::vector<std::string> names;
  for (const auto& l : t.observed) names.push_back(location_name(t, l));
  EXPECT_EQ(names, (std::vector<std::string>{"0:EAX", "1:EAX", "1:ECX", "[x]", "[y]", "[z]"}));
  EXPECT_EQ(condition_text(t), "exists (0:EAX=7 /\\ (1:EAX=2 \\/ ~[z]=0) /\\ [y]=2)");
  // The proposition evaluates over the observed locations.
  EXPECT_TRUE(eval_proposition(t, {7, 2, 0, 0, 2, 0}));
  EXPECT_FALSE(eval_proposition(t, {7, 1, 0, 0, 2, 0}));
  EXPECT_TRUE(eval_proposition(t, {7, 1, 0, 0, 2, 1}));
}

TEST(LitmusParse, AttVariants) {
  const std::string text =
      "X86_64 Att\n"
      "{ [x]=0; }\n"
      " P0              | P1 ;\n"
      " MOVL 1,(x)      | lock cmpxchgl %ebx,(x) ;\n"
      " movq (x),%r8    | lock xaddq %rcx,(y) ;\n"
      " xchgl %eax,(y)  | movl %ecx,(z) ;\n"
      "~exists (0:r8=1 /\\ 1:eax=0)\n";
  LitmusTest t = parse_litmus(text, "att.litmus");
  EXPECT_EQ(t.threads[0][0].op, Opcode::store);
  EXPECT_EQ(t.threads[0][0].src.imm, 1);
  EXPECT_EQ(t.threads[0][1].reg, 8);
  EXPECT_EQ(t.threads[0][2].op, Opcode::xchg);
  EXPECT_EQ(t.threads[1][0].op, Opcode::cmpxchg);
  EXPECT_EQ(t.threads[1][0].reg, 1);
  EXPECT_EQ(t.vars[t.threads[1][0].var], "x");
  EXPECT_EQ(t.threads[1][1].op, Opcode::xadd);
  EXPECT_EQ(t.threads[1][2].op, Opcode::store);
  EXPECT_FALSE(t.threads[1][2].src.is_imm);
  EXPECT_EQ(t.threads[1][2].src.reg, 2);
  EXPECT_EQ(condition_text(t), "~exists (0:r8=1 /\\ 1:rax=0)");
}

const char* kGood =
    "X86 T\n"
    "{ }\n"
    " P0          | P1          ;\n"
    " MOV [x],$1  | MOV [y],$1  ;\n"
    " MOV EAX,[y] | MOV EAX,[x] ;\n"
    "exists (0:EAX=0 /\\ 1:EAX=0)\n";

TEST(LitmusParse, GoodBaseline) { EXPECT_EQ(parse_error(kGood), "<no error>"); }

TEST(LitmusParse, ErrorUnknownInstruction) {
  std::string text = kGood;
  text.replace(text.find("MOV EAX,[x]"), 11, "ADD EAX,[x]");
  EXPECT_EQ(parse_error(text),
            "t.litmus:5: unsupported instruction 'ADD EAX,[x]' (atomcheck reads MOV, MFENCE, "
            "XCHG, LOCK CMPXCHG and LOCK XADD)");
}

TEST(LitmusParse, ErrorBadRegister) {
  std::string text = kGood;
  text.replace(text.find("MOV EAX,[y]"), 11, "MOV EZX,[y]");
  EXPECT_EQ(parse_error(text), "t.litmus:5: unknown register 'EZX'");
  std::string cond = kGood;
  cond.replace(cond.find("1:EAX=0"), 7, "1:EQX=0");
  EXPECT_EQ(parse_error(cond), "t.litmus:6: unknown register 'EQX'");
  EXPECT_EQ(parse_error("X86_64 T\n{}\n P0 ;\n movl (x),%exx ;\nexists (0:rax=1)\n"),
            "t.litmus:4: unknown register '%exx'");
}

TEST(LitmusParse, ErrorMissingCondition) {
  std::string text = kGood;
  text.erase(text.find("exists"));
  EXPECT_EQ(parse_error(text),
            "t.litmus:5: missing condition (exists, ~exists or forall) after the thread table");
}

TEST(LitmusParse, ErrorTruncatedFile) {
  std::string text = kGood;
  text.erase(text.find("1:EAX=0)"));
  EXPECT_EQ(parse_error(text), "t.litmus:6: unexpected end of file in the condition");
  EXPECT_EQ(parse_error("X86 T\n{ x=1;\n"),
            "t.litmus:2: unexpected end of file in the init block (missing '}')");
  EXPECT_EQ(parse_error("X86 T\n{ x=1; }\n"),
            "t.litmus:2: unexpected end of file: missing the thread table 'P0 | P1 ... ;'");
  EXPECT_EQ(parse_error("X86 T\n\"doc\"\n"),
            "t.litmus:2: unexpected end of file: missing the init block '{ ... }'");
}

TEST(LitmusParse, ErrorEmptyFile) {
  EXPECT_EQ(parse_error(""), "t.litmus:1: empty file");
  EXPECT_EQ(parse_error("\n  \n(* only a comment *)\n"), "t.litmus:1: empty file");
}

TEST(LitmusParse, OtherErrors) {
  EXPECT_EQ(parse_error("ARM T\n{}\n"),
            "t.litmus:1: unsupported architecture 'ARM' (atomcheck reads X86 and X86_64 litmus "
            "tests)");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n CMPXCHG [x],EBX ;\nexists (x=1)\n"),
            "t.litmus:4: 'CMPXCHG [x],EBX' without LOCK is not atomic (atomcheck reads MOV, "
            "MFENCE, XCHG, LOCK CMPXCHG and LOCK XADD)");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV [x],[y] ;\nexists (x=1)\n"),
            "t.litmus:4: 'MOV [x],[y]': MOV cannot move memory to memory");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 | P1 ;\n MOV [x],$1 ;\nexists (2:EAX=1)\n"),
            "t.litmus:5: thread 2 does not exist (the test has 2 threads)");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV [x],$1 | MOV [y],$1 ;\nexists (x=1)\n"),
            "t.litmus:4: this row has more columns than the 1 threads of the header");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV [x],$1 ;\nexists (x=1 /\\ y)\n"),
            "t.litmus:5: expected '=', found ')'");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV [x],$1 ;\nmaybe (x=1)\n"),
            "t.litmus:5: expected a condition (exists, ~exists or forall), found 'maybe'");
  EXPECT_EQ(parse_error("X86 T\n(* open\n{}\n"), "t.litmus:2: unterminated comment '(*'");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV EAX,[EBX] ;\nexists (x=1)\n"),
            "t.litmus:4: indirect addressing '[EBX]' is not supported");
}

TEST(LitmusParse, CliReportsFileAndLineWithExit2) {
  std::string dir = atomcheck::testing::temp_dir();
  std::string path = dir + "/bad.litmus";
  std::string text = kGood;
  text.replace(text.find("MOV EAX,[x]"), 11, "ADD EAX,[x]");
  std::ofstream(path) << text;
  auto r = atomcheck::testing::run_cli({"run", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":5: unsupported instruction 'ADD EAX,[x]'"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto missing = atomcheck::testing::run_cli({"run", dir + "/nope.litmus"});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
