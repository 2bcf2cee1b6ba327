#!/usr/bin/env bash
# Where the extra CPU of a parallel search goes: samples each function collects (perf)
# in `atomcheck run MODEL --jobs 2` minus those it collects with --jobs 1, biggest first,
# then the two totals. Pool::work and Pool::take are the worker and the search thread
# waiting; OptimalStrategy::leaves/predict are the predictions. Needs perf (linux-perf).
# Usage: bench/jobs_profile.sh [BUILD] [MODEL] [perf-record options...]
# (default build/release lastzero-12 -F 20000)
set -euo pipefail
build=${1:-build/release}
model=${2:-lastzero-12}
shift $(($# < 2 ? $# : 2))
opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(-F 20000)
[ -x "$build/atomcheck" ] || { echo "jobs_profile.sh: no atomcheck binary in $build (build it first: cmake --build $build)" >&2; exit 2; }
command -v perf >/dev/null || { echo "jobs_profile.sh: perf is not installed" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for jobs in 1 2; do
  perf record -q "${opts[@]}" -o "$dir/$jobs.data" "$build/atomcheck" run "$model" --jobs "$jobs" --quiet \
    >/dev/null 2>&1
  perf report -i "$dir/$jobs.data" --stdio --no-children --sort sym -F sample,sym 2>/dev/null |
    awk '/^ *[0-9]+ / {n = $1; $1 = ""; sub(/^ +/, ""); print n "\t" $0}' >"$dir/$jobs.txt"
done
awk -F'\t' '
  FNR == NR {one[$2] += $1; t1 += $1; next}
  {two[$2] += $1; t2 += $1}
  END {
    for (k in two) d[k] = two[k] - one[k]
    for (k in one) if (!(k in two)) d[k] = -one[k]
    for (k in d) printf "%+7d  %6d %6d  %s\n", d[k], one[k] + 0, two[k] + 0, substr(k, 1, 100)
    printf "total  --jobs 1: %d samples, --jobs 2: %d (%.2fx)\n", t1, t2, t1 ? t2 / t1 : 0 > "/dev/stderr"
  }' "$dir/1.txt" "$dir/2.txt" | sort -rn | head -25
