#!/usr/bin/env bash
# Issue 17's "done when", as written, BATCHES times: `run lastzero-12` and `validate
# lastzero-12` (the 12 polynomial checkers) with --jobs 2 against --jobs 1. Each batch
# checks that the summaries are the same (run's text but for its elapsed line; validate's
# --json but for its times), then times RUNS alternating runs of each and prints the
# ratio of the medians, beside the machine's ceiling measured in the same batch: two
# --jobs 1 runs started together (twice the work) against one, 0.50 when both cores are
# fully there. This VM's speed wanders by up to 1.5x over minutes, so one batch says
# little; the ceiling says how much of a batch's ratio is the machine's.
# Usage: bench/jobs_done_when.sh [BUILD] [RUNS] [BATCHES]   (default build/release 5 3)
set -euo pipefail
build=${1:-build/release}
runs=${2:-5}
batches=${3:-3}
bin="$build/atomcheck"
[ -x "$bin" ] || { echo "jobs_done_when.sh: no atomcheck binary in $build (build it first: cmake --build $build)" >&2; exit 2; }
. "$(dirname "$0")/timing.sh"
runargs=(run lastzero-12 --quiet)
vargs=(validate lastzero-12 --strategy optimal --checker "$poly_checkers" --quiet)
summary() { "$bin" "${runargs[@]}" --jobs "$1" | grep -v '^elapsed'; }
matrix() { "$bin" "${vargs[@]}" --jobs "$1" --json | grep -vE "$timing_fields"; }
[ "$(summary 1)" = "$(summary 2)" ] || { echo "run lastzero-12: --jobs 2 changed the summary" >&2; exit 1; }
[ "$(matrix 1)" = "$(matrix 2)" ] || { echo "validate lastzero-12: --jobs 2 changed the matrices" >&2; exit 1; }
ratio() { awk -v a="$2" -v b="$1" 'BEGIN {printf "%.3f", a / b}'; }
echo "batch  run: jobs 1 -> 2 (ms)  ratio  ceiling   validate: jobs 1 -> 2 (ms)  ratio"
for b in $(seq "$batches"); do
  read -r r1 r2 < <(alternate "$bin" "${runargs[@]}" --jobs 1 -- "$bin" "${runargs[@]}" --jobs 2)
  read -r c1 c2 < <(alternate "$bin" "${runargs[@]}" --jobs 1 -- bash -c '"$@" & "$@"; wait' _ "$bin" "${runargs[@]}" --jobs 1)
  read -r v1 v2 < <(alternate "$bin" "${vargs[@]}" --jobs 1 -- "$bin" "${vargs[@]}" --jobs 2)
  printf '%5s  %10s -> %-10s %6s  %7s   %14s -> %-8s %6s\n' "$b" "$r1" "$r2" "$(ratio "$r1" "$r2")" \
    "$(ratio $((2 * c1)) "$c2")" "$v1" "$v2" "$(ratio "$v1" "$v2")"
done
