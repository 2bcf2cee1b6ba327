// Wing–Gong–Lowe linearizability search and the built-in sequential specifications (see
// linearizability.hpp).
#include "checkers/linearizability.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/core.h>

#include "checkers/lin_collections.hpp"
#include "checkers/lin_register.hpp"
#include "checkers/lin_search.hpp"

namespace atomcheck::lin {

namespace {

using State = std::vector<std::int64_t>;

// A spec from a table of methods and one step function; `keyed` specs split by arg.
class TableSpec final : public Spec {
 public:
  using Step = bool (*)(State&, const Operation&, bool);
  TableSpec(std::string name, std::vector<std::string> methods, Step step, bool keyed, State initial = {},
            std::uint32_t reader = ~0u)
      : name_(std::move(name)),
        methods_(std::move(methods)),
        step_(step),
        keyed_(keyed),
        initial_(std::move(initial)),
        reader_(reader) {}
  bool observer(const Operation& op) const override { return op.method == reader_; }
  std::string_view name() const override { return name_; }
  const std::vector<std::string>& methods() const override { return methods_; }
  State initial() const override { return initial_; }
  bool step(State& s, const Operation& op, bool check) const override { return step_(s, op, check); }
  Step step_function() const { return step_; }
  std::optional<RegisterShape> register_shape() const override;
  std::optional<std::int64_t> key(const Operation& op) const override {
    if (keyed_) return op.arg;
    return std::nullopt;
  }

