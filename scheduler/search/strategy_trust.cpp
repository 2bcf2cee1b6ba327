// RC11 graphs explored once each, with no execution started only to be thrown away:
// TruSt (Kokologiannakis, Marmanis, Gladstein and Vafeiadis, "Truly stateless, optimal
// dynamic partial order reduction", POPL 2022), with the maximality check as GenMC
// implements it (isMaximalExtension of GenMC v0.11), on the fiber scheduler.
//
// TruSt adds events one at a time in a fixed order (here: the lowest thread that can
// step) and branches two ways. Forward: a read reads the mo-latest write first, a store
// goes last in mo, and every other consistent choice is a branch of its own (the memory
// model lists them, docs/rc11.md). Backward: a new write w may be read by an earlier read
// r of its variable that is not in w's porf-prefix; the branch keeps the events added up
// to r and w's porf-prefix, and r reads w. A backward branch is taken only when every
// event it deletes was added "maximally" (reads read, and writes went, mo-last among
// what the revisit keeps, and no deleted read was itself revisited by a deleted write):
// that is what makes each graph reached exactly once.
//
// A branch is a plan: the steps to replay, in an order that respects po and rf, each with
// the graph_key of the write its memory choice takes (search/exec_graph.hpp), then the
// execution goes on fresh. The graph of each run comes from History::graph at its end,
// where the branches of all its new events are computed at once: the graph an event was
// added to is the final one restricted to the events stamped before it. Stamps are
// TruSt's addition order; a revisited read keeps its old stamp.
//
// Mutexes are words of memory here (Execution::set_lock_words): a lock is a
// compare-exchange, so the order of critical sections is reads-from, revisited like any
// other. As in GenMC (removeCASReadIfBlocks), a lock never reads "held": it waits until
// the lock is free, and a revisit that would make it read an acquire's write drops it
// from the plan instead, its thread waiting in the replay for the unlock. No execution
// then ends blocked on a mutex that a later unlock frees.
//
// Runs GenMC never makes are not started, or cut where they stop mattering: a revisit whose
// graph breaks atomicity is not pushed (rmw_atomic), and a replay whose thread blocks for
// good in a failed loop attempt on a read that no revisit can change is cut (refuses).
#include <algorithm>
#include <cstdint>

#include <fmt/core.h>

#include "scheduler/search/strategy.hpp"

namespace atomcheck {

namespace {

constexpr std::uint32_t kNone = ~std::uint32_t{0};
constexpr std::uint64_t kNoKey = ~std::uint64_t{0};
constexpr std::uint64_t kNoStamp = ~std::uint64_t{0};
bool g_moot_every_block = false;  // trust_moots_every_block

struct PlanStep {
  ThreadId thread = 0;
  std::uint64_t key = kNoKey;       // graph_key its memory choice takes
  std::uint64_t stamp = 0;          // its first event's
  std::uint64_t wstamp = kNoStamp;  // its RMW write half's, when not right after the read
  bool added_max = true;            // its choice was the mo-last one
  bool revisitable = true;          // its read may be revisited
};
using Plan = std::vector<PlanStep>;

class TrustStrategy final : public Strategy {
 public:
  bool begin_execution() override {
    reached_ = 0;
    if (started_) {
      if (stack_.empty()) return false;
      reached_ = stack_.back().unit;
      plan_ = std::move(stack_.back().plan);
      backward_ = stack_.back().backward;
      waits_ = stack_.back().waits;
      stack_.pop_back();
    }
    first_ = !started_;
    started_ = true;
    cut_ = false;
    alternatives_.clear();
    return true;
  }

  std::size_t choose(std::span<const Transition> enabled, const History& h) override {
    if (enabled[0].choice) return choose_option(enabled, h);
    const std::size_t s = h.steps();
    if (s < plan_.size()) {
      for (std::size_t i = 0; i < enabled.size(); ++i)
        if (enabled[i].thread == plan_[s].thread) return i;
      error_ = fmt::format("internal error: a revisit's replay found T{} disabled at step {} (please report)",
                           plan_[s].thread, s);
      return enabled.size();
    }
    // A compare-exchange that would fail waits while another thread can step
    // (Execution::set_cas_waits).
    for (std::size_t i = 0; i < enabled.size(); ++i)
      if (!enabled[i].waits) return i;
    return 0;
  }

