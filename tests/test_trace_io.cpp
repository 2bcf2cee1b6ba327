// Trace files: STD and JSONL round trips on generated corpora, the exact error line for
// every class of malformed input (truncated and empty files included), writer refusals,
// streaming across buffer boundaries, and the papers' example traces in tests/data with
// their stated verdicts checked against the conflict oracle.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/core.h>

#include "checkers/oracle_conflict.hpp"
#include "tests/support/cli_runner.hpp"
#include "trace/random_trace.hpp"
#include "trace/trace_io.hpp"
#include "trace/validate.hpp"

namespace atomcheck {
namespace {

std::string write_temp(const std::string& name, const std::string& content) {
  static const std::string dir = testing::temp_dir();
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// The TraceError message of reading `content` as a file called `name`, or "" if none.
std::string read_error(const std::string& name, const std::string& content) {
  std::string path = write_temp(name, content);
  try {
    read_trace(path);
  } catch (const TraceError& e) {
    std::string msg = e.what();
    // Messages start with the path; tests compare what follows the directory.
    std::string prefix = path.substr(0, path.size() - name.size());
    if (msg.rfind(prefix, 0) == 0) msg = msg.substr(prefix.size());
    return msg;
  }
  return "";
}

Trace read_text(const std::string& name, const std::string& content) {
  return read_trace(write_temp(name, content));
}

bool same_events(const Trace& a, const Trace& b, std::string& why) {
  if (a.size() != b.size()) {
    why = "sizes differ";
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Event& x = a.events[i];
    const Event& y = b.events[i];
    if (x.op != y.op || x.buffered != y.buffered || a.names.thread(x.thread) != b.names.thread(y.thread) ||
        x.value != y.value || x.value2 != y.value2 || x.issue != y.issue || x.loc != y.loc) {
      why = "event " + std::to_string(i) + " differs";
      return false;
    }
    std::string tx, ty;
    switch (x.op) {
      case Op::acquire: case Op::release: tx = a.names.lock(x.target); ty = b.names.lock(y.target); break;
      case Op::fork: case Op::join: tx = a.names.thread(x.target); ty = b.names.thread(y.target); break;
      case Op::begin: case Op::end: tx = a.names.label(x.target); ty = b.names.label(y.target); break;
      case Op::fence: break;
      default: tx = a.names.var(x.target); ty = b.names.var(y.target);
    }
    if (tx != ty) {
      why = "target of event " + std::to_string(i) + " differs: " + tx + " vs " + ty;
      return false;
    }
  }
  return true;
}

// ---------------------------------------------------------------------------------
// Round trips

Trace std_corpus_trace(std::uint64_t seed) {
  RandomTraceParams p = random_small_params(seed, 60);
  p.rmw_permille = 0;  // STD has no rmw
  Trace t = random_trace(p, seed);
  PortableRng rng(seed * 7 + 1);
  for (Event& e : t.events) {
    e.value = 0;  // nor values
    e.loc = static_cast<std::uint32_t>(static_cast<std::int32_t>(rng.below(2000)) - 1000);
  }
  return t;
}

TEST(StdRoundTrip, GeneratedCorpusIsIdentical) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    Trace t = std_corpus_trace(seed);
    std::string text = to_std_string(t);
    Trace back = read_text("rt.std", text);
    std::string why;
    ASSERT_TRUE(same_events(t, back, why)) << "seed " << seed << ": " << why;
    ASSERT_EQ(to_std_string(back), text) << "seed " << seed;
  }
}

// A TSO execution built from a random trace: writes are issued into per-thread buffers
// and committed later in FIFO order, reads of a variable with a pending own write are
// served by the buffer, fences come only with an empty buffer; begin/end carry labels.
Trace jsonl_corpus_trace(std::uint64_t seed) {
  Trace base = random_trace(random_small_params(seed, 60), seed);
  PortableRng rng(seed * 13 + 5);
  Trace t;
  t.names = base.names;
  std::vector<std::vector<EventIndex>> pending(base.names.threads.size() + 8);
  auto commit_oldest = [&](ThreadId th) {
    EventIndex w = pending[th].front();
    pending[th].erase(pending[th].begin());
    Event c = t.events[w];
    c.op = Op::commit;
    c.issue = w;
    c.loc = 0;
    t.events.push_back(c);
  };
  std::vector<std::vector<std::uint32_t>> open_labels(pending.size());
  const char* labels[] = {"a", "b\"q\"", "uni\xc3\xa9", "back\\slash", "tab\tc"};
  for (Event e : base.events) {
    if (rng.chance(300)) {
      std::vector<ThreadId> with;
      for (ThreadId th = 0; th < pending.size(); ++th)
        if (!pending[th].empty()) with.push_back(th);
      if (!with.empty()) commit_oldest(with[rng.below(with.size())]);
    }
    e.loc = static_cast<std::uint32_t>(rng.below(50));
    // A join waits until the child's buffered writes reached memory.
    if (e.op == Op::join) {
      while (!pending[e.target].empty()) commit_oldest(e.target);
    }
    if (e.op == Op::read) {
      for (auto it = pending[e.thread].rbegin(); it != pending[e.thread].rend(); ++it) {
        if (t.events[*it].target == e.target) {
          e.buffered = true;
          e.value = t.events[*it].value;
          break;
        }
      }
    }
    // Labels must match between a begin and its end (or the end carries none).
    if (e.op == Op::begin) {
      e.target = rng.chance(700) ? t.names.labels.intern(labels[rng.below(5)]) : kNoId;
      open_labels[e.thread].push_back(e.target);
    } else if (e.op == Op::end && !open_labels[e.thread].empty()) {
      e.target = rng.chance(700) ? open_labels[e.thread].back() : kNoId;
      open_labels[e.thread].pop_back();
    }
    if (e.op == Op::write) {
      e.value = static_cast<std::int64_t>(rng.raw());  // any 64-bit value, negative too
      pending[e.thread].push_back(t.events.size());
    }
    t.events.push_back(e);
    if (pending[e.thread].empty() && rng.chance(100)) {
      Event f;
      f.op = Op::fence;
      f.thread = e.thread;
      t.events.push_back(f);
    }
  }
  for (ThreadId th = 0; th < pending.size(); ++th)
    while (!pending[th].empty()) commit_oldest(th);
  return t;
}

TEST(JsonlRoundTrip, GeneratedCorpusIsIdentical) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    Trace t = jsonl_corpus_trace(seed);
    std::string text = to_jsonl_string(t);
    Trace back = read_text("rt.jsonl", text);
    std::string why;
    ASSERT_TRUE(same_events(t, back, why)) << "seed " << seed << ": " << why;
    ASSERT_EQ(to_jsonl_string(back), text) << "seed " << seed;
  }
}

