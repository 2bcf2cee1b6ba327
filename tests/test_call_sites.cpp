// Every operation records the user's file:line (issue 21, item 3), also through the
// operators of shared<T> and atomic<T>, which cannot take a std::source_location and
// pass a return address instead (scheduler/call_sites.hpp). Each statement below stands
// on a line of its own and notes that line; the replayed trace must name this file and
// that line for every event the statement emitted.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/explore.hpp"
#include "scheduler/explore/model.hpp"
#include "scheduler/runtime/sync.hpp"

namespace atomcheck {
namespace {

// The line each statement stands on, in the order the statements run (one thread).
std::vector<int>* g_lines = nullptr;
#define AT_THIS_LINE g_lines->push_back(__LINE__);

void operators_body() {
  shared<int> s(0, "s");
  atomic<int> a(0, "a");
  shared<int> copy_init = 5; AT_THIS_LINE  // no event: created, not stored
  (void)copy_init;
  s = 1; AT_THIS_LINE
  int v = s; AT_THIS_LINE
  ++s; AT_THIS_LINE
  s++; AT_THIS_LINE
  s += 2; AT_THIS_LINE
  s -= v; AT_THIS_LINE
  a = 3; AT_THIS_LINE
  int w = a; AT_THIS_LINE
  ++a; AT_THIS_LINE
  a++; AT_THIS_LINE
  --a; AT_THIS_LINE
  a--; AT_THIS_LINE
  a += w; AT_THIS_LINE
  a -= 1; AT_THIS_LINE
  a.store(7); AT_THIS_LINE
  (void)a.load(); AT_THIS_LINE
  (void)s.get(); AT_THIS_LINE
}

std::string here(int line) { return "test_call_sites.cpp:" + std::to_string(line); }

TEST(CallSites, OperatorsOfSharedAndAtomicNameTheUsersLine) {
  std::vector<int> lines;
  g_lines = &lines;
  ReplayResult r = replay(operators_body, "");
  g_lines = nullptr;
  ASSERT_FALSE(r.failed) << r.failure.message;
  // Events per statement: copy-init none; s = 1 one write; v = s one read; ++s, s++,
  // s += 2, s -= v a read and a write each; then one rmw or access per atomic statement.
  const std::vector<int> events_per_statement = {0, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  ASSERT_EQ(lines.size(), events_per_statement.size());
  std::vector<std::string> want;
  for (std::size_t k = 0; k < lines.size(); ++k)
    for (int n = 0; n < events_per_statement[k]; ++n) want.push_back(here(lines[k]));
  std::vector<std::string> got;
  for (const Event& e : r.trace.events)
    if (is_access(e.op)) got.push_back(r.trace.names.loc(e.loc));
  EXPECT_EQ(got, want);
}

void two_threads_body() {
  atomic<int> x(0, "x");
  thread t([&] { x = 1; });  // both the fork and the write are on this line
  t.join();
  int v = x;
  check(v == 1, "the child's write is visible after join");
}

TEST(CallSites, SpawnJoinAndLambdaBodiesNameTheirLines) {
  ReplayResult r = replay(two_threads_body, "");
  ASSERT_FALSE(r.failed) << r.failure.message;
  std::map<std::string, std::string> at;  // "op thread" -> file:line
  for (const Event& e : r.trace.events)
    at[std::string(op_name(e.op)) + " " + r.trace.names.thread(e.thread)] = r.trace.names.loc(e.loc);
  const int spawn_line = __LINE__ - 12;  // the `thread t(...)` line of two_threads_body
  EXPECT_EQ(at["fork T0"], here(spawn_line));
  EXPECT_EQ(at["write T1"], here(spawn_line));
  EXPECT_EQ(at["join T0"], here(spawn_line + 1));
  EXPECT_EQ(at["read T0"], here(spawn_line + 2));
}

// The report of atomcheck::model shows the sites too, in its `at` column.
TEST(CallSites, ModelReportShowsFileAndLine) {
  ModelReport rep = check_model([] {
    shared<int> x(0, "x");
    thread t([&] { x = x + 1; });
    x = x + 1;
    t.join();
    check(x == 2, "lost update");
  });
  ASSERT_FALSE(rep.ok);
  EXPECT_NE(rep.text.find(here(__LINE__ - 6)), std::string::npos) << rep.text;
  EXPECT_NE(rep.text.find(here(__LINE__ - 6)), std::string::npos) << rep.text;
  EXPECT_EQ(rep.text.find("api.hpp"), std::string::npos) << rep.text;
}

// Locks taken through the std wrappers are the user's: std::lock_guard calls
// mutex::lock() from a libstdc++ header, whose source_location is that header's; the
// report names the first frame outside the standard library instead. Each wrapper's
// scope opens and closes on one line, so its lock and unlock both stand on it.
void wrapper_locks_body() {
  mutex m("m");
  shared_mutex rw("rw");
  { std::lock_guard<mutex> g(m); } AT_THIS_LINE
  { std::unique_lock<mutex> g(m); } AT_THIS_LINE
  { std::scoped_lock<mutex> g(m); } AT_THIS_LINE
  { std::unique_lock<mutex> g(m, std::try_to_lock); } AT_THIS_LINE
  { std::shared_lock<shared_mutex> g(rw); } AT_THIS_LINE
  { std::unique_lock<shared_mutex> g(rw); } AT_THIS_LINE
}

TEST(CallSites, LocksThroughStdWrappersNameTheUsersLine) {
  std::vector<int> lines;
  g_lines = &lines;
  ReplayResult r = replay(wrapper_locks_body, "");
  g_lines = nullptr;
  ASSERT_FALSE(r.failed) << r.failure.message;
  ASSERT_EQ(lines.size(), 6u);
  // mutex: an acquire and a release per line; shared_mutex: its counter's accesses.
  std::vector<std::string> want, got;
  for (int k = 0; k < 4; ++k) want.insert(want.end(), 2, here(lines[k]));
  for (const Event& e : r.trace.events)
    if (is_lock_op(e.op)) got.push_back(r.trace.names.loc(e.loc));
  EXPECT_EQ(got, want);
  std::vector<std::string> rw_sites, rw_want;
  for (const Event& e : r.trace.events)
    if (is_access(e.op)) rw_sites.push_back(r.trace.names.loc(e.loc));
  ASSERT_FALSE(rw_sites.empty());
  for (const std::string& site : rw_sites)
    EXPECT_TRUE(site == here(lines[4]) || site == here(lines[5])) << site;
  EXPECT_NE(std::find(rw_sites.begin(), rw_sites.end(), here(lines[4])), rw_sites.end());
  EXPECT_NE(std::find(rw_sites.begin(), rw_sites.end(), here(lines[5])), rw_sites.end());
}

}  // namespace
}  // namespace atomcheck
