#!/usr/bin/env bash
# The model library's linearizability table (docs/linearizability.md): every model that
# declares operations, explored to the end under sc, tso and rc11 with the default strategy
# (optimal DPOR; one execution per graph under rc11) and the `linearizability` checker beside
# its judge `linearizability-oracle`. A cell is "linearizable" or "K of N not" (K executions
# flagged of the N judged: completed, failed, deadlocked or cut by the step bound); "(judge:
# J)" marks a cell where the judge flagged J instead.
#
#   scripts/lin-table.sh [-b ATOMCHECK] [MODEL...]
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=$here/build/release/atomcheck
while getopts "b:h" opt; do
  case $opt in
    b) bin=$OPTARG ;;
    *) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=(treiber-stack treiber-stack-racy-push treiber-stack-weak-push treiber-stack-aba ms-queue
          ms-queue-racy-link ms-queue-weak-link chase-lev chase-lev-unfenced chase-lev-weak-push seqlock
          seqlock-weak-reader spsc-ring spsc-ring-weak-tail vyukov-queue spsc-ring-4)
fi

# One cell: the run's JSON (one key per line) read with awk.
cell() {
  local json rc=0
  json=$("$bin" run "$1" --memory "$2" --checker linearizability,linearizability-oracle --json 2>/dev/null) || rc=$?
  if [ "$rc" -ge 2 ]; then
    echo "error (exit $rc)"
    return
  fi
  echo "$json" | awk '
    /^  "(completed|failed|deadlocks|step_bounded)":/ { gsub(/[ ,]/, ""); split($0, a, ":"); judged += a[2] }
    /"exhausted":/ { exhausted = ($0 ~ /true/) }
    /"flagged":/ { gsub(/[ ,]/, ""); split($0, a, ":"); flagged[n++] = a[2] }
    END {
      out = flagged[0] == 0 ? "linearizable" : flagged[0] " of " judged " not"
      if (flagged[1] != flagged[0]) out = out " (judge: " flagged[1] ")"
      if (!exhausted) out = out " (incomplete)"
      print out
    }'
}

listed=$("$bin" list 2>/dev/null || true)
echo "| model | SC | TSO | rc11 |"
echo "|---|---|---|---|"
for m in "${models[@]}"; do
  if ! grep -q "^ *$m " <<< "$listed"; then
    echo "| \`$m\` | not in this build | | |"
    continue
  fi
  echo "| \`$m\` | $(cell "$m" sc) | $(cell "$m" tso) | $(cell "$m" rc11) |"
done
