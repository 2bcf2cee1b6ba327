// What the exploring commands run: a registered program name, a JSON spec (.json) or a
// herd7 litmus test (.litmus), resolved to one Program plus what is needed to tell the
// user how to replay one of its executions.
#pragma once

#include <memory>
#include <string>

#include "../scheduler/explore/explore.hpp"

namespace atomcheck::spec {
struct Spec;
}
namespace atomcheck::litmus {
struct Test;
}

namespace atomcheck::cli {

// A resolved target. The program refers to `spec` / `litmus`, which the target owns, so
// keep the target alive while the program runs.
struct Target {
  std::string name;         // as given on the command line
  std::string kind;         // "program", "spec" or "litmus"
  std::string description;  // one line, may be empty
  Program program;
  std::uint64_t max_steps = 0;  // the spec's own step bound; 0: none
  std::shared_ptr<const spec::Spec> spec;
  std::shared_ptr<const litmus::Test> litmus;

  // `run NAME --replay 'S' [--memory tso]` re-runs one execution of programs and specs;
  // litmus files have no replay in `run`, so their executions are replayed by
  // `validate FILE --replay 'S'`.
  std::string replay_command(const std::string& schedule, MemoryModelKind memory) const;
};

// Resolves `name`. On bad input (unknown program, unreadable or malformed file) returns
// false with a one-line message (`FILE:LINE[:COL]: what is wrong`) in `error`.
bool resolve_target(const std::string& name, Target& out, std::string& error);

// Why `name` names nothing to run: a directory, a file of another kind, or no program.
std::string unknown_program_message(const std::string& name);
// The registered program an unknown name most likely meant ("treiber" -> "treiber-stack"),
// empty when none is close.
std::string closest_program(const std::string& name);

}  // namespace atomcheck::cli
