// The spec interpreter and runner. The interpreter walks a thread's operations on the
// scheduler API (variables are atomic<int64_t>; loads and stores are plain x86 MOVs,
// buffered under TSO; cas/xchg/fetch_add are locked seq_cst read-modify-writes; fence
// is MFENCE). Registers live in a per-execution table on thread 0's stack so that
// thread 0 can record them as the outcome once every thread has been joined. The runner
// explores the program per memory model, judges each expectation over the explored
// executions, and keeps the schedule of the first execution that refutes each one.
#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "scheduler/runtime/api.hpp"
#include "scheduler/runtime/sync.hpp"
#include "specs/spec.hpp"

namespace atomcheck::spec {

namespace {

// The shared state of one execution.
struct World {
  std::deque<atomic<std::int64_t>> vars;
  std::deque<mutex> locks;
  std::deque<condition_variable> condvars;
  std::deque<shared_mutex> rwlocks;
  std::vector<std::vector<std::int64_t>> regs;  // per spec thread
};

class Interp {
 public:
  Interp(const Spec& spec, World& world, std::uint32_t t)
      : spec_(spec), world_(world), t_(t), regs_(world.regs[t]), children_(spec.threads.size()) {}

  void run() {
    ops(spec_.threads[t_].ops);
    // Children never joined explicitly are joined when their parent's ops end, as a
    // structured-concurrency default (a dropped joinable thread fails the execution).
    for (thread& c : children_)
      if (c.joinable()) c.join();
  }

 private:
  std::int64_t eval(std::uint32_t id) const {
    const Expr& e = spec_.exprs[id];
    switch (e.kind) {
      case Expr::Kind::constant: return e.value;
      case Expr::Kind::reg: return regs_[e.reg];
      case Expr::Kind::unary: {
        std::int64_t a = eval(e.lhs);
        if (e.op == "!") return a == 0 ? 1 : 0;
        return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(a));
      }
      case Expr::Kind::binary: break;
    }
    const std::string& op = e.op;
    if (op == "&&") return eval(e.lhs) != 0 && eval(e.rhs) != 0 ? 1 : 0;
    if (op == "||") return eval(e.lhs) != 0 || eval(e.rhs) != 0 ? 1 : 0;
    std::int64_t a = eval(e.lhs), b = eval(e.rhs);
    // Two's-complement wrap-around, without signed overflow.
    auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    if (op == "+") return static_cast<std::int64_t>(ua + ub);
    if (op == "-") return static_cast<std::int64_t>(ua - ub);
    if (op == "*") return static_cast<std::int64_t>(ua * ub);
    if (op == "&") return a & b;
    if (op == "|") return a | b;
    if (op == "^") return a ^ b;
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    if (op == ">=") return a >= b;
    return 0;
  }

  void set_reg(std::uint32_t r, std::int64_t v) {
    if (r != kNone) regs_[r] = v;
  }

  void ops(const std::vector<Operation>& list) {
    for (const Operation& op : list) step(op);
  }

  // The spec's own file:line for the waits a report names (a reduction that does not
  // model them says where they are); other operations are named by the interpreter.
  detail::CallSite site(const Operation& op) const {
    detail::CallSite at;
    at.file = spec_.file.c_str();
    at.line = static_cast<std::uint32_t>(op.origin.pos.line);
    return at;
  }

  // The spec's order, or the operation's default (spec.hpp Operation::order).
  static std::memory_order order(const Operation& op, std::memory_order dflt) {
    return op.order == kDefaultOrder ? dflt : static_cast<std::memory_order>(op.order);
  }
  // A failed compare-exchange reads: the success order without its release part.
  static std::memory_order failure_order(std::memory_order mo) {
    return mo == std::memory_order_acq_rel   ? std::memory_order_acquire
           : mo == std::memory_order_release ? std::memory_order_relaxed
                                             : mo;
  }

