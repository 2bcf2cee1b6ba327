// atomcheck-mpi's transport (docs/mpi.md): detail::Cluster over MPI_COMM_WORLD, and the
// entry point that runs the command line on every rank of an `mpirun` job.
#pragma once

namespace atomcheck {

// cli_main(argc, argv) on every rank of an MPI job: rank 0 runs the command and prints
// its answer; the other ranks explore parts of its main search (units of optimal DPOR,
// shares of random and pct samples) and print nothing. Returns rank 0's exit code on
// rank 0; the other ranks end inside it when rank 0's command ends. A user's binary with
// its own ATOMCHECK_PROGRAMs calls it from main(), as it would cli_main().
int mpi_main(int argc, char** argv);

}  // namespace atomcheck
