#!/usr/bin/env bash
# The search's own speed against a previous build: median wall time of N interleaved runs
# (base, new, base, new, ...) of `atomcheck run MODEL [ARGS]` per model, and the ratio
# new/base. Interleaving keeps a drifting machine load from favouring either binary.
# Usage: bench/hot_path.sh BASE_BINARY [NEW_BINARY] [RUNS]
#   e.g. git worktree add /tmp/base HEAD~3 && cmake ... && bench/hot_path.sh /tmp/base/build/atomcheck
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/hot_path.sh BASE_BINARY [NEW_BINARY] [RUNS]}
new=${2:-build/release/atomcheck}
runs=${3:-11}
cases=("lastzero-12" "indexer-15" "readers-15" "lastzero-10 --memory tso" "spin-yield --strategy dfs")
secs() { local s e; s=$(date +%s%N); "$@" --quiet >/dev/null 2>&1 || true; e=$(date +%s%N); echo $(( (e - s) / 1000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '%-32s %10s %10s %7s\n' "model" "base s" "new s" "ratio"
for c in "${cases[@]}"; do
  read -r -a args <<< "$c"
  b=(); n=()
  for ((i = 0; i < runs; i++)); do
    b+=("$(secs "$base" run "${args[@]}")")
    n+=("$(secs "$new" run "${args[@]}")")
  done
  mb=$(printf '%s\n' "${b[@]}" | median); mn=$(printf '%s\n' "${n[@]}" | median)
  awk -v c="$c" -v b="$mb" -v n="$mn" 'BEGIN { printf "%-32s %10.3f %10.3f %7.2f\n", c, b / 1e6, n / 1e6, n / b }'
done
