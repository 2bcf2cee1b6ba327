// The catalogue of checkers by name, so the CLI and the explorer create them from a
// comma-separated list without knowing their types.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "checker.hpp"

namespace atomcheck {

struct CheckerInfo {
  std::string name;         // what --checker accepts
  std::string description;  // one line for --help and `atomcheck checkers`
  bool serializability;     // answers question (a)
  bool blame;               // answers question (b)
  // How `atomcheck validate` judges it: the registered checker whose answers are exact
  // for the same questions (empty for the oracles themselves).
  std::string judge;
  // Predicts for every interleaving of the observed transactions (Wang-Stoller): judged
  // against all executions the exploration found, not the one it saw.
  bool predictive;
  // Its verdict on a TSO execution depends on the order in which operations were issued
  // (it reads the trace tau), not only on reads-from and coherence (rf+co): the explorer
  // must then keep issue order (scheduler/explore.hpp, Equivalence). Checked by
  // tests/test_equivalence_declarations.cpp.
  bool needs_issue_order;
};

// The declaration above for a checker name (true for unknown names: the safe answer).
bool checker_needs_issue_order(std::string_view name);

const std::vector<CheckerInfo>& checker_catalog();

// nullptr when the name is unknown.
std::unique_ptr<Checker> make_checker(std::string_view name, const CheckerOptions& options = {});

}  // namespace atomcheck
