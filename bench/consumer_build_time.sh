#!/usr/bin/env bash
# Issue 38: what atomcheck costs a project that adds it from source. Builds tests/consumer/
# (copied beside this checkout, added by add_subdirectory, the consumer's default flags,
# no ccache, `nproc` jobs) from an empty build directory two ways, alternating RUNS times:
#   core  the project's tests: my_tests and failing_model, linking atomcheck::atomcheck
#         (the core) and atomcheck::types: the route the README recommends;
#   whole the same plus my_cli (atomcheck::cli): every atomcheck library, the judges, the Z3
#         decider, specs and the command line, which is what every consumer compiled
#         before the core target existed.
# Prints each round's CPU time (user + system of the build and its compilers) and wall
# time, the files each compiled and core/whole of the CPU times, then the median of the
# rounds' ratios (the target: < 1/3). CPU time is what to compare on a shared machine:
# another load stretches the wall time of whichever build it meets.
# Usage: bench/consumer_build_time.sh [RUNS]   (default 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-3}
jobs=$(nproc)
. "$root/bench/timing.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/atomcheck-buildtime.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$root/tests/consumer" "$work/my_project"
mkdir -p "$work/my_project/third_party"
ln -s "$root" "$work/my_project/third_party/atomcheck"

# build WAY -> "CPU_MS WALL_MS FILES": configure and build from scratch.
build() {
  local dir="$work/build-$1" targets=(my_tests failing_model)
  [ "$1" = whole ] && targets+=(my_cli)
  rm -rf "$dir"
  cmake -S "$work/my_project" -B "$dir" -G Ninja -DGET_ATOMCHECK=add_subdirectory >/dev/null 2>&1 ||
    { echo "consumer_build_time.sh: configure failed" >&2; exit 1; }
  /usr/bin/time -f '%U %S %e' -o "$dir.time" cmake --build "$dir" -j "$jobs" --target "${targets[@]}" >"$dir.log" 2>&1 ||
    { tail -20 "$dir.log" >&2; exit 1; }
  awk -v n="$(grep -c 'Building CXX object' "$dir.log")" '{printf "%d %d %d\n", ($1 + $2) * 1000, $3 * 1000, n}' "$dir.time"
}

echo "# $(uname -m), $jobs cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%dT%H:%MZ)"
[ -x /usr/bin/time ] || { echo "consumer_build_time.sh: needs GNU time (Debian package time)" >&2; exit 2; }
fr=$(mktemp)
for r in $(seq "$runs"); do
  read -r cw ww nw <<<"$(build whole)"
  read -r cc wc nc <<<"$(build core)"
  q=$(ratio "$cw" "$cc")
  echo "$q" >>"$fr"
  printf 'round %d: whole %6.1f s CPU (%6.1f s wall, %d files)   core %6.1f s CPU (%6.1f s wall, %d files)   core/whole %s\n' \
    "$r" "$(awk -v m="$cw" 'BEGIN{print m/1000}')" "$(awk -v m="$ww" 'BEGIN{print m/1000}')" "$nw" \
    "$(awk -v m="$cc" 'BEGIN{print m/1000}')" "$(awk -v m="$wc" 'BEGIN{print m/1000}')" "$nc" "$q"
done
echo "median of the rounds' core/whole (CPU time): $(median <"$fr")"
rm -f "$fr"
