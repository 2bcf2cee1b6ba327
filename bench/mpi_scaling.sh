#!/usr/bin/env bash
# atomcheck-mpi (docs/mpi.md): per-rank CPU, executions, messages and bytes of `mpirun -n
# N atomcheck-mpi run MODEL` for N = 1..4, the cost rank 0 pays per execution another rank
# ran (what bounds the speed-up), the projection fitted to it, and the wall time of the
# search with 2 ranks against 1 rank and against two independent one-process runs.
# Usage: bench/mpi_scaling.sh [BUILD] [ROUNDS] [MODELS...]
# (default build/release 5 lastzero-12 readers-15)
set -euo pipefail
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
  for n in 1 2 3 4; do
    for r in $(seq "$rounds"); do
      ATOMCHECK_MPI_STATS="$tmp/$model.$n.$r" mpirun --oversubscribe -n "$n" "$mpi" run "$model" --quiet > /dev/null
      # The fixed cost of a rank (MPI's start, the program's registry): a search of one execution.
      ATOMCHECK_MPI_STATS="$tmp/base.$n.$r" mpirun --oversubscribe -n "$n" "$mpi" run lastzero-2 --max-executions 1 --quiet > /dev/null || true
    done
  done
  # CPU per execution in one process (the work a rank does per execution it runs).
  for r in $(seq "$rounds"); do
    /usr/bin/time -f "%U %S" -o "$tmp/one.$r" "$one" run "$model" --jobs 1 --json --quiet > "$tmp/one.json.$r"
  done
  # Wall of the search (elapsed_seconds: MPI's start-up left out) with 1 and 2 ranks, and
  # two one-process runs at once, alternating so that the VM's speed falls on all three.
  for r in $(seq "$rounds"); do
    mpirun -n 1 "$mpi" run "$model" --json --quiet | elapsed >> "$tmp/w1"
    mpirun -n 2 "$mpi" run "$model" --json --quiet | elapsed >> "$tmp/w2"
    "$one" run "$model" --jobs 1 --json --quiet > "$tmp/a.json" & "$one" run "$model" --jobs 1 --json --quiet > "$tmp/b.json"
    wait
    python3 -c "import json; print(max(json.load(open('$tmp/a.json'))['elapsed_seconds'], json.load(open('$tmp/b.json'))['elapsed_seconds']))" >> "$tmp/wboth"
    "$one" run "$model" --jobs 1 --json --quiet | elapsed >> "$tmp/wone"
  done
  python3 - "$tmp" "$model" "$rounds" <<'PY'
import json, statistics, sys
tmp, model, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
med = statistics.median
def stats(prefix, n):
    runs = []
    for r in range(1, rounds + 1):
        runs.append({j["rank"]: j for j in map(json.loads, open(f"{tmp}/{prefix}.{n}.{r}"))})
    return runs
one_cpu = med(sum(map(float, open(f"{tmp}/one.{r}").read().split())) for r in range(1, rounds + 1))
total = json.load(open(f"{tmp}/one.json.1"))["executions"]
base1 = med(s[0]["cpu_seconds"] for s in stats("base", 1))
per_exec = (one_cpu - base1) / total  # CPU per execution of a rank that runs them
print(f"{model}: {total} executions; one process {per_exec * 1e6:.2f} us CPU per execution")
print(f"{'N':>2} {'rank':>4} {'CPU s':>7} {'executions':>10} {'messages':>8} {'bytes':>10} {'bytes/exec':>10}")
points = []  # (executions other ranks ran, rank 0's CPU above its fixed cost and its own runs)
for n in (1, 2, 3, 4):
    runs, base = stats(model, n), stats("base", n)
    b0 = med(s[0]["cpu_seconds"] for s in base)
    for k in range(n):
        cpu = med(s[k]["cpu_seconds"] for s in runs)
        ex = med(s[k]["executions"] for s in runs)
        msg = med(s[k]["messages"] for s in runs)
        by = med(s[k]["bytes"] for s in runs)
        shown = ex if k else "-"
        print(f"{n:>2} {k:>4} {cpu:7.3f} {shown!s:>10} {msg:>8.0f} {by:>10.0f} {by / max(ex, 1) if k else 0:>10.1f}")
    if n > 1:
        for s in runs:
            remote = sum(s[k]["executions"] for k in range(1, n))
            own = total - remote
            points.append((remote, s[0]["cpu_seconds"] - b0 - own * per_exec))
# Rank 0's cost per execution another rank ran: least squares through the origin.
take = sum(x * y for x, y in points) / sum(x * x for x, _ in points)
print(f"rank 0 pays {take * 1e6:.2f} us per execution another rank ran "
      f"({take / per_exec:.3f} of running it); fitted on N = 2..4, {len(points)} runs")
if take > 0:
    nmax = 1 + per_exec / take
    print(f"projection: rank 0 stops being the bottleneck's bound at N = {nmax:.0f} ranks "
          f"(1 + {per_exec * 1e6:.2f} / {take * 1e6:.2f}); at N = 32 rank 0 would need "
          f"{31 * take / per_exec:.2f} of its core for the others' runs")
w1 = med(map(float, open(f"{tmp}/w1"))); w2 = med(map(float, open(f"{tmp}/w2")))
wone = med(map(float, open(f"{tmp}/wone"))); wboth = med(map(float, open(f"{tmp}/wboth")))
print(f"search wall: 1 rank {w1 * 1e3:.0f} ms, 2 ranks {w2 * 1e3:.0f} ms: 2 ranks / 1 rank {w2 / w1:.3f}; "
      f"ceiling (two one-process runs at once) {wboth / (2 * wone):.3f}; medians of {rounds}")
PY
  rm -f "$tmp/w1" "$tmp/w2" "$tmp/wone" "$tmp/wboth"
done
