// The whole atomcheck command line for a binary of one's own: link atomcheck::cli and
//
//   #include <atomcheck/cli.hpp>
//   int main(int argc, char** argv) { return atomcheck::cli_main(argc, argv); }
//
// and every ATOMCHECK_PROGRAM linked into that binary gets `list`, `run` (--replay,
// --html, --dot, --json, strategies, bounds), `validate`, plus `check-trace`,
// `trace-info` and `checkers`. atomcheck's own model library is not included unless the
// binary links atomcheck::models. Exit codes as in README: 0, 1, 2, 3.
#pragma once

namespace atomcheck {

int cli_main(int argc, char** argv);

}  // namespace atomcheck
