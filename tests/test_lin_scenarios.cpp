// Linearizability scenarios (scheduler/lin_test.hpp): a Treiber stack templated on its
// types passes; one whose pop gives up when its CAS fails, one whose push is a load and a
// store, and one that reuses nodes (ABA) are caught and their scenarios shrunk; the
// recorder adds no scheduling point.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <type_traits>
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

// A correct counter (fetch_add) whose searches a budget of two executions cuts: the
// scenarios are incomplete, not failing, and none is shrunk.
struct Counter {
  atomcheck::atomic<int> value{0};
};
const std::vector<atomcheck::lin::Op<Counter>> counter_ops = {
    {"increment", [](Counter& c, std::int64_t) -> std::int64_t { return c.value.fetch_add(1); }},
    {"get", [](Counter& c, std::int64_t) -> std::int64_t { return c.value.load(); }}};

TEST(LinScenarios, ASearchCutByABudgetIsIncompleteNotFailing) {
  atomcheck::ExploreOptions cut;
  cut.max_executions = 2;
  atomcheck::lin::ScenarioReport r =
      atomcheck::lin::check_scenarios("counter", counter_ops, {.threads = 2, .scenarios = 4, .explore = cut});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.incomplete) << r.text;
  EXPECT_EQ(r.tried, 4u) << r.text;  // nothing shrunk
  EXPECT_NE(r.text.find("incomplete"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("max_executions"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("minimised"), std::string::npos) << r.text;
  // Unbounded, the same scenarios pass.
  EXPECT_LINEARIZABLE(atomcheck::lin::check_scenarios("counter", counter_ops, {.threads = 2, .scenarios = 4}));
}

TEST(LinScenarios, AFailureIsReportedEvenWhenAnotherScenarioWasCut) {
  // The racy stack fails in some scenario; the budget cuts others: the failure wins, and
  // the report says the scenarios were not all decided.
  atomcheck::ExploreOptions cut;
  cut.max_executions = 40;
  atomcheck::lin::ScenarioReport r = atomcheck::lin::check_scenarios(
      "stack", stack_ops<Bug::pop_without_retry>(), {.threads = 2, .ops_per_thread = 3, .ops_before = 2, .explore = cut});
  ASSERT_FALSE(r.ok);
  EXPECT_FALSE(r.incomplete) << r.text;
  EXPECT_NE(r.text.find("not linearizable (stack object"), std::string::npos) << r.text;
}

TEST(LinScenarios, ATimeLimitForAllScenarios) {
  atomcheck::lin::ScenarioReport r = atomcheck::lin::check_scenarios(
      "stack", stack_ops<Bug::none>(),
      {.threads = 3, .ops_per_thread = 3, .scenarios = 50, .time_limit_seconds = 0.05});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.incomplete) << r.text;
  EXPECT_NE(r.text.find("time limit"), std::string::npos) << r.text;
}

// A single-producer single-consumer ring: correct with one thread enqueueing and one
// dequeueing, wrong with two producers. Roles (groups) keep the scenarios to its contract.
template <class Types>
class SpscRing {
 public:
  std::int64_t enqueue(int v) {
    const int t = tail_.load(std::memory_order_relaxed);
    if (t - head_.load(std::memory_order_acquire) == kCap) return 0;
    slot_[t % kCap].store(v, std::memory_order_relaxed);
    tail_.store(t + 1, std::memory_order_release);
    return kNone;
  }
  std::int64_t dequeue() {
    const int h = head_.load(std::memory_order_relaxed);
    if (h == tail_.load(std::memory_order_acquire)) return kNone;
    const int v = slot_[h % kCap].load(std::memory_order_relaxed);
    head_.store(h + 1, std::memory_order_release);
    return v;
  }

 private:
  static constexpr int kCap = 4;
  typename Types::template atomic<int> head_{0}, tail_{0}, slot_[kCap]{};
};
using Ring = SpscRing<atomcheck::model_types>;

std::vector<atomcheck::lin::Op<Ring>> ring_ops(bool roles) {
  return {{"enqueue", [](Ring& r, std::int64_t v) { return r.enqueue(static_cast<int>(v)); }, 1, 3, roles ? "producer" : ""},
          {"dequeue", [](Ring& r, std::int64_t) { return r.dequeue(); }, 1, 0, roles ? "consumer" : ""}};
}

