// The atomcheck command line as a library function: parses the command line with CLI11
// and runs the chosen subcommand on the programs registered in the calling binary. The
// atomcheck tool's main() and a user's own binary (atomcheck/cli.hpp) both call it.
// Usage errors exit 2 with CLI11's one-line message.
#include "atomcheck/cli.hpp"

#include <cstdio>
#include <exception>
#include <string_view>

#include <fmt/core.h>

#include "cli/commands.hpp"

namespace atomcheck {

namespace cli {
namespace {
std::string& tool_name_storage() {
  static std::string name = "atomcheck";
  return name;
}
}  // namespace
const std::string& tool_name() { return tool_name_storage(); }
void set_tool_name(std::string_view argv0) {
  std::size_t slash = argv0.rfind('/');
  if (slash != std::string_view::npos) argv0.remove_prefix(slash + 1);
  if (!argv0.empty()) tool_name_storage() = std::string(argv0);
}
}  // namespace cli

int cli_main(int argc, char** argv) {
  using namespace atomcheck::cli;
  // A user's binary calling cli_main prints commands that re-run itself.
  if (argc > 0 && argv[0]) set_tool_name(argv[0]);
  CLI::App app{
      "atomcheck: explores the executions of small concurrent programs and checks each for "
      "failures, data races, atomicity and linearizability violations.\n"
      "Memory models (--memory): sc, sequential consistency (every order seq_cst); tso, "
      "x86-TSO store buffers (C++ orders mapped as compilers do); rc11, the C++ memory model "
      "(RC11: every order honoured, no load buffering, consume = acquire; every checker but the TSO ones)."};
  app.require_subcommand(1);
  int rc = kExitOk;
  add_trace_info_command(app, rc);
  add_check_trace_command(app, rc);
  add_run_commands(app, rc);
  add_validate_command(app, rc);
  add_lincheck_command(app, rc);
  add_check_history_command(app, rc);
  // Every --help ends with the exit codes; a command that says more keeps its own text.
  const char* exit_codes =
      "Exit codes: 0 all good, 1 a property, expectation or checker found a problem, 2 bad\n"
      "input or usage, 3 a budget or bound stopped the search before it finished.";
  app.footer(exit_codes);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    if (sub->get_footer().empty()) sub->footer(exit_codes);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A hidden option's errors come without its name (": what"): the check names it.
    std::string_view what = e.what();
    if (what.starts_with(": ")) what.remove_prefix(2);
    fmt::print(stderr, "atomcheck: {}\n", what);
    fmt::print(stderr, "Run with --help for more information.\n");
    return kExitBadInput;
  } catch (const std::exception& e) {
    fmt::print(stderr, "atomcheck: {}\n", e.what());
    return kExitBadInput;
  }
  std::fflush(stdout);
  return rc;
}

}  // namespace atomcheck
