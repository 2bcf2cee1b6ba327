// The judges' catalogue (atomcheck::judges): the exact oracles each checker is judged by,
// the trace TSO deciders and Wang-Stoller's block-based checker, whose cost can grow
// exponentially with the trace. One row per checker, registered into the core catalogue
// (registry.hpp) when this library is linked: its CMake target makes the linker keep this
// file (it asks for atomcheck_link_judges), and its static initialiser registers the rows.
#include <memory>

#include "checkers/atomic_set.hpp"
#include "checkers/oracle_conflict.hpp"
#include "checkers/registry.hpp"
#include "checkers/tso_trace_checkers.hpp"
#include "checkers/view_serializability.hpp"
#include "checkers/wang_stoller_block.hpp"

namespace atomcheck {

std::unique_ptr<Checker> make_linearizability_oracle(const CheckerOptions& options);  // linearizability_oracle.cpp

namespace {

template <class C, auto... Extra>
std::unique_ptr<Checker> make(const CheckerOptions& options) {
  return std::make_unique<C>(options, Extra...);
}

bool register_rows() {
  struct Row {
    CheckerInfo info;
    std::unique_ptr<Checker> (*make)(const CheckerOptions&);
  };
  // {{name, description, answers serializability, answers blame, judge, predictive, needs
  // issue order}, factory}, as in registry.cpp.
  const Row rows[] = {
      {{"oracle", "brute-force conflict serializability and Theorem-2 blame (small traces)", true, true, "", false, true}, &make<ConflictOracle>},
      {{"atomic-set-oracle", "brute-force conflict serializability of each atomic set's projection (Hammer et al. 2.2; small traces)", true, false, "", false, true}, &make<AtomicSetOracle>},
      {{"view-oracle", "view serializability by trying serial orders (Wang-Stoller §3; small traces)", true, false, "", false, true}, &make<ViewOracle>},
      {{"ws-block", "Wang-Stoller block-based: UP1-UP4 blocks, 2-blocks, UR-FW interleavings (unsure counts as not atomic; UR-FW budget: undecided)", true, false, "view-oracle", true, true}, &make<WangStollerBlock>},
      {{"trace-tso-brute", "trace TSO-serializability: every commit placement of the trace, brute force (small traces)", true, false, "", false, true}, &make<TraceTsoChecker, TraceTsoChecker::Kind::brute>},
      {{"trace-tso-fpt", "trace TSO-serializability in one pass over the trace, keeping only undominated summaries of the commit placements: measured linear in its length (4 threads, 10 variables, 10^6 unfenced events in about 8 s CPU); store buffers bounded by the variables (each keeps a variable's oldest and newest pending write), exponential in the threads in the worst case; memory for the live part only", true, false, "trace-tso-brute", false, true}, &make<TraceTsoChecker, TraceTsoChecker::Kind::fpt>},
      {{"trace-tso", "trace TSO-serializability (trace-tso-fpt) with the witness execution (commit placement) and cycle", true, false, "trace-tso-brute", false, true}, &make<TraceTsoChecker, TraceTsoChecker::Kind::main>},
      {{"trace-tso-search", "trace TSO-serializability: the earlier simple-cycle search (exponential in the trace; a second judge)", true, false, "trace-tso-brute", false, true}, &make<TraceTsoChecker, TraceTsoChecker::Kind::search>},
      {{"linearizability-oracle", "linearizability by trying every order of each object's operations (Herlihy-Wing's definition, the precedence of docs/linearizability.md read naively; at most 9 operations per object)", true, false, "", false, false}, &make_linearizability_oracle},
  };
  for (const Row& r : rows) register_checker(r.info, r.make);
  return true;
}

}  // namespace

bool register_judges() {
  static const bool done = register_rows();
  return done;
}

}  // namespace atomcheck

// The symbol the atomcheck::judges target asks the linker for (-u), so that this object,
// and with it the registration below, is linked from the static library.
extern "C" {
extern const bool atomcheck_link_judges;
const bool atomcheck_link_judges = atomcheck::register_judges();
}
