// What a test program is, the registry ATOMCHECK_PROGRAM fills, and how one execution of
// it ends (a failure, or an outcome): the vocabulary the runtime reports in, below the
// search that explores programs (explore/).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../../trace/event.hpp"

namespace atomcheck {

// A test program: its body runs as thread 0 ("T0") of every execution.
using Program = std::function<void()>;

// How an execution ended badly.
enum class FailureKind : std::uint8_t {
  assertion,   // check(cond, msg) with cond false
  exception,   // an exception escaped a thread's function
  deadlock,    // no thread enabled, some not finished (or all spinning in yield())
  step_bound,  // did not terminate within max_steps steps
  usage,       // misuse of the API detected at run time (unlock by a non-owner, ...)
  data_race,   // two accesses to a shared<T>, one a write, not ordered by happens-before
  use_after_free,  // an object in a block destroy() freed was used (api.hpp make)
  double_free,     // destroy() of a block already freed
  leak,            // a block make() returned was never freed (ExploreOptions::leak_check)
};
// The last FailureKind, for readers of saved kinds (checkpoints, units).
inline constexpr FailureKind kLastFailureKind = FailureKind::leak;
std::string_view failure_kind_name(FailureKind kind);

// One failing execution, with the schedule that replays it.
struct Failure {
  FailureKind kind = FailureKind::assertion;
  std::string message;   // one line, e.g. "T1: assertion failed: lost update (m.cpp:12)"
  ThreadId thread = kNoId;  // the thread that failed (kNoId for deadlock/step bound)
  std::string schedule;
  std::uint64_t execution = 0;  // 0-based index of the execution within the search
  // The number of trace events before the failure: the failing thread stopped there and
  // the other threads ran on to their end (kNoEvent: the failure ended the execution).
  EventIndex event = kNoEvent;
  // data_race: the two accesses (trace indices, earlier first; race_first is kNoEvent
  // when the earlier one is the variable's initialisation, race_second when the later one
  // is a free, which is no event). No thread stops at a race.
  EventIndex race_first = kNoEvent;
  EventIndex race_second = kNoEvent;
};

// A final outcome: the (name, value) pairs recorded with outcome(), sorted by name.
using Outcome = std::vector<std::pair<std::string, std::int64_t>>;
// "r0=1 r1=0" (names in order, one space between pairs).
std::string format_outcome(const Outcome& outcome);

// ---- Program registry -------------------------------------------------------------

// A registered test program. Filled at static initialisation (ATOMCHECK_PROGRAM) and
// read-only afterwards.
struct ProgramInfo {
  std::string name;
  std::string description;
  void (*body)() = nullptr;
  const char* file = "";
  int line = 0;
};

// Every registered program, sorted by name.
std::vector<const ProgramInfo*> registered_programs();
// nullptr when no program has that name.
const ProgramInfo* find_program(std::string_view name);

namespace detail {
// Adds a program to the registry; used only by ATOMCHECK_PROGRAM at static initialisation.
struct ProgramRegistrar {
  ProgramRegistrar(const char* name, const char* description, void (*body)(), const char* file,
                   int line);
};
}  // namespace detail

}  // namespace atomcheck
