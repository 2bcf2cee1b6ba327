// The summaries of the one-pass trace TSO decider (tso_trace_fpt.cpp, docs/trace-tso-fpt.md):
// their state, its conflict classes and store buffers, and the operations on one summary
// or a set of them. Internal to the decider; apart so that the stream's own code (its
// closure over commits, its events and verdicts) is a file of its own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "slot_set.hpp"
#include "tso_trace_fpt.hpp"

namespace atomcheck::tso::fpt {


using Mask = SlotSet;  // live transactions of a summary, one bit per slot

// Conflict classes. An event joins the classes that say which *later* events it
// conflicts with under ⊚TSO (tso_conflict.cpp); a later event lists the classes it
// conflicts with. Same thread (t): kPoAll (reads with no own write to serve them,
// fences, rmw, lock and thread operations: every later non-commit event), kPoW(t, x)
// (write-issues of x: every later non-commit event but reads of other variables),
// kPoBr(t, x) (reads an own write may serve: likewise), kCommit(t) (commits: later
// commits and drains of t). Other threads: kFork(u) (forks of u: every event of u),
// kAny(u) (every event of u: a join of u), kRel(t, l) (releases of l: later acquires),
// kMwa(u, x) (commits and rmws of x: later reads, commits, rmws), kMr(t, x) (reads of x
// from memory: later commits and rmws; a read its buffer serves joins only when that
// write commits, exception (iv)), kMwo(t, u, x) (kMwa(u, x) as it was at t's latest
// write of x: what a read of x served by that write conflicts with, exception (iv)).
enum Kind : std::uint64_t { kPoAll, kCommit, kFork, kPoW, kPoBr, kMr, kMwa, kMwo, kRel, kAny };
constexpr std::uint64_t cls(Kind k, std::uint64_t t, std::uint64_t u = 0, std::uint64_t x = 0) {
  return k | t << 4 | u << 20 | x << 36;
}
constexpr Kind kind_of(std::uint64_t id) { return static_cast<Kind>(id & 15); }
constexpr std::uint64_t t_of(std::uint64_t id) { return (id >> 4) & 0xffff; }
constexpr std::uint64_t u_of(std::uint64_t id) { return (id >> 20) & 0xffff; }
constexpr std::uint64_t x_of(std::uint64_t id) { return id >> 36; }

// The commits placed so far, newest first, shared between summaries.
struct Hist {
  EventIndex write, before;  // the commit of `write`, placed right before tau event `before`
  std::shared_ptr<const Hist> parent;
};

struct Pend {
  std::uint32_t var;
  std::uint32_t slot;  // its transaction
  EventIndex w;        // its issue in tau
  Mask readers;        // transactions with a read this write serves (kMr when it commits)
  bool operator==(const Pend&) const = default;
};

struct Entry {
  std::uint64_t id;
  Mask own;  // live transactions with an event of the class
  Mask m;    // live transactions with a path (>= 1 edge) to a transaction with one
  bool operator==(const Entry&) const = default;
};

// The store buffers of every thread in one vector (thread 0's pending writes oldest
// first, then thread 1's, ...): a summary is copied at every move, one allocation for
// all buffers instead of one per thread.
class Bufs {
 public:
  std::size_t size() const { return end_.size(); }
  void resize(std::size_t n) { end_.resize(n, static_cast<std::uint32_t>(all_.size())); }
  std::span<Pend> operator[](std::size_t t) { return {all_.data() + begin(t), all_.data() + end_[t]}; }
  std::span<const Pend> operator[](std::size_t t) const { return {all_.data() + begin(t), all_.data() + end_[t]}; }
  std::span<Pend> all() { return all_; }
  std::span<const Pend> all() const { return all_; }
  void pop_front(std::size_t t) {
    all_.erase(all_.begin() + begin(t));
    for (std::size_t u = t; u < end_.size(); ++u) --end_[u];
  }
  void erase(std::size_t t, std::size_t k) {
    all_.erase(all_.begin() + static_cast<std::ptrdiff_t>(begin(t) + k));
    for (std::size_t u = t; u < end_.size(); ++u) --end_[u];
  }
  void push_back(std::size_t t, const Pend& p) {
    all_.insert(all_.begin() + end_[t], p);
    for (std::size_t u = t; u < end_.size(); ++u) ++end_[u];
  }
  bool operator==(const Bufs&) const = default;

