#include <atomcheck/cli.hpp>

int main(int argc, char** argv) { return atomcheck::cli_main(argc, argv); }
