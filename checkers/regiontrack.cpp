// RegionTrack, Algorithms 1-4 of regiontrack-tosem.txt, as written (see regiontrack.hpp
// for the one reading the pseudo-code needs). Where the project adds something the
// paper does not have, the comment says so:
//  - Unary transactions: an event outside every atomic block is begin + event + end, as
//    §4.2 says ("create a unary transaction for it, handle the event, and then exit"),
//    so it gets its own timestamp; consecutive unary events are never merged (DESIGN.md).
//  - fork/join (DESIGN.md "Conflicts for the SC checkers"): fork(u) in thread t records
//    the forking subregion like a release records L(m); the first event of u then calls
//    the same join(V(fork), C(u)) as acq does for rel -> acq, after u's begin, so the
//    fork's transaction becomes a source and u's first transaction its sink. join(u) in
//    thread t calls join(V(last event of u), C(t)): every event of u reaches it through
//    u's program order, so the last one carries them all.
//  - rmw is r(t, x) followed by w(t, x) at the same event index; fence conflicts only
//    within its thread, so it is an event of its transaction and nothing else; commit
//    (absent from SC traces) is treated as a write of its thread's current transaction.
//  - A transaction still open at the end needs nothing: the checks are all made at the
//    joins, so it is judged as ended there and the verdict says so.
#include "checkers/regiontrack.hpp"

#include <algorithm>
#include <cstring>