 private:
  std::string name_;
  std::vector<std::string> methods_;
  Step step_;
  bool keyed_;
  State initial_;
  std::uint32_t reader_;  // the method that only reads (get, contains), ~0u: none
};

// Returns `want` checked against the operation's result (always true for a pending one).
bool gives(const Operation& op, bool check, std::int64_t want) { return !check || op.result == want; }

bool stack_step(State& s, const Operation& op, bool check) {
  if (op.method == 0) {  // push
    s.push_back(op.arg);
    return true;
  }
  std::int64_t top = s.empty() ? kNone : s.back();
  if (!s.empty()) s.pop_back();
  return gives(op, check, top);
}

bool queue_step(State& s, const Operation& op, bool check) {
  if (op.method == 0) {  // enqueue
    s.push_back(op.arg);
    return true;
  }
  std::int64_t front = s.empty() ? kNone : s.front();
  if (!s.empty()) s.erase(s.begin());
  return gives(op, check, front);
}

// The owner pushes and pops at the bottom (the back); thieves steal from the top (the front).
bool deque_step(State& s, const Operation& op, bool check) {
  switch (op.method) {
    case 0: s.push_back(op.arg); return true;
    case 1: {
      std::int64_t v = s.empty() ? kNone : s.back();
      if (!s.empty()) s.pop_back();
      return gives(op, check, v);
    }
    default: {
      std::int64_t v = s.empty() ? kNone : s.front();
      if (!s.empty()) s.erase(s.begin());
      return gives(op, check, v);
    }
  }
}

// A sorted vector of elements.
bool set_step(State& s, const Operation& op, bool check) {
  auto it = std::lower_bound(s.begin(), s.end(), op.arg);
  const bool in = it != s.end() && *it == op.arg;
  switch (op.method) {
    case 0:  // add
      if (!in) s.insert(it, op.arg);
      return gives(op, check, in ? 0 : 1);
    case 1:  // remove
      if (in) s.erase(it);
      return gives(op, check, in ? 1 : 0);
    default: return gives(op, check, in ? 1 : 0);  // contains
  }
}

// Sorted (key, value) pairs, flattened.
bool map_step(State& s, const Operation& op, bool check) {
  std::size_t i = 0;
  while (i < s.size() && s[i] < op.arg) i += 2;
  const bool in = i < s.size() && s[i] == op.arg;
  const std::int64_t old = in ? s[i + 1] : kNone;
  switch (op.method) {
    case 0:  // put
      if (in) {
        s[i + 1] = op.arg2;
      } else {
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(i), {op.arg, op.arg2});
      }
      return gives(op, check, old);
    case 1: return gives(op, check, old);  // get
    default:                                // remove
      if (in) s.erase(s.begin() + static_cast<std::ptrdiff_t>(i), s.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      return gives(op, check, old);
  }
}

bool counter_step(State& s, const Operation& op, bool check) {
  const std::int64_t v = s[0];
  if (op.method == 0) ++s[0];  // increment returns the value before, as fetch_add
  return gives(op, check, v);
}

// The thread holding the lock plus one, 0 when free: lock only when free, unlock only by
// the holder. A pending lock that took effect holds it; one that did not is left out.
bool mutex_step(State& s, const Operation& op, bool) {
  if (op.method == 0) {  // lock
    if (s[0] != 0) return false;
    s[0] = static_cast<std::int64_t>(op.thread) + 1;
    return true;
  }
  if (s[0] != static_cast<std::int64_t>(op.thread) + 1) return false;  // unlock
  s[0] = 0;
  return true;
}

bool register_step(State& s, const Operation& op, bool check) {
  if (op.method == 0) {
    s[0] = op.arg;
    return true;
  }
  return gives(op, check, s[0]);
}

std::optional<RegisterShape> TableSpec::register_shape() const {
  if (step_ != &register_step) return std::nullopt;
  return RegisterShape{.read = 1, .write = 0, .initial = initial_.at(0)};
}

using detail::Budget;
using detail::kStopped;
using detail::Meter;

// Lowe's just-in-time linearization: an operation is linearized only when it returns (or
// when a returning one needs it first), so no choice is made before a return asks for it.
// A depth-first search over (return reached, configuration), a configuration being the
// state and the open operations already linearized; the shortest sequences are tried first
// and every (return, configuration) pair is visited once, and within one return's
// expansion equal configurations are merged (k open operations cost at most 2^k subsets
// times the states, not k! orders).
Answer check_part_jit(const History& h, const std::vector<std::uint32_t>& ops, const Spec& spec, const Budget& budget) {
  Answer a;
  Meter meter(budget, a);
  // The returns in time order, and the operations open at each (called before it, not
  // returned before it; pending ones stay open to the end).
  std::vector<std::uint32_t> rets;
  for (std::uint32_t o : ops)
    if (!h[o].pending()) rets.push_back(o);
  std::sort(rets.begin(), rets.end(), [&](std::uint32_t x, std::uint32_t y) { return h[x].ret < h[y].ret; });
  std::vector<std::vector<std::uint32_t>> open(rets.size());
  {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> calls;  // swept in time order
    for (std::uint32_t o : ops) calls.push_back({h[o].call, o});
    std::sort(calls.begin(), calls.end());
    std::vector<std::uint32_t> now;
    std::size_t c = 0;
    for (std::size_t r = 0; r < rets.size(); ++r) {
      for (; c < calls.size() && calls[c].first < h[rets[r]].ret; ++c) now.push_back(calls[c].second);
      now.erase(std::find(now.begin(), now.end(), rets[r]));
      open[r] = now;
    }
  }
  struct Node {
    std::uint32_t r;  // the next return to reach
    State state;
    std::vector<std::uint32_t> done;  // open operations already linearized, sorted
    bool operator==(const Node&) const = default;
  };
  struct NodeHash {
    std::size_t operator()(const Node& c) const {
      std::uint64_t x = 0xcbf29ce484222325ull ^ c.r;
      for (std::int64_t v : c.state) x = (x ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ull;
      for (std::uint32_t v : c.done) x = (x ^ (v + 0x9e37ull)) * 0x100000001b3ull;
      return static_cast<std::size_t>(x ^ (x >> 31));
    }
  };
  auto bytes = [](const Node& x) { return (x.state.capacity() * 2 + x.done.capacity()) * 4 + 96; };
  std::unordered_set<Node, NodeHash> visited, level_seen;
  std::vector<Node> stack{{0, spec.initial(), {}}};
  std::vector<Node> succ, level, deeper;
  while (!stack.empty()) {
    Node n = std::move(stack.back());
    stack.pop_back();
    if (n.r == rets.size()) return a;
    if (!meter.step()) return a;
    const std::uint32_t o = rets[n.r];
    succ.clear();
    auto at = std::lower_bound(n.done.begin(), n.done.end(), o);
    if (at != n.done.end() && *at == o) {
      Node d{n.r + 1, n.state, n.done};
      d.done.erase(d.done.begin() + (at - n.done.begin()));
      succ.push_back(std::move(d));
    } else {
      // Sequences of other open, unlinearized operations, shortest first, each ended by o.
      level.assign(1, Node{n.r, n.state, n.done});
      level_seen.clear();
      while (!level.empty()) {
        deeper.clear();
        for (const Node& m : level) {
          State last = m.state;
          if (spec.step(last, h[o], true)) succ.push_back(Node{n.r + 1, std::move(last), m.done});
          for (std::uint32_t x : open[n.r]) {
            if (std::binary_search(m.done.begin(), m.done.end(), x)) continue;
            if (!meter.step()) return a;
            State st = m.state;
            if (!spec.step(st, h[x], !h[x].pending())) continue;
            std::vector<std::uint32_t> d = m.done;
            d.insert(std::lower_bound(d.begin(), d.end(), x), x);
            Node next{n.r, std::move(st), std::move(d)};
            if (!level_seen.insert(next).second) continue;
            meter.grew(bytes(next));
            deeper.push_back(std::move(next));
          }
        }
        std::swap(level, deeper);
      }
    }
    // Pushed in reverse, so the shortest sequence is explored first.
    for (auto it = succ.rbegin(); it != succ.rend(); ++it)
      if (visited.insert(*it).second) {
        meter.grew(bytes(*it));
        stack.push_back(std::move(*it));
      }
  }
  a.linearizable = false;
  return a;
}

// `order` closed transitively, with each thread's operations ordered by their calls (then
// by index) and every pending operation preceding nothing (Warshall: histories of one
// execution are small).
Precedence closed_order(const History& h, const Precedence& order) {
  const std::size_t n = h.size();
  Precedence c = order;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) {
      if (h[a].pending() || a == b) {
        c.bits[a * n + b] = 0;
        continue;
      }
      if (h[a].thread == h[b].thread && (h[a].call < h[b].call || (h[a].call == h[b].call && a < b))) c.set(a, b);
    }
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t a = 0; a < n; ++a)
      if (c.before(a, k))
        for (std::size_t b = 0; b < n; ++b)
          if (c.before(k, b)) c.set(a, b);
  return c;
}

// One part under a partial order. The operations form chains (a thread's, in call order;
// a pending operation that is not its thread's last gets a chain of its own), so the
// linearized set is a vector of chain prefixes; an operation can be linearized next when
// every operation before it is in the set, which `need` says per chain (its
// predecessors in a chain are a prefix of it, the order being closed). Depth-first over
// (prefixes, state), each visited once.
Answer check_part_ordered(const History& h, const std::vector<std::uint32_t>& ops, const Precedence& order,
                          const Spec& spec, const Budget& budget) {
  Answer a;
  Meter meter(budget, a);
  std::vector<std::uint32_t> sorted = ops;
  std::sort(sorted.begin(), sorted.end(), [&](std::uint32_t x, std::uint32_t y) {
    return h[x].call != h[y].call ? h[x].call < h[y].call : x < y;
  });
  std::vector<std::vector<std::uint32_t>> chain;
  std::unordered_map<ThreadId, std::size_t> chain_of_thread;
  for (std::uint32_t o : sorted) {
    auto [it, fresh] = chain_of_thread.emplace(h[o].thread, chain.size());
    if (fresh) chain.emplace_back();
    chain[it->second].push_back(o);
  }
  for (std::size_t c = 0, end = chain.size(); c < end; ++c)
    for (std::size_t i = 0; i + 1 < chain[c].size();)
      if (h[chain[c][i]].pending()) {
        chain.push_back({chain[c][i]});
        chain[c].erase(chain[c].begin() + static_cast<std::ptrdiff_t>(i));
      } else {
        ++i;
      }
  const std::size_t k = chain.size();
  std::unordered_map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> at;  // op -> (chain, position)
  std::vector<std::uint32_t> must(k, 0);  // completed operations per chain: all but a last pending one
  for (std::uint32_t c = 0; c < k; ++c) {
    for (std::uint32_t i = 0; i < chain[c].size(); ++i) at[chain[c][i]] = {c, i};
    must[c] = static_cast<std::uint32_t>(chain[c].size()) - (h[chain[c].back()].pending() ? 1 : 0);
  }
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> need;
  for (std::uint32_t o : ops) {
    std::vector<std::uint32_t>& v = need[o];
    v.assign(k, 0);
    for (std::uint32_t p : ops)
      if (order.before(p, o)) {
        auto [c, i] = at[p];
        v[c] = std::max(v[c], i + 1);
      }
  }
  struct Node {
    std::vector<std::uint32_t> done;
    State state;
    bool operator==(const Node&) const = default;
  };
  struct NodeHash {
    std::size_t operator()(const Node& x) const {
      std::uint64_t z = 0xcbf29ce484222325ull;
      for (std::uint32_t v : x.done) z = (z ^ (v + 0x9e37ull)) * 0x100000001b3ull;
      for (std::int64_t v : x.state) z = (z ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ull;
      return static_cast<std::size_t>(z ^ (z >> 31));
    }
  };
  auto finished = [&](const Node& x) {
    for (std::size_t c = 0; c < k; ++c)
      if (x.done[c] < must[c]) return false;
    return true;
  };
  struct Frame {
    Node node;
    std::size_t next = 0;  // the chain to try next
  };
  std::unordered_set<Node, NodeHash> seen;
  std::vector<Frame> stack;
  stack.push_back({Node{std::vector<std::uint32_t>(k, 0), spec.initial()}, 0});
  if (finished(stack.back().node)) return a;
  seen.insert(stack.back().node);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == k) {
      stack.pop_back();
      continue;
    }
    const std::size_t c = f.next++;
    if (f.node.done[c] == chain[c].size()) continue;
    const std::uint32_t o = chain[c][f.node.done[c]];
    const std::vector<std::uint32_t>& v = need[o];
    bool ready = true;
    for (std::size_t d = 0; d < k && ready; ++d) ready = f.node.done[d] >= v[d];
    if (!ready) continue;
    if (!meter.step()) return a;
    Node child{f.node.done, f.node.state};
    if (!spec.step(child.state, h[o], !h[o].pending())) continue;
    ++child.done[c];
    if (finished(child)) return a;
    if (!seen.insert(child).second) continue;
    stack.push_back({std::move(child), 0});  // f is not used after this
  }
  a.linearizable = false;
  return a;
}

