#!/usr/bin/env bash
# Trace TSO-serializability of unfenced traces (issue 59): `atomcheck check-trace` with
# trace-tso on traces of 4 threads over 10 variables, reads and writes only, every
# event its own transaction, no fence (gen_tso_trace --unfenced), so every write stays
# buffered until the end; once serializable as generated (--sb=0: all transactions
# unary) and once with one store-buffering pair of two-event blocks (--sb=1: not
# serializable). Sizes 200 .. 10^5 events; for each: the verdict, CPU seconds (user +
# system, from /usr/bin/time -v: what to read on a shared machine), CPU time(n)/time(n/10)
# (target: at most 12), peak RSS (target: flat from 10^4 on) and, beside it, the peak
# RSS of check-trace with aerodrome-opt-fixed on the same file: what check-trace itself
# keeps (its reader, the report's copy of a short trace), so the difference is the
# decider's. Then trace-tso-z3 on the 200- and 1,000-event traces (target: within 10 s,
# the same answers).
# Ratios are what to read; nothing here is asserted. Rerun:
#   ninja -C build atomcheck gen_tso_trace && bench/trace_tso_unfenced.sh [build]
# Environment: SIZES="200 1000 10000 100000" Z3SIZES="200 1000" TIMEOUT=300 (seconds per
#              run; a run cut by it prints "timeout" and ends that series) SEED=1.
set -uo pipefail
build=${1:-build}
gen=$build/bench/gen_tso_trace
ac=$build/atomcheck
SIZES=${SIZES:-"200 1000 10000 100000"} Z3SIZES=${Z3SIZES:-"200 1000"} TIMEOUT=${TIMEOUT:-300} SEED=${SEED:-1}
for b in "$gen" "$ac"; do
  [ -x "$b" ] || { echo "missing $b: ninja -C $build atomcheck gen_tso_trace" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run CHECKER FILE -> "cpu_seconds rss_kb exit verdict"
run() {
  /usr/bin/time -v -o "$tmp/time" timeout "$TIMEOUT" "$ac" check-trace --checker "$1" "$2" >"$tmp/out" 2>&1
  local rc=$?
  local verdict cpu kb
  verdict=$(grep -E "^$1 " "$tmp/out" | sed -E "s/^$1 +//; s/ +[0-9.]+ ms\$//" | cut -c1-70)
  [ $rc -eq 124 ] && verdict="timeout after ${TIMEOUT} s"
  cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$tmp/time" 2>/dev/null)
  kb=$(awk -F': ' '/Maximum resident/ { print $2 }' "$tmp/time" 2>/dev/null)
  echo "${cpu:-?} ${kb:-0} $rc ${verdict:-?}"
}

echo "# $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%dT%H:%MZ)"
printf '%-12s %8s %10s %12s %12s %12s %5s  %s\n' trace events "CPU s" "t(n)/t(n/10)" "peak RSS MB" "aerodrome MB" exit verdict
for sb in 0 1; do
  kind=$([ "$sb" = 0 ] && echo unary || echo "unary+SB")
  prev="" prevn=""
  for n in $SIZES; do
    "$gen" --events="$n" --unfenced --threads=4 --vars=10 --sb="$sb" --seed="$SEED" >"$tmp/t.jsonl" || exit 2
    read -r cpu kb rc verdict <<<"$(run trace-tso "$tmp/t.jsonl")"
    read -r _ akb _ _ <<<"$(run aerodrome-opt-fixed "$tmp/t.jsonl")"
    ratio="-"
    # CPU times under 0.05 s are below what /usr/bin/time resolves: no ratio.
    [ -n "$prev" ] && [ $((n)) -eq $((prevn * 10)) ] &&
      ratio=$(awk -v a="$cpu" -v b="$prev" 'BEGIN { if (b >= 0.05) printf "%.1f", a / b; else print "-" }')
    printf '%-12s %8s %10s %12s %12s %12s %5s  %s\n' "$kind" "$n" "$cpu" "$ratio" "$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')" \
      "$(awk -v k="$akb" 'BEGIN { printf "%.1f", k / 1024 }')" "$rc" "$verdict"
    prev=$cpu prevn=$n
    [ "$rc" = 124 ] && break
  done
done

echo "# trace-tso-z3"
for sb in 0 1; do
  kind=$([ "$sb" = 0 ] && echo unary || echo "unary+SB")
  for n in $Z3SIZES; do
    "$gen" --events="$n" --unfenced --threads=4 --vars=10 --sb="$sb" --seed="$SEED" >"$tmp/t.jsonl" || exit 2
    read -r cpu kb rc verdict <<<"$(run trace-tso-z3 "$tmp/t.jsonl")"
    printf '%-12s %8s %10s %12s %12s %12s %5s  %s\n' "$kind" "$n" "$cpu" "-" "$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')" "-" "$rc" "$verdict"
    [ "$rc" = 124 ] && break
  done
done
