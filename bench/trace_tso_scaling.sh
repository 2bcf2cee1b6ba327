#!/usr/bin/env bash
# Scaling of `atomcheck check-trace --checker trace-tso` with the trace length (issue
# 39): random TSO traces from gen_tso_trace (THREADS threads, VARS variables, a fence
# with probability FENCE/1000 and an rmw with RMW/1000 per operation, every event its own
# transaction), 10^3 .. 10^6 events; for each: wall time, CPU time (user + system: what
# to read when the machine is shared), CPU time(10n)/time(n), peak RSS.
# Then the 204-event, 4-thread, 10-variable all-unary trace of the issue (drains 8%).
# Ratios are what to read; nothing here is asserted. Rerun:
#   ninja -C build atomcheck gen_tso_trace && bench/trace_tso_scaling.sh [build]
# Environment: THREADS=4 VARS=8 FENCE=250 RMW=20 SIZES="1000 10000 100000 1000000"
#              TIMEOUT=900 (seconds per run; a run cut by it prints "timeout").
#              BLOCK_FIRST=1: prepend a two-event block on a variable of its own, so the
#              decider builds its summaries from the first event (without one, a trace of
#              one-event transactions takes its cheaper path).
#              BASELINE=path/to/another/atomcheck: run it too on each trace, one after
#              the other, and print its CPU seconds and the ratio of the two.
set -uo pipefail
build=${1:-build}
gen=$build/bench/gen_tso_trace
ac=$build/atomcheck
THREADS=${THREADS:-4} VARS=${VARS:-8} FENCE=${FENCE:-250} RMW=${RMW:-20}
SIZES=${SIZES:-"1000 10000 100000 1000000"} TIMEOUT=${TIMEOUT:-900}
BLOCK_FIRST=${BLOCK_FIRST:-0} BASELINE=${BASELINE:-}
for b in "$gen" "$ac"; do
  [ -x "$b" ] || { echo "missing $b: ninja -C $build atomcheck gen_tso_trace" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# gen ARGS... > FILE: the generator, with the block first when asked.
gen() {
  [ "$BLOCK_FIRST" = 1 ] && printf '%s\n' '{"thread":"T0","op":"begin"}' '{"thread":"T0","op":"write","var":"blk"}' \
    '{"thread":"T0","op":"read","var":"blk"}' '{"thread":"T0","op":"end"}'
  "$gen" "$@"
}

# run FILE [ATOMCHECK] -> "seconds cpu_seconds rss_kb exit verdict"
run() {
  /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" timeout "$TIMEOUT" "${2:-$ac}" check-trace --checker trace-tso "$1" >"$tmp/out" 2>&1
  local rc=$?
  local verdict
  verdict=$(grep -E '^trace-tso ' "$tmp/out" | sed -E 's/^trace-tso +//; s/ +[0-9.]+ ms$//' | cut -c1-60)
  [ $rc -eq 124 ] && verdict="timeout after ${TIMEOUT} s"
  echo "$(tail -1 "$tmp/time" | awk '{ printf "%s %.2f %s", $1, $2 + $3, $4 }') $rc ${verdict:-?}"
}

echo "# $(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# gen_tso_trace --threads=$THREADS --vars=$VARS --fence=$FENCE --rmw=$RMW --seed=1$([ "$BLOCK_FIRST" = 1 ] && echo ', a two-event block first')"
[ -n "$BASELINE" ] && echo "# baseline: $BASELINE"
printf '%10s %10s %10s %12s %12s %5s  %s\n' events seconds "CPU s" "t(n)/t(n/10)" "peak RSS MB" exit verdict
prev=""
for n in $SIZES; do
  gen --events="$n" --threads="$THREADS" --vars="$VARS" --fence="$FENCE" --rmw="$RMW" --seed=1 >"$tmp/t.jsonl"
  read -r secs cpu kb rc verdict <<<"$(run "$tmp/t.jsonl")"
  ratio="-"
  [ -n "$prev" ] && ratio=$(awk -v a="$cpu" -v b="$prev" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }')
  printf '%10s %10s %10s %12s %12s %5s  %s\n' "$n" "$secs" "$cpu" "$ratio" "$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')" "$rc" "$verdict"
  if [ -n "$BASELINE" ]; then
    read -r bsecs bcpu bkb brc bverdict <<<"$(run "$tmp/t.jsonl" "$BASELINE")"
    printf '%10s %10s %10s %12s %12s %5s  %s\n' "baseline" "$bsecs" "$bcpu" \
      "$(awk -v a="$cpu" -v b="$bcpu" 'BEGIN { if (b > 0) printf "x%.2f", a / b; else print "-" }')" \
      "$(awk -v k="$bkb" 'BEGIN { printf "%.1f", k / 1024 }')" "$brc" "$bverdict"
  fi
  prev=$cpu
  [ "$rc" = 124 ] && break
done
rm -f "$tmp/t.jsonl"

echo "# the 204-event trace: gen_tso_trace --events=204 --threads=4 --vars=10 --fence=50 --rmw=30 --seed=1"
gen --events=204 --threads=4 --vars=10 --fence=50 --rmw=30 --seed=1 >"$tmp/u.jsonl"
read -r secs cpu kb rc verdict <<<"$(run "$tmp/u.jsonl")"
printf '%10s %10s %10s %12s %12s %5s  %s\n' 204 "$secs" "$cpu" "-" "$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')" "$rc" "$verdict"
if [ -n "$BASELINE" ]; then
  read -r bsecs bcpu bkb brc bverdict <<<"$(run "$tmp/u.jsonl" "$BASELINE")"
  printf '%10s %10s %10s %12s %12s %5s  %s\n' "baseline" "$bsecs" "$bcpu" \
    "$(awk -v a="$cpu" -v b="$bcpu" 'BEGIN { if (b > 0) printf "x%.2f", a / b; else print "-" }')" \
    "$(awk -v k="$bkb" 'BEGIN { printf "%.1f", k / 1024 }')" "$brc" "$bverdict"
fi
