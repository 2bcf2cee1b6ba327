#!/usr/bin/env bash
# Wall time of `atomcheck run MODEL --jobs N` against --jobs 1 (median of RUNS), for the
# DPOR benchmarks and a TSO model, then of `validate` with checkers attached, then for
# random and pct sampling (100,000 samples split across the jobs); prints the ratio.
# The first row is the machine's own ceiling: two independent one-job runs at once.
# Usage: bench/jobs_scaling.sh [BUILD] [RUNS]
# (default build/release, 5). The --jobs 1 and --jobs N runs alternate, so a change in
# the machine's speed during the script (this VM's is large) falls on both alike; times
# are process wall times in milliseconds. Exhaustive counts must be equal, sample sizes
# too: the script checks.
set -euo pipefail
build=${1:-build/release}
runs=${2:-5}
bin="$build/atomcheck"
[ -x "$build/atomcheck" ] || { echo "jobs_scaling.sh: no atomcheck binary in $build (build it first: cmake --build $build)" >&2; exit 2; }
. "$(dirname "$0")/timing.sh"
printf '%-16s %-6s %6s %10s %10s %7s\n' model memory jobs "wall 1" "wall N" ratio
# What the machine gives two threads that share nothing: one --jobs 1 run against two
# started together (twice the work); the ratio is wall(two) / (2 * wall(one)), 0.50 when
# the two cores are fully there. The exact rows below are judged against this one.
read -r t1 t2 < <(alternate "$bin" run lastzero-12 --quiet --jobs 1 -- \
  bash -c '"$@" & "$@"; wait' _ "$bin" run lastzero-12 --quiet --jobs 1)
printf '%-16s %-6s %6s %8sms %8sms %7.2f  (two --jobs 1 processes at once: the ceiling)\n' \
  lastzero-12 sc 2 "$t1" "$t2" "$(ratio $((2 * t1)) "$t2")"
for spec in "lastzero-12 sc" "readers-15 sc" "indexer-15 sc" "lastzero-12 tso"; do
  set -- $spec
  model=$1 memory=$2
  base_sum=$("$bin" run "$model" --memory "$memory" --quiet --jobs 1 | grep -E '^(executions|classes)')
  for jobs in 2 4; do
    sum=$("$bin" run "$model" --memory "$memory" --quiet --jobs "$jobs" | grep -E '^(executions|classes)')
    [ "$sum" = "$base_sum" ] || { echo "$model: --jobs $jobs changed the counts" >&2; exit 1; }
    read -r t1 tn < <(alternate "$bin" run "$model" --memory "$memory" --quiet --jobs 1 -- \
      "$bin" run "$model" --memory "$memory" --quiet --jobs "$jobs")
    printf '%-16s %-6s %6s %8sms %8sms %7.2f\n' "$model" "$memory" "$jobs" "$t1" "$tn" "$(ratio "$t1" "$tn")"
  done
done
# validate with the polynomial checkers (timing.sh), optimal DPOR. The matrices must be
# equal (times aside).
vargs=(validate lastzero-12 --strategy optimal --checker "$poly_checkers" --quiet)
matrix() { "$bin" "${vargs[@]}" --jobs "$1" --json | grep -vE "$timing_fields"; }
[ "$(matrix 1)" = "$(matrix 2)" ] || { echo "validate: --jobs 2 changed the matrices" >&2; exit 1; }
read -r t1 tn < <(alternate "$bin" "${vargs[@]}" --jobs 1 -- "$bin" "${vargs[@]}" --jobs 2)
printf '%-16s %-6s %6s %8sms %8sms %7.2f  (validate, 12 checkers)\n' lastzero-12 sc 2 "$t1" "$tn" "$(ratio "$t1" "$tn")"
for spec in "lastzero-12 sc random" "readers-15 sc pct" "lock-bakery-fenced tso random"; do
  set -- $spec
  model=$1 memory=$2 strategy=$3
  args=(run "$model" --memory "$memory" --strategy "$strategy" --seed 7 --max-executions 100000 --quiet)
  for jobs in 2 4; do
    n=$("$bin" "${args[@]}" --jobs "$jobs" --json | awk -F'[:,]' '/"executions":/ {print $2 + 0; exit}')
    [ "$n" = 100000 ] || { echo "$model $strategy: --jobs $jobs ran $n samples, not 100000" >&2; exit 1; }
    read -r t1 tn < <(alternate "$bin" "${args[@]}" --jobs 1 -- "$bin" "${args[@]}" --jobs "$jobs")
    printf '%-16s %-6s %6s %8sms %8sms %7.2f  (%s)\n' "$model" "$memory" "$jobs" "$t1" "$tn" "$(ratio "$t1" "$tn")" "$strategy"
  done
done
