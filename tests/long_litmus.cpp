// The litmus searches the regular suite may cut at its budget (tests/test_litmus_expected.cpp,
// waits_for_reduction), run to the end: label `long`. With optimal DPOR's TSO reduction
// keeping rf+co only, 2+2W-ring5 under TSO is 31 executions; with the finer issue-order
// equivalence it was 185,202 (about 4 s in Release).
#include <string>

#include <gtest/gtest.h>

#include "specs/litmus.hpp"
#include "tests/support/cli_runner.hpp"

namespace {

using namespace atomcheck;
using namespace atomcheck::litmus;

TEST(LongLitmus, TwoPlusTwoWRingOfFiveUnderTso) {
  litmus::Test t = load_litmus(atomcheck::testing::data_path("litmus/atomcheck-x86/2+2W-ring5.litmus"));
  RunResult r = run_litmus(t, MemoryModelKind::tso);
  ASSERT_TRUE(r.error.empty()) << r.error;
  ASSERT_TRUE(r.complete);
  EXPECT_FALSE(r.reachable());  // W->W order is kept: the ring is forbidden under x86-TSO
  EXPECT_EQ(r.states.size(), 31u);
  EXPECT_EQ(r.states, run_litmus(t, MemoryModelKind::sc).states);  // writes only: TSO = SC
  EXPECT_EQ(r.positive + r.negative, r.rf_co_classes);
  EXPECT_EQ(r.rf_co_classes, 31u);
}

}  // namespace
