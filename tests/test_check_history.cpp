// Recorded histories judged: random JSONL histories over the specifications of real logs
// (cas-register, kv with get/put/append and read/write/cas), with operations that fail,
// end without a known result or never end, read back through the reader and decided by
// every search (Wing-Gong, just-in-time, keys split or whole, one thread or two), each
// against the naive judge (checkers/lin_naive.cpp) written from the definition; every
// budget answers undecided or the judge's verdict. And Porcupine's 108 test histories
// decided from their files, against the verdicts Porcupine's own tests expect.
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "checkers/lin_history_io.hpp"
#include "checkers/lin_naive.hpp"
#include "tests/support/cli_runner.hpp"

namespace atomcheck {
namespace {

using nlohmann::json;

std::size_t histories_per_spec() {
  const char* env = std::getenv("ATOMCHECK_HISTORY_PROGRAMS");
  return env ? std::strtoull(env, nullptr, 10) : 1500;
}

// A random history as JSONL: up to three clients, each calling one operation at a time;
// an operation ends ok (with a result drawn from the values the spec can produce, so
// about half the histories are linearizable), fails, ends with :info, or never ends.
std::string random_history(std::mt19937_64& rng, const std::string& spec, std::size_t max_ops) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const std::vector<json> values = {"a", "b", "ab", ""};
  const std::vector<json> keys = {"x", "y"};
  const std::size_t clients = 1 + pick(3), ops = 1 + pick(max_ops);
  std::vector<int> open(clients, 0);  // 0 idle, 1 open, 2 gone (never ends)
  std::vector<std::string> lines;
  std::vector<std::string> method_of(clients);
  std::size_t started = 0;
  while (true) {
    std::vector<std::size_t> can;
    for (std::size_t c = 0; c < clients; ++c)
      if (open[c] == 1 || (open[c] == 0 && started < ops)) can.push_back(c);
    if (can.empty()) break;
    const std::size_t c = can[pick(can.size())];
    json e = {{"client", c}};
    if (open[c] == 0) {
      ++started;
      e["type"] = "invoke";
      if (spec == "cas-register") {
        static const char* const m[] = {"read", "write", "cas"};
        const std::string f = m[pick(3)];
        e["f"] = f;
        if (f == "write") e["args"] = {static_cast<int>(pick(3))};
        if (f == "cas") e["args"] = {pick(4) == 0 ? json(nullptr) : json(pick(3)), pick(3)};
      } else {
        static const char* const m[] = {"get", "put", "append", "read", "write", "cas"};
        const std::string f = m[pick(6)];
        e["f"] = f;
        e["key"] = keys[pick(keys.size())];
        if (f == "put" || f == "append" || f == "write") e["args"] = {values[pick(values.size())]};
        if (f == "cas") e["args"] = {pick(4) == 0 ? json(nullptr) : values[pick(values.size())], values[pick(3)]};
      }
      method_of[c] = e["f"];
      open[c] = 1;
      lines.push_back(e.dump());
      continue;
    }
    const std::size_t end = pick(10);
    if (end == 0) {  // never ends
      open[c] = 2;
      continue;
    }
    e["type"] = end == 1 ? "fail" : end == 2 ? "info" : "ok";
    if (end > 2) {
      const std::string& f = method_of[c];
      if (f == "cas") e["result"] = pick(2) == 1;
      if (f == "read" && spec == "cas-register") e["result"] = pick(4) == 0 ? json(nullptr) : json(pick(3));
      if (f == "read" && spec == "kv") e["result"] = pick(4) == 0 ? json(nullptr) : values[pick(values.size())];
      if (f == "get") e["result"] = values[pick(values.size())];
    }
    open[c] = 0;
    lines.push_back(e.dump());
  }
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The bound history in the naive judge's terms.
std::vector<naive::LinOp> naive_history(const lin::BoundHistory& b, const lin::ValueTable& values) {
  auto text = [&](std::int64_t v) -> std::optional<std::string> {
    if (v == lin::kNone) return std::nullopt;
    return values.text(v);
  };
  std::vector<naive::LinOp> out;
  for (const lin::Operation& op : b.history) {
    naive::LinOp n;
    n.thread = op.thread;
    n.method = op.method;
    n.arg = op.arg;
    n.arg2 = op.arg2;
    n.arg3 = op.arg3;
    n.result = op.result;
    n.pending = op.pending();
    n.call = op.call;
    n.ret = op.pending() ? 0 : op.ret;
    n.text2 = text(op.arg2);
    n.text3 = text(op.arg3);
    n.result_text = text(op.result);
    out.push_back(std::move(n));
  }
  return out;
}

struct Searcher {
  const char* name;
  lin::Options options;
};

std::vector<Searcher> searchers() {
  std::vector<Searcher> s;
  lin::Options o;
  o.algorithm = lin::Algorithm::wing_gong;
  s.push_back({"wing-gong", o});
  o.partition = false;
  s.push_back({"wing-gong whole", o});
  o.partition = true;
  o.jobs = 2;
  s.push_back({"wing-gong 2 threads", o});
  o = {};
  o.algorithm = lin::Algorithm::just_in_time;
  s.push_back({"just-in-time", o});
  o.partition = false;
  s.push_back({"just-in-time whole", o});
  return s;
}

class CheckHistoryProperties : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckHistoryProperties, EverySearchAgreesWithTheNaiveJudge) {
  const std::string spec_name = GetParam();
  std::mt19937_64 rng(spec_name == "kv" ? 56 : 65);
  const std::vector<Searcher> all = searchers();
  std::size_t linearizable = 0, with_unknown = 0, with_failed = 0, with_pending = 0;
  const std::size_t count = histories_per_spec();
  for (std::size_t k = 0; k < count; ++k) {
    const std::string text = random_history(rng, spec_name, 7);
    const lin::RecordedHistory r = lin::read_history(std::string_view(text), lin::HistoryFormat::jsonl);
    std::unique_ptr<lin::Spec> spec = lin::make_history_spec(spec_name, r.values);
    const lin::BoundHistory b = lin::bind_history(r, *spec);
    for (const lin::RecordedOp& op : r.ops) {
      with_unknown += op.status == lin::OpStatus::unknown;
      with_failed += op.status == lin::OpStatus::failed;
      with_pending += op.status == lin::OpStatus::pending;
    }
    const bool expected = naive::linearizable(spec_name, naive_history(b, *r.values), lin::kNone);
    linearizable += expected;
    for (const Searcher& s : all) {
      const lin::Answer a = lin::check(b.history, *spec, s.options);
      ASSERT_TRUE(a.undecided.empty()) << s.name << "\n" << text;
      ASSERT_EQ(a.linearizable, expected) << s.name << "\n" << text;
      // A budget of a few steps answers undecided or the verdict, never another.
      lin::Options tight = s.options;
      tight.max_steps = 1 + k % 5;
      const lin::Answer t = lin::check(b.history, *spec, tight);
      if (t.undecided.empty()) {
        ASSERT_EQ(t.linearizable, expected) << s.name << " with " << tight.max_steps << " steps\n" << text;
      }
    }
    if (!expected) {
      const lin::History p = lin::shortest_failing_prefix(b.history, *spec, all[0].options);
      ASSERT_FALSE(p.empty()) << text;
      ASSERT_FALSE(lin::check(p, *spec, all[0].options).linearizable) << text;
    }
  }
  // The histories exercise both verdicts and every way an operation can end.
  EXPECT_GT(linearizable, count / 10);
  EXPECT_LT(linearizable, count - count / 10);
  EXPECT_GT(with_unknown, 0u);
  EXPECT_GT(with_failed, 0u);
  EXPECT_GT(with_pending, 0u);
}

INSTANTIATE_TEST_SUITE_P(Specs, CheckHistoryProperties, ::testing::Values("cas-register", "kv"));

// A history no search decides in a few milliseconds, for the time and memory budgets:
// 18 writes that never return, then reads that rule every order out but one late. Its
// written values are distinct, so the budgets are tested with Options::registers off
// (lin_register.cpp decides it at once).
lin::History hard_history(std::size_t writers) {
  lin::History h;
  std::uint64_t t = 0;
  for (std::size_t w = 0; w < writers; ++w) {
    lin::Operation op;
    op.thread = static_cast<ThreadId>(w);
    op.method = 1;
    op.arg = static_cast<std::int64_t>(w);
    op.call = t++;
    h.push_back(op);
  }
  for (std::size_t r = 0; r < 4 * writers; ++r) {
    lin::Operation op;
    op.thread = static_cast<ThreadId>(writers);
    op.method = 0;
    op.result = static_cast<std::int64_t>((r * 7) % writers);
    op.call = t++;
    op.ret = t++;
    h.push_back(op);
  }
  return h;
}

TEST(CheckHistoryBudgets, TimeAndMemoryAnswerUndecided) {
  std::unique_ptr<lin::Spec> spec = lin::make_history_spec("cas-register", nullptr);
  const lin::History h = hard_history(18);
  for (lin::Algorithm alg : {lin::Algorithm::wing_gong, lin::Algorithm::just_in_time}) {
    lin::Options o;
    o.algorithm = alg;
    o.registers = false;
    o.max_steps = ~std::uint64_t{0};
    o.timeout_seconds = 1e-6;
    lin::Answer a = lin::check(h, *spec, o);
    EXPECT_NE(a.undecided.find("time"), std::string::npos) << a.undecided;
    o.timeout_seconds = 0;
    o.max_memory = 1024;
    a = lin::check(h, *spec, o);
    EXPECT_NE(a.undecided.find("memory"), std::string::npos) << a.undecided;
  }
}

// Porcupine's histories from their files: each verdict the one Porcupine's tests expect
// (tests/data/porcupine/etcd-expected.txt lists theirs; the kv files say it in their name).
TEST(CheckHistoryPorcupine, EveryFileGetsPorcupinesVerdict) {
  std::ifstream expected(testing::data_path("porcupine/etcd-expected.txt"));
  std::vector<std::pair<std::string, bool>> files;
  for (std::string n, v; expected >> n >> v;)
    files.push_back({fmt::format("porcupine/jepsen/etcd_{:03}.log", std::stoi(n)), v == "true"});
  for (const char* kv : {"c01-ok", "c01-bad", "c10-ok", "c10-bad", "c50-ok", "c50-bad"})
    files.push_back({fmt::format("porcupine/kv/{}.txt", kv), std::string(kv).find("ok") != std::string::npos});
  ASSERT_EQ(files.size(), 108u);
  for (const auto& [file, want] : files) {
    std::ifstream in(testing::data_path(file));
    ASSERT_TRUE(in) << file;
    const lin::RecordedHistory r = lin::read_history(in, std::nullopt);
    std::unique_ptr<lin::Spec> spec = lin::make_history_spec(lin::default_history_spec(r), r.values);
    const lin::BoundHistory b = lin::bind_history(r, *spec);
    lin::Options o;
    o.algorithm = lin::Algorithm::wing_gong;
    o.jobs = 0;
    o.timeout_seconds = 60;
    const lin::Answer a = lin::check(b.history, *spec, o);
    ASSERT_TRUE(a.undecided.empty()) << file << ": " << a.undecided;
    EXPECT_EQ(a.linearizable, want) << file;
  }
}

// The readers: what each format's events become.
TEST(CheckHistoryReaders, EtcdLogEvents) {
  const std::string log =
      "INFO  jepsen.util - 0\t:invoke\t:read\tnil\n"
      "INFO  jepsen.util - 1\t:invoke\t:cas\t[4 2]\n"
      "INFO  jepsen.util - 0\t:ok\t:read\t4\n"
      "INFO  jepsen.util - 1\t:fail\t:cas\t[4 2]\n"
      "INFO  jepsen.util - 2\t:invoke\t:write\t3\n"
      "INFO  jepsen.util - 2\t:info\t:write\t:timed-out\n";
  const lin::RecordedHistory r = lin::read_history(std::string_view(log), std::nullopt);
  ASSERT_EQ(r.format, lin::HistoryFormat::etcd);
  ASSERT_EQ(r.ops.size(), 3u);
  EXPECT_EQ(r.ops[0].result, 4);
  EXPECT_EQ(r.ops[1].status, lin::OpStatus::ok);  // a cas that did not swap answered false
  EXPECT_EQ(r.ops[1].result, 0);
  EXPECT_EQ(r.ops[1].args, (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(r.ops[2].status, lin::OpStatus::unknown);
  EXPECT_EQ(lin::default_history_spec(r), "cas-register");
}

TEST(CheckHistoryReaders, EdnVectorWithKeysAndFailures) {
  const std::string edn =
      "[{:process 0, :type :invoke, :f :put, :key \"k\", :value \"v\"}\n"
      " {:process :nemesis, :type :info, :f :start, :value nil}\n"
      " {:process 1, :type :invoke, :f :get, :key \"k\", :value nil}\n"
      " {:process 0, :type :fail, :f :put, :key \"k\", :value \"v\"}\n"
      " {:process 1, :type :ok, :f :get, :key \"k\", :value \"\"}]\n";
  const lin::RecordedHistory r = lin::read_history(std::string_view(edn), std::nullopt);
  ASSERT_EQ(r.format, lin::HistoryFormat::edn);
  ASSERT_EQ(r.ops.size(), 2u);
  EXPECT_EQ(r.ops[0].status, lin::OpStatus::failed);
  EXPECT_EQ(lin::default_history_spec(r), "kv");
  std::unique_ptr<lin::Spec> spec = lin::make_history_spec("kv", r.values);
  const lin::BoundHistory b = lin::bind_history(r, *spec);
  ASSERT_EQ(b.history.size(), 1u);  // the failed put is dropped
  EXPECT_EQ(r.values->text(b.history[0].result), "");
}

TEST(CheckHistoryReaders, BadInputNamesLineAndField) {
  auto error = [](const std::string& text) -> std::pair<std::uint32_t, std::string> {
    try {
      const lin::RecordedHistory r = lin::read_history(std::string_view(text), std::nullopt);
      std::unique_ptr<lin::Spec> spec = lin::make_history_spec(lin::default_history_spec(r), r.values);
      lin::bind_history(r, *spec);
    } catch (const lin::HistoryError& e) {
      return {e.line, e.field};
    }
    return {0, "no error"};
  };
  EXPECT_EQ(error("{\"client\":1,\"type\":\"invoke\",\"f\":\"read\"}\n{\"client\":1,\"type\":\"ok\",\"re"),
            (std::pair<std::uint32_t, std::string>{2, ""}));
  EXPECT_EQ(error("{\"client\":1,\"type\":\"invoke\",\"f\":\"fly\"}\n"), (std::pair<std::uint32_t, std::string>{1, "f"}));
  EXPECT_EQ(error("{\"client\":1,\"type\":\"done\",\"f\":\"read\"}\n"), (std::pair<std::uint32_t, std::string>{1, "type"}));
  EXPECT_EQ(error("{:process 0, :type :invoke, :f :read, :value nil}\n{:process 0,\n :type :ok, :f :read"),
            (std::pair<std::uint32_t, std::string>{3, ""}));
  EXPECT_EQ(error("INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\n"),
            (std::pair<std::uint32_t, std::string>{2, "f"}));
  EXPECT_EQ(error("{:process 0, :type :invoke, :f :read}\n{:process 0, :type :invoke, :f :read}\n"),
            (std::pair<std::uint32_t, std::string>{2, "process"}));
}

// The command: each format, standard input, --json, --html, and bad input as one line.
TEST(CheckHistoryCli, EachFormatAndExitCodes) {
  const std::string ok = testing::data_path("porcupine/kv/c01-ok.txt");
  const std::string bad = testing::data_path("porcupine/kv/c01-bad.txt");
  const std::string etcd = testing::data_path("porcupine/jepsen/etcd_000.log");
  testing::CliResult r = testing::run_cli({"check-history", ok});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("c01-ok.txt: linearizable (edn, kv, 58 operations"), std::string::npos) << r.out;
  r = testing::run_cli({"check-history", ok, bad, etcd});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3) << r.out;
  EXPECT_NE(r.out.find("etcd_000.log: not linearizable (etcd, cas-register"), std::string::npos) << r.out;

  const std::string jsonl =
      "{\"client\": \"a\", \"type\": \"invoke\", \"f\": \"enqueue\", \"args\": [{\"id\": 1}]}\n"
      "{\"client\": \"a\", \"type\": \"ok\"}\n"
      "{\"client\": \"b\", \"type\": \"invoke\", \"f\": \"dequeue\"}\n"
      "{\"client\": \"b\", \"type\": \"ok\", \"result\": {\"id\": 1}}\n";
  r = testing::run_cli({"check-history", "--spec", "queue", "-"}, jsonl);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("-: linearizable (jsonl, queue, 2 operations"), std::string::npos) << r.out;
  std::string wrong = jsonl;
  wrong.replace(wrong.rfind("1}"), 1, "2");
  r = testing::run_cli({"check-history", "--spec", "queue", "--json", "-"}, wrong);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["verdict"], "not linearizable");
  EXPECT_EQ(j["failing_prefix"]["operations"], 2);
  EXPECT_EQ(j["failing_prefix"]["ends_at_line"], 4);

  const std::string dir = testing::temp_dir();
  r = testing::run_cli({"check-history", "--html", dir + "/f.html", etcd});
  EXPECT_EQ(r.exit_code, 1);
  std::ifstream html(dir + "/f.html");
  std::stringstream page;
  page << html.rdbuf();
  EXPECT_NE(page.str().find("shortest failing prefix ends here"), std::string::npos);

  // Bad input: a truncated file, an unknown operation, a malformed line.
  std::ifstream in(ok);
  std::stringstream all;
  all << in.rdbuf();
  const std::string cut = all.str().substr(0, all.str().size() / 2);
  for (const auto& [text, where] : std::vector<std::pair<std::string, std::string>>{
           {cut.substr(0, cut.rfind(", :value")), "-:"},
           {"{\"client\": 1, \"type\": \"invoke\", \"f\": \"teleport\"}\n", "-:1: f: unknown operation 'teleport'"},
           {"{\"client\": 1, \"type\": \"invoke\", \"f\": \"read\"}\n{\"client\": 1 \"type\": \"ok\"}\n", "-:2: not JSON"},
           // EDN's name for a result: ignoring it would decide every read as returning nothing.
           {"{\"client\": 1, \"type\": \"invoke\", \"f\": \"read\"}\n{\"client\": 1, \"type\": \"ok\", \"value\": 2}\n",
            "-:2: value: not a field of JSONL events"}}) {
    r = testing::run_cli({"check-history", "-"}, text);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(r.err.rfind(where, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  // Jepsen's bookkeeping fields and those marked with _ are ignored.
  r = testing::run_cli({"check-history", "-", "--spec", "register"},
                       "{\"client\": 1, \"type\": \"invoke\", \"f\": \"write\", \"args\": [1], \"time\": 5}\n"
                       "{\"client\": 1, \"type\": \"ok\", \"index\": 2, \"_note\": \"x\"}\n"
                       "{\"client\": 2, \"type\": \"invoke\", \"f\": \"read\"}\n"
                       "{\"client\": 2, \"type\": \"ok\", \"result\": 2}\n");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the read of 2 after the write of 1
  EXPECT_NE(r.out.find("not linearizable"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace atomcheck
