// The steps of one execution that the search (explore_search.cpp) and the units that explore
// ahead of it (explore_units.cpp) share: running it with the search's settings, judging
// it, checking the program is deterministic and taking its facts. One definition, so a
// unit's execution counts exactly as one the search ran itself.
#include "scheduler/explore/explore_internal.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <tuple>

#include <fmt/core.h>

#include "checkers/registry.hpp"
#include "trace/sc_order.hpp"
#include "trace/transactions.hpp"
#include "scheduler/search/equivalence.hpp"
#include "scheduler/search/strategy.hpp"

namespace atomcheck::detail {

namespace {

std::string transition_text(const Transition& t) {
  return fmt::format("T{} {} #{}", t.thread, action_name(t.action), t.target);
}
std::string events_text(const std::vector<Event>& ev, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < ev.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += fmt::format("T{} {} #{}", ev[i].thread, op_name(ev[i].op), ev[i].target);
    if (is_access(ev[i].op)) out += fmt::format(" = {}", ev[i].value);
  }
  return out.empty() ? "nothing" : out;
}
bool same_event(const Event& a, const Event& b) {
  return a.op == b.op && a.thread == b.thread && a.target == b.target && a.value == b.value &&
         a.value2 == b.value2;
}

}  // namespace


std::string compare_with_previous(const History& prev, const std::vector<Event>& prev_ev,
                                  const History& now, const std::vector<Event>& now_ev) {
  const std::size_t n = std::min(prev.steps(), now.steps());
  auto text_of = [](std::span<const Transition> ts) {
    std::string out;
    for (const Transition& t : ts) out += (out.empty() ? "" : ", ") + transition_text(t);
    return out;
  };
  std::size_t po = 0, no = 0;  // into prev.options, now.options
  for (std::size_t i = 0; i < n; ++i) {
    auto a = prev.enabled_at(i), b = now.enabled_at(i);
    if (!std::equal(a.begin(), a.end(), b.begin(), b.end()))
      return fmt::format("the program is not deterministic: at step {} the enabled transitions were "
                         "[{}] in the previous execution and are [{}] now, after the same steps "
                         "(does some state outlive an execution?)",
                         i, text_of(a), text_of(b));
    if (!(prev.chosen[i] == now.chosen[i])) break;
    // The memory model's choices in this step must agree too (RC11).
    bool same_options = true;
    for (; po < prev.options.size() && prev.options[po].first == i; ++po, ++no)
      same_options = same_options && no < now.options.size() && now.options[no] == prev.options[po];
    if (!same_options || (no < now.options.size() && now.options[no].first == i)) break;
    std::size_t pa = i ? prev.step_events_end[i - 1] : 0, pb = prev.step_events_end[i];
    std::size_t na = i ? now.step_events_end[i - 1] : 0, nb = now.step_events_end[i];
    bool same = pb - pa == nb - na;
    for (std::size_t k = 0; same && k < pb - pa; ++k) same = same_event(prev_ev[pa + k], now_ev[na + k]);
    if (!same)
      return fmt::format("the program is not deterministic: step {} ({}) did [{}] in the previous "
                         "execution and does [{}] now, after the same steps (does some state "
                         "outlive an execution?)",
                         i, transition_text(now.chosen[i]), events_text(prev_ev, pa, pb),
                         events_text(now_ev, na, nb));
  }
  return "";
}

void push_record(std::vector<std::uint64_t>& out, const History& h, const std::vector<Event>& events) {
  out.push_back(h.steps());
  std::span<const Transition> before;
  for (std::size_t i = 0; i < h.steps(); ++i) {
    push_transition(out, h.chosen[i]);
    const auto now = h.enabled_at(i);
    out.push_back(now.size());
    const std::size_t mask_at = out.size();  // bit j: entry j differs from the step before
    out.resize(out.size() + (now.size() + 63) / 64);
    for (std::size_t j = 0; j < now.size(); ++j)
      if (j >= before.size() || !(now[j] == before[j])) {
        out[mask_at + j / 64] |= std::uint64_t{1} << (j % 64);
        push_transition(out, now[j]);
      }
    before = now;
    out.push_back(h.step_events_end[i]);
  }
  out.push_back(h.options.size());
  for (const auto& [step, option] : h.options) out.push_back(std::uint64_t{step} << 32 | option);
  out.push_back(events.size());
  for (const Event& e : events)
    out.insert(out.end(), {static_cast<std::uint64_t>(e.op) | std::uint64_t{e.thread} << 32, e.target,
                           static_cast<std::uint64_t>(e.value), static_cast<std::uint64_t>(e.value2)});
}

