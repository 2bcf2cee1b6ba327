// The one-pass trace TSO decider (see tso_trace_fpt.hpp and docs/trace-tso-fpt.md).
#include "checkers/tso_trace_fpt.hpp"

#include <algorithm>
#include <span>
#include <unordered_map>

#include <fmt/core.h>

#include "checkers/tso_conflict.hpp"
#include "checkers/tso_trace_fpt_state.hpp"

namespace atomcheck::tso {

using namespace fpt;  // the summaries (tso_trace_fpt_state.hpp)

struct TraceStream::Impl {
  StreamLimits limits;
  std::vector<State> states;
  EventIndex i = 0;  // tau index of the next event
  // Facts that do not depend on the placement, per thread: block nesting, the open
  // block's transaction, the latest drain, the latest write of each variable.
  std::vector<std::uint32_t> depth;
  std::vector<EventIndex> current, last_drain;
  std::vector<std::unordered_map<std::uint32_t, EventIndex>> last_write;
  std::vector<EventIndex> open_blocks;
  std::uint32_t threads = 0;
  std::vector<Event> kept;  // tau, while it is short enough to print a witness
  std::size_t peak_states = 1, peak_live = 0;
  std::uint64_t work = 0;
  std::string undecided;
  // After a violation: the witness so far, and the buffers to flush.
  bool violated = false;
  EventIndex violated_at = kNoEvent;
  std::vector<EventIndex> witness;
  std::vector<CycleEdge> cycle;
  std::string note;

  Impl(StreamLimits l) : limits(l) { reset(); }

  void reset() {
    states.assign(1, State{});
    i = 0;
    depth.clear();
    current.clear();
    last_drain.clear();
    last_write.clear();
    open_blocks.clear();
    threads = 0;
    kept.clear();
    peak_states = 1;
    peak_live = 0;
    work = 0;
    undecided.clear();
    violated = false;
    violated_at = kNoEvent;
    witness.clear();
    cycle.clear();
    note.clear();
    unary = true;
    replaying = false;
    held.clear();
    held_depth.clear();
  }

  void grow(std::uint32_t t) {
    if (t < threads) return;
    threads = t + 1;
    depth.resize(threads, 0);
    current.resize(threads, kNoEvent);
    last_drain.resize(threads, kNoEvent);
    last_write.resize(threads);
    for (State& s : states) s.buf.resize(threads);
  }

  bool keeping() const { return i < limits.witness_events; }

  // Places the next commit of thread v in s; true on a cycle.
  bool commit(State& s, std::uint32_t v) {
    Pend p = s.buf[v].front();
    s.buf.pop_front(v);
    const int y = static_cast<int>(p.slot);
    const std::uint64_t x = p.var;
    bool cyc = edges_into(s, y, [&](std::uint64_t id) {
      Kind k = kind_of(id);
      if (k == kCommit || k == kFork) return t_of(id) == v;
      if (k == kMwa || k == kMr) return t_of(id) != v && x_of(id) == x;
      return false;
    });
    if (cyc) return true;
    join_class(s, y, cls(kAny, v));
    join_class(s, y, cls(kCommit, v));
    join_class(s, y, cls(kMwa, v, 0, x));
    p.readers.for_each([&](std::size_t b) { join_class(s, static_cast<int>(b), cls(kMr, v, 0, x)); });
    // The commit leaves no trace when its transaction and the reads it served die with
    // it and no other live transaction reaches any of them: the summary is then the one
    // before it without the write (the edges added and the classes joined name only
    // transactions that are gone).
    bool reached = false, idle;
    const EventIndex txn = s.ids[static_cast<std::size_t>(y)];
    if (p.readers.none()) {  // the common case, without allocating
      for (std::size_t l = 0; l < s.reach.size() && !reached; ++l)
        reached = static_cast<int>(l) != y && s.reach[l].test(static_cast<std::size_t>(y));
      collect(s, open_blocks);
      idle = !reached && s.slot_of(txn) < 0;
    } else {
      Mask gone = p.readers;
      gone.set(static_cast<std::size_t>(y));
      for (std::size_t l = 0; l < s.reach.size() && !reached; ++l)
        reached = !gone.test(l) && s.reach[l].intersects(gone);
      std::vector<EventIndex> dying;
      gone.for_each([&](std::size_t l) { dying.push_back(s.ids[l]); });
      collect(s, open_blocks);
      idle = !reached;
      for (EventIndex id : dying) idle = idle && s.slot_of(id) < 0;
    }
    s.oblig_idle = idle;
    s.oblig_thread = v;
    s.oblig_var = p.var;
    s.oblig_w = p.w;
    if (keeping()) s.hist = std::make_shared<const Hist>(Hist{p.w, i, s.hist});
    else s.hist.reset();
    return false;
  }

