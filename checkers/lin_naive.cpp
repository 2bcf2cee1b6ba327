// Linearizability by enumeration (see lin_naive.hpp).
#include "lin_naive.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

namespace atomcheck::naive {

namespace {

// The sequential objects, each as the textbook describes it.
struct Object {
  std::string kind;
  std::int64_t none;
  std::deque<std::int64_t> items;  // stack: back is the top; queue: front is the head; deque: back is the bottom
  std::set<std::int64_t> elements;
  std::map<std::int64_t, std::int64_t> entries;
  std::int64_t value = 0;  // counter, register
  std::optional<std::uint32_t> holder;  // mutex
  std::map<std::int64_t, std::string> texts;  // kv: present keys only

  // Applies op; false when its response is not the one the object gives.
  bool apply(const LinOp& op) {
    const bool check = !op.pending;
    auto answer = [&](std::int64_t got) { return !check || got == op.result; };
    auto take_back = [&] {
      if (items.empty()) return none;
      std::int64_t v = items.back();
      items.pop_back();
      return v;
    };
    auto take_front = [&] {
      if (items.empty()) return none;
      std::int64_t v = items.front();
      items.pop_front();
      return v;
    };
    if (kind == "stack") {
      if (op.method == 0) return items.push_back(op.arg), true;
      return answer(take_back());
    }
    if (kind == "queue") {
      if (op.method == 0) return items.push_back(op.arg), true;
      return answer(take_front());
    }
    if (kind == "deque") {
      if (op.method == 0) return items.push_back(op.arg), true;
      return answer(op.method == 1 ? take_back() : take_front());
    }
    if (kind == "set") {
      const bool had = elements.count(op.arg) > 0;
      if (op.method == 0) elements.insert(op.arg);
      if (op.method == 1) elements.erase(op.arg);
      return answer(op.method == 0 ? !had : had);
    }
    if (kind == "map") {
      auto it = entries.find(op.arg);
      const std::int64_t old = it == entries.end() ? none : it->second;
      if (op.method == 0) entries[op.arg] = op.arg2;
      if (op.method == 2 && it != entries.end()) entries.erase(it);
      return answer(old);
    }
    if (kind == "counter") {
      const std::int64_t before = value;
      if (op.method == 0) value += 1;
      return answer(before);
    }
    if (kind == "register") {
      if (op.method == 0) return value = op.arg, true;
      return answer(value);
    }
    if (kind == "cas-register") {
      if (op.method == 0) return answer(value);
      if (op.method == 1) return value = op.arg, true;
      const bool swap = value == op.arg;
      if (swap) value = op.arg2;
      return answer(swap ? 1 : 0);
    }
    if (kind == "kv") {
      auto it = texts.find(op.arg);
      const std::optional<std::string> now = it == texts.end() ? std::nullopt : std::optional<std::string>(it->second);
      switch (op.method) {
        case 0: return !check || op.result_text == now.value_or("");
        case 1:
        case 4: texts[op.arg] = op.text2.value_or("null"); return true;
        case 2: texts[op.arg] = now.value_or("") + op.text2.value_or("null"); return true;
        case 3: return !check || op.result_text == now;
        default: {
          const bool swap = now == op.text2;
          if (swap) {
            if (op.text3) {
              texts[op.arg] = *op.text3;
            } else {
              texts.erase(op.arg);
            }
          }
          return answer(swap ? 1 : 0);
        }
      }
    }
    if (kind == "mutex") {  // a lock is taken when free, released by whoever holds it
      if (op.method == 0) {
        if (holder) return false;
        return holder = op.thread, true;
      }
      if (holder != op.thread) return false;
      return holder.reset(), true;
    }
    throw std::invalid_argument("naive::linearizable: unknown object " + kind);
  }
};

}  // namespace

bool linearizable(const std::string& object, const std::vector<LinOp>& history, std::int64_t none) {
  const std::size_t n = history.size();
  // Op a has to come before op b when a returned before b was invoked.
  std::vector<std::vector<bool>> before(n, std::vector<bool>(n, false));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b < n; ++b) before[a][b] = !history[a].pending && history[a].ret < history[b].call;
  return linearizable(object, history, none, before);
}

bool linearizable(const std::string& object, const std::vector<LinOp>& history, std::int64_t none,
                  const std::vector<std::vector<bool>>& before) {
  const std::size_t n = history.size();
  if (before.size() != n)
    throw std::invalid_argument("naive::linearizable: the precedence relation is not one row per operation");
  for (const std::vector<bool>& row : before)
    if (row.size() != n)
      throw std::invalid_argument("naive::linearizable: the precedence relation is not one column per operation");
  // Must op a come before op b? A pending operation precedes nothing.
  auto precedes = [&](std::size_t a, std::size_t b) { return !history[a].pending && before[a][b]; };
  std::vector<std::size_t> pending;
  for (std::size_t i = 0; i < n; ++i)
    if (history[i].pending) pending.push_back(i);
  // Every subset of the pending operations (the others are left out), then every order.
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << pending.size()); ++mask) {
    std::vector<std::size_t> chosen;
    for (std::size_t i = 0; i < n; ++i) {
      auto p = std::find(pending.begin(), pending.end(), i);
      if (p == pending.end() || ((mask >> (p - pending.begin())) & 1u)) chosen.push_back(i);
    }
    std::sort(chosen.begin(), chosen.end());
    do {
      bool real_time = true;
      for (std::size_t x = 0; x < chosen.size() && real_time; ++x)
        for (std::size_t y = x + 1; y < chosen.size() && real_time; ++y)
          if (precedes(chosen[y], chosen[x])) real_time = false;
      if (!real_time) continue;
      Object o{object, none, {}, {}, {}, object == "cas-register" ? none : 0, std::nullopt, {}};
      bool legal = true;
      for (std::size_t i : chosen) legal = legal && o.apply(history[i]);
      if (legal) return true;
    } while (std::next_permutation(chosen.begin(), chosen.end()));
  }
  return false;
}

}  // namespace atomcheck::naive