TEST(JsonlRoundTrip, CorpusHasEveryFeature) {
  // The round trip above means something only if the corpus exercises every field.
  std::array<int, kOpCount> ops{};
  int buffered = 0, labelled = 0, negative = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    Trace t = jsonl_corpus_trace(seed);
    for (const Event& e : t.events) {
      ++ops[static_cast<int>(e.op)];
      buffered += e.buffered;
      labelled += is_block_op(e.op) && e.target != kNoId;
      negative += e.value < 0;
    }
  }
  for (int i = 0; i < kOpCount; ++i) EXPECT_GT(ops[i], 0) << op_name(static_cast<Op>(i));
  EXPECT_GT(buffered, 0);
  EXPECT_GT(labelled, 0);
  EXPECT_GT(negative, 0);
}

TEST(JsonlRoundTrip, ExecutionsOfTheCorpusAreWellFormed) {
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    auto problem = validate(jsonl_corpus_trace(seed));
    ASSERT_FALSE(problem.has_value()) << "seed " << seed << ": " << *problem;
  }
}

TEST(JsonlFormat, CanonicalLine) {
  Trace t;
  t.names.threads.intern("T0");
  t.names.vars.intern("x");
  Event w;
  w.op = Op::write;
  w.target = 0;
  w.value = -5;
  w.loc = static_cast<std::uint32_t>(-3);
  Event c = w;
  c.op = Op::commit;
  c.issue = 0;
  c.loc = 0;
  t.events = {w, c};
  EXPECT_EQ(to_jsonl_string(t),
            "{\"thread\":\"T0\",\"op\":\"write\",\"var\":\"x\",\"value\":-5,\"loc\":-3}\n"
            "{\"thread\":\"T0\",\"op\":\"commit\",\"var\":\"x\",\"value\":-5,\"issue\":0}\n");
}

