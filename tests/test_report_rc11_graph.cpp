// The RC11 execution graph of `run --memory rc11 --dot/--html` (cli/report_rc11_graph.*):
// sw drawn for release/acquire message passing (directly, through fences, through a
// release sequence of a later store and of an rmw) and not for relaxed; the modification
// order rebuilt from the trace agrees with the values the program reads after joining
// (2+2W: all four orders under relaxed, three under seq_cst); hb edges for thread start;
// hb agrees with the race detector's and keeps every read coherent on the model library;
// and the command writes both files under rc11 only.
#include <gtest/gtest.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/report_rc11_graph.hpp"
#include "cli/report_rc11_html.hpp"
#include "scheduler/explore/explore.hpp"
#include "scheduler/runtime/api.hpp"
#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

using report::Rc11Graph;
using report::Rc11Rel;

// The completed executions of `p` under rc11 (failures left out): DFS, every interleaving
// and every choice, so the graphs do not depend on which one a reduction keeps.
std::vector<Trace> rc11_executions(const Program& p) {
  ExploreOptions o;
  o.memory = MemoryModelKind::rc11;
  o.strategy = StrategyKind::dfs;
  o.stop_on_failure = false;
  std::vector<Trace> out;
  explore(p, o, [&](const ExecutionView& v) {
    if (!v.failure && !v.sleep_blocked) out.push_back(*v.trace);
  });
  return out;
}

// The index of the first event of thread t doing `op` on variable `var` (with value
// `value` unless value < 0), kNoEvent when there is none.
EventIndex find(const Trace& t, ThreadId thread, Op op, const std::string& var, std::int64_t value = -1) {
  for (EventIndex i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    if (e.thread == thread && e.op == op && t.names.var(e.target) == var && (value < 0 || e.value == value))
      return i;
  }
  return kNoEvent;
}
EventIndex find_fence(const Trace& t, ThreadId thread) {
  for (EventIndex i = 0; i < t.events.size(); ++i)
    if (t.events[i].thread == thread && t.events[i].op == Op::fence) return i;
  return kNoEvent;
}
std::size_t count_rel(const Rc11Graph& g, Rc11Rel rel) {
  std::size_t n = 0;
  for (const auto& e : g.edges) n += e.rel == rel;
  return n;
}

// Message passing: T1 writes data then flag = 1; T2 reads flag, then data.
void message_passing(std::memory_order store, std::memory_order load) {
  atomic<int> data(0, "data"), flag(0, "flag");
  thread a([&] {
    data.store(42, std::memory_order_relaxed);
    flag.store(1, store);
  });
  thread b([&] {
    if (flag.load(load) == 1) (void)data.load(std::memory_order_relaxed);
  });
  a.join();
  b.join();
}

// Checks every execution where T2 read flag = 1: whether the flag's store and load are
// joined by sw, and whether data's store then happens before data's load (RC11 then
// forbids the load to read the initial 0). Returns how many such executions there were.
std::size_t check_message_passing(const Program& p, bool synchronises) {
  std::size_t seen = 0;
  for (const Trace& t : rc11_executions(p)) {
    const EventIndex r = find(t, 2, Op::read, "flag", 1);
    if (r == kNoEvent) continue;
    ++seen;
    const EventIndex w = find(t, 1, Op::write, "flag"), dw = find(t, 1, Op::write, "data"),
                     dr = find(t, 2, Op::read, "data");
    EXPECT_NE(w, kNoEvent);
    EXPECT_NE(dr, kNoEvent);
    if (w == kNoEvent || dr == kNoEvent) continue;
    const Rc11Graph g = report::build_rc11_graph(t);
    EXPECT_TRUE(g.has_edge(w, r, Rc11Rel::rf));
    EXPECT_EQ(g.has_edge(w, r, Rc11Rel::sw), synchronises);
    EXPECT_EQ(count_rel(g, Rc11Rel::sw), synchronises ? 1u : 0u);
    EXPECT_EQ(g.hb(g.node_of[dw], g.node_of[dr]), synchronises);
    if (synchronises) {
      EXPECT_EQ(t.events[dr].value, 42);
    }
    EXPECT_TRUE(g.hb(g.node_of[dw], g.node_of[w]));  // po
    EXPECT_FALSE(g.hb(g.node_of[r], g.node_of[w]));
  }
  return seen;
}

TEST(Rc11Graph, ReleaseAcquireMessagePassingHasSw) {
  EXPECT_GT(check_message_passing([] { message_passing(std::memory_order_release, std::memory_order_acquire); },
                                  true),
            0u);
  EXPECT_GT(check_message_passing([] { message_passing(std::memory_order_seq_cst, std::memory_order_seq_cst); },
                                  true),
            0u);
}

