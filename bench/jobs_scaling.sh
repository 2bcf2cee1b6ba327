#!/usr/bin/env bash
# Wall time of `atomcheck run MODEL --jobs N` against --jobs 1 (median of RUNS), for the
# DPOR benchmarks and a TSO model, then of `validate` with checkers attached, then for
# random and pct sampling (100,000 samples split across the jobs); prints the ratio.
# Usage: bench/jobs_scaling.sh [BUILD] [RUNS]
# (default build/release, 5). Exhaustive counts must be equal, sample sizes too: the
# script checks.
set -euo pipefail
build=${1:-build/release}
runs=${2:-5}
bin="$build/atomcheck"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-16s %-6s %6s %10s %10s %7s\n' model memory jobs "wall 1" "wall N" ratio
for spec in "lastzero-12 sc" "readers-15 sc" "indexer-15 sc" "lastzero-12 tso"; do
  set -- $spec
  model=$1 memory=$2
  base_sum=$("$bin" run "$model" --memory "$memory" --quiet --jobs 1 | grep -E '^(executions|classes)')
  for jobs in 2 4; do
    sum=$("$bin" run "$model" --memory "$memory" --quiet --jobs "$jobs" | grep -E '^(executions|classes)')
    [ "$sum" = "$base_sum" ] || { echo "$model: --jobs $jobs changed the counts" >&2; exit 1; }
    t1=$(for _ in $(seq "$runs"); do /usr/bin/time -f %e "$bin" run "$model" --memory "$memory" --quiet --jobs 1 2>&1 >/dev/null | tail -1; done | median)
    tn=$(for _ in $(seq "$runs"); do /usr/bin/time -f %e "$bin" run "$model" --memory "$memory" --quiet --jobs "$jobs" 2>&1 >/dev/null | tail -1; done | median)
    printf '%-16s %-6s %6s %9ss %9ss %7.2f\n' "$model" "$memory" "$jobs" "$t1" "$tn" "$(awk -v a="$tn" -v b="$t1" 'BEGIN {print (b > 0 ? a / b : 0)}')"
  done
done
# validate: every checker that is not exponential (the trace TSO deciders and ws-block
# are left out: one slow execution would decide the wall time), optimal DPOR. The
# matrices must be equal (times aside).
checkers=regiontrack-blame,regiontrack,regiontrack-fixed,aerodrome,aerodrome-opt,aerodrome-fixed
checkers=$checkers,aerodrome-opt-fixed,velodrome,atomic-set,tso-monitor,ws-reduction-4.3,ws-reduction-4.4
vargs=(validate lastzero-12 --strategy optimal --checker "$checkers" --quiet)
matrix() { "$bin" "${vargs[@]}" --jobs "$1" --json | grep -vE '"(seconds|time_share|checker_seconds|elapsed_seconds)"'; }
[ "$(matrix 1)" = "$(matrix 2)" ] || { echo "validate: --jobs 2 changed the matrices" >&2; exit 1; }
t1=$(for _ in $(seq "$runs"); do /usr/bin/time -f %e "$bin" "${vargs[@]}" --jobs 1 2>&1 >/dev/null | tail -1; done | median)
tn=$(for _ in $(seq "$runs"); do /usr/bin/time -f %e "$bin" "${vargs[@]}" --jobs 2 2>&1 >/dev/null | tail -1; done | median)
printf '%-16s %-6s %6s %9ss %9ss %7.2f  (validate, 12 checkers)\n' lastzero-12 sc 2 "$t1" "$tn" \
  "$(awk -v a="$tn" -v b="$t1" 'BEGIN {print (b > 0 ? a / b : 0)}')"
for spec in "lastzero-12 sc random" "readers-15 sc pct" "lock-bakery-fenced tso random"; do
  set -- $spec
  model=$1 memory=$2 strategy=$3
  args=(run "$model" --memory "$memory" --strategy "$strategy" --seed 7 --max-executions 100000 --quiet)
  for jobs in 2 4; do
    n=$("$bin" "${args[@]}" --jobs "$jobs" --json | awk -F'[:,]' '/"executions":/ {print $2 + 0; exit}')
    [ "$n" = 100000 ] || { echo "$model $strategy: --jobs $jobs ran $n samples, not 100000" >&2; exit 1; }
    t1=$(for _ in $(seq "$runs"); do /usr/bin/time -f %e "$bin" "${args[@]}" --jobs 1 2>&1 >/dev/null | tail -1; done | median)
    tn=$(for _ in $(seq "$runs"); do /usr/bin/time -f %e "$bin" "${args[@]}" --jobs "$jobs" 2>&1 >/dev/null | tail -1; done | median)
    printf '%-16s %-6s %6s %9ss %9ss %7.2f  (%s)\n' "$model" "$memory" "$jobs" "$t1" "$tn" \
      "$(awk -v a="$tn" -v b="$t1" 'BEGIN {print (b > 0 ? a / b : 0)}')" "$strategy"
  done
done