std::vector<std::vector<std::uint32_t>> parts_of(const History& history, const Spec& spec, bool partition) {
  std::vector<std::vector<std::uint32_t>> parts;
  bool split = partition && !history.empty();
  for (const Operation& op : history) split = split && spec.key(op).has_value();
  if (split) {
    std::unordered_map<std::int64_t, std::size_t> part_of;
    for (std::uint32_t i = 0; i < history.size(); ++i) {
      auto [it, fresh] = part_of.emplace(*spec.key(history[i]), parts.size());
      if (fresh) parts.emplace_back();
      parts[it->second].push_back(i);
    }
  } else {
    parts.emplace_back(history.size());
    std::iota(parts[0].begin(), parts[0].end(), 0u);
  }
  return parts;
}

// The operations called before `cut`, those returning at or after it made pending; `kept`
// gets their indices in `history`.
History prefix_at(const History& history, std::uint64_t cut, std::vector<std::uint32_t>* kept = nullptr) {
  History p;
  for (std::uint32_t i = 0; i < history.size(); ++i) {
    const Operation& op = history[i];
    if (op.call >= cut) continue;
    Operation q = op;
    if (!q.pending() && q.ret >= cut) {
      q.ret = kPending;
      q.result = kNone;
    }
    p.push_back(q);
    if (kept) kept->push_back(i);
  }
  return p;
}

