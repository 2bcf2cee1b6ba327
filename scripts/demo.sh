#!/usr/bin/env bash
# Sets up the machine, builds the atomcheck command (Release) and runs it on a bundled
# example: two unsynchronised increments (lost-update) explored exhaustively by optimal DPOR, every execution judged
# by the conflict-serializability checkers and their oracle.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target atomcheck
set +e
./build/release/atomcheck run lost-update --checker oracle,velodrome,aerodrome-opt-fixed,regiontrack-fixed "$@"
rc=$?
set -e
# Exit code 1 means "a problem was found", which is the point of this example.
[ "$rc" -eq 1 ] && exit 0
exit "$rc"
