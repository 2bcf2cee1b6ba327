// The herd7 litmus parser: every test of tests/data/litmus parses into the expected
// shape, what herd7's own grammar accepts in the init block, the locations, the filter
// and the condition is read as herd reads it (lib/splitter.mll, lib/stateLexer.mll and
// lib/stateParser.mly of herdtools7), and bad or unsupported input gives one exact
// `FILE:LINE:COL: ...` message (and exit code 2 from `atomcheck run`).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
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
  ASSERT_EQ(files.size(), 67u);  // 23 X86 + 28 X86_64 + 2 herd tests + 14 of ours
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    LitmusTest t;
    ASSERT_NO_THROW(t = load_litmus(f.string()));
    EXPECT_EQ(t.name + ".litmus", f.filename().string());
    EXPECT_GE(t.threads.size(), 1u);
    EXPECT_FALSE(t.observed.empty());
    for (const auto& th : t.threads) EXPECT_FALSE(th.empty());
    std::string dir = f.parent_path().filename().string();
    EXPECT_EQ(t.arch, dir == "herdtools7-x86" || dir == "atomcheck-x86" ? Arch::x86 : Arch::x86_64);
    EXPECT_EQ(t.shown, t.observed.size());  // no filter in the data files
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
      "(P0:EAX=7 /\\ (1:EAX=2 \\/ ~[z]=0) /\\ y=2);\n"
      "with tso: exists; sc: ~exists;\n"
      "<< herd's configuration section: anything goes\n";
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
            "t.litmus:5:16: unsupported instruction 'ADD EAX,[x]' (atomcheck reads MOV, MFENCE, "
            "XCHG, LOCK CMPXCHG and LOCK XADD)");
}

TEST(LitmusParse, ErrorBadRegister) {
  std::string text = kGood;
  text.replace(text.find("MOV EAX,[y]"), 11, "MOV EZX,[y]");
  EXPECT_EQ(parse_error(text), "t.litmus:5:6: unknown register 'EZX'");
  std::string cond = kGood;
  cond.replace(cond.find("1:EAX=0"), 7, "1:EQX=0");
  EXPECT_EQ(parse_error(cond), "t.litmus:6:22: unknown register 'EQX'");
  EXPECT_EQ(parse_error("X86_64 T\n{}\n P0 ;\n movl (x),%exx ;\nexists (0:rax=1)\n"),
            "t.litmus:4:11: unknown register '%exx'");
}

// herd reads a test without a condition as `forall (true)`.
TEST(LitmusParse, MissingConditionIsForallTrue) {
  std::string text = kGood;
  text.erase(text.find("exists"));
  LitmusTest t = parse_litmus(text, "t.litmus");
  EXPECT_EQ(t.condition.quantifier, Quantifier::forall);
  EXPECT_EQ(condition_text(t), "forall (true)");
  EXPECT_TRUE(t.observed.empty());
  RunResult r = run_litmus(t, atomcheck::MemoryModelKind::tso);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.states.size(), 1u);  // the empty state
}

TEST(LitmusParse, ErrorTruncatedFile) {
  std::string text = kGood;
  text.erase(text.find("1:EAX=0)"));
  EXPECT_EQ(parse_error(text), "t.litmus:6:19: unexpected end of file in the condition");
  EXPECT_EQ(parse_error("X86 T\n{ x=1;\n"),
            "t.litmus:2:7: unexpected end of file in the init block (missing '}')");
  EXPECT_EQ(parse_error("X86 T\n{ x=1; }\n"),
            "t.litmus:2:9: unexpected end of file: missing the thread table 'P0 | P1 ... ;'");
  EXPECT_EQ(parse_error("X86 T\n\"doc\"\n"),
            "t.litmus:2:6: unexpected end of file: missing the init block '{ ... }'");
}

TEST(LitmusParse, ErrorEmptyFile) {
  EXPECT_EQ(parse_error(""), "t.litmus:1:1: empty file");
  EXPECT_EQ(parse_error("\n  \n(* only a comment *)\n"), "t.litmus:1:1: empty file");
}

