#!/usr/bin/env bash
# The classic DPOR benchmarks (models/dpor_benchmarks.cpp) under dfs, dpor and optimal:
# one `atomcheck run MODEL --strategy S --json` per cell, cut at a time limit, tabled as
# executions explored (a '+' when the limit cut the search), sleep-set blocked ones,
# rf+co classes and executions per second. Usage:
#   scripts/bench-dpor.sh [ATOMCHECK_BINARY] [SECONDS_PER_RUN] [MODEL...]
# Runs one search at a time (nice'd) so it can share a busy machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/atomcheck}
limit=${2:-60}
shift $(( $# > 2 ? 2 : $# ))
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(indexer-12 indexer-13 indexer-14 indexer-15 lastzero-5 lastzero-8 lastzero-10
          lastzero-12 readers-8 readers-12 readers-15 filesystem-14 filesystem-16
          filesystem-18 filesystem-20)
fi
printf '| %-14s | %-8s | %12s | %9s | %10s | %9s | %8s |\n' model strategy executions blocked \
  "rf+co" "exec/s" seconds
printf '|%s|%s|%s|%s|%s|%s|%s|\n' ---------------- ---------- -------------- ----------- \
  ------------ ----------- ----------
for m in "${models[@]}"; do
  for s in dfs dpor optimal; do
    out=$(nice -n 10 "$bin" run "$m" --strategy "$s" --time-limit "$limit" --max-executions 0 \
          --json 2>/dev/null || true)
    if [ -z "$out" ]; then
      printf '| %-14s | %-8s | %12s |\n' "$m" "$s" "error"
      continue
    fi
    row=$(jq -r '[(.executions | tostring) + (if .complete then "" else "+" end), .sleep_blocked,
                  .rf_co_classes, .executions_per_second, .elapsed_seconds] | @tsv' <<<"$out")
    IFS=$'\t' read -r ex bl rf rate secs <<<"$row"
    printf '| %-14s | %-8s | %12s | %9s | %10s | %9.0f | %8.1f |\n' "$m" "$s" "$ex" "$bl" \
      "$rf" "$rate" "$secs"
  done
done
