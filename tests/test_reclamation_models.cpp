// The reclamation models (models/reclamation.cpp) under sc, tso and rc11: the failure kind
// of each broken scheme, which the model library's tables (test_models_library.cpp,
// test_models_rc11.cpp) cannot say, with the free and the access (or both frees) named in
// its message and the failure replayed; each correct scheme passes with the default
// options (race detection and the leak check on), exhaustively; and the ABA of the
// untagged stack is the allocator's reuse: with reuse_freed the main thread reads a node
// that a CAS put back on the stack after it was freed, without it no such execution exists.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"
#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

constexpr MemoryModelKind SC = MemoryModelKind::sc, TSO = MemoryModelKind::tso, RC11 = MemoryModelKind::rc11;
const MemoryModelKind kModels[] = {SC, TSO, RC11};

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + part.size())) ++n;
  return n;
}

ExploreOptions options(MemoryModelKind m, bool race_check, bool reuse_freed = false) {
  ExploreOptions o;
  o.memory = m;
  o.race_check = race_check;
  o.reuse_freed = reuse_freed;
  o.stop_on_failure = false;
  o.keep_failures = 100000;
  o.max_executions = 50000;
  return o;
}

ExploreResult run(const char* model, const ExploreOptions& o) {
  const ProgramInfo* p = find_program(model);
  EXPECT_NE(p, nullptr) << model;
  if (!p) return {};
  ExploreResult r = explore(p->body, o);
  EXPECT_TRUE(r.error.empty()) << model << ": " << r.error;
  EXPECT_TRUE(r.exhausted()) << model << " " << memory_model_name(o.memory) << ": " << stop_reason_name(r.stop);
  EXPECT_FALSE(r.reduction_incomplete) << r.reduction_incomplete_by;
  return r;
}

// The start of a replay table's row: the step right-aligned in five columns, two blanks.
std::string fmt_row(std::size_t step) {
  std::string n = std::to_string(step);
  return std::string(n.size() < 5 ? 5 - n.size() : 0, ' ') + n + "  ";
}

const Failure* first_of(const ExploreResult& r, FailureKind kind) {
  for (const Failure& f : r.failures)
    if (f.kind == kind) return &f;
  return nullptr;
}

TEST(ReclamationModels, CorrectSchemesPassWithTheDefaultChecks) {
  for (const char* model : {"hp-stack", "ebr-stack", "refcount", "treiber-tagged-recycle"}) {
    for (MemoryModelKind m : kModels) {
      // Hazard pointers and epochs keep a node from being freed, and so from being reused,
      // while another thread may hold it: handing freed blocks out again changes nothing.
      for (bool reuse : {false, true}) {
        SCOPED_TRACE(std::string(model) + " " + std::string(memory_model_name(m)) + (reuse ? " reuse_freed" : ""));
        const ExploreResult r = run(model, options(m, true, reuse));
        EXPECT_EQ(r.failures_total(), 0u) << (r.failures.empty() ? "" : r.failures.front().message);
        EXPECT_GT(r.completed, 0u);
      }
    }
  }
}

struct Broken {
  const char* model;
  MemoryModelKind memory;
  bool race_check;
  FailureKind kind;  // a failure of this kind must be found (there may be others)
  const char* why;
};

constexpr FailureKind UAF = FailureKind::use_after_free, DOUBLE_FREE = FailureKind::double_free,
                      LEAK = FailureKind::leak, RACE = FailureKind::data_race, CHECK = FailureKind::assertion;

// clang-format off
const Broken kBroken[] = {
    // A node freed while another thread reads it. Under rc11 with race detection on, the
    // access is unordered with the free by happens-before: a data race, not a use after free.
    {"hp-stack-unvalidated",     SC,   true,  UAF,         "hazard published too late: T1 frees A, T2 reads A->next"},
    {"hp-stack-unvalidated",     TSO,  true,  UAF,         ""},
    {"hp-stack-unvalidated",     RC11, true,  RACE,        ""},
    {"hp-stack-unvalidated",     RC11, false, UAF,         ""},
    {"ebr-stack-early-free",     SC,   true,  UAF,         "freed one epoch early, the reader pinned"},
    {"ebr-stack-early-free",     TSO,  true,  UAF,         ""},
    {"ebr-stack-early-free",     RC11, true,  RACE,        ""},
    {"ebr-stack-early-free",     RC11, false, UAF,         ""},
    {"hp-stack-leak",            SC,   true,  LEAK,        "the pops never retire"},
    {"hp-stack-leak",            TSO,  true,  LEAK,        ""},
    {"hp-stack-leak",            RC11, true,  LEAK,        ""},
    // A relaxed decrement: a C++ data race with the free under every model; with race
    // detection off only RC11 lets the destructor read the payload without T1's update.
    {"refcount-relaxed",         SC,   true,  RACE,        "T1's update and T0's free, unordered"},
    {"refcount-relaxed",         TSO,  true,  RACE,        ""},
    {"refcount-relaxed",         RC11, true,  RACE,        ""},
    {"refcount-relaxed",         RC11, false, CHECK,       "the destructor reads payload = 1"},
    {"refcount-premature",       SC,   true,  UAF,         "T1 reads the payload after dropping its reference"},
    {"refcount-premature",       TSO,  true,  UAF,         ""},
    {"refcount-premature",       RC11, true,  UAF,         ""},
    // Both owners load 0 and destroy; the count outlives the object, so nothing reads the
    // freed block first and the double free is the failure under every model.
    {"refcount-double-free",     SC,   true,  DOUBLE_FREE, "both owners load refs = 0"},
    {"refcount-double-free",     TSO,  true,  DOUBLE_FREE, ""},
    {"refcount-double-free",     RC11, true,  DOUBLE_FREE, ""},
    {"treiber-untagged-recycle", SC,   true,  DOUBLE_FREE, "ABA: B is T2's and on the stack"},
    {"treiber-untagged-recycle", TSO,  true,  DOUBLE_FREE, ""},
    {"treiber-untagged-recycle", RC11, true,  DOUBLE_FREE, ""},
};
// clang-format on

