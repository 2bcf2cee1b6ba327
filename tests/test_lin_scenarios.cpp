// Linearizability scenarios (scheduler/lin_test.hpp): a Treiber stack templated on its
// types passes; one whose pop gives up when its CAS fails, one whose push is a load and a
// store, and one that reuses nodes (ABA) are caught and their scenarios shrunk; the
// recorder adds no scheduling point.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "atomcheck/gtest.hpp"
#include "atomcheck/linearizability.hpp"

namespace {

using atomcheck::lin::kNone;

enum class Bug { none, pop_without_retry, push_without_cas };

// Nodes from a bump allocator (never reused, so no ABA), linked by index; -1 is null.
template <class Types, Bug bug>
class Stack {
 public:
  void push(int v) {
    const int n = free_.fetch_add(1);
    value_[n].store(v);
    if (bug == Bug::push_without_cas) {
      next_[n].store(head_.load());
      head_.store(n);
      return;
    }
    int h = head_.load();
    do {
      next_[n].store(h);
    } while (!head_.compare_exchange_weak(h, n));
  }
  std::int64_t pop() {
    int h = head_.load();
    while (true) {
      if (h < 0) return kNone;
      if (head_.compare_exchange_weak(h, next_[h].load())) return value_[h].load();
      if (bug == Bug::pop_without_retry) return kNone;  // gives up although the stack has elements
    }
  }

