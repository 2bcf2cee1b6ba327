// The one header a user includes: the API test programs are written against
// (atomic, shared, mutex, thread, atomic_block, check, outcome, spin_until, ...;
// scheduler/api.hpp; semaphores, latch, barrier, atomic_flag, shared_mutex:
// scheduler/sync.hpp), explore() and replay() (scheduler/explore.hpp), model() and
// check_model() (scheduler/model.hpp). Link atomcheck::atomcheck.
//
// The headers live in atomcheck's folders and include each other by relative path, so
// this file works from the source tree, a build tree and an install prefix alike
// (README "atomcheck as a dependency").
#pragma once

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"
#include "scheduler/explore/model.hpp"
#include "scheduler/runtime/sync.hpp"