bool read_record(WordReader& in, History& h, std::vector<Event>& events) {
  h.clear();
  std::uint64_t steps = 0;
  if (!in.word(steps) || steps > in.left() / 4) return false;
  std::uint32_t before_begin = 0, before_size = 0;
  for (std::uint64_t i = 0; i < steps; ++i) {
    Transition t;
    std::uint64_t n = 0, end = 0;
    if (!in.transition(t) || !in.word(n) || n == 0 || n > in.left()) return false;
    h.chosen.push_back(t);
    const auto begin = static_cast<std::uint32_t>(h.enabled.size());
    h.enabled_begin.push_back(begin);
    const std::size_t mask_at = in.at;
    if ((n + 63) / 64 > in.left()) return false;
    in.at += (n + 63) / 64;
    for (std::size_t j = 0; j < n; ++j) {
      if ((in.in[mask_at + j / 64] >> (j % 64)) & 1) {
        if (!in.transition(t)) return false;
        h.enabled.push_back(t);
      } else if (j < before_size) {
        const Transition same = h.enabled[before_begin + j];
        h.enabled.push_back(same);
      } else {
        return false;
      }
    }
    before_begin = begin;
    before_size = static_cast<std::uint32_t>(n);
    if (!in.word(end) || (!h.step_events_end.empty() && end < h.step_events_end.back()) || end > 0xffffffffu)
      return false;
    h.step_events_end.push_back(static_cast<std::uint32_t>(end));
  }
  std::uint64_t options = 0, n = 0;
  if (!in.word(options) || options > in.left()) return false;
  for (std::uint64_t k = 0; k < options; ++k) {
    std::uint64_t w = 0;
    in.word(w);
    if ((w >> 32) >= steps || (k > 0 && (w >> 32) < h.options.back().first)) return false;
    h.options.emplace_back(static_cast<std::uint32_t>(w >> 32), static_cast<std::uint32_t>(w));
  }
  if (!in.word(n) || n > in.left() / 4 || (steps > 0 && h.step_events_end.back() > n)) return false;
  events.resize(n);
  for (Event& e : events) {
    std::uint64_t a = 0, target = 0, value = 0, value2 = 0;
    in.word(a), in.word(target), in.word(value), in.word(value2);
    if ((a & 0xffffffffu) > static_cast<std::uint64_t>(Op::end) || target > 0xffffffffu) return false;
    e = Event{};
    e.op = static_cast<Op>(a & 0xffffffffu);
    e.thread = static_cast<ThreadId>(a >> 32);
    e.target = static_cast<std::uint32_t>(target);
    e.value = static_cast<std::int64_t>(value);
    e.value2 = static_cast<std::int64_t>(value2);
  }
  return true;
}

Judges::Judges(const ExploreOptions& o) : options(o.checker_options) {
  if (o.make_prepare) prepare = o.make_prepare();
  for (const std::string& name : o.checkers) {
    auto c = make_checker(name, o.checker_options);
    if (!c) throw std::invalid_argument(fmt::format("unknown checker '{}'", name));
    checkers.push_back(std::move(c));
  }
  verdicts.resize(checkers.size());
}

void Judges::judge(const ExploreOptions& o, detail::Execution& exec, bool judged) {
  verdicts.resize(checkers.size());  // collect() swaps them out
  if (!judged) {
    std::fill(verdicts.begin(), verdicts.end(), Verdict{});
    return;
  }
  if (!checkers.empty()) {
    const AtomicSets& declared = exec.atomic_sets();
    const AtomicSets& sets = declared == AtomicSets{} ? o.checker_options.atomic_sets : declared;
    if (!(sets == options.atomic_sets)) {
      options.atomic_sets = sets;
      for (std::size_t k = 0; k < checkers.size(); ++k) checkers[k] = make_checker(o.checkers[k], options);
    }
  }
  if (graph_memory(o)) return judge_rc11(o, exec);
  // SC checkers read the trace tau: the execution without its commits; TSO checkers
  // read the execution eta.
  for (std::size_t k = 0; k < checkers.size(); ++k) {
    Checker& c = *checkers[k];
    c.reset();
    for (const Event& e : exec.trace().events)
      if (e.op != Op::commit || c.wants_commits()) c.on_event(e);
    verdicts[k] = c.verdict();
  }
}