  // Does e (tau index i) on s; true on a cycle. `node` is e's transaction, `source` the
  // own write that may serve a read (kNoEvent: none).
  bool event(State& s, const Event& e, EventIndex node, EventIndex source, const std::vector<EventIndex>& open_after) {
    const std::uint64_t t = e.thread;
    s.oblig_thread = -1;
    s.oblig_var = 0;
    s.oblig_w = kNoEvent;
    s.oblig_idle = false;
    if (is_block_op(e.op)) {  // not events of ⊚TSO: they only delimit transactions
      collect(s, open_after);
      return false;
    }
    if (s.slot_of(node) < 0) insert_slot(s, node);
    const int y = s.slot_of(node);
    const std::uint64_t x = e.target;
    const bool read = e.op == Op::read, access = is_access(e.op);
    const bool served = read && source != kNoEvent && !s.buf[t].empty() && s.buf[t].front().w <= source;
    const bool drain = is_drain(e.op);
    bool cyc = edges_into(s, y, [&](std::uint64_t id) {
      const Kind k = kind_of(id);
      const std::uint64_t ct = t_of(id);
      switch (k) {
        case kPoAll: return ct == t;
        case kPoW:
        case kPoBr: return ct == t && (!read || x_of(id) == x);
        case kCommit: return ct == t && drain;
        case kFork: return ct == t;
        case kAny: return e.op == Op::join && ct == e.target && ct != t;
        case kRel: return e.op == Op::acquire && ct != t && x_of(id) == x;
        case kMwa: return access && e.op != Op::write && !served && ct != t && x_of(id) == x;
        case kMwo: return served && ct == t && u_of(id) != t && x_of(id) == x;
        case kMr: return e.op == Op::rmw && ct != t && x_of(id) == x;
      }
      return false;
    });
    if (cyc) return true;
    join_class(s, y, cls(kAny, t));
    switch (e.op) {
      case Op::read:
        join_class(s, y, source != kNoEvent ? cls(kPoBr, t, 0, x) : cls(kPoAll, t));
        if (served) {
          for (auto it = s.buf[t].rbegin(); it != s.buf[t].rend(); ++it)
            if (it->w == source) {
              it->readers.set(static_cast<std::size_t>(y));
              break;
            }
        } else {
          join_class(s, y, cls(kMr, t, 0, x));
        }
        break;
      case Op::write: {
        join_class(s, y, cls(kPoW, t, 0, x));
        if (limits.bounded_buffers) {
          // The newest pending write of x stops being the newest: unless it is also the
          // oldest, it leaves the buffer uncommitted ("Bounded buffers").
          std::size_t count = 0, newest = 0;
          const std::span<const Pend> b = s.buf[t];
          for (std::size_t k = 0; k < b.size(); ++k)
            if (b[k].var == x) ++count, newest = k;
          if (count >= 2) s.buf.erase(t, newest);
        }
        s.buf.push_back(t, Pend{static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), i, {}});
        // kMwo(t, u, x) becomes kMwa(u, x) as it is now.
        std::vector<Entry> snap;
        for (const Entry& en : s.cls)
          if (kind_of(en.id) == kMwa && x_of(en.id) == x && t_of(en.id) != t)
            snap.push_back(Entry{cls(kMwo, t, t_of(en.id), x), en.own, en.m});
        std::erase_if(s.cls, [&](const Entry& en) { return kind_of(en.id) == kMwo && t_of(en.id) == t && x_of(en.id) == x; });
        for (const Entry& en : snap) s.entry(en.id) = en;
        break;
      }
      case Op::rmw:
        join_class(s, y, cls(kPoAll, t));
        join_class(s, y, cls(kMwa, t, 0, x));
        break;
      default:
        join_class(s, y, cls(kPoAll, t));
        if (e.op == Op::release) join_class(s, y, cls(kRel, t, 0, x));
        if (e.op == Op::fork) join_class(s, y, cls(kFork, e.target));
        break;
    }
    collect(s, open_after);
    return false;
  }

