// Forwarding header: sync.hpp moved to scheduler/runtime/ when the scheduler was split by
// concern (DESIGN.md "Layers"); <atomcheck/scheduler/sync.hpp> keeps working.
#pragma once

#include "runtime/sync.hpp"