// The failure names the block, the access or the second free, and the free, each with its
// thread and call site, and (use after free, double free) their steps.
void expect_names_both(const Failure& f) {
  const std::string& m = f.message;
  if (f.kind != FailureKind::assertion) {
    EXPECT_TRUE(has(m, " made by T0 at reclamation.cpp:")) << m;
  }
  switch (f.kind) {
    case FailureKind::use_after_free:
      EXPECT_TRUE(has(m, "use after free: T")) << m;
      EXPECT_TRUE(has(m, "freed by T")) << m;
      EXPECT_EQ(count(m, " at reclamation.cpp:"), 3u) << m;  // the access, the make, the free
      EXPECT_EQ(count(m, "(step "), 1u) << m;         // the access, a step of the table
      EXPECT_EQ(count(m, "(before step "), 1u) << m;  // the free, a row of its own before it
      break;
    case FailureKind::double_free:
      EXPECT_TRUE(has(m, "double free of ")) << m;
      EXPECT_TRUE(has(m, "freed by T")) << m;
      EXPECT_TRUE(has(m, "again by T")) << m;
      EXPECT_EQ(count(m, " at reclamation.cpp:"), 3u) << m;
      EXPECT_EQ(count(m, "(destroy from step "), 1u) << m;
      EXPECT_EQ(count(m, "(before step "), 1u) << m;
      break;
    case FailureKind::data_race:
      EXPECT_TRUE(has(m, "free by T") || has(m, "freed by T")) << m;
      EXPECT_TRUE(has(m, "not ordered by happens-before")) << m;
      EXPECT_EQ(count(m, " at reclamation.cpp:"), 3u) << m;
      EXPECT_EQ(count(m, "(step "), 1u) << m;         // the access
      EXPECT_EQ(count(m, "(before step "), 1u) << m;  // the free
      break;
    case FailureKind::leak:
      EXPECT_TRUE(has(m, "leak: Node made by T0 at reclamation.cpp:")) << m;
      EXPECT_TRUE(has(m, "was never freed")) << m;
      break;
    default:
      EXPECT_TRUE(has(m, "the destructor read the payload without T1's update")) << m;
      break;
  }
}

class BrokenScheme : public ::testing::TestWithParam<Broken> {};

TEST_P(BrokenScheme, FailsWithItsKind) {
  const Broken& b = GetParam();
  const ExploreOptions o = options(b.memory, b.race_check);
  const ExploreResult r = run(b.model, o);
  std::printf("[reclamation] %-26s %-4s race_check=%d executions=%llu failed=%llu %.3fs\n", b.model,
              std::string(memory_model_name(b.memory)).c_str(), b.race_check ? 1 : 0,
              static_cast<unsigned long long>(r.executions), static_cast<unsigned long long>(r.failures_total()),
              r.elapsed_seconds);
  const Failure* f = first_of(r, b.kind);
  ASSERT_NE(f, nullptr) << "no " << failure_kind_name(b.kind) << " (" << b.why << "); first failure: "
                        << (r.failures.empty() ? "none" : r.failures.front().message);
  expect_names_both(*f);
  const ReplayResult again = replay(find_program(b.model)->body, f->schedule, o);
  EXPECT_TRUE(again.failed) << f->schedule;
  EXPECT_EQ(again.failure.kind, f->kind);
  EXPECT_EQ(again.failure.message, f->message);
}

std::string broken_name(const ::testing::TestParamInfo<Broken>& info) {
  std::string n = std::string(info.param.model) + "_" + std::string(memory_model_name(info.param.memory)) +
                  (info.param.race_check ? "" : "_norace") + "_" + std::string(failure_kind_name(info.param.kind));
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Models, BrokenScheme, ::testing::ValuesIn(kBroken), broken_name);