TEST(LitmusParse, OtherErrors) {
  EXPECT_EQ(parse_error("ARM T\n{}\n"),
            "t.litmus:1:1: unsupported architecture 'ARM' (atomcheck reads X86, X86_64 and C "
            "litmus tests)");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n CMPXCHG [x],EBX ;\nexists (x=1)\n"),
            "t.litmus:4:2: 'CMPXCHG [x],EBX' without LOCK is not atomic (atomcheck reads MOV, "
            "MFENCE, XCHG, LOCK CMPXCHG and LOCK XADD)");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV [x],[y] ;\nexists (x=1)\n"),
            "t.litmus:4:2: 'MOV [x],[y]': MOV cannot move memory to memory");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 | P1 ;\n MOV [x],$1 ;\nexists (2:EAX=1)\n"),
            "t.litmus:5:9: thread 2 does not exist (the test has 2 threads)");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV [x],$1 | MOV [y],$1 ;\nexists (x=1)\n"),
            "t.litmus:4:15: this row has more columns than the 1 threads of the header");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV [x],$1 ;\nexists (x=1 /\\ y)\n"),
            "t.litmus:5:17: expected '=', found ')'");
  // Not a keyword herd's splitter knows: still the program, as in herd.
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV [x],$1 ;\nmaybe (x=1)\n"),
            "t.litmus:5:1: unsupported instruction 'maybe (x=1)' (atomcheck reads MOV, MFENCE, "
            "XCHG, LOCK CMPXCHG and LOCK XADD)");
  EXPECT_EQ(parse_error("X86 T\n(* open\n{}\n"), "t.litmus:2:1: unterminated comment '(*'");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV EAX,[EBX] ;\nexists (x=1)\n"),
            "t.litmus:4:10: indirect addressing '[EBX]' is not supported");
  EXPECT_EQ(parse_error("X86 T\n{}\n P0 ;\n MOV [x],$1 ;\nexists (x=1) junk\n"),
            "t.litmus:5:14: unexpected 'junk' after the condition");
  EXPECT_EQ(parse_error("X86 T\n{}\n P1 ;\n MOV [x],$1 ;\nexists (x=1)\n"),
            "t.litmus:3:2: expected the thread header 'P0 | P1 | ... ;', found 'P1'");
}

// A test whose init block, thread table and condition we vary.
std::string with_parts(const std::string& init, const std::string& cond, const std::string& after_init = "") {
  return "X86 T\n{" + init + "}" + after_init +
         "\n P0          | P1          ;\n"
         " MOV [x],$1  | MOV [y],$1  ;\n"
         " MOV EAX,[y] | MOV EAX,[x] ;\n" +
         cond + "\n";
}

std::vector<std::string> names_of(const LitmusTest& t) {
  std::vector<std::string> out;
  for (const auto& l : t.observed) out.push_back(location_name(t, l));
  return out;
}

