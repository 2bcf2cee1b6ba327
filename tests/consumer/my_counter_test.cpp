// The product's own type under the harness: Counter (my_counter.hpp) on model_types.
#include <gtest/gtest.h>
#include <atomcheck/gtest.hpp>

#include "my_counter.hpp"

TEST(Counter, CasLoopCountsEveryIncrement) {
  EXPECT_ATOMCHECK([] {
    Counter<atomcheck::model_types> c;
    atomcheck::thread t1([&] { c.increment(); }), t2([&] { c.increment(); });
    t1.join(); t2.join();
    atomcheck::check(c.get() == 2, "lost increment");
  }, {.memory = atomcheck::MemoryModelKind::tso});
}