TEST(Rc11Graph, RelaxedMessagePassingHasNoSw) {
  EXPECT_GT(check_message_passing([] { message_passing(std::memory_order_relaxed, std::memory_order_relaxed); },
                                  false),
            0u);
  // Half of it is not enough either.
  EXPECT_GT(check_message_passing([] { message_passing(std::memory_order_release, std::memory_order_relaxed); },
                                  false),
            0u);
  EXPECT_GT(check_message_passing([] { message_passing(std::memory_order_relaxed, std::memory_order_acquire); },
                                  false),
            0u);
}

// Relaxed accesses between a release fence and an acquire fence: sw joins the fences.
TEST(Rc11Graph, FencesSynchronise) {
  std::size_t seen = 0;
  for (const Trace& t : rc11_executions([] {
         atomic<int> data(0, "data"), flag(0, "flag");
         thread a([&] {
           data.store(42, std::memory_order_relaxed);
           atomic_thread_fence(std::memory_order_release);
           flag.store(1, std::memory_order_relaxed);
         });
         thread b([&] {
           if (flag.load(std::memory_order_relaxed) == 1) {
             atomic_thread_fence(std::memory_order_acquire);
             (void)data.load(std::memory_order_relaxed);
           }
         });
         a.join();
         b.join();
       })) {
    const EventIndex r = find(t, 2, Op::read, "flag", 1);
    if (r == kNoEvent) continue;
    ++seen;
    const Rc11Graph g = report::build_rc11_graph(t);
    const EventIndex f1 = find_fence(t, 1), f2 = find_fence(t, 2), w = find(t, 1, Op::write, "flag");
    ASSERT_NE(f1, kNoEvent);
    ASSERT_NE(f2, kNoEvent);
    EXPECT_TRUE(g.has_edge(f1, f2, Rc11Rel::sw));
    EXPECT_FALSE(g.has_edge(w, r, Rc11Rel::sw));
    EXPECT_EQ(count_rel(g, Rc11Rel::sw), 1u);
    EXPECT_TRUE(g.hb(g.node_of[find(t, 1, Op::write, "data")], g.node_of[find(t, 2, Op::read, "data")]));
  }
  EXPECT_GT(seen, 0u);
}

// A release sequence goes on through a later relaxed store of the same thread and through
// another thread's rmw: an acquire reading either synchronises with the release store.
TEST(Rc11Graph, ReleaseSequencesReachLaterStoresAndRmws) {
  std::size_t by_store = 0, by_rmw = 0;
  for (const Trace& t : rc11_executions([] {
         atomic<int> flag(0, "flag");
         thread a([&] {
           flag.store(1, std::memory_order_release);
           flag.store(2, std::memory_order_relaxed);
         });
         thread b([&] { (void)flag.load(std::memory_order_acquire); });
         thread c([&] { (void)flag.fetch_add(10, std::memory_order_relaxed); });
         a.join();
         b.join();
         c.join();
       })) {
    const Rc11Graph g = report::build_rc11_graph(t);
    const EventIndex rel = find(t, 1, Op::write, "flag", 1), later = find(t, 1, Op::write, "flag", 2),
                     r = find(t, 2, Op::read, "flag"), rmw = find(t, 3, Op::rmw, "flag");
    ASSERT_NE(r, kNoEvent);
    ASSERT_NE(rmw, kNoEvent);
    const EventIndex source = t.events[r].issue;
    if (source == later) {
      ++by_store;
      EXPECT_TRUE(g.has_edge(rel, r, Rc11Rel::sw));
    } else if (source == rmw && t.events[rmw].issue != kNoEvent) {
      ++by_rmw;
      // The rmw read one of T1's stores, both of which are in the release store's sequence.
      EXPECT_TRUE(g.has_edge(rel, r, Rc11Rel::sw));
      EXPECT_FALSE(g.has_edge(rmw, r, Rc11Rel::sw));  // relaxed itself
    } else if (source == kNoEvent || (source == rmw && t.events[rmw].issue == kNoEvent)) {
      EXPECT_EQ(count_rel(g, Rc11Rel::sw), 0u);  // the initial value heads no release sequence
    }
  }
  EXPECT_GT(by_store, 0u);
  EXPECT_GT(by_rmw, 0u);
}