 private:
  std::size_t begin(std::size_t t) const { return t == 0 ? 0 : end_[t - 1]; }
  std::vector<Pend> all_;
  std::vector<std::uint32_t> end_;
};

// A summary of the executions of a prefix of tau (see the header). Slots are the live
// transactions in order of their first event, so equal summaries are equal vectors.
struct State {
  std::vector<EventIndex> ids;
  std::vector<Mask> reach;  // reach[s]: slots s has a path (>= 1 edge) to
  std::vector<Entry> cls;   // sorted by id, none empty
  Bufs buf;  // per thread, oldest first
  // The last move was a commit of (thread, var): the next event of tau must be ordered
  // with it, or the commit could have come later; a next commit not ordered with it
  // must be of a larger thread, or the two could swap (canonical placement).
  std::int64_t oblig_thread = -1;
  std::uint32_t oblig_var = 0;
  EventIndex oblig_w = kNoEvent;  // the write whose commit that was
  // That commit left no trace: no live transaction reached its write's, which died with
  // it, and no read waited for it. Another thread's commit or event after it is then
  // dominated by the same moves with the commit placed after the event (see closure).
  bool oblig_idle = false;
  std::shared_ptr<const Hist> hist;

  bool same(const State& o) const {
    return ids == o.ids && reach == o.reach && cls == o.cls && buf == o.buf && oblig_thread == o.oblig_thread &&
           oblig_var == o.oblig_var && oblig_w == o.oblig_w && oblig_idle == o.oblig_idle;
  }
  std::uint64_t hash() const {
    std::uint64_t h = 1469598103934665603ULL;
    auto mix = [&](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ULL + (h >> 29); };
    for (EventIndex v : ids) mix(v);
    for (const Mask& v : reach) v.mix_into(mix);
    for (const Entry& e : cls) {
      mix(e.id);
      e.own.mix_into(mix);
      e.m.mix_into(mix);
    }
    for (std::size_t t = 0; t < buf.size(); ++t) {
      mix(t << 32 | buf[t].size());
      for (const Pend& p : buf[t]) {
        mix(p.w);
        p.readers.mix_into(mix);
      }
    }
    mix(static_cast<std::uint64_t>(oblig_thread) ^ (std::uint64_t{oblig_var} << 20));
    mix(oblig_w ^ (std::uint64_t{oblig_idle} << 63));
    return h;
  }
  // Dominance: same live slots and buffers, and every reach, own and m set of this
  // summary inside the other's. Every move is monotone in those sets (a cycle test
  // reads m, the edges added read m and own, collect and the canonical order read only
  // the buffers), so any cycle this summary can still close the other closes too, and
  // the other is a real execution prefix: this one is redundant.
  std::uint64_t shape_hash() const {
    std::uint64_t h = 0x9E3779B97F4A7C15ULL;
    auto mix = [&](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ULL + (h >> 29); };
    for (EventIndex v : ids) mix(v);
    for (std::size_t t = 0; t < buf.size(); ++t) {
      mix(t << 32 | buf[t].size());
      for (const Pend& p : buf[t]) {
        mix(p.w);
        p.readers.mix_into(mix);
      }
    }
    return h;
  }
  bool below(const State& o) const {
    if (ids != o.ids || buf != o.buf || oblig_thread != o.oblig_thread || oblig_var != o.oblig_var ||
        oblig_w != o.oblig_w || oblig_idle != o.oblig_idle)
      return false;
    for (std::size_t l = 0; l < reach.size(); ++l)
      if (!reach[l].subset_of(o.reach[l])) return false;
    std::size_t j = 0;
    for (const Entry& e : cls) {
      while (j < o.cls.size() && o.cls[j].id < e.id) ++j;
      if (j == o.cls.size() || o.cls[j].id != e.id) return false;
      if (!e.own.subset_of(o.cls[j].own) || !e.m.subset_of(o.cls[j].m)) return false;
    }
    return true;
  }
  int slot_of(EventIndex id) const {
    auto it = std::lower_bound(ids.begin(), ids.end(), id);
    return it != ids.end() && *it == id ? static_cast<int>(it - ids.begin()) : -1;
  }
  Entry& entry(std::uint64_t id) {
    auto it = std::lower_bound(cls.begin(), cls.end(), id, [](const Entry& e, std::uint64_t v) { return e.id < v; });
    if (it == cls.end() || it->id != id) it = cls.insert(it, Entry{id, {}, {}});
    return *it;
  }
};

// An event in slot y conflicts with every earlier event of the classes `pred` accepts:
// true when one of them is in a transaction y already reaches (a cycle); else the edges
// into y are added (closed transitively over the live transactions).
template <class Pred>
bool edges_into(State& s, int y, Pred pred) {
  const auto yy = static_cast<std::size_t>(y);
  Mask srcs;
  for (const Entry& e : s.cls)
    if (pred(e.id)) {
      if (e.m.test(yy)) return true;
      srcs |= e.m;
      srcs |= e.own;
    }
  srcs.reset(yy);
  if (srcs.none()) return false;
  Mask add = s.reach[yy];
  add.set(yy);
  srcs.for_each([&](std::size_t b) { s.reach[b] |= add; });
  for (Entry& e : s.cls)
    if (e.m.test(yy) || e.own.test(yy)) e.m |= srcs;
  return false;
}

// Slot y now has an event of class id.
void join_class(State& s, int y, std::uint64_t id);

// Drops the transactions that can receive no more edges: not an open block, no pending
// commit, no read waiting for its write's commit. What they reach stays in `m`.
void collect(State& s, const std::vector<EventIndex>& open_blocks);

// Is p the older of two pending writes of its variable in buffer b (or, when p has just
// left b's front, was it)?
bool older_of_two(std::span<const Pend> b, const Pend& p);

// What a summary holds in memory, about: its slot sets, classes and buffers (the
// memory budget of StreamLimits counts this over the summaries built for one event).
std::size_t approx_bytes(const State& s);

// Equal summaries by hash, without a node allocation per summary: open addressing over
// indices into the caller's vector.
class Seen {
 public:
  // True when no summary equal to s was added before; then s is added as index idx.
  bool add(const State& s, std::size_t idx, const std::vector<State>& in) {
    if ((used_ + 1) * 2 > table_.size()) grow();
    const std::uint64_t h = s.hash();
    for (std::size_t k = h & (table_.size() - 1);; k = (k + 1) & (table_.size() - 1)) {
      Slot& sl = table_[k];
      if (sl.idx == kEmpty) {
        sl = Slot{h, idx};
        ++used_;
        return true;
      }
      if (sl.hash == h && in[sl.idx].same(s)) return false;
    }
  }

 private:
  static constexpr std::size_t kEmpty = ~std::size_t{0};
  struct Slot {
    std::uint64_t hash = 0;
    std::size_t idx = kEmpty;
  };
  void grow() {
    std::vector<Slot> old(std::max<std::size_t>(64, table_.size() * 2));
    old.swap(table_);
    for (const Slot& sl : old)
      if (sl.idx != kEmpty)
        for (std::size_t k = sl.hash & (table_.size() - 1);; k = (k + 1) & (table_.size() - 1))
          if (table_[k].idx == kEmpty) {
            table_[k] = sl;
            break;
          }
  }
  std::vector<Slot> table_;
  std::size_t used_ = 0;
};

// Removes the summaries marked in `gone`, keeping the others' order.
void drop_gone(std::vector<State>& states, const std::vector<char>& gone);

// Keeps only the maximal summaries under State::below.
void keep_maximal(std::vector<State>& states);

// Adds transaction `id` as a slot, in order.
void insert_slot(State& s, EventIndex id);

}  // namespace atomcheck::tso::fpt
