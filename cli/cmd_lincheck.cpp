// `atomcheck lincheck [NAME]`: Lincheck's way on the command line. Lists the registered
// concurrent objects (ATOMCHECK_LIN_OBJECT), or generates scenarios of one object's
// operations, explores each exhaustively and prints the first failing scenario, shrunk,
// with the execution and its non-linearizable history (scheduler/lin_test.hpp).
#include <memory>
#include <string>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "scheduler/explore/lin_test.hpp"

namespace atomcheck::cli {

namespace {

struct LincheckArgs {
  std::string name;
  std::string memory = "sc";
  std::uint32_t threads = 2, ops = 2, before = 0, after = 0, scenarios = 20;
  std::uint64_t seed = 1;
  bool no_minimise = false;
  bool no_loop_reduction = false;
  bool sc_graphs = false;
};

int run_lincheck(const LincheckArgs& a) {
  if (a.name.empty()) {
    for (const lin::LinObjectInfo* o : lin::registered_lin_objects())
      fmt::print("{:<26} {:<9} {}\n", o->name, o->spec, o->description);
    return kExitOk;
  }
  const lin::LinObjectInfo* o = lin::find_lin_object(a.name);
  if (!o) {
    fmt::print(stderr, "{}: unknown object (see `atomcheck lincheck` for the registered ones)\n", a.name);
    return kExitBadInput;
  }
  lin::ScenarioOptions so;
  so.threads = a.threads;
  so.ops_per_thread = a.ops;
  so.ops_before = a.before;
  so.ops_after = a.after;
  so.scenarios = a.scenarios;
  so.seed = a.seed;
  so.minimise = !a.no_minimise;
  so.explore.memory = memory_model_from_name(a.memory).value_or(MemoryModelKind::sc);
  so.explore.loop_reduction = !a.no_loop_reduction;
  so.explore.sc_graphs = a.sc_graphs;
  fmt::print("lincheck {} ({} specification, {}): {} scenarios of {} threads x {} operations{}{}, seed {}\n", o->name,
             o->spec, a.memory, a.scenarios, a.threads, a.ops, a.before ? fmt::format(", {} before", a.before) : "",
             a.after ? fmt::format(", {} after", a.after) : "", a.seed);
  lin::ScenarioReport r = o->check(so);
  fmt::print("{}\n", r.text);
  return r.ok ? kExitOk : kExitProblem;
}

}  // namespace

void add_lincheck_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<LincheckArgs>();
  CLI::App* cmd = app.add_subcommand(
      "lincheck",
      "Check a registered concurrent object for linearizability: random scenarios of its operations, each "
      "explored exhaustively, the first failing one shrunk (no NAME: list the objects)");
  cmd->add_option("name", a->name, "A registered object (ATOMCHECK_LIN_OBJECT)");
  cmd->add_option("--memory", a->memory, "sc, tso or rc11: what \"precedes\" means follows the model (docs/linearizability.md)")->check(CLI::IsMember({"sc", "tso", "rc11"}));
  cmd->add_option("--threads", a->threads, "Threads of the parallel part (default 2)")
      ->check(whole_number_in(1, 8, "a thread count from 1 to 8"));
  cmd->add_option("--ops", a->ops, "Operations per thread (default 2)")
      ->check(whole_number_in(1, 8, "an operation count from 1 to 8"));
  cmd->add_option("--before", a->before, "Operations before the threads start (default 0)")
      ->check(whole_number_in(0, 8, "an operation count from 0 to 8"));
  cmd->add_option("--after", a->after, "Operations after the threads joined (default 0)")
      ->check(whole_number_in(0, 8, "an operation count from 0 to 8"));
  cmd->add_option("--scenarios", a->scenarios, "Random scenarios to explore (default 20)")->check(at_least_one);
  cmd->add_option("--seed", a->seed, "Seed of the scenarios (default 1)")->check(unsigned_integer);
  cmd->add_flag("--no-minimise", a->no_minimise, "Report the failing scenario as found, not shrunk");
  cmd->add_flag("--no-loop-reduction", a->no_loop_reduction, kNoLoopReductionHelp);
  cmd->add_flag("--sc-graphs", a->sc_graphs, kScGraphsHelp);
  cmd->callback([a, &rc] { rc = run_lincheck(*a); });
}

}  // namespace atomcheck::cli
