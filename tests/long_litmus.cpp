// The litmus search the regular suite skips (tests/test_litmus_expected.cpp,
// source_dpor_too_slow), run to the end: label `long`. Optimal DPOR keeps rf+co only
// under TSO and runs 2+2W-ring5 in 31 executions; source-DPOR keeps the step order and
// needs about 185,000 (a few seconds in Release). Both must give the same states.
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
  ExploreOptions o = litmus_defaults();
  o.strategy = StrategyKind::dpor;
  o.max_executions = 0;
  RunResult source = run_litmus(t, MemoryModelKind::tso, o);
  ASSERT_TRUE(source.complete);
  EXPECT_EQ(source.states, r.states);
  EXPECT_EQ(source.rf_co_classes, 31u);
}

}  // namespace
