#!/usr/bin/env bash
# atomcheck-mpi against atomcheck (docs/mpi.md): `mpirun -n 3 --oversubscribe` must print
# the one-process summary, resume what it saved, and survive a killed rank through its
# checkpoint. Usage: test_mpi.sh BUILD_DIR CASE (CTest runs each case as Mpi.CASE).
set -uo pipefail
build=$1
case=$2
here=$(cd "$(dirname "$0")" && pwd)
one=$build/atomcheck
mpi=$build/atomcheck-mpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's shared-memory transport wants a writable session directory and no warnings
# about the VM's missing InfiniBand.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ranks=3
launch() { timeout 300 mpirun --oversubscribe -n "$ranks" "$mpi" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs `atomcheck ARGS --jobs 1` and `mpirun -n 3 atomcheck-mpi ARGS`: same exit code and
# the same normalised summary. ONE_EXTRA: options for the one-process side only.
same() {
  local one_extra=$1
  shift
  "$one" "$@" $one_extra --json --quiet > "$tmp/one.out" 2> "$tmp/one.err"
  local c1=$?
  launch "$@" --json --quiet > "$tmp/mpi.out" 2> "$tmp/mpi.err"
  local c2=$?
  [ "$c1" = "$c2" ] || { cat "$tmp/mpi.err" >&2; fail "exit $c2 under MPI, $c1 in one process: $*"; }
  python3 "$here/normalise.py" < "$tmp/one.out" > "$tmp/one.json" || fail "one process: $(cat "$tmp/one.err")"
  python3 "$here/normalise.py" < "$tmp/mpi.out" > "$tmp/mpi.json" || fail "MPI: $(cat "$tmp/mpi.err")"
  diff "$tmp/one.json" "$tmp/mpi.json" >&2 || fail "summaries differ: $*"
  echo "same summary: $*"
}

# The executions the other ranks ran: more than none, or the test proves nothing.
shared() {
  ATOMCHECK_MPI_STATS=$tmp/stats launch "$@" --quiet > /dev/null 2>&1
  local others
  others=$(python3 -c "import json,sys; print(sum(json.loads(l)['executions'] for l in open(sys.argv[1]) if json.loads(l)['rank'] > 0))" "$tmp/stats")
  [ "$others" -gt 0 ] || fail "the other ranks ran no execution of: $*"
  echo "other ranks ran $others executions of: $*"
}

# The counts a resumed search must end with: executions, classes, completed, failed, how it ended.
counts() { python3 -c "import json,sys; j=json.load(sys.stdin); print(j['executions'], j['classes'], j['completed'], j['failed'], j['stop'], j['exhausted'])"; }
# The counts of a --json summary on stdin, or the test fails here.
# A checkpoint to go on from, not a finished search's: else the test proves nothing.
unfinished() {
  python3 -c "import json,sys; sys.exit(0 if not json.load(open(sys.argv[1]))['body']['state']['finished'] else 1)" "$1" ||
    fail "the search ended before it was stopped; $2"
}
counts_of() {
  local c
  c=$(counts) || fail "no summary: $1"
  [ -n "$c" ] || fail "no summary: $1"
  echo "$c"
}

poly=regiontrack-blame,regiontrack,regiontrack-fixed,aerodrome,aerodrome-opt,aerodrome-fixed,aerodrome-opt-fixed,velodrome,atomic-set,tso-monitor,ws-reduction-4.3,ws-reduction-4.4

case $case in
  run)
    same "--jobs 1" run lastzero-10
    same "--jobs 1" run readers-8 --memory tso
    same "--jobs 1" run treiber-stack-racy-push
    same "--jobs 1" run ms-queue-racy-link --memory tso
    same "--jobs 1" run lastzero-8 --checker velodrome,aerodrome
    same "--jobs 1" run lastzero-12 --max-executions 5000
    shared run lastzero-10
    # Every rank with 2 threads: 5 unit threads beside rank 0's search.
    same "" run readers-8 --memory tso --jobs 2
    shared run lastzero-10 --jobs 2
    # rc11: TruSt's work items travel as units.
    same "--jobs 1" run lastzero-10 --memory rc11
    same "--jobs 1" run hp-stack-unvalidated --memory rc11 --checker velodrome
    shared run lastzero-12 --memory rc11
    ;;
  validate)
    same "--jobs 1" validate lastzero-8 --strategy optimal --memory both --checker "$poly"
    same "--jobs 1" validate treiber-stack-racy-push --strategy optimal --memory both --checker "$poly"
    shared validate lastzero-8 --strategy optimal --checker "$poly"
    ;;
  samples)
    # rank k runs searches k*jobs.. of the split: 3 ranks of one job are `--jobs 3`.
    same "--jobs 3" run lastzero-8 --strategy random --max-executions 600 --seed 7
    same "--jobs 3" run treiber-stack-racy-push --strategy pct --max-executions 400 --memory tso
    same "--jobs 3" run lastzero-8 --strategy random --max-executions 600 --seed 7 --checker velodrome,aerodrome
    shared run lastzero-8 --strategy random --max-executions 600
    shared run lastzero-8 --strategy pct --max-executions 600 --checker velodrome
    ;;
  checkpoint)
    full=$("$one" run lastzero-12 --json --quiet | counts_of "lastzero-12") || exit 1
    # The issue's command (a fast machine may finish within 0.1 s: then the checkpoint is
    # a finished one and resumes to the same counts), then a stop that always falls inside.
    launch run lastzero-12 --time-limit 0.1 --checkpoint "$tmp/f" --quiet > /dev/null 2> "$tmp/err"
    [ -s "$tmp/f" ] || fail "no checkpoint written: $(cat "$tmp/err")"
    got=$(launch run lastzero-12 --resume "$tmp/f" --json --quiet | counts_of "resumed under MPI") || exit 1
    [ "$got" = "$full" ] || fail "resumed under MPI: $got, uninterrupted: $full"
    launch run lastzero-12 --max-executions 7000 --checkpoint "$tmp/h" --quiet > /dev/null 2>&1
    unfinished "$tmp/h" "--max-executions 7000"
    got=$(launch run lastzero-12 --resume "$tmp/h" --json --quiet | counts_of "resumed a budget stop under MPI") || exit 1
    [ "$got" = "$full" ] || fail "a budget stop resumed under MPI: $got, uninterrupted: $full"
    launch run lastzero-12 --max-executions 9000 --checkpoint "$tmp/g" --quiet > /dev/null 2>&1
    unfinished "$tmp/g" "--max-executions 9000"
    got=$("$one" run lastzero-12 --resume "$tmp/g" --json --quiet | counts_of "resumed in one process") || exit 1
    [ "$got" = "$full" ] || fail "resumed in one process: $got, uninterrupted: $full"
    launch run lastzero-10 --resume "$tmp/g" --quiet > /dev/null 2> "$tmp/err"
    code=$?
    [ "$code" = 2 ] || fail "a checkpoint of another program: exit $code"
    grep -q "lastzero-12" "$tmp/err" || fail "the refusal does not name the checkpoint's program: $(cat "$tmp/err")"
    echo "checkpoint and resume: $full"
    ;;
  kill)
    # A rank killed mid-search: mpirun ends the job, and the last periodic checkpoint
    # resumes to the uninterrupted counts.
    full=$("$one" run lastzero-15 --json --quiet | counts_of "lastzero-15") || exit 1
    launch run lastzero-15 --checkpoint "$tmp/f" --checkpoint-every 0.05 --quiet > /dev/null 2>&1 &
    job=$!
    for _ in $(seq 100); do [ -s "$tmp/f" ] && break; sleep 0.05; done
    [ -s "$tmp/f" ] || fail "no periodic checkpoint"
    victim=""
    for p in $(pgrep -f "atomcheck-mpi run lastzero-15"); do
      if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=1"; then victim=$p; fi
    done
    [ -n "$victim" ] || fail "rank 1 not found"
    kill -KILL "$victim"
    wait "$job"
    code=$?
    [ "$code" != 0 ] || echo "note: the search ended before the kill took effect"
    unfinished "$tmp/f" "the kill came too late"
    got=$("$one" run lastzero-15 --resume "$tmp/f" --json --quiet | counts_of "resumed after a killed rank") || exit 1
    [ "$got" = "$full" ] || fail "resumed after a killed rank: $got, uninterrupted: $full"
    echo "killed rank 1 (exit $code); resumed: $got"
    ;;
  sigterm)
    # A batch system's pre-emption: mpirun passes SIGTERM to every rank; rank 0 saves.
    full=$("$one" run lastzero-15 --json --quiet | counts_of "lastzero-15") || exit 1
    launch run lastzero-15 --checkpoint "$tmp/f" --checkpoint-every 0.05 --quiet > /dev/null 2> "$tmp/err" &
    job=$!
    for _ in $(seq 200); do [ -s "$tmp/f" ] && break; sleep 0.05; done
    pkill -TERM -f "^mpirun --oversubscribe -n $ranks $mpi run lastzero-15" || true
    wait "$job"
    [ -s "$tmp/f" ] || fail "SIGTERM left no checkpoint: $(cat "$tmp/err")"
    unfinished "$tmp/f" "SIGTERM came too late"
    got=$(launch run lastzero-15 --resume "$tmp/f" --json --quiet | counts_of "resumed after SIGTERM") || exit 1
    [ "$got" = "$full" ] || fail "resumed after SIGTERM: $got, uninterrupted: $full"
    echo "SIGTERM; resumed: $got"
    ;;
  input)
    launch run no-such-model > "$tmp/out" 2> "$tmp/err"
    code=$?
    [ "$code" = 2 ] || fail "an unknown program: exit $code"
    n=$(grep -c "no-such-model" "$tmp/err")
    [ "$n" = 1 ] || fail "the error should be said once, by rank 0: $(cat "$tmp/err")"
    launch list > "$tmp/out" 2> "$tmp/err" || fail "list: $(cat "$tmp/err")"
    [ "$(grep -c '^ *lastzero-10 ' "$tmp/out")" = 1 ] || fail "list printed once: $(head "$tmp/out")"
    launch run lastzero-3 --jobs 0 > /dev/null 2> "$tmp/err"
    [ $? = 2 ] || fail "--jobs 0 accepted"
    echo "bad input: one line, exit 2; other commands run on rank 0"
    ;;
  *) fail "no case $case" ;;
esac
