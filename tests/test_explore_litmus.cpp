// The classic litmus tests reach exactly their SC outcome sets (and, with
// --memory tso, their x86-TSO sets: only store buffering gains an outcome).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"

namespace atomcheck {
namespace {

std::set<std::string> outcomes_of(const char* name, MemoryModelKind memory) {
  const ProgramInfo* p = find_program(name);
  EXPECT_NE(p, nullptr) << name;
  if (!p) return {};
  ExploreOptions o;
  o.memory = memory;
  ExploreResult r = explore(p->body, o);
  EXPECT_TRUE(r.ok()) << name;
  EXPECT_TRUE(r.exhausted()) << name;
  EXPECT_EQ(r.completed, r.executions) << name;
  std::set<std::string> out;
  std::uint64_t total = 0;
  for (const auto& [outcome, count] : r.outcomes) {
    out.insert(format_outcome(outcome));
    total += count;
  }
  EXPECT_EQ(total, r.completed);
  return out;
}

using S = std::set<std::string>;

const S kSB = {"r0=0 r1=1", "r0=1 r1=0", "r0=1 r1=1"};
const S kMP = {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=1"};
const S kLB = {"r0=0 r1=0", "r0=0 r1=1", "r0=1 r1=0"};
const S k22W = {"x=1 y=2", "x=2 y=1", "x=2 y=2"};

S iriw_sc() {
  // Every combination except the readers disagreeing on the order of the two writes.
  S out;
  for (int m = 0; m < 16; ++m) {
    int r0 = m & 1, r1 = (m >> 1) & 1, r2 = (m >> 2) & 1, r3 = (m >> 3) & 1;
    if (r0 == 1 && r1 == 0 && r2 == 1 && r3 == 0) continue;
    out.insert("r0=" + std::to_string(r0) + " r1=" + std::to_string(r1) +
               " r2=" + std::to_string(r2) + " r3=" + std::to_string(r3));
  }
  return out;
}

TEST(ExploreLitmus, ScOutcomeSets) {
  EXPECT_EQ(outcomes_of("sb", MemoryModelKind::sc), kSB);
  EXPECT_EQ(outcomes_of("sb+fences", MemoryModelKind::sc), kSB);
  EXPECT_EQ(outcomes_of("mp", MemoryModelKind::sc), kMP);
  EXPECT_EQ(outcomes_of("lb", MemoryModelKind::sc), kLB);
  EXPECT_EQ(outcomes_of("iriw", MemoryModelKind::sc), iriw_sc());
  EXPECT_EQ(iriw_sc().size(), 15u);
  EXPECT_EQ(outcomes_of("2+2w", MemoryModelKind::sc), k22W);
}

TEST(ExploreLitmus, TsoOutcomeSets) {
  S sb_tso = kSB;
  sb_tso.insert("r0=0 r1=0");
  EXPECT_EQ(outcomes_of("sb", MemoryModelKind::tso), sb_tso);
  EXPECT_EQ(outcomes_of("sb+fences", MemoryModelKind::tso), kSB);
  EXPECT_EQ(outcomes_of("mp", MemoryModelKind::tso), kMP);
  EXPECT_EQ(outcomes_of("lb", MemoryModelKind::tso), kLB);
  EXPECT_EQ(outcomes_of("iriw", MemoryModelKind::tso), iriw_sc());
  EXPECT_EQ(outcomes_of("2+2w", MemoryModelKind::tso), k22W);
}

TEST(ExploreLitmus, RegisteredProgramsHaveUniqueNamesAndDescriptions) {
  auto all = registered_programs();
  EXPECT_GE(all.size(), 8u);
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_FALSE(all[i]->description.empty()) << all[i]->name;
    if (i > 0) {
      EXPECT_NE(all[i]->name, all[i - 1]->name);
    }
  }
  EXPECT_EQ(find_program("no-such-program"), nullptr);
}

}  // namespace
}  // namespace atomcheck
