# Sourced by the bench scripts that time whole atomcheck runs.
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
wall_ms() {  # wall time of a command in ms, its output discarded
  local t0 t1
  t0=$(date +%s%N)
  "$@" >/dev/null 2>&1 || true
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}
# Medians of $runs alternating runs of the two commands: "T1 TN" (ms), so a change in
# this VM's speed (large, and over minutes) falls on both alike. The commands are the
# arguments before and after a lone "--".
alternate() {
  local one=() many=() seen=0 a
  for a in "$@"; do
    if [ "$a" = "--" ]; then seen=1; elif [ $seen = 0 ]; then one+=("$a"); else many+=("$a"); fi
  done
  local f1 fn
  f1=$(mktemp) fn=$(mktemp)
  for _ in $(seq "$runs"); do
    wall_ms "${one[@]}" >>"$f1"
    wall_ms "${many[@]}" >>"$fn"
  done
  echo "$(median <"$f1") $(median <"$fn")"
  rm -f "$f1" "$fn"
}
# B / A, to three places (0 when A is 0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", (a > 0 ? b / a : 0)}'; }
# The 12 checkers that are not exponential, for timing validate (the trace TSO deciders
# and ws-block are left out: one slow execution would decide the wall time).
poly_checkers=regiontrack-blame,regiontrack,regiontrack-fixed,aerodrome,aerodrome-opt,aerodrome-fixed
poly_checkers=$poly_checkers,aerodrome-opt-fixed,velodrome,atomic-set,tso-monitor,ws-reduction-4.3,ws-reduction-4.4
# The fields of --json output that are times (grep -E): all that may differ between runs.
timing_fields='"(seconds|time_share|checker_seconds|elapsed_seconds)"'
# Peak resident set (KiB) and wall time (ms) of a command, its output discarded: "KIB MS".
# GNU time's %M is the process's ru_maxrss, all threads included.
peak_rss() {
  local f
  f=$(mktemp)
  /usr/bin/time -f '%M %e' -o "$f" "$@" >/dev/null 2>&1 || true
  awk '{printf "%d %d\n", $1, $2 * 1000}' "$f"
  rm -f "$f"
}