  void end_execution(const History& h) override {
    if (cut_ || !error_.empty() || !h.graph) return;
    for (std::size_t s = 0; s < plan_.size() && s < h.steps(); ++s)
      if (h.chosen[s].thread != plan_[s].thread) {
        error_ = fmt::format("internal error: a revisit's replay ran T{} at step {} instead of T{} (please report)",
                             h.chosen[s].thread, s, plan_[s].thread);
        return;
      }
    index(h);
    forward_revisits();
    // The plan's last step is new (a choice not taken before, a revisited read's RMW write),
    // except when the revisited lock was dropped: then every plan step was revisited before.
    const std::size_t fresh_from = waits_ ? plan_.size() : plan_.empty() ? 0 : plan_.size() - 1;
    for (std::uint32_t e = 0; e < events().size(); ++e) {
      const GraphEvent& ev = events()[e];
      if (ev.kind == GraphEvent::Kind::write && !ev.plain && ev.step != kNone && ev.step >= fresh_from)
        backward_revisits(e);
    }
    moot_revisits();
  }

  std::string error() const override { return error_; }

  // Checkpoints: the work stack of plans, word by word.
  bool save(std::vector<std::uint64_t>& out) const override { return save_state(out, nullptr); }
  bool save_begun(std::vector<std::uint64_t>& out) const override {
    Item current{plan_, backward_, waits_};
    return save_state(out, first_ ? nullptr : &current, first_);
  }
  bool load(std::span<const std::uint64_t> in) override {
    std::size_t i = 0;
    auto next = [&](std::uint64_t& v) { return i < in.size() ? (v = in[i++], true) : false; };
    std::uint64_t magic = 0, started = 0, items = 0;
    if (!next(magic) || magic != kMagic || !next(started) || !next(next_stamp_) || !next(items)) return false;
    started_ = started != 0;
    stack_.clear();
    for (std::uint64_t k = 0; k < items; ++k) {
      Item item;
      std::uint64_t backward = 0, n = 0;
      if (!next(backward) || !next(n) || n > in.size()) return false;
      item.backward = (backward & 1) != 0;
      item.waits = (backward & 2) != 0;
      for (std::uint64_t j = 0; j < n; ++j) {
        PlanStep p;
        std::uint64_t thread = 0, flags = 0;
        if (!next(thread) || !next(p.key) || !next(p.stamp) || !next(p.wstamp) || !next(flags)) return false;
        p.thread = static_cast<ThreadId>(thread);
        p.added_max = flags & 1;
        p.revisitable = flags & 2;
        item.plan.push_back(p);
      }
      stack_.push_back(std::move(item));
    }
    return i == in.size();
  }
  bool wants_graph() const override { return true; }
  bool refuses(std::span<const Transition> enabled, const History& h) const override {
    // A thread that blocked for good after a read that read an older write than the latest,
    // or that no write can revisit (it is in the prefix of the revisit that kept it), stays
    // blocked in every extension, and the one where it read the latest is explored: the run
    // is cut there (GenMC's mootExecutionIfFullyBlocked).
    if (h.blocked_read_step < plan_.size()) {
      const PlanStep& p = plan_[h.blocked_read_step];
      if (!p.added_max || !p.revisitable) return true;
    }
    if (g_moot_every_block && h.blocked_read_step != History::kNoStep) return true;
    const std::size_t s = h.steps();
    if (s >= plan_.size()) return false;
    for (const Transition& t : enabled)
      if (t.thread == plan_[s].thread) return false;
    return true;
  }

