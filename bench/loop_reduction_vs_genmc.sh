#!/usr/bin/env bash
# CAS-retry loops (issue 58) side by side with GenMC: the C twins in bench/genmc/ and
# their atomcheck twins (models/cas_loop_benchmarks.cpp, every loop a cas_loop)
# (vyukov_enq_3x2, treiber_3x2, msqueue_3x2) under GenMC's sc and rc11, with its
# spin-assume transformation on (GenMC's default: a failed CAS-loop attempt blocks its
# execution) and off (--disable-spin-assume: every attempt runs), one exploration thread
# (--nthreads=1), state-space estimation off. CPU is user+system of the whole genmc
# process tree (/usr/bin/time; includes the clang front end, ~0.03 s on an empty main).
#
# The peers' DPOR benchmarks are twins too, sized by -DN: PROGRAMS entries NAME:N run
# bench/genmc/NAME.c with -DN=N against atomcheck's NAME-N (models/dpor_benchmarks.cpp);
# bench/rc11_vs_genmc.sh runs them under rc11.
#
# Usage: bench/loop_reduction_vs_genmc.sh
#   GENMC        genmc binary (default /work/genmc-build/genmc, as built by
#                bash bench/genmc/build-genmc.sh /work/genmc-src /work/genmc-build)
#   PROGRAMS     default "vyukov_enq_3x2 treiber_3x2 msqueue_3x2"
#   MODELS       default "sc sc-graphs rc11" (sc-graphs: GenMC's sc against atomcheck's
#                --memory sc --sc-graphs, TruSt over the SC graph model)
#   SPIN         default "on off" (off takes minutes: msqueue_3x2 ~4-5 min per model)
#   GENMC_FLAGS  default "--disable-estimation --nthreads=1"
#   TIMEOUT      seconds per run (default 1800); a GenMC run cut short shows "timeout",
#                an atomcheck run its counts so far with "+"
#   ATOMCHECK    atomcheck binary (default build/release/atomcheck)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GENMC=${GENMC:-/work/genmc-build/genmc}
ATOMCHECK=${ATOMCHECK:-$here/../build/release/atomcheck}
PROGRAMS=(${PROGRAMS:-vyukov_enq_3x2 treiber_3x2 msqueue_3x2})
MODELS=(${MODELS:-sc sc-graphs rc11})
SPIN=(${SPIN:-on off})
GENMC_FLAGS=(${GENMC_FLAGS:---disable-estimation --nthreads=1})
TIMEOUT=${TIMEOUT:-1800}
[[ -x $GENMC ]] || { echo "no genmc at $GENMC (set GENMC, or run bench/genmc/build-genmc.sh)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One GenMC run: PROGRAM MODEL SPIN(on|off) -> "complete blocked cpu_s"
genmc_row() {
  local prog=$1 model=${2%-graphs} spin=$3 flags=() src=$1
  [[ $spin == off ]] && flags+=(--disable-spin-assume)
  if [[ $prog == *:* ]]; then src=${prog%%:*}; flags+=(-- "-DN=${prog##*:}"); fi
  local rc=0
  /usr/bin/time -f '%U %S' -o "$tmp/time" timeout "$TIMEOUT" \
    "$GENMC" "--$model" "${GENMC_FLAGS[@]}" "${flags[@]}" "$here/genmc/$src.c" \
    >"$tmp/out" 2>&1 || rc=$?
  if ((rc == 124)); then echo "timeout - -"; return; fi
  if ! grep -q 'No errors were detected' "$tmp/out"; then
    echo "genmc failed on $prog ($model, spin-assume $spin), exit $rc:" >&2
    tail -20 "$tmp/out" >&2
    echo "error - -"; return
  fi
  local complete blocked cpu
  complete=$(sed -n 's/^Number of complete executions explored: \([0-9]*\).*/\1/p' "$tmp/out")
  blocked=$(sed -n 's/^Number of blocked executions seen: \([0-9]*\).*/\1/p' "$tmp/out")
  cpu=$(awk 'END {printf "%.2f", $1 + $2}' "$tmp/time")
  echo "${complete:-?} ${blocked:-0} $cpu"  # GenMC prints no blocked line when 0
}

# The atomcheck twin of a C twin (models/cas_loop_benchmarks.cpp), default strategy
# (optimal DPOR; under rc11 and sc-graphs TruSt), one job: PROGRAM MODEL SPIN(on|off) ->
# "complete blocked cut cpu_s": blocked are the executions that ended blocked in a
# failed attempt or a wait (GenMC's blocked ones), cut the runs TruSt cut where a thread
# blocked for good on a stale read, or a revisit's replay proved inconsistent (GenMC moots
# the first and checks a revisit before running it, and counts neither; optimal DPOR's
# sleep-set blocked runs, 0 for optimal, are counted here too).
# SPIN=off is --no-loop-reduction. A run the time limit cuts shows "N+".
atomcheck_row() {
  local prog=$1 model=$2 spin=$3 flags=() name
  case $prog in
    vyukov_enq_3x2) name=vyukov-enqueue-3x2 ;;
    treiber_3x2) name=treiber-push-pop-3x2 ;;
    msqueue_3x2) name=ms-queue-enq-deq-3x2 ;;
    *:*) name=${prog%%:*}-${prog##*:} ;;
    *) echo "? ? ? ?"; return ;;
  esac
  [[ $spin == off ]] && flags+=(--no-loop-reduction)
  [[ $model == sc-graphs ]] && model=sc && flags+=(--sc-graphs)
  /usr/bin/time -f '%U %S' -o "$tmp/atime" "$ATOMCHECK" run "$name" --memory "$model" --jobs 1 \
    --time-limit "$TIMEOUT" "${flags[@]}" --json --quiet >"$tmp/aout" 2>/dev/null || true
  python3 - "$tmp/aout" "$tmp/atime" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
u, s = open(sys.argv[2]).read().split()[-2:]
cut = "" if j["stop"] == "exhausted" else "+"
print(f'{j["completed"]}{cut} {j["executions"] - j["completed"] - j["sleep_blocked"]}{cut} {j["sleep_blocked"]} {float(u) + float(s):.2f}')
PY
}
fmt="%-16s %-9s %-5s %12s %13s %8s %12s %14s %8s %8s %8s\n"
printf "$fmt" program model spin "genmc compl" "genmc blocked" "genmc s" \
  "atomck compl" "atomck blocked" "cut" "atomck s" "CPU a/g"
for p in "${PROGRAMS[@]}"; do
  for m in "${MODELS[@]}"; do
    for s in "${SPIN[@]}"; do
      read -r gc gb gt <<<"$(genmc_row "$p" "$m" "$s")"
      read -r ac ab ar at <<<"$(atomcheck_row "$p" "$m" "$s")"
      ratio=$(awk -v a="$at" -v g="$gt" 'BEGIN { if (g + 0 > 0 && a ~ /^[0-9.]+$/) printf "%.2f", a / g; else print "-" }')
      printf "$fmt" "$p" "$m" "$s" "$gc" "$gb" "$gt" "$ac" "$ab" "$ar" "$at" "$ratio"
    done
  done
done