// 2+2W: T1 writes x = 1, y = 2; T2 writes y = 1, x = 2; T0 reads both after the joins,
// which coherence makes read the mo-last write. The mo rebuilt from mo_pos must agree.
std::set<std::pair<std::int64_t, std::int64_t>> two_plus_two_w(std::memory_order mo) {
  std::set<std::pair<std::int64_t, std::int64_t>> finals;
  for (const Trace& t : rc11_executions([mo] {
         atomic<int> x(0, "x"), y(0, "y");
         thread a([&] {
           x.store(1, mo);
           y.store(2, mo);
         });
         thread b([&] {
           y.store(1, mo);
           x.store(2, mo);
         });
         a.join();
         b.join();
         (void)x.load(std::memory_order_relaxed);
         (void)y.load(std::memory_order_relaxed);
       })) {
    const Rc11Graph g = report::build_rc11_graph(t);
    std::int64_t last[2] = {0, 0};
    int k = 0;
    for (const std::string var : {"x", "y"}) {
      const EventIndex r = find(t, 0, Op::read, var);
      EXPECT_NE(r, kNoEvent);
      if (r == kNoEvent) return {};
      const VarId v = t.events[r].target;
      EXPECT_TRUE(g.mo_unknown.empty());
      if (v >= g.mo.size() || g.mo[v].size() != 3u) {
        ADD_FAILURE() << var << ": mo of " << (v < g.mo.size() ? g.mo[v].size() : 0) << " writes";
        return {};
      }
      const std::vector<EventIndex>& order = g.mo[v];
      EXPECT_EQ(order[0], kNoEvent);
      // The final read reads the mo-last write, and the graph draws rf from it and mo
      // between the two writes in that order.
      EXPECT_EQ(t.events[r].value, t.events[order[2]].value) << var;
      EXPECT_TRUE(g.has_edge(order[2], r, Rc11Rel::rf)) << var;
      EXPECT_TRUE(g.has_edge(order[1], order[2], Rc11Rel::mo)) << var;
      EXPECT_FALSE(g.has_edge(order[2], order[1], Rc11Rel::mo)) << var;
      last[k++] = t.events[r].value;
    }
    finals.emplace(last[0], last[1]);
  }
  return finals;
}

TEST(Rc11Graph, TwoPlusTwoWritesMoMatchesTheFinalValues) {
  using P = std::pair<std::int64_t, std::int64_t>;
  EXPECT_EQ(two_plus_two_w(std::memory_order_relaxed), (std::set<P>{{1, 1}, {1, 2}, {2, 1}, {2, 2}}));
  // seq_cst: x = 1 last and y = 1 last would put each thread's first write mo-after the
  // other's second, a psc cycle.
  EXPECT_EQ(two_plus_two_w(std::memory_order_seq_cst), (std::set<P>{{1, 2}, {2, 1}, {2, 2}}));
}

// Thread start and join order events that no po or sw edge joins: they are the hb edges.
TEST(Rc11Graph, ThreadStartAndJoinAreHbEdges) {
  const std::vector<Trace> runs = rc11_executions([] {
    atomic<int> x(0, "x");
    x.store(1, std::memory_order_relaxed);
    thread a([&] { x.store(2, std::memory_order_relaxed); });
    a.join();
    (void)x.load(std::memory_order_relaxed);
  });
  ASSERT_EQ(runs.size(), 1u);
  const Trace& t = runs[0];
  const Rc11Graph g = report::build_rc11_graph(t);
  const EventIndex w1 = find(t, 0, Op::write, "x"), w2 = find(t, 1, Op::write, "x"), r = find(t, 0, Op::read, "x");
  EXPECT_TRUE(g.has_edge(w1, w2, Rc11Rel::hb));
  EXPECT_TRUE(g.has_edge(w2, r, Rc11Rel::hb));
  EXPECT_TRUE(g.has_edge(w2, r, Rc11Rel::rf));
  EXPECT_TRUE(g.has_edge(w1, w2, Rc11Rel::mo));
  EXPECT_TRUE(g.has_edge(w1, r, Rc11Rel::po));
  EXPECT_EQ(count_rel(g, Rc11Rel::hb), 2u);
  EXPECT_EQ(count_rel(g, Rc11Rel::sw), 0u);
  EXPECT_EQ(t.events[r].value, 2);
}

// The graph's hb, computed from the trace by RC11's definition, against the race detector,
// which keeps its own happens-before as the execution runs (scheduler/memory/race.cpp): on
// every execution of every library model (the first 150 of each under DFS) and of message
// passing with plain data (relaxed, half release/acquire, release/acquire), a race-free
// execution has every two conflicting plain accesses of different threads ordered by hb
// and each plain read hb-after the write it read; a racy one has its reported pair
// unordered. And every read is coherent under the graph's hb and mo: no write mo-after
// the one it read happens before it.
struct Agreement {
  std::size_t executions = 0, ordered_pairs = 0, races = 0, reads = 0;
};

