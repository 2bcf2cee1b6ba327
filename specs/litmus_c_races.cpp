// The racing accesses of a C litmus execution, named by thread, line and location. Under
// rc11 they are rc11.cat's `dr` of the execution graph, computed here from the trace
// (which gives rf under rc11); under sc and tso the race detector has already found an
// execution's first race, and only its two events are named.
#include <algorithm>
#include <cstddef>

#include "specs/litmus_c_run.hpp"

namespace atomcheck::litmus::detail {

namespace {

// A set of events of one execution (litmus executions have tens of events).
class EventSet {
 public:
  explicit EventSet(std::size_t n = 0) : words_((n + 63) / 64, 0) {}
  void add(std::size_t i) { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool has(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1u; }
  void join(const EventSet& o) {
    for (std::size_t w = 0; w < words_.size() && w < o.words_.size(); ++w) words_[w] |= o.words_[w];
  }

 private:
  std::vector<std::uint64_t> words_;
};

// Each access event of the trace with the C thread, line and location the record gives
// it: the k-th read, write or rmw of a thread is its k-th recorded access (commits are
// not accesses of their own; the main thread's are not C's). The main thread forks P0,
// P1, ... in order, so the k-th fork names Pk's thread.
struct Site {
  int thread = -1;  // C thread; -1: not a C access
  std::uint32_t var = kNoVar;
  std::uint32_t line = 0;
};

bool sites_of(const Trace& trace, const CRecord& record, std::vector<Site>& sites) {
  const auto& ev = trace.events;
  std::vector<int> c_thread;  // trace thread -> C thread
  int forks = 0;
  for (const Event& e : ev)
    if (e.op == Op::fork && e.thread == 0) {
      if (c_thread.size() <= e.target) c_thread.resize(e.target + 1, -1);
      c_thread[e.target] = forks++;
    }
  std::vector<std::size_t> made(record.accesses.size(), 0);
  sites.assign(ev.size(), Site{});
  for (std::size_t i = 0; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (e.op != Op::read && e.op != Op::write && e.op != Op::rmw) continue;
    if (e.thread >= c_thread.size() || c_thread[e.thread] < 0) continue;
    const auto c = static_cast<std::size_t>(c_thread[e.thread]);
    if (c >= record.accesses.size() || made[c] >= record.accesses[c].size()) return false;
    const CAccess& a = record.accesses[c][made[c]++];
    sites[i] = {static_cast<int>(c), a.var, a.line};
  }
  return true;
}

RaceAccess::Kind kind_of(Op op) {
  return op == Op::read ? RaceAccess::Kind::read : op == Op::write ? RaceAccess::Kind::write : RaceAccess::Kind::update;
}

Race make_race(const Trace& trace, const std::vector<Site>& sites, std::size_t a, std::size_t b) {
  RaceAccess x{sites[a].thread, sites[a].line, kind_of(trace.events[a].op)};
  RaceAccess y{sites[b].thread, sites[b].line, kind_of(trace.events[b].op)};
  if (y < x) std::swap(x, y);
  return Race{sites[a].var, x, y};
}

}  // namespace

// hb = (sb ∪ sw)+ with thread start and join, built in trace order (every hb edge points
// forward in it under rc11: an event is added after everything it depends on). pred[i] is
// the set of events hb-before event i. A release head (a release write or rmw, or the
// last release fence before a write) hands its hb-past and itself to the writes of its
// release sequence (rs = [W];(sb & loc)?;[W & atomic];(rf;rmw)*) as their message; an
// atomic read takes the message of the write it reads, at once when it acquires, else at
// the thread's next acquire fence. Plain accesses neither release nor acquire (rc11.cat's
// sw asks for atomic W and R).
std::vector<Race> c_races_rc11(const Test& test, const Trace& trace, const CRecord& record) {
  std::vector<Site> sites;
  if (!sites_of(trace, record, sites)) return {};
  const auto& ev = trace.events;
  const std::size_t n = ev.size();
  std::uint32_t threads = 0;
  for (const Event& e : ev) threads = std::max(threads, e.thread + 1);
  auto atomic_var = [&](std::size_t i) {
    return sites[i].thread < 0 || (sites[i].var < test.var_atomic.size() && test.var_atomic[sites[i].var]);
  };
  std::vector<EventSet> pred(n, EventSet(n)), message(n, EventSet(n));
  std::vector<std::size_t> last(threads, n), fork_of(threads, n);
  std::vector<EventSet> acquired(threads, EventSet(n)), fence_head(threads, EventSet(n));
  // Per thread and location: the heads of the thread's earlier writes there ((sb & loc)?).
  std::vector<std::vector<std::pair<std::uint32_t, EventSet>>> written(threads);
  auto with = [&](std::size_t i) {
    EventSet s = pred[i];
    s.add(i);
    return s;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Event& e = ev[i];
    const std::uint32_t t = e.thread;
    if (last[t] < n) pred[i] = with(last[t]);
    else if (fork_of[t] < n) pred[i] = with(fork_of[t]);
    last[t] = i;
    if (e.op == Op::fork && e.target < threads) fork_of[e.target] = i;
    if (e.op == Op::join && e.target < threads && last[e.target] < n) pred[i].join(with(last[e.target]));
    const bool reads = e.op == Op::read || e.op == Op::rmw;
    const bool writes = e.op == Op::write || e.op == Op::rmw;
    if (reads && atomic_var(i) && e.issue != kNoEvent && e.issue < i) {
      if (order_acquires(e.order)) pred[i].join(message[e.issue]);
      acquired[t].join(message[e.issue]);
    }
    if (e.op == Op::fence && order_acquires(e.order)) pred[i].join(acquired[t]);
    if (e.op == Op::fence && order_releases(e.order)) fence_head[t] = with(i);
    if (writes && atomic_var(i)) {
      EventSet head = fence_head[t];
      if (order_releases(e.order)) head.join(with(i));
      auto& mine = written[t];
      auto it = std::find_if(mine.begin(), mine.end(), [&](const auto& p) { return p.first == sites[i].var; });
      if (it == mine.end()) it = mine.insert(mine.end(), {sites[i].var, EventSet(n)});
      it->second.join(head);
      message[i] = it->second;
      if (e.op == Op::rmw && e.issue != kNoEvent && e.issue < i) message[i].join(message[e.issue]);
    }
  }
  std::vector<Race> out;
  for (std::size_t b = 0; b < n; ++b) {
    if (sites[b].thread < 0 || atomic_var(b)) continue;
    for (std::size_t a = 0; a < b; ++a) {
      if (sites[a].thread < 0 || sites[a].thread == sites[b].thread || sites[a].var != sites[b].var) continue;
      if (ev[a].op == Op::read && ev[b].op == Op::read) continue;
      if (!pred[b].has(a)) out.push_back(make_race(trace, sites, a, b));
    }
  }
  return out;
}

bool c_race_of(const Test&, const Trace& trace, const CRecord& record, EventIndex first, EventIndex second,
               Race& out) {
  std::vector<Site> sites;
  if (!sites_of(trace, record, sites)) return false;
  if (first >= sites.size() || second >= sites.size() || sites[first].thread < 0 || sites[second].thread < 0)
    return false;
  out = make_race(trace, sites, first, second);
  return true;
}

}  // namespace atomcheck::litmus::detail
