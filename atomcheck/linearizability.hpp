// Linearizability tests (scheduler/lin_test.hpp): declare an object's operations and a
// sequential specification, and atomcheck explores random scenarios of them, checks every
// execution's history and shrinks a failing scenario. With GoogleTest:
//   EXPECT_LINEARIZABLE(atomcheck::lin::check_scenarios("stack", ops, {.threads = 2}));
// (ASSERT_LINEARIZABLE returns from the test). Link atomcheck::atomcheck.
#pragma once

#include "scheduler/explore/lin_test.hpp"

// The report when not ok: the minimised scenario, then the failing execution. The switch
// makes each macro one statement, as in gtest.hpp.
#define ATOMCHECK_GTEST_LIN_(fail, ...)                                                \
  switch (0)                                                                          \
  case 0:                                                                             \
  default:                                                                            \
    if (const ::atomcheck::lin::ScenarioReport atomcheck_lin_report_ = (__VA_ARGS__); \
        atomcheck_lin_report_.ok)                                                     \
      ;                                                                               \
    else                                                                              \
      fail() << atomcheck_lin_report_.text
#define EXPECT_LINEARIZABLE(...) ATOMCHECK_GTEST_LIN_(ADD_FAILURE, __VA_ARGS__)
#define ASSERT_LINEARIZABLE(...) ATOMCHECK_GTEST_LIN_(FAIL, __VA_ARGS__)