void check_against_race_detector(const Program& p, Agreement& a) {
  ExploreOptions o;
  o.memory = MemoryModelKind::rc11;
  o.strategy = StrategyKind::dfs;
  o.stop_on_failure = false;
  o.max_executions = 150;
  o.time_limit_seconds = 20;
  explore(p, o, [&](const ExecutionView& v) {
    if (v.failure && v.failure->kind != FailureKind::data_race) return;
    const Trace& t = *v.trace;
    const Rc11Graph g = report::build_rc11_graph(t);
    ++a.executions;
    std::vector<std::size_t> mo_index(t.events.size(), 0);  // 0: the initial value
    for (const std::vector<EventIndex>& order : g.mo)
      for (std::size_t k = 1; k < order.size(); ++k) mo_index[order[k]] = k;
    std::vector<EventIndex> plain;
    for (EventIndex r = 0; r < t.events.size(); ++r) {
      const Event& e = t.events[r];
      if (e.order == kPlainOrder) plain.push_back(r);
      if ((e.op != Op::read && e.op != Op::rmw) || e.order == kNoOrder || e.target >= g.mo.size() ||
          g.mo[e.target].empty())
        continue;
      ++a.reads;
      const std::size_t from = e.issue == kNoEvent ? 0 : mo_index[e.issue];
      for (std::size_t k = from + 1; k < g.mo[e.target].size(); ++k)
        EXPECT_FALSE(g.hb(g.node_of[g.mo[e.target][k]], g.node_of[r]))
            << "read #" << r << " is not coherent; schedule " << v.schedule;
    }
    if (v.failure) {
      const Failure& f = *v.failure;
      if (f.race_first >= t.events.size() || f.race_second >= t.events.size()) return;
      ++a.races;
      EXPECT_FALSE(g.hb(g.node_of[f.race_first], g.node_of[f.race_second])) << v.schedule;
      EXPECT_FALSE(g.hb(g.node_of[f.race_second], g.node_of[f.race_first])) << v.schedule;
      return;
    }
    for (std::size_t i = 0; i < plain.size(); ++i) {
      const Event& x = t.events[plain[i]];
      if (x.op == Op::read && x.issue != kNoEvent) {
        EXPECT_TRUE(g.hb(g.node_of[x.issue], g.node_of[plain[i]])) << v.schedule;
      }
      for (std::size_t j = i + 1; j < plain.size(); ++j) {
        const Event& y = t.events[plain[j]];
        if (x.target != y.target || x.thread == y.thread || (x.op == Op::read && y.op == Op::read)) continue;
        ++a.ordered_pairs;
        EXPECT_TRUE(g.hb(g.node_of[plain[i]], g.node_of[plain[j]])) << "#" << plain[i] << ", #" << plain[j] << "; "
                                                                     << v.schedule;
      }
    }
  });
}

void plain_message_passing(std::memory_order store, std::memory_order load) {
  shared<int> data(0, "data");
  atomic<int> flag(0, "flag");
  thread a([&] {
    data.set(42);
    flag.store(1, store);
  });
  thread b([&] {
    if (flag.load(load) == 1) (void)data.get();
  });
  a.join();
  b.join();
  data.set(0);  // after the joins: ordered with both
}

TEST(Rc11Graph, HbAgreesWithTheRaceDetector) {
  Agreement a;
  // Racy: neither half, either half alone.
  check_against_race_detector([] { plain_message_passing(std::memory_order_relaxed, std::memory_order_relaxed); }, a);
  check_against_race_detector([] { plain_message_passing(std::memory_order_release, std::memory_order_relaxed); }, a);
  check_against_race_detector([] { plain_message_passing(std::memory_order_relaxed, std::memory_order_acquire); }, a);
  EXPECT_GT(a.races, 0u);
  const std::size_t pairs = a.ordered_pairs;
  check_against_race_detector([] { plain_message_passing(std::memory_order_release, std::memory_order_acquire); }, a);
  EXPECT_GT(a.ordered_pairs, pairs);
  for (const ProgramInfo* p : registered_programs()) check_against_race_detector(p->body, a);
  std::printf("[rc11 graph] %zu executions, %zu reads, %zu ordered plain pairs, %zu races\n", a.executions, a.reads,
              a.ordered_pairs, a.races);
  EXPECT_GT(a.reads, 1000u);
}