  // Could a commit of t's pending write p be the last commit before e (the one that
  // must be ordered with e for e to be allowed after it)? Over-approximates allowed().
  // `last`: p is the newest pending write of t (a drain or join needs t's buffer empty).
  // `two_of_var`: p is the older of two pending writes of its variable in t's buffer
  // (possible only with bounded buffers).
  bool goal(const Event& e, std::uint32_t t, const Pend& p, bool last, bool two_of_var) const {
    if (is_drain(e.op) && t == e.thread) return last;
    if (e.op == Op::join && t == e.target) return last;
    // The oldest of two pending writes of x, committed before another write of x, keeps
    // the newest in the buffer, which the write would otherwise drop ("Bounded buffers").
    if (e.op == Op::write && t == e.thread && p.var == e.target) return two_of_var;
    if (!is_access(e.op) || e.op == Op::write || p.var != e.target) return false;
    if (t != e.thread) return true;
    return e.op == Op::read && p.w == source_;
  }
  // In the canonical form every commit of a run before e reaches e through ordered pairs
  // (same thread, same variable), ending in a goal commit; a commit from which no such
  // chain can follow leads to no canonical placement.
  // Over-approximated: from thread v's commits a chain goes on in v or in a thread with
  // a pending write of a variable in v's buffer.
  bool leads_to_goal(const State& s, std::uint32_t v, const Event& e) const {
    if (threads > 32) return true;
    std::uint32_t seen = 0, todo = 1u << v;
    while (todo != 0) {
      const auto a = static_cast<std::uint32_t>(__builtin_ctz(todo));
      todo &= todo - 1;
      seen |= 1u << a;
      for (const Pend& p : s.buf[a])
        if (goal(e, a, p, &p == &s.buf[a].back(), older_of_two(s.buf[a], p))) return true;
      for (std::uint32_t w = 0; w < threads; ++w) {
        if ((seen | todo) & (1u << w) || s.buf[w].empty()) continue;
        bool link = false;
        for (std::size_t q = 0; !link && q < s.buf[a].size(); ++q)
          for (const Pend& p : s.buf[w])
            if (p.var == s.buf[a][q].var) {
              link = true;
              break;
            }
        if (link) todo |= 1u << w;
      }
    }
    return false;
  }
  // After a commit of thread v (variable x) that is no goal: can only v's next commit
  // follow usefully (no other thread may commit next, by the canonical order, and lead
  // to a goal)?
  bool mid_run(const State& s, std::uint32_t v, std::uint32_t x, const Event& e) const {
    for (std::uint32_t w = 0; w < threads; ++w)
      if (w != v && !s.buf[w].empty() && (w > v || s.buf[w].front().var == x) && leads_to_goal(s, w, e))
        return false;
    return true;
  }
  EventIndex source_ = kNoEvent;  // the own write that may serve the read being placed

  // Can the last commit of s move to right after e? Not past a drain or join of its
  // thread; and an event of its own thread may depend on it (a read it would serve).
  bool may_follow(const State& s, const Event& e) const {
    const auto ot = static_cast<std::uint32_t>(s.oblig_thread);
    return e.thread != ot && !(e.op == Op::join && e.target == ot);
  }

  // A summary A is dropped when another, B, after committing a prefix of one thread's
  // buffer right now, has A's buffers and live transactions and dominates A
  // (State::below). B plus those commits is a real execution prefix, and its cycles are
  // B's: a commit placed now rather than before the next event ordered with it changes
  // no path (the canonical form's step (a)), so the search from B finds them. Typically
  // A committed those writes earlier, before a read or commit that now reaches nothing
  // through them, and B, committing them later, has the same edges and more. B keeps
  // more writes pending than A, so no summary is dropped in favour of one it justifies.
  void drop_committed_early() {
    if (states.size() < 2) return;
    std::unordered_multimap<std::uint64_t, std::size_t> by_shape;
    for (std::size_t k = 0; k < states.size(); ++k) by_shape.emplace(states[k].shape_hash(), k);
    std::vector<char> gone(states.size(), 0);
    for (std::size_t k = 0; k < states.size(); ++k)
      for (std::uint32_t v = 0; v < threads; ++v) {
        if (states[k].buf[v].empty()) continue;
        State b = states[k];
        while (!b.buf[v].empty()) {
          if (commit(b, v)) break;  // a cycle: the search will meet it
          b.oblig_thread = -1;
          b.oblig_var = 0;
          b.oblig_w = kNoEvent;
          b.oblig_idle = false;
          auto [lo, hi] = by_shape.equal_range(b.shape_hash());
          for (auto it = lo; it != hi; ++it)
            if (!gone[it->second] && states[it->second].below(b)) gone[it->second] = 1;
        }
      }
    drop_gone(states, gone);
  }