namespace atomcheck {

RegionTrack::RegionTrack(const CheckerOptions& options, const RegionTrackConfig& config)
    : options_(options), config_(config) {
  reset();
}

void RegionTrack::reset() {
  nesting_.reset();
  next_index_ = 0;
  nthreads_ = nvars_ = nlocks_ = 0;
  std::fill(vt_.begin(), vt_.end(), 0);
  std::fill(tv_.begin(), tv_.end(), 0);
  cur_.clear();
  txn_ts_.clear();
  txn_first_.clear();
  txn_blamed_.clear();
  started_.clear();
  last_event_.clear();
  fork_.clear();
  writes_.clear();
  reads_.clear();
  nreads_.clear();
  locks_.clear();
  // Every pool slot becomes free again; the memory stays.
  std::size_t slots = dim_ == 0 ? 0 : pool_.size() / dim_;
  refs_.assign(slots, 0);
  free_.clear();
  for (std::size_t s = slots; s-- > 0;) free_.push_back(static_cast<std::uint32_t>(s));
  set_top_ = 0;
  // Field by field, so the blame and cycle vectors keep their capacity.
  verdict_.blamed.clear();
  verdict_.cycle.clear();
  verdict_.serializable = true;
  verdict_.detected_at = kNoEvent;
  verdict_.open_at_end = false;
  verdict_.note.clear();
  verdict_.checker.assign(config_.name);
  verdict_.answers_serializability = config_.tvc;
  verdict_.answers_blame = true;
}

// --- layout -------------------------------------------------------------------------

void RegionTrack::grow_dim(std::size_t need) {
  std::size_t nd = std::max<std::size_t>({need, dim_ * 2, 4});
  // Rows keep their content at the new stride; vt_ and tv_ also gain rows.
  auto restride = [&](std::vector<Clock>& v, std::size_t old_rows, std::size_t rows) {
    std::vector<Clock> out(rows * nd, 0);
    for (std::size_t r = 0; r < old_rows; ++r)
      std::memcpy(&out[r * nd], &v[r * dim_], dim_ * sizeof(Clock));
    v.swap(out);
  };
  restride(vt_, dim_, nd);
  restride(tv_, dim_, nd);
  std::size_t slots = dim_ == 0 ? 0 : pool_.size() / dim_;
  restride(pool_, slots, slots);
  std::vector<Access> r(nvars_ * nd);
  for (std::size_t x = 0; x < nvars_; ++x)
    for (std::size_t t = 0; t < dim_; ++t) r[x * nd + t] = reads_[x * dim_ + t];
  reads_.swap(r);
  dim_ = nd;
  set_words_ = (dim_ + 63) / 64;
}

void RegionTrack::ensure_thread(ThreadId t) {
  if (t >= dim_) grow_dim(static_cast<std::size_t>(t) + 1);
  if (t < nthreads_) return;
  std::size_t n = static_cast<std::size_t>(t) + 1;
  cur_.resize(n, kNone);
  txn_ts_.resize(n, 0);
  txn_first_.resize(n, kNoEvent);
  txn_blamed_.resize(n, 0);
  started_.resize(n, 0);
  last_event_.resize(n, kNoEvent);
  fork_.resize(n);
  nthreads_ = n;
}

void RegionTrack::ensure_var(VarId x) {
  if (x < nvars_) return;
  std::size_t n = static_cast<std::size_t>(x) + 1;
  writes_.resize(n);
  nreads_.resize(n, 0);
  reads_.resize(n * dim_);
  nvars_ = n;
}

void RegionTrack::ensure_lock(LockId m) {
  if (m < nlocks_) return;
  nlocks_ = static_cast<std::size_t>(m) + 1;
  locks_.resize(nlocks_);
}

// --- pool -----------------------------------------------------------------------------

std::uint32_t RegionTrack::new_snapshot_of(ThreadId t) {
  std::uint32_t s;
  if (!free_.empty()) {
    s = free_.back();
    free_.pop_back();
  } else {
    s = static_cast<std::uint32_t>(refs_.size());
    refs_.push_back(0);
    pool_.resize(pool_.size() + dim_);
  }
  std::memcpy(snap(s), vt(t), dim_ * sizeof(Clock));
  refs_[s] = 1;
  return s;
}

void RegionTrack::unref(std::uint32_t s) {
  if (s != kNone && --refs_[s] == 0) free_.push_back(s);
}

// The event's VC is C(t).currVC (Alg. 1 lines 15, 26, 38).
void RegionTrack::set_access(Access& a, ThreadId t, EventIndex i) {
  std::uint32_t s = cur_[t];
  ref(s);
  unref(a.snap);
  a.snap = s;
  a.thread = t;
  a.event = i;
  a.txn_first = txn_first_[t];
}

void RegionTrack::clear_access(Access& a) {
  unref(a.snap);
  a.snap = kNone;
}

// Witnesses name the e_x of a join (a recorded access, fork, or a thread's last event),
// the current event and transactions' first events: nothing else of the past.
bool RegionTrack::live_events(LiveEvents& out) const {
  auto add = [&](EventIndex i) {
    if (i != kNoEvent) out.events.push_back(i);
  };
  auto add_access = [&](const Access& a) {
    if (a.snap == kNone) return;
    add(a.event);
    add(a.txn_first);
  };
  add(verdict_.detected_at);
  for (const CycleEdge& e : verdict_.cycle) {
    add(e.from.first);
    add(e.to.first);
    add(e.from_event);
    add(e.to_event);
  }
  for (const Blame& b : verdict_.blamed) {
    add(b.txn.first);
    add(b.interfering);
    add(b.at);
  }
  out.first_problem = verdict_.detected_at;
  if (!verdict_.blamed.empty() && verdict_.blamed.front().at < out.first_problem)
    out.first_problem = verdict_.blamed.front().at;
  for (std::size_t t = 0; t < nthreads_; ++t) {
    add(last_event_[t]);
    add(txn_first_[t]);
    add_access(fork_[t]);
  }
  for (std::size_t x = 0; x < nvars_; ++x) {
    add_access(writes_[x]);
    if (nreads_[x] == 0) continue;
    for (std::size_t t = 0; t < nthreads_; ++t) add_access(reads_[x * dim_ + t]);
  }
  for (std::size_t m = 0; m < nlocks_; ++m) add_access(locks_[m]);
  return true;
}

// --- Algorithm 1 ------------------------------------------------------------------------

// A unary transaction (an event outside every block) begins the same way: it needs its
// own timestamp, or a sink recorded in a TV as "the transaction with t's timestamp s"
// would also cover the block before it (and Alg. 4 line 9 would report serializable
// traces). It only keeps no V(C(t).begin) beyond the timestamp, as §4.2 says.
void RegionTrack::begin_txn(ThreadId t, EventIndex i) {
  ++vt(t)[t];  // line 2
  unref(cur_[t]);
  cur_[t] = new_snapshot_of(t);  // lines 3-5: V(C(t).begin) is the first shadow state
  txn_ts_[t] = vt(t)[t];
  txn_first_[t] = i;
  txn_blamed_[t] = 0;
}

// Lines 40-44. Callers only call it after a join changed V(t), which is exactly when
// currVC != V(t) (currVC is a copy of V(t) after every event). A shadow state nobody
// else points to is overwritten in place rather than replaced.
void RegionTrack::sub_region(ThreadId t) {
  std::uint32_t s = cur_[t];
  if (refs_[s] == 1) {
    std::memcpy(snap(s), vt(t), dim_ * sizeof(Clock));
    return;
  }
  unref(s);
  cur_[t] = new_snapshot_of(t);
}

void RegionTrack::on_read(ThreadId t, VarId x, EventIndex i) {
  Access& w = writes_[x];
  Access& r = rd(x, t);
  if (w.snap != kNone && w.thread != t && r.snap == kNone) {  // line 11
    if (join(w, t, i)) sub_region(t);                          // lines 12-13
  }
  if (r.snap == kNone) ++nreads_[x];
  set_access(r, t, i);  // line 15
}

void RegionTrack::on_write(ThreadId t, VarId x, EventIndex i) {
  Access& w = writes_[x];
  bool changed = false;
  if (nreads_[x] > 0) {  // line 18
    for (ThreadId u = 0; u < nthreads_; ++u) {
      if (u == t) continue;
      const Access& r = rd(x, u);
      if (r.snap != kNone) changed |= join(r, t, i);  // line 20
    }
  } else if (w.snap != kNone && w.thread != t) {
    changed |= join(w, t, i);  // line 23
  }
  if (changed) sub_region(t);  // line 25
  set_access(w, t, i);         // line 26
  if (nreads_[x] > 0) {        // lines 27-29
    for (ThreadId u = 0; u < nthreads_; ++u) clear_access(rd(x, u));
    nreads_[x] = 0;
  }
}

void RegionTrack::on_acquire(ThreadId t, LockId m, EventIndex i) {
  const Access& l = locks_[m];
  if (l.snap != kNone && l.thread != t) {  // line 32
    if (join(l, t, i)) sub_region(t);
  }
}

void RegionTrack::on_release(ThreadId t, LockId m, EventIndex i) { set_access(locks_[m], t, i); }

void RegionTrack::apply_pending_fork(ThreadId u, EventIndex i) {
  Access& f = fork_[u];
  if (f.snap == kNone) return;
  if (join(f, u, i)) sub_region(u);
  clear_access(f);
}

void RegionTrack::on_event(const Event& e) {
  const EventIndex i = next_index_++;
  const ThreadId t = e.thread;
  ensure_thread(t);
  if (is_thread_op(e.op) && e.target != kNoId) ensure_thread(e.target);
  const bool first = !started_[t];
  started_[t] = 1;

  NestingTracker::Role role = nesting_.on_event(e);
  if (role == NestingTracker::Role::outer_begin || role == NestingTracker::Role::unary)
    begin_txn(t, i);
  // fork(u) -> first event of u, joined into u's (just begun) first transaction.
  if (first) apply_pending_fork(t, i);

  // An access or lock operation without a target (never produced by the trace readers)
  // is only an event of its transaction, rather than an index far out of range.
  const bool targetless = (is_access(e.op) || is_lock_op(e.op)) && e.target == kNoId;
  switch (targetless ? Op::fence : e.op) {
    case Op::read:
      ensure_var(e.target);
      on_read(t, e.target, i);
      break;
    case Op::write:
    case Op::commit:
      ensure_var(e.target);
      on_write(t, e.target, i);
      break;
    case Op::rmw:
      ensure_var(e.target);
      on_read(t, e.target, i);
      on_write(t, e.target, i);
      break;
    case Op::acquire:
      ensure_lock(e.target);
      on_acquire(t, e.target, i);
      break;
    case Op::release:
      ensure_lock(e.target);
      on_release(t, e.target, i);
      break;
    case Op::fork:
      if (e.target != kNoId && e.target != t && !started_[e.target]) set_access(fork_[e.target], t, i);
      break;
    case Op::join:
      if (e.target != kNoId && e.target != t && started_[e.target]) {
        const ThreadId u = e.target;
        Access last;
        last.snap = cur_[u];
        last.thread = u;
        last.event = last_event_[u];
        last.txn_first = txn_first_[u];
        ref(last.snap);  // sub_region(t) must not recycle it while we read it
        if (join(last, t, i)) sub_region(t);
        unref(last.snap);
      }
      break;
    case Op::fence:
    case Op::begin:
    case Op::end:
      break;
  }
  last_event_[t] = i;
  // Lines 7-9 (end: C(t) = null) need no action: the next event of t starts a new
  // transaction, unary or not, before it touches anything.
}

// --- Algorithms 2 and 4 -------------------------------------------------------------------

bool RegionTrack::join(const Access& ex, ThreadId t, EventIndex i) {
  const Clock* a = snap(ex.snap);
  Clock* v = vt(t);
  bool changed = false;
  for (std::size_t k = 0; k < nthreads_; ++k) {  // line 46 / Alg. 4 line 2
    if (a[k] > v[k]) {
      v[k] = a[k];
      changed = true;
    }
  }
  // Alg. 4 line 3. Once the trace is known non-serializable the TVCs have answered
  // their question (blame never reads them), so they are no longer kept up to date.
  if (config_.tvc && verdict_.serializable) update_tvc(ex, t);
  check_hb(ex, t, i);
  return changed;
}

void RegionTrack::check_hb(const Access& ex, ThreadId t, EventIndex i) {
  const Clock* a = snap(ex.snap);
  if (txn_ts_[t] <= a[t]) {  // Alg. 2 line 50 / Alg. 4 line 7: C(t).begin -> e_x
    if (!txn_blamed_[t]) {
      txn_blamed_[t] = 1;
      verdict_.blamed.push_back(Blame{TxnRef{t, txn_first_[t]}, ex.event, i});
    }
    // An increasing cycle: the trace is not serializable either (Case 1 of Fig. 4).
    if (config_.tvc) report_nonserializable(ex, t, i);
  } else if (config_.tvc && verdict_.serializable) {
    const Clock* tvt = tv(t);
    if (tvt[t] == txn_ts_[t] && tv_le(tvt[ex.thread], a[ex.thread]))  // Alg. 4 line 9
      report_nonserializable(ex, t, i);
  }
}

// The witness names the two transactions of the Theorem-1 cycle: Trans(e_x) -> C(t) by
// the conflict e_x -> e_m just captured, and C(t) ~> Trans(e_x) transitively (the
// transactional vector clock knows it exists, not through which events: kNoEvent).
void RegionTrack::report_nonserializable(const Access& ex, ThreadId t, EventIndex i) {
  if (!verdict_.serializable) return;
  verdict_.serializable = false;
  verdict_.detected_at = i;
  TxnRef self{t, txn_first_[t]};
  TxnRef other{ex.thread, ex.txn_first};
  verdict_.cycle.push_back(CycleEdge{other, self, ex.event, i});
  verdict_.cycle.push_back(CycleEdge{self, other, kNoEvent, kNoEvent});
}

// --- Algorithm 3 -----------------------------------------------------------------------

void RegionTrack::update_tvc(const Access& ex, ThreadId t) {
  const ThreadId s = ex.thread;
  const Clock source = snap(ex.snap)[s];  // line 2
  const Clock sink = vt(t)[t];            // line 3
  Clock* tvs = tv(s);
  const std::size_t base = set_top_;
  if (tvs[s] == source) {  // line 4
    // As printed, line 5 lacks the "or TV = 0" of lines 21 and 34, so a second sink
    // thread of the same source transaction is never recorded; the fix adds it.
    if (tvs[t] > sink || (config_.fix_line5 && tvs[t] == 0)) tvs[t] = sink;
    std::size_t all = push_all();
    forward_propagate(all, s, t);  // line 8
  } else if (tvs[s] < source) {  // line 9
    std::fill(tvs, tvs + dim_, 0);
    tvs[s] = source;
    tvs[t] = sink;
    std::size_t all = push_all();
    forward_propagate(all, s, t);  // line 13
  }
  pop_to(base);
  std::size_t all = push_all();
  back_propagate(all, s, t, source, sink);  // line 15
  pop_to(base);
}

std::size_t RegionTrack::back_propagate(std::size_t tid, ThreadId t1, ThreadId t2, Clock source,
                                        Clock sink) {
  std::size_t tid1 = push_copy(tid);  // line 18
  set_erase(tid1, t1);
  set_erase(tid1, t2);
  // Line 19 iterates Tid1 while line 25 shrinks it: a thread dropped by a nested call is
  // not visited again (depth-first, each thread once, as §4.4's complexity argument says).
  for (ThreadId tp = 0; tp < nthreads_; ++tp) {
    if (!set_has(tid1, tp)) continue;
    Clock* tvp = tv(tp);
    if (tv_le(tvp[t1], source)) {               // line 20
      if (tvp[t2] > sink || tvp[t2] == 0) tvp[t2] = sink;  // lines 21-22
      std::size_t mark = set_top_;
      forward_propagate(tid, tp, t1);  // line 24 (result unused, as written)
      pop_to(mark);
      std::size_t r = back_propagate(tid1, tp, t2, tvp[tp], sink);  // line 25
      set_copy(tid1, r);
      pop_to(mark);
    }
  }
  return tid1;
}

std::size_t RegionTrack::forward_propagate(std::size_t tid, ThreadId t1, ThreadId t2) {
  std::size_t tid2 = push_copy(tid);  // line 31
  set_erase(tid2, t1);
  set_erase(tid2, t2);
  Clock* a = tv(t1);
  const Clock* b = tv(t2);
  if (tv_le(a[t2], b[t2])) {  // line 32
    for (ThreadId tp = 0; tp < nthreads_; ++tp) {
      if (tp == t1) continue;
      // line 34: "TV(t1)[t'] > TV(t2)[t'] or (TV(t1)[t'] = 0 and TV(t2)[t'] > 0)"
      // As printed, a recorded TV(t1)[t'] > 0 = TV(t2)[t'] is overwritten by 0, which
      // forgets a relation: the fixed variant never copies a 0 ("none").
      bool take = config_.fix_line34 ? (b[tp] != 0 && (a[tp] == 0 || a[tp] > b[tp]))
                                     : (a[tp] > b[tp] || (a[tp] == 0 && b[tp] > 0));
      if (take) {
        a[tp] = b[tp];  // line 35
        if (set_has(tid2, tp)) {
          std::size_t mark = set_top_;
          std::size_t r = forward_propagate(tid2, t1, tp);  // line 37
          set_copy(tid2, r);
          pop_to(mark);
        }
      }
    }
  }
  return tid2;
}

// --- thread sets ---------------------------------------------------------------------------

std::size_t RegionTrack::push_all() {
  std::size_t off = set_top_;
  set_top_ += set_words_;
  if (set_arena_.size() < set_top_) set_arena_.resize(std::max(set_top_, set_arena_.size() * 2));
  for (std::size_t w = 0; w < set_words_; ++w) {
    std::size_t lo = w * 64;
    std::uint64_t bits = 0;
    if (nthreads_ >= lo + 64) bits = ~std::uint64_t{0};
    else if (nthreads_ > lo) bits = (std::uint64_t{1} << (nthreads_ - lo)) - 1;
    set_arena_[off + w] = bits;
  }
  return off;
}

std::size_t RegionTrack::push_copy(std::size_t from) {
  std::size_t off = set_top_;
  set_top_ += set_words_;
  if (set_arena_.size() < set_top_) set_arena_.resize(std::max(set_top_, set_arena_.size() * 2));
  set_copy(off, from);
  return off;
}

void RegionTrack::set_copy(std::size_t to, std::size_t from) {
  for (std::size_t w = 0; w < set_words_; ++w) set_arena_[to + w] = set_arena_[from + w];
}

// --- verdict ---------------------------------------------------------------------------------

Verdict RegionTrack::verdict() {
  Verdict v = verdict_;
  if (nesting_.any_open()) {
    v.open_at_end = true;
    v.note = "a transaction was still open at the end of the trace; judged as ended there";
  }
  (void)options_;
  return v;
}

}  // namespace atomcheck
