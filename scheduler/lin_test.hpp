// Forwarding header: lin_test.hpp moved to scheduler/explore/ when the scheduler was split by
// concern (DESIGN.md "Layers"); <atomcheck/scheduler/lin_test.hpp> keeps working.
#pragma once

#include "explore/lin_test.hpp"
