#!/usr/bin/env bash
# atomcheck-mpi (docs/mpi.md): per-rank CPU, executions, messages and bytes of `mpirun -n
# N atomcheck-mpi run MODEL` for N = 1..4, the cost rank 0 pays per execution another rank
# ran (what bounds the speed-up), the projection fitted to it, and the wall time of the
# search with 2 ranks against 1 rank and against two independent one-process runs.
# A rank's work is the CPU of its thread that takes part in the search, from the search's
# start to its end (MPI's start-up and the program's registry left out), less the CPU it
# spent waiting for a message (a spin before it sleeps).
# Usage: bench/mpi_scaling.sh [BUILD] [ROUNDS] [MODELS...]
# (default build/release 5 lastzero-12 readers-15). RUN_ARGS: options for every run, e.g.
# RUN_ARGS="--checker velodrome,aerodrome" (checkers judge where each run ran).
set -euo pipefail
read -r -a extra <<< "${RUN_ARGS:-}"
build=${1:-build/release}
rounds=${2:-5}
shift $(($# < 2 ? $# : 2))
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(lastzero-12 readers-15)
mpi="$build/atomcheck-mpi"
one="$build/atomcheck"
[ -x "$mpi" ] || { echo "mpi_scaling.sh: no atomcheck-mpi in $build (needs MPI: bash scripts/setup.sh, then build)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
elapsed() { python3 -c "import json,sys; print(json.load(sys.stdin)['elapsed_seconds'])"; }

for model in "${models[@]}"; do
  # Per-rank figures, N = 1..4 (oversubscribed past the cores: the CPU each rank spends is
  # what the projection needs, not the wall time).
  for n in 2 3 4; do
    for r in $(seq "$rounds"); do
      ATOMCHECK_MPI_STATS="$tmp/$model.$n.$r" mpirun --oversubscribe -n "$n" "$mpi" run "$model" "${extra[@]}" --quiet > /dev/null
    done
  done
  # Wall of the search (elapsed_seconds: MPI's start-up left out) with 1 and 2 ranks, and
  # two one-process runs at once, alternating so that the VM's speed falls on all three.
  for r in $(seq "$rounds"); do
    mpirun -n 1 "$mpi" run "$model" "${extra[@]}" --json --quiet | elapsed >> "$tmp/w1"
    mpirun -n 2 "$mpi" run "$model" "${extra[@]}" --json --quiet | elapsed >> "$tmp/w2"
    "$one" run "$model" "${extra[@]}" --jobs 1 --json --quiet > "$tmp/a.json" & "$one" run "$model" "${extra[@]}" --jobs 1 --json --quiet > "$tmp/b.json"
    wait
    python3 -c "import json; print(max(json.load(open('$tmp/a.json'))['elapsed_seconds'], json.load(open('$tmp/b.json'))['elapsed_seconds']))" >> "$tmp/wboth"
    "$one" run "$model" "${extra[@]}" --jobs 1 --json --quiet | elapsed >> "$tmp/wone"
    "$one" run "$model" "${extra[@]}" --jobs 2 --json --quiet | elapsed >> "$tmp/wthreads"
  done
  # Instructions per rank (callgrind): the same figures on a machine whose speed moves,
  # deterministic but for which rank explores which unit. "base" is a search of lastzero-2
  # at the same N: MPI's start-up and the program's registry, left out.
  if [ "${MPI_SCALING_INSTRUCTIONS:-1}" = 1 ] && command -v valgrind > /dev/null; then
    cat > "$tmp/cg.sh" <<'SH'
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file="$CG_OUT.$OMPI_COMM_WORLD_RANK" "$@"
SH
    chmod +x "$tmp/cg.sh"
    for n in 1 2 3 4; do
      for what in "$model" lastzero-2; do
        CG_OUT="$tmp/cg.$what.$n" ATOMCHECK_MPI_STATS="$tmp/cgstats.$what.$n" \
          mpirun --oversubscribe -x CG_OUT -n "$n" "$tmp/cg.sh" "$mpi" run "$what" "${extra[@]}" --quiet > /dev/null 2>&1
      done
    done
    python3 - "$tmp" "$model" <<'PY'
import json, sys
tmp, model = sys.argv[1], sys.argv[2]
def ir(what, n, k):
    for line in open(f"{tmp}/cg.{what}.{n}.{k}"):
        if line.startswith("summary:"):
            return int(line.split()[1])
def stats(what, n):
    return {j["rank"]: j for j in map(json.loads, open(f"{tmp}/cgstats.{what}.{n}"))}
total = json.load(open(f"{tmp}/a.json"))["executions"]
per_exec = (ir(model, 1, 0) - ir("lastzero-2", 1, 0)) / total
print(f"{model}, instructions (callgrind): one rank {per_exec:,.0f} per execution")
points = []
for n in (2, 3, 4):
    st = stats(model, n)
    remote = sum(st[k]["executions"] for k in range(1, n))
    own = total - remote
    work0 = ir(model, n, 0) - ir("lastzero-2", n, 0)
    take = (work0 - own * per_exec) / remote
    points.append((remote, work0 - own * per_exec))
    others = [(ir(model, n, k) - ir("lastzero-2", n, k)) / max(st[k]["executions"], 1) for k in range(1, n)]
    units, over = st[0].get("units", 0), st[0].get("taken_over", 0)
    print(f"  N={n}: rank 0 ran {own}, the others {remote} in {units} units ({over} taken over); rank 0 {take:,.0f} "
          f"per execution another rank ran ({take / per_exec:.3f} of running one; {take * remote / max(units, 1) / per_exec:.1f} "
          f"executions' worth per unit); the others {', '.join(f'{o:,.0f}' for o in others)} per execution")
take = sum(x * y for x, y in points) / sum(x * x for x, _ in points)
print(f"  fitted: rank 0 pays {take / per_exec:.3f} of an execution for each execution another rank runs; "
      f"the others' runs fill rank 0 at N = {1 + per_exec / max(take, 1):.1f} ranks")
PY
  fi
  python3 - "$tmp" "$model" "$rounds" <<'PY'
import json, statistics, sys
tmp, model, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
med = statistics.median
total = json.load(open(f"{tmp}/a.json"))["executions"]
# One process, one thread: its search's wall time is its CPU.
per_exec = med(map(float, open(f"{tmp}/wone"))) / total
print(f"{model}: {total} executions; one process {per_exec * 1e6:.2f} us per execution")
print(f"{'N':>2} {'rank':>4} {'work s':>7} {'waiting':>7} {'executions':>10} {'us/exec':>7} {'messages':>8} {'bytes':>10} {'bytes/exec':>10}")
points = []  # (executions the other ranks ran, rank 0's work less its own executions)
for n in (2, 3, 4):
    runs = [{j["rank"]: j for j in map(json.loads, open(f"{tmp}/{model}.{n}.{r}"))} for r in range(1, rounds + 1)]
    for s in runs:
        remote = sum(s[k]["executions"] for k in range(1, n))
        points.append((remote, s[0]["search_cpu_seconds"] - s[0]["wait_cpu_seconds"] - (total - remote) * per_exec))
    for k in range(n):
        work = med(s[k]["search_cpu_seconds"] - s[k]["wait_cpu_seconds"] for s in runs)
        wait = med(s[k]["wait_cpu_seconds"] for s in runs)
        ex = med((s[k]["executions"] if k else total - sum(s[j]["executions"] for j in range(1, n))) for s in runs)
        msg = med(s[k]["messages"] for s in runs)
        by = med(s[k]["bytes"] for s in runs)
        print(f"{n:>2} {k:>4} {work:7.3f} {wait:7.3f} {ex:>10.0f} {work / max(ex, 1) * 1e6:7.2f} {msg:>8.0f} {by:>10.0f} {by / max(ex, 1):>10.1f}")
# Rank 0's cost per execution another rank ran: least squares through the origin.
take = max(sum(x * y for x, y in points) / sum(x * x for x, _ in points), 1e-9)
print(f"rank 0 pays {take * 1e6:.2f} us per execution another rank ran ({take / per_exec:.3f} of running it); "
      f"fitted on N = 2..4, {len(points)} runs")
print(f"projection: the others' runs fill rank 0's core at N = {1 + per_exec / take:.0f} ranks "
      f"(1 + {per_exec * 1e6:.2f} / {take * 1e6:.2f}); at N = 32 they would need {31 * take / per_exec:.2f} of it")
w1 = med(map(float, open(f"{tmp}/w1"))); w2 = med(map(float, open(f"{tmp}/w2")))
wone = med(map(float, open(f"{tmp}/wone"))); wboth = med(map(float, open(f"{tmp}/wboth")))
wthreads = med(map(float, open(f"{tmp}/wthreads")))
print(f"search wall: 1 rank {w1 * 1e3:.0f} ms, 2 ranks {w2 * 1e3:.0f} ms: 2 ranks / 1 rank {w2 / w1:.3f}; "
      f"--jobs 2 / --jobs 1 (threads) {wthreads / wone:.3f}; ceiling (two one-process runs at once) "
      f"{wboth / (2 * wone):.3f}; medians of {rounds}")
PY
  rm -f "$tmp/w1" "$tmp/w2" "$tmp/wone" "$tmp/wboth" "$tmp/wthreads"
done