  void on_event(const Event& in, const Deadline& deadline);
  void violation(const State& s, bool at_event, std::uint32_t commit_thread, const Event* e);
  void continue_witness(const Event& e);
  void commit_dropped_writes(std::span<const Event> prefix);
  TraceVerdict finish(const Deadline& deadline);
  const Deadline* deadline_ = nullptr;
  // While the prefix has no event inside a begin/end block, every transaction is one
  // event and complete ("Unary traces" in docs/trace-tso-fpt.md): no execution of it has
  // a cycle and every commit in it leaves no trace, so the summary that keeps every write
  // pending dominates all others. That summary is built by forced_commits instead of
  // the closure, as the events come when buffers are bounded, else from the held events
  // before the first event inside a block (its transaction may grow); a trace that ends
  // first is serializable.
  bool unary = true, replaying = false;
  std::vector<Event> held;
  std::vector<std::uint32_t> held_depth;  // per thread: block nesting in the held prefix
  bool inside_a_block(const Event& e) {
    if (e.thread >= held_depth.size()) held_depth.resize(e.thread + 1, 0);
    std::uint32_t& d = held_depth[e.thread];
    if (e.op == Op::begin) ++d;
    else if (e.op == Op::end) d -= d > 0 ? 1 : 0;
    else return d > 0;
    return false;
  }
  // The replay's moves before e: only the commits e needs (a drain empties its thread's
  // buffer, a join the child's), then e.
  template <class Step>
  bool forced_commits(std::vector<State> from, const Event& e, Step step) {
    for (State& s : from) {
      auto empty = [&](std::uint32_t v) {
        while (!s.buf[v].empty())
          if (commit(s, v)) return false;  // not in a prefix of one-event transactions
        return true;
      };
      if (is_drain(e.op) && !empty(e.thread)) return false;
      if (e.op == Op::join && !empty(e.target)) return false;
      if (!step(s)) return false;
    }
    return true;
  }
  // Memory of the summaries built for the current event, about (approx_bytes).
  std::size_t bytes = 0;
  bool over_memory() {
    if (bytes <= limits.max_bytes) return false;
    undecided = fmt::format("budget: summaries need more than {} MB at trace event {}", limits.max_bytes >> 20, i);
    return true;
  }
  // Every placement of commits from `from` (canonical: each commit ordered with the
  // next move), calling step(state) on each; false when a cycle or the budget stopped it.
  template <class Step>
  bool closure(std::vector<State> from, const Event* e, Step step);
};

