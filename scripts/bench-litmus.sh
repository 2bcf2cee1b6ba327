#!/usr/bin/env bash
# Every litmus test of tests/data/litmus (or the files given) under SC and TSO with one
# strategy: one `atomcheck run FILE --memory both --strategy S --json` per test, cut at a
# time limit, tabled as executions run, classes of the reduction's equivalence (and
# which equivalence), rf+co classes, final states, herd's Ok/No and seconds per memory
# model; a '+' marks a search the limit cut. The issue's target is under 1 s per cell.
# Usage:
#   scripts/bench-litmus.sh [-b ATOMCHECK_BINARY] [-s STRATEGY] [-t SECONDS] [FILE.litmus...]
# Timings are measured here and never asserted by the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/atomcheck
strategy=optimal
limit=60
while getopts "b:s:t:" opt; do
  case $opt in
    b) bin=$OPTARG ;;
    s) strategy=$OPTARG ;;
    t) limit=$OPTARG ;;
    *) echo "usage: $0 [-b BIN] [-s dfs|dpor|optimal] [-t SECONDS] [FILE...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <(find tests/data/litmus -name '*.litmus' | sort)
fi
printf '| %-42s | %-3s | %10s | %9s | %-11s | %6s | %6s | %-2s | %8s |\n' test mem executions classes \
  equivalence "rf+co" states ok seconds
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------------------------------------------- ----- \
  ------------ ----------- ------------- -------- -------- ---- ----------
for f in "${files[@]}"; do
  name=${f#tests/data/litmus/}
  out=$(nice -n 10 "$bin" run "$f" --memory both --strategy "$strategy" --time-limit "$limit" \
        --max-executions 0 --json 2>/dev/null || true)
  if [ -z "$out" ]; then
    printf '| %-42s | %-3s | %10s |\n' "$name" "-" "error"
    continue
  fi
  python3 - "$name" "$out" <<'PY'
import json, sys
name, out = sys.argv[1], json.loads(sys.argv[2])
for r in out["results"]:
    cut = "" if r["complete"] else "+"
    print("| %-42s | %-3s | %10s | %9d | %-11s | %6d | %6d | %-2s | %8.3f |" % (
        name, r["memory"], str(r["executions"]) + cut, r["classes"], r["equivalence"],
        r["rf_co_classes"], len(r["states"]), "Ok" if r["ok"] else "No", r["elapsed_seconds"]))
PY
done