  void step(const Operation& op) {
    switch (op.kind) {
      case OpKind::load: regs_[op.reg] = world_.vars[op.var].load(order(op, std::memory_order_relaxed)); break;
      case OpKind::store:
        world_.vars[op.var].store(eval(op.value), order(op, std::memory_order_relaxed));
        break;
      case OpKind::set: regs_[op.reg] = eval(op.value); break;
      case OpKind::cas: {
        std::int64_t expected = eval(op.expected);
        std::int64_t seen = expected;
        const std::memory_order mo = order(op, std::memory_order_seq_cst);
        bool ok = world_.vars[op.var].compare_exchange_strong(seen, eval(op.value), mo, failure_order(mo));
        set_reg(op.reg, ok ? expected : seen);
        set_reg(op.ok_reg, ok ? 1 : 0);
        break;
      }
      case OpKind::xchg:
        set_reg(op.reg, world_.vars[op.var].exchange(eval(op.value), order(op, std::memory_order_seq_cst)));
        break;
      case OpKind::fetch_add:
        set_reg(op.reg, world_.vars[op.var].fetch_add(eval(op.value), order(op, std::memory_order_seq_cst)));
        break;
      case OpKind::fence: atomcheck::atomic_thread_fence(order(op, std::memory_order_seq_cst)); break;
      case OpKind::lock: world_.locks[op.lock].lock(); break;
      case OpKind::unlock: world_.locks[op.lock].unlock(); break;
      case OpKind::begin: blocks_.push_back(std::make_unique<atomic_block>(op.label)); break;
      case OpKind::end: blocks_.pop_back(); break;
      case OpKind::loop: {
        std::int64_t i = 0;
        for (; i < op.bound; ++i) {
          if (op.cond != kNone && eval(op.cond) == 0) return;
          ops(op.body);
          // Yield only when another iteration follows: a spin loop that is about to exit
          // must not wait for a write that may never come.
          if (op.yield && i + 1 < op.bound && (op.cond == kNone || eval(op.cond) != 0))
            detail::op_yield(site(op));
        }
        // A `while` loop still running at its bound leaves the explored space: the
        // execution is cut (neither completed nor failed), as in bounded model checking.
        if (op.cond != kNone && eval(op.cond) != 0) detail::op_assume_failed(site(op));
        break;
      }
      case OpKind::if_: ops(eval(op.cond) != 0 ? op.body : op.else_body); break;
      case OpKind::assert_: check(eval(op.cond) != 0, op.message); break;
      case OpKind::assume:
        if (eval(op.cond) == 0) detail::op_assume_failed(site(op));
        break;
      case OpKind::spawn: {
        const Spec* spec = &spec_;
        World* world = &world_;
        std::uint32_t child = op.thread;
        children_[child] = thread([spec, world, child] { Interp(*spec, *world, child).run(); });
        break;
      }
      case OpKind::await:
        // spin_until, with the spec's own line for its reports.
        detail::op_spin_begin();
        ops(op.body);
        if (eval(op.cond) == 0) detail::op_spin_failed(site(op));
        detail::op_spin_passed();
        break;
      case OpKind::wait: {
        // The loader checked that the thread holds the lock here.
        std::unique_lock<mutex> lk(world_.locks[op.lock], std::adopt_lock);
        world_.condvars[op.cv].wait_at(lk, [&] {
          ops(op.body);
          return eval(op.cond) != 0;
        }, site(op));
        lk.release();
        break;
      }
      case OpKind::notify:
        if (op.all) {
          world_.condvars[op.cv].notify_all();
        } else {
          world_.condvars[op.cv].notify_one();
        }
        break;
      case OpKind::read_lock: world_.rwlocks[op.rwlock].lock_shared(); break;
      case OpKind::read_unlock: world_.rwlocks[op.rwlock].unlock_shared(); break;
      case OpKind::write_lock: world_.rwlocks[op.rwlock].lock(); break;
      case OpKind::write_unlock: world_.rwlocks[op.rwlock].unlock(); break;
      case OpKind::join:
        if (children_[op.thread].joinable()) {
          children_[op.thread].join();
        } else {
          check(false, fmt::format("{} joins {}, which it has not spawned or already joined",
                                   spec_.threads[t_].name, spec_.threads[op.thread].name));
        }
        break;
    }
  }

  const Spec& spec_;
  World& world_;
  std::uint32_t t_;
  std::vector<std::int64_t>& regs_;
  std::vector<thread> children_;
  std::vector<std::unique_ptr<atomic_block>> blocks_;
};

}  // namespace

