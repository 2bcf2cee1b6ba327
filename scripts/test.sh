#!/usr/bin/env bash
# Sets up the machine, builds atomcheck twice (Release, and ASan+UBSan) and runs the whole
# test suite on both builds, plus the parallel-exploration suite under ThreadSanitizer.
# Tests labelled `long` are left to bench/ and manual runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase ends with a line of its wall time, so a slow CI run says where it went.
t0=$SECONDS
phase() { echo "test.sh: $1 done at $((SECONDS - t0)) s"; }
bash scripts/setup.sh
phase setup
jobs=$(nproc)
# ccache (installed by setup.sh) makes a rebuild of unchanged files free: a second clone
# on the same machine, or CI after a session built the same tree. Paths are hashed
# relative to the clone, so any clone of the repository shares the cache.
# The sanitizer builds keep line tables only (-g1): their reports name file and line, and
# full debug information would double what the two builds compile and link. -O1, ASan's
# own advice: instrumented code generation dominates their compile time, and -O1 cuts it
# by about 37% against -O2 (test_bounds_pct.cpp: 15.8 s to 9.9 s), which is more than the
# tests lose running less optimised code.
sanitizer_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DATOMCHECK_BENCH=OFF)
# gold (binutils, always there) links the ~100 test executables about 2.5x faster than
# bfd: linking is a third of a cold build's time.
linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=gold)
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "${linker[@]}" >/dev/null
cmake --build build/release -j "$jobs"
phase "Release build"
ctest --test-dir build/release -LE long -E 'Properties\.' --output-on-failure -j "$jobs"
phase "Release tests"
# The random-trace property tests run on their own, verbosely, so the log says how many
# traces or programs each one checked (ctest -V -j prefixes each line with its test's number).
if ! ctest --test-dir build/release -LE long -R 'Properties\.' -V -j "$jobs" > build/release/properties.log 2>&1; then
  cat build/release/properties.log
  exit 1
fi
grep -E 'random (traces|programs|histories)' build/release/properties.log | sed 's/^[0-9]*: /property test: /'
phase "property tests"
# atomcheck as a dependency: tests/consumer/ built from outside the tree by add_subdirectory,
# FetchContent and find_package (installed from build/release), each running its tests,
# a failing model's report; the first two build only the core, find_package its own cli_main binary.
bash scripts/test-consumer.sh
phase consumers
# ThreadSanitizer over the parallel exploration (issue 17): optimal DPOR's unit threads, the split
# sampling, the units of other ranks (atomcheck-mpi's protocol, ranks as threads) and the fibers they run, with TSan's fiber annotations (stack_pool.hpp). Only
# that suite is built: it is what runs threads; the rest is single-threaded.
cmake -S . -B build/tsan -G Ninja -DATOMCHECK_TSAN=ON "${sanitizer_flags[@]}" "${launcher[@]}" "${linker[@]}" >/dev/null
cmake --build build/tsan --target test_parallel test_remote_units -j "$jobs"
# One process per test (ctest): under TSan the suite's memory only grows, and all of it
# in one process went past this machine's 24 GB; the largest test alone takes about 3 GB.
ATOMCHECK_SANITIZED=1 TSAN_OPTIONS=halt_on_error=1 ctest --test-dir build/tsan -R '^(Parallel(Exploration|Sampling)|RemoteUnits)\.' \
  --output-on-failure -j "$jobs"
phase ThreadSanitizer
cmake -S . -B build/asan -G Ninja -DATOMCHECK_SANITIZE=ON "${sanitizer_flags[@]}" "${launcher[@]}" "${linker[@]}" >/dev/null
cmake --build build/asan -j "$jobs"
phase "ASan+UBSan build"
# The Release run above checks the full 120,000 random traces against the oracle; the
# sanitizer run looks for memory errors, for which a sixth of them is plenty. The mpirun
# tests (label mpi) run in Release only: Open MPI's own allocations would be reported as
# leaks; the protocol they carry runs under the sanitizers in RemoteUnits (ranks as threads).
ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ATOMCHECK_SANITIZED=1 ATOMCHECK_PROPERTY_TRACES=20000 ctest --test-dir build/asan -LE 'long|mpi' --output-on-failure -j "$jobs"
phase "ASan+UBSan tests"
