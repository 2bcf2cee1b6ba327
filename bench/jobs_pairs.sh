#!/usr/bin/env bash
# The issue-17 figure for one model: `run MODEL --jobs 2` against `--jobs 1`, and the
# machine's ceiling (two `--jobs 1` runs started together, twice the work), as the
# median over N rounds of each round's ratio. The three runs of a round follow each
# other, so a change in this VM's speed (large, and over minutes) falls on all three.
# Usage: bench/jobs_pairs.sh [BUILD] [ROUNDS] [MODEL] [run options...]
# (default build/release 15 lastzero-12)
set -euo pipefail
build=${1:-build/release}
rounds=${2:-15}
model=${3:-lastzero-12}
shift $(($# < 3 ? $# : 3))
bin="$build/atomcheck"
[ -x "$bin" ] || { echo "jobs_pairs.sh: no atomcheck binary in $build (build it first: cmake --build $build)" >&2; exit 2; }
. "$(dirname "$0")/timing.sh"
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for _ in $(seq "$rounds"); do
  one=$(wall_ms "$bin" run "$model" --quiet --jobs 1 "$@")
  two=$(wall_ms "$bin" run "$model" --quiet --jobs 2 "$@")
  both=$(wall_ms bash -c '"$@" & "$@"; wait' _ "$bin" run "$model" --quiet --jobs 1 "$@")
  echo "$one $two $both" >>"$raw"
done
printf '%s: --jobs 1 %s ms, --jobs 2 %s ms (medians of %s rounds); --jobs 2 / --jobs 1 %s, ceiling (two --jobs 1 at once) %s\n' \
  "$model" "$(awk '{print $1}' "$raw" | median)" "$(awk '{print $2}' "$raw" | median)" "$rounds" \
  "$(awk '{printf "%.3f\n", $2 / $1}' "$raw" | median)" "$(awk '{printf "%.3f\n", $3 / (2 * $1)}' "$raw" | median)"
