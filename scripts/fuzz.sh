#!/usr/bin/env bash
# Runs the libFuzzer targets (fuzz/targets.txt: one per input parser) for a fixed budget
# each, from scratch copies of their seed corpora, and says for every target how many
# inputs it ran and whether one crashed:
#
#   fuzz: litmus_x86: 81234 inputs, 0 crashes
#
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [RUNS]
#   SECONDS_PER_TARGET  -max_total_time of each target (default 20; 0: no time limit)
#   RUNS                -runs of each target instead (from -seed=1 unless ATOMCHECK_FUZZ_SEED
#                       says otherwise); with both, whichever ends first
# environment:
#   ATOMCHECK_FUZZ_BUILD      the build directory holding fuzz/NAME_fuzzer (default build/release);
#                             nothing is built here: cmake --build BUILD --target fuzz_NAME ...
#   ATOMCHECK_FUZZ_TARGETS    the targets to run, space- or comma-separated (default all)
#   ATOMCHECK_FUZZ_JOBS       targets run at once (default: the number of cores)
#   ATOMCHECK_FUZZ_SEED       libFuzzer's -seed (default: 1 with RUNS, else libFuzzer's own)
#   ATOMCHECK_FUZZ_ARTIFACTS  where crashing inputs are kept (default BUILD/fuzz/artifacts)
#
# Exit status: 0 when no target crashed (or the build has no fuzz targets because no
# clang++ links libFuzzer: said in one line); 1 when one crashed, leaked, timed out or ran
# out of memory, with the input's path, the way to reproduce and minimise it, and the end
# of libFuzzer's report; 2 on bad usage or targets that are not built.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=${1:-20}
runs=${2:-}
if ! [[ $seconds =~ ^[0-9]+$ ]] || { [[ -n $runs ]] && ! [[ $runs =~ ^[0-9]+$ ]]; }; then
  echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [RUNS]" >&2
  exit 2
fi
if [[ $seconds == 0 && -z $runs ]]; then
  echo "fuzz.sh: SECONDS_PER_TARGET 0 needs RUNS (no budget at all)" >&2
  exit 2
fi
build=${ATOMCHECK_FUZZ_BUILD:-build/release}
[[ $build == /* ]] || build=$root/$build
fuzzdir=$build/fuzz
artifacts=${ATOMCHECK_FUZZ_ARTIFACTS:-$fuzzdir/artifacts}
[[ $artifacts == /* ]] || artifacts=$root/$artifacts
jobs=${ATOMCHECK_FUZZ_JOBS:-$(nproc)}

if [[ -f $fuzzdir/fuzz_disabled.txt ]]; then
  echo "fuzz: skipped: $(head -n 1 "$fuzzdir/fuzz_disabled.txt")"
  exit 0
fi

# The manifest, filtered by ATOMCHECK_FUZZ_TARGETS.
targets=${ATOMCHECK_FUZZ_TARGETS:-}
want=" ${targets//,/ } "
names=() lines=()
while read -r name rest; do
  [[ -z $name || $name == \#* ]] && continue
  if [[ -n $targets && $want != *" $name "* ]]; then continue; fi
  names+=("$name")
  lines+=("$name $rest")
done < fuzz/targets.txt
if [[ ${#names[@]} == 0 ]]; then
  echo "fuzz.sh: no target named '${ATOMCHECK_FUZZ_TARGETS:-}' in fuzz/targets.txt" >&2
  exit 2
fi
missing=()
for name in "${names[@]}"; do
  [[ -x $fuzzdir/${name}_fuzzer ]] || missing+=("fuzz_$name")
done
if [[ ${#missing[@]} != 0 ]]; then
  echo "fuzz.sh: not built in $build: ${missing[*]}" >&2
  echo "  build them: cmake --build $build --target ${missing[*]}" >&2
  exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/atomcheck-fuzz.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_one NAME MAX_LEN CTEST_RUNS DICT SEED...: fuzzes NAME, leaving its log in
# $tmp/NAME.log and "STATUS INPUTS ARTIFACT" in $tmp/NAME.result.
run_one() {
  local name=$1 max_len=$2 dict=$4
  shift 4
  local corpus=$tmp/$name.corpus art=$artifacts/$name log=$tmp/$name.log
  mkdir -p "$corpus" "$art"
  local pattern f seeds=0
  shopt -s nullglob
  for pattern in "$@"; do
    for f in $pattern; do
      [[ -f $f ]] || continue
      cp "$f" "$corpus/${f//\//_}"  # the path in the name: MP.litmus of X86 and of X86_64 both stay
      seeds=$((seeds + 1))
    done
  done
  shopt -u nullglob
  if [[ $seeds == 0 ]]; then
    echo "error 0 -" > "$tmp/$name.result"
    echo "no seed matches $*" > "$log"
    return
  fi
  local args=(-max_len="$max_len" -dict="$root/fuzz/dict/$dict" -timeout=10 -print_final_stats=1
              -artifact_prefix="$art/")
  if [[ -n $runs ]]; then
    args+=(-runs="$runs" -seed="${ATOMCHECK_FUZZ_SEED:-1}")
  elif [[ -n ${ATOMCHECK_FUZZ_SEED:-} ]]; then
    args+=(-seed="$ATOMCHECK_FUZZ_SEED")
  fi
  [[ $seconds != 0 ]] && args+=(-max_total_time="$seconds")
  local rc=0
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    "$fuzzdir/${name}_fuzzer" "${args[@]}" "$corpus" > "$log" 2>&1 || rc=$?
  local inputs artifact status=ok
  inputs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | tail -n 1 | awk '{print $2}')
  [[ -n $inputs ]] || inputs=$(grep -o '^#[0-9]*' "$log" | tail -n 1 | tr -d '#')
  artifact=$(grep -o 'Test unit written to [^ ]*' "$log" | tail -n 1 | sed 's/^Test unit written to //')
  if [[ -n $artifact || $rc != 0 ]]; then status=crash; fi
  echo "$status ${inputs:-?} ${artifact:--}" > "$tmp/$name.result"
}

t0=$SECONDS
running=0
for line in "${lines[@]}"; do
  # shellcheck disable=SC2086  # the line's fields are words by design
  run_one $line &
  pids+=("$!")
  running=$((running + 1))
  if (( running >= jobs )); then
    wait -n
    running=$((running - 1))
  fi
done
wait
pids=()

failed=0
for name in "${names[@]}"; do
  read -r status inputs artifact < "$tmp/$name.result"
  case $status in
    ok) echo "fuzz: $name: $inputs inputs, 0 crashes" ;;
    crash)
      failed=1
      bin=$fuzzdir/${name}_fuzzer
      if [[ $artifact != - ]]; then
        echo "fuzz: $name: $inputs inputs, 1 crash: $artifact"
        echo "  reproduce: $bin $artifact"
        echo "  minimise:  $bin -minimize_crash=1 -runs=100000 -exact_artifact_path=$artifact.min $artifact"
      else
        echo "fuzz: $name: $inputs inputs, 1 crash (libFuzzer wrote no input; its log follows)"
      fi
      grep -m 1 '^INFO: Seed:' "$tmp/$name.log" | sed 's/^/  /'
      tail -n 60 "$tmp/$name.log" | sed 's/^/  | /'
      ;;
    *)
      failed=1
      echo "fuzz: $name: not run: $(cat "$tmp/$name.log")"
      ;;
  esac
done
echo "fuzz: ${#names[@]} targets in $((SECONDS - t0)) s"
exit $failed
