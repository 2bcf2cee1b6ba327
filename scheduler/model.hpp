// Forwarding header: model.hpp moved to scheduler/explore/ when the scheduler was split by
// concern (DESIGN.md "Layers"); <atomcheck/scheduler/model.hpp> keeps working.
#pragma once

#include "explore/model.hpp"
