// Atomicity classics from the papers, as C++ models: Wang and Stoller's setXY ("Runtime
// analysis of atomicity for multithreaded programs", section 1): a Rectangle whose setX
// and setY are synchronized while setXY(x, y) just calls setX(x); setY(y). The program
// is race-free but setXY is not atomic: theta1 = setXY(100, 100) and theta2 =
// setXY(200, 200) can end with x = 200, y = 100, which no serial execution gives.
//
// Intended atomic blocks and expected results (tests/test_models_library.cpp):
// - ws-setxy: block "setXY" per call. Under SC and TSO (unlock drains the store buffer,
//   so TSO adds nothing) the mixed result is reachable (a failure) and the oracle flags
//   the interleaving as not conflict serializable.
// - ws-setxy-locked: setXY holds the rectangle's lock around both stores: every
//   execution serial, no failure, nothing flagged.
#include <mutex>

#include "scheduler/runtime/api.hpp"

namespace {

using atomcheck::atomic_block;
using atomcheck::check;
using atomcheck::mutex;
using atomcheck::shared;
using atomcheck::thread;

struct Rectangle {
  mutex lock{"rect"};
  shared<int> x{0, "x"}, y{0, "y"};

  void set_x(int v) {
    std::scoped_lock<mutex> g(lock);
    x.set(v);
  }
  void set_y(int v) {
    std::scoped_lock<mutex> g(lock);
    y.set(v);
  }
  void set_xy(int vx, int vy, bool locked) {
    atomic_block b("setXY");
    if (locked) {
      std::scoped_lock<mutex> g(lock);
      x.set(vx);
      y.set(vy);
      return;
    }
    set_x(vx);
    set_y(vy);
  }
};

void run_setxy(bool locked) {
  Rectangle r;
  thread t1([&] { r.set_xy(100, 100, locked); });
  thread t2([&] { r.set_xy(200, 200, locked); });
  t1.join();
  t2.join();
  atomcheck::outcome("x", r.x.get());
  atomcheck::outcome("y", r.y.get());
  check(r.x.get() == r.y.get(), "setXY not atomic: x and y come from different calls");
}

}  // namespace

ATOMCHECK_PROGRAM("ws-setxy",
                  "Wang-Stoller setXY: synchronized setX then setY, race-free but not atomic") {
  run_setxy(false);
}

ATOMCHECK_PROGRAM("ws-setxy-locked", "setXY holding the rectangle lock around both stores: atomic") {
  run_setxy(true);
}