  // ---- units of a parallel search: a work item is a whole subtree, explored by the
  // one-job search in one stretch once popped (its descendants are pushed above it), so a
  // unit is a TruSt of its own started on one carved item; the oldest is carved first
  // (the last the search reaches). Items never change once pushed, so no unit changes.
  // Units carved and not yet joined are numbered 1, 2, ... by their place (strategy.hpp).
  std::unique_ptr<Strategy> carve_unit() override {
    if (!error_.empty()) return nullptr;
    for (Item& item : stack_) {
      if (item.unit != 0) continue;
      auto u = std::make_unique<TrustStrategy>();
      u->started_ = true;
      u->next_stamp_ = next_stamp_;
      u->stack_.push_back(Item{item.plan, item.backward, item.waits, 0});
      item.unit = static_cast<int>(++live_units_);
      return u;
    }
    return nullptr;
  }
  int unit_reached() const override { return reached_; }
  // A unit in another process (atomcheck-mpi): its work stack, as a checkpoint holds it.
  bool save_unit(std::vector<std::uint64_t>& out) const override { return save_state(out, nullptr); }
  bool load_unit(std::span<const std::uint64_t> in) override { return load(in); }
  void continue_unit(int, Strategy& unit, bool) override {
    auto& u = static_cast<TrustStrategy&>(unit);
    for (Item& item : u.stack_) stack_.push_back(std::move(item));
    u.stack_.clear();
    next_stamp_ = std::max(next_stamp_, u.next_stamp_);
  }
  void join_unit(int which, Strategy* unit) override {
    // Without a unit the search explores the item itself: this execution is its first.
    if (unit) next_stamp_ = std::max(next_stamp_, static_cast<TrustStrategy*>(unit)->next_stamp_);
    // Units not yet joined are numbered by their place among them: the later ones move up.
    const int k = which < 0 ? -which : which;
    for (Item& item : stack_)
      if (item.unit > k) --item.unit;
    --live_units_;
  }

 private:
  struct Item {
    Plan plan;
    bool backward = false;
    bool waits = false;  // backward, with the revisited lock dropped (its thread waits)
    int unit = 0;  // carved as unit k (carve_unit): the search takes its runs here
  };
  struct Alternative {
    std::uint32_t step;
    std::uint64_t key;
    std::int64_t value;  // an atomicity-breaking RMW's value written (moot_revisits)
  };

  static constexpr std::uint64_t kMagic = 0x7472757374ull;  // "trust"

  bool save_state(std::vector<std::uint64_t>& out, const Item* current, bool unstarted = false) const {
    const std::size_t items = stack_.size() + (current ? 1 : 0);
    out.insert(out.end(), {kMagic, unstarted ? 0u : started_ ? 1u : 0u, next_stamp_, items});
    auto put = [&](const Item& item) {
      out.push_back(std::uint64_t{item.backward} | std::uint64_t{item.waits} << 1);
      out.push_back(item.plan.size());
      for (const PlanStep& p : item.plan)
        out.insert(out.end(), {p.thread, p.key, p.stamp, p.wstamp,
                               std::uint64_t{p.added_max} | std::uint64_t{p.revisitable} << 1});
    };
    for (const Item& item : stack_) put(item);
    if (current) put(*current);
    return true;
  }

  std::size_t choose_option(std::span<const Transition> enabled, const History& h) {
    const std::size_t s = h.steps() - 1;
    if (s < plan_.size()) {
      for (std::size_t i = 0; i < enabled.size(); ++i)
        if (h.option_keys[i] == plan_[s].key) return i;
      cut_ = true;  // the revisit's graph is not consistent
      return kCut;
    }
    for (std::size_t i = 1; i < enabled.size(); ++i)
      if (!h.option_blocks[i]) alternatives_.push_back(Alternative{static_cast<std::uint32_t>(s), h.option_keys[i], h.option_values[i]});
    return 0;
  }

  const std::vector<GraphEvent>& events() const { return graph_->events; }

