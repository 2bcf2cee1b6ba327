#!/bin/sh
# Validates RAPID's AeroDrome and Velodrome (Mathur et al.'s Java tool) as external
# checkers: `atomcheck validate --external` on models of the library (and, with
# RAPID_CORPUS, on a directory of trace files), each execution's trace given to RAPID in
# STD and judged by the oracle; prints the confusion matrices and keeps the minimised
# disagreements (--minimise) under OUT_DIR.
#
#   RAPID_JAR=/path/to/rapid.jar bench/rapid_validate.sh [BUILD_DIR]
#
# RAPID is found through RAPID_CP, else RAPID_JAR, else RAPID_HOME ("$RAPID_HOME/bin:
# $RAPID_HOME/lib/*"), and run per trace as
#   $JAVA $RAPID_JAVA_OPTS -classpath "$RAPID_CP" CLASS -f=std -p=TRACE
# with CLASS RAPID_AERODROME (default AeroDrome) and RAPID_VELODROME (Velodrome); its
# answer is read from its output: a line matching RAPID_VIOLATION (default
# '^Atomicity violation detected') is a violation. Check the class names and the message against your
# RAPID build: both have changed between versions. Other knobs: RAPID_MODELS (the models),
# RAPID_STRATEGY (default optimal: one execution per class), RAPID_TIME_LIMIT (seconds per
# model, default 120), RAPID_TIMEOUT (seconds per trace, default 60), OUT_DIR.
# Without RAPID the script says so and exits 0.
set -eu
BUILD=${1:-build}
BIN=$BUILD/atomcheck
if [ -z "${RAPID_HOME:-}${RAPID_JAR:-}${RAPID_CP:-}" ]; then
  echo "rapid_validate: RAPID is not installed here (set RAPID_JAR, RAPID_HOME or RAPID_CP); nothing to validate"
  exit 0
fi
JAVA=${JAVA:-java}
if ! command -v "$JAVA" > /dev/null 2>&1; then
  echo "rapid_validate: no Java ($JAVA) to run RAPID with; nothing to validate"
  exit 0
fi
RAPID_CP=${RAPID_CP:-${RAPID_JAR:-"$RAPID_HOME/bin:$RAPID_HOME/lib/*"}}
RAPID_AERODROME=${RAPID_AERODROME:-AeroDrome}
RAPID_VELODROME=${RAPID_VELODROME:-Velodrome}
RAPID_JAVA_OPTS=${RAPID_JAVA_OPTS:-"-Xmx2g"}
RAPID_VIOLATION=${RAPID_VIOLATION:-"^Atomicity violation detected"}
RAPID_MODELS=${RAPID_MODELS:-"lost-update locked-counter bank-locked bank-check-then-lock bank-split-locks
  map-check-then-act map-check-then-act-locked ws-setxy ws-setxy-locked hammer-account-unlocked seqlock
  treiber-stack treiber-stack-racy-push dcl-init"}
RAPID_STRATEGY=${RAPID_STRATEGY:-optimal}
OUT_DIR=${OUT_DIR:-rapid-validate}
mkdir -p "$OUT_DIR"

# The shell quoting of RAPID_CP (it holds '*') inside the command /bin/sh -c runs.
run="$JAVA $RAPID_JAVA_OPTS -classpath '$RAPID_CP'"
set -- --external "rapid-aerodrome=$run $RAPID_AERODROME -f=std -p={trace}" \
       --external "rapid-velodrome=$run $RAPID_VELODROME -f=std -p={trace}" \
       --external-violation "$RAPID_VIOLATION" --external-timeout "${RAPID_TIMEOUT:-60}" --minimise

status=0
for model in $RAPID_MODELS; do
  echo "=== $model"
  rc=0
  "$BIN" validate "$model" --strategy "$RAPID_STRATEGY" --time-limit "${RAPID_TIME_LIMIT:-120}" --quiet \
    --external-dir "$OUT_DIR/$model" "$@" || rc=$?
  [ "$rc" -le 3 ] || status=$rc
  [ "$rc" = 2 ] && status=2
done
if [ -n "${RAPID_CORPUS:-}" ]; then
  echo "=== corpus $RAPID_CORPUS"
  rc=0
  "$BIN" validate --traces "$RAPID_CORPUS" --quiet --external-dir "$OUT_DIR/corpus" "$@" || rc=$?
  [ "$rc" = 2 ] && status=2
fi
echo "rapid_validate: minimised disagreements and the inputs of errors are kept under $OUT_DIR"
exit $status