// The init block as herd's state grammar has it: `;` separates items and may end the
// list or be left out, `};` closes the block (herd's program may start with `;`), items
// are `loc`, `loc=v`, `type loc[=v]`, `_Atomic type loc`, `type loc = ATOMIC_INIT(v)`,
// registers as `0:EAX` or `P0:EAX` (typed too), memory as `x` or `[x]`.
TEST(LitmusParse, HerdInitGrammar) {
  LitmusTest t = parse_litmus(
      with_parts("\n  int x = 1;\n  uint64_t y=2;\n  _Atomic int z;\n  int64_t w = ATOMIC_INIT(-4);\n"
                 "  v;\n  [u] = 0x10;\n  int P1:EBX = 3;\n  0:ECX=-1\n",
                 "exists (0:EAX=0 /\\ 1:EAX=0)", ";"),
      "init.litmus");
  auto var = [&](const std::string& n) {
    auto it = std::find(t.vars.begin(), t.vars.end(), n);
    EXPECT_NE(it, t.vars.end()) << n;
    return t.var_init[static_cast<std::size_t>(it - t.vars.begin())];
  };
  EXPECT_EQ(var("x"), 1);
  EXPECT_EQ(var("y"), 2);
  EXPECT_EQ(var("z"), 0);
  EXPECT_EQ(var("w"), -4);
  EXPECT_EQ(var("v"), 0);
  EXPECT_EQ(var("u"), 16);
  EXPECT_EQ(t.reg_init[1][1], 3);  // EBX
  EXPECT_EQ(t.reg_init[0][2], -1);  // ECX
  ASSERT_EQ(t.threads.size(), 2u);
  EXPECT_EQ(t.threads[0].size(), 2u);
  // `{}` empty, a lone `;`, and `};` on its own line.
  EXPECT_EQ(parse_error(with_parts("", "exists (0:EAX=0)")), "<no error>");
  EXPECT_EQ(parse_error(with_parts(";", "exists (0:EAX=0)")), "<no error>");
  EXPECT_EQ(parse_error(with_parts(" x=0; y=0; ", "exists (0:EAX=0)", ";")), "<no error>");
  EXPECT_EQ(parse_error("X86 T\n{\nx=0;\n}\n;\n P0 ;\n MOV EAX,[x] ;\nexists (0:EAX=0)\n"), "<no error>");
  // The init block and the header on one line, key=value lines holding braces skipped.
  EXPECT_EQ(parse_error("X86 T\nCom={not the init}\n{ x=1; } P0 ;\n MOV EAX,[x] ;\nexists (0:EAX=1)\n"),
            "<no error>");
}

TEST(LitmusParse, HerdInitErrors) {
  auto err = [](const std::string& init) { return parse_error(with_parts(init, "exists (0:EAX=0)")); };
  EXPECT_EQ(err(" x=1; x=2; "), "t.litmus:2:8: x is initialised twice");
  EXPECT_EQ(err(" 0:EAX=1; P0:EAX=2; "), "t.litmus:2:12: 0:EAX is initialised twice");
  EXPECT_EQ(err(" 0:EBX=y; "), "t.litmus:2:9: initialising with an address ('y') is not supported");
  EXPECT_EQ(err(" int *p = &y; "), "t.litmus:2:7: pointers ('*x') are not supported");
  EXPECT_EQ(err(" int a[2]; "), "t.litmus:2:7: arrays ('a[...]') are not supported");
  EXPECT_EQ(err(" int x = 1 2; "), "t.litmus:2:13: unexpected '2' in the init block");
  EXPECT_EQ(err(" x= ; "), "t.litmus:2:6: missing value after '=' in the init block");
  EXPECT_EQ(err(" 0:EQX=1; "), "t.litmus:2:5: unknown register 'EQX'");
  EXPECT_EQ(err(" 5:EAX=1; "), "t.litmus:2:3: thread 5 does not exist (the test has 2 threads)");
  EXPECT_EQ(err(" x:red=1; "), "t.litmus:2:3: tagged locations ('x:...') are not supported");
  EXPECT_EQ(err(" x={1,2}; "), "t.litmus:2:5: arrays ('{...}') are not supported");
}

