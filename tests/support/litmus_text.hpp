// Helpers for the litmus tests that edit a test's text: the one-line error a text gets,
// and the text with one piece replaced (the piece must be there).
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "specs/litmus.hpp"

namespace atomcheck::testing_support {

inline std::string litmus_parse_error(const std::string& text, const std::string& file = "t.litmus") {
  try {
    litmus::parse_litmus(text, file);
  } catch (const litmus::LitmusError& e) {
    return e.what();
  }
  return "<no error>";
}

inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace atomcheck::testing_support