  // ---- the run's graph, indexed ----
  void index(const History& h) {
    const std::size_t nsteps = h.steps();
    // Steps: plan steps keep their stamps; new steps get new ones, after the write half
    // of a revisited RMW read (TruSt adds it after everything the revisit kept).
    steps_.assign(nsteps, PlanStep{});
    for (std::size_t s = 0; s < nsteps && s < plan_.size(); ++s) steps_[s] = plan_[s];
    if (!plan_.empty() && backward_ && !waits_ && plan_.size() <= nsteps)
      steps_[plan_.size() - 1].wstamp = next_stamp_++;
    for (std::size_t s = plan_.size(); s < nsteps; ++s) {
      steps_[s].thread = h.chosen[s].thread;
      steps_[s].stamp = next_stamp_++;
    }
    index_graph(*h.graph);
  }

  // Indexes `g` over steps_: each step's first event, event stamps, porf clocks.
  void index_graph(const ExecGraph& g) {
    graph_ = &g;
    const std::vector<GraphEvent>& ev = events();
    const std::size_t nsteps = steps_.size();
    step_first_.assign(nsteps + 1, kNone);
    for (std::uint32_t e = static_cast<std::uint32_t>(ev.size()); e-- > 0;)
      if (ev[e].step != kNone && ev[e].step < nsteps) step_first_[ev[e].step] = e;
    // Event stamps: the step's, then its position in the step (an RMW's write half after
    // its read); forced events (spawn, join) are ordered by nothing here.
    nthreads_ = 0;
    for (const GraphEvent& e : ev) nthreads_ = std::max<std::size_t>(nthreads_, e.thread + 1);
    // (A thread may step without an event: a fence, which the graph of sc_graphs leaves out.)
    for (const PlanStep& st : steps_) nthreads_ = std::max<std::size_t>(nthreads_, st.thread + 1);
    estamp_.assign(ev.size(), 0);
    clear_lists(by_thread_, nthreads_);
    for (std::uint32_t e = 0; e < ev.size(); ++e) {
      const GraphEvent& g = ev[e];
      by_thread_[g.thread].push_back(e);
      if (g.step == kNone || g.step >= nsteps) {
        estamp_[e] = kNoStamp;
        continue;
      }
      const PlanStep& st = steps_[g.step];
      if (g.rmw_write) estamp_[e] = st.wstamp != kNoStamp ? st.wstamp * 4 + 1 : st.stamp * 4 + 1;
      else estamp_[e] = st.stamp * 4 + (e == step_first_[g.step] ? 0 : 2);
    }
    // porf clocks: per event, the last event of each thread in its porf-prefix.
    clocks_.assign(ev.size() * nthreads_, 0);
    for (std::uint32_t e = 0; e < ev.size(); ++e) {
      const GraphEvent& g = ev[e];
      std::uint32_t* c = &clocks_[e * nthreads_];
      auto join = [&](std::uint32_t from) {
        if (from == kNone) return;
        const std::uint32_t* f = &clocks_[from * nthreads_];
        for (std::size_t t = 0; t < nthreads_; ++t) c[t] = std::max(c[t], f[t]);
      };
      if (g.n >= 2) join(by_thread_[g.thread][g.n - 2]);
      else if (g.thread < graph_->spawned_at.size()) join(graph_->spawned_at[g.thread]);
      join(g.pred);
      if (g.kind == GraphEvent::Kind::read) join(g.rf);
      c[g.thread] = g.n;
    }
    // Per thread: its steps in order, for the steps of a porf-prefix.
    clear_lists(thread_steps_, nthreads_);
    for (std::uint32_t s = 0; s < nsteps; ++s) thread_steps_[steps_[s].thread].push_back(s);
  }

  // n empty lists, keeping the capacity of the ones a previous run used.
  static void clear_lists(std::vector<std::vector<std::uint32_t>>& lists, std::size_t n) {
    if (lists.size() < n) lists.resize(n);
    for (std::size_t i = 0; i < n; ++i) lists[i].clear();
  }

  bool in_porf(std::uint32_t e, const std::uint32_t* clock) const {
    return events()[e].n <= clock[events()[e].thread];
  }
  std::uint64_t key_of(std::uint32_t e) const { return e == kNone ? 0 : key_of_in(*graph_, e); }
  std::uint32_t step_of(std::uint32_t e) const { return e == kNone ? kNone : events()[e].step; }

