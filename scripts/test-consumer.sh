#!/usr/bin/env bash
# atomcheck as a dependency, proven from outside its tree: copies tests/consumer/ (the
# project README.md and docs/dependency.md quote) into a fresh directory beside this
# checkout and builds it the three ways a C++ project consumes a library:
#   add_subdirectory   third_party/atomcheck is the checkout
#   fetchcontent       FetchContent_MakeAvailable, the checkout given as
#                      FETCHCONTENT_SOURCE_DIR_ATOMCHECK (the working tree, no git needed)
#   find_package       find_package(atomcheck CONFIG) from `cmake --install` of the
#                      Release build into a temporary prefix (no extra library build)
# Each build runs the README's example test, a test that fails on purpose and must print
# the interleaving, the schedule and the replay call, and the environment overrides.
# add_subdirectory and fetchcontent build what a project's tests link, the core
# (atomcheck::atomcheck) and atomcheck::types, and the script checks that nothing else of
# atomcheck was compiled (no judges, Z3 decider, specs or command line). find_package,
# from the installed Release build, also builds the project's own cli_main binary: `list`
# shows only the project's programs, `run NAME --html` writes a page naming the program.
# Called by scripts/test.sh after the Release build.
#
# Environment: ATOMCHECK_RELEASE_BUILD (default build/release: the build to install from;
# configured and its library and tool built here if needed), ATOMCHECK_CONSUMER_WAYS
# (default "add_subdirectory fetchcontent find_package"), ATOMCHECK_CONSUMER_CCACHE=0 to
# compile without ccache.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
release=${ATOMCHECK_RELEASE_BUILD:-$root/build/release}
ways=${ATOMCHECK_CONSUMER_WAYS:-add_subdirectory fetchcontent find_package}
jobs=$(nproc)
work=$(mktemp -d "${TMPDIR:-/tmp}/atomcheck-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() {
  echo "test-consumer: $*" >&2
  exit 1
}
# expect FILE TEXT...: each TEXT occurs in FILE.
expect() {
  local file=$1
  shift
  for text in "$@"; do
    grep -qF -- "$text" "$file" || { cat "$file" >&2; fail "$(basename "$file"): no '$text'"; }
  done
}

# The user's layout: their project beside a clone of atomcheck, which is also vendored
# as third_party/atomcheck for add_subdirectory.
cp -r "$root/tests/consumer" "$work/my_project"
mkdir -p "$work/my_project/third_party"
ln -s "$root" "$work/my_project/third_party/atomcheck"
ln -s "$root" "$work/atomcheck"

