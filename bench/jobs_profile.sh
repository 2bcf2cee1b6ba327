#!/usr/bin/env bash
# Where the extra CPU of a parallel search goes: samples each function collects (perf)
# in `atomcheck run MODEL --jobs 2` minus those it collects with --jobs 1, biggest first,
# then the two totals. Units::work (inlined into the thread's lambda, Units::Units(...)::
# {lambda()#1}, whose own samples are its spin for work) and Units::reach are a unit
# thread and the search waiting. Last, --jobs 2 per thread: the search's thread (the
# process's first) with the share of its samples spent handing units over, by kind, and
# each unit thread with the share spent waiting for work (the figures of docs/parallel-search.md). Needs
# perf (linux-perf).
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
# Per thread, --jobs 2: the search's thread is the one with the lowest id.
perf report -i "$dir/2.data" --stdio --no-children --sort pid,sym -F sample,pid,sym 2>/dev/null |
  awk '/^ *[0-9]+ / {n = $1; split($2, id, ":"); $1 = ""; $2 = ""; sub(/^ +/, ""); sub(/^\[.\] /, ""); print id[1] "\t" n "\t" $0}' |
  awk -F'\t' '
    function kind(f) {
      if (f ~ /OptimalStrategy::(carve_unit|unit_reached|join_unit|same_tree)|WNode/) return "carving, joining"
      if (f ~ /Units::reach/) return "waiting for a unit"
      if (f ~ /atomcheck::explore$/) return "the search loop"
      if (f ~ /pthread_mutex|pthread_cond|_raw_spin_unlock|finish_task_switch/) return "locks, wake-ups"
      return ""
    }
    {total[$1] += $2; if (first == "" || $1 + 0 < first + 0) first = $1
     k = kind($3); if (k != "") by[$1, k] += $2; if ($3 ~ /Units::work|Units::Units\(/) idle[$1] += $2}
    END {
      n = split("carving, joining|waiting for a unit|the search loop|locks, wake-ups", ks, "|")
      line = ""; sum = 0
      for (i = 1; i <= n; ++i) {
        sum += by[first, ks[i]]; line = line sprintf("%s %.1f%%; ", ks[i], 100 * by[first, ks[i]] / total[first])
      }
      printf "--jobs 2, search thread: %d samples, coordinating %.1f%% (%s)\n", total[first], 100 * sum / total[first], substr(line, 1, length(line) - 2)
      for (t in total) if (t != first && 100 * total[t] >= total[first]) printf "--jobs 2, unit thread: %d samples, waiting for work %.1f%%\n", total[t], 100 * idle[t] / total[t]
    }'