namespace {
// A verdict on the SC trace, with its event indices put back into the run's (order[i] is
// the run's index of the SC trace's i-th event). (witness_execution is the TSO trace
// checkers', which do not run under rc11.)
void to_run_indices(Verdict& v, const std::vector<EventIndex>& order) {
  for_each_event_index(v, [&](EventIndex& e) {
    if (e != kNoEvent && e < order.size()) e = order[e];
  });
}

// A non-SC execution's verdict: not conflict serializable for the checkers that decide
// it (an event cycle spans two transactions at least, as one thread's events follow po),
// with the cycle's edges between transactions as the witness; undecided for the others.
Verdict not_sc_verdict(Verdict v, std::string_view name, const Trace& trace, const ScOrder& order) {
  v.cycle.clear();
  v.blamed.clear();
  const std::string why = fmt::format(
      "the execution is not SC (po, rf, mo and fr have a cycle through {} events), so no trace orders it",
      order.cycle.size());
  if (!order.known || !checker_decides_conflict_serializability(name)) {
    v.undecided = order.known ? why : "no SC trace: " + order.why;
    return v;
  }
  const Transactions txns = assign_transactions(trace);
  auto ref = [&](EventIndex e) {
    const TxnInfo& t = txns.txns[txns.txn_of[e]];
    return TxnRef{t.thread, t.first};
  };
  v.serializable = false;
  for (std::size_t i = 0; i < order.cycle.size(); ++i) {
    const EventIndex a = order.cycle[i], b = order.cycle[(i + 1) % order.cycle.size()];
    if (txns.txn_of[a] != txns.txn_of[b]) v.cycle.push_back(CycleEdge{ref(a), ref(b), a, b});
  }
  v.detected_at = *std::max_element(order.cycle.begin(), order.cycle.end());
  v.note = why + " (decided on the execution graph, not by the checker)";
  return v;
}
}  // namespace

// Under rc11 the linearizability checker reads the run's trace (its precedence is RC11's
// happens-before); the others read the execution as an SC trace, which exists only for an
// SC execution (trace/sc_order.hpp).
void Judges::judge_rc11(const ExploreOptions& o, detail::Execution& exec) {
  const Trace& trace = exec.trace();
  std::optional<ScOrder> order;
  for (std::size_t k = 0; k < checkers.size(); ++k) {
    Checker& c = *checkers[k];
    c.reset();
    // (Under sc_graphs every execution is SC: every checker reads its SC trace.)
    if (o.memory == MemoryModelKind::rc11 && checker_reads_rc11_trace(c.name())) {
      for (const Event& e : trace.events) c.on_event(e);
      verdicts[k] = c.verdict();
      continue;
    }
    if (!order) {
      order = sc_order(trace);
      sc_trace.clear();
      if (order->sc()) in_sc_order(trace, *order, sc_trace);
    }
    if (!order->sc()) {
      verdicts[k] = not_sc_verdict(c.verdict(), c.name(), trace, *order);
      continue;
    }
    for (const Event& e : sc_trace) c.on_event(e);
    verdicts[k] = c.verdict();
    to_run_indices(verdicts[k], order->order);
  }
}

std::pair<std::uint64_t, std::uint64_t> class_keys_of(const detail::Execution& exec, bool tso,
                                                      Equivalence eq) {
  // Under RC11 the interleaving decides neither rf nor mo: the graph is the class.
  if (const std::uint64_t g = exec.graph_hash()) return {g, g};
  const std::uint64_t rf_co_hash = rf_co_key(exec.trace());
  // Under SC the reductions keep Mazurkiewicz's classes over dependent(), which are the
  // rf+co classes but for where a failed try_lock falls: count what they keep.
  switch (tso ? eq : Equivalence::step_order) {
    case Equivalence::step_order: return {class_key(exec.history()), rf_co_hash};
    case Equivalence::issue_order: return {issue_order_key(exec.history(), rf_co_hash), rf_co_hash};
    default: return {rf_co_hash, rf_co_hash};
  }
}

ExecutionView view_of(const RunFacts& f, detail::EndKind end, const Trace& trace, std::uint64_t index) {
  ExecutionView view;
  view.index = index;
  view.trace = &trace;
  view.schedule = f.schedule;
  view.failure = failed_end(end) ? &f.failure : nullptr;
  view.outcome = end == detail::EndKind::completed ? &f.outcome : nullptr;
  view.verdicts = &f.verdicts;
  view.class_key = f.class_hash;
  view.rf_co_key = f.rf_co_hash;
  return view;
}

void collect(RunFacts& f, detail::EndKind end, detail::Execution& exec, Judges& judges,
             const ExploreOptions& options, bool tso, Equivalence eq, bool need_schedule,
             bool want_flagged) {
  f.end = end;
  f.class_hash = f.rf_co_hash = 0;
  if (options.count_classes && end != detail::EndKind::aborted)
    std::tie(f.class_hash, f.rf_co_hash) = class_keys_of(exec, tso, eq);
  f.steps = exec.steps();
  f.events = exec.trace().size();
  if (failed_end(end)) {
    f.failure = exec.failure();
    f.failure.schedule = exec.schedule();
  }
  f.outcome.clear();
  if (end == detail::EndKind::completed) f.outcome = exec.outcome();
  judges.judge(options, exec, judged_end(end));
  std::swap(f.verdicts, judges.verdicts);
  f.schedule.clear();
  f.unmarked_spin = exec.history().unmarked_spin;
  if (need_schedule || !f.unmarked_spin.empty() || (want_flagged && std::any_of(f.verdicts.begin(), f.verdicts.end(), [](const Verdict& v) { return v.flags(); })))
    f.schedule = exec.schedule();
}