TEST(JsonlFormat, AcceptsAnyFieldOrderWhitespaceAndEscapes) {
  Trace t = read_text("ok.jsonl",
                      "  { \"op\" : \"read\" , \"var\":\"\\u00e9\\ud83d\\ude00\", \"thread\":\"A\\/B\","
                      "\"buffered\":false }  \n"
                      "\n"
                      "{\"thread\":\"A/B\",\"op\":\"begin\"}\r\n");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.names.var(t.events[0].target), "\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(t.names.thread(t.events[0].thread), "A/B");
  EXPECT_FALSE(t.events[0].buffered);
  EXPECT_EQ(t.events[1].thread, t.events[0].thread);
  EXPECT_EQ(t.events[1].target, kNoId);
}

TEST(StdFormat, ReadsRapidLinesCommentsAndCrlf) {
  Trace t = read_text("ok.std",
                      "# a comment\n"
                      "T0|r(V123)|345\r\n"
                      "\n"
                      "   \t\n"
                      "T1|w(V234.23[0])|456\n"
                      "T0|fork(T2)|123\n"
                      "T2|acq(L34)|-120\n"
                      "T2|rel(L34)|+130\n"
                      "T0|join(T2)|0134\n"
                      "T0|begin|1\n"
                      "T0|r(f(a)b)|2\n"
                      "T0|end|3");  // a last line without newline that parses is fine
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(t.names.var(t.events[0].target), "V123");
  EXPECT_EQ(t.events[0].loc, 345u);
  EXPECT_EQ(t.names.var(t.events[1].target), "V234.23[0]");
  EXPECT_EQ(t.events[2].op, Op::fork);
  EXPECT_EQ(t.names.thread(t.events[2].target), "T2");
  EXPECT_EQ(t.events[3].thread, t.events[2].target);
  EXPECT_EQ(static_cast<std::int32_t>(t.events[3].loc), -120);
  EXPECT_EQ(t.events[4].loc, 130u);
  EXPECT_EQ(t.events[5].loc, 134u);
  EXPECT_EQ(t.events[6].op, Op::begin);
  EXPECT_EQ(t.names.var(t.events[7].target), "f(a)b");  // operand runs to the final ')'
  EXPECT_EQ(t.events[8].op, Op::end);
  EXPECT_EQ(t.names.threads.size(), 3u);
}

TEST(Formats, EmptyAndBlankFilesAreEmptyTraces) {
  for (const char* name : {"e.std", "e.jsonl"}) {
    EXPECT_EQ(read_text(name, "").size(), 0u) << name;
    EXPECT_EQ(read_text(name, "\n \n\t\r\n  ").size(), 0u) << name;
  }
  EXPECT_EQ(read_text("c.std", "# only a comment\n# and another").size(), 0u);
  EXPECT_EQ(to_std_string(Trace{}), "");
  EXPECT_EQ(to_jsonl_string(Trace{}), "");
}

TEST(Formats, FormatFollowsTheFileName) {
  EXPECT_EQ(format_for_path("a.jsonl"), TraceFormat::jsonl);
  EXPECT_EQ(format_for_path("a.json"), TraceFormat::jsonl);
  EXPECT_EQ(format_for_path("a.std"), TraceFormat::std_text);
  EXPECT_EQ(format_for_path("a.txt"), TraceFormat::std_text);
  EXPECT_EQ(format_for_path("jsonl"), TraceFormat::std_text);
}

TEST(Formats, UnreadableFile) {
  try {
    read_trace("/nonexistent/dir/t.std");
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/dir/t.std: cannot open: No such file or directory");
  }
  try {
    read_trace(std::string(ATOMCHECK_TEST_DATA));
    FAIL() << "no error";
  } catch (const TraceError& e) {
    EXPECT_EQ(std::string(e.what()), std::string(ATOMCHECK_TEST_DATA) + ": cannot read: Is a directory");
  }
}

// ---------------------------------------------------------------------------------
// Malformed STD input: one test line per class, exact message.

