// The catalogue of checkers by name, so the CLI and the explorer create them from a
// comma-separated list without knowing their types. The core checkers are listed in
// registry.cpp; the exact judges (atomcheck::judges), the Z3 decider (atomcheck::z3) and a
// user's own checkers join it through register_checker().
#pragma once

#include <functional>
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

// Does it judge RC11 executions? All but the TSO ones: the linearizability checker and
// its judge with RC11's happens-before as precedence, the others on the execution read as
// an SC trace (trace/sc_order.hpp; docs/rc11.md "Checkers under rc11").
// (Inline: the spec loader, which links no checker, asks it too.)
inline bool checker_judges_rc11(std::string_view name) {
  return !name.starts_with("tso-") && !name.starts_with("trace-tso");
}
// Does it read RC11's trace as it is (issue = the write a read read)? The linearizability
// checker and its judge; the others read the SC trace sc_order gives.
bool checker_reads_rc11_trace(std::string_view name);
// Does it decide conflict serializability (the checkers the `oracle` judges, and the
// oracle)? Then a non-SC RC11 execution is not serializable, whatever its blocks.
bool checker_decides_conflict_serializability(std::string_view name);

// Every checker known to this binary: the core ones in their table order, then the
// registered ones in the order they were registered.
std::vector<CheckerInfo> checker_catalog();

// nullptr when the name is unknown.
std::unique_ptr<Checker> make_checker(std::string_view name, const CheckerOptions& options = {});

using CheckerFactory = std::function<std::unique_ptr<Checker>(const CheckerOptions&)>;

// Adds a checker to the catalogue, so that model(), explore(), specs and the command line
// (`run --checker`, `check-trace`, `validate`, `checkers`) create it by name like a built-in
// one. Call it before exploring, typically from a static initialiser:
//   static const bool registered = atomcheck::register_checker(
//       {"my-checker", "what it decides", true, false, "oracle", false, true},
//       [](const atomcheck::CheckerOptions& o) { return std::make_unique<MyChecker>(o); });
// Throws std::invalid_argument when the name is empty, already taken or the factory null.
bool register_checker(CheckerInfo info, CheckerFactory make);

}  // namespace atomcheck
