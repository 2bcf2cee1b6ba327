#include <atomcheck/atomcheck.hpp>

ATOMCHECK_PROGRAM("my-counter", "two unlocked increments in atomic blocks") {
  atomcheck::atomic<int> x(0, "x");
  auto inc = [&] { atomcheck::atomic_block b("inc"); x.store(x.load() + 1); };
  atomcheck::thread t1(inc), t2(inc);
  t1.join(); t2.join();
  atomcheck::check(x.load() == 2, "lost update");
}
