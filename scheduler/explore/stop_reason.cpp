// The names of the reasons a search stops, and which of them a checkpoint resumes from.
// Apart from explore.cpp so that the checkpoint fuzz target (fuzz/CMakeLists.txt), which
// clang builds without the scheduler, compiles the same definitions cli/checkpoint.cpp
// calls instead of copies of them.
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
