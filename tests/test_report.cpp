// The counterexample reports (--html, --dot): for the papers' traces every event is drawn,
// the witness cycle's edges are the highlighted arrows, every transaction is one dot
// node, user-supplied names are escaped, TSO executions get store-buffer lanes, and both
// commands write the files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>


#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "checkers/registry.hpp"
#include "cli/report_graph.hpp"
#include "cli/report_html.hpp"
#include "tests/support/cli_runner.hpp"
#include "trace/trace_io.hpp"

namespace atomcheck {
namespace {

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

Verdict check(const Trace& t, const std::string& name) {
  auto c = make_checker(name);
  EXPECT_TRUE(c) << name;
  for (const Event& e : t.events) c->on_event(e);
  Verdict v = c->verdict();
  v.checker = name;
  return v;
}

// Transactions counted independently of the report code: outermost blocks plus unary
// events (traces without commits).
std::size_t transaction_count(const Trace& t) {
  std::map<ThreadId, int> depth;
  std::size_t n = 0;
  for (const Event& e : t.events) {
    int& d = depth[e.thread];
    if (e.op == Op::begin) n += d++ == 0;
    else if (e.op == Op::end) --d;
    else n += d == 0;
  }
  return n;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const char* kPaperTraces[] = {"aerodrome-fig2-rho2.std", "aerodrome-fig3-rho3.std",
                              "aerodrome-fig4-rho1prime.std", "regiontrack-fig1a-alpha1.std",
                              "regiontrack-fig1c-alpha3.std"};

report::HtmlHeader header(std::string title, std::string schedule, std::string command) {
  report::HtmlHeader h;
  h.title = std::move(title);
  h.schedule = std::move(schedule);
  h.command = std::move(command);
  return h;
}

TEST(Report, PaperCounterexamplesHaveEveryEventAndTheCycleHighlighted) {
  int with_cycle = 0, with_blame = 0;
  for (const char* file : kPaperTraces) {
    Trace t = read_trace(std::string(ATOMCHECK_TEST_DATA) + "/traces/" + file);
    ASSERT_GT(t.size(), 0u) << file;
    for (const char* checker : {"velodrome", "aerodrome-fixed", "regiontrack-fixed"}) {
      SCOPED_TRACE(std::string(file) + " " + checker);
      Verdict v = check(t, checker);
      with_cycle += !v.cycle.empty();
      with_blame += !v.blamed.empty();
      std::string html = report::render_html(t, v, header(file, "", "atomcheck check-trace x"));
      EXPECT_EQ(count(html, "<g class=\"event"), t.size());
      EXPECT_EQ(count(html, "class=\"cycle-edge\""), v.cycle.size());
      EXPECT_EQ(count(html, "<rect class=\"txn"), transaction_count(t));
      std::map<std::uint64_t, bool> blamed_txns;
      for (const Blame& b : v.blamed) blamed_txns[b.txn.first] = true;
      EXPECT_EQ(count(html, "blamed\" x="), blamed_txns.size());
      // No script but the one line that scrolls to the witness (issue 38).
      const std::size_t script = html.find("<script");
      if (script != std::string::npos) {
        const std::string scroll = "<script>document.getElementById('picture').scrollLeft = ";
        EXPECT_EQ(html.compare(script, scroll.size(), scroll), 0);
        EXPECT_EQ(count(html, "<script"), 1u);
      }
      EXPECT_NE(html.find("</svg>"), std::string::npos);
      // Arrow k in the picture is edge k of the witness list below it. (Plain string
      // scanning: std::regex trips a g++ 12 -Wmaybe-uninitialized false positive.)
      auto between = [&](std::size_t& pos, const std::string& open, const std::string& close) {
        std::size_t a = html.find(open, pos);
        if (a == std::string::npos) return std::string("\x01");
        a += open.size();
        std::size_t b = html.find(close, a);
        pos = b + close.size();
        return html.substr(a, b - a);
      };
      std::vector<std::string> listed, drawn(v.cycle.size() + 1);
      for (std::size_t pos = 0;;) {
        std::string item = between(pos, "<li>", "</li>");
        if (item == "\x01") break;
        std::size_t arrow = item.find(" &rarr; ");
        if (arrow == std::string::npos) continue;
        std::size_t colon = item.find(':', arrow);
        listed.push_back(item.substr(0, arrow) + " > " +
                         item.substr(arrow + 8, colon == std::string::npos ? std::string::npos : colon - arrow - 8));
      }
      const std::string path_open = "<path class=\"cycle-edge\"";
      for (std::size_t pos = 0; (pos = html.find(path_open, pos)) != std::string::npos;) {
        std::string title = between(pos, "<title>", "</title>");
        std::size_t must = title.find(" must precede ");
        ASSERT_NE(must, std::string::npos) << title;
        std::string label = between(pos, "class=\"edge-label\"", "</text>");
        std::size_t k = std::stoul(label.substr(label.find('>') + 1));
        ASSERT_GE(k, 1u);
        ASSERT_LE(k, v.cycle.size());
        drawn[k] = title.substr(0, must) + " > " + title.substr(must + 14);
      }
      ASSERT_EQ(listed.size(), v.cycle.size());
      for (std::size_t k = 1; k <= v.cycle.size(); ++k) EXPECT_EQ(drawn[k], listed[k - 1]) << "arrow " << k;

      std::string dot = report::render_dot(t, v);
      EXPECT_EQ(dot.rfind("digraph transactions {\n", 0), 0u);
      EXPECT_EQ(count(dot, "{"), count(dot, "}"));
      EXPECT_EQ(dot.back(), '\n');
      std::size_t nodes = 0, red_edges = 0, filled = 0;
      std::istringstream lines(dot);
      for (std::string line; std::getline(lines, line);) {
        bool edge = line.find(" -> t") != std::string::npos && line.rfind("  t", 0) == 0;
        if (!edge && line.rfind("  t", 0) == 0 && line.find(" [label=") != std::string::npos) ++nodes;
        if (edge && line.find("color=red") != std::string::npos) ++red_edges;
        if (!edge && line.find("style=filled") != std::string::npos) ++filled;
      }
      EXPECT_EQ(nodes, transaction_count(t));
      EXPECT_EQ(red_edges, v.cycle.size());
      EXPECT_EQ(filled, blamed_txns.size());
    }
  }
  // The papers' counterexamples do produce witnesses, so the counts above are not vacuous.
  EXPECT_GE(with_cycle, 3);
  EXPECT_GE(with_blame, 2);
}

TEST(Report, NamesFromInputAreEscaped) {
  Trace t;
  ThreadId a = t.names.threads.intern("<script>alert(1)</script>");
  ThreadId b = t.names.threads.intern("b\"q\\");
  VarId x = t.names.vars.intern("x&<y>");
  LabelId l = t.names.labels.intern("'lbl'\"");
  t.events = {Event{Op::begin, false, a, l}, Event{Op::write, false, a, x},
              Event{Op::begin, false, b, kNoId}, Event{Op::read, false, b, x},
              Event{Op::write, false, b, x},     Event{Op::end, false, b, kNoId},
              Event{Op::read, false, a, x},      Event{Op::end, false, a, l}};
  Verdict v = check(t, "velodrome");
  ASSERT_FALSE(v.serializable);
  std::string html = report::render_html(t, v, header("<b>title</b>", "1<2", "run '<x>'"));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<b>title"), std::string::npos);
  EXPECT_EQ(html.find("x&<y>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("x&amp;&lt;y&gt;"), std::string::npos);
  EXPECT_NE(html.find("1&lt;2"), std::string::npos);
  EXPECT_NE(html.find("&#39;lbl&#39;&quot;"), std::string::npos);
  EXPECT_EQ(count(html, "<g class=\"event"), t.size());

  std::string dot = report::render_dot(t, v);
  EXPECT_NE(dot.find("b\\\"q\\\\@2"), std::string::npos) << dot;
  // Every quote in the dot file is either escaped or delimits a string: an even count.
  std::size_t unescaped = 0;
  for (std::size_t i = 0; i < dot.size(); ++i) {
    if (dot[i] == '\\') {
      ++i;
      continue;
    }
    unescaped += dot[i] == '"';
  }
  EXPECT_EQ(unescaped % 2, 0u);
}

TEST(Report, TsoExecutionGetsStoreBufferLanesAndTauIndicesAreMapped) {
  Trace t;
  ThreadId a = t.names.threads.intern("A"), b = t.names.threads.intern("B");
  VarId x = t.names.vars.intern("x");
  Event w{Op::write, false, a, x, 1};
  Event c{Op::commit, false, a, x, 1};
  c.issue = 2;
  t.events = {Event{Op::begin, false, a}, Event{Op::read, false, a, x}, w,
              Event{Op::read, false, b, x}, c, Event{Op::end, false, a}};
  std::string html = report::render_html(t, Verdict{}, header("tso", "", ""));
  EXPECT_NE(html.find(">A buffer</text>"), std::string::npos);
  EXPECT_EQ(html.find(">B buffer</text>"), std::string::npos);
  EXPECT_EQ(count(html, "<g class=\"event"), t.size());
  report::TxnGraph g = report::build_graph(t, Verdict{});
  EXPECT_EQ(g.txn_of[4], g.txn_of[0]);  // the commit belongs to its issue's transaction
  // B's read precedes A's commit: the conflict is with the commit, not the issue.
  ASSERT_EQ(g.edges.size(), 1u);
  EXPECT_EQ(g.edges[0].from_event, 3u);
  EXPECT_EQ(g.edges[0].to_event, 4u);

  Verdict v;
  v.serializable = false;
  v.cycle.push_back(CycleEdge{TxnRef{b, 3}, TxnRef{a, 0}, 3, 4});  // tau index 4 = end
  v.blamed.push_back(Blame{TxnRef{a, 0}, 3, 4});
  Verdict m = report::verdict_on_execution(t, v);
  EXPECT_EQ(m.cycle[0].to_event, 5u);
  EXPECT_EQ(m.cycle[0].from_event, 3u);
  EXPECT_EQ(m.blamed[0].at, 5u);
}

TEST(Report, CommandsWriteBothFiles) {
  std::string dir = testing::temp_dir();
  auto r = testing::run_cli({"check-trace", testing::data_path("traces/aerodrome-fig2-rho2.std"),
                             "--checker", "aerodrome-fixed,velodrome", "--html", dir + "/a.html",
                             "--dot", dir + "/a.dot"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::string html = read_all(dir + "/a.html"), dot = read_all(dir + "/a.dot");
  EXPECT_EQ(count(html, "<g class=\"event"), 8u);
  EXPECT_NE(html.find("--checker aerodrome-fixed"), std::string::npos);
  EXPECT_GE(count(html, "class=\"cycle-edge\""), 1u);
  EXPECT_EQ(count(dot, "{"), count(dot, "}"));
  EXPECT_NE(dot.find("color=red"), std::string::npos);

  r = testing::run_cli({"run", "lost-update", "--replay", "121", "--checker", "velodrome", "--html",
                        dir + "/b.html", "--dot", dir + "/b.dot"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  html = read_all(dir + "/b.html");
  dot = read_all(dir + "/b.dot");
  EXPECT_NE(html.find("class=\"schedule\">121<"), std::string::npos);
  EXPECT_NE(html.find("atomcheck run lost-update --replay &#39;121&#39; --checker velodrome"),
            std::string::npos);
  EXPECT_GE(count(html, "class=\"cycle-edge\""), 2u);
  EXPECT_NE(dot.find("style=filled"), std::string::npos);

  r = testing::run_cli({"check-trace", testing::data_path("traces/aerodrome-fig2-rho2.std"),
                        "--html", dir + "/no/such/dir/a.html"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos);
}

// Every report says how the execution ended before any checker verdict: a failed TSO
// execution with a store still in T1's buffer when T2 fails, replayed with velodrome
// attached (which finds nothing), in text, JSON, HTML and DOT; the text marks where T2
// failed (the other threads ran on); and a spin-blocked one is not "completed".
TEST(Report, ReportsShowHowTheExecutionEnded) {
  std::string dir = testing::temp_dir();
  const std::string schedule = "0111222!1!1!2!22111122";
  const std::string failure = "mutual exclusion violated: two threads in the critical section";
  auto r = testing::run_cli({"run", "tso-peterson", "--memory", "tso", "--replay", schedule,
                             "--checker", "velodrome", "--html", dir + "/e.html", "--dot",
                             dir + "/e.dot"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::size_t ended = r.out.find("failure (assertion): T2: assertion failed: " + failure);
  ASSERT_NE(ended, std::string::npos) << r.out;
  EXPECT_LT(ended, r.out.find("checker velodrome: ok")) << r.out;
  EXPECT_NE(r.out.find("still in a store buffer when T2 failed: T1: flag0 = 0"), std::string::npos) << r.out;
  const std::size_t here = r.out.find("---- T2 failed here (below); the other threads ran on ----");
  ASSERT_NE(here, std::string::npos) << r.out;
  EXPECT_LT(here, r.out.find("T0   join T1")) << r.out;
  std::string html = read_all(dir + "/e.html"), dot = read_all(dir + "/e.dot");
  ended = html.find("Execution: <span class=\"verdict bad\">failed (assertion)");
  ASSERT_NE(ended, std::string::npos) << html;
  EXPECT_LT(ended, html.find("Checker <b>velodrome</b>"));
  EXPECT_NE(html.find(failure), std::string::npos);
  EXPECT_NE(html.find("<li>T1: flag0 = 0"), std::string::npos) << html;
  EXPECT_NE(html.find("Still in a store buffer when it failed"), std::string::npos) << html;
  EXPECT_NE(html.find("<p>T2 failed before event "), std::string::npos) << html;
  EXPECT_NE(dot.find("label=\"execution failed (assertion): T2: assertion failed: " + failure),
            std::string::npos) << dot;

  r = testing::run_cli({"run", "tso-peterson", "--memory", "tso", "--replay", schedule, "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ending"], "failed");
  EXPECT_NE(j["failure"]["message"].get<std::string>().find(failure), std::string::npos);
  EXPECT_LT(j["failure"]["event"].get<std::size_t>(), j["events"].size()) << r.out;
  ASSERT_EQ(j["pending_stores"].size(), 1u) << r.out;
  EXPECT_NE(j["pending_stores"][0].get<std::string>().find("T1: flag0 = 0"), std::string::npos);

  // No checker: the page says so instead of "Checker (none): no violation found".
  r = testing::run_cli({"run", "tso-peterson", "--memory", "tso", "--replay", schedule, "--html",
                        dir + "/f.html"});
  html = read_all(dir + "/f.html");
  EXPECT_NE(html.find("No checker attached"), std::string::npos);
  EXPECT_EQ(html.find("(none)"), std::string::npos);

  r = testing::run_cli({"run", "tso-peterson", "--memory", "tso", "--replay", "011222!1!211!22222!1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("execution blocked in a wait (spin_until"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("execution completed"), std::string::npos) << r.out;
}

// Without --replay, run draws the search's first failure (else the first flagged execution);
// a search that finds neither writes nothing and says so.
TEST(Report, RunWithoutReplayDrawsTheFirstProblem) {
  std::string dir = testing::temp_dir();
  auto r = testing::run_cli({"run", "lost-update", "--strategy", "dfs", "--checker", "velodrome",
                             "--html", dir + "/c.html", "--dot", dir + "/c.dot"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  std::string html = read_all(dir + "/c.html"), dot = read_all(dir + "/c.dot");
  EXPECT_NE(html.find("lost-update"), std::string::npos);
  EXPECT_NE(html.find("atomcheck run lost-update --replay &#39;"), std::string::npos) << html;
  EXPECT_GE(count(html, "<g class=\"event"), 10u);
  EXPECT_NE(dot.find("digraph"), std::string::npos);

  r = testing::run_cli({"run", "locked-counter", "--html", dir + "/d.html"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no failing or flagged execution"), std::string::npos) << r.err;
  EXPECT_TRUE(read_all(dir + "/d.html").empty());
}

// ---- issue 38, item 4: a page a person can read -----------------------------------

// The page shows every access's value on the page (not only in hover titles), a failed
// compare-exchange as one with what it saw and expected, big values in hex, marks
// where the failing thread stopped, and scrolls past a long setup to it.
// Under rc11 the replay shows what a memory-order bug turns on: each access's order and
// the write each read read. spsc-ring-weak-tail's producer stores tail relaxed: the
// consumer's acquire load reads that relaxed store (no synchronisation), then the slot's
// initial value. Under sc the same replay prints no orders.
TEST(Report, Rc11ReplayShowsOrdersAndWhatEachReadRead) {
  auto search = testing::run_cli({"run", "spsc-ring-weak-tail", "--memory", "rc11", "--json", "--quiet"});
  ASSERT_EQ(search.exit_code, 1) << search.err;
  const std::string schedule = nlohmann::json::parse(search.out)["failures"][0]["schedule"];
  auto r = testing::run_cli({"run", "spsc-ring-weak-tail", "--memory", "rc11", "--replay", schedule});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  // Each acquire read of tail names the row of the relaxed write it read (a T1 store of
  // the same value), and the consumer then reads a slot it was not synchronised with.
  const std::string read = "T2   read tail = ";
  std::size_t reads_checked = 0;
  for (std::size_t at = r.out.find(read); at != std::string::npos; at = r.out.find(read, at + 1)) {
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    const std::size_t value_end = line.find(' ', read.size());
    const std::string value = line.substr(read.size(), value_end - read.size());
    const std::string tag = "(acquire, reads #";
    const std::size_t t = line.find(tag);
    ASSERT_NE(t, std::string::npos) << line;
    const std::string writer = std::to_string(std::stoul(line.substr(t + tag.size())));
    // The row of that write: the step right-aligned in five columns.
    const std::string row = std::string(5 - writer.size(), ' ') + writer + "  T1   write tail = " + value + " (relaxed)";
    EXPECT_NE(r.out.find("\n" + row), std::string::npos) << line << "\n" << r.out;
    ++reads_checked;
  }
  EXPECT_GT(reads_checked, 0u) << r.out;
  EXPECT_NE(r.out.find("T2   read slot0 = "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(relaxed, reads "), std::string::npos) << r.out;
  auto j = testing::run_cli({"run", "spsc-ring-weak-tail", "--memory", "rc11", "--replay", schedule, "--json"});
  const nlohmann::json events = nlohmann::json::parse(j.out)["events"];
  bool seen = false;
  for (const auto& e : events)
    if (e["op"] == "read" && e["var"] == "tail" && e["thread"] == "T2") {
      EXPECT_EQ(e["order"], "acquire");
      const nlohmann::json& w = events.at(e["reads"].get<std::size_t>());
      EXPECT_EQ(w["op"], "write");
      EXPECT_EQ(w["var"], "tail");
      EXPECT_EQ(w["thread"], "T1");
      EXPECT_EQ(w["value"], e["value"]);
      seen = true;
    }
  EXPECT_TRUE(seen) << j.out;
  auto sc_search = testing::run_cli({"run", "refcount-double-free", "--json", "--quiet"});
  const std::string sc_schedule = nlohmann::json::parse(sc_search.out)["failures"][0]["schedule"];
  auto sc = testing::run_cli({"run", "refcount-double-free", "--replay", sc_schedule});
  EXPECT_NE(sc.out.find("rmw control.refs: 2 -> 1  at"), std::string::npos) << sc.out;  // acq_rel, not shown
  EXPECT_EQ(sc.out.find("(acq_rel"), std::string::npos) << sc.out;
}

TEST(Report, PageShowsValuesMarksTheFailureAndOpensOnIt) {
  Trace t;
  ThreadId main = t.names.threads.intern("T0"), t1 = t.names.threads.intern("T1");
  VarId x = t.names.vars.intern("x"), p = t.names.vars.intern("ptr");
  for (int k = 0; k < 20; ++k) t.events.push_back(Event{Op::write, false, main, x, k});
  t.events.push_back(Event{Op::fork, false, main, t1});
  t.events.push_back(Event{Op::write, false, main, p, 0x7f001234});
  Event cas{Op::read, false, t1, x, 19, 3};
  cas.failed_cas = true;
  t.events.push_back(cas);
  t.events.push_back(Event{Op::rmw, false, t1, x, 19, 20});
  report::HtmlHeader h = header("page", "", "");
  h.failure_event = 24;  // T1 stopped after its rmw
  h.failure_thread = t1;
  h.failure_message = "T1: assertion failed: x moved";
  std::string html = report::render_html(t, Verdict{}, h);
  EXPECT_NE(html.find("<text class=\"val\" x=\"" ), std::string::npos) << html;
  EXPECT_NE(html.find(">= 19</text>"), std::string::npos) << html;
  EXPECT_NE(html.find(">= 0x7f001234</text>"), std::string::npos) << html;
  EXPECT_NE(html.find(">19 -&gt; 20</text>"), std::string::npos) << html;
  EXPECT_NE(html.find(">cas-fail(x)</text>"), std::string::npos) << html;
  EXPECT_NE(html.find(">saw 19, not 3</text>"), std::string::npos) << html;
  EXPECT_NE(html.find("a failed compare-exchange: expected 3, saw 19"), std::string::npos) << html;
  EXPECT_NE(html.find("w(ptr) = 2130711092 (0x7f001234)"), std::string::npos) << html;
  EXPECT_NE(html.find("<g class=\"failure\" id=\"failure\"><title>T1 failed here: T1: assertion failed: x moved"),
            std::string::npos) << html;
  EXPECT_NE(html.find(">T1 failed</text>"), std::string::npos) << html;
  EXPECT_NE(html.find("document.getElementById('picture').scrollLeft = "), std::string::npos) << html;

  // A short execution opens at its start: no script.
  Trace small;
  small.names.threads.intern("T0");
  small.names.vars.intern("x");
  small.events.push_back(Event{Op::write, false, 0, 0, 1});
  html = report::render_html(small, Verdict{}, header("small", "", ""));
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find(">= 1</text>"), std::string::npos);
}

// End to end: `run --html` of a failing program marks the failure.
TEST(Report, RunHtmlMarksTheFailure) {
  std::string dir = testing::temp_dir();
  auto r = testing::run_cli({"run", "treiber-stack-racy-push", "--html", dir + "/t.html", "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::string html = read_all(dir + "/t.html");
  EXPECT_NE(html.find("id=\"failure\""), std::string::npos) << html;
  EXPECT_GE(count(html, "<text class=\"val\""), 10u) << html;
}

}  // namespace
}  // namespace atomcheck
