// GoogleTest adaptor for atomcheck::check_model (header only: include it from a test that
// links GTest; atomcheck itself does not depend on GoogleTest).
//
//   EXPECT_ATOMCHECK(body);                          // options default (optimal DPOR, SC)
//   EXPECT_ATOMCHECK(body, {.checkers = {"velodrome"}});
//   ASSERT_ATOMCHECK(body, options, "registered-name") << "more context";
//
// On a failing, deadlocking or flagged execution the test fails with the report of
// check_model(): the execution as per-thread columns, its schedule, the replay call and
// the command line. A search that a budget or the time limit cut short fails too, saying
// how far it got (scheduler/model.hpp); a pass with a note (a bounded or sampled search,
// ExploreOptions::allow_incomplete) prints the note and records it as the test's
// property "atomcheck" (in the XML/JSON output). The arguments are those of
// check_model(body, options, name).
#pragma once

#include <cstdio>

#include <gtest/gtest.h>

#include <string>

#include "atomcheck.hpp"

namespace atomcheck::detail {
// The macros' pass test: a pass with a note is shown, never silent.
inline bool gtest_pass(const ModelReport& report) {
  if (report.ok && !report.note.empty()) {
    std::fprintf(stderr, "%s", report.note.c_str());
    ::testing::Test::RecordProperty("atomcheck", report.note);
  }
  return report.ok;
}
}  // namespace atomcheck::detail

// The switch makes the macro one statement (an `else` after it binds as expected), the
// same trick GoogleTest's own assertions use.
#define ATOMCHECK_GTEST_CHECK_(fail, ...)                                                        \
  switch (0)                                                                                     \
  case 0:                                                                                        \
  default:                                                                                       \
    if (const ::atomcheck::ModelReport atomcheck_report_ = ::atomcheck::check_model(__VA_ARGS__); \
        ::atomcheck::detail::gtest_pass(atomcheck_report_))                                      \
      ;                                                                                          \
    else                                                                                         \
      fail() << atomcheck_report_.text

namespace atomcheck::detail {
// ATOMCHECK_REPORT_FILE heads each report with the GoogleTest test it is from.
inline std::string gtest_current_test_name() {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  return t ? std::string(t->test_suite_name()) + "." + t->name() : std::string();
}
inline const bool gtest_test_name_installed = (::atomcheck::set_test_name_source(&gtest_current_test_name), true);
}  // namespace atomcheck::detail

// Adds a non-fatal failure with the report.
#define EXPECT_ATOMCHECK(...) ATOMCHECK_GTEST_CHECK_(ADD_FAILURE, __VA_ARGS__)
// Adds a fatal failure with the report and returns from the test.
#define ASSERT_ATOMCHECK(...) ATOMCHECK_GTEST_CHECK_(FAIL, __VA_ARGS__)
