#!/bin/sh
# trace-tso-z3 against trace length (issue 39, part 3): random x86-TSO traces from
# bench/gen_tso_program_trace (4 threads, 8 variables, unary transactions, 3% RMWs) of about
# 10^2, 10^3 and 10^4 events, with frequent fences (30% of operations) and with fewer
# (15%), three seeds each; the median CPU time (user+sys: Z3 is single-threaded, so
# it does not depend on the machine's other load the way wall time does) of
# `atomcheck check-trace --checker trace-tso-z3`, and, when OLD is given, of the same
# files through a previous build, with the ratio old/new.
#
#   bench/trace_tso_z3_scaling.sh [BUILD_DIR]        (default build)
#   NEW=/path/to/atomcheck   instead of BUILD_DIR/atomcheck
#   OLD=/path/to/old/atomcheck   the build to compare with (e.g. the base commit's)
#   OLD_SIZES="100 1000"   sizes the old build runs at (its 10^4 runs take minutes of
#                          wall time whatever the limit: it builds a quadratic graph first)
#   SIZES="100 1000 10000"  FENCES="300 150"  SEEDS="1 2 3"
#   LIMIT=120    seconds per run (--time-limit); a run cut there counts as > LIMIT
#
# Prints one line per (fences, size): events, verdicts, median seconds, old/new.
set -eu
BUILD=${1:-build}
BIN=${NEW:-$BUILD/atomcheck}
GEN=$BUILD/bench/gen_tso_program_trace
SIZES=${SIZES:-"100 1000 10000"}
FENCES=${FENCES:-"300 150"}
OLD_SIZES=${OLD_SIZES:-$SIZES}
SEEDS=${SEEDS:-"1 2 3"}
LIMIT=${LIMIT:-120}
OLD=${OLD:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for f in "$BIN" "$GEN"; do
  [ -x "$f" ] || { echo "missing $f (ninja -C $BUILD atomcheck gen_tso_program_trace)" >&2; exit 2; }
done

# "cpu_seconds verdict" of one run: verdict ok (exit 0), bad (1), cut (3: undecided).
run() {
  rc=0
  /usr/bin/time -f "%U %S" -o "$TMP/time" "$1" check-trace "$2" --checker trace-tso-z3 \
    --time-limit "$LIMIT" >/dev/null 2>&1 || rc=$?
  cpu=$(tail -n 1 "$TMP/time" | awk '{printf "%.3f", $1 + $2}')
  case $rc in 0) v=ok ;; 1) v=bad ;; 3) v=cut ;; *) v=err$rc ;; esac
  echo "$cpu $v"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf "%7s %7s %7s  %-14s %9s  %-14s %9s %9s\n" fences events actual new_verdicts new_s old_verdicts old_s old/new
for fence in $FENCES; do
  for n in $SIZES; do
    : >"$TMP/new" ; : >"$TMP/old"; nv=""; ov=""; actual=0
    for seed in $SEEDS; do
      f=$TMP/t$fence.$n.$seed.jsonl
      "$GEN" --events="$n" --fence-permille="$fence" --seed="$seed" >"$f"
      actual=$(wc -l <"$f")
      set -- $(run "$BIN" "$f"); echo "$1" >>"$TMP/new"; nv="$nv${nv:+,}$2"
      if [ -n "$OLD" ] && echo " $OLD_SIZES " | grep -q " $n "; then
        set -- $(run "$OLD" "$f"); echo "$1" >>"$TMP/old"; ov="$ov${ov:+,}$2"
      fi
    done
    new_s=$(median <"$TMP/new")
    if [ -s "$TMP/old" ]; then
      old_s=$(median <"$TMP/old")
      r=$(awk -v a="$new_s" -v b="$old_s" 'BEGIN {printf "%.1f", (a > 0 ? b / a : 0)}')
    else
      old_s=- r=- ov=-
    fi
    printf "%7s %7s %7s  %-14s %9s  %-14s %9s %9s\n" "$fence" "$n" "$actual" "$nv" "$new_s" "$ov" "$old_s" "$r"
  done
done
echo "# cut: undecided at --time-limit $LIMIT (its time is a lower bound, so old/new is too)"
