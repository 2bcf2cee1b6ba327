#!/usr/bin/env bash
# What the allocator model costs programs that do not allocate: the model library's stacks
# and queues (arrays of nodes, no make()) explored by this build and by the build before
# the allocator model, alternating in rounds so that load on the machine falls on both
# alike. Every access now asks whether its object lies in a freed block and every event's
# value whether it is a heap pointer; this measures what that adds. Prints, per program and
# memory model, the executions (equal in both builds, or the script stops), the median
# exploration time of each build and the ratio new/base (the target: at most 1.10).
#
# Usage: bench/allocator_cost.sh [BUILD_DIR] [ROUNDS]   (default build/release, 5)
#   BASE_BIN=path/to/atomcheck  the base build's binary; without it the script checks out
#   BASE_REF (default 6e8846c^, the commit before the allocator model) in a git worktree
#   under build/allocator-base and builds it there (Release, a few minutes the first time).
#   INSTRUCTIONS=1  count instructions under callgrind instead of timing (one round: the
#   count repeats whatever the machine's load; about 50x slower, so fewer programs).
set -euo pipefail
cd "$(dirname "$0")/.."
NEW=${1:-build/release}/atomcheck
ROUNDS=${2:-5}
BASE_REF=${BASE_REF:-6e8846c^}
if [[ -z "${BASE_BIN:-}" ]]; then
  src=build/allocator-base
  if [[ ! -d $src ]]; then git worktree add --detach "$src" "$BASE_REF" >/dev/null; fi
  cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$src/build" --target atomcheck >/dev/null
  BASE_BIN=$src/build/atomcheck
fi
PROGRAMS=(${PROGRAMS_OVERRIDE:-treiber-push-pop-3x2 ms-queue-enq-deq-3x2 vyukov-enqueue-3x2})
MEMORIES=(${MEMORIES_OVERRIDE:-sc tso})
run() {  # binary program memory -> "executions seconds" (or instructions)
  if [[ -n "${INSTRUCTIONS:-}" ]]; then
    local log
    log=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --log-file="$log" \
      "$1" run "$2" --memory "$3" --jobs 1 --json --quiet 2>/dev/null |
      python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["executions"], end=" ")'
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log"
    rm -f "$log"
    return
  fi
  "$1" run "$2" --memory "$3" --jobs 1 --json --quiet 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["executions"], j["elapsed_seconds"])'
}
[[ -n "${INSTRUCTIONS:-}" ]] && ROUNDS=1
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "base: $BASE_BIN; new: $NEW; $ROUNDS rounds; $(nproc) cores, $(uname -m)"
unit=$([[ -n "${INSTRUCTIONS:-}" ]] && echo instr || echo s)
printf "%-22s %-5s %10s %14s %14s %7s\n" program memory executions "base $unit" "new $unit" ratio
worst=0
for p in "${PROGRAMS[@]}"; do
  for m in "${MEMORIES[@]}"; do
    b=(); n=(); execs=""
    for ((r = 0; r < ROUNDS; ++r)); do
      read -r eb tb < <(run "$BASE_BIN" "$p" "$m")
      read -r en tn < <(run "$NEW" "$p" "$m")
      if [[ $eb != "$en" ]]; then
        echo "$p $m: executions differ (base $eb, new $en): not the same search" >&2
        exit 1
      fi
      execs=$en; b+=("$tb"); n+=("$tn")
    done
    mb=$(printf "%s\n" "${b[@]}" | median)
    mn=$(printf "%s\n" "${n[@]}" | median)
    ratio=$(python3 -c "print('%.3f' % ($mn / $mb))")
    worst=$(python3 -c "print(max($worst, $ratio))")
    printf "%-22s %-5s %10s %14s %14s %7s\n" "$p" "$m" "$execs" "$mb" "$mn" "$ratio"
  done
done
echo "worst ratio new/base: $worst"