TEST(LinScenarios, GroupsBindOperationsToOneThread) {
  const atomcheck::lin::ScenarioOptions o{.threads = 2, .ops_per_thread = 3};
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const atomcheck::lin::Scenario s = atomcheck::lin::random_scenario(seed, o, {{1, 3}, {1, 0}}, {"producer", "consumer"});
    ASSERT_EQ(s.parallel.size(), 2u);
    for (const atomcheck::lin::Step& st : s.parallel[0]) EXPECT_EQ(st.op, 0u) << seed;
    for (const atomcheck::lin::Step& st : s.parallel[1]) EXPECT_EQ(st.op, 1u) << seed;
  }
  for (auto m : {atomcheck::MemoryModelKind::sc, atomcheck::MemoryModelKind::tso, atomcheck::MemoryModelKind::rc11})
    EXPECT_LINEARIZABLE(atomcheck::lin::check_scenarios(
        "queue", ring_ops(true), {.threads = 2, .ops_per_thread = 2, .ops_after = 2, .scenarios = 6, .explore = {.memory = m}}))
        << atomcheck::memory_model_name(m);
  // Without roles two producers race for one slot: not linearizable.
  atomcheck::lin::ScenarioReport r = atomcheck::lin::check_scenarios(
      "queue", ring_ops(false), {.threads = 2, .ops_per_thread = 2, .ops_after = 2, .scenarios = 20});
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.incomplete) << r.text;
}

// A specification of one's own: a max register (write keeps the largest value).
class MaxRegister : public atomcheck::lin::Spec {
 public:
  std::string_view name() const override { return "max-register"; }
  const std::vector<std::string>& methods() const override { return methods_; }
  std::vector<std::int64_t> initial() const override { return {0}; }
  bool step(std::vector<std::int64_t>& s, const atomcheck::lin::Operation& op, bool check) const override {
    if (op.method == 0) {
      s[0] = std::max(s[0], op.arg);
      return true;
    }
    return !check || op.result == s[0];
  }

 private:
  std::vector<std::string> methods_ = {"write", "read"};
};

template <bool kCas>
struct MaxCell {
  atomcheck::atomic<int> v{0};
  std::int64_t write(int x) {
    int cur = v.load();
    if (!kCas) {  // a load and a store: a smaller write can overwrite a larger one
      if (cur < x) v.store(x);
      return kNone;
    }
    while (cur < x && !v.compare_exchange_weak(cur, x)) {
    }
    return kNone;
  }
};

TEST(LinScenarios, ASpecificationOfOnesOwn) {
  const MaxRegister spec;
  auto ops = [](auto* cell) {
    using C = std::remove_pointer_t<decltype(cell)>;
    return std::vector<atomcheck::lin::Op<C>>{
        {"write", [](C& c, std::int64_t x) { return c.write(static_cast<int>(x)); }, 1, 3},
        {"read", [](C& c, std::int64_t) -> std::int64_t { return c.v.load(); }}};
  };
  EXPECT_LINEARIZABLE(atomcheck::lin::check_scenarios(spec, ops(static_cast<MaxCell<true>*>(nullptr)),
                                                      {.threads = 2, .ops_after = 1, .scenarios = 10}));
  atomcheck::lin::ScenarioReport r = atomcheck::lin::check_scenarios(spec, ops(static_cast<MaxCell<false>*>(nullptr)),
                                                                     {.threads = 2, .ops_after = 1, .scenarios = 20});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.text.find("not linearizable (max-register object"), std::string::npos) << r.text;
  // Registered, lin::operation and the panel's checker find it by name.
  atomcheck::lin::register_spec(std::make_shared<MaxRegister>());
  atomcheck::ModelReport panel = atomcheck::check_model(
      [] {
        MaxCell<false> c;
        atomcheck::thread t([&] {
          atomcheck::lin::operation op("max-register", "write", 3);
          op.returns(c.write(3));
        });
        {
          atomcheck::lin::operation op("max-register", "write", 2);
          op.returns(c.write(2));
        }
        t.join();
        atomcheck::lin::operation op("max-register", "read");
        op.returns(c.v.load());
      },
      {.checkers = {"linearizability"}});
  EXPECT_FALSE(panel.ok);
  EXPECT_TRUE(panel.result.any_checker_flagged()) << panel.text;
  // A built-in's name is not one's own.
  struct Impostor : MaxRegister {
    std::string_view name() const override { return "queue"; }
  };
  EXPECT_THROW(atomcheck::lin::register_spec(std::make_shared<Impostor>()), std::invalid_argument);
}

}  // namespace
