#!/usr/bin/env bash
# Runs every registered model (or the ones named) under SC and TSO through the conflict
# serializability checkers and prints one markdown table: executions explored (and
# whether the search was exhaustive), time, per checker the number of executions it
# flagged (or "ok"), and the failures found. The DPOR benchmark programs are left out
# unless named. Needs only bash, awk and the atomcheck
# binary: the JSON that `atomcheck run --json` prints (one key per line, sorted) is read
# with awk.
#
#   scripts/model-table.sh [-b ATOMCHECK] [-s STRATEGY] [-c CHECKERS] [-t SECONDS] [NAME...]
#
# -b  the binary (default build/release/atomcheck, else build/atomcheck)
# -s  strategy passed to `run` (default: optimal when `run --help` offers it, else dpor)
# -c  comma-separated checkers (default: every conflict-serializability checker)
# -t  time limit per run in seconds (default 60); a run cut by it shows "≥N (time-limit)"
# -m  --max-steps per execution (default 200: `spin` never terminates in one schedule)
#
# A run that optimal DPOR refuses ("the program is not deterministic": spin loops that
# wait in this_thread::yield() under TSO) is re-run with dpor and marked "(dpor)".
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
bin=""
strategy=""
checkers="oracle,velodrome,aerodrome,aerodrome-opt,aerodrome-fixed,aerodrome-opt-fixed,regiontrack,regiontrack-fixed"
limit=60
steps=200
while getopts "b:s:c:t:m:h" opt; do
  case $opt in
    b) bin=$OPTARG ;;
    s) strategy=$OPTARG ;;
    c) checkers=$OPTARG ;;
    t) limit=$OPTARG ;;
    m) steps=$OPTARG ;;
    *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

if [ -z "$bin" ]; then
  for b in "$here/build/release/atomcheck" "$here/build/atomcheck"; do
    if [ -x "$b" ]; then bin=$b; break; fi
  done
fi
if [ -z "$bin" ] || [ ! -x "$bin" ]; then
  echo "model-table.sh: no atomcheck binary (build first or pass -b PATH)" >&2
  exit 2
fi
if [ -z "$strategy" ]; then
  if "$bin" run --help | grep -q optimal; then strategy=optimal; else strategy=dpor; fi
fi

if [ $# -gt 0 ]; then
  models=("$@")
else
  # The DPOR benchmark families (scripts/bench-dpor.sh) are for timing, not this table.
  mapfile -t models < <("$bin" list | awk '!($2 == "DPOR" && $3 == "benchmark:") {print $1}')
fi

IFS=, read -r -a names <<<"$checkers"
header="| model | memory | executions | time (s) |"
rule="|---|---|---:|---:|"
for c in "${names[@]}"; do header+=" $c |"; rule+="---|"; done
header+=" failures |"
rule+="---|"

echo "Strategy: $strategy; time limit ${limit} s per run; checker cells: executions flagged, or ok."
echo
echo "$header"
echo "$rule"
for m in "${models[@]}"; do
  for mem in sc tso; do
    used=$strategy
    set +e
    json=$("$bin" run "$m" --memory "$mem" --strategy "$used" --checker "$checkers" \
      --time-limit "$limit" --max-steps "$steps" --json 2>/dev/null)
    rc=$?
    if [ "$used" = optimal ] && grep -q '^  "stop": "nondeterministic' <<<"$json"; then
      used=dpor
      json=$("$bin" run "$m" --memory "$mem" --strategy "$used" --checker "$checkers" \
        --time-limit "$limit" --max-steps "$steps" --json 2>/dev/null)
      rc=$?
    fi
    set -e
    if [ -z "$json" ]; then
      echo "| $m | $mem | (no result, exit $rc) | | $(printf ' |%.0s' "${names[@]}") |"
      continue
    fi
    # Top-level keys sit at an indent of 2 spaces; checker objects are inside "checkers".
    label=$m
    [ "$used" = "$strategy" ] || label="$m ($used)"
    awk -v model="$label" -v mem="$mem" -v want="$checkers" '
      function val(line) { sub(/^[^:]*: */, "", line); sub(/,$/, "", line); gsub(/"/, "", line); return line }
      /^  "checkers": \[/ { inck = 1; next }
      inck && /^  \]/ { inck = 0; next }
      inck && /^      "flagged":/ { flagged = val($0) }
      inck && /^      "name":/ { fl[val($0)] = flagged }
      /^  "executions":/ { ex = val($0) }
      /^  "exhausted":/ { exh = val($0) }
      /^  "elapsed_seconds":/ { t = val($0) }
      /^  "failed":/ { failed = val($0) }
      /^  "deadlocks":/ { dl = val($0) }
      /^  "step_bounded":/ { sb = val($0) }
      /^  "stop":/ { stop = val($0) }
      END {
        exs = (exh == "true") ? ex : ("≥" ex " (" stop ")")
        line = sprintf("| %s | %s | %s | %.2f |", model, mem, exs, t)
        n = split(want, w, ",")
        for (i = 1; i <= n; i++) {
          c = (w[i] in fl) ? fl[w[i]] : "?"
          line = line " " ((c == "0") ? "ok" : c) " |"
        }
        f = ""
        if (failed + 0 > 0) f = f failed " failed "
        if (dl + 0 > 0) f = f dl " deadlocked "
        if (sb + 0 > 0) f = f sb " step-bounded "
        if (f == "") f = "none"
        sub(/ $/, "", f)
        print line " " f " |"
      }' <<<"$json"
  done
done
