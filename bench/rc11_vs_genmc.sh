#!/usr/bin/env bash
# rc11 side by side with GenMC on the peers' DPOR benchmarks (issue 55): lastzero, readers,
# indexer and filesystem at growing sizes (C twins bench/genmc/{lastzero,readers,indexer,
# filesystem}.c, sized by -DN; atomcheck's models/dpor_benchmarks.cpp), and the Treiber
# stack, Michael-Scott queue and Vyukov queue with 3 threads x 2 operations, GenMC with its
# defaults (spin-assume on) and one exploration thread, atomcheck with its defaults and one
# job: complete and blocked executions, CPU (user+system) of each process, and the ratio.
# The work is bench/loop_reduction_vs_genmc.sh's; its variables (GENMC, ATOMCHECK,
# TIMEOUT) apply. Usage: bench/rc11_vs_genmc.sh [PROGRAM...], PROGRAM as NAME:N or a
# 3x2 twin's name.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
default="lastzero:10 lastzero:12 lastzero:15 readers:12 readers:15 indexer:13 indexer:14 indexer:15
filesystem:16 filesystem:18 filesystem:20 treiber_3x2 msqueue_3x2 vyukov_enq_3x2"
PROGRAMS="${*:-$default}" MODELS=rc11 SPIN=on exec bash "$here/loop_reduction_vs_genmc.sh"
