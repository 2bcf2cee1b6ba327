// Queue and stack histories of distinct values decided by their bad patterns (see
// lin_collections.hpp). Every time below is a position of the history; kNever (a return
// or call that never happens) is larger than all of them.
#include "checkers/lin_collections.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace atomcheck::lin {

namespace {

constexpr std::uint64_t kNever = kPending;
constexpr std::uint32_t kNoOp = ~0u;
using Verdict = CollectionAnswer::Verdict;

CollectionAnswer undecided(std::string why) { return CollectionAnswer::left(std::move(why)); }
CollectionAnswer bad(std::string pattern, std::vector<std::uint32_t> witness) {
  return CollectionAnswer::found(std::move(pattern), std::move(witness));
}

// The history by value: each pushed value's push and the completed removal that returned
// it, with their times; the removals that found the collection empty.
struct Values {
  std::vector<std::uint32_t> push, pop;  // op indices; pop kNoOp: never removed
  std::vector<std::uint64_t> in_call, in_ret, out_call, out_ret;  // out_*: kNever when never removed
  std::vector<std::uint32_t> empties;
  // A removal that never returned could have taken any value, so a pattern that needs a
  // value to stay in the collection proves nothing; only the others are looked for.
  bool pending_removal = false;
  std::size_t size() const { return push.size(); }
  bool removed(std::size_t v) const { return pop[v] != kNoOp; }
};

// Values indexed and the patterns every history of distinct values shares: a removal of a
// value never pushed, or one that returned before its push was called ("fresh"), and a
// value removed twice ("repeated").
std::optional<CollectionAnswer> index_values(const History& h, Values& vs) {
  std::unordered_map<std::int64_t, std::uint32_t> value_of;
  value_of.reserve(h.size());
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    const Operation& op = h[i];
    if (op.method > 1) return undecided("an operation other than a push and a pop");
    if (op.method == 1) {
      if (op.pending()) vs.pending_removal = true;
      continue;
    }
    if (op.arg == kNone) return undecided("a pushed value is the empty result");
    if (!value_of.emplace(op.arg, static_cast<std::uint32_t>(vs.size())).second)
      return undecided("a value is pushed twice");
    vs.push.push_back(i);
    vs.pop.push_back(kNoOp);
    vs.in_call.push_back(op.call);
    vs.in_ret.push_back(op.ret);  // kNever when pending: it then precedes nothing
  }
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    const Operation& op = h[i];
    if (op.method != 1 || op.pending()) continue;
    if (op.result == kNone) {
      vs.empties.push_back(i);
      continue;
    }
    auto it = value_of.find(op.result);
    if (it == value_of.end()) return bad("fresh", {i});
    const std::uint32_t v = it->second;
    if (vs.pop[v] != kNoOp) return bad("repeated", {vs.push[v], vs.pop[v], i});
    if (op.ret < h[vs.push[v]].call) return bad("fresh", {vs.push[v], i});
    vs.pop[v] = i;
  }
  vs.out_call.resize(vs.size());
  vs.out_ret.resize(vs.size());
  for (std::size_t v = 0; v < vs.size(); ++v) {
    vs.out_call[v] = vs.removed(v) ? h[vs.pop[v]].call : kNever;
    vs.out_ret[v] = vs.removed(v) ? h[vs.pop[v]].ret : kNever;
  }
  return std::nullopt;
}

// A push that never returned and whose value nobody removed may be left out: a
// linearization with it stays one without it (the value sits in the collection, never
// at a removal's end, and no removal answers empty while it is there). One whose value
// was removed must be in, and precedes nothing, as its kNever return says.
bool kept(const Values& vs, std::size_t v) { return vs.in_ret[v] != kNever || vs.removed(v); }

std::vector<std::uint32_t> witness_of(const Values& vs, std::initializer_list<std::size_t> values) {
  std::vector<std::uint32_t> w;
  for (std::size_t v : values) {
    w.push_back(vs.push[v]);
    if (vs.removed(v)) w.push_back(vs.pop[v]);
  }
  std::sort(w.begin(), w.end());
  return w;
}

