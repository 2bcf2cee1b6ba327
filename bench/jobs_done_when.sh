#!/usr/bin/env bash
# Issue 17's "done when", as written, BATCHES times: `run lastzero-12` and `validate
# lastzero-12` (the 12 polynomial checkers) with --jobs 2 against --jobs 1. Each batch
# checks that the summaries are the same (run's text but for its elapsed line; validate's
# --json but for its times), then times RUNS alternating runs of each and prints the
# ratio of the medians. Beside it, what the machine allows in the same rounds:
# - the ceiling: two --jobs 1 runs started together (twice the work) against one;
# - the two-core bound: --jobs 1 pinned to CPU 0 and to CPU 1 (taskset), t0 and t1; a
#   perfect split of the work over both takes t0*t1/(t0+t1), so the bound is that over
#   the unpinned --jobs 1 time. It is 0.50 only when the two CPUs are equally fast. This
#   VM's are not, and not for long: each changes speed on its own, over seconds to
#   minutes, and either has run the same job up to 1.75x slower than the other (host
#   load we cannot see: no steal time is reported), so an unpinned --jobs 1 run is fast
#   or slow by where it lands. "efficiency" is the bound's time over --jobs 2's.
# Usage: bench/jobs_done_when.sh [BUILD] [RUNS] [BATCHES]   (default build/release 5 3)
set -euo pipefail
build=${1:-build/release}
runs=${2:-5}
batches=${3:-3}
bin="$build/atomcheck"
[ -x "$bin" ] || { echo "jobs_done_when.sh: no atomcheck binary in $build (build it first: cmake --build $build)" >&2; exit 2; }
command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ] || { echo "jobs_done_when.sh: needs taskset and two CPUs" >&2; exit 2; }
. "$(dirname "$0")/timing.sh"
runargs=(run lastzero-12 --quiet)
vargs=(validate lastzero-12 --strategy optimal --checker "$poly_checkers" --quiet)
summary() { "$bin" "${runargs[@]}" --jobs "$1" | grep -v '^elapsed'; }
matrix() { "$bin" "${vargs[@]}" --jobs "$1" --json | grep -vE "$timing_fields"; }
[ "$(summary 1)" = "$(summary 2)" ] || { echo "run lastzero-12: --jobs 2 changed the summary" >&2; exit 1; }
[ "$(matrix 1)" = "$(matrix 2)" ] || { echo "validate lastzero-12: --jobs 2 changed the matrices" >&2; exit 1; }
pinned() { taskset -c "$1" "$bin" "${runargs[@]}" --jobs 1; }
both() { "$bin" "${runargs[@]}" --jobs 1 & "$bin" "${runargs[@]}" --jobs 1; wait; }
col() { awk -v k="$1" '{print $k}' "$raw" | median; }
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
echo "batch  run: jobs 1 -> 2 (ms)  ratio  ceiling  CPU0/CPU1 (ms)  bound  efficiency   validate: jobs 1 -> 2 (ms)  ratio"
for b in $(seq "$batches"); do
  # One round runs each of the five in turn, so they share the machine's mood.
  : >"$raw"
  for _ in $(seq "$runs"); do
    echo "$(wall_ms "$bin" "${runargs[@]}" --jobs 1) $(wall_ms "$bin" "${runargs[@]}" --jobs 2)" \
      "$(wall_ms both) $(wall_ms pinned 0) $(wall_ms pinned 1)" >>"$raw"
  done
  r1=$(col 1) r2=$(col 2) c2=$(col 3) p0=$(col 4) p1=$(col 5)
  bound=$(awk -v a="$p0" -v b="$p1" 'BEGIN {printf "%.1f", a * b / (a + b)}')
  read -r v1 v2 < <(alternate "$bin" "${vargs[@]}" --jobs 1 -- "$bin" "${vargs[@]}" --jobs 2)
  printf '%5s  %10s -> %-10s %6s  %7s  %6s/%-7s %6s  %10s   %14s -> %-8s %6s\n' "$b" "$r1" "$r2" "$(ratio "$r1" "$r2")" \
    "$(ratio $((2 * r1)) "$c2")" "$p0" "$p1" "$(ratio "$r1" "$bound")" "$(ratio "$r2" "$bound")" "$v1" "$v2" "$(ratio "$v1" "$v2")"
done