// The cuts just after each return, in time order: only a return can make a prefix fail (a
// new call adds a pending operation, which may be left out), and a failing prefix fails
// for every later cut.
std::vector<std::uint64_t> return_cuts(const History& history) {
  std::vector<std::uint64_t> cuts;
  for (const Operation& op : history)
    if (!op.pending()) cuts.push_back(op.ret + 1);
  std::sort(cuts.begin(), cuts.end());
  return cuts;
}

// The first cut at which `fails` holds, given that it holds at the last one.
template <class Fails>
std::uint64_t first_failing_cut(const std::vector<std::uint64_t>& cuts, Fails&& fails) {
  std::size_t lo = 0, hi = cuts.size() - 1;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (fails(cuts[mid])) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return cuts[hi];
}

void validate_history(const History& h, const Spec& spec) {
  std::unordered_set<std::uint64_t> positions;
  for (std::size_t i = 0; i < h.size(); ++i) {
    const Operation& op = h[i];
    if (op.method >= spec.methods().size())
      throw std::invalid_argument(fmt::format("operation {}: method {} of {} is out of range", i, op.method, spec.name()));
    if (!op.pending() && op.ret <= op.call)
      throw std::invalid_argument(fmt::format("operation {}: returns at {}, not after its call at {}", i, op.ret, op.call));
    if (!positions.insert(op.call).second || (!op.pending() && !positions.insert(op.ret).second))
      throw std::invalid_argument(fmt::format("operation {}: two events share a real-time position", i));
  }
}

