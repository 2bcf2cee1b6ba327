// The units of a parallel optimal search (class Units, explore_units.hpp): the threads
// that explore the branches explore() carves, and the same units explored by other
// processes (atomcheck-mpi), with serve(), their side of the protocol. Apart from the
// search (explore_search.cpp), which only carves, reaches and joins units, because they
// are a protocol of their own (threads, hand-over, messages).
#include "scheduler/explore/explore_units.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <limits>
#include <span>
#include <stdexcept>
#include <tuple>

#include <fmt/core.h>

#include "scheduler/runtime/crash_report.hpp"
#include "scheduler/explore/explore_samples.hpp"

namespace atomcheck::detail {

Units::Units(const Program& program, const ExploreOptions& options, bool tso, Equivalence eq, bool want_trace,
             detail::Cluster* cluster)
    : program_(program), options_(options), tso_(tso), eq_(eq), want_trace_(want_trace),
      cluster_(options.units_inline ? nullptr : cluster) {
  // More threads than cores only take cores from each other.
  const unsigned cores = std::max(2u, std::thread::hardware_concurrency());
  const unsigned n = options.units_inline ? 0 : std::min(options.jobs, cores) - 1;
  // Another rank explores `--jobs` units at once (serve()), as this one does. (Sending
  // each rank one unit ahead, to start as soon as one ends, was measured and lost:
  // readers-15 over 2 ranks took 16% longer, lastzero-12 twice as long. A unit queued
  // behind a running one cannot be taken back at once when the search reaches it.)
  if (cluster_)
    for (int r = 1; r < cluster_->size(); ++r)
      for (unsigned j = 0; j < std::max(options.jobs, 1u); ++j) remote_.push_back(RemoteSlot{r});
  const unsigned workers = n + static_cast<unsigned>(remote_.size());
  remote_idle_ = static_cast<unsigned>(remote_.size());
  max_carved_ = options.units_inline ? 2 * options.jobs : kCarvedPerThread * workers;
  bound_ = options.units_held_bytes ? options.units_held_bytes
                                    : (want_trace ? kHeldTracedPerThread : kHeldPerThread) * std::max(workers, 1u);
  idle_.store(workers);
  if (options.units_inline) {
    inline_exec_ = execution_for(options);
    inline_judges_ = std::make_unique<Judges>(options);
  }
  for (unsigned w = 0; w < n; ++w) threads_.emplace_back([this] { work(); });
}

Units::~Units() {
  if (cluster_) {
    end_remote();
    cluster_->search_cpu += detail::thread_cpu_seconds() - cpu_at_start_;
    cluster_->search_waited += cluster_->waited - waited_at_start_;
  }
  {
    std::lock_guard<std::mutex> lock(m_);
    stop_.store(true);
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void Units::give(Unit* u) {
  if (inline_exec_) {  // ExploreOptions::units_inline: the unit runs now, here
    u->most = std::min<std::uint64_t>(u->most, options_.units_inline);
    u->started = true;
    try {
      run(*u, *inline_exec_, *inline_judges_, inline_facts_);
    } catch (...) {
      u->thrown = std::current_exception();
    }
    u->done = true;
    return;
  }
  // Another process when no thread of this one is idle: a thread costs no message.
  if (remote_idle_ > 0 && idle_.load(std::memory_order_relaxed) == remote_idle_) {
    send_unit(*u);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(m_);
    queue_.push_back(u);
    queued_.store(queue_.size(), std::memory_order_relaxed);
  }
  work_cv_.notify_one();
}

void Units::cancel(Unit& u) {
  if (u.remote) {
    stop_remote(u);
    return;
  }
  std::lock_guard<std::mutex> lock(m_);
  if (u.started) {
    u.stop.store(true, std::memory_order_relaxed);
    return;
  }
  withdraw(u);
  u.started = true;  // reach() then finds it done, with no runs
  u.done.store(true, std::memory_order_relaxed);
}

bool Units::reach(Unit& u) {
  if (u.remote) {
    stop_remote(u);
    while (!u.done.load(std::memory_order_relaxed)) receive(true);
    return true;
  }
  std::unique_lock<std::mutex> lock(m_);
  if (!u.started) {
    withdraw(u);
    return false;
  }
  u.stop.store(true, std::memory_order_relaxed);
  done_cv_.wait(lock, [&] { return u.done.load(std::memory_order_relaxed); });
  return true;
}

void Units::wait_for(Unit& u, const std::function<int()>& carve_one, const std::function<bool()>& give_up) {
  if (!u.remote || remote_.size() < 2) return;
  while (!u.done.load(std::memory_order_relaxed) && !give_up()) {
    const int gave = carve_one();
    if (gave == 0) return;
    if (gave < 0) receive(true);
  }
}

void Units::report(ExploreResult::Parallel& p) const {
  p.most_held = most_held_.load(std::memory_order_relaxed);
  p.largest_run = largest_run_.load(std::memory_order_relaxed);
  p.held_stops = held_stops_.load(std::memory_order_relaxed);
  p.held_bound = bound_;
  p.remote_units = remote_units_;
  p.remote_executions = remote_executions_;
  p.replayed = replayed_;
  if (cluster_) {
    p.messages = cluster_->messages - messages_before_;
    p.bytes = cluster_->bytes - bytes_before_;
  }
}

void Units::recycle(Unit& u) {
  std::lock_guard<std::mutex> lock(m_);
  for (auto& c : u.chunks) spare_.push_back(std::move(c));
  u.chunks.clear();
  // (A unit another process explored was loaded here: nothing to hand back.)
  if (!inline_exec_ && u.strategy && !u.remote && !threads_.empty()) graveyard_.push_back(std::move(u.strategy));
  else u.strategy.reset();
}

void Units::withdraw(Unit& u) {  // under m_
  queue_.erase(std::find(queue_.begin(), queue_.end(), &u));
  queued_.store(queue_.size(), std::memory_order_relaxed);
}

void Units::send_unit(Unit& u) {
  RemoteSlot* s = nullptr;
  for (RemoteSlot& r : remote_)
    if (!r.unit) s = &r;
  words_.assign({cluster_->serial, ++next_id_, u.most});
  if (!u.strategy->save_unit(words_)) throw std::logic_error("a unit that cannot travel");
  cluster_->send(s->rank, detail::ClusterTag::unit, words_);
  {
    std::lock_guard<std::mutex> lock(m_);
    u.started = true;
  }
  u.remote = true;
  *s = RemoteSlot{s->rank, &u, next_id_, false};
  --remote_idle_;
  idle_.fetch_sub(1);
  ++remote_units_;
}

void Units::stop_remote(Unit& u) {
  for (RemoteSlot& r : remote_)
    if (r.unit == &u && !r.stop_sent) {
      r.stop_sent = true;
      const std::uint64_t w[] = {cluster_->serial, r.id};
      cluster_->send(r.rank, detail::ClusterTag::stop, w);
    }
}

// One message, if one came (or, with `wait`, once one comes); false if none came.
bool Units::receive(bool wait) {
  int from = 0;
  detail::ClusterTag tag{};
  if (!cluster_->receive(from, tag, msg_, wait)) return false;
  // A message of an earlier search, or of a unit already ended, is dropped.
  if (msg_.size() < 2 || msg_[0] != cluster_->serial) return true;
  RemoteSlot* s = nullptr;
  for (RemoteSlot& r : remote_)
    if (r.rank == from && r.unit && r.id == msg_[1]) s = &r;
  if (!s) return true;
  Unit& u = *s->unit;
  detail::WordReader in{msg_};
  in.at = 2;
  if (tag == detail::ClusterTag::runs) {
    while (in.left() > 0)
      if (!take_run(u, in)) {
        u.thrown = std::make_exception_ptr(std::runtime_error(fmt::format("rank {} sent a damaged run", from)));
        break;
      }
  } else if (tag == detail::ClusterTag::done) {
    take_end(u, in, from);
    s->unit = nullptr;
    ++remote_idle_;
    idle_.fetch_add(1);
    u.done.store(true, std::memory_order_relaxed);
  }
  return true;
}

// Appends the run `in` holds to u's runs: false when the words are not a run.
bool Units::take_run(Unit& u, detail::WordReader& in) {
  std::uint64_t head = 0, ch = 0, rf = 0, steps = 0, events = 0;
  if (!in.word(head) || !in.word(ch) || !in.word(rf) || !in.word(steps) || !in.word(events) ||
      (head & 0xff) > static_cast<std::uint64_t>(detail::EndKind::redundant))
    return false;
  if (u.count == u.chunks.size() * Unit::kChunk) u.chunks.push_back(chunk());
  UnitRun& run = u.run(u.count++);
  run.end = static_cast<detail::EndKind>(head & 0xff);
  run.redundant = (head >> 8) & 1;
  run.full = false;
  run.class_hash = ch;
  run.rf_co_hash = rf;
  run.steps = steps;
  run.events = events;
  ++remote_executions_;
  const bool again = (head >> 9) & 1, error = (head >> 10) & 1, has_outcome = (head >> 11) & 1;
  const bool judged = (head >> 12) & 1, flagged = (head >> 13) & 1;
  // A rank numbers a unit's outcomes in the order it first sent them, and the compact
  // runs here meet them in that order too, so u.outcomes is a prefix of sent_outcomes:
  // an outcome already there is its index, with no copy of its names.
  std::uint64_t known = std::numeric_limits<std::uint64_t>::max();
  facts_.outcome.clear();
  if (has_outcome) {
    std::uint64_t k = 0;
    if (!in.word(k) || k > u.sent_outcomes.size()) return false;
    if (k < u.outcomes.size()) {
      known = k;
    } else if (k < u.sent_outcomes.size()) {
      facts_.outcome = u.sent_outcomes[k];
    } else {
      std::uint64_t n = 0;
      if (!in.word(n) || n > in.left()) return false;
      facts_.outcome.resize(n);
      for (auto& [name, value] : facts_.outcome) {
        std::uint64_t v = 0;
        if (!in.text(name) || !in.word(v)) return false;
        value = static_cast<std::int64_t>(v);
      }
      if (u.sent_outcomes.size() < kOutcomesSent) u.sent_outcomes.push_back(facts_.outcome);
    }
  }
  facts_.verdicts.clear();
  if (judged) {
    std::uint64_t n = 0;
    if (!in.word(n) || n > in.left()) return false;
    facts_.verdicts.resize(n);
    for (Verdict& v : facts_.verdicts)
      if (!read_verdict(in, v)) return false;
  }
  if (again || error || flagged) {
    if (!in.transitions(choices_)) return false;
  }
  if (error) {
    if (!in.text(make_full(run).error)) return false;
  } else if (again) {
    run_again(u, run);
  } else if (known < u.outcomes.size() && !judged) {
    run.outcome = static_cast<std::uint32_t>(known);
    run.rest.reset();
  } else {
    // A run's words carry no failure or spin (those come again); a run judged there
    // carries its verdicts, and its schedule when one flags (compact() refuses both).
    facts_.end = run.end;
    if (known < u.outcomes.size()) facts_.outcome = u.outcomes[known];
    if (flagged) facts_.schedule = format_schedule(choices_);
    else facts_.schedule.clear();
    facts_.unmarked_spin.clear();
    if (!compact(u, run, facts_)) {
      RunFacts& f = make_full(run).facts;
      f = RunFacts{};
      f.end = run.end;
      f.class_hash = ch;
      f.rf_co_hash = rf;
      f.steps = steps;
      f.events = events;
      f.outcome = facts_.outcome;
      std::swap(f.verdicts, facts_.verdicts);
      std::swap(f.schedule, facts_.schedule);
    } else {
      run.rest.reset();
    }
  }
  if (hold(u, run)) stop_remote(u);
  return true;
}

// Runs choices_ here, for the facts its words do not carry.
void Units::run_again(Unit& u, UnitRun& run) {
  const detail::EndKind end = replay_choices();
  ++replayed_;
  UnitRunRest& rest = make_full(run);
  const History& h = replay_exec_->history();
  if (end != run.end) {
    rest.error = fmt::format(
        "the program is not deterministic: an execution another process ran ended differently when run "
        "again (schedule {})",
        format_schedule(choices_));
    return;
  }
  if (h.spins) rest.spin_wait = wait_text(h);
  collect(facts_, end, *replay_exec_, *replay_judges_, options_, tso_, eq_, want_trace_, true);
  std::swap(rest.facts, facts_);
  if (want_trace_) {
    replay_exec_->materialize_names();
    if (!rest.trace) rest.trace = std::make_unique<Trace>();
    *rest.trace = replay_exec_->trace();
    if (replay_judges_->prepare) replay_judges_->prepare(view_of(rest.facts, end, *rest.trace, 0), rest.prepared);
  }
  (void)u;
}

detail::EndKind Units::replay_choices() {
  if (!replay_exec_) {
    replay_exec_ = execution_for(options_);
    replay_judges_ = std::make_unique<Judges>(options_);
  }
  const std::unique_ptr<Strategy> again = make_replay_strategy(format_schedule(choices_));
  again->begin_execution();
  return replay_exec_->run(program_, *again);
}

// The unit ended: whether it ran the whole branch, what it threw, its first and last
// executions (their records, for the determinism checks at its two ends) and its state.
void Units::take_end(Unit& u, detail::WordReader& in, int from) {
  std::uint64_t complete = 0, thrown = 0, first = 0, last = 0;
  std::string what;
  auto bad = [&] {
    u.thrown = std::make_exception_ptr(std::runtime_error(fmt::format("rank {} sent a damaged unit", from)));
  };
  if (!in.word(complete) || !in.word(thrown) || (thrown && !in.text(what))) return bad();
  if (!in.word(first) || (first && !read_record(in, u.first, u.first_events))) return bad();
  u.has_first = first != 0;
  if (!in.word(last) || (last && !read_record(in, u.last, u.last_events))) return bad();
  u.has_last = last != 0;
  if (!u.strategy->load_unit(in.in.subspan(in.at))) return bad();
  u.complete = complete != 0;
  if (thrown) u.thrown = std::make_exception_ptr(std::runtime_error(what));
}

// The search ended: each process drops its unit and says when nothing more will come.
void Units::end_remote() {
  const std::uint64_t w[] = {cluster_->serial};
  for (int r = 1; r < cluster_->size(); ++r) cluster_->send(r, detail::ClusterTag::end, w);
  int ended = 0;
  int from = 0;
  detail::ClusterTag tag{};
  while (ended < cluster_->size() - 1) {
    cluster_->receive(from, tag, msg_, true);
    if (tag == detail::ClusterTag::ended && !msg_.empty() && msg_[0] == cluster_->serial) ++ended;
  }
}

// Runs at most u.most of the unit's executions with the search's per-execution checks.
// `facts`: this thread's scratch, copied into a run only when it cannot be compact.
void Units::run(Unit& u, detail::Execution& x, Judges& judges, RunFacts& facts) {
  std::uint64_t blocked = 0;
  const Deadline deadline = options_.checker_options.deadline;
  for (;;) {
    if (u.stop.load(std::memory_order_relaxed) || stop_.load(std::memory_order_relaxed) ||
        u.count >= u.most || *deadline.expired())
      return;
    if (!u.strategy->begin_execution()) {
      u.complete = true;
      return;
    }
    const detail::EndKind end = x.run(program_, *u.strategy);
    if (u.count == u.chunks.size() * Unit::kChunk) u.chunks.push_back(chunk());
    UnitRun& run = u.run(u.count++);
    run.end = end;
    run.full = false;
    const History& h = x.history();
    std::string why = u.strategy->error();
    if (why.empty() && end != detail::EndKind::aborted) {
      if (u.has_last) {
        why = compare_with_previous(u.last, u.last_events, h, x.trace().events);
      } else {
        u.first = h;
        u.first_events = x.trace().events;
        u.has_first = true;
      }
    }
    if (h.spins || !why.empty()) {
      UnitRunRest& rest = make_full(run);
      if (h.spins) rest.spin_wait = wait_text(h);
      if (!why.empty()) {
        rest.error = std::move(why);
        hold(u, run);
        return;
      }
    }
    const std::uint64_t blocked_now = u.strategy->sleep_blocked();
    run.redundant = blocked_now != blocked;
    blocked = blocked_now;
    collect(facts, end, x, judges, options_, tso_, eq_, want_trace_, true);
    run.class_hash = facts.class_hash;
    run.rf_co_hash = facts.rf_co_hash;
    run.steps = facts.steps;
    run.events = facts.events;
    if (run.full || !compact(u, run, facts)) std::swap(make_full(run).facts, facts);
    else run.rest.reset();  // no memory held but what is counted
    if (want_trace_) {
      x.materialize_names();
      UnitRunRest& rest = *run.rest;  // full: compact() refuses a run the callback sees
      if (!rest.trace) rest.trace = std::make_unique<Trace>();
      *rest.trace = x.trace();
      if (judges.prepare) judges.prepare(view_of(rest.facts, end, *rest.trace, 0), rest.prepared);
    }
    if (end != detail::EndKind::aborted) {
      x.swap_record(u.last, u.last_events);
      u.has_last = true;
    }
    // Runs kept for the search are bounded: past the bound the unit stops, and the
    // search takes over what is left of the branch when it gets there.
    if (hold(u, run)) return;
    if (options_.stop_on_failure && failed_end(end)) return;
  }
}

// `run` keeps more than UnitRun's words (cleared for this run, capacity kept).
UnitRunRest& Units::make_full(UnitRun& run) {
  if (!run.full) {
    if (!run.rest) run.rest = std::make_unique<UnitRunRest>();
    run.rest->spin_wait.clear();
    run.rest->error.clear();
    run.rest->prepared.reset();
    run.full = true;
  }
  return *run.rest;
}

// Whether `f` fits in `run`'s words: nothing for a callback, no failure, no schedule,
// no verdict, and an outcome among the unit's first kOutcomes distinct ones.
bool Units::compact(Unit& u, UnitRun& run, const RunFacts& f) const {
  if (want_trace_ || failed_end(f.end) || !f.schedule.empty() || !f.unmarked_spin.empty() ||
      !f.verdicts.empty())
    return false;
  if (f.end != detail::EndKind::completed) return true;
  const auto it = std::find(u.outcomes.begin(), u.outcomes.end(), f.outcome);
  if (it == u.outcomes.end() && u.outcomes.size() == Unit::kOutcomes) return false;
  run.outcome = static_cast<std::uint32_t>(it - u.outcomes.begin());
  if (it == u.outcomes.end()) u.outcomes.push_back(f.outcome);
  return true;
}

// The bytes of a name table: its strings, their characters past the in-place buffer,
// and its hash map's nodes (a string, an id, a link, a cached hash) and buckets.
std::size_t Units::bytes_of(const NameTable& t) {
  std::size_t n = t.names.capacity() * sizeof(std::string) + t.ids.bucket_count() * sizeof(void*) +
                  t.ids.size() * (2 * sizeof(std::string) + 3 * sizeof(void*));
  for (const std::string& s : t.names) n += s.capacity() > 15 ? 2 * (s.capacity() + 1) : 0;
  return n;
}

// The bytes `run` holds: its words and the buffers that grow with the program (a
// verdict's details and the callback's prepared work, opaque here, are left out).
std::size_t Units::bytes_of(const UnitRun& run) {
  std::size_t n = sizeof(UnitRun);
  if (!run.full) return n;
  const UnitRunRest& r = *run.rest;
  const RunFacts& f = r.facts;
  n += sizeof(UnitRunRest) + f.failure.message.capacity() + f.failure.schedule.capacity() +
       f.outcome.capacity() * sizeof(Outcome::value_type) + f.verdicts.capacity() * sizeof(Verdict) +
       f.schedule.capacity() + f.unmarked_spin.capacity() + r.spin_wait.capacity() + r.error.capacity();
  if (r.trace) {
    const Names& m = r.trace->names;
    n += sizeof(Trace) + r.trace->events.capacity() * sizeof(Event) + bytes_of(m.threads) + bytes_of(m.vars) +
         bytes_of(m.locks) + bytes_of(m.labels) + bytes_of(m.locs);
  }
  return n;
}

// Counts `run` against the bound: true when the unit must stop.
bool Units::hold(Unit& u, const UnitRun& run) {
  const std::size_t cost = bytes_of(run);
  u.held += cost;
  const std::size_t now = held_.fetch_add(cost, std::memory_order_relaxed) + cost;
  for (std::size_t m = most_held_.load(std::memory_order_relaxed);
       now > m && !most_held_.compare_exchange_weak(m, now, std::memory_order_relaxed);) {
  }
  for (std::size_t m = largest_run_.load(std::memory_order_relaxed);
       cost > m && !largest_run_.compare_exchange_weak(m, cost, std::memory_order_relaxed);) {
  }
  if (now < bound_) return false;
  held_stops_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void Units::work() {
  // The checkers are made here, not by the search's thread: they are written at every
  // event, and made there they would sit in its malloc arena beside its own memory.
  // (The search made its own Judges from the same options first, so this cannot throw
  // for a bad checker name; if it throws all the same, this thread takes no units.)
  std::unique_ptr<Judges> made;
  try {
    made = std::make_unique<Judges>(options_);
  } catch (...) {
    idle_.fetch_sub(1);
    return;
  }
  Judges& judges = *made;
  RunFacts facts;
  detail::ensure_alt_stack();
  const std::unique_ptr<detail::Execution> own = execution_for(options_);
  detail::Execution& x = *own;
  for (;;) {
    Unit* u;
    std::vector<std::unique_ptr<Strategy>> dead;
    {
      spin_for_work();
      std::unique_lock<std::mutex> lock(m_);
      work_cv_.wait(lock, [&] { return stop_.load() || !queue_.empty(); });
      if (stop_.load()) return;
      dead.swap(graveyard_);
      u = queue_.front();
      queue_.pop_front();
      queued_.store(queue_.size(), std::memory_order_relaxed);
      u->started = true;
      idle_.fetch_sub(1);
    }
    dead.clear();
    try {
      run(*u, x, judges, facts);
    } catch (...) {
      u->thrown = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(m_);
      u->done.store(true, std::memory_order_relaxed);
      idle_.fetch_add(1);
    }
    done_cv_.notify_all();
  }
}

// Storage for Unit::kChunk more runs, recycled if some is.
std::unique_ptr<UnitRun[]> Units::chunk() {
  {
    std::lock_guard<std::mutex> lock(m_);
    if (!spare_.empty()) {
      auto c = std::move(spare_.back());
      spare_.pop_back();
      return c;
    }
  }
  return std::make_unique<UnitRun[]>(Unit::kChunk);
}

// Waits for a unit without sleeping, for a while: a futex wake-up took 30-300 us in
// this VM (its idle vCPU halted), a spinning thread sees the unit within a microsecond,
// and lastzero-12 has 10 to 30 such waits, some in stretches of several ms where the
// search has nothing to carve. Bounded, as OpenMP's spin-wait before it blocks
// (KMP_BLOCKTIME), so a search that has no more work to give does not hold the core.
void Units::spin_for_work() const {
  const auto until = std::chrono::steady_clock::now() + kSpinFor;
  for (unsigned i = 1; queued_.load(std::memory_order_relaxed) == 0 && !stop_.load(std::memory_order_relaxed); ++i) {
    pause();
    if (i % 256 == 0 && std::chrono::steady_clock::now() >= until) return;
  }
}

void Units::pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// ---- a process other than rank 0 (atomcheck-mpi) ---------------------------------------

namespace {

void serve_samples(const Program& program, const ExploreOptions& o, detail::Cluster& c,
                   const std::vector<std::uint64_t>& join) {
  c.serial = join[0];
  const double cpu_at_join = detail::thread_cpu_seconds(), waited_at_join = c.waited;
  detail::explore_split_samples(program, o, nullptr, &c);
  c.search_cpu += detail::thread_cpu_seconds() - cpu_at_join;
  c.search_waited += c.waited - waited_at_join;
}

// Explores the unit `msg` holds (serial, id, most, words) as a unit thread would
// (Units::run), sending its runs in batches and its state at the end. True when the
// search ended meanwhile (its `end` came).
bool serve_unit(const Program& program, const ExploreOptions& o, detail::Cluster& c, detail::Execution& x,
                const std::vector<std::uint64_t>& msg, bool tso, Equivalence eq, bool again_all, Judges* judges) {
  const std::uint64_t serial = msg[0], id = msg[1], most = msg[2];
  // Under rc11 the units are TruSt's (the only rc11 search that reaches here).
  auto st = graph_memory(o) ? make_trust_strategy() : make_optimal_strategy(eq, tso);
  std::string thrown;
  if (!st->load_unit(std::span<const std::uint64_t>(msg).subspan(3)))
    thrown = "a unit's words do not fit this process's search (do all ranks run the same build?)";
  std::vector<std::uint64_t> batch{serial, id}, in;
  std::size_t in_batch = 0;
  auto flush = [&] {
    if (in_batch == 0) return;
    c.send(0, detail::ClusterTag::runs, batch);
    batch.resize(2);
    in_batch = 0;
  };
  History first, last;
  std::vector<Event> first_events, last_events;
  std::vector<Outcome> outcomes;  // sent so far, by index (the search keeps the same list)
  bool has_first = false, has_last = false, complete = false, stopped = false, ended = false;
  std::uint64_t count = 0, blocked = st->sleep_blocked();
  int from = 0;
  detail::ClusterTag tag{};
  while (thrown.empty()) {
    while (count % kPollEvery == 0 && c.receive(from, tag, in, false)) {
      if (in.empty() || in[0] != serial) continue;
      if (tag == detail::ClusterTag::end) ended = stopped = true;
      if (tag == detail::ClusterTag::stop && in.size() >= 2 && in[1] == id) stopped = true;
    }
    if (stopped || count >= most) break;
    if (!st->begin_execution()) {
      complete = true;
      break;
    }
    detail::EndKind end{};
    try {
      end = x.run(program, *st);
    } catch (const std::exception& e) {
      thrown = e.what();
      break;
    } catch (...) {
      thrown = "an exception that is not a std::exception";
      break;
    }
    ++count;
    ++c.executions;
    const History& h = x.history();
    std::string why = st->error();
    if (why.empty() && end != detail::EndKind::aborted) {
      if (has_last) {
        why = compare_with_previous(last, last_events, h, x.trace().events);
      } else {
        has_first = true;
        first = h;
        first_events = x.trace().events;
      }
    }
    const std::uint64_t blocked_now = st->sleep_blocked();
    std::uint64_t head = static_cast<std::uint64_t>(end) | (blocked_now != blocked ? 1u << 8 : 0u);
    blocked = blocked_now;
    std::uint64_t ch = 0, rf = 0;
    if (why.empty() && o.count_classes && end != detail::EndKind::aborted) std::tie(ch, rf) = class_keys_of(x, tso, eq);
    const bool again = failed_end(end) || h.spins || !h.unmarked_spin.empty() || again_all;
    const bool outcome = !again && why.empty() && end == detail::EndKind::completed;
    head |= !why.empty() ? 1u << 10 : again ? 1u << 9 : outcome ? 1u << 11 : 0u;
    // The checkers judge here, as collect() would on rank 0; a flagging verdict brings
    // its run's choices, for the schedule the report names.
    const bool judged = judges && !again && why.empty();
    bool flagged = false;
    if (judged) {
      judges->judge(o, x, judged_end(end));
      flagged = std::any_of(judges->verdicts.begin(), judges->verdicts.end(),
                            [](const Verdict& v) { return v.flags(); });
      head |= (1u << 12) | (flagged ? 1u << 13 : 0u);
    }
    batch.insert(batch.end(), {head, ch, rf, x.steps(), x.trace().size()});
    if (outcome) {  // its index among the unit's outcomes, and the outcome the first time
      Outcome out = x.outcome();
      const auto it = std::find(outcomes.begin(), outcomes.end(), out);
      batch.push_back(static_cast<std::uint64_t>(it - outcomes.begin()));
      if (it == outcomes.end()) {
        batch.push_back(out.size());
        for (const auto& [name, value] : out) {
          detail::push_string(batch, name);
          batch.push_back(static_cast<std::uint64_t>(value));
        }
        if (outcomes.size() < kOutcomesSent) outcomes.push_back(std::move(out));
      }
    }
    if (judged) {
      batch.push_back(judges->verdicts.size());
      for (const Verdict& v : judges->verdicts) push_verdict(batch, v);
    }
    if (again || !why.empty() || flagged) detail::push_transitions(batch, x.choices());
    if (!why.empty()) detail::push_string(batch, why);
    ++in_batch;
    if (!why.empty()) break;
    if (end != detail::EndKind::aborted) {
      x.swap_record(last, last_events);
      has_last = true;
    }
    if (in_batch >= kRunsPerMessage) flush();
    if (o.stop_on_failure && failed_end(end)) break;
  }
  flush();
  std::vector<std::uint64_t> done{serial, id, complete ? 1u : 0u, thrown.empty() ? 0u : 1u};
  if (!thrown.empty()) detail::push_string(done, thrown);
  done.push_back(has_first ? 1u : 0u);
  if (has_first) push_record(done, first, first_events);
  done.push_back(has_last ? 1u : 0u);
  if (has_last) push_record(done, last, last_events);
  st->save_unit(done);
  c.send(0, detail::ClusterTag::done, done);
  return ended;
}

// Explores the units `c` brings, one at a time, until the search ends: a rank's one
// thread, or each of its `--jobs` threads through its Port (below).
void serve_units(const Program& program, const ExploreOptions& given, detail::Cluster& c, std::uint64_t serial,
                 bool tso, Equivalence eq, bool again_all, bool judge) {
  const ExploreOptions o = with_deadline(given, std::chrono::steady_clock::now());
  const std::unique_ptr<detail::Execution> x = execution_for(o);
  const std::unique_ptr<Judges> judges = judge && !again_all ? std::make_unique<Judges>(o) : nullptr;
  std::vector<std::uint64_t> msg;
  int from = 0;
  detail::ClusterTag tag{};
  for (bool ended = false; !ended;) {
    c.receive(from, tag, msg, true);
    if (tag == detail::ClusterTag::quit) c.leave();
    if (msg.empty() || msg[0] != serial) continue;
    if (tag == detail::ClusterTag::unit && msg.size() >= 3)
      ended = serve_unit(program, o, c, *x, msg, tso, eq, again_all, judges.get());
    else
      ended = tag == detail::ClusterTag::end;
  }
}

// A rank's units on `--jobs` threads, each exploring one unit at a time (serve_unit)
// through a Port: a Cluster whose messages this thread carries, the only one of the
// rank that calls MPI (MPI_THREAD_FUNNELED). A unit goes to the thread with the fewest
// in hand (rank 0 sends `--jobs` at most, so an idle one: a unit queued behind another
// could not be taken back when the search reaches it), a stop to the thread that holds
// its unit, `end` to every thread; the search's `ended` goes once all of them ended and
// what they sent has gone.
struct Ports {
  struct Message {
    int to;
    detail::ClusterTag tag;
    std::vector<std::uint64_t> words;
  };
  std::mutex m;
  std::deque<Message> out;  // to rank 0, from every thread
};

class Port final : public detail::Cluster {
 public:
  Port(const detail::Cluster& outer, Ports& ports) : outer_(outer), ports_(ports) {}
  int rank() const override { return outer_.rank(); }
  int size() const override { return outer_.size(); }
  void send(int to, detail::ClusterTag tag, std::span<const std::uint64_t> words) override {
    std::lock_guard<std::mutex> lock(ports_.m);
    ports_.out.push_back({to, tag, {words.begin(), words.end()}});
  }
  // Waiting (between units): the next message. Not waiting (serve_unit's polls): the
  // next `end` or stop of the unit running; the units held behind it, and their stops,
  // stay for their turn.
  bool receive(int& from, detail::ClusterTag& tag, std::vector<std::uint64_t>& words, bool wait) override {
    std::unique_lock<std::mutex> lock(ports_.m);
    if (wait) cv_.wait(lock, [&] { return !in_.empty(); });
    auto it = in_.begin();
    if (!wait)
      it = std::find_if(in_.begin(), in_.end(), [&](const Ports::Message& m) {
        return m.tag == detail::ClusterTag::end ||
               (m.tag == detail::ClusterTag::stop && m.words.size() >= 2 && m.words[1] == running);
      });
    if (it == in_.end()) return false;
    from = 0;
    tag = it->tag;
    words = std::move(it->words);
    in_.erase(it);
    if (tag == detail::ClusterTag::unit && words.size() >= 2) running = words[1];
    return true;
  }
  [[noreturn]] void leave() override { std::abort(); }  // the rank's own thread leaves, not a port
  void post(detail::ClusterTag tag, std::vector<std::uint64_t> words) {
    {
      std::lock_guard<std::mutex> lock(ports_.m);
      in_.push_back({0, tag, std::move(words)});
    }
    cv_.notify_one();
  }
  std::vector<std::uint64_t> units;  // the ids it holds, oldest first (the serving thread's)
  std::uint64_t running = 0;         // the id of the unit its thread explores (its thread's)
  double cpu = 0;                    // its thread's, over the search
  std::atomic<bool> ended{false};

 private:
  const detail::Cluster& outer_;
  Ports& ports_;
  std::condition_variable cv_;
  std::deque<Ports::Message> in_;  // under ports_.m
};

void serve_threads(const Program& program, const ExploreOptions& o, detail::Cluster& c, std::uint64_t serial,
                   bool tso, Equivalence eq, bool again_all, bool judge) {
  const unsigned n = std::max(1u, o.jobs);
  Ports ports;
  std::deque<Port> port;
  for (unsigned k = 0; k < n; ++k) port.emplace_back(c, ports);
  std::vector<std::thread> threads;
  for (unsigned k = 0; k < n; ++k)
    threads.emplace_back([&, k] {
      Port& p = port[k];
      detail::ensure_alt_stack();
      detail::set_cluster(&p);
      const double cpu_at_start = detail::thread_cpu_seconds();
      serve_units(program, o, p, serial, tso, eq, again_all, judge);
      p.cpu = detail::thread_cpu_seconds() - cpu_at_start;
      detail::set_cluster(nullptr);
      p.ended.store(true);
    });
  std::vector<std::uint64_t> msg;
  std::deque<Ports::Message> out;
  int from = 0;
  detail::ClusterTag tag{};
  for (bool end_sent = false;;) {
    {
      std::lock_guard<std::mutex> lock(ports.m);
      out.swap(ports.out);
    }
    for (const Ports::Message& m : out) {
      if (m.tag == detail::ClusterTag::done)
        for (Port& p : port) std::erase(p.units, m.words[1]);
      c.send(m.to, m.tag, m.words);
    }
    const bool forwarded = !out.empty();
    out.clear();
    if (end_sent && std::all_of(port.begin(), port.end(), [](const Port& p) { return p.ended.load(); })) {
      std::lock_guard<std::mutex> lock(ports.m);
      if (ports.out.empty()) break;
      continue;
    }
    if (!c.receive(from, tag, msg, false)) {
      if (!forwarded) std::this_thread::sleep_for(std::chrono::microseconds(50));
      continue;
    }
    if (tag == detail::ClusterTag::quit) c.leave();
    if (msg.empty() || msg[0] != serial) continue;
    if (tag == detail::ClusterTag::unit && msg.size() >= 3) {
      Port& p = *std::min_element(port.begin(), port.end(),
                                  [](const Port& a, const Port& b) { return a.units.size() < b.units.size(); });
      p.units.push_back(msg[1]);
      p.post(tag, std::move(msg));
    } else if (tag == detail::ClusterTag::stop && msg.size() >= 2) {
      for (Port& p : port)
        if (std::find(p.units.begin(), p.units.end(), msg[1]) != p.units.end()) p.post(tag, msg);
    } else if (tag == detail::ClusterTag::end) {
      for (Port& p : port) p.post(tag, msg);
      end_sent = true;
    }
  }
  for (std::thread& t : threads) t.join();
  for (const Port& p : port) {
    c.executions += p.executions;
    c.search_cpu += p.cpu;
  }
}

}  // namespace

[[noreturn]] void serve(const Program& program, const ExploreOptions& given, detail::Cluster& c) {
  detail::ensure_alt_stack();
  std::vector<std::uint64_t> msg;
  int from = 0;
  detail::ClusterTag tag{};
  for (;;) {
    c.receive(from, tag, msg, true);
    if (tag == detail::ClusterTag::quit) c.leave();
    if (tag != detail::ClusterTag::join || msg.size() < 6) continue;  // of a search already ended
    const std::uint64_t serial = msg[0];
    ExploreOptions o = given;
    o.memory = static_cast<MemoryModelKind>(msg[2]);
    const auto eq = static_cast<Equivalence>(msg[3]);
    // msg[5]: 1, a callback sees every run (each comes as its schedule, run again on rank
    // 0); 2, checkers judge every run (here, unless it runs again there).
    const bool tso = msg[4] != 0, again_all = msg[5] & 1, judge = msg[5] & 2;
    if (msg[1] == kJoinSamples) {
      serve_samples(program, o, c, msg);
      continue;
    }
    const double cpu_at_join = detail::thread_cpu_seconds(), waited_at_join = c.waited;
    if (o.jobs > 1) serve_threads(program, o, c, serial, tso, eq, again_all, judge);
    else serve_units(program, o, c, serial, tso, eq, again_all, judge);
    c.search_cpu += detail::thread_cpu_seconds() - cpu_at_join;
    c.search_waited += c.waited - waited_at_join;
    const std::uint64_t w[] = {serial};
    c.send(0, detail::ClusterTag::ended, w);
  }
}

}  // namespace atomcheck::detail
