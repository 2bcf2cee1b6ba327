// Entry point of atomcheck-mpi: the atomcheck command line on every rank of an MPI job
// (cluster_mpi.hpp, docs/mpi.md), on the programs of the model library.
#include "mpi/cluster_mpi.hpp"

int main(int argc, char** argv) { return atomcheck::mpi_main(argc, argv); }