// "empty": a removal answered empty while some value is surely in the collection at every
// moment of its interval. Value x is surely in from its push's return to its removal's
// call (taking effect inside their intervals, the push before and the removal after);
// when those intervals, merged, cover the empty removal's, there is no moment for it.
std::optional<CollectionAnswer> empty_covered(const Values& vs, const History& h) {
  if (vs.empties.empty()) return std::nullopt;
  std::vector<std::uint32_t> order;
  for (std::uint32_t v = 0; v < vs.size(); ++v)
    if (kept(vs, v) && vs.in_ret[v] < vs.out_call[v]) order.push_back(v);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return vs.in_ret[a] < vs.in_ret[b]; });
  std::vector<std::uint64_t> from, to;  // merged, disjoint, in time order
  for (std::uint32_t v : order) {
    if (!from.empty() && vs.in_ret[v] < to.back()) {
      to.back() = std::max(to.back(), vs.out_call[v]);
    } else {
      from.push_back(vs.in_ret[v]);
      to.push_back(vs.out_call[v]);
    }
  }
  for (std::uint32_t e : vs.empties) {
    auto it = std::upper_bound(from.begin(), from.end(), h[e].call);
    if (it == from.begin()) continue;
    const std::size_t k = static_cast<std::size_t>(it - from.begin()) - 1;
    if (to[k] <= h[e].ret) continue;
    // The values whose sure intervals meet the removal's.
    std::vector<std::uint32_t> w{e};
    for (std::uint32_t v : order)
      if (vs.in_ret[v] < h[e].ret && vs.out_call[v] > h[e].call) {
        w.push_back(vs.push[v]);
        if (vs.removed(v)) w.push_back(vs.pop[v]);
      }
    std::sort(w.begin(), w.end());
    return bad("empty", std::move(w));
  }
  return std::nullopt;
}

// Queue "order": enqueue(x) returned before enqueue(y) was called, y was dequeued, and x
// was dequeued only after y's dequeue returned, or never.
std::optional<CollectionAnswer> queue_order(const Values& vs) {
  std::vector<std::uint32_t> by_ret, by_call;
  for (std::uint32_t v = 0; v < vs.size(); ++v)
    if (kept(vs, v) && (vs.removed(v) || !vs.pending_removal)) by_ret.push_back(v);
  by_call = by_ret;
  std::sort(by_ret.begin(), by_ret.end(), [&](std::uint32_t a, std::uint32_t b) { return vs.in_ret[a] < vs.in_ret[b]; });
  std::sort(by_call.begin(), by_call.end(), [&](std::uint32_t a, std::uint32_t b) { return vs.in_call[a] < vs.in_call[b]; });
  std::size_t i = 0;
  std::uint32_t latest = kNoOp;  // of the enqueues returned so far, the one dequeued last (or never)
  for (std::uint32_t y : by_call) {
    while (i < by_ret.size() && vs.in_ret[by_ret[i]] < vs.in_call[y]) {
      if (latest == kNoOp || vs.out_call[by_ret[i]] > vs.out_call[latest]) latest = by_ret[i];
      ++i;
    }
    if (latest != kNoOp && vs.removed(y) && vs.out_call[latest] > vs.out_ret[y]) return bad("order", witness_of(vs, {latest, y}));
  }
  return std::nullopt;
}

// Stack "lifo": push(a) returned before push(b) was called, push(b) returned before
// pop(a) was called, so b is above a when a is popped; yet b was popped only after pop(a)
// returned, or never. For each a, the b pushed in the window (a's push's return, a's
// pop's call) popped last: a sweep over pop(a)'s calls, the pushes added by return,
// queried by call in a segment tree.
std::optional<CollectionAnswer> stack_lifo(const Values& vs) {
  std::vector<std::uint32_t> bs, as;
  for (std::uint32_t v = 0; v < vs.size(); ++v) {
    if (!kept(vs, v)) continue;
    if (vs.removed(v) || !vs.pending_removal) bs.push_back(v);
    if (vs.removed(v)) as.push_back(v);
  }
  if (as.empty() || bs.empty()) return std::nullopt;
  std::vector<std::uint64_t> calls;
  for (std::uint32_t b : bs) calls.push_back(vs.in_call[b]);
  std::sort(calls.begin(), calls.end());
  std::size_t size = 1;
  while (size < calls.size()) size *= 2;
  std::vector<std::uint32_t> tree(2 * size, kNoOp);  // the b popped last in each range
  auto later = [&](std::uint32_t x, std::uint32_t y) {
    if (x == kNoOp) return y;
    if (y == kNoOp) return x;
    return vs.out_call[y] > vs.out_call[x] ? y : x;
  };
  auto insert = [&](std::uint32_t b) {
    std::size_t k = static_cast<std::size_t>(std::lower_bound(calls.begin(), calls.end(), vs.in_call[b]) - calls.begin()) + size;
    tree[k] = later(tree[k], b);
    for (k /= 2; k >= 1; k /= 2) tree[k] = later(tree[2 * k], tree[2 * k + 1]);
  };
  auto query = [&](std::size_t lo) {  // ranks lo.. end
    std::uint32_t best = kNoOp;
    std::size_t l = lo + size, r = 2 * size;
    while (l < r) {
      if (l & 1) best = later(best, tree[l++]);
      if (r & 1) best = later(best, tree[--r]);
      l /= 2;
      r /= 2;
    }
    return best;
  };
  std::sort(bs.begin(), bs.end(), [&](std::uint32_t x, std::uint32_t y) { return vs.in_ret[x] < vs.in_ret[y]; });
  std::sort(as.begin(), as.end(), [&](std::uint32_t x, std::uint32_t y) { return vs.out_call[x] < vs.out_call[y]; });
  std::size_t i = 0;
  for (std::uint32_t a : as) {
    while (i < bs.size() && vs.in_ret[bs[i]] < vs.out_call[a]) insert(bs[i++]);
    const std::size_t lo = static_cast<std::size_t>(std::upper_bound(calls.begin(), calls.end(), vs.in_ret[a]) - calls.begin());
    const std::uint32_t b = query(lo);
    if (b != kNoOp && vs.out_call[b] > vs.out_ret[a]) return bad("lifo", witness_of(vs, {a, b}));
  }
  return std::nullopt;
}

