# What atomcheck must not do to a project that uses it: set its build type, configure its
# own tests, tool or models, or hand its warnings (-Werror) to the consumer's targets.
if(NOT MY_PROJECT_BUILD_TYPE STREQUAL CMAKE_BUILD_TYPE)
  message(FATAL_ERROR "atomcheck set the consumer's CMAKE_BUILD_TYPE to '${CMAKE_BUILD_TYPE}'")
endif()
foreach(target test_model atomcheck atomcheck_models atomcheck_test_support bench_explore)
  if(TARGET ${target})
    message(FATAL_ERROR "atomcheck configured its own target '${target}' in the consumer's build")
  endif()
endforeach()
get_directory_property(options COMPILE_OPTIONS)
if(options)
  message(FATAL_ERROR "compile options leaked into the consumer's directory: ${options}")
endif()
# Compiled with the consumer's flags: an unused variable is fine here unless -Werror leaked
# through a usage requirement.
add_library(no_leaked_warnings STATIC no_leaked_warnings.cpp)
target_link_libraries(no_leaked_warnings PRIVATE atomcheck::atomcheck)
target_link_libraries(my_tests PRIVATE no_leaked_warnings)