std::size_t count_of(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The command: spsc-ring-weak-tail's producer stores tail relaxed, so the consumer's
// acquire load reads it without synchronising: the graph has that rf and no sw; the
// page marks the failure and has a checkbox per relation. A data race (bank-check-then-lock)
// has its two accesses marked and joined by a race line. Under sc the same option still
// draws the transaction graph.
TEST(Rc11Graph, RunWritesTheExecutionGraphUnderRc11) {
  const std::string dir = testing::temp_dir();
  auto search = testing::run_cli({"run", "spsc-ring-weak-tail", "--memory", "rc11", "--json", "--quiet"});
  ASSERT_EQ(search.exit_code, 1) << search.err;
  const std::string schedule = nlohmann::json::parse(search.out)["failures"][0]["schedule"];
  auto r = testing::run_cli({"run", "spsc-ring-weak-tail", "--memory", "rc11", "--replay", schedule, "--dot",
                             dir + "/g.dot", "--html", dir + "/g.html", "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json events = nlohmann::json::parse(r.out)["events"];
  long reader = -1, writer = -1;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i]["op"] == "read" && events[i]["var"] == "tail" && events[i]["thread"] == "T2" &&
        events[i]["reads"].is_number()) {
      reader = static_cast<long>(i);
      writer = events[i]["reads"].get<long>();
    }
  ASSERT_GE(reader, 0) << r.out;
  const std::string dot = read_all(dir + "/g.dot"), html = read_all(dir + "/g.html");
  EXPECT_NE(dot.find("digraph execution {"), std::string::npos) << dot;
  EXPECT_NE(dot.find(fmt::format("e{} -> e{} [label=\"rf\"", writer, reader)), std::string::npos) << dot;
  EXPECT_EQ(dot.find(fmt::format("e{} -> e{} [label=\"sw\"", writer, reader)), std::string::npos) << dot;
  EXPECT_NE(dot.find("relaxed"), std::string::npos);
  EXPECT_NE(dot.find("failure [shape=octagon"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"execution failed"), std::string::npos) << dot;
  EXPECT_NE(html.find("RC11 execution graph"), std::string::npos);
  for (const char* rel : {"po", "rf", "mo", "sw", "hb"})
    EXPECT_NE(html.find(fmt::format("id=\"show-{}\"", rel)), std::string::npos) << rel;
  EXPECT_NE(html.find("id=\"failure\""), std::string::npos);
  EXPECT_NE(html.find(fmt::format("<g class=\"node\" id=\"e{}\">", reader)), std::string::npos);

  // A data race: its two accesses are marked and joined by a race line.
  auto race = testing::run_cli({"run", "bank-check-then-lock", "--memory", "rc11", "--json", "--quiet"});
  ASSERT_EQ(race.exit_code, 1) << race.err;
  const nlohmann::json failure = nlohmann::json::parse(race.out)["failures"][0];
  ASSERT_EQ(failure["kind"], "data race") << race.out;
  r = testing::run_cli({"run", "bank-check-then-lock", "--memory", "rc11", "--replay", failure["schedule"], "--dot",
                        dir + "/r.dot", "--html", dir + "/r.html", "--json"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  // The line `  eA -> eB [label="race"...` joins two accesses of the variable the message
  // names, by different threads, one a write.
  const nlohmann::json ev = nlohmann::json::parse(r.out)["events"];
  const std::string race_dot = read_all(dir + "/r.dot");
  const std::size_t at = race_dot.find(" [label=\"race\"");
  ASSERT_NE(at, std::string::npos) << race_dot;
  const std::size_t line = race_dot.rfind('\n', at) + 1;
  unsigned a = 0, b = 0;
  ASSERT_EQ(std::sscanf(race_dot.c_str() + line, " e%u -> e%u", &a, &b), 2) << race_dot.substr(line, at - line);
  ASSERT_LT(a, ev.size());
  ASSERT_LT(b, ev.size());
  EXPECT_EQ(ev[a]["var"], "acct0");
  EXPECT_EQ(ev[b]["var"], "acct0");
  EXPECT_NE(ev[a]["thread"], ev[b]["thread"]);
  EXPECT_TRUE(ev[a]["op"] == "write" || ev[b]["op"] == "write");
  EXPECT_NE(failure["message"].get<std::string>().find("data race on acct0"), std::string::npos);
  const std::string race_html = read_all(dir + "/r.html");
  EXPECT_EQ(count_of(race_html, "class=\"node racing\""), 2u);
  EXPECT_NE(race_html.find(fmt::format("<g class=\"node racing\" id=\"e{}\">", a)), std::string::npos);

  auto sc = testing::run_cli({"run", "lost-update", "--replay", "121", "--dot", dir + "/s.dot"});
  EXPECT_NE(read_all(dir + "/s.dot").find("digraph transactions"), std::string::npos);
}

}  // namespace
}  // namespace atomcheck