// The numbers of a use-after-free message are rows of the replay's table: the access is the
// row "(step N)" names, and the free, which is no event, is a row of its own just before the
// row "(before step M)" names; the table and the JSON show heap pointers by their place
// (&T0+32), the same in the search and in the replay.
TEST(ReclamationModels, TheReplayTableShowsTheFreeWhereTheMessageSays) {
  const ExploreResult r = run("hp-stack-unvalidated", options(SC, true));
  const Failure* f = first_of(r, UAF);
  ASSERT_NE(f, nullptr);
  const std::size_t at_access = f->message.find("(step "), at_free = f->message.find("(before step ");
  ASSERT_NE(at_access, std::string::npos) << f->message;
  ASSERT_NE(at_free, std::string::npos) << f->message;
  const std::size_t access = std::stoul(f->message.substr(at_access + 6)),
                    freed = std::stoul(f->message.substr(at_free + 13));
  ASSERT_LT(freed, access) << f->message;
  const auto out = testing::run_cli({"run", "hp-stack-unvalidated", "--replay", f->schedule});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = out.out.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(out.out.substr(at, nl - at));
  const auto row = [&](std::size_t step) {  // the line of the table's row `step`
    const std::string head = fmt_row(step);
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (lines[i].rfind(head, 0) == 0) return i;
    return lines.size();
  };
  const std::size_t free_row = row(freed);
  ASSERT_LT(free_row, lines.size()) << out.out;
  EXPECT_TRUE(has(lines[free_row - 1], "free Node  at reclamation.cpp:")) << out.out;
  EXPECT_TRUE(has(lines[free_row - 1], "T1")) << out.out;
  const std::size_t access_row = row(access);
  ASSERT_LT(access_row, lines.size()) << out.out;
  EXPECT_TRUE(has(lines[access_row], "T2   read node.next")) << out.out;
  EXPECT_TRUE(has(out.out, "= &T0+")) << out.out;
  EXPECT_TRUE(has(out.out, "failure (use after free): " + f->message)) << out.out;

  const auto json = testing::run_cli({"run", "hp-stack-unvalidated", "--replay", f->schedule, "--json"});
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["notes"].size(), 1u) << json.out;
  EXPECT_EQ(j["notes"][0]["before"], freed);
  EXPECT_EQ(j["notes"][0]["text"], "free Node");
  EXPECT_EQ(j["notes"][0]["thread"], "T1");
}

// The relaxed count is correct on SC and x86 hardware: with race detection off, no
// execution fails there (the race itself is the C++ bug, reported with it on).
TEST(ReclamationModels, RelaxedRefcountPassesUnderScAndTsoWithoutRaceDetection) {
  for (MemoryModelKind m : {SC, TSO}) {
    const ExploreResult r = run("refcount-relaxed", options(m, false));
    EXPECT_EQ(r.failures_total(), 0u) << memory_model_name(m) << ": "
                                      << (r.failures.empty() ? "" : r.failures.front().message);
  }
}

// The untagged stack that frees its nodes. Every execution that fails fails by a use after
// free (race detection off); with reuse_freed one of them is the ABA: T2 frees A and B and
// makes C at A's address, T1's CAS(head: A -> B) succeeds on C, and the main thread's pop
// reads B->next, B freed by T2. Without reuse no CAS can succeed on a freed node's
// address, and the main thread never reads a freed node; T1 and T2 reading a node the other
// freed (no hazard, no epoch) fail both ways.
// Under rc11 the ABA is found by DFS: optimal DPOR does not order a free against an
// access that no happens-before or reads-from relates (the free is not an event of its
// execution graph), and explores only one of the two orders.
TEST(ReclamationModels, UntaggedReuseIsAnAbaThroughAFreedBlock) {
  for (MemoryModelKind m : kModels) {
    for (bool reuse : {false, true}) {
      SCOPED_TRACE(std::string(memory_model_name(m)) + (reuse ? " reuse_freed" : ""));
      ExploreOptions o = options(m, false, reuse);
      if (m == RC11) o.strategy = StrategyKind::dfs;
      const ExploreResult r = run("treiber-untagged-reuse", o);
      ASSERT_GT(r.failures_total(), 0u);
      bool aba = false, others = false;
      for (const Failure& f : r.failures) {
        EXPECT_EQ(f.kind, FailureKind::use_after_free) << f.message;
        const bool by_main = has(f.message, "use after free: T0 reads node.next");
        aba |= by_main;
        others |= !by_main;
        if (by_main) {
          EXPECT_TRUE(has(f.message, "freed by T2")) << f.message;
        }
      }
      EXPECT_EQ(aba, reuse);
      EXPECT_TRUE(others);
    }
  }
}

// The tag is the only difference between the recycling stacks: with it T1's stale CAS
// fails, without it the ABA leaves B on the stack and in T2's hands.
TEST(ReclamationModels, TheTagFixesTheRecycledStack) {
  for (MemoryModelKind m : kModels) {
    SCOPED_TRACE(memory_model_name(m));
    const ExploreResult untagged = run("treiber-untagged-recycle", options(m, true));
    const ExploreResult tagged = run("treiber-tagged-recycle", options(m, true));
    EXPECT_GT(untagged.failures_total(), 0u);
    EXPECT_EQ(tagged.failures_total(), 0u);
    for (const Failure& f : untagged.failures) EXPECT_EQ(f.kind, FailureKind::double_free) << f.message;
  }
}

}  // namespace
}  // namespace atomcheck