TEST(StdErrors, EveryClassHasItsMessage) {
  struct Case {
    const char* content;
    const char* error;
  };
  const Case cases[] = {
      {"T0|r(x)\n", "f.std:1: expected 3 fields 'thread|op(target)|location', found 2"},
      {"T0\n", "f.std:1: expected 3 fields 'thread|op(target)|location', found 1"},
      {"T0|r(x)|1|2\n", "f.std:1: expected 3 fields 'thread|op(target)|location', found 4"},
      {"T0|r(x)|1\n|r(x)|2\n", "f.std:2: empty thread name"},
      {"T 0|r(x)|1\n", "f.std:1: thread name 'T 0' contains whitespace"},
      {"T0|read(x)|1\n",
       "f.std:1: unknown operation 'read' (expected r, w, acq, rel, fork, join, begin or end)"},
      {"T0|synchronize(x)|1\n",
       "f.std:1: unknown operation 'synchronize' (expected r, w, acq, rel, fork, join, begin or end)"},
      {"T0|sync(x)|1\n",
       "f.std:1: unknown operation 'sync' (expected r, w, acq, rel, fork, join, begin or end)"},
      {"T0||1\n", "f.std:1: unknown operation '' (expected r, w, acq, rel, fork, join, begin or end)"},
      {"T0|r|1\n", "f.std:1: 'r' needs an operand in parentheses, as r(x)"},
      {"T0|acq|1\n", "f.std:1: 'acq' needs an operand in parentheses, as acq(x)"},
      {"T0|begin(b)|1\n", "f.std:1: 'begin' takes no operand, found 'begin(b)'"},
      {"T0|end()|1\n", "f.std:1: 'end' takes no operand, found 'end()'"},
      {"T0|w(x|1\n", "f.std:1: missing ')' at the end of 'w(x'"},
      {"T0|w(x)y|1\n", "f.std:1: missing ')' at the end of 'w(x)y'"},
      {"T0|w()|1\n", "f.std:1: empty operand in 'w()'"},
      {"T0|w(a b)|1\n", "f.std:1: operand 'a b' contains whitespace"},
      {"T0|w(x)|\n", "f.std:1: empty location (expected an integer)"},
      {"T0|w(x)|12a\n", "f.std:1: location '12a' is not a 32-bit integer"},
      {"T0|w(x)|2147483648\n", "f.std:1: location '2147483648' is not a 32-bit integer"},
      {"T0|w(x)| 1\n", "f.std:1: location ' 1' is not a 32-bit integer"},
      {"T0|w(x)|-\n", "f.std:1: location '-' is not a 32-bit integer"},
      // RAPID would re-read a bad line as the previous event; the line number counts
      // comments and blank lines.
      {"# c\n\nT0|w(x)|1\nT0 w(x) 2\n",
       "f.std:4: expected 3 fields 'thread|op(target)|location', found 1"},
      // Truncated file: the last line has no newline and does not parse.
      {"T0|w(x)|1\nT0|w(x)|", "f.std:2: empty location (expected an integer) (the last line "
                              "has no newline: truncated file?)"},
      {"T0|w(x)|1\nT0|w(x)", "f.std:2: expected 3 fields 'thread|op(target)|location', found 2 "
                             "(the last line has no newline: truncated file?)"},
  };
  for (const Case& c : cases) EXPECT_EQ(read_error("f.std", c.content), c.error) << c.content;
}

TEST(StdErrors, AcceptsMinimumAndMaximumLocations) {
  Trace t = read_text("m.std", "T0|w(x)|-2147483648\nT0|w(x)|2147483647\n");
  EXPECT_EQ(static_cast<std::int32_t>(t.events[0].loc), INT32_MIN);
  EXPECT_EQ(static_cast<std::int32_t>(t.events[1].loc), INT32_MAX);
  EXPECT_EQ(to_std_string(t), "T0|w(x)|-2147483648\nT0|w(x)|2147483647\n");
}

TEST(StdErrors, LongMessagesAreCut) {
  std::string op(100, 'z');
  EXPECT_EQ(read_error("f.std", fmt::format("T0|{}|1\n", op)),
            fmt::format("f.std:1: unknown operation '{}...' (expected r, w, acq, rel, fork, join, "
                        "begin or end)", std::string(40, 'z')));
}