std::string wait_text(const History& h) {
  const std::string at = detail::call_site_name(h.wait_site);
  return fmt::format("{}{}", h.wait_construct, at.empty() ? "" : " at " + at);
}

// A field added to Verdict must travel too: this is Verdict's size as push_verdict()
// knows it (x86-64 with libstdc++, the build CI runs).
#if defined(__GLIBCXX__) && defined(__x86_64__)
static_assert(sizeof(Verdict) == 192, "a new Verdict field: add it to push_verdict and read_verdict");
#endif

void push_verdict(std::vector<std::uint64_t>& out, const Verdict& v) {
  push_string(out, v.checker);
  out.push_back((v.answers_serializability ? 1u : 0u) | (v.answers_blame ? 2u : 0u) | (v.serializable ? 4u : 0u) |
                (v.open_at_end ? 8u : 0u));
  out.push_back(v.detected_at);
  out.push_back(v.cycle.size());
  for (const CycleEdge& e : v.cycle)
    out.insert(out.end(), {e.from.thread, e.from.first, e.to.thread, e.to.first, e.from_event, e.to_event});
  out.push_back(v.blamed.size());
  for (const Blame& b : v.blamed) out.insert(out.end(), {b.txn.thread, b.txn.first, b.interfering, b.at});
  push_string(out, v.undecided);
  push_string(out, v.note);
  out.push_back(v.witness_execution.size());
  out.insert(out.end(), v.witness_execution.begin(), v.witness_execution.end());
}

bool read_verdict(WordReader& in, Verdict& v) {
  std::uint64_t flags = 0, n = 0;
  if (!in.text(v.checker) || !in.word(flags) || flags > 15 || !in.word(v.detected_at)) return false;
  v.answers_serializability = flags & 1;
  v.answers_blame = flags & 2;
  v.serializable = flags & 4;
  v.open_at_end = flags & 8;
  auto thread = [&](ThreadId& t) {
    std::uint64_t w = 0;
    if (!in.word(w) || w > std::numeric_limits<ThreadId>::max()) return false;
    t = static_cast<ThreadId>(w);
    return true;
  };
  if (!in.word(n) || n > in.left() / 6) return false;
  v.cycle.resize(n);
  for (CycleEdge& e : v.cycle)
    if (!thread(e.from.thread) || !in.word(e.from.first) || !thread(e.to.thread) || !in.word(e.to.first) ||
        !in.word(e.from_event) || !in.word(e.to_event))
      return false;
  if (!in.word(n) || n > in.left() / 4) return false;
  v.blamed.resize(n);
  for (Blame& b : v.blamed)
    if (!thread(b.txn.thread) || !in.word(b.txn.first) || !in.word(b.interfering) || !in.word(b.at)) return false;
  if (!in.text(v.undecided) || !in.text(v.note) || !in.word(n) || n > in.left()) return false;
  v.witness_execution.resize(n);
  for (EventIndex& e : v.witness_execution)
    if (!in.word(e)) return false;
  return true;
}

std::unique_ptr<detail::Execution> execution_for(const ExploreOptions& o) {
  auto x = std::make_unique<detail::Execution>(o.memory, o.stack_size, o.max_steps, o.spin_threshold);
  x->set_spurious_wakeups(o.spurious_wakeups);
  x->set_race_check(o.race_check);
  x->set_loop_reduction(o.loop_reduction);
  if (o.memory == MemoryModelKind::sc && o.sc_graphs) x->set_sc_graphs();
  x->set_lock_words(graph_memory(o) && o.rc11_revisits);
  x->set_cas_waits(graph_memory(o) && o.rc11_revisits && o.strategy == StrategyKind::optimal);
  x->set_heap_options(o.leak_check, o.reuse_freed);
  if (o.object_ids) x->set_object_ids(o.object_ids);
  x->set_depth_bound(o.depth_bound);
  x->set_graph_reduction(graph_memory(o) && o.strategy == StrategyKind::optimal &&
                         !o.rc11_revisits);
  return x;
}

ExploreOptions with_deadline(const ExploreOptions& given, std::chrono::steady_clock::time_point start) {
  ExploreOptions o = given;
  o.object_ids = std::make_shared<detail::ObjectIds>();
  o.checker_options.memory = static_cast<std::uint8_t>(given.memory);  // the checkers read events of this model
  Deadline& d = o.checker_options.deadline;
  Deadline search = Deadline::after(given.time_limit_seconds, given.interrupt, start);
  if (d.interrupt == nullptr) d.interrupt = search.interrupt;
  d.at = std::min(d.at, search.at);
  return o;
}

}  // namespace atomcheck::detail
