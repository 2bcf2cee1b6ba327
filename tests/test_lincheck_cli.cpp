// `atomcheck lincheck`: the registered objects (models/lin_objects.cpp) are listed; the
// correct ones pass their scenarios under SC and TSO, the broken ones fail with a shrunk
// scenario and its non-linearizable history; bad input is one line and exit 2.
#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

namespace {

using atomcheck::testing::run_cli;

TEST(LincheckCli, ListsTheRegisteredObjects) {
  auto r = run_cli({"lincheck"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"treiber-stack ", "treiber-stack-no-retry", "counter-fetch-add", "counter-load-store"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out;
}

TEST(LincheckCli, CorrectObjectsPass) {
  for (const char* name : {"treiber-stack", "counter-fetch-add"})
    for (const char* memory : {"sc", "tso"}) {
      auto r = run_cli({"lincheck", name, "--memory", memory, "--scenarios", "5"});
      EXPECT_EQ(r.exit_code, 0) << name << " " << memory << "\n" << r.out << r.err;
      EXPECT_NE(r.out.find("linearizable in 5 scenarios"), std::string::npos) << r.out;
    }
}

TEST(LincheckCli, BrokenObjectsFailWithAShrunkScenario) {
  for (const char* name : {"treiber-stack-no-retry", "counter-load-store"}) {
    auto r = run_cli({"lincheck", name, "--threads", "2", "--ops", "3", "--before", "1"});
    EXPECT_EQ(r.exit_code, 1) << name << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find("a failing scenario, minimised from 7 to"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not linearizable ("), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("schedule: "), std::string::npos) << r.out;
  }
  // Without shrinking the scenario is reported as found: all 7 operations.
  auto r = run_cli({"lincheck", "counter-load-store", "--ops", "3", "--before", "1", "--no-minimise"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("minimised from 7 to 7"), std::string::npos) << r.out;
}

TEST(LincheckCli, BadInputIsOneLineAndExit2) {
  auto r = run_cli({"lincheck", "no-such-object"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "no-such-object: unknown object (see `atomcheck lincheck` for the registered ones)\n");
  auto t = run_cli({"lincheck", "treiber-stack", "--threads", "0"});
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_NE(t.err.find("a thread count from 1 to 8"), std::string::npos) << t.err;
}

}  // namespace
