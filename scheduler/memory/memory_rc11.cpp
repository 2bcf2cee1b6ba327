// RC11 memory (Lahav, Vafeiadis, Kang, Hur, Dreyer, PLDI 2017) as an execution graph
// built in the order the interleaving runs: every event is added po ∪ rf-maximal (a load
// reads a write already made), so po ∪ rf stays acyclic and no value comes out of thin
// air. A load may read any write of its variable that coherence and the SC axiom allow,
// a store goes anywhere in modification order they allow; the strategy picks (docs/rc11.md
// argues why every consistent graph is reached, and why the checks below are exact).
//
// Because the new event e is hb-maximal, the axioms reduce to local checks:
//  - coherence (hb;eco? irreflexive): e reads, or is placed in mo after, the mo-maximal
//    write among the writes hb-before e and the writes read by reads hb-before e (its
//    thread's "floor" for the variable, found from per-thread logs and e's hb clock);
//  - atomicity: an RMW writes right after the write it read, which no other RMW read,
//    and no store goes between a write and the RMW that read it;
//  - SC (psc acyclic): checked on the whole graph, and only when e is seq_cst or follows
//    an SC fence in hb: no other addition creates a psc edge.
// happens-before is RC11's (po ∪ sw)+ with release sequences and fences, plus thread
// start/join and mutexes, kept as vector clocks: a hb b iff clock(b)[thread(a)] >= n(a).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "scheduler/memory/memory.hpp"

namespace atomcheck::detail {

namespace {

using Clock = std::vector<std::uint32_t>;
constexpr std::uint32_t kNone = ~std::uint32_t{0};
bool g_general_psc = false;  // rc11_general_psc_check
// A non-atomic access: in no release sequence, synchronising with nothing, never SC.
// (memory_order has no such value; an out-of-range one stands for it here only.)
constexpr auto kPlain = static_cast<std::memory_order>(100);

std::uint32_t at(const Clock& c, std::size_t t) { return t < c.size() ? c[t] : 0; }
void join_into(Clock& into, const Clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (std::size_t i = 0; i < from.size(); ++i) into[i] = std::max(into[i], from[i]);
}

bool is_acquire(std::memory_order mo) {
  return mo == std::memory_order_acquire || mo == std::memory_order_acq_rel ||
         mo == std::memory_order_seq_cst || mo == std::memory_order_consume;
}
bool is_release(std::memory_order mo) {
  return mo == std::memory_order_release || mo == std::memory_order_acq_rel ||
         mo == std::memory_order_seq_cst;
}
// The read half of an RMW's order, and its write half.
std::memory_order read_half(std::memory_order mo) {
  if (mo == std::memory_order_release) return std::memory_order_relaxed;
  if (mo == std::memory_order_acq_rel) return std::memory_order_acquire;
  return mo;
}
std::memory_order write_half(std::memory_order mo) {
  if (mo == std::memory_order_acquire || mo == std::memory_order_consume) return std::memory_order_relaxed;
  if (mo == std::memory_order_acq_rel) return std::memory_order_release;
  return mo;
}

class Rc11Memory final : public UnbufferedMemory {
 public:
  // all_sc: every access seq_cst and plain accesses atomic, fences nothing (sc_graphs).
  explicit Rc11Memory(bool all_sc = false) : all_sc_(all_sc) {}
  void reset() override {
    nevents_ = nwrites_ = 0;
    nvars_ = 0;
    nthreads_ = 0;  // each thread is cleared when it first appears (thread())
    sc_fences_ = 0;
    weak_ = 0;
    for (Clock& c : lock_clocks_) c.clear();
    std::fill(lock_last_.begin(), lock_last_.end(), kNone);
    forced_ = true;
    steps_ = 0;
    block_end_.assign(1, 0);
    thread(0);
  }
  void add_var(std::int64_t initial) override {
    const VarId v = static_cast<VarId>(nvars_++);
    if (v == vars_.size()) vars_.emplace_back();
    vars_[v].mo.clear();
    vars_[v].made = 0;
    vars_[v].unsynchronised = false;
    Write& w = new_write(v, initial, kNone);
    w.pos = 0;
    vars_[v].mo.push_back(static_cast<std::uint32_t>(&w - writes_.data()));
    for (std::size_t t = 0; t < nthreads_; ++t) threads_[t].seen_var(v);
  }
  void set_unsynchronised(VarId v) override { vars_[v].unsynchronised = !all_sc_; }
  void set_initial(VarId v, std::int64_t initial) override { writes_[vars_[v].mo.front()].value = initial; }

  // ---- the plain interface, for the final reads and reports ----
  std::int64_t load(ThreadId, VarId v, bool& buffered) override {
    buffered = false;
    return read_memory(v);
  }
  void buffer_store(ThreadId, VarId, std::int64_t, EventIndex) override {}
  std::int64_t read_memory(VarId v) const override { return writes_[vars_[v].mo.back()].value; }
  void write_memory(VarId, std::int64_t) override {}

  // ---- choices ----
  bool chooses() const override { return true; }

  std::size_t load_options(ThreadId t, VarId v, std::memory_order mo, bool plain) override {
    if (all_sc_) mo = std::memory_order_seq_cst, plain = false;
    pending_ = Pending{t, v, mo, plain, 0, {}};
    moot_from_ = ~std::size_t{0};
    options_.clear();
    const std::uint32_t floor = floor_of(t, v);
    const std::vector<std::uint32_t>& order = vars_[v].mo;
    // A race-free plain read reads the hb-latest write (the floor); a racy one is reported
    // by the race detector, whatever it reads.
    if (plain) {
      options_.push_back(Option{floor, 0, 0, false});
      return 1;
    }
    const std::size_t lowest = writes_[floor].pos;
    for (std::size_t i = order.size(); i-- > lowest;) {
      const std::uint32_t w = order[i];
      if (needs_sc_check(t, v, mo == std::memory_order_seq_cst)) {
        add_read(t, v, mo, w);
        const bool ok = psc_acyclic(1);
        pop_events(1);
        if (!ok) continue;
      }
      options_.push_back(Option{w, 0, 0, false});
    }
    return options_.size();
  }
  std::int64_t take_load(std::size_t pick) override {
    const Option& o = options_[pick];
    add_read(pending_.t, pending_.v, pending_.plain ? kPlain : pending_.mo, o.write);
    last_read_ = o.write;
    return writes_[o.write].value;
  }

