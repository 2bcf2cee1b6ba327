// The one header production code includes for code templated on its primitives:
// atomcheck::std_types (std::atomic, std::mutex, std::thread, ...) with nothing of the
// harness. Tests instantiate the same code with atomcheck::model_types (<atomcheck/atomcheck.hpp>).
// Link atomcheck::types: an include directory, no library.
#pragma once

#include "scheduler/runtime/std_types.hpp"