template <class Step>
bool TraceStream::Impl::closure(std::vector<State> work_list, const Event* e, Step step) {
  // The summaries given are distinct (the previous event's were merged), and a summary
  // after a commit differs from each of them in its last commit: only those are merged.
  Seen seen;
  auto fresh = [&](const State& s) { return seen.add(s, work_list.size(), work_list); };
  work_list.reserve(work_list.size() * 4);
  for (std::size_t k = 0; k < work_list.size(); ++k) {
    if (!step(work_list[k])) return false;
    for (std::uint32_t v = 0; v < threads; ++v) {
      const State& s = work_list[k];
      if (s.buf[v].empty()) continue;
      // Two adjacent commits that are not ordered (other thread, other variable) commute:
      // keep the order with the smaller thread first, unless the second leaves no trace
      // (then it is glued to its own thread's next commit, below, and cannot move first).
      const bool unsorted =
          s.oblig_thread >= 0 && v < static_cast<std::uint32_t>(s.oblig_thread) && s.buf[v].front().var != s.oblig_var;
      if (unsorted && e == nullptr) continue;
      if (e != nullptr && !leads_to_goal(s, v, *e)) continue;
      // After a commit that left no trace, another thread's commits and then e are
      // dominated by the same moves with that commit placed later, right before its
      // thread's next commit or right after e; only the same thread's next commit
      // (which needs this one first) is worth placing.
      if (e != nullptr && s.oblig_idle && v != static_cast<std::uint32_t>(s.oblig_thread) && may_follow(s, *e))
        continue;
      State n = s;
      // A summary after a commit that is no goal, from which only the next commit of
      // the same thread can lead to a goal, is a step on the way: it is neither kept
      // nor compared, the run goes on in place (and is dropped if it leads nowhere).
      std::size_t run = 0;
      bool keep = true;
      for (;;) {
        ++work;
        if ((work & 1023) == 0 && *deadline_->expired() != '\0') {
          undecided = fmt::format("{} at trace event {}", deadline_->expired(), i);
          return false;
        }
        const Pend p = n.buf[v].front();
        if (commit(n, v)) {
          State r = work_list[k];
          for (std::size_t j = 0; j < run; ++j) commit(r, v);
          violation(r, false, v, e);
          return false;
        }
        ++run;
        const bool glued = e != nullptr && n.oblig_idle && may_follow(n, *e);
        if (unsorted && run == 1 && !glued) {
          keep = false;
          break;
        }
        if (e == nullptr || goal(*e, v, p, n.buf[v].empty(), older_of_two(n.buf[v], p)) ||
            (!glued && !mid_run(n, v, p.var, *e)))
          break;
        if (n.buf[v].empty() || !leads_to_goal(n, v, *e)) {
          keep = false;
          break;
        }
      }
      if (keep && fresh(n)) {
        bytes += approx_bytes(n);
        work_list.push_back(std::move(n));
      }
      if (work_list.size() > limits.max_states) {
        undecided = fmt::format("budget: more than {} placement summaries at trace event {}", limits.max_states, i);
        return false;
      }
      if (over_memory()) return false;
    }
  }
  return true;
}

void TraceStream::Impl::on_event(const Event& in, const Deadline& deadline) {
  if (in.op == Op::commit || !undecided.empty()) return;
  if (unary && !replaying) {
    if (((held.size() + i) & 63) == 0) {
      if (const char* why = deadline.expired(); *why != '\0') {
        undecided = fmt::format("{} at trace event {}", why, held.size() + i);
        return;
      }
    }
    if (!inside_a_block(in)) {
      if (!limits.bounded_buffers) {
        held.push_back(in);
        return;
      }
      // Bounded buffers keep the replay's one summary bounded: replay as the events
      // come, and hold nothing.
      replaying = true;
      on_event(in, deadline);
      replaying = false;
      return;
    }
    // The first event inside a block: build the summary of the prefix (every
    // commit in it leaves no trace, so only those a drain or join needs are placed),
    // then go on as usual.
    unary = false;
    replaying = true;
    std::vector<Event> prefix;
    prefix.swap(held);
    for (const Event& e : prefix) on_event(e, deadline);
    replaying = false;
    if (!undecided.empty()) return;
  }
  if (violated) {
    if (!witness.empty()) continue_witness(in);  // else past the window: no witness to extend
    ++i;
    return;
  }
  if ((i & 63) == 0) {
    if (const char* why = deadline.expired(); *why != '\0') {
      undecided = fmt::format("{} at trace event {}", why, i);
      return;
    }
  }
  deadline_ = &deadline;
  if (i == limits.witness_events)
    for (State& s : states) s.hist.reset();  // past the witness window: free the placements
  Event e = in;
  grow(e.thread);
  if (is_thread_op(e.op)) grow(e.target);
  if (keeping()) kept.push_back(e);
  const std::uint32_t t = e.thread;
  // The transaction of e, as assign_transactions numbers them (by first event).
  EventIndex node = i;
  if (e.op == Op::begin) {
    if (depth[t]++ == 0) {
      current[t] = i;
      open_blocks.push_back(i);
    }
    node = current[t];
  } else if (depth[t] > 0) {
    node = current[t];
  }
  // Commits before an `end` still see its block open; the end closes it.
  std::vector<EventIndex> open_after = open_blocks;
  if (e.op == Op::end && depth[t] > 0 && --depth[t] == 0) std::erase(open_after, current[t]);
  EventIndex source = kNoEvent;
  if (e.op == Op::read) {
    auto it = last_write[t].find(e.target);
    if (it != last_write[t].end() && (last_drain[t] == kNoEvent || last_drain[t] < it->second)) source = it->second;
  }
  source_ = source;
  std::vector<State> next;
  Seen seen;
  auto allowed = [&](const State& s) {
    if (is_drain(e.op) && !s.buf[t].empty()) return false;
    if (e.op == Op::join && !s.buf[e.target].empty()) return false;
    if (s.oblig_thread < 0) return true;
    const auto ot = static_cast<std::uint32_t>(s.oblig_thread);
    // An event of another thread after a commit that left no trace: see closure. (Its
    // own thread's drain or read needs the commit before it.)
    if (s.oblig_idle && may_follow(s, e)) return false;
    if ((is_drain(e.op) && t == ot) || (e.op == Op::join && e.target == ot)) return true;
    if (!is_access(e.op) || e.target != s.oblig_var) return false;
    // The last commit c (thread ot, variable x) could move past e, changing no path
    // between transactions, when e is a write-issue (c before it conflicts with a read
    // that write serves; after it, c -> its commit -> the read by program order), a
    // read of another thread served by its buffer (in the window both ways: no edge),
    // or a read of its own thread that a later write serves.
    // An own write of x after the commit of the older of two pending writes of x: the
    // commit keeps the newer one in its bounded buffer.
    if (e.op == Op::write) return limits.bounded_buffers && t == ot;
    if (e.op == Op::read && t != ot) return !(source != kNoEvent && !s.buf[t].empty() && s.buf[t].front().w <= source);
    // An own read is served by its latest write; whether an older one has committed
    // changes nothing (a commit conflicts with none of its thread's reads).
    if (e.op == Op::read) return source == s.oblig_w;
    return true;
  };
  std::vector<State> from;
  from.swap(states);
  bytes = 0;
  for (const State& s : from) bytes += approx_bytes(s);
  auto step = [&](const State& s) {
    if (!allowed(s)) return true;
    State n = s;
    ++work;
    if (event(n, e, node, source, open_after)) {
      violation(s, true, 0, &e);
      return false;
    }
    if (!seen.add(n, next.size(), next)) return true;
    peak_live = std::max(peak_live, n.ids.size());
    bytes += approx_bytes(n);
    next.push_back(std::move(n));
    if (over_memory()) return false;
    return true;
  };
  const bool ok = replaying ? forced_commits(std::move(from), e, step) : closure(std::move(from), &e, step);
  if (violated) {
    ++i;
    return;
  }
  if (!ok) return;  // undecided
  keep_maximal(next);
  states = std::move(next);
  open_blocks = std::move(open_after);
  if (!replaying) drop_committed_early();
  peak_states = std::max(peak_states, states.size());
  if (is_drain(e.op)) last_drain[t] = i;
  if (e.op == Op::write) last_write[t][e.target] = i;
  ++i;
}