  std::size_t store_options(ThreadId t, VarId v, std::int64_t value, std::memory_order mo, bool plain) override {
    if (all_sc_) mo = std::memory_order_seq_cst, plain = false;
    pending_ = Pending{t, v, mo, plain, value, {}};
    moot_from_ = ~std::size_t{0};
    options_.clear();
    const std::vector<std::uint32_t>& order = vars_[v].mo;
    if (plain) {
      options_.push_back(Option{kNone, static_cast<std::uint32_t>(order.size()), 0, false});
      return 1;
    }
    const std::size_t lowest = writes_[floor_of(t, v)].pos + 1;
    for (std::size_t i = order.size() + 1; i-- > lowest;) {
      // Never between a write and the RMW that read it (atomicity).
      if (i < order.size() && writes_[order[i - 1]].taken) continue;
      if (needs_sc_check(t, v, mo == std::memory_order_seq_cst)) {
        add_write(t, v, value, mo, static_cast<std::uint32_t>(i), kNone);
        const bool ok = psc_acyclic(1);
        pop_events(1);
        if (!ok) continue;
      }
      options_.push_back(Option{kNone, static_cast<std::uint32_t>(i), 0, false});
    }
    return options_.size();
  }
  void take_store(std::size_t pick) override {
    add_write(pending_.t, pending_.v, pending_.value, pending_.plain ? kPlain : pending_.mo,
              options_[pick].position, kNone);
  }

  std::size_t rmw_options(ThreadId t, VarId v, const RmwFn& given, std::memory_order mo) override {
    RmwFn fn = given;
    if (all_sc_) mo = fn.failure = std::memory_order_seq_cst;
    pending_ = Pending{t, v, mo, false, 0, fn};
    options_.clear();
    moot_.clear();
    const std::vector<std::uint32_t>& order = vars_[v].mo;
    const std::size_t lowest = writes_[floor_of(t, v)].pos;
    for (std::size_t i = order.size(); i-- > lowest;) {
      const std::uint32_t w = order[i];
      std::int64_t next = writes_[w].value;
      const bool wrote = fn.call(fn.ctx, writes_[w].value, next);
      if (!wrote && fn.must_write) continue;
      if (wrote && writes_[w].taken) {  // two RMWs never read the same write
        if (graph_mode_) moot_.push_back(Option{w, 0, next, true});
        continue;
      }
      const bool sc = (wrote ? mo : fn.failure) == std::memory_order_seq_cst;
      if (needs_sc_check(t, v, sc)) {
        const std::size_t added = add_rmw(t, v, wrote ? mo : fn.failure, w, wrote, next);
        const bool ok = psc_acyclic(added);
        pop_events(added);
        if (!ok) continue;
      }
      options_.push_back(Option{w, 0, next, wrote});
    }
    // TruSt also considers an RMW that breaks atomicity (reads a write another RMW read):
    // the graph is not consistent, but its write's backward revisits reach the graphs
    // where the other RMW reads it (strategy_trust.cpp computes them without running it).
    moot_from_ = options_.size();
    options_.insert(options_.end(), moot_.begin(), moot_.end());
    return options_.size();
  }
  RmwTaken take_rmw(std::size_t pick) override {
    const Option& o = options_[pick];
    const std::size_t added =
        add_rmw(pending_.t, pending_.v, o.wrote ? pending_.mo : pending_.fn.failure, o.write, o.wrote, o.value);
    Event& r = events_[nevents_ - added];
    r.lock = pending_.fn.must_write;
    r.confirming = pending_.fn.confirming;
    r.rmw = pending_.fn.cas ? GraphEvent::Rmw::cas : GraphEvent::Rmw::always;
    r.expected = pending_.fn.expected;
    last_read_ = o.write;
    return RmwTaken{writes_[o.write].value, o.value, o.wrote};
  }

  std::uint32_t read_serial() const override { return writes_[last_read_].serial; }
  std::uint32_t write_position() const override { return writes_[nwrites_ - 1].pos; }
  bool read_latest() const override {
    const std::vector<std::uint32_t>& order = vars_[writes_[last_read_].var].mo;
    // An RMW's own write now follows what it read.
    const std::size_t pos = writes_[last_read_].pos;
    return pos + 1 == order.size() || (pos + 2 == order.size() && writes_[last_read_].taken &&
                                       events_[writes_[order.back()].event].t == pending_.t);
  }