  // The key a step's memory choice takes when the steps run in the order `rank` gives them
  // (nullptr: the run's own): a read (or RMW) the write it reads, a store the mo-latest of
  // the writes made before it that precede it in mo (the initial write at least).
  std::uint64_t step_key(std::uint32_t s, const std::uint32_t* rank) const {
    const std::uint32_t e = step_first_[s];
    if (e == kNone) return kNoKey;
    const GraphEvent& g = events()[e];
    if (g.kind == GraphEvent::Kind::read) return key_of(g.rf);
    if (g.kind != GraphEvent::Kind::write) return kNoKey;
    const std::vector<std::uint32_t>& mo = graph_->mo[g.var];
    for (std::uint32_t p = g.mo_pos; p-- > 0;) {
      const std::uint32_t x = mo[p];
      if (x == kNone) return 0;
      const std::uint32_t xs = step_of(x);
      if (xs != kNone && (rank ? rank[xs] < rank[s] : xs < s)) return key_of(x);
    }
    return 0;
  }

  // ---- forward revisits: the other choices of this run's new reads and stores ----
  void forward_revisits() {
    for (const Alternative& a : alternatives_) {
      if (a.key & kMootKey) continue;  // moot_revisits()
      Item item;
      item.plan.reserve(a.step + 1);
      for (std::uint32_t s = 0; s <= a.step; ++s) {
        PlanStep p = steps_[s];
        p.key = step_key(s, nullptr);
        item.plan.push_back(p);
      }
      item.plan.back().key = a.key;
      item.plan.back().added_max = false;
      item.plan.back().wstamp = kNoStamp;
      stack_.push_back(std::move(item));
    }
  }

  // ---- atomicity-breaking RMWs: an RMW option that reads a write x another RMW read.
  // Its graph breaks atomicity, so TruSt adds it only for the backward revisits of its
  // write (which give the graphs where the other RMW reads this one's write); they are
  // computed here on the graph it would make, without running it: the events before its
  // step, its read of x and its write right after x in mo.
  void moot_revisits() {
    if (std::none_of(alternatives_.begin(), alternatives_.end(),
                     [](const Alternative& a) { return (a.key & kMootKey) != 0; }))
      return;
    const ExecGraph& real = *graph_;
    // index_graph below re-indexes steps_ and step_first_ for each moot graph: keep the
    // run's (in scratch that keeps its capacity from run to run).
    std::vector<PlanStep>& steps = moot_steps_;
    std::vector<std::uint32_t>& first = moot_first_;
    steps = steps_;
    first = step_first_;
    for (const Alternative& a : alternatives_) {
      if (!(a.key & kMootKey)) continue;
      const std::uint32_t f = first[a.step];
      if (f == kNone) continue;
      const std::uint64_t xkey = a.key & ~kMootKey;
      std::uint32_t x = kNone;
      for (std::uint32_t e = 0; e < f && xkey != 0; ++e)
        if (real.events[e].kind == GraphEvent::Kind::write && key_of_in(real, e) == xkey) x = e;
      if (xkey != 0 && x == kNone) continue;
      ExecGraph& gm = moot_graph_;
      gm.events.assign(real.events.begin(), real.events.begin() + f);
      GraphEvent r = real.events[f];
      r.kind = GraphEvent::Kind::read;
      r.rmw_write = false;
      r.rf = x;
      r.pred = kNone;
      GraphEvent w = r;
      w.kind = GraphEvent::Kind::write;
      w.rmw_write = true;
      w.rf = kNone;
      w.n = r.n + 1;
      w.value = a.value;
      const auto wi = static_cast<std::uint32_t>(f + 1);
      gm.events.push_back(r);
      gm.events.push_back(w);
      gm.spawned_at = real.spawned_at;
      for (std::uint32_t& sp : gm.spawned_at)
        if (sp != kNone && sp >= f) sp = kNone;
      gm.mo.resize(real.mo.size());
      for (std::size_t v = 0; v < real.mo.size(); ++v) {
        gm.mo[v].clear();
        for (std::uint32_t e : real.mo[v])
          if (e == kNone || e < f) gm.mo[v].push_back(e);
        if (v == r.var) gm.mo[v].insert(std::find(gm.mo[v].begin(), gm.mo[v].end(), x) + 1, wi);
        for (std::uint32_t p = 0; p < gm.mo[v].size(); ++p)
          if (gm.mo[v][p] != kNone) gm.events[gm.mo[v][p]].mo_pos = p;
      }
      steps_.assign(steps.begin(), steps.begin() + a.step + 1);
      steps_.back().added_max = false;
      steps_.back().wstamp = kNoStamp;
      index_graph(gm);
      backward_revisits(wi);
    }
  }
  static std::uint64_t key_of_in(const ExecGraph& g, std::uint32_t e) {
    return graph_key(g.events[e].thread, g.events[e].n);
  }