std::unique_ptr<Spec> make_builtin_spec(std::string_view name) {
  if (name == "stack") return std::make_unique<TableSpec>("stack", std::vector<std::string>{"push", "pop"}, &stack_step, false);
  if (name == "queue")
    return std::make_unique<TableSpec>("queue", std::vector<std::string>{"enqueue", "dequeue"}, &queue_step, false);
  if (name == "deque")
    return std::make_unique<TableSpec>("deque", std::vector<std::string>{"push_bottom", "pop_bottom", "steal"},
                                       &deque_step, false);
  if (name == "set")
    return std::make_unique<TableSpec>("set", std::vector<std::string>{"add", "remove", "contains"}, &set_step, true,
                                       State{}, 2);
  if (name == "map")
    return std::make_unique<TableSpec>("map", std::vector<std::string>{"put", "get", "remove"}, &map_step, true,
                                       State{}, 1);
  if (name == "counter")
    return std::make_unique<TableSpec>("counter", std::vector<std::string>{"increment", "get"}, &counter_step, false,
                                       State{0}, 1);
  if (name == "register")
    return std::make_unique<TableSpec>("register", std::vector<std::string>{"write", "read"}, &register_step, false,
                                       State{0}, 1);
  if (name == "mutex")
    return std::make_unique<TableSpec>("mutex", std::vector<std::string>{"lock", "unlock"}, &mutex_step, false,
                                       State{0});
  return nullptr;
}

// The names, built-ins first, and the registered specifications after them.
struct SpecTable {
  std::vector<std::string> names = {"stack", "queue", "deque", "set", "map", "counter", "register", "mutex"};
  std::vector<std::shared_ptr<const Spec>> registered;  // names[kBuiltinSpecs + k]
};
SpecTable& spec_table() {
  static SpecTable table;
  return table;
}

// A registered specification handed out by make_spec: it forwards to the shared one.
class SharedSpec final : public Spec {
 public:
  explicit SharedSpec(std::shared_ptr<const Spec> s) : s_(std::move(s)) {}
  std::string_view name() const override { return s_->name(); }
  const std::vector<std::string>& methods() const override { return s_->methods(); }
  std::vector<std::int64_t> initial() const override { return s_->initial(); }
  bool step(std::vector<std::int64_t>& state, const Operation& op, bool check) const override {
    return s_->step(state, op, check);
  }
  std::optional<std::int64_t> key(const Operation& op) const override { return s_->key(op); }
  bool observer(const Operation& op) const override { return s_->observer(op); }
  std::optional<RegisterShape> register_shape() const override { return s_->register_shape(); }

 private:
  std::shared_ptr<const Spec> s_;
};

}  // namespace

std::unique_ptr<Spec> make_spec(std::string_view name) {
  if (std::unique_ptr<Spec> b = make_builtin_spec(name)) return b;
  const SpecTable& t = spec_table();
  for (std::size_t k = 0; k < t.registered.size(); ++k)
    if (t.names[kBuiltinSpecs + k] == name) return std::make_unique<SharedSpec>(t.registered[k]);
  return nullptr;
}