  // ---- synchronisation ----
  void sync_fence(ThreadId t, std::memory_order mo) override {
    if (mo == std::memory_order_relaxed || all_sc_) return;
    Thread& th = thread(t);
    if (is_acquire(mo)) join_into(th.now, th.acquired);
    Event& f = add_event(t, Kind::fence, kNoId, mo == std::memory_order_seq_cst, kNone);
    if (mo == std::memory_order_seq_cst) ++sc_fences_;
    if (is_release(mo)) {
      th.released = f.clock;
      th.has_released = true;
    }
  }
  void sync_spawn(ThreadId parent, ThreadId child) override {
    add_event(parent, Kind::other, kNoId, false, kNone);
    thread(std::max(parent, child));  // both exist: no reference below is invalidated
    threads_[child].now = threads_[parent].now;
    threads_[child].spawned_at = static_cast<std::uint32_t>(nevents_ - 1);
  }
  void sync_join(ThreadId joiner, ThreadId child) override {
    thread(std::max(joiner, child));
    join_into(threads_[joiner].now, threads_[child].now);
    const std::vector<std::uint32_t>& done = threads_[child].events;
    const std::uint32_t last = done.empty() ? kNone : done.back();
    add_event(joiner, Kind::other, kNoId, false, kNone).pred = last;
  }
  void sync_lock(ThreadId t, LockId l) override {
    if (l < lock_clocks_.size()) join_into(thread(t).now, lock_clocks_[l]);
    lock_event(t, l);
  }
  void sync_unlock(ThreadId t, LockId l) override {
    Event& e = lock_event(t, l);
    if (l >= lock_clocks_.size()) lock_clocks_.resize(l + 1);
    lock_clocks_[l] = e.clock;
  }
  void sync_try_lock_failed(ThreadId t, LockId l) override { lock_event(t, l); }

  // ---- one execution per graph ----
  // The kept interleaving of a graph is the least one, reading thread ids as letters, of
  // the steps ordered by their events' edges (po, rf, thread start and join, the order
  // of one lock's operations). A step belongs to it iff no step of a greater thread sits
  // between its last predecessor and it (the normal form of Anisimov and Knuth): such a
  // step could have gone first, and the execution where it did makes the same graph.
  std::size_t event_count() const override { return nevents_; }
  void set_forced(bool forced) override {
    forced_ = forced;
    if (!forced) ++steps_;  // every chosen step (rc11 has no flushes) starts here
    block_end_.push_back(static_cast<std::uint32_t>(nevents_));  // a new block of events
  }
  bool redundant_step(ThreadId t, std::size_t from) const override {
    // The end of the step (or forced run) holding the step's last predecessor: the
    // scheduler moves steps, not events.
    std::size_t last = 0;
    auto before = [&](std::uint32_t pos) {
      if (pos != kNone && pos < from) last = std::max<std::size_t>(last, block_end_[events_[pos].block]);
    };
    for (std::size_t i = from; i < nevents_; ++i) {
      const Event& e = events_[i];
      const std::vector<std::uint32_t>& list = threads_[e.t].events;
      before(e.n >= 2 ? list[e.n - 2] : threads_[e.t].spawned_at);
      before(e.pred);
      if (e.kind == Kind::read) before(writes_[e.write].event);
    }
    for (std::size_t p = from; p-- > last;)
      if (!events_[p].forced && events_[p].t > t) return true;
    return false;
  }

  // ---- graph strategies (TruSt) ----
  void set_graph_mode(bool on) override { graph_mode_ = on; }
  std::size_t consistent_options(std::size_t n) const override { return std::min(n, moot_from_); }
  std::int64_t option_value(std::size_t i) const override { return options_[i].value; }
  bool option_blocks(std::size_t i) const override {
    const Option& o = options_[i];
    return pending_.fn.confirming && o.write != kNone && !o.wrote && o.write != vars_[pending_.v].mo.back();
  }
  std::uint64_t option_key(std::size_t i) const override {
    const Option& o = options_[i];
    if (i >= moot_from_) return key_of(o.write) | kMootKey;
    if (o.write != kNone) return key_of(o.write);  // a load's or an RMW's write read
    return o.position == 0 ? 0 : key_of(vars_[pending_.v].mo[o.position - 1]);  // the write it follows
  }
  void export_graph(ExecGraph& out) const override {
    out.clear();
    out.events.resize(nevents_);
    for (std::size_t i = 0; i < nevents_; ++i) {
      const Event& e = events_[i];
      GraphEvent& g = out.events[i];
      g.thread = e.t;
      g.n = e.n;
      g.kind = e.kind == Kind::read ? GraphEvent::Kind::read
               : e.kind == Kind::write ? GraphEvent::Kind::write
               : e.kind == Kind::fence ? GraphEvent::Kind::fence
                                       : GraphEvent::Kind::other;
      g.rmw_write = e.rmw_write;
      g.plain = e.plain;
      g.lock = e.lock;
      g.confirming = e.confirming;
      g.rmw = e.rmw;
      g.var = e.var;
      g.value = e.kind == Kind::write ? writes_[e.write].value : e.expected;
      g.rf = e.kind == Kind::read ? writes_[e.write].event : kNone;
      g.pred = e.pred;
      g.step = e.step;
      g.mo_pos = e.kind == Kind::write ? writes_[e.write].pos : 0;
    }
    out.spawned_at.resize(nthreads_);
    for (std::size_t t = 0; t < nthreads_; ++t) out.spawned_at[t] = threads_[t].spawned_at;
    out.mo.resize(nvars_);
    for (std::size_t v = 0; v < nvars_; ++v) {
      out.mo[v].clear();
      for (std::uint32_t w : vars_[v].mo) out.mo[v].push_back(writes_[w].event);
    }
  }

  std::uint64_t graph_hash() const override {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](std::uint64_t x) {
      h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 1099511628211ull;
    };
    auto id = [&](std::uint32_t w) -> std::uint64_t {
      const Write& wr = writes_[w];
      if (wr.event == kNone) return (std::uint64_t{1} << 63) | wr.var;
      const Event& e = events_[wr.event];
      return (std::uint64_t{e.t} << 32) | e.n;
    };
    // Reads are added in the interleaving's order, which the graph does not fix: their
    // (read, write) pairs are summed, an order-free combination.
    std::uint64_t reads = 0;
    for (std::size_t i = 0; i < nevents_; ++i) {
      const Event& e = events_[i];
      if (e.kind != Kind::read) continue;
      std::uint64_t x = (((std::uint64_t{e.t} << 32) | e.n) * 0x9e3779b97f4a7c15ull) ^ id(e.write);
      x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
      x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
      reads += x ^ (x >> 31);
    }
    mix(reads);
    for (std::size_t v = 0; v < nvars_; ++v) {
      mix(0xfeedull + v);
      for (std::uint32_t w : vars_[v].mo) mix(id(w));
    }
    return h;
  }

