#!/usr/bin/env bash
# Installs the Debian packages atomcheck builds against. Idempotent: when every package
# is already installed it does nothing (no apt-get update, no network).
set -euo pipefail
PKGS=(build-essential cmake ninja-build pkg-config
      libboost-context-dev nlohmann-json3-dev libz3-dev
      libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev libfmt-dev
      clang-14 libclang-rt-14-dev   # clang + libFuzzer for the spec-loader fuzz target
      ccache                        # test-consumer.sh: its two library builds share one compile
      libopenmpi-dev openmpi-bin)   # atomcheck-mpi: one search over the ranks of mpirun
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