// A linearization, built in one sweep of the calls and returns and then replayed, so that
// "linearizable" rests on an order checked here. The collection is a sequence whose
// removal end is the top of a stack, the head of a queue. Each operation is placed when it
// returns at the latest, earlier only where that loses nothing: a removal whose value is
// at the removal end as soon as it is called (nothing can leave before it, and what was
// added meanwhile stays as it is), a push and the pop of its value side by side as soon
// as both are called (a queue's only when it is empty), an empty removal as soon as it is
// called with the collection empty. A push is placed when it returns, and may go in
// before any value placed after it was called, as if it had taken effect just before
// that value's push (that value has stayed since, so nothing placed after it is
// disturbed, and all of it returned after this push was called). Among those it takes the
// place their removals' times ask: behind (for a stack, below) every one whose removal
// returns before its own is called, then by removal return, the earlier nearer the
// removal end (a removal nested in another's interval is the likelier to have gone
// first). Where that guess is wrong the replay refuses the order and the search decides.
std::optional<std::vector<std::uint32_t>> sweep_order(const History& h, const Values& vs, Collection kind) {
  const bool stack_kind = kind == Collection::stack;
  std::vector<std::uint32_t> value_of(h.size(), kNoOp);
  for (std::uint32_t v = 0; v < vs.size(); ++v) {
    value_of[vs.push[v]] = v;
    if (vs.removed(v)) value_of[vs.pop[v]] = v;
  }
  struct Event {
    std::uint64_t at;
    std::uint32_t op;
    bool ret;
  };
  std::vector<Event> events;
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    if (h[i].method == 0 && !kept(vs, value_of[i])) continue;
    events.push_back({h[i].call, i, false});
    if (!h[i].pending()) events.push_back({h[i].ret, i, true});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.at < b.at; });
  // The order as a list, so that a push can go in before an operation already placed.
  const std::uint32_t head = static_cast<std::uint32_t>(h.size());
  std::vector<std::uint32_t> next(h.size() + 1, kNoOp), prev(h.size() + 1, kNoOp);
  std::uint32_t tail = head;
  std::vector<std::uint8_t> open(h.size(), 0), placed(h.size(), 0);
  auto append = [&](std::uint32_t op) {
    next[tail] = op;
    prev[op] = tail;
    tail = op;
    placed[op] = 1;
  };
  auto insert_before = [&](std::uint32_t op, std::uint32_t at) {
    const std::uint32_t p = prev[at];
    next[p] = op;
    prev[op] = p;
    next[op] = at;
    prev[at] = op;
    placed[op] = 1;
  };
  struct Entry {
    std::uint32_t value;
    std::uint64_t since;  // the sweep's time at the place this push holds in the order
  };
  // Index 0 is the far end (a stack's bottom, a queue's tail is the back for both).
  std::deque<Entry> items;
  std::vector<std::uint32_t> open_empties, open_pending, open_pairs;
  auto at_end = [&]() -> const Entry& { return stack_kind ? items.back() : items.front(); };
  auto take = [&] {
    if (stack_kind) {
      items.pop_back();
    } else {
      items.pop_front();
    }
  };
  auto eager = [&] {
    for (;;) {
      while (!items.empty() && vs.removed(at_end().value) && open[vs.pop[at_end().value]]) {
        append(vs.pop[at_end().value]);
        take();
      }
      if (items.empty()) {
        for (std::uint32_t e : open_empties) append(e);
        open_empties.clear();
        for (std::uint32_t v : open_pairs)
          if (!placed[vs.push[v]]) {
            append(vs.push[v]);
            append(vs.pop[v]);
          }
        open_pairs.clear();
      }
      if (!stack_kind) return;
      // A pop that never returned may take off the top a value no other pop takes; one is
      // spent where that lets a called pop (or an empty one) go, and nowhere else.
      std::size_t k = items.size();
      while (k > 0 && items.size() - k < open_pending.size() && !vs.removed(items[k - 1].value)) --k;
      const bool frees_pop = k > 0 && k < items.size() && vs.removed(items[k - 1].value) && open[vs.pop[items[k - 1].value]];
      const bool frees_empty = k == 0 && !items.empty() && !open_empties.empty();
      if (!frees_pop && !frees_empty) return;
      while (items.size() > k) {
        append(open_pending.back());
        open_pending.pop_back();
        items.pop_back();
      }
    }
  };
  // A dequeue returning a value that is not at the head: its enqueue moves to the head,
  // as if it had taken effect before every value there, which is allowed when all of them
  // were placed after it was called (see above).
  auto bring_to_head = [&](std::uint32_t v, std::uint64_t now) {
    const std::uint32_t push = vs.push[v];
    if (!placed[push] && !open[push]) return false;
    std::size_t i = items.size();
    if (placed[push]) {
      i = 0;
      while (i < items.size() && items[i].value != v) ++i;
      if (i == items.size()) return false;
    }
    if (i == 0) return true;
    if (items[0].since <= h[push].call) return false;
    if (placed[push]) {
      next[prev[push]] = next[push];
      if (next[push] != kNoOp) {
        prev[next[push]] = prev[push];
      } else {
        tail = prev[push];
      }
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (items.empty()) {
      append(push);
      items.push_back({v, now});
    } else {
      insert_before(push, vs.push[items[0].value]);
      items.push_front({v, items[0].since});
    }
    open[push] = 0;
    return true;
  };
  for (const Event& ev : events) {
    const std::uint32_t op = ev.op;
    const std::uint32_t v = value_of[op];
    if (!ev.ret) {
      open[op] = 1;
      if (v == kNoOp) (h[op].pending() ? open_pending : open_empties).push_back(op);
      if (v != kNoOp && vs.removed(v) && open[vs.push[v]] && open[vs.pop[v]]) {
        if (stack_kind) {
          append(vs.push[v]);
          append(vs.pop[v]);
        } else {
          open_pairs.push_back(v);
        }
      }
      eager();
      continue;
    }
    if (placed[op]) continue;
    if (h[op].method == 1) {  // its value is not at the end, or the collection is not empty
      if (stack_kind || v == kNoOp || !bring_to_head(v, ev.at)) return std::nullopt;
      eager();
      if (!placed[op]) return std::nullopt;
      continue;
    }
    // Where it may go: before any of the values at the back placed after its call.
    std::size_t low = items.size();
    while (low > 0 && items[low - 1].since > h[op].call) --low;
    const auto out_first = [&](std::size_t j) { return vs.out_ret[items[j].value] < vs.out_call[v]; };
    std::size_t k = items.size();
    if (stack_kind) {
      // Below every one popped surely before it, then below those whose pop returns first.
      for (std::size_t j = low; j < items.size(); ++j)
        if (out_first(j)) k = std::min(k, j);
      while (k > low && vs.out_ret[items[k - 1].value] < vs.out_ret[v]) --k;
    } else {
      // Behind every one dequeued surely before it, then ahead of those whose dequeue
      // returns later.
      std::size_t floor = low;
      for (std::size_t j = low; j < items.size(); ++j)
        if (out_first(j)) floor = j + 1;
      while (k > floor && vs.out_call[items[k - 1].value] > vs.out_call[v]) --k;
    }
    if (k == items.size()) {
      append(op);
      items.push_back({v, ev.at});
    } else {
      insert_before(op, vs.push[items[k].value]);
      items.insert(items.begin() + static_cast<std::ptrdiff_t>(k), Entry{v, items[k].since});
    }
    open[op] = 0;
    eager();
  }
  std::vector<std::uint32_t> order;
  for (std::uint32_t o = next[head]; o != kNoOp; o = next[o]) order.push_back(o);
  return order;
}