 private:
  enum class Kind : std::uint8_t { read, write, fence, other };
  struct Event {
    ThreadId t = 0;
    std::uint32_t n = 0;  // 1-based index in its thread: its own entry of its clock
    Kind kind = Kind::other;
    bool sc = false;
    VarId var = kNoId;
    bool rmw_write = false;       // the write half of an RMW
    bool forced = false;          // made outside a chosen step (redundant_step)
    bool plain = false;           // a non-atomic access
    bool lock = false;            // read: a lock's compare-exchange (RmwFn::must_write)
    bool confirming = false;      // read: RmwFn::confirming, expecting `expected`
    GraphEvent::Rmw rmw = GraphEvent::Rmw::none;  // read: an RMW's read half (RmwFn::cas)
    std::int64_t expected = 0;
    std::uint32_t step = kNone;   // the History step that made it (kNone: forced)
    std::uint32_t block = 0;      // the step or forced run that made it
    std::uint32_t pred = kNone;   // join: the child's last event; lock ops: the lock's last
    std::uint32_t write = kNone;  // a write's own write id, a read's rf
    Clock clock;                  // hb-predecessors (and itself)
  };
  struct Write {
    VarId var = kNoId;
    std::int64_t value = 0;
    std::uint32_t event = kNone;  // kNone: the initialisation write
    std::uint32_t pos = 0;        // index in its variable's mo
    bool taken = false;           // read by an RMW (which follows it in mo)
    std::uint32_t serial = 0;     // among its variable's writes, in the order made
    Clock message;                // what an acquire reading it (or its release sequence) gets
  };
  struct Var {
    std::vector<std::uint32_t> mo;  // write ids in modification order
    std::uint32_t made = 0;         // writes made so far
    bool unsynchronised = false;    // set_unsynchronised: no sw, no fence's either
  };
  struct Seen {
    std::uint32_t n;     // the event's index in its thread
    std::uint32_t best;  // the mo-maximal write it or an earlier event of the thread saw
  };
  struct Thread {
    Clock now;
    Clock released;  // at the last release fence
    bool has_released = false;
    Clock acquired;  // messages of relaxed reads, for the next acquire fence
    std::uint32_t n = 0;
    std::uint32_t spawned_at = kNone;  // the parent's spawn event
    std::vector<std::uint32_t> events;
    std::vector<std::vector<Seen>> seen;     // per variable
    std::vector<Clock> released_to;          // per variable: clock at the last release write
    std::vector<std::uint8_t> has_released_to;
    std::vector<VarId> touched;              // variables with a log or a release: clear() clears these
    std::vector<std::uint8_t> is_touched;
    void touch(VarId v) {
      if (is_touched[v]) return;
      is_touched[v] = 1;
      touched.push_back(v);
    }
    void clear() {
      now.clear();
      released.clear();
      has_released = false;
      acquired.clear();
      n = 0;
      spawned_at = kNone;
      events.clear();
      for (VarId v : touched) {
        seen[v].clear();
        released_to[v].clear();
        has_released_to[v] = 0;
        is_touched[v] = 0;
      }
      touched.clear();
    }
    void seen_var(VarId v) {
      if (seen.size() <= v) {
        seen.resize(v + 1);
        released_to.resize(v + 1);
        has_released_to.resize(v + 1, 0);
        is_touched.resize(v + 1, 0);
      }
    }
  };
  struct Option {
    std::uint32_t write;     // the write read (load, rmw)
    std::uint32_t position;  // store: the index in mo it is inserted at
    std::int64_t value;      // rmw: the value written
    bool wrote;              // rmw: false for a failed compare-exchange
  };
  struct Pending {
    ThreadId t = 0;
    VarId v = 0;
    std::memory_order mo = std::memory_order_seq_cst;
    bool plain = false;
    std::int64_t value = 0;
    RmwFn fn{};
  };

  std::uint64_t key_of(std::uint32_t write) const {
    const std::uint32_t ev = writes_[write].event;
    return ev == kNone ? 0 : graph_key(events_[ev].t, events_[ev].n);
  }

  Thread& thread(ThreadId t) {
    if (t >= nthreads_) {
      if (threads_.size() <= t) threads_.resize(static_cast<std::size_t>(t) + 1);
      for (std::size_t u = nthreads_; u <= t; ++u) {
        threads_[u].clear();
        threads_[u].seen_var(static_cast<VarId>(nvars_ ? nvars_ - 1 : 0));
      }
      nthreads_ = static_cast<std::size_t>(t) + 1;
    }
    return threads_[t];
  }

  Write& new_write(VarId v, std::int64_t value, std::uint32_t event) {
    if (nwrites_ == writes_.size()) writes_.emplace_back();
    Write& w = writes_[nwrites_++];
    w.var = v;
    w.value = value;
    w.event = event;
    w.pos = 0;
    w.taken = false;
    w.serial = vars_[v].made++;
    w.message.clear();
    return w;
  }

