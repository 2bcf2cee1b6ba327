// Placeholder until its issue lands: registers nothing.
#include "cli/commands.hpp"

namespace atomcheck::cli {
void add_trace_info_command(CLI::App&, int&) {}
}  // namespace atomcheck::cli
