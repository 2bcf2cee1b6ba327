#!/usr/bin/env bash
# Every registered model under --memory sc and --memory rc11 with the default options
# (optimal: DPOR under sc, TruSt's revisits under rc11), one job, side by side: executions
# and CPU seconds (user + system) of each, and rc11's CPU over sc's. The bar is rc11 <= 3 x
# sc, each run to exhaustion; a run the time limit cut says how it stopped.
#   bash bench/rc11_vs_sc.sh [-t SECONDS] [-b BUILD_DIR] [MODEL...]
set -euo pipefail
limit=60
build=build/release
while getopts "t:b:" o; do
  case $o in
    t) limit=$OPTARG ;;
    b) build=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
exec python3 - "$build/atomcheck" "$limit" "$@" <<'PY'
import json, resource, subprocess, sys
binary, limit, models = sys.argv[1], sys.argv[2], sys.argv[3:]
if not models:
    models = [l.split()[0] for l in subprocess.run([binary, "list"], capture_output=True, text=True).stdout.splitlines() if l.strip()]

def measure(model, memory):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([binary, "run", model, "--memory", memory, "--time-limit", limit, "--jobs", "1", "--quiet", "--json"],
                       capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    try:
        r = json.loads(p.stdout)
    except ValueError:
        return "error", cpu
    ex = str(r.get("executions", "?"))
    if not r.get("exhausted"):
        ex += " (" + str(r.get("stop", "stopped")) + ")"
    return ex, cpu

print("| model | sc executions | sc CPU s | rc11 executions | rc11 CPU s | rc11 / sc |")
print("|---|---:|---:|---:|---:|---:|")
for m in models:
    sx, sc = measure(m, "sc")
    rx, rc = measure(m, "rc11")
    print(f"| {m} | {sx} | {sc:.3f} | {rx} | {rc:.3f} | {rc / max(sc, 0.005):.2f} |", flush=True)
PY