  Event& add_event(ThreadId t, Kind kind, VarId var, bool sc, std::uint32_t write) {
    Thread& th = thread(t);
    ++th.n;
    if (th.now.size() <= t) th.now.resize(static_cast<std::size_t>(t) + 1, 0);
    th.now[t] = th.n;
    if (nevents_ == events_.size()) events_.emplace_back();
    Event& e = events_[nevents_];
    e.t = t;
    e.n = th.n;
    e.kind = kind;
    e.sc = sc;
    e.var = var;
    e.write = write;
    e.rmw_write = false;
    e.lock = false;
    e.confirming = false;
    e.rmw = GraphEvent::Rmw::none;
    e.forced = forced_;
    e.plain = false;
    e.step = forced_ ? kNone : static_cast<std::uint32_t>(steps_ - 1);
    e.block = static_cast<std::uint32_t>(block_end_.size() - 1);
    block_end_.back() = static_cast<std::uint32_t>(nevents_ + 1);
    e.pred = kNone;
    e.clock = th.now;
    if (weakens(e)) ++weak_;
    th.events.push_back(static_cast<std::uint32_t>(nevents_++));
    return e;
  }

  Event& lock_event(ThreadId t, LockId l) {
    if (l >= lock_last_.size()) lock_last_.resize(l + 1, kNone);
    Event& e = add_event(t, Kind::other, kNoId, false, kNone);
    e.pred = lock_last_[l];
    lock_last_[l] = static_cast<std::uint32_t>(nevents_ - 1);
    return e;
  }

  // The mo-maximal write among the writes hb-before t's next event and the writes read by
  // reads hb-before it (the initialisation write at least).
  std::uint32_t floor_of(ThreadId t, VarId v) {
    Thread& th = thread(t);
    std::uint32_t best = init_of(v);
    for (std::size_t u = 0; u < nthreads_; ++u) {
      const std::uint32_t limit = u == t ? th.n : at(th.now, u);
      if (limit == 0 || threads_[u].seen.size() <= v) continue;
      const std::vector<Seen>& log = threads_[u].seen[v];
      auto it = std::upper_bound(log.begin(), log.end(), limit,
                                 [](std::uint32_t n, const Seen& s) { return n < s.n; });
      if (it == log.begin()) continue;
      const std::uint32_t w = std::prev(it)->best;
      if (writes_[w].pos > writes_[best].pos) best = w;
    }
    return best;
  }
  // Stores go after the floor, which is at least the initialisation: it stays first.
  std::uint32_t init_of(VarId v) const { return vars_[v].mo.front(); }

  void note_seen(ThreadId t, VarId v, std::uint32_t n, std::uint32_t w) {
    Thread& th = thread(t);
    th.seen_var(v);
    th.touch(v);
    std::vector<Seen>& log = th.seen[v];
    std::uint32_t best = w;
    if (!log.empty() && writes_[log.back().best].pos > writes_[w].pos) best = log.back().best;
    log.push_back(Seen{n, best});
  }

  // The order an access synchronises with: a plain access's and an unsynchronised
  // variable's (set_unsynchronised) none, which is kPlain's.
  std::memory_order sync_order(VarId v, std::memory_order mo) const { return vars_[v].unsynchronised ? kPlain : mo; }

  void add_read(ThreadId t, VarId v, std::memory_order mo, std::uint32_t w) {
    Thread& th = thread(t);
    const std::memory_order sync = sync_order(v, mo);
    if (is_acquire(sync)) join_into(th.now, writes_[w].message);
    else if (sync != kPlain) join_into(th.acquired, writes_[w].message);
    Event& e = add_event(t, Kind::read, v, mo == std::memory_order_seq_cst, w);
    e.plain = mo == kPlain;
    note_seen(t, v, e.n, w);
  }

  // Inserts a write at mo index `position`; `read_from` (an RMW) adds to its message the
  // message of the write it read: (rf;rmw)* of the release sequence.
  void add_write(ThreadId t, VarId v, std::int64_t value, std::memory_order mo, std::uint32_t position,
                 std::uint32_t read_from) {
    Write& w = new_write(v, value, static_cast<std::uint32_t>(nevents_));
    const auto id = static_cast<std::uint32_t>(&w - writes_.data());
    Event& e = add_event(t, Kind::write, v, mo == std::memory_order_seq_cst, id);
    e.plain = mo == kPlain;
    Thread& th = thread(t);
    th.seen_var(v);
    const std::memory_order sync = sync_order(v, mo);
    if (is_release(sync)) {
      th.released_to[v] = e.clock;
      th.has_released_to[v] = 1;
    }
    if (sync != kPlain && th.has_released) join_into(w.message, th.released);
    if (sync != kPlain && th.has_released_to[v]) join_into(w.message, th.released_to[v]);
    if (read_from != kNone) join_into(w.message, writes_[read_from].message);
    std::vector<std::uint32_t>& order = vars_[v].mo;
    order.insert(order.begin() + position, id);
    for (std::size_t i = position; i < order.size(); ++i) writes_[order[i]].pos = static_cast<std::uint32_t>(i);
    note_seen(t, v, e.n, id);
  }

  // Returns the number of events added (2, or 1 for a failed compare-exchange).
  std::size_t add_rmw(ThreadId t, VarId v, std::memory_order mo, std::uint32_t w, bool wrote,
                      std::int64_t next) {
    if (!wrote) {
      add_read(t, v, mo, w);
      return 1;
    }
    add_read(t, v, read_half(mo), w);
    writes_[w].taken = true;
    add_write(t, v, next, write_half(mo), writes_[w].pos + 1, w);
    events_[nevents_ - 1].rmw_write = true;
    return 2;
  }