# add_subdirectory and fetchcontent each compile atomcheck's core. With ccache (from
# Debian, in a cache private to this run) they compile the same files under the same
# relative paths, so the second is served from the cache.
launcher=()
if [ "${ATOMCHECK_CONSUMER_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  export CCACHE_DIR="$work/ccache" CCACHE_BASEDIR="$work" CCACHE_NOHASHDIR=1
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

summary=()
for way in $ways; do
  start=$SECONDS
  build="$work/build-$way"
  args=(-DGET_ATOMCHECK="$way")
  case "$way" in
    add_subdirectory) ;;
    fetchcontent)
      # The same path as add_subdirectory's, so ccache sees the same compilations.
      args+=(-DFETCHCONTENT_SOURCE_DIR_ATOMCHECK="$work/my_project/third_party/atomcheck") ;;
    find_package)
      if [ ! -f "$release/build.ninja" ] && [ ! -f "$release/Makefile" ]; then
        cmake -S "$root" -B "$release" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
      fi
      cmake --build "$release" -j "$jobs" --target atomcheck >/dev/null
      cmake --install "$release" --prefix "$work/prefix" >/dev/null
      test -f "$work/prefix/lib/cmake/atomcheck/atomcheckConfigVersion.cmake" ||
        fail "the install has no atomcheckConfigVersion.cmake"
      test -f "$work/prefix/include/atomcheck/atomcheck.hpp" || fail "the install has no atomcheck/atomcheck.hpp"
      if [ -e "$work/prefix/include/scheduler" ]; then fail "the install put scheduler/ at the top of include/"; fi
      # Every installed header, from the prefix alone: a header that includes a sibling by
      # a tree path ("trace/trace.hpp") instead of a relative one fails here.
      (cd "$work/prefix/include" && find atomcheck -name '*.hpp' | sort | sed 's|.*|#include <&>|') > "$work/headers.cpp"
      "${CXX:-c++}" -std=c++20 -fsyntax-only -I "$work/prefix/include" "$work/headers.cpp" ||
        fail "an installed header does not compile from the install prefix"
      args+=(-DCMAKE_PREFIX_PATH="$work/prefix") ;;
    *) fail "unknown way '$way'" ;;
  esac
  echo "test-consumer: $way: configure and build"
  cmake -S "$work/my_project" -B "$build" -G Ninja "${launcher[@]}" "${args[@]}" > "$build.configure.log" 2>&1 ||
    { cat "$build.configure.log" >&2; fail "$way: configure failed"; }
  targets=()
  [ "$way" = find_package ] || targets=(--target my_tests failing_model no_leaked_warnings)
  cmake --build "$build" -j "$jobs" "${targets[@]}" > "$build.build.log" 2>&1 ||
    { tail -50 "$build.build.log" >&2; fail "$way: build failed"; }
  if [ "$way" = find_package ]; then
    if grep -q 'atomcheck_trace\|trace/trace_io.cpp' "$build.build.log"; then
      fail "find_package: the consumer build compiled atomcheck's sources"
    fi
  else
    # The core route compiles the core: no judge, Z3 decider, spec, command line or trace file code.
    grep -q 'atomcheck_scheduler.dir/explore/explore.cpp' "$build.build.log" || fail "$way: the core was not compiled"
    if grep -E 'atomcheck_(judges|z3|specs|cli|trace_io)\.dir' "$build.build.log" >&2; then
      fail "$way: the tests' build compiled more of atomcheck than the core"
    fi
  fi

  # The README's example.
  "$build/my_tests" > "$build/my_tests.log" 2>&1 || { cat "$build/my_tests.log" >&2; fail "$way: my_tests failed"; }
  expect "$build/my_tests.log" "[  PASSED  ] 3 tests."

  # A failing model: the runner's output holds the report.
  out="$build/failing_model.log"
  if ATOMCHECK_REPORT_FILE="$build/report.txt" "$build/failing_model" > "$out" 2>&1; then
    cat "$out" >&2
    fail "$way: failing_model passed"
  fi
  expect "$out" "[  FAILED  ] Counter.UnlockedIncrementsLoseUpdates" "[  FAILED  ] Counter.ModelThrowsTheReport" \
    "atomcheck::model: failure (assertion) in execution #" "T0: assertion failed: lost update" \
    "2 executions, 1 failed, 1 flagged by velodrome (optimal, sc, stop-on-failure: after the first failing or flagged execution)" \
    "   step | T0 " "| T1 " "| T2 " "begin inc" "read x = 0" "write x = 1" \
    "checker velodrome: not serializable, cycle T" "flush x = 1 (write #" "schedule: " \
    "replay:   atomcheck::replay(body, \"" "{.memory = atomcheck::MemoryModelKind::tso}" \
    "rerun:    ATOMCHECK_REPLAY='" "cli:      run NAME --replay '"
  schedule=$(grep -m1 '^schedule: ' "$out" | cut -d' ' -f2)
  expect "$out" "atomcheck::replay(body, \"$schedule\", {.checkers = {\"velodrome\"}})"
  expect "$build/report.txt" "schedule: $schedule" "both loads read 0"
  # The environment overrides without recompiling: replay that one execution alone.
  if ATOMCHECK_REPLAY="$schedule" "$build/failing_model" --gtest_filter=Counter.Unlocked* > "$build/replay.log" 2>&1; then
    fail "$way: the replayed failing execution passed"
  fi
  expect "$build/replay.log" "replayed schedule '$schedule' (ATOMCHECK_REPLAY, sc): assertion" "   step | T0 "
  ATOMCHECK_STRATEGY=fastest "$build/failing_model" --gtest_filter=Counter.Unlocked* > "$build/badenv.log" 2>&1 || true
  expect "$build/badenv.log" "ATOMCHECK_STRATEGY='fastest': expected one of dfs, dpor, optimal, random, pct"

  # The whole CLI on the project's own program, without atomcheck's model library
  # (built in the find_package way, from the installed libraries).
  if [ "$way" != find_package ]; then
    summary+=("$way $((SECONDS - start)) s")
    continue
  fi
  test -x "$build/my_cli" || fail "$way: no my_cli (atomcheck::cli missing from the package?)"
  "$build/my_cli" list > "$build/list.log"
  expect "$build/list.log" "my-counter"
  if grep -q 'lost-update' "$build/list.log"; then fail "$way: atomcheck's models were linked into my_cli"; fi
  rc=0
  (cd "$build" && ./my_cli run my-counter --checker velodrome --html out.html --dot out.dot > run.log 2>&1) || rc=$?
  [ "$rc" = 1 ] || { cat "$build/run.log" >&2; fail "$way: my_cli run exited $rc, expected 1"; }
  expect "$build/run.log" "program        my-counter" "run my-counter --replay"
  test -s "$build/out.html" || fail "$way: my_cli run --html wrote no page"
  expect "$build/out.html" "my-counter" "</svg>"
  expect "$build/out.dot" "digraph"
  rc=0
  "$build/my_cli" validate my-counter --checker velodrome > "$build/validate.log" 2>&1 || rc=$?
  [ "$rc" -le 1 ] || { cat "$build/validate.log" >&2; fail "$way: my_cli validate exited $rc"; }
  # The project's own checker (tests/consumer/my_checker.cpp), registered from its code,
  # judged against the oracle through cli_main like a built-in one.
  "$build/my_cli" checkers > "$build/checkers.log"
  expect "$build/checkers.log" "my-checker"
  rc=0
  "$build/my_cli" validate my-counter --checker my-checker > "$build/validate-plugin.log" 2>&1 || rc=$?
  [ "$rc" -le 1 ] || { cat "$build/validate-plugin.log" >&2; fail "$way: my_cli validate --checker my-checker exited $rc"; }
  grep -Eq '^  my-checker +oracle +serializability +[1-9][0-9]* ' "$build/validate-plugin.log" ||
    { cat "$build/validate-plugin.log" >&2; fail "$way: my-checker was not judged against the oracle (no TP)"; }
  rc=0
  "$build/my_cli" run my-counter --checker my-checker > "$build/run-plugin.log" 2>&1 || rc=$?
  [ "$rc" = 1 ] || { cat "$build/run-plugin.log" >&2; fail "$way: my_cli run --checker my-checker exited $rc, expected 1"; }
  summary+=("$way $((SECONDS - start)) s")
done
echo "test-consumer: ok (${summary[*]})"