// The witness: the commits placed so far, the violating move, every pending commit at
// once, then the rest of tau with each write committed right after its issue (moves
// after the cycle only add edges). The cycle is read off the prefix execution.
void TraceStream::Impl::violation(const State& s, bool at_event, std::uint32_t commit_thread, const Event* e) {
  violated = true;
  violated_at = i;
  if (!keeping()) {
    note = fmt::format("the cycle closes at trace event {}; no witness kept past {} events", i,
                       limits.witness_events);
    return;
  }
  std::vector<const Hist*> hs;
  for (const Hist* h = s.hist.get(); h != nullptr; h = h->parent.get()) hs.push_back(h);
  std::reverse(hs.begin(), hs.end());
  std::size_t k = 0;
  for (EventIndex j = 0; j < i; ++j) {
    while (k < hs.size() && hs[k]->before == j) witness.push_back(hs[k++]->write);
    witness.push_back(j);
  }
  while (k < hs.size()) witness.push_back(hs[k++]->write);
  Bufs buf = s.buf;
  if (!at_event) {
    witness.push_back(buf[commit_thread].front().w);
    buf.pop_front(commit_thread);
  } else {
    witness.push_back(i);
    if (e->op == Op::write) buf.push_back(e->thread, Pend{e->target, 0, i, {}});
  }
  for (const Pend& p : buf.all()) witness.push_back(p.w);
  std::vector<Event> prefix(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(at_event ? i + 1 : i));
  commit_dropped_writes(prefix);
  // The cycle, from the execution of the prefix.
  std::vector<Event> eta = execution_of(prefix, witness);
  ExecVerdict ev = check_execution(eta);
  for (CycleEdge c : ev.cycle) {
    c.from.first = witness[c.from.first];
    c.to.first = witness[c.to.first];
    c.from_event = witness[c.from_event];
    c.to_event = witness[c.to_event];
    cycle.push_back(c);
  }
  if (ev.serializable) note = "the witness execution was not confirmed by the execution checker";
  if (!at_event && e != nullptr) continue_witness(*e);
  kept.clear();
  kept.shrink_to_fit();
}