  // Undoes the last `k` events (a tentative addition checked for consistency).
  void pop_events(std::size_t k) {
    for (; k > 0; --k) {
      Event& e = events_[--nevents_];
      if (weakens(e)) --weak_;
      block_end_.back() = static_cast<std::uint32_t>(nevents_);
      Thread& th = threads_[e.t];
      th.events.pop_back();
      --th.n;
      th.now[e.t] = th.n;
      if (e.kind == Kind::read || e.kind == Kind::write) th.seen[e.var].pop_back();
      if (e.kind == Kind::write) {
        std::vector<std::uint32_t>& order = vars_[e.var].mo;
        const std::uint32_t pos = writes_[e.write].pos;
        order.erase(order.begin() + pos);
        for (std::size_t i = pos; i < order.size(); ++i) writes_[order[i]].pos = static_cast<std::uint32_t>(i);
        --nwrites_;
        --vars_[e.var].made;
        if (e.rmw_write) writes_[order[pos - 1]].taken = false;  // it read the write before it
      }
    }
    // A tentative read's acquire is undone by restoring the saved clocks.
    restore_clocks();
  }

  // The SC axiom can only fail when the new event is seq_cst or follows an SC fence.
  // When it can, saves t's clocks, which the tentative event about v changes
  // (pop_events restores them).
  bool needs_sc_check(ThreadId t, VarId v, bool sc) {
    // After an SC fence any event may add a psc edge (F hb e, and e's mo or rb edges);
    // which fences precede e in hb is only known once e's own acquire is applied.
    if (!sc && sc_fences_ == 0) return false;
    Thread& th = thread(t);
    th.seen_var(v);
    saved_t_ = t;
    saved_v_ = v;
    saved_now_ = th.now;
    saved_acquired_ = th.acquired;
    saved_released_to_ = th.released_to[v];
    saved_has_released_to_ = th.has_released_to[v];
    return true;
  }
  void restore_clocks() {
    Thread& th = threads_[saved_t_];
    th.now = saved_now_;
    th.acquired = saved_acquired_;
    th.released_to[saved_v_] = saved_released_to_;
    th.has_released_to[saved_v_] = saved_has_released_to_;
  }

  // ---- the SC axiom, on the whole graph ----
  bool hb(std::uint32_t a, std::uint32_t b) const {
    if (a == b) return false;
    const Event& ea = events_[a];
    return at(events_[b].clock, ea.t) >= ea.n;
  }
  bool access(const Event& e) const { return e.kind == Kind::read || e.kind == Kind::write; }
  bool same_loc(const Event& a, const Event& b) const { return access(a) && access(b) && a.var == b.var; }
  std::uint32_t pos_of(const Event& e) const { return writes_[e.write].pos; }
  // eco = rf ∪ (mo ∪ rb);rf?, compared through mo positions.
  bool eco(std::uint32_t a, std::uint32_t b) const {
    const Event& ea = events_[a];
    const Event& eb = events_[b];
    if (a == b || !same_loc(ea, eb)) return false;
    const std::uint32_t pa = pos_of(ea), pb = pos_of(eb);
    if (ea.kind == Kind::write) return eb.kind == Kind::write ? pa < pb : pa <= pb;
    return pa < pb;  // a read: rb to a later write, or to the write a later read reads
  }
  // The first event po-after e with another location (fences have none), and the last one
  // po-before it.
  std::uint32_t after_other_loc(std::uint32_t e) const {
    const Event& ev = events_[e];
    const std::vector<std::uint32_t>& list = threads_[ev.t].events;
    for (std::size_t i = ev.n; i < list.size(); ++i)
      if (!same_loc(events_[list[i]], ev)) return list[i];
    return kNone;
  }
  std::uint32_t before_other_loc(std::uint32_t e) const {
    const Event& ev = events_[e];
    const std::vector<std::uint32_t>& list = threads_[ev.t].events;
    for (std::size_t i = ev.n - 1; i-- > 0;)
      if (!same_loc(events_[list[i]], ev)) return list[i];
    return kNone;
  }
  // scb = po ∪ po|≠loc;hb;po|≠loc ∪ hb|loc ∪ mo ∪ rb
  bool scb(std::uint32_t a, std::uint32_t b) {
    if (a == b) return false;
    const Event& ea = events_[a];
    const Event& eb = events_[b];
    if (ea.t == eb.t && ea.n < eb.n) return true;
    if (same_loc(ea, eb)) {
      if (hb(a, b)) return true;
      if (eb.kind == Kind::write && ea.kind == Kind::write && pos_of(ea) < pos_of(eb)) return true;
      if (eb.kind == Kind::write && ea.kind == Kind::read && ea.write != eb.write && pos_of(ea) < pos_of(eb))
        return true;
    }
    const std::uint32_t c = c0_[a], d = d0_[b];
    return c != kNone && d != kNone && (c == d || hb(c, d));
  }

