// Builds small traces in code for checker tests: Build{}.begin(0).w(0, X).r(1, X).end(0).
// Events carry only op, thread and target, which is all the conflict checkers read.
#pragma once

#include <vector>

#include "trace/event.hpp"
#include "trace/trace.hpp"
#include "trace/validate.hpp"

namespace atomcheck::testing {

struct Build {
  std::vector<Event> ev;
  Build& add(Op op, ThreadId t, std::uint32_t target = kNoId) {
    Event e;
    e.op = op;
    e.thread = t;
    e.target = target;
    ev.push_back(e);
    return *this;
  }
  // Index the next added event will have.
  EventIndex next() const { return ev.size(); }
  Build& begin(ThreadId t) { return add(Op::begin, t); }
  Build& end(ThreadId t) { return add(Op::end, t); }
  Build& r(ThreadId t, VarId x) { return add(Op::read, t, x); }
  Build& w(ThreadId t, VarId x) { return add(Op::write, t, x); }
  Build& rmw(ThreadId t, VarId x) { return add(Op::rmw, t, x); }
  Build& fence(ThreadId t) { return add(Op::fence, t); }
  Build& acq(ThreadId t, LockId l) { return add(Op::acquire, t, l); }
  Build& rel(ThreadId t, LockId l) { return add(Op::release, t, l); }
  Build& fork(ThreadId t, ThreadId u) { return add(Op::fork, t, u); }
  Build& join(ThreadId t, ThreadId u) { return add(Op::join, t, u); }
};

// Whether events form a well-formed trace (trace/validate.hpp), for delta debugging:
// a smaller candidate is kept only when it is still a trace the checkers must accept.
inline bool well_formed(const std::vector<Event>& ev) {
  Trace t;
  t.events = ev;
  return !validate(t).has_value();
}

}  // namespace atomcheck::testing