// ---------------------------------------------------------------------------------
// Malformed JSONL input

TEST(JsonlErrors, EveryClassHasItsMessage) {
  struct Case {
    const char* content;
    const char* error;
  };
  const Case cases[] = {
      {"[1]\n", "f.jsonl:1: expected a JSON object"},
      {"T0|w(x)|1\n", "f.jsonl:1: expected a JSON object"},
      {"{}\n", "f.jsonl:1: missing field 'thread'"},
      {"{\"thread\":\"T0\"}\n", "f.jsonl:1: missing field 'op'"},
      {"{\"thread\":\"T0\",\"op\":\"store\"}\n",
       "f.jsonl:1: field 'op': unknown operation 'store' (expected read, write, commit, fence, "
       "rmw, acquire, release, fork, join, begin or end)"},
      {"{\"thread\":\"T0\",\"op\":\"read\",\"colour\":1}\n", "f.jsonl:1: unknown field 'colour'"},
      {"{\"thread\":\"T0\",\"op\":\"read\",\"op\":\"write\"}\n", "f.jsonl:1: duplicate field 'op'"},
      {"{\"thread\":1,\"op\":\"read\"}\n", "f.jsonl:1: field 'thread' must be a string"},
      {"{\"thread\":\"T0\",\"op\":\"read\",\"var\":\"x\",\"value\":\"1\"}\n",
       "f.jsonl:1: field 'value' must be an integer"},
      {"{\"thread\":\"T0\",\"op\":\"read\",\"var\":\"x\",\"value\":1.5}\n",
       "f.jsonl:1: field 'value' must be an integer"},
      {"{\"thread\":\"T0\",\"op\":\"read\",\"var\":\"x\",\"value\":null}\n",
       "f.jsonl:1: field 'value' must be an integer"},
      {"{\"thread\":\"T0\",\"op\":\"read\",\"var\":\"x\",\"value\":99999999999999999999}\n",
       "f.jsonl:1: field 'value' is out of range"},
      {"{\"thread\":\"T0\",\"op\":\"read\",\"var\":\"x\",\"buffered\":1}\n",
       "f.jsonl:1: field 'buffered' must be true or false"},
      {"{\"thread\":\"T0\",\"op\":\"read\",\"var\":{\"a\":1}}\n",
       "f.jsonl:1: field 'var' must be a string"},
      {"{\"thread\":\"T0\",\"op\":\"read\"}\n",
       "f.jsonl:1: missing field 'var' (required by op 'read')"},
      {"{\"thread\":\"T0\",\"op\":\"acquire\"}\n",
       "f.jsonl:1: missing field 'lock' (required by op 'acquire')"},
      {"{\"thread\":\"T0\",\"op\":\"fork\"}\n",
       "f.jsonl:1: missing field 'child' (required by op 'fork')"},
      {"{\"thread\":\"T0\",\"op\":\"write\",\"var\":\"x\"}\n"
       "{\"thread\":\"T0\",\"op\":\"commit\",\"var\":\"x\"}\n",
       "f.jsonl:2: missing field 'issue' (required by op 'commit')"},
      {"{\"thread\":\"T0\",\"op\":\"read\",\"var\":\"x\",\"lock\":\"m\"}\n",
       "f.jsonl:1: field 'lock' does not apply to op 'read'"},
      {"{\"thread\":\"T0\",\"op\":\"write\",\"var\":\"x\",\"buffered\":true}\n",
       "f.jsonl:1: field 'buffered' does not apply to op 'write'"},
      {"{\"thread\":\"T0\",\"op\":\"fence\",\"var\":\"x\"}\n",
       "f.jsonl:1: field 'var' does not apply to op 'fence'"},
      {"{\"thread\":\"T0\",\"op\":\"begin\",\"label\":\"\"}\n",
       "f.jsonl:1: field 'label' must not be empty"},
      {"{\"thread\":\"\",\"op\":\"fence\"}\n", "f.jsonl:1: field 'thread' must not be empty"},
      {"{\"thread\":\"T0\",\"op\":\"commit\",\"var\":\"x\",\"issue\":0}\n",
       "f.jsonl:1: field 'issue': 0 is not the index of an earlier event"},
      {"{\"thread\":\"T0\",\"op\":\"commit\",\"var\":\"x\",\"issue\":-1}\n",
       "f.jsonl:1: field 'issue': -1 is not the index of an earlier event"},
      {"{\"thread\":\"T0\",\"op\":\"fence\",\"loc\":2147483648}\n",
       "f.jsonl:1: field 'loc' is out of range (a 32-bit integer)"},
      {"{\"thread\":\"T0\",\"op\":\"fence\"} x\n", "f.jsonl:1: unexpected text after the JSON object"},
      {"{\"thread\":\"T0\",\"op\":\"fence\",}\n", "f.jsonl:1: expected a field name in double quotes"},
      {"{\"thread\":\"T0\" \"op\":\"fence\"}\n",
       "f.jsonl:1: expected ',' or '}' after field 'thread'"},
      {"{\"thread\" \"T0\"}\n", "f.jsonl:1: expected ':' after field 'thread'"},
      {"{\"thread\":\"T\\x0\",\"op\":\"fence\"}\n", "f.jsonl:1: invalid escape '\\x' in field 'thread'"},
      {"{\"thread\":\"T\\ud800\",\"op\":\"fence\"}\n",
       "f.jsonl:1: unpaired surrogate escape in field 'thread'"},
      {"{\"thread\":\"T\\u12\"}\n", "f.jsonl:1: invalid \\u escape in field 'thread'"},
      {"{\"thread\":\"T\x01\",\"op\":\"fence\"}\n", "f.jsonl:1: control character inside field 'thread'"},
      // A line cut mid-object is reported with its line, and a cut last line says so.
      {"{\"thread\":\"T0\",\"op\":\"fence\"}\n{\"thread\":\"T0\",\"op\":\n{}\n",
       "f.jsonl:2: the line ends inside the JSON object"},
      {"{\"thread\":\"T0\",\"op\":\"fence\"}\n{\"thread\":\"T0\",\"op\":\"fe",
       "f.jsonl:2: the line ends inside the JSON object (the last line has no newline: "
       "truncated file?)"},
      {"{\"thread\":\"T0\",\"op\":\"fence\"}\n{\"thread\":\"T0\",",
       "f.jsonl:2: the line ends inside the JSON object (the last line has no newline: "
       "truncated file?)"},
      {"{\"thread\":\"T0\",\"op\":\"fence\"\n",
       "f.jsonl:1: the line ends inside the JSON object"},
  };
  for (const Case& c : cases) EXPECT_EQ(read_error("f.jsonl", c.content), c.error) << c.content;
}