  // Is psc acyclic with the last `added` events (the graph without them is)? They come
  // last in their thread and nothing is hb-after them, so if none is SC and no SC fence
  // is hb-before them they are no end of a psc edge, not the a' (an SC fence hb-before)
  // nor the b' (hb-before an SC fence) of psc_base, and they put no hb edge between older
  // events: psc is unchanged. (A new SC fence has no outgoing edge: no check.)
  bool psc_acyclic(std::size_t added) {
    if (weak_ == 0 && !g_general_psc) return sc_graph_acyclic(added);
    sc_.clear();
    for (std::uint32_t i = 0; i < nevents_; ++i)
      if (events_[i].sc) sc_.push_back(i);
    const std::size_t k = sc_.size();
    if (k < 2) return true;
    bool matters = false;
    for (std::size_t e = nevents_ - added; e < nevents_ && !matters; ++e) {
      matters = events_[e].sc;
      for (std::size_t i = 0; i < k && !matters; ++i)
        matters = events_[sc_[i]].kind == Kind::fence && hb(sc_[i], static_cast<std::uint32_t>(e));
    }
    if (!matters) return true;
    // Nor can they close a cycle if they have no psc edge out to an older event: that
    // needs an mo or rb edge from one of them (their other scb edges go to later events),
    // which a write placed mo-last, and a read of the mo-latest write, do not have.
    const std::size_t first_new = nevents_ - added;
    bool out = false;
    for (std::size_t e = first_new; e < nevents_ && !out; ++e) {
      const Event& ev = events_[e];
      if (!access(ev)) continue;
      const std::vector<std::uint32_t>& order = vars_[ev.var].mo;
      for (std::size_t p = pos_of(ev) + 1; p < order.size() && !out; ++p)
        out = writes_[order[p]].event == kNone || writes_[order[p]].event < first_new;
    }
    if (!out) return true;
    const std::size_t n = nevents_;
    c0_.assign(n, kNone);
    d0_.assign(n, kNone);
    for (std::uint32_t i = 0; i < n; ++i) {
      c0_[i] = after_other_loc(i);
      d0_[i] = before_other_loc(i);
    }
    // Bit sets over events, each relation computed once: scb_[x] the scb-successors of a
    // source x (an SC event, or an event hb-after an SC fence), eco_[x] the eco-successors
    // of an access hb-after an SC fence, before_[f] the hb-predecessors of an SC fence f.
    const std::size_t words = (n + 63) / 64;
    auto row = [&](std::vector<std::uint64_t>& m, std::size_t x) { return &m[x * words]; };
    auto test = [](const std::uint64_t* r, std::size_t x) { return (r[x / 64] >> (x % 64)) & 1; };
    auto set = [](std::uint64_t* r, std::size_t x) { r[x / 64] |= std::uint64_t{1} << (x % 64); };
    source_.assign(n, 0);
    for (std::uint32_t x : sc_) {
      source_[x] = 1;
      if (events_[x].kind != Kind::fence) continue;
      for (std::uint32_t y = 0; y < n; ++y)
        if (hb(x, y)) source_[y] = source_[y] | 2;  // 2: hb-after an SC fence
    }
    scb_.assign(n * words, 0);
    eco_.assign(n * words, 0);
    before_.assign(n * words, 0);
    for (std::uint32_t x = 0; x < n; ++x) {
      if (!source_[x]) continue;
      std::uint64_t* r = row(scb_, x);
      for (std::uint32_t y = 0; y < n; ++y)
        if (scb(x, y)) set(r, y);
      if (!(source_[x] & 2) || !access(events_[x])) continue;
      std::uint64_t* q = row(eco_, x);
      for (std::uint32_t y = 0; y < n; ++y)
        if (eco(x, y)) set(q, y);
    }
    for (std::uint32_t f : sc_) {
      if (events_[f].kind != Kind::fence) continue;
      std::uint64_t* r = row(before_, f);
      for (std::uint32_t y = 0; y < n; ++y)
        if (hb(y, f)) set(r, y);
    }
    // psc edges a -> b between SC events: ([E_sc] ∪ [F_sc];hb?) ; scb ; ([E_sc] ∪ hb?;[F_sc]),
    // and psc_F's F1 (hb ∪ hb;eco;hb) F2.
    adj_.assign(k * k, 0);
    mark_.assign(words, 0);
    fmark_.assign(words, 0);
    for (std::size_t i = 0; i < k; ++i) {
      const std::uint32_t a = sc_[i];
      const bool fa = events_[a].kind == Kind::fence;
      std::copy_n(row(scb_, a), words, mark_.begin());  // scb-successors of the a's
      std::fill(fmark_.begin(), fmark_.end(), 0);       // eco-successors of accesses hb-after a
      if (fa)
        for (std::uint32_t y = 0; y < n; ++y) {
          if (!hb(a, y)) continue;
          const std::uint64_t* r = row(scb_, y);
          for (std::size_t w = 0; w < words; ++w) mark_[w] |= r[w];
          if (!access(events_[y])) continue;
          const std::uint64_t* q = row(eco_, y);
          for (std::size_t w = 0; w < words; ++w) fmark_[w] |= q[w];
        }
      for (std::size_t j = 0; j < k; ++j) {
        const std::uint32_t b = sc_[j];
        if (a == b) continue;
        bool edge = test(mark_.data(), b);
        if (events_[b].kind == Kind::fence) {
          const std::uint64_t* r = row(before_, b);
          for (std::size_t w = 0; w < words && !edge; ++w) edge = (mark_[w] & r[w]) != 0;
          if (fa && !edge) edge = hb(a, b);
          for (std::size_t w = 0; w < words && fa && !edge; ++w) edge = (fmark_[w] & r[w]) != 0;
        }
        adj_[i * k + j] = edge;
      }
    }
    // Cycle detection: repeatedly remove nodes without predecessors.
    indeg_.assign(k, 0);
    for (std::size_t i = 0; i < k; ++i)
      for (std::size_t j = 0; j < k; ++j) indeg_[j] += adj_[i * k + j];
    stack_.clear();
    for (std::size_t j = 0; j < k; ++j)
      if (indeg_[j] == 0) stack_.push_back(static_cast<std::uint32_t>(j));
    std::size_t removed = 0;
    while (!stack_.empty()) {
      const std::uint32_t i = stack_.back();
      stack_.pop_back();
      ++removed;
      for (std::size_t j = 0; j < k; ++j)
        if (adj_[i * k + j] && --indeg_[j] == 0) stack_.push_back(static_cast<std::uint32_t>(j));
    }
    return removed == k;
  }
  // An event that makes psc more than po ∪ rf ∪ mo ∪ rb ∪ hb: a fence, an access that is
  // not seq_cst (plain ones included), or one whose variable synchronises nothing.
  bool weakens(const Event& e) const {
    if (e.kind == Kind::fence) return true;
    if (e.kind != Kind::read && e.kind != Kind::write) return false;
    return !e.sc || vars_[e.var].unsynchronised;
  }

