// Forwarding header: explore.hpp moved to scheduler/explore/ when the scheduler was split by
// concern (DESIGN.md "Layers"); <atomcheck/scheduler/explore.hpp> keeps working.
#pragma once

#include "explore/explore.hpp"