Program spec_program(const Spec& spec, bool load_final) {
  return [&spec, load_final] {
    World world;
    for (const Variable& v : spec.vars) world.vars.emplace_back(v.init, v.name);
    for (const std::string& l : spec.locks) world.locks.emplace_back(l);
    for (const std::string& c : spec.condvars) world.condvars.emplace_back(c);
    for (const std::string& r : spec.rwlocks) world.rwlocks.emplace_back(r);
    // Atomic sets and units of work, for the atomic-set checkers.
    for (const AtomicSet& s : spec.atomic_sets) {
      std::vector<VarId> ids;
      for (std::uint32_t v : s.vars) ids.push_back(world.vars[v].id());
      detail::op_atomic_set(s.name, ids.data(), ids.size());
    }
    for (const UnitOfWork& u : spec.units_of_work) {
      std::vector<std::string_view> sets;
      for (std::uint32_t s : u.sets) sets.push_back(spec.atomic_sets[s].name);
      detail::op_unit_of_work(u.label, sets.data(), sets.size());
    }
    for (const Thread& t : spec.threads) world.regs.push_back(t.reg_init);
    std::vector<thread> started;
    for (std::uint32_t t = 0; t < spec.threads.size(); ++t) {
      if (spec.threads[t].spawned_by_op) continue;
      started.emplace_back([&spec, &world, t] { Interp(spec, world, t).run(); });
    }
    for (thread& t : started) t.join();
    for (const Observed& o : spec.observed) {
      if (o.is_reg) outcome(o.name, world.regs[o.thread][o.reg]);
      else if (load_final) outcome(o.name, world.vars[o.var].load(std::memory_order_seq_cst));
    }
  };
}

// ---- the runner ---------------------------------------------------------------------