const std::vector<std::string>& spec_names() { return spec_table().names; }

std::uint32_t register_spec(std::shared_ptr<const Spec> spec) {
  if (!spec) throw std::invalid_argument("register_spec: no specification");
  const std::string name(spec->name());
  if (name.empty()) throw std::invalid_argument("register_spec: a specification needs a name");
  if (make_builtin_spec(name))
    throw std::invalid_argument(fmt::format("register_spec: '{}' is a built-in specification's name", name));
  SpecTable& t = spec_table();
  for (std::size_t k = 0; k < t.registered.size(); ++k)
    if (t.names[kBuiltinSpecs + k] == name) {
      t.registered[k] = std::move(spec);
      return static_cast<std::uint32_t>(kBuiltinSpecs + k);
    }
  if (t.names.size() >= 255) throw std::invalid_argument("register_spec: more than 255 specifications");
  t.names.push_back(name);
  t.registered.push_back(std::move(spec));
  return static_cast<std::uint32_t>(t.names.size() - 1);
}

namespace {

// A search run to its end in one go (just-in-time, and the search under a precedence).
class OneShot final : public detail::PartSearch {
 public:
  explicit OneShot(std::function<Answer(const Budget&)> decide) : decide_(std::move(decide)) {}
  bool run(Meter& meter, Answer& a, std::uint64_t) override {
    a = decide_(meter.budget());
    return true;
  }

 private:
  std::function<Answer(const Budget&)> decide_;
};

// The built-in queue and stack, which lin_collections.cpp decides without a search; a
// specification of one's own that merely shares their name is not.
std::optional<Collection> collection_of(const Spec& spec) {
  const auto* t = dynamic_cast<const TableSpec*>(&spec);
  if (!t) return std::nullopt;
  if (t->step_function() == &queue_step) return Collection::queue;
  if (t->step_function() == &stack_step) return Collection::stack;
  return std::nullopt;
}

// Each part (a key's operations, or the whole history) decided by the search `make(part)`
// gives, interleaved: a part runs for a slice of steps, then waits behind the others, so a
// hard key does not hide an easy failing one. Free threads (Options::jobs) take the next
// part waiting. The parts share the step, time and memory budgets; the first part that
// fails or runs out of budget stops the others, and the answer is the failing part
// earliest in order among those decided (else the first that ran out).
template <class Make>
Answer check_parts(const History& history, const Spec& spec, const Options& options, Make&& make) {
  const std::vector<std::vector<std::uint32_t>> parts = parts_of(history, spec, options.partition);
  bool split = options.partition && !history.empty();
  for (const Operation& op : history) split = split && spec.key(op).has_value();
  std::atomic<std::uint64_t> memory{0}, steps{0};
  std::atomic<bool> stop{false};
  Budget base;
  base.timed = options.timeout_seconds > 0;
  if (base.timed)
    base.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                           std::chrono::duration<double>(std::min(options.timeout_seconds, 1e9)));
  base.max_memory = options.max_memory;
  base.memory = &memory;
  base.stop = &stop;
  struct Slot {
    std::unique_ptr<detail::PartSearch> search;
    Answer answer;
    double seconds = 0;
    bool finished = false;
  };
  std::vector<Slot> slots(parts.size());
  std::mutex mutex;
  std::deque<std::size_t> waiting(parts.size());
  std::iota(waiting.begin(), waiting.end(), std::size_t{0});
  constexpr std::uint64_t kSlice = 1 << 14;
  auto work = [&] {
    while (true) {
      std::size_t p = 0;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (waiting.empty() || stop.load()) return;
        p = waiting.front();
        waiting.pop_front();
      }
      Slot& s = slots[p];
      if (!s.search) s.search = make(parts[p]);
      Budget b = base;
      const std::uint64_t before = s.answer.steps;
      b.max_steps = before + (options.max_steps - std::min(options.max_steps, steps.load()));
      const auto t0 = std::chrono::steady_clock::now();
      bool finished = false;
      {
        Meter meter(b, s.answer);
        finished = s.search->run(meter, s.answer, kSlice);
      }
      s.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      steps.fetch_add(s.answer.steps - before);
      if (finished) {
        s.finished = true;
        s.search.reset();
        if (!s.answer.undecided.empty() || !s.answer.linearizable) stop.store(true);
      } else {
        std::lock_guard<std::mutex> lock(mutex);
        waiting.push_back(p);
      }
    }
  };
  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, parts.size()));
  if (jobs <= 1) {
    work();
  } else {
    std::vector<std::thread> threads;
    for (unsigned j = 0; j < jobs; ++j) threads.emplace_back(work);
    for (std::thread& t : threads) t.join();
  }
  Answer total;
  total.steps = steps.load();
  const Answer* failed = nullptr;
  const Answer* undecided = nullptr;
  for (const Slot& s : slots) {
    if (!s.finished) continue;
    if (s.answer.undecided.empty() && !s.answer.linearizable && !failed) failed = &s.answer;
    if (!s.answer.undecided.empty() && s.answer.undecided != kStopped && !undecided) undecided = &s.answer;
  }
  if (failed) {
    total.linearizable = false;
    total.longest = failed->longest;
  } else if (undecided) {
    total.undecided = undecided->undecided;
  }
  if (options.report_parts)
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const Slot& s = slots[p];
      PartAnswer pa;
      if (split) pa.key = spec.key(history[parts[p][0]]);
      pa.operations = static_cast<std::uint32_t>(parts[p].size());
      pa.steps = s.answer.steps;
      pa.seconds = s.seconds;
      pa.verdict = !s.finished || s.answer.undecided == kStopped ? "not decided"
                   : !s.answer.undecided.empty()                ? "undecided"
                   : s.answer.linearizable                      ? "linearizable"
                                                                : "not linearizable";
      total.parts.push_back(std::move(pa));
    }
  return total;
}

}  // namespace