  // ---- backward revisits of the reads the new write w may feed ----
  bool in_gw(std::uint32_t e, std::uint64_t limit) const { return estamp_[e] != kNoStamp && estamp_[e] <= limit; }

  void backward_revisits(std::uint32_t w) {
    const std::vector<GraphEvent>& ev = events();
    const GraphEvent& wg = ev[w];
    const std::uint64_t wlimit = estamp_[w];
    const std::uint32_t* wclock = &clocks_[w * nthreads_];
    const std::vector<std::uint32_t>& mo = graph_->mo[wg.var];
    // mo restricted to the graph w was added to.
    std::vector<std::uint32_t>& co = co_;
    co.clear();
    for (std::uint32_t x : mo)
      if (x == kNone || in_gw(x, wlimit)) co.push_back(x);
    const std::size_t wpos = std::find(co.begin(), co.end(), w) - co.begin();
    // Steps in w's porf-prefix: per thread, up to the last step holding a prefix event.
    std::vector<std::uint8_t>& prefix = prefix_;
    prefix.assign(steps_.size(), 0);
    for (std::size_t t = 0; t < nthreads_; ++t) {
      const std::vector<std::uint32_t>& ts = thread_steps_[t];
      std::size_t last = 0;
      bool any = false;
      for (std::size_t i = 0; i < ts.size(); ++i) {
        const std::uint32_t f = step_first_[ts[i]];
        if (f != kNone && in_porf(f, wclock)) last = i, any = true;
      }
      if (any)
        for (std::size_t i = 0; i <= last; ++i) prefix[ts[i]] = 1;
    }
    std::vector<std::uint8_t>& kept = kept_;
    kept.resize(steps_.size());
    for (std::uint32_t r = 0; r < ev.size(); ++r) {
      const GraphEvent& rg = ev[r];
      if (rg.kind != GraphEvent::Kind::read || rg.plain || rg.var != wg.var || !in_gw(r, wlimit)) continue;
      const std::uint32_t rs = rg.step;
      if (rs == kNone || rs == wg.step || in_porf(r, wclock)) continue;
      if (!steps_[rs].revisitable || !steps_[rs].added_max || step_first_[rs] != r) continue;
      const std::uint64_t rstamp = steps_[rs].stamp;
      for (std::uint32_t s = 0; s < steps_.size(); ++s)
        kept[s] = s == rs || prefix[s] || steps_[s].stamp < rstamp;
      auto is_kept = [&](std::uint32_t e) {
        if (e == kNone) return true;  // the initial write
        const std::uint32_t s = ev[e].step;
        if (s == kNone) return true;  // forced events follow the steps they depend on
        return kept[s] && !(s == rs && e != r);  // r's RMW write half is re-added
      };
      if (!maximal(r, w, co, wpos, wlimit, is_kept)) continue;
      if (!po_coherent(r, w)) continue;  // the replay would only find it out at r
      if (!rmw_atomic(r, w, wlimit, is_kept)) continue;
      push_backward(r, w, co, kept);
    }
  }

