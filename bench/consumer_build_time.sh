#!/usr/bin/env bash
# Issue 38: what atomcheck costs a project that adds it from source. Builds tests/consumer/
# (copied beside this checkout, added by add_subdirectory, the consumer's default flags,
# no ccache, `nproc` jobs) from an empty build directory two ways, alternating RUNS times:
#   core  the project's tests: my_tests and failing_model, linking atomcheck::atomcheck
#         (the core) and atomcheck::types: the route the README recommends;
#   whole the same plus my_cli (atomcheck::cli): every atomcheck library, the judges, the Z3
#         decider, specs and the command line, which is what every consumer compiled
#         before the core target existed.
# Prints each round's wall times, the files each compiled and core/whole, then the medians
# and the median of the rounds' ratios (the target: < 1/3). A round's two builds follow each
# other, so a change of the machine's speed falls on both alike.
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

# build WAY -> "SECONDS FILES": configure and build from scratch, wall time of the build.
build() {
  local dir="$work/build-$1" targets=(my_tests failing_model)
  [ "$1" = whole ] && targets+=(my_cli)
  rm -rf "$dir"
  cmake -S "$work/my_project" -B "$dir" -G Ninja -DGET_ATOMCHECK=add_subdirectory >/dev/null 2>&1 ||
    { echo "consumer_build_time.sh: configure failed" >&2; exit 1; }
  local t0 t1
  t0=$(date +%s%N)
  cmake --build "$dir" -j "$jobs" --target "${targets[@]}" >"$dir.log" 2>&1 ||
    { tail -20 "$dir.log" >&2; exit 1; }
  t1=$(date +%s%N)
  echo "$(((t1 - t0) / 1000000)) $(grep -c 'Building CXX object' "$dir.log")"
}

echo "# $(uname -m), $jobs cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%dT%H:%MZ)"
fc=$(mktemp) fw=$(mktemp) fr=$(mktemp)
for r in $(seq "$runs"); do
  read -r mw nw <<<"$(build whole)"
  read -r mc nc <<<"$(build core)"
  echo "$mw" >>"$fw"
  echo "$mc" >>"$fc"
  ratio "$mw" "$mc" >>"$fr"
  echo >>"$fr"
  printf 'round %d: whole %6.1f s (%d files)   core %6.1f s (%d files)   core/whole %s\n' "$r" \
    "$(awk -v m="$mw" 'BEGIN{print m/1000}')" "$nw" "$(awk -v m="$mc" 'BEGIN{print m/1000}')" "$nc" "$(ratio "$mw" "$mc")"
done
w=$(median <"$fw") c=$(median <"$fc") q=$(median <"$fr")
rm -f "$fc" "$fw" "$fr"
printf 'median: whole %.1f s, core %.1f s; median of the rounds'"'"' core/whole: %s\n' \
  "$(awk -v m="$w" 'BEGIN{print m/1000}')" "$(awk -v m="$c" 'BEGIN{print m/1000}')" "$q"
