// Verbatim copies of three functions of scheduler/explore.cpp that cli/checkpoint.cpp's
// parser calls (the names of failure kinds and stop reasons, and which stops resume), so
// the checkpoint fuzz target links without the scheduler, which clang 14 cannot build
// (see clang14_source_location.hpp); explore.cpp itself pulls in every strategy and
// checker. tests/test_fuzz_regressions.cpp (FuzzHarness.SchedulerNamesMatchExplore)
// fails when a copy no longer matches its original: copy the function again.
#include <string_view>

#include "scheduler/explore/explore.hpp"

namespace atomcheck {

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::none: return "exhausted";
    case StopReason::max_executions: return "max-executions";
    case StopReason::time_limit: return "time-limit";
    case StopReason::interrupted: return "interrupted";
    case StopReason::failure: return "stop-on-failure";
    case StopReason::bad_schedule: return "bad schedule";
    case StopReason::nondeterministic: return "nondeterministic program";
  }
  return "?";
}

bool resumable_stop(StopReason reason) {
  return reason == StopReason::none || reason == StopReason::max_executions ||
         reason == StopReason::time_limit || reason == StopReason::interrupted;
}

}  // namespace atomcheck
