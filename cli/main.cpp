// Entry point of the atomcheck tool: the whole command line (cli/cli_main.cpp) on the
// programs of the model library linked into this binary.
#include "atomcheck/cli.hpp"

int main(int argc, char** argv) { return atomcheck::cli_main(argc, argv); }
