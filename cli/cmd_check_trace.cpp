// Placeholder until its issue lands: registers nothing.
#include "cli/commands.hpp"

namespace atomcheck::cli {
void add_check_trace_command(CLI::App&, int&) {}
}  // namespace atomcheck::cli
