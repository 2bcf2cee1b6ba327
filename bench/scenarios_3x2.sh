#!/usr/bin/env bash
# Issue 58's scenario bar: Lincheck-style scenarios of 3 threads x 2 operations, 20 of
# them (seed 1), each explored exhaustively, as `check_scenarios` runs them (through
# `atomcheck lincheck`, its command-line form), under each memory model and under sc as a
# graph model (--sc-graphs), one core. Prints the verdict line and the CPU (user+system)
# of the whole process; a scenario that passes the per-scenario budget of 10^6 executions
# makes the verdict "incomplete".
#   bash bench/scenarios_3x2.sh [BUILD_DIR] [OBJECT...]
#   (default: treiber-stack ms-queue vyukov-queue; vyukov-queue is not linearizable)
set -euo pipefail
build=${1:-build/release}
shift || true
if (($#)); then objects=("$@"); else objects=(treiber-stack ms-queue vyukov-queue); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "%-16s %-10s %-18s %8s\n" object memory verdict "CPU s"
for obj in "${objects[@]}"; do
  for m in sc sc-graphs tso rc11; do
    flags=(--memory "${m%-graphs}")
    [[ $m == sc-graphs ]] && flags+=(--sc-graphs)
    /usr/bin/time -f '%U %S' -o "$tmp/time" "$build/atomcheck" lincheck "$obj" --threads 3 --ops 2 \
      --scenarios 20 "${flags[@]}" >"$tmp/out" 2>&1 || true
    verdict=$(grep -m1 -oE '^(linearizable|linearizability: incomplete|linearizability: a failing)' "$tmp/out" || echo "?")
    [[ $verdict == "linearizability: incomplete" ]] && verdict=incomplete
    [[ $verdict == "linearizability: a failing" ]] && verdict="not linearizable"
    grep -q "^linearizable in" "$tmp/out" && verdict=linearizable
    printf "%-16s %-10s %-18s %8s\n" "$obj" "$m" "$verdict" "$(tail -1 "$tmp/time" | awk '{printf "%.1f", $1 + $2}')"
  done
done
