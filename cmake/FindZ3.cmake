# Debian's libz3-dev ships no CMake package config, only pkg-config; this module turns
# that into an imported target so the build can say find_package(Z3 REQUIRED).
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_Z3 QUIET z3)
endif()
find_path(Z3_INCLUDE_DIR z3++.h HINTS ${PC_Z3_INCLUDE_DIRS})
find_library(Z3_LIBRARY z3 HINTS ${PC_Z3_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Z3 REQUIRED_VARS Z3_LIBRARY Z3_INCLUDE_DIR)
if(Z3_FOUND AND NOT TARGET Z3::z3)
  add_library(Z3::z3 UNKNOWN IMPORTED)
  set_target_properties(Z3::z3 PROPERTIES IMPORTED_LOCATION "${Z3_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${Z3_INCLUDE_DIR}")
endif()
