// Forwarding header: api.hpp moved to scheduler/runtime/ when the scheduler was split by
// concern (DESIGN.md "Layers"); <atomcheck/scheduler/api.hpp> keeps working.
#pragma once

#include "runtime/api.hpp"
