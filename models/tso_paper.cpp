// The two programs of "Serializability for TSO with non-atomic writes" §3, right after
// Theorem 2, which show that its converse fails (the figure is lost; the text describes
// them, and these are reconstructions that fit it):
//  - left: store buffering with every event its own transaction. TSO-serializable, since
//    no two events of one thread conflict under ⊚TSO (a write and a later read of another
//    variable), and not robust, since both reads can miss the other thread's write.
//  - right: T1 writes x and reads y in two transactions; T2 reads x and writes y in one.
//    Not SC-serializable: the SC execution r x (T2), w x, r y (T1), w y (T2) puts T1's
//    events between T2's, and program order closes the cycle T2 -> T1a -> T1b -> T2.
//    TSO-serializable, "because the events in thread 1 are not in conflict": without the
//    program-order edge T1a -> T1b no execution has a cycle.
// tests/test_tso_serializability.cpp (PaperTheorem2*) checks both, as traces, as
// executions and explored under TSO.
#include "scheduler/runtime/api.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::atomic_block;
using atomcheck::outcome;
using atomcheck::thread;
constexpr auto rlx = std::memory_order_relaxed;

// [w mine] [r other]: a store and a later load of another variable, each its own
// transaction (the thread both programs share).
void write_then_read(atomic<int>& mine, atomic<int>& other, const char* w_label,
                     const char* r_label, const char* reg) {
  { atomic_block b(w_label); mine.store(1, rlx); }
  atomic_block b(r_label);
  outcome(reg, other.load(rlx));
}

}  // namespace

ATOMCHECK_PROGRAM("tso-thm2-left",
                  "TSO paper after Theorem 2, left: store buffering, every event its own transaction "
                  "(TSO-serializable, not robust)") {
  atomic<int> x(0, "x"), y(0, "y");
  thread t1([&] { write_then_read(x, y, "w x", "r y", "r0"); });
  thread t2([&] { write_then_read(y, x, "w y", "r x", "r1"); });
  t1.join();
  t2.join();
}

ATOMCHECK_PROGRAM("tso-thm2-right",
                  "TSO paper after Theorem 2, right: [w x] [r y] || [r x; w y] "
                  "(TSO-serializable, not SC-serializable)") {
  atomic<int> x(0, "x"), y(0, "y");
  thread t1([&] { write_then_read(x, y, "w x", "r y", "r0"); });
  thread t2([&] {
    atomic_block b("r x; w y");
    outcome("r1", x.load(rlx));
    y.store(1, rlx);
  });
  t1.join();
  t2.join();
}
