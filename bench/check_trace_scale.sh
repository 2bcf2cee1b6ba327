#!/bin/sh
# End-to-end `atomcheck check-trace` at growing trace sizes (issue 23): events/s and peak
# RSS, the trace piped from bench/gen_std_trace (so 10^9 events never touch the disk),
# and optionally the same files through a previous build, median of 3.
#
#   bench/check_trace_scale.sh [BUILD_DIR]          (default build/release)
#   SIZES="1000000 10000000 100000000"  trace sizes piped through `check-trace -`
#   CHECKERS=aerodrome-opt-fixed,velodrome,regiontrack-fixed   one run, shared parse
#   OLD=/path/to/atomcheck   also time OLD and the new build on files of OLD_SIZES
#   OLD_SIZES="1000000 5000000"   (written to $TMPDIR, deleted afterwards)
#   OLD_CHECKERS="aerodrome-opt-fixed velodrome regiontrack-fixed"  one run each
#
# Wall time depends on the machine's load: the figures are CPU (user+sys) and wall,
# and the ratio that matters is taken between runs on the same file, median of 3.
set -eu
BUILD=${1:-build/release}
BIN=$BUILD/atomcheck
GEN=$BUILD/bench/gen_std_trace
SIZES=${SIZES:-"1000000 10000000 100000000"}
CHECKERS=${CHECKERS:-aerodrome-opt-fixed,velodrome,regiontrack-fixed}
TMP=${TMPDIR:-/tmp}
for f in "$BIN" "$GEN"; do
  [ -x "$f" ] || { echo "missing $f (cmake --build $BUILD --target atomcheck gen_std_trace)" >&2; exit 2; }
done

# Prints "wall user sys maxrss_kb" of one command (GNU time).
measure() {
  /usr/bin/time -f "%e %U %S %M" -o "$TMP/ct_time.$$" "$@" > "$TMP/ct_out.$$" || rc=$?
  cat "$TMP/ct_time.$$"
}
median3() { sort -n | sed -n 2p; }

echo "# check-trace - --checker $CHECKERS (generator piped in)"
printf "%12s %9s %9s %12s %10s\n" events wall_s cpu_s Mevents/s peak_MB
for n in $SIZES; do
  set -- $(measure sh -c "$GEN --events=$n | $BIN check-trace - --checker $CHECKERS")
  # The pipe's CPU includes the generator; peak RSS is the largest process (check-trace).
  awk -v n="$n" -v w="$1" -v u="$2" -v s="$3" -v m="$4" \
    'BEGIN { printf "%12d %9.2f %9.2f %12.1f %10.1f\n", n, w, u + s, n / w / 1e6, m / 1024 }'
done

if [ -n "${OLD:-}" ]; then
  OLD_SIZES=${OLD_SIZES:-"1000000 5000000"}
  OLD_CHECKERS=${OLD_CHECKERS:-"aerodrome-opt-fixed velodrome regiontrack-fixed"}
  echo
  echo "# same file, previous build vs this one, median of 3 (wall s, cpu s, peak MB)"
  printf "%10s %-20s %8s %8s %8s   %8s %8s %8s %7s\n" events checker old_wall old_cpu old_MB \
    new_wall new_cpu new_MB new/old
  for n in $OLD_SIZES; do
    file=$TMP/ct_scale_$n.std
    "$GEN" --events="$n" > "$file"
    for c in $OLD_CHECKERS; do
      # Interleaved (old, new, old, new, ...) so both see the same load.
      : > "$TMP/ct_runs_old.$$"
      : > "$TMP/ct_runs_new.$$"
      for i in 1 2 3; do
        measure "$OLD" check-trace "$file" --checker "$c" >> "$TMP/ct_runs_old.$$"
        measure "$BIN" check-trace "$file" --checker "$c" >> "$TMP/ct_runs_new.$$"
      done
      for which in old new; do
        runs=$TMP/ct_runs_$which.$$
        w=$(cut -d' ' -f1 "$runs" | median3)
        u=$(awk '{ print $2 + $3 }' "$runs" | median3)
        m=$(cut -d' ' -f4 "$runs" | median3)
        eval "${which}_w=$w ${which}_u=$u ${which}_m=$m"
      done
      awk -v n="$n" -v c="$c" -v ow="$old_w" -v ou="$old_u" -v om="$old_m" -v nw="$new_w" \
        -v nu="$new_u" -v nm="$new_m" \
        'BEGIN { printf "%10d %-20s %8.2f %8.2f %8.1f   %8.2f %8.2f %8.1f %7.2f\n", n, c, ow, ou, om / 1024, nw, nu, nm / 1024, nw / ow }'
    done
    rm -f "$file"
  done
fi
rm -f "$TMP/ct_time.$$" "$TMP/ct_out.$$" "$TMP/ct_runs_old.$$" "$TMP/ct_runs_new.$$"