 private:
  static constexpr int kNodes = 16;
  typename Types::template atomic<int> head_{-1}, free_{0};
  typename Types::template atomic<int> value_[kNodes]{}, next_[kNodes]{};
};

template <Bug bug>
using ModelStack = Stack<atomcheck::model_types, bug>;

template <Bug bug>
std::vector<atomcheck::lin::Op<ModelStack<bug>>> stack_ops() {
  return {{"push", [](ModelStack<bug>& s, std::int64_t v) { return s.push(static_cast<int>(v)), kNone; }, 1, 3},
          {"pop", [](ModelStack<bug>& s, std::int64_t) { return s.pop(); }}};
}

TEST(LinScenarios, TreiberStackIsLinearizable) {
  EXPECT_LINEARIZABLE(atomcheck::lin::check_scenarios("stack", stack_ops<Bug::none>(),
                                                      {.threads = 2, .ops_per_thread = 2, .ops_before = 1}));
  // Under TSO too.
  EXPECT_LINEARIZABLE(atomcheck::lin::check_scenarios(
      "stack", stack_ops<Bug::none>(),
      {.threads = 2, .ops_per_thread = 2, .scenarios = 5, .explore = {.memory = atomcheck::MemoryModelKind::tso}}));
}

TEST(LinScenarios, MissingCasRetryIsCaughtAndShrunk) {
  atomcheck::lin::ScenarioReport r = atomcheck::lin::check_scenarios(
      "stack", stack_ops<Bug::pop_without_retry>(), {.threads = 2, .ops_per_thread = 3, .ops_before = 2});
  ASSERT_FALSE(r.ok);
  // Two pops racing for an element while another stays: at least one push and two pops.
  EXPECT_LE(r.scenario.size(), 4u) << r.text;
  EXPECT_LT(r.scenario.size(), r.original) << r.text;
  EXPECT_NE(r.text.find("not linearizable (stack object "), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("pop() -> none"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("the shortest failing history:\nT"), std::string::npos) << r.text;  // one operation a line
  EXPECT_NE(r.text.find("schedule: "), std::string::npos) << r.text;
}

TEST(LinScenarios, PushWithoutCasLosesAnElement) {
  atomcheck::lin::ScenarioReport r = atomcheck::lin::check_scenarios(
      "stack", stack_ops<Bug::push_without_cas>(), {.threads = 2, .ops_per_thread = 2, .ops_after = 2});
  ASSERT_FALSE(r.ok);
  EXPECT_LE(r.scenario.size(), 4u) << r.text;
  EXPECT_NE(r.text.find("minimised from "), std::string::npos) << r.text;
}

// Recording adds no scheduling point: a scenario explores as many executions as the same
// operations run without the recorder.
TEST(LinScenarios, RecordingDoesNotChangeTheClasses) {
  auto spec = atomcheck::lin::make_spec("stack");
  atomcheck::lin::Scenario s;
  s.before = {{0, 1}};
  s.parallel = {{{0, 2}, {1, kNone}}, {{1, kNone}}};
  atomcheck::ModelReport with = atomcheck::lin::check_scenario(*spec, stack_ops<Bug::none>(), s, {});
  ASSERT_TRUE(with.ok) << with.text;
  atomcheck::ExploreResult without = atomcheck::explore([] {
    ModelStack<Bug::none> st;
    st.push(1);
    atomcheck::thread t1([&] { st.push(2); st.pop(); });
    atomcheck::thread t2([&] { st.pop(); });
    t1.join();
    t2.join();
  });
  EXPECT_EQ(with.result.executions, without.executions);
  EXPECT_GT(without.executions, 1u);
}

// A Treiber stack that reuses popped nodes, first-freed first, with no tag on the head: the
// ABA problem. A pop that read head A and its next B can still swing head to B after
// other pops freed both and a push reused A, so B, already popped, comes back.
template <class Types>
class ReusingStack {
 public:
  void push(int v) {
    const int n = allocate();
    value_[n].store(v);
    int h = head_.load();
    do {
      next_[n].store(h);
    } while (!head_.compare_exchange_weak(h, n));
  }
  std::int64_t pop() {
    int h = head_.load();
    while (h >= 0) {
      const int next = next_[h].load();
      if (head_.compare_exchange_weak(h, next)) {
        const int v = value_[h].load();
        release(h);
        return v;
      }
    }
    return kNone;
  }

 private:
  static constexpr int kNodes = 16;  // more than a scenario pushes
  int allocate() {
    std::lock_guard<typename Types::mutex> g(m_);
    if (freed_begin_.load() < freed_end_.load()) return freed_[freed_begin_.fetch_add(1) % kNodes].load();
    return fresh_.fetch_add(1);
  }
  void release(int n) {
    std::lock_guard<typename Types::mutex> g(m_);
    freed_[freed_end_.fetch_add(1) % kNodes].store(n);
  }
  typename Types::template atomic<int> head_{-1}, fresh_{0}, freed_begin_{0}, freed_end_{0};
  typename Types::template atomic<int> value_[kNodes]{}, next_[kNodes]{}, freed_[kNodes]{};
  typename Types::mutex m_;
};

using AbaStack = ReusingStack<atomcheck::model_types>;
const std::vector<atomcheck::lin::Op<AbaStack>> aba_ops = {
    {"push", [](AbaStack& s, std::int64_t v) { return s.push(static_cast<int>(v)), kNone; }, 1, 3},
    {"pop", [](AbaStack& s, std::int64_t) { return s.pop(); }}};

TEST(LinScenarios, AbaOfAStackThatReusesNodes) {
  // The textbook interleaving as a scenario of its own: T1 pops while T2 pops twice and
  // pushes, reusing the first node; the last pop sees an element popped before.
  auto spec = atomcheck::lin::make_spec("stack");
  atomcheck::lin::Scenario s;
  s.before = {{0, 1}, {0, 2}};
  s.parallel = {{{1, kNone}}, {{1, kNone}, {1, kNone}, {0, 3}}};
  s.after = {{1, kNone}, {1, kNone}};
  atomcheck::ModelReport r = atomcheck::lin::check_scenario(*spec, aba_ops, s, {});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.text.find("not linearizable (stack object"), std::string::npos) << r.text;
  // Random scenarios of that size find it too, and shrink it.
  atomcheck::lin::ScenarioReport random = atomcheck::lin::check_scenarios(
      "stack", aba_ops, {.threads = 2, .ops_per_thread = 3, .ops_before = 2, .ops_after = 2, .scenarios = 300});
  ASSERT_FALSE(random.ok) << random.text;
  EXPECT_LT(random.scenario.size(), random.original) << random.text;
}

TEST(LinScenarios, UnknownMethodsAreRefused) {
  std::vector<atomcheck::lin::Op<ModelStack<Bug::none>>> ops = {{"shove", [](ModelStack<Bug::none>&, std::int64_t) { return kNone; }}};
  EXPECT_THROW(atomcheck::lin::check_scenarios("stack", ops), std::invalid_argument);
  EXPECT_THROW(atomcheck::lin::check_scenarios("heap", stack_ops<Bug::none>()), std::invalid_argument);
}

}  // namespace