  // Coherence along po alone (po is in hb): r may not read w if an access of its thread
  // before it wrote, or read, a write mo-after w. Inconsistent revisits that need sw to
  // show it are refused by the memory model when the replay reaches r.
  bool po_coherent(std::uint32_t r, std::uint32_t w) const {
    const std::vector<GraphEvent>& ev = events();
    const std::uint32_t wpos = ev[w].mo_pos;
    const std::vector<std::uint32_t>& mine = by_thread_[ev[r].thread];
    for (std::uint32_t n = 1; n < ev[r].n; ++n) {
      const GraphEvent& e = ev[mine[n - 1]];
      if (e.var != ev[w].var || e.plain) continue;
      const std::uint32_t x = e.kind == GraphEvent::Kind::write ? mine[n - 1]
                              : e.kind == GraphEvent::Kind::read ? e.rf
                                                                 : kNone;
      if (e.kind != GraphEvent::Kind::write && e.kind != GraphEvent::Kind::read) continue;
      if (x != kNone && x != w && ev[x].mo_pos > wpos) return false;
    }
    return true;
  }

  // Atomicity (no two RMWs read one write), which the replay finds out only at the step
  // that breaks it, a run GenMC never makes (isRevisitValid checks the graph first): two
  // kept RMWs that read one write (the graph of an atomicity-breaking option, whose revisits
  // are consistent only where they delete or revisit the other RMW), or r turned into an
  // RMW of a write a kept RMW reads.
  template <class Kept>
  bool rmw_atomic(std::uint32_t r, std::uint32_t w, std::uint64_t wlimit, const Kept& is_kept) {
    const std::vector<GraphEvent>& ev = events();
    std::vector<std::uint64_t>& read = rmw_read_;
    read.clear();
    for (std::uint32_t e = 0; e + 1 < ev.size(); ++e)
      if (e != r && ev[e].kind == GraphEvent::Kind::read && ev[e + 1].rmw_write && in_gw(e, wlimit) && is_kept(e))
        read.push_back(std::uint64_t{ev[e].var} << 32 | ev[e].rf);  // rf ~0u: the variable's initial write
    std::sort(read.begin(), read.end());
    if (std::adjacent_find(read.begin(), read.end()) != read.end()) return false;
    const GraphEvent& rg = ev[r];
    const bool writes = rg.rmw == GraphEvent::Rmw::always || (rg.rmw == GraphEvent::Rmw::cas && ev[w].value == rg.value);
    return !writes || !std::binary_search(read.begin(), read.end(), std::uint64_t{rg.var} << 32 | w);
  }

  template <class Kept>
  bool maximal(std::uint32_t r, std::uint32_t w, const std::vector<std::uint32_t>& co, std::size_t wpos,
               std::uint64_t wlimit, const Kept& is_kept) const {
    const std::vector<GraphEvent>& ev = events();
    // w's mo-successor stays (GenMC's coherenceSuccRemainInGraph), unless w is an RMW's.
    if (!ev[w].rmw_write && wpos + 1 < co.size() && !is_kept(co[wpos + 1])) return false;
    auto co_after_kept = [&](std::uint32_t var, std::uint32_t x) {
      const std::vector<std::uint32_t>& order = graph_->mo[var];
      std::size_t p = x == kNone ? 0 : ev[x].mo_pos;
      for (std::size_t i = p + 1; i < order.size(); ++i) {
        const std::uint32_t y = order[i];
        if (y != w && in_gw(y, wlimit) && is_kept(y)) return true;
      }
      return false;
    };
    for (std::uint32_t e = 0; e < ev.size(); ++e) {
      if (!in_gw(e, wlimit) || (e != r && is_kept(e))) continue;
      const GraphEvent& g = ev[e];
      if (g.kind != GraphEvent::Kind::read && g.kind != GraphEvent::Kind::write) continue;
      if (g.plain) continue;
      const PlanStep& st = steps_[g.step];
      if (!g.rmw_write && !st.added_max) return false;
      if (g.kind == GraphEvent::Kind::read) {
        if (co_after_kept(g.var, g.rf)) return false;
        if (g.rf != kNone && !is_kept(g.rf) && estamp_[g.rf] > estamp_[e]) return false;
      } else if (co_after_kept(g.var, e)) {
        return false;
      }
    }
    return true;
  }