// Locations, filter and condition as herd's grammar has them.
TEST(LitmusParse, HerdConditionGrammar) {
  // `locations` with types and an optional last `;`; `filter`; `==`, `!=`, `<>`; `not`;
  // `=>` binding tighter than `/\`; `true`, `false`.
  LitmusTest t = parse_litmus(
      with_parts("", "locations [x int; 1:EBX; y*]\nfilter 1:ECX == 0\n"
                     "exists (0:EAX<>1 /\\ not 1:EAX != 0 /\\ true => [x]=1 \\/ false)"),
      "c.litmus");
  EXPECT_EQ(names_of(t), (std::vector<std::string>{"0:EAX", "1:EAX", "1:EBX", "[x]", "[y]", "1:ECX"}));
  EXPECT_EQ(t.shown, 5u);  // 1:ECX is the filter's alone
  EXPECT_TRUE(t.condition.has_filter);
  EXPECT_EQ(condition_text(t), "exists (~0:EAX=1 /\\ ~~1:EAX=0 /\\ (true => [x]=1) \\/ false)");
  EXPECT_TRUE(eval_proposition(t, {0, 0, 0, 1, 0}));
  EXPECT_FALSE(eval_proposition(t, {0, 0, 0, 0, 0}));
  EXPECT_FALSE(eval_proposition(t, {1, 0, 0, 1, 0}));
  EXPECT_TRUE(eval_filter(t, {0, 0, 0, 0, 0, 0}));
  EXPECT_FALSE(eval_filter(t, {0, 0, 0, 0, 0, 7}));
  // `=>` is right-associative and tighter than `/\`; `~` tightest.
  LitmusTest imp = parse_litmus(with_parts("", "forall (0:EAX=1 => 1:EAX=1 => ~[x]=2)"), "i.litmus");
  EXPECT_EQ(condition_text(imp), "forall (0:EAX=1 => 1:EAX=1 => ~[x]=2)");
  EXPECT_TRUE(eval_proposition(imp, {0, 0, 2}));
  EXPECT_FALSE(eval_proposition(imp, {1, 1, 2}));
  // Location against location: [x]=0:EAX.
  LitmusTest ll = parse_litmus(with_parts("", "exists ([x]=0:EAX /\\ 1:EAX=P0:EAX)"), "l.litmus");
  EXPECT_EQ(condition_text(ll), "exists ([x]=0:EAX /\\ 1:EAX=0:EAX)");
  EXPECT_TRUE(eval_proposition(ll, {1, 1, 1}));
  EXPECT_FALSE(eval_proposition(ll, {1, 0, 1}));
  // Quantifiers: `~exists`, `~ exists`, `not exists`, `final` (exists), a bare `(P)` after
  // a locations section, `observed` (a disjunction of conjunctions), `forall`.
  auto quant = [](const std::string& cond) {
    LitmusTest q = parse_litmus(with_parts("", cond), "q.litmus");
    return condition_text(q);
  };
  EXPECT_EQ(quant("~exists (0:EAX=0)"), "~exists (0:EAX=0)");
  EXPECT_EQ(quant("~ exists 0:EAX=0 /\\ 1:EAX=0"), "~exists (0:EAX=0 /\\ 1:EAX=0)");
  EXPECT_EQ(quant("locations [x;] not exists (0:EAX=0)"), "~exists (0:EAX=0)");
  EXPECT_EQ(quant("final 0:EAX=0"), "exists (0:EAX=0)");
  EXPECT_EQ(quant("locations [] (0:EAX=0 \\/ 1:EAX=0)"), "exists (0:EAX=0 \\/ 1:EAX=0)");
  EXPECT_EQ(quant("observed 0:EAX=0; 1:EAX=1; and 0:EAX=1;"),
            "exists (0:EAX=0 /\\ 1:EAX=1 \\/ 0:EAX=1)");
  EXPECT_EQ(quant("forall (0:EAX=0 \\/ 0:EAX=1);"), "forall (0:EAX=0 \\/ 0:EAX=1)");
}

TEST(LitmusParse, HerdConditionErrors) {
  auto err = [](const std::string& cond) { return parse_error(with_parts("", cond)); };
  EXPECT_EQ(err("exists (0:EAX=x)"),
            "t.litmus:6:15: 'x' here is the address of x, and atomcheck's locations hold integers "
            "(write [x] for its value)");
  EXPECT_EQ(err("exists (x[1]=0)"), "t.litmus:6:9: arrays ('x[...]') are not supported");
  EXPECT_EQ(err("exists (fault(P0,x))"), "t.litmus:6:9: fault(...) atoms are not supported");
  EXPECT_EQ(err("exists (%EAX=0)"), "t.litmus:6:9: register '%EAX' needs its thread ('0:%EAX')");
  EXPECT_EQ(err("exists (0:EAX={1,2})"), "t.litmus:6:15: arrays ('{...}') are not supported");
  EXPECT_EQ(err("cases 0:EAX=0"), "t.litmus:6:1: 'cases' conditions are not supported");
  EXPECT_EQ(err("locations [0:EAX; 3:EAX]\nexists (0:EAX=0)"),
            "t.litmus:6:19: thread 3 does not exist (the test has 2 threads)");
  EXPECT_EQ(err("locations [x\nexists (0:EAX=0)"),
            "t.litmus:7:8: expected ';' or ']' in 'locations [...]', found '('");
  EXPECT_EQ(err("filter\n"), "t.litmus:6:7: unexpected end of file in the filter");
  EXPECT_EQ(err("exists (0:EAX=0) with tso"), "t.litmus:6:23: expected 'name: exists' after 'with', found 'tso'");
  EXPECT_EQ(err("exists ((0:EAX=0)"), "t.litmus:6:18: unexpected end of file in the condition (missing ')')");
}