namespace {

std::string model_name(MemoryModelKind m) { return std::string(memory_model_name(m)); }

std::string pattern_text(const Spec& spec, const OutcomePattern& p) {
  std::string out = "{";
  for (std::size_t i = 0; i < p.values.size(); ++i)
    out += fmt::format("{}{}={}", i ? ", " : "", spec.observed[p.values[i].first].name, p.values[i].second);
  return out + "}";
}

// The first execution with some property: its index and schedule.
struct Witness {
  bool found = false;
  std::uint64_t index = 0;
  std::string schedule;
  std::string extra;
  void note(std::uint64_t i, std::string_view s, std::string x = {}) {
    if (found) return;
    found = true;
    index = i;
    schedule = std::string(s);
    extra = std::move(x);
  }
  std::string text() const {
    return fmt::format("execution #{} (schedule \"{}\"){}", index, schedule, extra);
  }
};

struct CheckerTally {
  std::uint64_t flagged = 0, not_serializable = 0, blamed = 0;
  // Executions the checker could not judge: counted in no row, and every expectation on
  // the checker stays inconclusive (as after a search that stopped early).
  std::uint64_t undecided = 0;
  Witness first_flagged, first_unflagged, first_not_ser, first_ser, first_blamed, first_unblamed;
};

// Judges "how many executions" against an expected Count.
ExpectationResult judge_count(const Count& want, std::uint64_t got, std::uint64_t total, bool exhausted,
                              const Witness& with, const Witness& without, std::string_view what) {
  ExpectationResult r;
  switch (want.kind) {
    case Count::Kind::none:
      r.holds = got == 0;
      if (!r.holds) r.detail = fmt::format("{} in {} of {} executions, first: {}", what, got, total, with.text());
      break;
    case Count::Kind::some:
      r.holds = got > 0;
      if (!r.holds) {
        r.inconclusive = !exhausted;
        r.detail = fmt::format("{} in none of the {} executions{}", what, total,
                               exhausted ? "" : " explored before the search stopped");
      }
      break;
    case Count::Kind::all:
      r.holds = got == total;
      if (!r.holds)
        r.detail = fmt::format("not {} in {} of {} executions, first: {}", what, total - got, total,
                               without.text());
      break;
    case Count::Kind::exactly:
      r.holds = got == want.n && exhausted;
      if (!r.holds) {
        r.inconclusive = got < want.n && !exhausted;
        r.detail = fmt::format("{} in {} of {} executions, expected {}{}", what, got, total, want.n,
                               with.found ? ", first: " + with.text() : std::string());
        if (got == want.n) r.detail = fmt::format("{} in {} executions so far, but the search stopped early", what, got);
      }
      break;
  }
  return r;
}

// "1 execution", "2 executions".
std::string executions(std::uint64_t n) { return fmt::format("{} execution{}", n, n == 1 ? "" : "s"); }

// Which expectation counts executions, whose numbers are DFS's schedules (nullptr: none).
const char* counts_executions(const Expectations& ex) {
  auto exact = [](const std::optional<Count>& c) { return c && c->kind == Count::Kind::exactly; };
  if (ex.executions) return "\"executions\"";
  if (exact(ex.failures)) return "\"failures\"";
  if (exact(ex.serializable_count)) return "\"serializable\"";
  for (const CheckerExpectation& c : ex.checkers)
    if (exact(c.flagged) || exact(c.not_serializable) || exact(c.blamed)) return "a checker's exact count";
  return nullptr;
}

ModelReport run_model(const Spec& spec, const Expectations& ex, MemoryModelKind memory,
                      const RunOptions& options) {
  ModelReport rep;
  rep.memory = memory;
  const std::string mname = model_name(memory);

  // Which checkers run: those the expectations name (the oracle for "serializable"),
  // then the extra ones; unknown names are reported by the expectation that needs them.
  std::vector<std::string> names;
  auto want = [&names](const std::string& n) {
    if (make_checker(n) && std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  if (ex.serializable_count) want("oracle");
  for (const CheckerExpectation& c : ex.checkers) want(c.checker);
  for (const std::string& n : options.extra_checkers) want(n);

  ExploreOptions eo = options.explore;
  eo.memory = memory;
  eo.checkers = names;
  eo.stop_on_failure = options.stop_on_failure;
  if (!options.strategy) {
    const char* why = counts_executions(ex);
    eo.strategy = why ? StrategyKind::dfs : StrategyKind::optimal;
    rep.strategy = why ? fmt::format("dfs ({} counts schedules)", why) : "optimal";
  } else {
    eo.strategy = *options.strategy;
    rep.strategy = std::string(strategy_name(eo.strategy));
  }
  if (spec.max_steps && !options.max_steps_given) eo.max_steps = spec.max_steps;
  // A spec's loops are bounded: a run of identical loads is the spec's, not a spin.
  eo.spin_threshold = 0;

  const bool rc11 = memory == MemoryModelKind::rc11;
  Program program = spec_program(spec, rc11);
  std::vector<CheckerTally> tally(names.size());
  std::vector<Witness> reached(ex.reachable.size()), bad_reached(ex.unreachable.size());
  Witness not_always, first_failure, first_ok;
  std::uint64_t judged = 0, failed = 0;
  std::map<std::vector<std::int64_t>, std::uint64_t> outcomes;
  std::vector<std::int64_t> mem, state(spec.observed.size());
  const bool tso = memory == MemoryModelKind::tso;

  auto on_execution = [&](const ExecutionView& v) {
    if (v.failure == nullptr && v.outcome == nullptr) return;  // pruned (assume or a wait): not judged
    ++judged;
    if (v.failure != nullptr) {
      ++failed;
      first_failure.note(v.index, v.schedule, fmt::format(": {}", v.failure->message));
    } else {
      first_ok.note(v.index, v.schedule);
    }
    if (v.verdicts != nullptr) {
      for (std::size_t k = 0; k < names.size() && k < v.verdicts->size(); ++k) {
        const Verdict& vd = (*v.verdicts)[k];
        CheckerTally& t = tally[k];
        if (!vd.decided()) {
          ++t.undecided;
          continue;
        }
        bool ns = !vd.serializable, bl = !vd.blamed.empty();
        if (ns || bl) ++t.flagged, t.first_flagged.note(v.index, v.schedule);
        else t.first_unflagged.note(v.index, v.schedule);
        if (ns) ++t.not_serializable, t.first_not_ser.note(v.index, v.schedule);
        else t.first_ser.note(v.index, v.schedule);
        if (bl) ++t.blamed, t.first_blamed.note(v.index, v.schedule);
        else t.first_unblamed.note(v.index, v.schedule);
      }
    }
    if (v.outcome == nullptr) return;
    // Final memory: the last write that reached memory (commits under TSO, where a
    // `write` is only the issue into the buffer), else the initial value.
    mem.resize(spec.vars.size());
    for (std::size_t i = 0; i < spec.vars.size(); ++i) mem[i] = spec.vars[i].init;
    for (const Event& e : v.trace->events) {
      if (e.target >= mem.size()) continue;
      if (e.op == Op::rmw) mem[e.target] = e.value2;
      else if (e.op == (tso ? Op::commit : Op::write)) mem[e.target] = e.value;
    }
    for (std::size_t i = 0; i < spec.observed.size(); ++i) {
      const Observed& o = spec.observed[i];
      state[i] = 0;
      if (!o.is_reg && !rc11) {
        state[i] = mem[o.var];
      } else {
        for (const auto& [n, val] : *v.outcome)
          if (n == o.name) state[i] = val;
      }
    }
    ++outcomes[state];
    auto matches = [&](const OutcomePattern& p) {
      return std::all_of(p.values.begin(), p.values.end(),
                         [&](const auto& kv) { return state[kv.first] == kv.second; });
    };
    auto state_text = [&] {
      std::string s;
      for (std::size_t i = 0; i < state.size(); ++i)
        s += fmt::format("{}{}={}", i ? " " : "", spec.observed[i].name, state[i]);
      return s;
    };
    for (std::size_t i = 0; i < ex.reachable.size(); ++i)
      if (matches(ex.reachable[i])) reached[i].note(v.index, v.schedule);
    for (std::size_t i = 0; i < ex.unreachable.size(); ++i)
      if (!bad_reached[i].found && matches(ex.unreachable[i]))
        bad_reached[i].note(v.index, v.schedule, fmt::format(" with outcome {}", state_text()));
    if (!ex.always.empty() && !not_always.found &&
        std::none_of(ex.always.begin(), ex.always.end(), matches))
      not_always.note(v.index, v.schedule, fmt::format(" with outcome {}", state_text()));
  };

  try {
    rep.result = explore(program, eo, on_execution);
  } catch (const std::exception& e) {
    rep.error = fmt::format("memory model {} could not be explored: {}", mname, e.what());
  }
  // DPOR that met a yield() wait it cannot follow stopped early: that is an incomplete
  // search (exit 3), not a broken model.
  const bool dpor_strategy = eo.strategy == StrategyKind::dpor || eo.strategy == StrategyKind::optimal;
  const bool reduction_gap = dpor_strategy && rep.result.reduction_incomplete;
  if (reduction_gap && !options.strategy && rep.error.empty()) {
    // Chosen for the user, so the choice is ours to mend: DFS explores that wait.
    RunOptions with_dfs = options;
    with_dfs.strategy = StrategyKind::dfs;
    ModelReport again = run_model(spec, ex, memory, with_dfs);
    again.strategy = fmt::format("dfs (optimal DPOR does not model {})", rep.result.reduction_incomplete_by);
    return again;
  }
  if (rep.error.empty() && !rep.result.error.empty() && !reduction_gap)
    rep.error = fmt::format("exploration under {} failed: {}", mname, rep.result.error);

  for (const auto& [st, n] : outcomes) {
    std::string s;
    for (std::size_t i = 0; i < st.size(); ++i) s += fmt::format("{}{}={}", i ? " " : "", spec.observed[i].name, st[i]);
    rep.outcomes.emplace_back(s.empty() ? "(no observed locations)" : s, n);
  }

  // Only an exhaustive search decides "never" and "every": random sampling that ran its
  // course is still a sample.
  const bool systematic = eo.strategy == StrategyKind::dfs || (dpor_strategy && !reduction_gap);
  const bool exhausted = rep.result.exhausted() && rep.result.error.empty() && !rep.result.bounded && systematic;
  rep.exhaustive = exhausted;
  if (!exhausted)
    rep.not_exhaustive_why =
        !rep.result.error.empty() && !reduction_gap ? rep.result.error : search_end_text(rep.result);
  const std::uint64_t completed = judged - failed;
  auto add = [&](std::string what, const Origin& origin, ExpectationResult r) {
    r.what = fmt::format("{}: {}", mname, what);
    r.origin = origin;
    if (r.inconclusive) {
      r.holds = false;
      if (r.detail.empty())
        r.detail = fmt::format("holds in the {} executions explored, but the search was not exhaustive ({})",
                               rep.result.executions, rep.not_exhaustive_why);
    }
    if (!rep.error.empty()) {
      r.holds = false;
      r.inconclusive = false;
      r.detail = rep.error;
    }
    rep.expectations.push_back(std::move(r));
  };

  for (std::size_t i = 0; i < ex.reachable.size(); ++i) {
    ExpectationResult r;
    r.holds = reached[i].found;
    if (!r.holds) {
      r.inconclusive = !exhausted;
      r.detail = fmt::format("no execution reaches it ({} completed executions{})", completed,
                             exhausted ? "" : ", search stopped early");
    }
    add("reachable " + pattern_text(spec, ex.reachable[i]), ex.reachable[i].origin, r);
  }
  for (std::size_t i = 0; i < ex.unreachable.size(); ++i) {
    ExpectationResult r;
    r.holds = !bad_reached[i].found;
    if (!r.holds) r.detail = "reached by " + bad_reached[i].text();
    else r.inconclusive = !exhausted;
    add("unreachable " + pattern_text(spec, ex.unreachable[i]), ex.unreachable[i].origin, r);
  }
  if (!ex.always.empty()) {
    ExpectationResult r;
    r.holds = !not_always.found;
    if (!r.holds) r.detail = "refuted by " + not_always.text();
    else r.inconclusive = !exhausted;
    std::string list;
    for (const OutcomePattern& p : ex.always) list += (list.empty() ? "" : " or ") + pattern_text(spec, p);
    add("always " + list, ex.always_origin, r);
  }
  auto index_of = [&](const std::string& n) {
    return static_cast<std::size_t>(std::find(names.begin(), names.end(), n) - names.begin());
  };
  auto unavailable = [&](const std::string& n) {
    ExpectationResult r;
    std::string known;
    for (const CheckerInfo& c : checker_catalog()) known += (known.empty() ? "" : ", ") + c.name;
    r.detail = fmt::format("checker \"{}\" is not available (available: {})", n, known);
    return r;
  };
  if (ex.serializable_count) {
    ExpectationResult r;
    std::size_t k = index_of("oracle");
    if (k == names.size()) {
      r = unavailable("oracle");
    } else {
      const CheckerTally& t = tally[k];
      const std::uint64_t decided = judged - t.undecided;
      const bool complete = exhausted && t.undecided == 0;
      r = judge_count(*ex.serializable_count, t.not_serializable, decided, complete, t.first_not_ser,
                      t.first_ser, "not conflict serializable");
      if (ex.serializable_count->kind == Count::Kind::all && !r.holds)
        r.detail = fmt::format("conflict serializable in {} of {} executions, first: {}",
                               decided - t.not_serializable, decided, t.first_ser.text());
      if (ex.serializable_count->kind != Count::Kind::some && r.holds) r.inconclusive = !complete;
      if (r.inconclusive) r.holds = false;
    }
    add(fmt::format("serializable \"{}\"", ex.serializable_text), ex.serializable_origin, r);
  }
  for (const CheckerExpectation& c : ex.checkers) {
    std::size_t k = index_of(c.checker);
    auto one = [&](const std::optional<Count>& want, std::string_view key, std::string_view what,
                   auto pick) {
      if (!want) return;
      ExpectationResult r;
      if (k == names.size()) {
        r = unavailable(c.checker);
      } else {
        auto [got, with, without] = pick(tally[k]);
        const bool complete = exhausted && tally[k].undecided == 0;
        r = judge_count(*want, got, judged - tally[k].undecided, complete, with, without, what);
        if (want->kind != Count::Kind::some && r.holds) r.inconclusive = !complete;
        if (r.inconclusive) r.holds = false;
      }
      add(fmt::format("checker {} {} {}", c.checker, key, format_count(*want)), c.origin, r);
    };
    using Row = std::tuple<std::uint64_t, Witness, Witness>;
    one(c.flagged, "flagged", "flagged", [](const CheckerTally& t) { return Row{t.flagged, t.first_flagged, t.first_unflagged}; });
    one(c.not_serializable, "not_serializable", "not serializable",
        [](const CheckerTally& t) { return Row{t.not_serializable, t.first_not_ser, t.first_ser}; });
    one(c.blamed, "blamed", "blamed", [](const CheckerTally& t) { return Row{t.blamed, t.first_blamed, t.first_unblamed}; });
  }
  {
    Count want = ex.failures.value_or(Count{Count::Kind::none, 0});
    ExpectationResult r = judge_count(want, failed, judged, exhausted, first_failure, first_ok, "failed");
    if (want.kind != Count::Kind::some && r.holds) r.inconclusive = !exhausted;
    if (r.inconclusive) r.holds = false;
    add(fmt::format("failures {}", format_count(want)), ex.failures ? ex.failures_origin : ex.origin, r);
  }
  if (ex.executions) {
    ExpectationResult r;
    r.holds = exhausted && rep.result.executions == *ex.executions;
    if (!r.holds) {
      r.inconclusive = !exhausted && rep.result.executions < *ex.executions;
      r.detail = fmt::format("{} executions{}", rep.result.executions, exhausted ? "" : " before the search stopped");
    }
    add(fmt::format("executions {}", *ex.executions), ex.executions_origin, r);
  }
  return rep;
}

}  // namespace

bool RunReport::all_hold() const {
  for (const ModelReport& m : models)
    for (const ExpectationResult& e : m.expectations)
      if (!e.holds) return false;
  return true;
}

bool RunReport::any_inconclusive() const {
  for (const ModelReport& m : models)
    for (const ExpectationResult& e : m.expectations)
      if (!e.holds && e.inconclusive) return true;
  return false;
}

int RunReport::exit_code() const {
  bool refuted = false;
  for (const ModelReport& m : models)
    for (const ExpectationResult& e : m.expectations)
      if (!e.holds && !e.inconclusive) refuted = true;
  if (refuted) return 1;
  bool undecided = false;  // a checker asked for with --checker that could not judge
  for (const ModelReport& m : models) undecided |= m.result.any_checker_undecided();
  return any_inconclusive() || undecided ? 3 : 0;
}

RunReport run_spec(const Spec& spec, const RunOptions& options) {
  std::vector<MemoryModelKind> models = options.memories;
  if (models.empty()) {
    if (spec.expect_sc.present || (!spec.expect_tso.present && !spec.expect_rc11.present))
      models.push_back(MemoryModelKind::sc);
    if (spec.expect_tso.present) models.push_back(MemoryModelKind::tso);
    if (spec.expect_rc11.present) models.push_back(MemoryModelKind::rc11);
  }
  RunReport report;
  for (MemoryModelKind m : models) {
    const Expectations& ex = m == MemoryModelKind::tso    ? spec.expect_tso
                             : m == MemoryModelKind::rc11 ? spec.expect_rc11
                                                          : spec.expect_sc;
    report.models.push_back(run_model(spec, ex, m, options));
  }
  return report;
}

std::string format_report(const Spec& spec, const RunReport& report) {
  std::string out = fmt::format("{}: {}{}\n", spec.file, spec.name,
                                spec.description.empty() ? "" : " - " + spec.description);
  std::size_t total = 0, failed = 0, undecided = 0;
  for (const ModelReport& m : report.models) {
    const ExploreResult& r = m.result;
    out += fmt::format("{}: {} ({} completed, {} failed, {} pruned by assume or a wait), strategy {}, {}, {:.3f} s\n",
                       model_name(m.memory), executions(r.executions), r.completed, r.failures_total(), r.pruned, m.strategy,
                       m.exhaustive ? std::string("exhaustive") : "not exhaustive: " + m.not_exhaustive_why,
                       r.elapsed_seconds);
    for (const CheckerSummary& c : r.checkers)
      out += fmt::format("  checker {}: flagged {} of {} executions{}\n", c.name, c.flagged, r.executions,
                         c.undecided ? fmt::format(", undecided on {} ({})", c.undecided, c.first_undecided) : "");
    for (const auto& [o, n] : m.outcomes) out += fmt::format("  outcome {}  ({})\n", o, executions(n));
    for (const ExpectationResult& e : m.expectations) {
      ++total;
      if (e.holds) {
        out += fmt::format("  ok    {}\n", e.what);
        continue;
      }
      if (e.inconclusive) ++undecided;
      else ++failed;
      out += fmt::format("  {} {}  [{}:{}:{} {}]\n    {}\n", e.inconclusive ? "UNDECIDED" : "FAIL ", e.what,
                         spec.file, e.origin.pos.line, e.origin.pos.col,
                         e.origin.pointer.empty() ? "/" : e.origin.pointer, e.detail);
    }
  }
  if (failed == 0 && undecided == 0)
    out += fmt::format("PASS: all {} expectations hold\n", total);
  else
    out += fmt::format("{}: {} of {} expectations failed, {} undecided\n", failed ? "FAIL" : "UNDECIDED",
                       failed, total, undecided);
  return out;
}

}  // namespace atomcheck::spec