// ---------------------------------------------------------------------------------
// Writers refuse what the format cannot hold

TEST(StdWriter, RefusesWhatOnlyJsonlCarries) {
  auto make = [](Op op) {
    Trace t;
    t.names.threads.intern("T0");
    t.names.vars.intern("x");
    Event e;
    e.op = op;
    e.target = op == Op::fence ? kNoId : 0;
    e.issue = 0;
    t.events.push_back(Event{Op::write, false, 0, 0});
    t.events.push_back(e);
    return t;
  };
  auto error = [](const Trace& t) {
    try {
      to_std_string(t);
    } catch (const TraceError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(make(Op::commit)),
            "event 1: cannot be written in STD format: STD has no 'commit' events (only r w acq "
            "rel fork join begin end); use JSONL");
  EXPECT_EQ(error(make(Op::fence)),
            "event 1: cannot be written in STD format: STD has no 'fence' events (only r w acq "
            "rel fork join begin end); use JSONL");
  EXPECT_EQ(error(make(Op::rmw)),
            "event 1: cannot be written in STD format: STD has no 'rmw' events (only r w acq rel "
            "fork join begin end); use JSONL");
  Trace t = make(Op::read);
  t.events[1].buffered = true;
  EXPECT_EQ(error(t),
            "event 1: cannot be written in STD format: STD cannot mark a read as served by the "
            "store buffer; use JSONL");
  t.events[1].buffered = false;
  t.events[1].value = 3;
  EXPECT_EQ(error(t),
            "event 1: cannot be written in STD format: STD cannot carry values (read has value "
            "3); use JSONL");
  t = make(Op::begin);
  t.names.labels.intern("blk");
  EXPECT_EQ(error(t),
            "event 1: cannot be written in STD format: STD cannot carry the label of 'begin'; use JSONL");
  t = make(Op::read);
  t.names.vars.names[0] = "a|b";
  EXPECT_EQ(error(t), "event 0: cannot be written in STD format: name 'a|b' contains '|'; use JSONL");
  t.names.vars.names[0] = "a b";
  EXPECT_EQ(error(t), "event 0: cannot be written in STD format: name 'a b' contains whitespace; use JSONL");
  t.names.vars.names[0] = "x";
  t.names.threads.names[0] = "#T";
  EXPECT_EQ(error(t), "event 0: cannot be written in STD format: thread name '#T' starts with '#'; use JSONL");
  // Nothing is written by write_std when it refuses.
  std::FILE* f = std::tmpfile();
  EXPECT_THROW(write_std(f, t), TraceError);
  EXPECT_EQ(std::ftell(f), 0L);
  std::fclose(f);
}

TEST(JsonlWriter, RefusesACommitWithoutIssue) {
  Trace t;
  Event c;
  c.op = Op::commit;
  c.target = 0;
  t.events.push_back(c);
  EXPECT_THROW(to_jsonl_string(t), TraceError);
}

// ---------------------------------------------------------------------------------
// Streaming

TEST(Streaming, LinesAcrossBufferBoundariesAndLongNames) {
  // ~3 MB: several 1 MiB reads, lines cut by every boundary, plus a 2 MiB name that
  // forces the buffer to grow, then an error whose line number must still be exact.
  std::string text;
  const int lines = 150000;
  for (int i = 0; i < lines; ++i) text += fmt::format("T{}|w(var{})|{}\n", i % 7, i % 1500, i);
  std::string big(2 << 20, 'n');
  text += fmt::format("T0|r({})|1\n", big);
  Trace t = read_text("big.std", text);
  ASSERT_EQ(t.size(), static_cast<std::size_t>(lines + 1));
  EXPECT_EQ(t.names.vars.size(), 1501u);
  EXPECT_EQ(t.events[123456].loc, 123456u);
  EXPECT_EQ(t.names.var(t.events[123456].target), fmt::format("var{}", 123456 % 1500));
  EXPECT_EQ(t.names.thread(t.events[123456].thread), fmt::format("T{}", 123456 % 7));
  EXPECT_EQ(t.names.var(t.events.back().target), big);
  EXPECT_EQ(read_error("big2.std", text + "T0|x|1\n"),
            fmt::format("big2.std:{}: unknown operation 'x' (expected r, w, acq, rel, fork, join, "
                        "begin or end)", lines + 2));
}

TEST(Streaming, ReaderReportsLinesAndNamesAsItGoes) {
  auto reader = open_trace(write_temp("s.std", "# c\nT0|w(x)|1\n\nT1|r(y)|2\n"));
  Event e;
  ASSERT_TRUE(reader->next(e));
  EXPECT_EQ(reader->line(), 2u);
  EXPECT_EQ(reader->names().vars.size(), 1u);
  ASSERT_TRUE(reader->next(e));
  EXPECT_EQ(reader->line(), 4u);
  EXPECT_EQ(reader->names().threads.name(e.thread), "T1");
  EXPECT_FALSE(reader->next(e));
}

TEST(Streaming, ManyDistinctNamesKeepTheirIds) {
  // Grows the reader's name index several times; ids must stay dense and stable.
  std::string text;
  for (int i = 0; i < 5000; ++i) text += fmt::format("t|w({}{})|0\n", std::string(static_cast<std::size_t>(i % 40), 'p'), i);
  for (int i = 0; i < 5000; ++i) text += fmt::format("t|r({}{})|0\n", std::string(static_cast<std::size_t>(i % 40), 'p'), i);
  Trace t = read_text("names.std", text);
  ASSERT_EQ(t.names.vars.size(), 5000u);
  for (std::uint32_t i = 0; i < 5000; ++i) {
    ASSERT_EQ(t.events[i].target, i);
    ASSERT_EQ(t.events[5000 + i].target, i);
  }
}

TEST(Streaming, GarbageAndMutatedLinesNeverCrash) {
  // Random bytes and valid lines with random byte edits: each file either reads or
  // raises one TraceError of the form "FILE:LINE: ..." (ASan checks the 16-byte loads).
  PortableRng rng(99);
  const std::string valid_std = "T0|fork(T1)|1\nT1|acq(m)|2\nT1|w(x)|3\nT1|rel(m)|4\nT0|begin|5\n";
  std::string valid_jsonl = to_jsonl_string(jsonl_corpus_trace(7));
  valid_jsonl = valid_jsonl.substr(0, valid_jsonl.rfind('\n', 400) + 1);
  int errors = 0, reads = 0;
  for (int round = 0; round < 300; ++round) {
    bool jsonl = round % 2 == 1;
    std::string text = jsonl ? valid_jsonl : valid_std;
    if (round % 3 == 0) {
      text.clear();
      std::size_t n = rng.below(200);
      for (std::size_t i = 0; i < n; ++i) text.push_back(static_cast<char>(rng.below(256)));
    } else {
      for (int k = 0; k < 1; ++k) {
        std::size_t at = rng.below(text.size());
        const char pool[] = "|()#\"{}:,\\\n\r\t 0a-\x01\xff";
        text[at] = pool[rng.below(sizeof(pool) - 1)];
      }
    }
    std::string name = jsonl ? "g.jsonl" : "g.std";
    try {
      read_text(name, text);
      ++reads;
    } catch (const TraceError& e) {
      ++errors;
      std::string msg = e.what();
      ASSERT_NE(msg.find(name + ":"), std::string::npos) << msg;
      ASSERT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
  EXPECT_GT(errors, 100);
  EXPECT_GT(reads, 5);  // some edits keep the file valid (inside names, digits)
}

// ---------------------------------------------------------------------------------
// The papers' traces in tests/data/traces

struct Expectation {
  bool has_serializable = false, serializable = true;
  bool has_blamed = false;
  std::vector<EventIndex> blamed;
};

Expectation expectations(const std::string& path) {
  Expectation x;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const std::string tag = "# expect: ";
    if (line.rfind(tag, 0) != 0) continue;
    std::string kv = line.substr(tag.size());
    if (kv.rfind("serializable=", 0) == 0) {
      x.has_serializable = true;
      x.serializable = kv.substr(13) == "yes";
    } else if (kv.rfind("blamed=", 0) == 0) {
      x.has_blamed = true;
      std::string list = kv.substr(7);
      if (list != "none") {
        std::stringstream ss(list);
        std::string item;
        while (std::getline(ss, item, ',')) x.blamed.push_back(std::stoull(item));
      }
    }
  }
  return x;
}

TEST(PaperTraces, LoadWellFormedAndMatchTheOracle) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::data_path("traces"))) {
    std::string path = entry.path().string();
    if (entry.path().extension() != ".std" && entry.path().extension() != ".jsonl") continue;
    SCOPED_TRACE(path);
    Trace t = read_trace(path);
    ASSERT_GT(t.size(), 0u);
    auto problem = validate(t);
    EXPECT_FALSE(problem.has_value()) << *problem;
    if (entry.path().extension() == ".std") {
      EXPECT_EQ(to_std_string(read_text("again.std", to_std_string(t))), to_std_string(t));
    }
    Expectation x = expectations(path);
    if (!x.has_serializable) continue;
    ASSERT_TRUE(x.has_blamed);
    ConflictOracle oracle;
    for (const Event& e : t.events) oracle.on_event(e);
    Verdict v = oracle.verdict();
    EXPECT_EQ(v.serializable, x.serializable);
    std::vector<EventIndex> blamed;
    for (const Blame& b : v.blamed) blamed.push_back(b.txn.first);
    std::sort(blamed.begin(), blamed.end());
    blamed.erase(std::unique(blamed.begin(), blamed.end()), blamed.end());
    EXPECT_EQ(blamed, x.blamed);
    ++checked;
  }
  EXPECT_EQ(checked, 7);
}

}  // namespace
}  // namespace atomcheck
