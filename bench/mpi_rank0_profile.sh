#!/usr/bin/env bash
# atomcheck-mpi (docs/mpi.md, "Where rank 0's work goes"): where rank 0's instructions go
# in `mpirun -n N atomcheck-mpi run MODEL`, by the parts of its work on other ranks'
# units, from callgrind's inclusive counts on rank 0, per execution another rank ran and
# as a fraction of one execution in one process. It splits what any search that keeps
# the wakeup trees above the units on one rank pays (carving and sending units, joining
# their insertions) from what the one-process order adds (taking each run in order,
# comparing the records of the units' ends, taking over the units it reaches).
# Usage: bench/mpi_rank0_profile.sh [BUILD] [N] [MODELS...]  (default build/release 4
# lastzero-12 readers-15). Needs valgrind; minutes per model.
set -euo pipefail
build=${1:-build/release}
n=${2:-4}
shift $(($# < 2 ? $# : 2))
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(lastzero-12 readers-15)
mpi="$build/atomcheck-mpi"
[ -x "$mpi" ] || { echo "mpi_rank0_profile.sh: no atomcheck-mpi in $build" >&2; exit 2; }
command -v valgrind > /dev/null || { echo "mpi_rank0_profile.sh: needs valgrind" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/cg.sh" <<'SH'
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file="$CG_OUT.$OMPI_COMM_WORLD_RANK" "$@"
SH
chmod +x "$tmp/cg.sh"
for model in "${models[@]}"; do
  CG_OUT="$tmp/one" mpirun -x CG_OUT -n 1 "$tmp/cg.sh" "$mpi" run "$model" --quiet --json > "$tmp/one.json" 2> /dev/null
  CG_OUT="$tmp/cg" ATOMCHECK_MPI_STATS="$tmp/stats" \
    mpirun --oversubscribe -x CG_OUT -n "$n" "$tmp/cg.sh" "$mpi" run "$model" --quiet > /dev/null 2>&1
  callgrind_annotate --inclusive=yes --tree=caller --threshold=100 "$tmp/one.0" > "$tmp/one.txt" 2> /dev/null
  callgrind_annotate --inclusive=yes --tree=caller --threshold=100 "$tmp/cg.0" > "$tmp/rank0.txt" 2> /dev/null
  python3 - "$tmp" "$model" "$n" <<'PY'
import json, re, sys
tmp, model, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def blocks(path):
    # callgrind_annotate --tree=caller: per function a block of "<" lines (a caller and
    # the function's inclusive count from it), then its "*" line (its inclusive count).
    out, callers = {}, []
    for line in open(path):
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+([<*])\s+\S+?:(.*?)(?: \(\d+x\))?(?: \[\S+\])?$", line)
        if not m:
            callers = []
            continue
        count, kind, name = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
        if kind == "<":
            callers.append((name, count))
        else:
            if "'" not in name.split("(")[0]:
                total, by = out.get(name, (0, {}))
                for c, v in callers:
                    by[c] = by.get(c, 0) + v
                out[name] = (max(total, count), by)
            callers = []
    return out
def find(prof, name):
    # (inclusive count, callers): a function's callers' shares can sit in blocks of their
    # own (one per source file its code came from), so the count is at least their sum.
    hits = [(max(t, sum(by.values())), by) for k, (t, by) in prof.items() if name in k]
    return max(hits, key=lambda v: v[0]) if hits else (0, {})
one, r0 = blocks(f"{tmp}/one.txt"), blocks(f"{tmp}/rank0.txt")
total_exec = json.load(open(f"{tmp}/one.json"))["executions"]
totals = [int(l.split()[0].replace(",", "")) for l in open(f"{tmp}/one.txt") if "PROGRAM TOTALS" in l]
per_exec = totals[0] / total_exec  # start-up included: a few per cent
stats = {j["rank"]: j for j in map(json.loads, open(f"{tmp}/stats"))}
remote = sum(stats[k]["executions"] for k in range(1, n))
own = total_exec - remote
units, over = stats[0].get("units", 0), stats[0].get("taken_over", 0)
print(f"{model}, N = {n}: rank 0 ran {own} executions, the others {remote} in {units} units "
      f"({over} taken over); one process: {per_exec:,.0f} instructions per execution")
print("  rank 0's instructions per execution another rank ran, beyond what one process spends on")
print("  the executions rank 0 ran itself (and as a fraction of one execution):")
def beyond(name):
    # What one process spends in the same function on rank 0's own share is left out.
    return find(r0, name)[0] - own * find(one, name)[0] / total_exec
receive, by = find(r0, "Units::receive(")
from_reach = sum(v for c, v in by.items() if "Units::reach(" in c)
rows = [
    ("carving units", beyond("OptimalStrategy::carve_unit()")),
    ("sending them (their words)", beyond("Units::send_unit(")),
    ("receiving runs and units' ends as they come", receive - from_reach),
    ("reaching a unit still running: stop it, wait for its state", beyond("Units::reach(")),
    ("  (of the two: loading units' results and states)", beyond("OptimalStrategy::load_unit(")),
    ("  (of the two: reading the records of units' ends)", beyond("detail::read_record(")),
    ("comparing records with the search's neighbours", beyond("compare_with_previous")),
    ("taking over a unit's nodes", beyond("OptimalStrategy::continue_unit(")),
    ("joining units' insertions into the wakeup trees", beyond("OptimalStrategy::join_unit(")),
    ("freeing what units held", beyond("Units::recycle(")),
]
summed = 0
for what, v in rows:
    if not what.startswith("  "):
        summed += v
    print(f"    {what:<62} {v / remote:>8,.0f}  {v / remote / per_exec:.4f}")
print(f"    {'these together':<62} {summed / remote:>8,.0f}  {summed / remote / per_exec:.4f}")
PY
done
