#!/usr/bin/env bash
# Issue 38: N jobs must stay within N times one job's peak memory. Peak resident set of
# `atomcheck run MODEL` with --jobs 1 and --jobs 2 (GNU time's maximum RSS, medians of
# RUNS alternating runs, so the machine's changes of speed fall on both alike), the ratio
# jobs2/jobs1 and whether it is within 2x; the wall times beside them. The summaries of
# the two job counts must be equal (the script checks). Exit 1 when a ratio is over 2.
# Usage: bench/jobs_memory.sh [BUILD] [RUNS] [MODELS...]
# (default build/release, 5, lastzero-15 readers-15 indexer-15)
set -euo pipefail
build=${1:-build/release}
runs=${2:-5}
shift $(($# < 2 ? $# : 2))
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(lastzero-15 readers-15 indexer-15)
bin="$build/atomcheck"
[ -x "$bin" ] || { echo "jobs_memory.sh: no atomcheck binary in $build (build it first: cmake --build $build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "jobs_memory.sh: needs GNU time (/usr/bin/time; Debian package time)" >&2; exit 2; }
. "$(dirname "$0")/timing.sh"
summary() { "$bin" run "$1" --jobs "$2" 2>/dev/null | grep -v '^elapsed'; }
over=0
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
printf '%-14s %12s %12s %7s %10s %10s %7s\n' model "RSS 1 (MiB)" "RSS 2 (MiB)" ratio "wall 1" "wall 2" ratio
for model in "${models[@]}"; do
  [ "$(summary "$model" 1)" = "$(summary "$model" 2)" ] || { echo "$model: --jobs 2 changed the summary" >&2; exit 1; }
  : >"$raw"
  for _ in $(seq "$runs"); do
    echo "$(peak_rss "$bin" run "$model" --quiet --jobs 1) $(peak_rss "$bin" run "$model" --quiet --jobs 2)" >>"$raw"
  done
  m1=$(awk '{print $1}' "$raw" | median) m2=$(awk '{print $3}' "$raw" | median)
  w1=$(awk '{print $2}' "$raw" | median) w2=$(awk '{print $4}' "$raw" | median)
  r=$(ratio "$m1" "$m2")
  verdict=$(awk -v r="$r" 'BEGIN {print (r <= 2 ? "within 2x" : "OVER 2x")}')
  [ "$verdict" = "within 2x" ] || over=1
  printf '%-14s %12.1f %12.1f %7s %8sms %8sms %7s  %s\n' "$model" "$(awk -v k="$m1" 'BEGIN {print k / 1024}')" \
    "$(awk -v k="$m2" 'BEGIN {print k / 1024}')" "$r" "$w1" "$w2" "$(ratio "$w1" "$w2")" "$verdict"
done
exit "$over"