  // psc_acyclic when every access is seq_cst and there is no fence (weak_ == 0), as in any
  // program under `sc`. Then rf ⊆ hb, psc relates every two accesses that po ∪ rf ∪ mo ∪ rb
  // ∪ hb does, and psc is acyclic iff that union is (RC11's guarantee that programs with
  // only SC accesses are SC; test_rc11_naive holds it against the general check). The graph
  // without the last `added` events (one access, or an RMW's two, at the end of one thread)
  // is acyclic, so a new cycle passes through them: it leaves them by mo or rb (nothing is
  // po- or hb-after them) and comes back through an event hb-before them or, for a new
  // write, an access of its variable mo-before it. Reachability within a thread is a suffix
  // (po), so the search keeps, per thread, the first event reached: O(events × threads ×
  // log) instead of the general check's relations over every pair of events.
  bool sc_graph_acyclic(std::size_t added) {
    const std::size_t first_new = nevents_ - added;
    const Event& last = events_[nevents_ - 1];
    // The new write (at most one) and its position.
    VarId wvar = kNoId;
    std::uint32_t wpos = 0;
    for (std::size_t e = first_new; e < nevents_; ++e)
      if (events_[e].kind == Kind::write) {
        wvar = events_[e].var;
        wpos = writes_[events_[e].write].pos;
      }
    low_.resize(nthreads_);
    for (std::size_t u = 0; u < nthreads_; ++u) {
      const std::size_t size = threads_[u].events.size();
      low_[u] = static_cast<std::uint32_t>(u == last.t ? size - added : size);
    }
    work_.clear();
    // Reaching event i (0-based) of thread u reaches its po-suffix; true if that closes a
    // cycle through hb (the prefix of u hb-before the new events).
    auto reach = [&](std::uint32_t ev) {
      const Event& x = events_[ev];
      const std::uint32_t i = x.n - 1;
      if (i >= low_[x.t]) return false;
      if (x.n <= at(last.clock, x.t)) return true;
      for (std::uint32_t j = i; j < low_[x.t]; ++j) work_.push_back(threads_[x.t].events[j]);
      low_[x.t] = i;
      return false;
    };
    // mo successor of a write, rb successor of a read: the next write in mo, if old.
    auto next_write = [&](const Event& x) {
      const std::vector<std::uint32_t>& order = vars_[x.var].mo;
      const std::uint32_t p = pos_of(x) + 1;
      if (p >= order.size()) return kNone;
      const std::uint32_t ev = writes_[order[p]].event;
      return ev < first_new ? ev : kNone;
    };
    for (std::size_t e = first_new; e < nevents_; ++e) {
      const std::uint32_t s = next_write(events_[e]);
      if (s != kNone && reach(s)) return false;
    }
    while (!work_.empty()) {
      const std::uint32_t ev = work_.back();
      work_.pop_back();
      const Event& x = events_[ev];
      if (access(x)) {
        if (x.var == wvar && pos_of(x) < wpos) return false;  // mo or rb into the new write
        const std::uint32_t s = next_write(x);
        if (s != kNone && reach(s)) return false;
      }
      // hb: the first event of each other thread that x happens before.
      for (std::size_t u = 0; u < nthreads_; ++u) {
        if (u == x.t || low_[u] == 0) continue;
        const std::vector<std::uint32_t>& list = threads_[u].events;
        const auto end = list.begin() + low_[u];
        const auto it = std::partition_point(list.begin(), end, [&](std::uint32_t y) {
          return at(events_[y].clock, x.t) < x.n;
        });
        if (it != end && reach(*it)) return false;
      }
    }
    return true;
  }
  std::vector<Event> events_;
  std::size_t nevents_ = 0;
  std::vector<Write> writes_;
  std::size_t nwrites_ = 0;
  std::vector<Var> vars_;
  std::size_t nvars_ = 0;
  std::vector<Thread> threads_;
  std::size_t nthreads_ = 0;
  std::vector<Clock> lock_clocks_;
  std::vector<std::uint32_t> lock_last_;  // per lock: its last operation's event
  bool forced_ = true;
  std::size_t steps_ = 0;  // chosen steps begun so far (set_forced(false) calls)
  std::vector<std::uint32_t> block_end_;  // per block (a step or a forced run): its end
  std::size_t sc_fences_ = 0;
  std::size_t weak_ = 0;  // events for which weakens() holds
  bool all_sc_ = false;
  Pending pending_;
  std::uint32_t last_read_ = 0;
  std::vector<Option> options_;
  bool graph_mode_ = false;
  std::vector<Option> moot_;       // rmw_options' atomicity-breaking options (graph mode)
  std::size_t moot_from_ = ~std::size_t{0};  // their first index in options_
  ThreadId saved_t_ = 0;
  VarId saved_v_ = 0;
  Clock saved_now_, saved_acquired_, saved_released_to_;
  std::uint8_t saved_has_released_to_ = 0;
  // psc_acyclic's scratch
  std::vector<std::uint32_t> sc_, c0_, d0_, stack_;
  std::vector<std::uint8_t> adj_, source_;
  std::vector<std::uint64_t> scb_, eco_, before_, mark_, fmark_;  // psc_acyclic's bit sets
  std::vector<std::uint32_t> indeg_;
  std::vector<std::uint32_t> low_, work_;  // sc_graph_acyclic's scratch
};

}  // namespace

void rc11_general_psc_check(bool on) { g_general_psc = on; }

std::unique_ptr<MemoryModel> make_rc11_memory() { return std::make_unique<Rc11Memory>(); }
std::unique_ptr<MemoryModel> make_sc_graph_memory() { return std::make_unique<Rc11Memory>(true); }

}  // namespace atomcheck::detail
