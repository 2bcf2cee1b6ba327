find_package(atomcheck 0.1 CONFIG REQUIRED)  # after cmake --install; CMAKE_PREFIX_PATH=<prefix>
