// The core checker catalogue (the polynomial checkers of atomcheck::atomcheck): one table
// row per checker, in the order `atomcheck checkers` lists them. Adding a core checker
// means adding one row below; the judges have their table in judges_registry.cpp.
#include "checkers/registry.hpp"

#include <mutex>
#include <deque>
#include <stdexcept>

#include "checkers/aerodrome.hpp"
#include "checkers/atomic_set.hpp"
#include "checkers/linearizability_checker.hpp"
#include "checkers/regiontrack.hpp"
#include "checkers/tso_checkers.hpp"
#include "checkers/velodrome.hpp"
#include "checkers/wang_stoller_reduction.hpp"

namespace atomcheck {

namespace {

struct Entry {
  CheckerInfo info;
  CheckerFactory make;
};

template <class C, auto... Extra>
std::unique_ptr<Checker> make_one(const CheckerOptions& options) {
  return std::make_unique<C>(options, Extra...);
}

template <int Theorem>
std::unique_ptr<Checker> make_ws_reduction(const CheckerOptions& options) {
  return std::make_unique<WangStollerReduction>(options, Theorem);
}

const std::vector<Entry>& entries() {
  // Built once on first use and never changed afterwards (constant, not mutable state).
  static const std::vector<Entry> table = {
      // checkers: one line each — {{name, description, answers serializability, answers blame, judge, predictive,
      // needs issue order (reads tau; false: rf+co invariant, the TSO execution checkers)}, factory}
      {{"regiontrack-blame", "RegionTrack Alg. 1+2: transactions to blame (Theorem 2), with the interfering event", false, true, "oracle", false, true}, &make_one<RegionTrackBlame>},
      {{"regiontrack", "RegionTrack Alg. 1+3+4 as printed: blame and non-serializable traces (transactional vector clocks)", true, true, "oracle", false, true}, &make_one<RegionTrackFull>},
      {{"regiontrack-fixed", "RegionTrack with Alg. 3 lines 5 and 34 corrected (no missed non-serializable traces)", true, true, "oracle", false, true}, &make_one<RegionTrackFixed>},
      {{"aerodrome", "AeroDrome Alg. 1 as written: vector clocks, one read clock per thread and variable", true, false, "oracle", false, true}, &make_one<AeroDrome>},
      {{"aerodrome-opt", "AeroDrome with the 4.3 read clocks (R_x, chR_x per variable), epoch checks, change-log END", true, false, "oracle", false, true}, &make_one<AeroDromeOpt>},
      {{"aerodrome-fixed", "aerodrome corrected: a join of a thread that did nothing closes no cycle", true, false, "oracle", false, true}, &make_one<AeroDrome, true>},
      {{"aerodrome-opt-fixed", "aerodrome-opt with the same correction (the fast checker to use)", true, false, "oracle", false, true}, &make_one<AeroDromeOpt, true>},
      {{"velodrome", "Velodrome transaction graph: exact serializability, blame for increasing cycles", true, true, "oracle", false, true}, &make_one<VelodromeChecker>},
      {{"atomic-set", "Hammer et al. Fig. 5: the 14 problematic access patterns as race automata over atomic sets and units of work", true, false, "atomic-set-oracle", false, true}, &make_one<AtomicSetChecker>},
      {{"tso-exec", "TSO-serializability of the execution: the conflict graph under the TSO conflict relation (reads commits)", true, false, "", false, false}, &make_one<TsoExecChecker, TsoExecChecker::Kind::exec>},
      {{"tso-robust", "robustness of the execution (SC-equivalence): the write-contraction is acyclic (reads commits)", true, false, "", false, false}, &make_one<TsoExecChecker, TsoExecChecker::Kind::robust>},
      {{"tso-monitor", "TSO paper 6.3: robustness and SC-serializability (Theorem 3) on transaction-fenced executions; others fall back to the conflict graph when that test fails (reads commits)", true, false, "tso-exec", false, false}, &make_one<TsoExecChecker, TsoExecChecker::Kind::monitor>},
      // linearizability of the objects' operations (scheduler/lin_test.hpp `operation`), not of transactions
      {{"linearizability", "linearizability of each object's operations against its sequential specification, under the precedence of the memory model (sc, tso, rc11); prints the shortest failing history", true, false, "linearizability-oracle", false, false}, &make_one<LinearizabilityChecker>},
      // Wang-Stoller reduction (predictive: judged against every explored execution by view-oracle)
      {{"ws-reduction-4.3", "Wang-Stoller reduction: movers from Theorem 4.3 race-freedom, (R+B)*N?(L+B)* per transaction", true, false, "view-oracle", true, true}, &make_ws_reduction<43>},
      {{"ws-reduction-4.4", "Wang-Stoller reduction with Theorem 4.4 (one common lock per variable)", true, false, "view-oracle", true, true}, &make_ws_reduction<44>},
  };
  return table;
}

// Checkers added by register_checker(), mostly from static initialisers of other
// libraries; the explorer's unit threads read it while making their checkers.
struct Registered {
  std::mutex mutex;
  std::deque<Entry> entries;  // only appended to: an entry never moves once registered
};
Registered& registered() {
  static Registered r;
  return r;
}

// The entry of `name` (core first); nullptr when unknown. Entries are never removed and a
// deque's push_back moves none, so the pointer stays valid after the lock is released.
const Entry* find(std::string_view name) {
  for (const Entry& e : entries())
    if (e.info.name == name) return &e;
  Registered& r = registered();
  std::lock_guard lock(r.mutex);
  for (const Entry& e : r.entries)
    if (e.info.name == name) return &e;
  return nullptr;
}

}  // namespace

std::vector<CheckerInfo> checker_catalog() {
  std::vector<CheckerInfo> out;
  for (const Entry& e : entries()) out.push_back(e.info);
  Registered& r = registered();
  std::lock_guard lock(r.mutex);
  for (const Entry& e : r.entries) out.push_back(e.info);
  return out;
}

bool checker_reads_rc11_trace(std::string_view name) {
  return name == "linearizability" || name == "linearizability-oracle";
}

bool checker_decides_conflict_serializability(std::string_view name) {
  if (name == "oracle") return true;
  const Entry* e = find(name);
  return e && e->info.serializability && e->info.judge == "oracle";
}

bool checker_needs_issue_order(std::string_view name) {
  const Entry* e = find(name);
  return e ? e->info.needs_issue_order : true;
}

std::unique_ptr<Checker> make_checker(std::string_view name, const CheckerOptions& options) {
  const Entry* e = find(name);
  return e ? e->make(options) : nullptr;
}

bool register_checker(CheckerInfo info, CheckerFactory make) {
  if (info.name.empty()) throw std::invalid_argument("register_checker: the checker has no name");
  if (!make) throw std::invalid_argument("register_checker: '" + info.name + "' has no factory");
  if (find(info.name)) throw std::invalid_argument("register_checker: a checker named '" + info.name + "' exists");
  Registered& r = registered();
  std::lock_guard lock(r.mutex);
  r.entries.push_back(Entry{std::move(info), std::move(make)});
  return true;
}

}  // namespace atomcheck
