// Compiles only if atomcheck's usage requirements carry no -Werror (checks.cmake).
#include <atomcheck/atomcheck.hpp>

int my_project_helper(int unused_parameter) {
  int unused_variable = 0;
  return 1;
}
