// What every printed replay hint must carry besides the schedule: the options that shape
// one execution as replay() runs it. replay() sets its own strategy (a schedule names
// every choice, and RC11's graph reduction under optimal only cuts executions short, it
// never changes one that runs to its end); budgets, seeds, jobs and the preemption bound
// say which executions a search visits, not what one of them does, and stack_size and
// step_timeout_seconds when a crash or a hang ends the process. What is left changes the
// execution itself: the memory model, max_steps (a step-bound failure),
// spin_threshold (a spin taken for a wait), spurious_wakeups, loop_reduction (whether a
// failed cas_loop attempt blocks), race_check, leak_check and reuse_freed (the allocator
// model), depth_bound (where the execution is cut) and the checkers with their options.
// The model report (model.cpp), `run` and `validate` (cli/) print them; one list keeps the
// routes from drifting apart: an option that gets a flag gets it in replay_flags().
#pragma once

#include <cstdint>
#include <string>

#include "explore.hpp"

namespace atomcheck {

// The flags of `atomcheck run` and `validate` for the options above other than the
// memory model and the checkers (whose flags the callers place themselves), each with a
// leading space, for the options that differ from their defaults:
// " --max-steps 50 --no-race-check". `own_max_steps` is the step bound the target has
// without --max-steps (a JSON spec's own; else kDefaultMaxSteps).
std::string replay_flags(const ExploreOptions& options, std::uint64_t own_max_steps = kDefaultMaxSteps);

}  // namespace atomcheck