namespace {
// The answer of a check that decided the whole history without a search.
Answer decided_whole(bool linearizable, const History& history, const Options& options) {
  Answer a;
  a.linearizable = linearizable;
  if (options.report_parts)
    a.parts.push_back({std::nullopt, static_cast<std::uint32_t>(history.size()), 0, 0,
                       linearizable ? "linearizable" : "not linearizable"});
  return a;
}
}  // namespace

Answer check(const History& history, const Spec& spec, const Options& options) {
  validate_history(history, spec);
  if (options.collections)
    if (std::optional<Collection> kind = collection_of(spec)) {
      const CollectionAnswer c = check_collection(history, *kind);
      if (c.verdict != CollectionAnswer::Verdict::undecided)
        return decided_whole(c.verdict == CollectionAnswer::Verdict::linearizable, history, options);
    }
  if (options.registers && spec.register_shape()) {
    const RegisterAnswer r = check_register(history, spec);
    if (r.verdict != RegisterAnswer::Verdict::undecided)
      return decided_whole(r.verdict == RegisterAnswer::Verdict::linearizable, history, options);
  }
  return check_parts(history, spec, options, [&](const std::vector<std::uint32_t>& part) -> std::unique_ptr<detail::PartSearch> {
    if (options.algorithm == Algorithm::wing_gong) return detail::make_wing_gong(history, part, spec);
    return std::make_unique<OneShot>([&history, &part, &spec](const Budget& b) { return check_part_jit(history, part, spec, b); });
  });
}

Answer check(const History& history, const Precedence& order, const Spec& spec, const Options& options) {
  if (order.n != history.size() || order.bits.size() != order.n * order.n)
    throw std::invalid_argument(fmt::format("a precedence over {} operations for a history of {}", order.n, history.size()));
  for (std::size_t i = 0; i < history.size(); ++i)
    if (history[i].method >= spec.methods().size())
      throw std::invalid_argument(fmt::format("operation {}: method {} of {} is out of range", i, history[i].method, spec.name()));
  const Precedence closed = closed_order(history, order);
  return check_parts(history, spec, options, [&](const std::vector<std::uint32_t>& part) -> std::unique_ptr<detail::PartSearch> {
    return std::make_unique<OneShot>([&history, &part, &closed, &spec](const Budget& b) { return check_part_ordered(history, part, closed, spec, b); });
  });
}

