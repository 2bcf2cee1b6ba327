#!/usr/bin/env python3
"""The parts of a --json summary that must not depend on how the search was split: all
but times, the jobs line, the parallel figures and the tool's name in printed commands."""
import json
import sys

DROP = {"elapsed_seconds", "seconds", "time_share", "checker_seconds", "total_seconds", "jobs",
        "parallel", "executions_per_second"}


def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if k not in DROP}
    if isinstance(o, list):
        return [strip(x) for x in o]
    if isinstance(o, str):
        return o.replace("atomcheck-mpi ", "atomcheck ")
    return o


text = sys.stdin.read()
try:
    print(json.dumps(strip(json.loads(text)), sort_keys=True, indent=1))
except json.JSONDecodeError:
    print(f"not JSON: {text[:200]!r}")
    sys.exit(1)
