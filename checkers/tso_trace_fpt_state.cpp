// The operations on summaries of the one-pass trace TSO decider (tso_trace_fpt_state.hpp).
#include "checkers/tso_trace_fpt_state.hpp"

#include <algorithm>
#include <unordered_map>

namespace atomcheck::tso::fpt {

// Slot y now has an event of class id.
void join_class(State& s, int y, std::uint64_t id) {
  const auto yy = static_cast<std::size_t>(y);
  Mask up;
  for (std::size_t l = 0; l < s.reach.size(); ++l)
    if (s.reach[l].test(yy)) up.set(l);
  Entry& e = s.entry(id);
  e.own.set(yy);
  e.m |= up;
}

// Drops the transactions that can receive no more edges: not an open block, no pending
// commit, no read waiting for its write's commit. What they reach stays in `m`.
void collect(State& s, const std::vector<EventIndex>& open_blocks) {
  Mask keep;
  for (EventIndex id : open_blocks)
    if (int k = s.slot_of(id); k >= 0) keep.set(static_cast<std::size_t>(k));
  for (const Pend& p : s.buf.all()) {
    keep.set(p.slot);
    keep |= p.readers;
  }
  const std::size_t n = s.ids.size();
  std::size_t kept = 0;
  keep.for_each([&](std::size_t) { ++kept; });
  if (kept == n) return;
  const SlotCompressor compress(keep, n);
  std::uint32_t to_small[64];
  std::vector<std::uint32_t> to_big(n > 64 ? n : 0);
  std::uint32_t* to = n > 64 ? to_big.data() : to_small;
  std::size_t k = 0;
  for (std::size_t l = 0; l < n; ++l)
    if (keep.test(l)) {
      to[l] = static_cast<std::uint32_t>(k);
      s.ids[k] = s.ids[l];
      s.reach[k] = std::move(s.reach[l]);
      compress(s.reach[k]);
      ++k;
    }
  s.ids.resize(k);
  s.reach.resize(k);
  std::size_t w = 0;
  for (Entry& e : s.cls) {
    compress(e.own);
    compress(e.m);
    // No live transaction has or reaches such an event: no future cycle can use it.
    if (e.own.any() || e.m.any()) s.cls[w++] = std::move(e);
  }
  s.cls.resize(w);
  for (Pend& p : s.buf.all()) {
    p.slot = to[p.slot];
    compress(p.readers);
  }
}

// Is p the older of two pending writes of its variable in buffer b (or, when p has just
// left b's front, was it)?
bool older_of_two(std::span<const Pend> b, const Pend& p) {
  bool in_b = false, first = true;
  std::size_t others = 0;
  for (const Pend& q : b)
    if (q.var == p.var) {
      if (q.w == p.w) in_b = true;
      else first = first && in_b, ++others;
    }
  return others > 0 && (!in_b || first);
}

// What a summary holds in memory, about: its slot sets, classes and buffers (the
// memory budget of StreamLimits counts this over the summaries built for one event).
std::size_t approx_bytes(const State& s) {
  const std::size_t extra = s.ids.size() / 64 * sizeof(std::uint64_t);  // heap words of one slot set
  return sizeof(State) + s.ids.size() * (sizeof(EventIndex) + sizeof(Mask) + extra) +
         s.cls.size() * (sizeof(Entry) + 2 * extra) + s.buf.all().size() * (sizeof(Pend) + extra);
}

// Removes the summaries marked in `gone`, keeping the others' order.
void drop_gone(std::vector<State>& states, const std::vector<char>& gone) {
  std::size_t w = 0;
  for (std::size_t k = 0; k < states.size(); ++k)
    if (!gone[k]) {
      if (w != k) states[w] = std::move(states[k]);
      ++w;
    }
  states.resize(w);
}

// Keeps only the maximal summaries under State::below.
void keep_maximal(std::vector<State>& states) {
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> groups;
  std::vector<char> gone(states.size(), 0);
  for (std::size_t k = 0; k < states.size(); ++k) {
    auto& g = groups[states[k].shape_hash()];
    bool dominated = false;
    for (std::size_t& o : g) {
      if (gone[o]) continue;
      if (states[k].below(states[o])) {
        dominated = true;
        break;
      }
      if (states[o].below(states[k])) gone[o] = 1;
    }
    if (dominated) {
      gone[k] = 1;
      continue;
    }
    std::erase_if(g, [&](std::size_t o) { return gone[o] != 0; });
    g.push_back(k);
  }
  drop_gone(states, gone);
}

// Adds transaction `id` as a slot, in order.
void insert_slot(State& s, EventIndex id) {
  const auto p = static_cast<std::size_t>(std::lower_bound(s.ids.begin(), s.ids.end(), id) - s.ids.begin());
  s.ids.insert(s.ids.begin() + static_cast<std::ptrdiff_t>(p), id);
  for (Mask& r : s.reach) r.insert_at(p);
  s.reach.insert(s.reach.begin() + static_cast<std::ptrdiff_t>(p), Mask{});
  for (Entry& e : s.cls) {
    e.own.insert_at(p);
    e.m.insert_at(p);
  }
  for (Pend& pd : s.buf.all()) {
    if (pd.slot >= p) ++pd.slot;
    pd.readers.insert_at(p);
  }
}

}  // namespace atomcheck::tso::fpt