// Labels name positions for jumps atomcheck does not read; herd accepts them, so do we.
TEST(LitmusParse, LabelsAreNoOps) {
  LitmusTest t = parse_litmus(
      "X86 L\n{ }\n P0             | P1 ;\n L0: MOV [x],$1 | L1: ;\n MOV EAX,[x]    | MOV EAX,[x] ;\n"
      "exists (0:EAX=1)\n",
      "l.litmus");
  ASSERT_EQ(t.threads[0].size(), 2u);
  EXPECT_EQ(t.threads[0][0].op, Opcode::store);
  EXPECT_EQ(t.threads[1].size(), 1u);
}

// Never a crash: every prefix of every data file, and every single-character change of
// a few of them to a character the grammar gives meaning to, either parses or throws
// LitmusError with a `FILE:LINE:COL: ` message (the sanitizer build checks the rest).
TEST(LitmusParse, MangledInputFailsCleanly) {
  std::size_t parsed = 0, refused = 0;
  auto attempt = [&](const std::string& text) {
    try {
      parse_litmus(text, "m.litmus");
      ++parsed;
    } catch (const LitmusError& e) {
      std::string what = e.what();
      ASSERT_EQ(what.rfind("m.litmus:", 0), 0u) << what;
      std::size_t a = what.find(':', 9), b = what.find(':', a + 1);
      ASSERT_TRUE(a != std::string::npos && b != std::string::npos) << what;
      EXPECT_GT(std::stoul(what.substr(9, a - 9)), 0u) << what;
      EXPECT_GT(std::stoul(what.substr(a + 1, b - a - 1)), 0u) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      ++refused;
    }
  };
  for (const auto& f : all_litmus_files()) {
    std::ifstream in(f);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::size_t n = 0; n <= text.size(); ++n) attempt(text.substr(0, n));
  }
  const std::string mutants = "{};|[]()*~:=-$%\"\\/<>P0x \n";
  for (const char* name : {"herdtools7-x86/SB+mfences.litmus", "herdtools7-x86_64/SB.litmus",
                           "atomcheck-x86/IRIW+xchgs.litmus"}) {
    std::ifstream in(atomcheck::testing::data_path(std::string("litmus/") + name));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::size_t i = 0; i < text.size(); ++i)
      for (char c : mutants) {
        std::string m = text;
        m[i] = c;
        attempt(m);
      }
  }
  EXPECT_GT(parsed, 0u);
  EXPECT_GT(refused, 0u);
}

TEST(LitmusParse, CliReportsFileAndLineWithExit2) {
  std::string dir = atomcheck::testing::temp_dir();
  std::string path = dir + "/bad.litmus";
  std::string text = kGood;
  text.replace(text.find("MOV EAX,[x]"), 11, "ADD EAX,[x]");
  std::ofstream(path) << text;
  auto r = atomcheck::testing::run_cli({"run", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(path + ":5:16: unsupported instruction 'ADD EAX,[x]'"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto missing = atomcheck::testing::run_cli({"run", dir + "/nope.litmus"});
  EXPECT_EQ(missing.exit_code, 2);
}

}  // namespace
