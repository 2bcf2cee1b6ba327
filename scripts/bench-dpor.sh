#!/usr/bin/env bash
# The classic DPOR benchmarks (models/dpor_benchmarks.cpp) and, under TSO, the litmus and
# mutual-exclusion models, under dfs, dpor and optimal: one
#   atomcheck run MODEL --strategy S --memory M --json --time-limit T --max-executions 0
# per cell, tabled as executions explored ('+': the limit cut the search; '!': the
# reduction does not cover the program's yield()/assume() waits), sleep-set
# blocked ones, rf+co classes, executions per second and seconds. With --baseline, the same
# run of a second binary (e.g. the previous release) adds its executions and seconds.
# Runs one search at a time (nice'd) so it can share a busy machine; prints the load
# average before and after. See usage() or --help.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  cat <<'EOF'
Usage: scripts/bench-dpor.sh [OPTIONS] [ATOMCHECK_BINARY] [SECONDS_PER_RUN] [MODEL...]

Tables executions, sleep-blocked executions, rf+co classes, executions/s and seconds of
`atomcheck run MODEL --strategy S --memory M --json` for every model, strategy and memory
model. A '+' after the executions means the time limit cut the search, a '!' that the
reduction could not cover the program (it waits in yield() or assume(): use dfs).

Options:
  --memory sc|tso|both   memory model(s) to run (default: sc)
  --strategies LIST      comma-separated strategies (default: dfs,dpor,optimal)
  --limit SECONDS        time limit per run (default: 60, or SECONDS_PER_RUN)
  --dfs-limit SECONDS    time limit of the dfs runs (default: the --limit)
  --baseline BIN         also run BIN (e.g. a previous build) per row and add its
                         executions and seconds
  -h, --help             print this help and exit

Positional: ATOMCHECK_BINARY (default build/release/atomcheck), SECONDS_PER_RUN, and the
models (default: the classic benchmarks under SC; under TSO also sb iriw mp tso-peterson
tso-dekker).
EOF
}

die() {
  echo "bench-dpor.sh: $*; see --help" >&2
  exit 2
}

memory=sc
strategies=dfs,dpor,optimal
limit=
dfs_limit=
baseline=
positional=()
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    --memory | --strategies | --limit | --dfs-limit | --baseline)
      [ $# -ge 2 ] || die "$1 needs a value"
      case $1 in
        --memory) memory=$2 ;;
        --strategies) strategies=$2 ;;
        --limit) limit=$2 ;;
        --dfs-limit) dfs_limit=$2 ;;
        --baseline) baseline=$2 ;;
      esac
      shift 2 ;;
    --) shift; positional+=("$@"); break ;;
    -*) die "unknown option '$1'" ;;
    *) positional+=("$1"); shift ;;
  esac
done

bin=${positional[0]:-build/release/atomcheck}
limit=${limit:-${positional[1]:-60}}
dfs_limit=${dfs_limit:-$limit}
models=("${positional[@]:2}")

case $memory in
  sc) memories=(sc) ;;
  tso) memories=(tso) ;;
  both) memories=(sc tso) ;;
  *) die "--memory must be sc, tso or both, not '$memory'" ;;
esac
IFS=, read -r -a strategy_list <<<"$strategies"
for s in "${strategy_list[@]}"; do
  case $s in dfs | dpor | optimal) ;; *) die "unknown strategy '$s' (dfs, dpor, optimal)" ;; esac
done
for t in "$limit" "$dfs_limit"; do
  [[ $t =~ ^[0-9]+([.][0-9]+)?$ ]] || die "time limit must be a number of seconds, not '$t'"
done
[ -x "$bin" ] || die "no atomcheck binary at '$bin'"
[ -z "$baseline" ] || [ -x "$baseline" ] || die "no baseline binary at '$baseline'"
command -v jq >/dev/null || die "jq is required"

classic=(indexer-12 indexer-13 indexer-14 indexer-15 lastzero-5 lastzero-8 lastzero-10
         lastzero-12 readers-8 readers-12 readers-15 filesystem-14 filesystem-16
         filesystem-18 filesystem-20)
tso_default=(sb iriw mp tso-peterson tso-dekker lastzero-5 lastzero-8 lastzero-10 lastzero-12
             readers-8 readers-12 readers-15 indexer-12 indexer-13 indexer-14 indexer-15
             filesystem-14 filesystem-16 filesystem-18 filesystem-20)

# One run; prints "executions<TAB>blocked<TAB>rf+co<TAB>exec/s<TAB>seconds" or "error".
run_one() {
  local b=$1 m=$2 s=$3 mem=$4 t=$5 out
  out=$(nice -n 10 "$b" run "$m" --strategy "$s" --memory "$mem" --time-limit "$t" \
        --max-executions 0 --json 2>/dev/null || true)
  if [ -z "$out" ] || ! jq -e .executions >/dev/null 2>&1 <<<"$out"; then
    echo error
    return
  fi
  jq -r '[(.executions | tostring) +
          (if .complete then "" elif .reduction_incomplete then "!" else "+" end), .sleep_blocked,
          .rf_co_classes, (.executions_per_second // 0), .elapsed_seconds] | @tsv' <<<"$out"
}

echo "load average before: $(cat /proc/loadavg)"
hdr='| %-14s | %-4s | %-8s | %12s | %9s | %10s | %9s | %8s |'
sep='|%s|%s|%s|%s|%s|%s|%s|%s|'
if [ -n "$baseline" ]; then
  printf "$hdr %14s | %9s |\n" model mem strategy executions blocked "rf+co" "exec/s" seconds \
    "base execs" "base s"
  printf "$sep%s|%s|\n" ---------------- ------ ---------- -------------- ----------- \
    ------------ ----------- ---------- ---------------- -----------
else
  printf "$hdr\n" model mem strategy executions blocked "rf+co" "exec/s" seconds
  printf "$sep\n" ---------------- ------ ---------- -------------- ----------- ------------ \
    ----------- ----------
fi
for mem in "${memories[@]}"; do
  list=("${models[@]}")
  if [ ${#list[@]} -eq 0 ]; then
    if [ "$mem" = tso ]; then list=("${tso_default[@]}"); else list=("${classic[@]}"); fi
  fi
  for m in "${list[@]}"; do
    for s in "${strategy_list[@]}"; do
      t=$limit
      [ "$s" = dfs ] && t=$dfs_limit
      row=$(run_one "$bin" "$m" "$s" "$mem" "$t")
      if [ "$row" = error ]; then
        printf '| %-14s | %-4s | %-8s | %12s |\n' "$m" "$mem" "$s" error
        continue
      fi
      IFS=$'\t' read -r ex bl rf rate secs <<<"$row"
      line=$(printf '| %-14s | %-4s | %-8s | %12s | %9s | %10s | %9.0f | %8.3f |' "$m" "$mem" \
             "$s" "$ex" "$bl" "$rf" "$rate" "$secs")
      if [ -n "$baseline" ]; then
        brow=$(run_one "$baseline" "$m" "$s" "$mem" "$t")
        if [ "$brow" = error ]; then
          line+=$(printf ' %14s | %9s |' error -)
        else
          IFS=$'\t' read -r bex _ _ _ bsecs <<<"$brow"
          line+=$(printf ' %14s | %9.3f |' "$bex" "$bsecs")
        fi
      fi
      echo "$line"
    done
  done
done
echo "load average after: $(cat /proc/loadavg)"
