#!/usr/bin/env bash
# Build GenMC (https://github.com/MPI-SWS/genmc, GPLv3) for the side-by-side
# benchmarks in bench/loop_reduction_vs_genmc.sh. No GenMC code lives in this
# repository: this script builds a checkout made elsewhere.
#
#   bash bench/genmc/build-genmc.sh SRC_DIR BUILD_DIR
#
# SRC_DIR   a GenMC source tree; measured with tag v0.11.0
#           (commit b03f01ed0f34a873f7b8b960313a5279a6c9ab45), e.g.
#           git --git-dir=GENMC.git archive v0.11.0 | tar -x -C SRC_DIR
# BUILD_DIR where the build goes; the binary ends up as BUILD_DIR/genmc
#           (the default $GENMC of bench/loop_reduction_vs_genmc.sh is
#           /work/genmc-build/genmc).
#
# On Debian 12 (bookworm): LLVM/clang 14, the distribution default (GenMC 0.11
# supports 13..20; override with LLVM_VER=15 or 16), g++ 12. GenMC 0.11's
# configure demands C++23 and checks __cplusplus >= 202302L, which g++ 12
# (202100L under -std=c++23) fails although it compiles GenMC fine: the
# cache variable below tells configure that -std=c++23 works.
# Runs as root (apt-get); set NICE=0 to build at normal priority.
set -euo pipefail

src=${1:?usage: build-genmc.sh SRC_DIR BUILD_DIR}
build=${2:?usage: build-genmc.sh SRC_DIR BUILD_DIR}
llvm=${LLVM_VER:-14}
jobs=${JOBS:-2}
nice_cmd=(nice -n "${NICE:-19}")

src=$(cd "$src" && pwd)
[[ -f $src/configure.ac ]] || { echo "no configure.ac in $src" >&2; exit 2; }

# Dependencies (idempotent: apt-get skips what is installed).
deps=(autoconf automake make g++ "llvm-$llvm" "llvm-$llvm-dev" "clang-$llvm"
      libffi-dev zlib1g-dev libedit-dev libhwloc-dev)
missing=()
for p in "${deps[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# autoreconf writes into the source tree; configure and make run in BUILD_DIR.
(cd "$src" && "${nice_cmd[@]}" autoreconf --install)
mkdir -p "$build"
cd "$build"
ax_cv_cxx_compile_cxx23__std_cpp23=yes \
  "${nice_cmd[@]}" "$src/configure" \
    --with-llvm="/usr/lib/llvm-$llvm" \
    --with-clang="/usr/bin/clang-$llvm" --with-clangxx="/usr/bin/clang++-$llvm"
"${nice_cmd[@]}" make -j"$jobs" genmc
"$build/genmc" --version