  void push_backward(std::uint32_t r, std::uint32_t w, const std::vector<std::uint32_t>& co,
                     const std::vector<std::uint8_t>& kept) {
    const std::uint32_t rs = events()[r].step;
    // A lock revisited by an acquire's write would read "held", a confirming compare-exchange
    // revisited by a write of another value would fail: it is dropped, and its thread waits
    // in the replay until the lock is free or the compare-exchange can succeed.
    const GraphEvent& rg = events()[r];
    const bool waits = (rg.lock && events()[w].rmw_write) || (rg.confirming && events()[w].value != rg.value);
    std::vector<std::uint32_t>& order = order_;
    order.clear();
    for (std::uint32_t s = 0; s < steps_.size(); ++s)
      if (kept[s] && s != rs) order.push_back(s);
    // The run's own order respects po and rf (stamps do not: a revisited read keeps its
    // stamp, older than its write's); r goes last, as nothing kept depends on it.
    order.push_back(rs);
    std::vector<std::uint32_t>& rank = rank_;
    rank.assign(steps_.size(), kNone);
    for (std::uint32_t i = 0; i < order.size(); ++i) rank[order[i]] = i;
    const std::uint32_t* wclock = &clocks_[w * nthreads_];
    Item item;
    item.backward = true;
    item.waits = waits;
    item.plan.reserve(order.size());
    for (std::uint32_t s : order) {
      PlanStep p = steps_[s];
      p.key = step_key(s, rank.data());
      const std::uint32_t f = step_first_[s];
      if (f != kNone && in_porf(f, wclock)) p.revisitable = false;
      item.plan.push_back(p);
    }
    if (waits) {
      item.plan.pop_back();
      stack_.push_back(std::move(item));
      return;
    }
    PlanStep& last = item.plan.back();
    last.key = key_of(w);
    last.wstamp = kNoStamp;
    // r read the mo-latest write of the graph the revisit keeps?
    std::uint32_t latest = kNone;
    for (std::uint32_t x : co)
      if (x == kNone || x == w || (step_of(x) != kNone && kept[step_of(x)] && step_of(x) != rs)) latest = x;
    last.added_max = latest == w;
    stack_.push_back(std::move(item));
  }

  bool started_ = false;
  bool first_ = false;
  bool cut_ = false;
  bool backward_ = false;
  bool waits_ = false;
  std::string error_;
  Plan plan_;
  std::vector<Item> stack_;
  std::vector<Alternative> alternatives_;
  std::uint64_t next_stamp_ = 1;
  int reached_ = 0;  // unit_reached()
  std::size_t live_units_ = 0;  // carved and not joined
  // The indexed graph of the run just ended.
  const ExecGraph* graph_ = nullptr;
  ExecGraph moot_graph_;  // moot_revisits()' graph, and the run's steps it starts from
  std::vector<PlanStep> moot_steps_;
  std::vector<std::uint32_t> moot_first_;
  std::vector<std::uint32_t> co_, order_, rank_;  // backward_revisits' and push_backward's scratch
  std::vector<std::uint8_t> prefix_, kept_;
  std::vector<std::uint64_t> rmw_read_;  // rmw_atomic's scratch
  std::vector<PlanStep> steps_;
  std::vector<std::uint32_t> step_first_;
  std::vector<std::uint64_t> estamp_;
  std::vector<std::vector<std::uint32_t>> by_thread_, thread_steps_;
  std::vector<std::uint32_t> clocks_;
  std::size_t nthreads_ = 0;
};

}  // namespace

std::unique_ptr<Strategy> make_trust_strategy() { return std::make_unique<TrustStrategy>(); }
void trust_moots_every_block(bool on) { g_moot_every_block = on; }

}  // namespace atomcheck