// A write that left its buffer uncommitted ("Bounded buffers") commits in the witness
// right before the next commit of its thread, or at the end: a legal place (FIFO), and
// one that only adds edges to the execution the summary followed.
void TraceStream::Impl::commit_dropped_writes(std::span<const Event> prefix) {
  std::vector<std::uint8_t> seen(prefix.size(), 0);
  for (EventIndex j : witness) ++seen[j];
  std::vector<std::vector<EventIndex>> missing;  // per thread, in issue order
  for (EventIndex j = 0; j < prefix.size(); ++j)
    if (prefix[j].op == Op::write && seen[j] < 2) {
      if (prefix[j].thread >= missing.size()) missing.resize(prefix[j].thread + 1);
      missing[prefix[j].thread].push_back(j);
    }
  if (missing.empty()) return;
  std::vector<std::size_t> next(missing.size(), 0);
  std::fill(seen.begin(), seen.end(), 0);
  std::vector<EventIndex> out;
  out.reserve(witness.size() + prefix.size());
  auto flush = [&](std::uint32_t t, EventIndex upto) {
    if (t >= missing.size()) return;
    while (next[t] < missing[t].size() && missing[t][next[t]] < upto) out.push_back(missing[t][next[t]++]);
  };
  for (EventIndex j : witness) {
    if (++seen[j] == 2) flush(prefix[j].thread, j);  // j's commit
    out.push_back(j);
  }
  for (std::uint32_t t = 0; t < missing.size(); ++t) flush(t, kNoEvent);
  witness = std::move(out);
}

void TraceStream::Impl::continue_witness(const Event& e) {
  witness.push_back(i);
  if (e.op == Op::write) witness.push_back(i);
}

TraceVerdict TraceStream::Impl::finish(const Deadline& deadline) {
  TraceVerdict v;
  if (!violated && undecided.empty()) {
    if (const char* why = deadline.expired(); *why != '\0') {
      undecided = fmt::format("{} at the end of the trace", why);
    } else if (unary) {
      // Every transaction had one event: serializable ("Unary traces").
    } else {
      deadline_ = &deadline;
      std::vector<State> from;
      from.swap(states);
      bytes = 0;
      closure(std::move(from), nullptr, [](const State&) { return true; });
      states.clear();
    }
  }
  v.work = work;
  if (!undecided.empty() && !violated) {
    v.undecided = undecided;
    return v;
  }
  if (violated) {
    v.serializable = false;
    v.cycle = cycle;
    v.witness = witness;
  }
  return v;
}

TraceStream::TraceStream(StreamLimits limits) : impl_(std::make_unique<Impl>(limits)) {}
TraceStream::~TraceStream() = default;
void TraceStream::on_event(const Event& e, const Deadline& deadline) { impl_->on_event(e, deadline); }
TraceVerdict TraceStream::finish(const Deadline& deadline) { return impl_->finish(deadline); }
void TraceStream::reset() { impl_->reset(); }
void TraceStream::live_events(std::vector<EventIndex>& out, EventIndex& first_problem) const {
  if (!impl_->violated) {
    // A violation may yet name any event of the witness window.
    const EventIndex upto = std::min<EventIndex>(impl_->i + impl_->held.size(), impl_->limits.witness_events);
    for (EventIndex k = 0; k < upto; ++k) out.push_back(k);
    return;
  }
  first_problem = std::min(impl_->violated_at, impl_->i == 0 ? 0 : impl_->i - 1);
  for (const CycleEdge& c : impl_->cycle) {
    out.push_back(c.from_event);
    out.push_back(c.to_event);
    out.push_back(c.from.first);
    out.push_back(c.to.first);
  }
}
std::size_t TraceStream::peak_states() const { return impl_->peak_states; }
std::size_t TraceStream::peak_live() const { return impl_->peak_live; }

TraceVerdict decide_stream(std::span<const Event> tau, const Deadline& deadline, StreamLimits limits) {
  TraceStream s(limits);
  for (const Event& e : tau) s.on_event(e, deadline);
  return s.finish(deadline);
}

}  // namespace atomcheck::tso