History shortest_failing_prefix(const History& history, const Spec& spec, const Options& options) {
  const std::vector<std::uint64_t> cuts = return_cuts(history);
  if (cuts.empty()) return {};
  Answer whole = check(history, spec, options);
  if (whole.linearizable || !whole.undecided.empty()) return {};
  return prefix_at(history, first_failing_cut(cuts, [&](std::uint64_t cut) {
    Answer a = check(prefix_at(history, cut), spec, options);
    return !a.linearizable && a.undecided.empty();
  }));
}

History shortest_failing_prefix(const History& history, const Precedence& order, const Spec& spec,
                                const Options& options, Precedence* prefix_order) {
  auto restricted = [&](std::uint64_t cut, History& p) {
    std::vector<std::uint32_t> kept;
    p = prefix_at(history, cut, &kept);
    Precedence sub(kept.size());
    for (std::size_t a = 0; a < kept.size(); ++a)
      for (std::size_t b = 0; b < kept.size(); ++b)
        if (!p[a].pending() && order.before(kept[a], kept[b])) sub.set(a, b);
    return sub;
  };
  const std::vector<std::uint64_t> cuts = return_cuts(history);
  if (cuts.empty()) return {};
  Answer whole = check(history, order, spec, options);
  if (whole.linearizable || !whole.undecided.empty()) return {};
  History p;
  const std::uint64_t cut = first_failing_cut(cuts, [&](std::uint64_t c) {
    History q;
    const Precedence sub = restricted(c, q);
    Answer a = check(q, sub, spec, options);
    return !a.linearizable && a.undecided.empty();
  });
  Precedence sub = restricted(cut, p);
  if (prefix_order) *prefix_order = std::move(sub);
  return p;
}

std::string format_history(const History& history, const Spec& spec) {
  std::vector<std::uint32_t> order(history.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return history[a].call < history[b].call; });
  auto value = [](std::int64_t v) { return v == kNone ? std::string("none") : std::to_string(v); };
  std::string out;
  for (std::uint32_t i : order) {
    const Operation& op = history[i];
    std::string args;
    if (op.arg != kNone) args = value(op.arg);
    if (op.arg2 != kNone) args += ", " + value(op.arg2);
    if (op.arg3 != kNone) args += ", " + value(op.arg3);
    std::string span = op.pending() ? fmt::format("[{}, pending]", op.call) : fmt::format("[{}, {}]", op.call, op.ret);
    out += fmt::format("T{} {}({}) -> {}  {}\n", op.thread, spec.methods()[op.method], args,
                       op.pending() ? std::string("pending") : value(op.result), span);
  }
  return out;
}

std::string format_order(const History& history, const Precedence& order, const Spec& spec) {
  const Precedence c = closed_order(history, order);
  auto name = [&](const Operation& op) {
    auto value = [](std::int64_t v) { return v == kNone ? std::string("none") : std::to_string(v); };
    std::string args;
    if (op.arg != kNone) args = value(op.arg);
    if (op.arg2 != kNone) args += ", " + value(op.arg2);
    if (op.arg3 != kNone) args += ", " + value(op.arg3);
    return fmt::format("T{} {}({})", op.thread, spec.methods()[op.method], args);
  };
  std::vector<std::uint32_t> by_call(history.size());
  std::iota(by_call.begin(), by_call.end(), 0u);
  std::sort(by_call.begin(), by_call.end(), [&](std::uint32_t x, std::uint32_t y) { return history[x].call < history[y].call; });
  std::string out;
  for (std::uint32_t a : by_call)
    for (std::uint32_t b : by_call) {
      if (history[a].thread == history[b].thread || !c.before(a, b)) continue;
      bool direct = true;
      for (std::size_t m = 0; m < history.size() && direct; ++m)
        direct = m == a || m == b || !(c.before(a, m) && c.before(m, b));
      if (direct) out += fmt::format("{}  before  {}\n", name(history[a]), name(history[b]));
    }
  return out;
}

}  // namespace atomcheck::lin
