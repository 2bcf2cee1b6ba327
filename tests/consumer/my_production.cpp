// The product: Counter on std_types, compiled against atomcheck::types alone.
#include <atomcheck/types.hpp>

#include "my_counter.hpp"

#ifdef ATOMCHECK_PROGRAM
#error "<atomcheck/types.hpp> brought in the harness"
#endif

int count_to(int n) {
  Counter<atomcheck::std_types> c;
  for (int i = 0; i < n; ++i) c.increment();
  return c.get();
}
