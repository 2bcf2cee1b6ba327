// herd7 litmus tests, the dialect-independent part: loading a file and handing it to its
// dialect's parser (litmus_x86.cpp, litmus_c.cpp), the condition (printing and evaluation), the
// exhaustive run onto the scheduler API with herd7's witness counts, herd7's output
// layout and the `run FILE.litmus` command.
#include "specs/litmus.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <deque>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "scheduler/runtime/api.hpp"
#include "specs/litmus_c_run.hpp"
#include "specs/litmus_parser.hpp"

namespace atomcheck::litmus {

namespace {

// The title's first word, skipping blanks and (nested) OCaml comments before it; the
// dialect's parser reads the title again and reports what is wrong with it.
std::string_view dialect_word(std::string_view text) {
  std::size_t i = 0;
  int depth = 0;
  while (i < text.size()) {
    if (text.compare(i, 2, "(*") == 0) {
      ++depth;
      i += 2;
    } else if (depth > 0 && text.compare(i, 2, "*)") == 0) {
      --depth;
      i += 2;
    } else if (depth > 0 || std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
    } else {
      break;
    }
  }
  std::size_t e = i;
  while (e < text.size() && !std::isspace(static_cast<unsigned char>(text[e]))) ++e;
  return text.substr(i, e - i);
}

// The race detector reports a race as a failure whose message says "data race".
bool is_data_race(const Failure& f) { return f.kind == FailureKind::data_race; }

}  // namespace

Test parse_litmus(std::string_view text, std::string_view file) {
  if (dialect_word(text) == "C") return detail::parse_c(text, file);
  return detail::parse_x86(text, file);
}

Test load_litmus(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LitmusError(fmt::format("{}: cannot open file", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_litmus(ss.str(), path);
}

std::string location_name(const Test& test, const Location& loc) {
  if (loc.is_reg && test.arch == Arch::c)
    return fmt::format("{}:{}", loc.thread,
                       test.c_threads[static_cast<std::size_t>(loc.thread)].locals[static_cast<std::size_t>(loc.reg)]);
  if (loc.is_reg) return fmt::format("{}:{}", loc.thread, register_name(test.arch, loc.reg));
  return fmt::format("[{}]", test.vars[loc.var]);
}

namespace {

// Precedence: disjunction 1, conjunction 2, atoms and negation 4. An implication is put
// in parentheses everywhere but at the top and on the right of another (herd binds `=>`
// tighter than `/\\` and to the right; the parentheses spare the reader that rule).
constexpr int kTop = 0, kImpliesRhs = 100;
void print_node(const Test& test, std::uint32_t i, int context, std::string& out) {
  const CondNode& n = test.condition.nodes[i];
  switch (n.kind) {
    case CondNode::Kind::atom:
      out += fmt::format("{}={}", location_name(test, test.observed[n.loc]), n.value);
      return;
    case CondNode::Kind::same:
      out += fmt::format("{}={}", location_name(test, test.observed[n.loc]),
                         location_name(test, test.observed[n.loc2]));
      return;
    case CondNode::Kind::truth:
      out += "true";
      return;
    case CondNode::Kind::falsity:
      out += "false";
      return;
    case CondNode::Kind::negation:
      out += "~";
      print_node(test, n.lhs, 4, out);
      return;
    case CondNode::Kind::implies: {
      bool paren = context != kTop && context != kImpliesRhs;
      if (paren) out += "(";
      print_node(test, n.lhs, 4, out);
      out += " => ";
      print_node(test, n.rhs, kImpliesRhs, out);
      if (paren) out += ")";
      return;
    }
    case CondNode::Kind::conj:
    case CondNode::Kind::disj: {
      // `a /\ b /\ c` is a left-deep tree, as long as the file makes it: its left spine
      // is walked, not recursed into (the recursion prints a left child of the same
      // operator in the parent's own precedence, without parentheses).
      int prec = n.kind == CondNode::Kind::conj ? 2 : 1;
      std::vector<std::uint32_t> rights;
      std::uint32_t left = i;
      for (; test.condition.nodes[left].kind == n.kind; left = test.condition.nodes[left].lhs)
        rights.push_back(test.condition.nodes[left].rhs);
      if (prec < context) out += "(";
      print_node(test, left, prec, out);
      for (auto r = rights.rbegin(); r != rights.rend(); ++r) {
        out += n.kind == CondNode::Kind::conj ? " /\\ " : " \\/ ";
        print_node(test, *r, prec + 1, out);
      }
      if (prec < context) out += ")";
      return;
    }
  }
}

bool eval_node(const Test& test, std::uint32_t i, const std::vector<std::int64_t>& state) {
  const CondNode& n = test.condition.nodes[i];
  switch (n.kind) {
    case CondNode::Kind::atom: return state[n.loc] == n.value;
    case CondNode::Kind::same: return state[n.loc] == state[n.loc2];
    case CondNode::Kind::truth: return true;
    case CondNode::Kind::falsity: return false;
    case CondNode::Kind::negation: return !eval_node(test, n.lhs, state);
    case CondNode::Kind::conj:
    case CondNode::Kind::disj: {
      // Along the left spine of a chain, as print_node: the right operands from the last
      // one back, then the leftmost (the nodes have no side effects to order).
      const bool conj = n.kind == CondNode::Kind::conj;
      std::uint32_t left = i;
      for (; test.condition.nodes[left].kind == n.kind; left = test.condition.nodes[left].lhs)
        if (eval_node(test, test.condition.nodes[left].rhs, state) != conj) return !conj;
      return eval_node(test, left, state);
    }
    case CondNode::Kind::implies: return !eval_node(test, n.lhs, state) || eval_node(test, n.rhs, state);
  }
  return false;
}

}  // namespace

std::string condition_text(const Test& test) {
  std::string body;
  print_node(test, test.condition.root, 0, body);
  std::string_view q = test.condition.quantifier == Quantifier::exists       ? "exists"
                       : test.condition.quantifier == Quantifier::not_exists ? "~exists"
                                                                              : "forall";
  return fmt::format("{} ({})", q, body);
}

bool eval_proposition(const Test& test, const std::vector<std::int64_t>& state) {
  return eval_node(test, test.condition.root, state);
}

bool eval_filter(const Test& test, const std::vector<std::int64_t>& state) {
  return !test.condition.has_filter || eval_node(test, test.condition.filter_root, state);
}

namespace {

// herd7 counts executions as distinct (reads-from, coherence order) pairs. Both follow
// from the event sequence: a write is named by (thread, its ordinal among that thread's
// writes), the initial value by 0; a read takes the newest own buffered write when it
// was served by the buffer, else the write memory holds; coherence is the order in
// which writes reach memory (commits under TSO). The key lists reads per thread in
// program order and coherence per variable, so interleavings of one execution share it.
std::vector<std::int64_t> execution_key(const Trace& trace, bool tso) {
  std::uint32_t threads = 0, vars = 0;
  for (const Event& e : trace.events) {
    threads = std::max(threads, e.thread + 1);
    if (is_access(e.op)) vars = std::max(vars, e.target + 1);
  }
  struct Pending {
    VarId var;
    std::int64_t id;
  };
  std::vector<std::deque<Pending>> buffer(threads);
  std::vector<std::int64_t> written(threads, 0), memory(vars, 0);
  std::vector<std::vector<std::int64_t>> reads(threads), co(vars);
  auto new_id = [&](ThreadId t) { return (static_cast<std::int64_t>(t) << 24) | ++written[t]; };
  for (const Event& e : trace.events) {
    switch (e.op) {
      case Op::read: {
        std::int64_t src = memory[e.target];
        if (e.buffered) {
          const auto& b = buffer[e.thread];
          for (auto it = b.rbegin(); it != b.rend(); ++it)
            if (it->var == e.target) {
              src = it->id;
              break;
            }
        }
        reads[e.thread].push_back(src);
        break;
      }
      case Op::write: {
        std::int64_t id = new_id(e.thread);
        if (tso) {
          buffer[e.thread].push_back({e.target, id});
        } else {
          memory[e.target] = id;
          co[e.target].push_back(id);
        }
        break;
      }
      case Op::commit: {
        auto& b = buffer[e.thread];
        if (b.empty()) break;  // cannot happen in a well-formed TSO execution
        Pending p = b.front();
        b.pop_front();
        memory[p.var] = p.id;
        co[p.var].push_back(p.id);
        break;
      }
      case Op::rmw: {
        reads[e.thread].push_back(memory[e.target]);
        std::int64_t id = new_id(e.thread);
        memory[e.target] = id;
        co[e.target].push_back(id);
        break;
      }
      default: break;
    }
  }
  std::vector<std::int64_t> key;
  for (const auto& r : reads) {
    key.insert(key.end(), r.begin(), r.end());
    key.push_back(-1);
  }
  for (const auto& c : co) {
    key.insert(key.end(), c.begin(), c.end());
    key.push_back(-1);
  }
  return key;
}

}  // namespace

Program litmus_program(const Test& test) {
  std::vector<std::string> names;
  for (const Location& l : test.observed) names.push_back(location_name(test, l));
  return test.arch == Arch::c ? detail::c_program(test, std::move(names), nullptr, false)
                              : detail::x86_program(test, std::move(names));
}

ExploreOptions litmus_defaults() {
  ExploreOptions o;
  o.strategy = StrategyKind::optimal;
  return o;
}

bool litmus_strategy(StrategyKind kind) {
  return kind == StrategyKind::dfs || kind == StrategyKind::dpor || kind == StrategyKind::optimal;
}

RunResult run_litmus(const Test& test, MemoryModelKind memory, const ExploreOptions& base) {
  if (!litmus_strategy(base.strategy)) {
    RunResult bad;
    bad.memory = memory;
    bad.strategy = base.strategy;
    bad.complete = false;
    bad.error = "litmus tests are explored exhaustively: use the dfs, dpor or optimal strategy";
    return bad;
  }
  ExploreOptions options = base;
  options.memory = memory;
  // Final states are all a litmus test observes: the coarsest equivalence is exact.
  options.equivalence = Equivalence::automatic;
  options.count_classes = true;
  options.preemption_bound = -1;
  options.depth_bound = 0;
  options.replay.clear();
  options.checkers.clear();
  // A data race is C's undefined behaviour, not the end of the search: herd's states
  // still cover every execution.
  options.stop_on_failure = test.arch != Arch::c;

  std::vector<std::string> names;
  std::map<std::string, std::size_t, std::less<>> index;
  for (const Location& l : test.observed) {
    index.emplace(location_name(test, l), names.size());
    names.push_back(location_name(test, l));
  }

  // A C test records its accesses' lines for the race report, and its final state even
  // when a race failed the execution (herd lists the racy executions' states too). Under
  // rc11 its plain locations are relaxed atomics, which read what rc11.cat lets a plain
  // read read; its races are then found from the graph (c_races_rc11).
  const bool c_test = test.arch == Arch::c;
  detail::CRecord record;
  Program program = c_test ? detail::c_program(test, names, &record, memory == MemoryModelKind::rc11)
                           : litmus_program(test);
  if (c_test) options.jobs = 1;  // the record is the last execution's: one at a time

  std::set<std::vector<std::int64_t>> states;
  std::map<std::vector<std::int64_t>, bool> executions;  // key -> proposition holds
  std::set<Race> races;
  std::string error;
  const bool tso = memory == MemoryModelKind::tso;
  bool racy = false;
  auto on_execution = [&](const ExecutionView& view) {
    const bool race_failure = view.failure != nullptr && is_data_race(*view.failure);
    if (view.failure != nullptr && !race_failure) {
      if (error.empty()) error = view.failure->message;
      return;
    }
    std::vector<std::int64_t> state(names.size(), 0);
    if (race_failure) {
      if (!c_test || !record.finished) return;
      state = record.state;
    } else {
      if (view.outcome == nullptr) return;
      for (const auto& [name, value] : *view.outcome) {
        auto it = index.find(name);
        if (it != index.end()) state[it->second] = value;
      }
    }
    if (!eval_filter(test, state)) return;  // herd's filter discards the execution
    if (race_failure) {
      racy = true;
      Race race;
      if (view.trace != nullptr &&
          detail::c_race_of(test, *view.trace, record, view.failure->race_first, view.failure->race_second, race))
        races.insert(race);
    } else if (c_test && memory == MemoryModelKind::rc11 && view.trace != nullptr) {
      for (const Race& race : detail::c_races_rc11(test, *view.trace, record)) {
        racy = true;
        races.insert(race);
      }
    }
    state.resize(test.shown);
    bool holds = eval_proposition(test, state);
    states.insert(state);
    // Under RC11 the trace's order says nothing of rf and mo: the graph is the key.
    if (memory == MemoryModelKind::rc11)
      executions.emplace(std::vector<std::int64_t>{static_cast<std::int64_t>(view.rf_co_key)}, holds);
    else
      executions.emplace(execution_key(*view.trace, tso), holds);
  };
  ExploreResult res = explore(program, options, on_execution);

  RunResult out;
  out.memory = memory;
  out.executions = res.executions;
  out.classes = res.classes;
  out.rf_co_classes = res.rf_co_classes;
  out.equivalence = res.equivalence;
  out.strategy = options.strategy;
  out.elapsed_seconds = res.elapsed_seconds;
  out.end = search_end(res);
  out.end_text = search_end_text(res);
  out.complete = res.exhausted() && !res.bounded;
  if (!res.error.empty()) out.error = res.error;
  else if (!error.empty()) out.error = error;
  else if (!res.failures.empty() && !is_data_race(res.failures.front()))
    out.error = res.failures.front().message;
  out.racy = racy;
  out.races.assign(races.begin(), races.end());
  out.states.assign(states.begin(), states.end());
  for (const auto& s : out.states) out.state_matches.push_back(eval_proposition(test, s));
  std::uint64_t holds = 0, fails = 0;
  for (const auto& [key, h] : executions) (h ? holds : fails) += 1;
  bool reachable = out.reachable();
  switch (test.condition.quantifier) {
    case Quantifier::exists:
      out.ok = reachable;
      out.positive = holds;
      out.negative = fails;
      break;
    case Quantifier::not_exists:
      out.ok = !reachable;
      out.positive = fails;
      out.negative = holds;
      break;
    case Quantifier::forall:
      out.ok = fails == 0 && std::all_of(out.state_matches.begin(), out.state_matches.end(),
                                         [](bool b) { return b; });
      out.positive = holds;
      out.negative = fails;
      break;
  }
  return out;
}

namespace {

std::string_view kind_verb(RaceAccess::Kind k) {
  return k == RaceAccess::Kind::read ? "reads" : k == RaceAccess::Kind::write ? "writes" : "updates";
}

}  // namespace

std::string race_text(const Test& test, const Race& race) {
  const std::string& var = test.vars[race.var];
  return fmt::format("P{} {} {} at line {}, P{} {} {} at line {}", race.first.thread, kind_verb(race.first.kind), var,
                     race.first.line, race.second.thread, kind_verb(race.second.kind), var, race.second.line);
}

std::string format_herd(const Test& test, const RunResult& r) {
  std::string out;
  std::string_view kind = test.condition.quantifier == Quantifier::exists       ? "Allowed"
                          : test.condition.quantifier == Quantifier::not_exists ? "Forbidden"
                                                                                 : "Required";
  out += fmt::format("Test {} {}\n", test.name, kind);
  out += fmt::format("States {}\n", r.states.size());
  for (const auto& s : r.states) {
    std::string line;
    for (std::size_t i = 0; i < s.size(); ++i)
      line += fmt::format("{}={}; ", location_name(test, test.observed[i]), s[i]);
    if (!line.empty()) line.pop_back();
    out += line + "\n";
  }
  // herd7 (herd/top_herd.ml) answers Undef when an execution has undefined behaviour (a
  // data race under rc11.cat's `undefined_unless empty dr`) and flags it `*undef*`.
  out += r.racy ? "Undef\n" : r.ok ? "Ok\n" : "No\n";
  out += "Witnesses\n";
  out += fmt::format("Positive: {} Negative: {}\n", r.positive, r.negative);
  if (r.racy) out += "Flag *undef*\n";
  out += fmt::format("Condition {}\n", condition_text(test));
  // Observation counts executions where the bare proposition holds / does not.
  std::uint64_t holds = test.condition.quantifier == Quantifier::not_exists ? r.negative : r.positive;
  std::uint64_t fails = test.condition.quantifier == Quantifier::not_exists ? r.positive : r.negative;
  std::string_view obs = holds == 0 ? "Never" : fails == 0 ? "Always" : "Sometimes";
  out += fmt::format("Observation {} {} {} {}\n", test.name, obs, holds, fails);
  out += fmt::format("Memory {}\n", r.memory == MemoryModelKind::sc ? "SC" : r.memory == MemoryModelKind::tso ? "TSO" : "RC11");
  if (!r.races.empty()) {
    // Ours, not herd's: where the undefined behaviour is.
    std::string line = r.races.size() == 1 ? "Data race: " : "Data races: ";
    for (std::size_t i = 0; i < r.races.size(); ++i) line += (i > 0 ? "; " : "") + race_text(test, r.races[i]);
    out += line + "\n";
  }
  if (!r.complete) out += "Incomplete: the search stopped before exhausting the executions\n";
  if (!r.error.empty()) out += fmt::format("Error: {}\n", r.error);
  return out;
}

std::string explored_line(const RunResult& r) {
  return fmt::format("Explored {} executions, {} classes ({}), strategy {}{}\n", r.executions,
                     r.classes, equivalence_name(r.equivalence), strategy_name(r.strategy),
                     r.complete ? "" : fmt::format(", stopped: {}", r.end_text));
}

bool litmus_memory_models(std::string_view name, Arch arch, std::vector<MemoryModelKind>& out,
                          std::string& error) {
  out.clear();
  // C tests default to the C11 model, as herd7 runs them; X86 tests to TSO.
  if (name.empty()) name = arch == Arch::c ? "rc11" : "tso";
  if (name == "rc11" && arch != Arch::c) {
    error = "--memory rc11 applies to C litmus tests (an X86 test runs under tso or sc)";
    return false;
  }
  if (name == "sc" || name == "both") out.push_back(MemoryModelKind::sc);
  if (name == "tso" || name == "both") out.push_back(MemoryModelKind::tso);
  if (name == "rc11") out.push_back(MemoryModelKind::rc11);
  if (out.empty()) {
    error = fmt::format("--memory must be sc, tso, both or rc11, not '{}'", name);
    return false;
  }
  return true;
}

int run_litmus_command(const std::string& path, std::string_view memory, const ExploreOptions& base,
                       bool json) {
  std::vector<MemoryModelKind> models;
  std::string error;
  // The name is checked before the file is read; an empty one waits for the dialect.
  if (!memory.empty() && memory != "rc11" && !litmus_memory_models(memory, Arch::x86, models, error)) {
    fmt::print(stderr, "atomcheck: {}\n", error);
    return 2;
  }
  Test test;
  try {
    test = load_litmus(path);
  } catch (const LitmusError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  if (!litmus_memory_models(memory, test.arch, models, error)) {
    fmt::print(stderr, "atomcheck: {}: {}\n", path, error);
    return 2;
  }
  int rc = 0;
  nlohmann::json out = {{"test", test.name}, {"file", path}, {"condition", condition_text(test)}};
  out["results"] = nlohmann::json::array();
  for (std::size_t i = 0; i < models.size(); ++i) {
    RunResult r = run_litmus(test, models[i], base);
    if (!r.error.empty()) rc = std::max(rc, 1);
    else if (!r.complete) rc = std::max(rc, 3);
    if (json) {
      nlohmann::json j = {{"memory", memory_model_name(r.memory)},
                          {"strategy", std::string(strategy_name(r.strategy))},
                          {"equivalence", std::string(equivalence_name(r.equivalence))},
                          {"ok", r.ok},
                          {"reachable", r.reachable()},
                          {"positive", r.positive},
                          {"negative", r.negative},
                          {"executions", r.executions},
                          {"classes", r.classes},
                          {"rf_co_classes", r.rf_co_classes},
                          {"complete", r.complete},
                          {"racy", r.racy},
                          {"answer", r.racy ? "Undef" : r.ok ? "Ok" : "No"},
                          {"stop", std::string(search_end_name(r.end))},
                          {"stop_detail", r.end_text},
                          {"elapsed_seconds", r.elapsed_seconds}};
      j["states"] = nlohmann::json::array();
      for (std::size_t s = 0; s < r.states.size(); ++s) {
        nlohmann::json st = nlohmann::json::object();
        for (std::size_t k = 0; k < test.shown; ++k)
          st[location_name(test, test.observed[k])] = r.states[s][k];
        j["states"].push_back({{"values", st}, {"matches", static_cast<bool>(r.state_matches[s])}});
      }
      j["races"] = nlohmann::json::array();
      for (const Race& race : r.races) {
        auto side = [](const RaceAccess& a) {
          return nlohmann::json{{"thread", a.thread}, {"line", a.line}, {"access", std::string(kind_verb(a.kind))}};
        };
        j["races"].push_back({{"location", test.vars[race.var]}, {"first", side(race.first)}, {"second", side(race.second)},
                              {"text", race_text(test, race)}});
      }
      if (!r.error.empty()) j["error"] = r.error;
      out["results"].push_back(j);
      continue;
    }
    if (i > 0) fmt::print("\n");
    fmt::print("{}{}", format_herd(test, r), explored_line(r));
    std::fflush(stdout);
  }
  if (json) fmt::print("{}\n", out.dump());
  return rc;
}

bool RunResult::reachable() const {
  return std::find(state_matches.begin(), state_matches.end(), true) != state_matches.end();
}

}  // namespace atomcheck::litmus