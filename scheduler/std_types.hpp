// Forwarding header: std_types.hpp moved to scheduler/runtime/ when the scheduler was split by
// concern (DESIGN.md "Layers"); <atomcheck/scheduler/std_types.hpp> keeps working.
#pragma once

#include "runtime/std_types.hpp"