// Does `order` linearize h: every completed operation in it once, none placed before one
// that returned before it was called, and each removal's result the one the collection
// gives? Pending operations may be in it, with any result.
bool linearizes(const History& h, const std::vector<std::uint32_t>& order, Collection kind) {
  std::vector<std::uint8_t> seen(h.size(), 0);
  std::uint64_t latest_call = 0;
  std::deque<std::int64_t> items;
  for (std::uint32_t op : order) {
    if (seen[op]) return false;
    seen[op] = 1;
    const Operation& o = h[op];
    if (!o.pending() && o.ret < latest_call) return false;
    latest_call = std::max(latest_call, o.call);
    if (o.method == 0) {
      items.push_back(o.arg);
      continue;
    }
    std::int64_t got = kNone;
    if (!items.empty()) {
      got = kind == Collection::stack ? items.back() : items.front();
      if (kind == Collection::stack) {
        items.pop_back();
      } else {
        items.pop_front();
      }
    }
    if (!o.pending() && got != o.result) return false;
  }
  for (std::uint32_t i = 0; i < h.size(); ++i)
    if (!seen[i] && !h[i].pending()) return false;
  return true;
}

// A dequeue that never returned may be left out, or take effect after its call with the
// result its place gives. Each history below fixes one such choice for every one of them
// (a result, returned after every other event, or left out), so a linearization of it is
// one of the history: enough to prove "linearizable", never "not". Two choices: each
// takes, in call order, the earliest enqueued value no completed dequeue took (while
// there is one), else is left out; and all left out.
std::vector<History> queue_completions(const History& h, const Values& vs) {
  std::vector<std::uint32_t> pending;
  std::uint64_t end = 0;
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    if (h[i].method == 1 && h[i].pending()) pending.push_back(i);
    end = std::max(end, h[i].call);
    if (!h[i].pending()) end = std::max(end, h[i].ret);
  }
  std::sort(pending.begin(), pending.end(), [&](std::uint32_t a, std::uint32_t b) { return h[a].call < h[b].call; });
  std::vector<std::uint32_t> free;  // values pushed (and returned) that no completed removal took
  for (std::uint32_t v = 0; v < vs.size(); ++v)
    if (!vs.removed(v) && vs.in_ret[v] != kNever) free.push_back(v);
  std::sort(free.begin(), free.end(), [&](std::uint32_t a, std::uint32_t b) { return vs.in_ret[a] < vs.in_ret[b]; });
  std::vector<std::int64_t> result(h.size(), kNone);
  for (std::size_t k = 0; k < pending.size() && k < free.size(); ++k) result[pending[k]] = h[vs.push[free[k]]].arg;
  std::vector<History> out(2);
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    const bool open_removal = h[i].method == 1 && h[i].pending();
    if (!open_removal) {
      out[0].push_back(h[i]);
      out[1].push_back(h[i]);
    } else if (result[i] != kNone) {
      Operation o = h[i];
      o.result = result[i];
      o.ret = ++end;
      out[0].push_back(o);
    }
  }
  return out;
}

}  // namespace

CollectionAnswer check_collection(const History& h, Collection kind) {
  Values vs;
  if (std::optional<CollectionAnswer> a = index_values(h, vs)) return *a;
  if (std::optional<CollectionAnswer> a = kind == Collection::queue ? queue_order(vs) : stack_lifo(vs)) return *a;
  CollectionAnswer yes;
  yes.verdict = Verdict::linearizable;
  if (vs.pending_removal && kind == Collection::queue) {
    for (const History& c : queue_completions(h, vs))
      if (check_collection(c, kind).verdict == Verdict::linearizable) return yes;
    return undecided("a removal never returned");
  }
  if (!vs.pending_removal)
    if (std::optional<CollectionAnswer> a = empty_covered(vs, h)) return *a;
  const std::optional<std::vector<std::uint32_t>> order = sweep_order(h, vs, kind);
  if (order && linearizes(h, *order, kind)) return yes;
  return undecided(vs.pending_removal ? "a removal never returned" : "no pattern found and no linearization built");
}

}  // namespace atomcheck::lin
