// The scheduler loop and the API entry points. Threads are fibers; all switching goes
// through the scheduler (run_thread/resume on one side, to_scheduler on the other), so
// a fiber's `back` continuation is always the scheduler. Abandoned executions are
// unwound by resuming each unfinished thread with unwinding_ set, which makes its
// pending operation throw Unwind (or return a dummy value when an exception is already
// in flight, so destructors never throw).
#include "scheduler/runtime/execution.hpp"

#include "scheduler/runtime/crash_report.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

#include <boost/context/detail/exception.hpp>
#include <fmt/core.h>

namespace atomcheck::detail {

namespace {

thread_local Execution* tls_current = nullptr;

// Serial numbers make handles from other executions (or explorations) detectable. A
// process-wide counter is the only shared state, and only ever incremented.
std::atomic<std::uint64_t> g_next_serial{1};

struct CurrentGuard {
  Execution* saved;
  explicit CurrentGuard(Execution* e) : saved(tls_current) { tls_current = e; }
  ~CurrentGuard() { tls_current = saved; }
};

void call_program(void* p) { (*static_cast<const Program*>(p))(); }

std::string_view basename(std::string_view path) {
  auto pos = path.find_last_of('/');
  return pos == std::string_view::npos ? path : path.substr(pos + 1);
}

}  // namespace

Execution::Execution(MemoryModelKind memory, std::size_t stack_size, std::uint64_t max_steps,
                     std::uint32_t spin_threshold)
    : memory_kind_(memory),
      memory_(make_memory_model(memory)),
      pool_(stack_size ? stack_size : default_stack_size()),
      max_steps_(max_steps),
      spin_threshold_(spin_threshold) {
  race_.keep_messages(memory_->chooses());
  // Room for typical executions up front, so that even the first deep execution of a
  // search does not grow these vectors step by step.
  constexpr std::size_t kSteps = 1024;
  trace_.events.reserve(2 * kSteps);
  history_.chosen.reserve(kSteps);
  history_.enabled_begin.reserve(kSteps);
  history_.enabled.reserve(4 * kSteps);
  choices_.reserve(kSteps);
  enabled_.reserve(64);
  watch_execution(this);
}

Execution::~Execution() {
  unwatch_execution(this);
  abandon();
  for (const auto& ts : threads_) tsan_destroy_fiber(ts->tsan_fiber);
}

Execution* Execution::current() { return tls_current; }

Execution& Execution::current_or_throw(const char* what) {
  if (tls_current == nullptr)
    throw UsageError(fmt::format(
        "atomcheck: {} used outside an exploration (create and use API objects only inside a "
        "program run by explore())",
        what));
  return *tls_current;
}

void Execution::reset() {
  // Serials are taken in blocks: one shared counter bumped per run was the last memory
  // that every thread of a parallel search wrote once per execution.
  if (serial_ + 1 >= serial_end_) {
    serial_ = g_next_serial.fetch_add(kSerialBlock, std::memory_order_relaxed);
    serial_end_ = serial_ + kSerialBlock;
  } else {
    ++serial_;
  }
  nthreads_ = finished_ = waiting_ = 0;
  running_ = kNoId;
  nvars_ = nlocks_ = nlabels_ = noutcome_ = 0;
  memory_->reset();
  race_.reset();
  trace_.events.clear();
  history_.clear();
  choices_.clear();
  failed_ = assumed_ = unwinding_ = false;
  choice_aborted_ = false;
  failure_ = Failure{};
}

ThreadId Execution::new_thread(void (*entry)(void*), void* arg) {
  ThreadId t = static_cast<ThreadId>(nthreads_++);
  if (t == threads_.size()) threads_.push_back(std::make_unique<ThreadState>());
  ThreadState& ts = *threads_[t];
  ts.status = Status::running;
  ts.request = Request::none;
  ts.pending = Transition{};
  ts.pending_drains = false;
  ts.join_target = kNoId;
  ts.spawned = kNoId;
  new_spin_iteration(ts);
  ts.iter_begin = trace_.events.size();
  ts.prev_iter.clear();
  ts.spin_how = "";
  ts.waits_on.clear();
  ts.repeats = 0;
  ts.read_old = false;
  ts.effects = ts.effects_at_spin = 0;
  ts.depth = 0;
  ts.entry = entry;
  ts.arg = arg;
  ts.fake_stack = nullptr;
  if (racing()) race_.start_thread(t, running_);
  if (running_ != kNoId) memory_->sync_spawn(running_, t);
  start_fiber(t);
  return t;
}

void Execution::start_fiber(ThreadId t) {
  ThreadState& ts = *threads_[t];
  if (!ts.tsan_fiber) ts.tsan_fiber = tsan_create_fiber();
  boost::context::stack_context sctx;
  ts.fiber = boost::context::fiber(
      std::allocator_arg, PoolStackAllocator{&pool_, &sctx},
      [this, t](boost::context::fiber&& back) -> boost::context::fiber {
        asan_finish_switch(nullptr, &sched_bottom_, &sched_size_);
        threads_[t]->back = std::move(back);
        fiber_main(t);
        ThreadState& me = *threads_[t];
        me.status = Status::finished;
        ++finished_;
        asan_start_switch(nullptr, sched_bottom_, sched_size_);
        tsan_switch_to_fiber(sched_tsan_);
        return std::move(me.back);
      });
  ts.stack_bottom = static_cast<char*>(sctx.sp) - sctx.size;
  ts.stack_size = sctx.size;
}

// Exceptions never cross the fiber boundary: everything is caught here.
void Execution::fiber_main(ThreadId t) {
  ThreadState& ts = *threads_[t];
  try {
    ts.entry(ts.arg);
  } catch (const Unwind&) {
  } catch (const boost::context::detail::forced_unwind&) {
    throw;
  } catch (const std::exception& e) {
    if (!unwinding_ && !failed_) {
      failure_ = Failure{FailureKind::exception,
                         fmt::format("exception escaping thread T{}: {}", t, e.what()), t, {}, 0};
      failure_.event = trace_.events.size();
      failed_ = true;
    }
  } catch (...) {
    if (!unwinding_ && !failed_) {
      failure_ = Failure{FailureKind::exception,
                         fmt::format("exception escaping thread T{}: (not a std::exception)", t),
                         t, {}, 0};
      failure_.event = trace_.events.size();
      failed_ = true;
    }
  }
}

void Execution::resume(ThreadId t) {
  ThreadState& ts = *threads_[t];
  if (ts.status == Status::joining || ts.status == Status::yielding) --waiting_;
  ts.status = Status::running;
  ThreadId prev = running_;
  running_ = t;
  asan_start_switch(&sched_fake_, ts.stack_bottom, ts.stack_size);
  sched_tsan_ = tsan_current_fiber();
  tsan_switch_to_fiber(ts.tsan_fiber);
  ts.fiber = std::move(ts.fiber).resume();
  asan_finish_switch(sched_fake_, nullptr, nullptr);
  running_ = prev;
}

void Execution::run_thread(ThreadId t) {
  for (;;) {
    resume(t);
    ThreadState& ts = *threads_[t];
    if (ts.request == Request::spawn && ts.status == Status::running) {
      ts.request = Request::none;
      run_thread(ts.spawned);
      continue;
    }
    return;
  }
}

// Join synchronises with the child's whole execution: under TSO that includes its
// buffered stores (pthread_join is a locked, buffer-draining operation on x86), so a
// finished child with a non-empty buffer is not joinable yet.
// Did a thread block in spin_until() on reads that another thread changed later? Then
// this execution is covered by one where it read the new values (not a livelock).
bool Execution::spin_stale() const {
  for (ThreadId t = 0; t < nthreads_; ++t)
    if (threads_[t]->status == Status::spin_blocked && threads_[t]->stale) return true;
  return false;
}

bool Execution::joinable_now(ThreadId child) const {
  return threads_[child]->status == Status::finished && memory_->buffer_empty(child);
}

bool Execution::settle() {
  bool progressed = false;
  for (ThreadId t = 0; t < nthreads_; ++t) {
    ThreadState& ts = *threads_[t];
    bool ready =
        (ts.status == Status::joining && joinable_now(ts.join_target)) ||
        (ts.status == Status::yielding && ts.stale);
    if (!ready) continue;
    run_thread(t);
    progressed = true;
  }
  return progressed;
}

void Execution::compute_enabled() {
  enabled_.clear();
  for (ThreadId t = 0; t < nthreads_; ++t) {
    const ThreadState& ts = *threads_[t];
    if (ts.status != Status::announced) continue;
    if (ts.pending_drains && !memory_->buffer_empty(t)) continue;
    if (ts.pending.action == Action::acquire && locks_[ts.pending.target].owner != kNoId) continue;
    enabled_.push_back(ts.pending);
    enabled_.back().drains = ts.pending_drains;
    enabled_.back().local = ts.pending.action == Action::read && memory_->buffer_has(t, ts.pending.target);
    if (ts.pending.action == Action::write && !ts.pending_drains) enabled_.back().seq = memory_->next_store_seq(t);
  }
  memory_->append_flushes(enabled_);
}

// The graph reduction cuts a step when a step of a greater thread lies between its last
// predecessor and it (memory_rc11.cpp). A store, fence or unlock has no predecessor but
// its thread's last step (and, for an unlock, the lock's operations, which no other
// thread can make while it holds the lock), and it cannot block: once it is enabled,
// every step of a greater thread taken before it dooms the execution, which ends there
// instead of running its branch only to be cut. (The choice stays offered, so that a
// schedule replays the same under every strategy.)
bool Execution::doomed(const Transition& chosen) const {
  for (const Transition& t : enabled_)
    if (t.thread < chosen.thread &&
        (t.action == Action::write || t.action == Action::fence || t.action == Action::release))
      return true;
  return false;
}

std::string Execution::thread_name(ThreadId t) { return fmt::format("T{}", t); }

// Unnamed objects are named after their declaration: in code templated on its types the
// std constructors take no name, and "x3" says nothing.
std::string Execution::var_name(VarId v) const {
  if (v < nvars_ && !vars_[v].name.empty()) return vars_[v].name;
  if (v < nvars_ && vars_[v].declared_at)
    if (std::string at = call_site_name(vars_[v].declared_at); !at.empty()) return at;
  return fmt::format("x{}", v);
}

std::string Execution::lock_name(LockId l) const {
  if (l < nlocks_ && !locks_[l].name.empty()) return locks_[l].name;
  if (l < nlocks_ && locks_[l].declared_at)
    if (std::string at = call_site_name(locks_[l].declared_at); !at.empty()) return at;
  return fmt::format("m{}", l);
}

std::string Execution::blocked_description() {
  std::string out;
  for (ThreadId t = 0; t < nthreads_; ++t) {
    const ThreadState& ts = *threads_[t];
    std::string what;
    if (ts.status == Status::announced && ts.pending.action == Action::acquire) {
      what = fmt::format("T{} waits for {} (held by T{})", t, lock_name(ts.pending.target),
                         locks_[ts.pending.target].owner);
    } else if (ts.status == Status::joining) {
      what = fmt::format("T{} waits to join T{}", t, ts.join_target);
    } else if (ts.status == Status::yielding) {
      what = fmt::format("T{} spins in yield() and no thread can change what it read", t);
    } else if (ts.status == Status::spin_blocked && !ts.waits_on.empty()) {
      what = fmt::format("T{} waits on {} ({}) with no {}", t, ts.waits_on, call_site_name(ts.spin_site),
                         ts.waits_without);
    } else if (ts.status == Status::spin_blocked) {
      what = fmt::format("T{} spins forever in {} ({}): no thread changes what it read", t,
                         ts.spin_how, call_site_name(ts.spin_site));
    } else {
      continue;
    }
    if (!out.empty()) out += "; ";
    out += what;
  }
  return out;
}

EndKind Execution::run(const Program& program, Strategy& strategy) {
  reset();
  CurrentGuard guard(this);
  // Odd from here to the end (see heartbeat()); one store per step, no read-modify-write.
  std::uint64_t beat = heartbeat_.load(std::memory_order_relaxed) | 1;
  heartbeat_.store(beat, std::memory_order_relaxed);
  struct Idle {
    std::atomic<std::uint64_t>& h;
    std::uint64_t& beat;
    ~Idle() { h.store(beat + 1, std::memory_order_relaxed); }
  } idle{heartbeat_, beat};
  program_ = &program;
  strategy_ = &strategy;
  ThreadId main = new_thread(&call_program, const_cast<Program*>(&program));
  run_thread(main);
  EndKind end;
  for (;;) {
    if (choice_aborted_) {
      end = EndKind::aborted;
      break;
    }
    if (waiting_ > 0 && settle()) continue;
    compute_enabled();
    if (enabled_.empty()) {
      if (failed_) {
        // A failed thread stopped where it failed and the others ran on to their end,
        // so that DPOR's race analysis saw their later operations too.
        end = EndKind::failed;
      } else if (assumed_) {
        // The failed assume()'s thread never finishes: what is left undone (a thread
        // waiting for it, a livelock) is in no execution of the program. A failure before
        // this point is kept: it happened in a prefix that does not contain the assume.
        end = EndKind::pruned;
      } else if (finished_ == nthreads_ && memory_->all_buffers_empty()) {
        end = EndKind::completed;
      } else if (spin_stale()) {
        end = EndKind::spin_blocked;
      } else {
        failure_ = Failure{FailureKind::deadlock, "deadlock: " + blocked_description(), kNoId, {}, 0};
        failed_ = true;
        end = EndKind::deadlock;
      }
      break;
    }
    if (depth_bound_ && history_.steps() >= depth_bound_) {
      end = EndKind::depth_cut;
      break;
    }
    if (history_.steps() >= max_steps_ && failed_) {
      end = EndKind::failed;
      break;
    }
    if (history_.steps() >= max_steps_) {
      // The usual cause is a loop that waits for another thread without yielding, which
      // the scheduler may run forever; the hint names the cure and the knob.
      failure_ = Failure{FailureKind::step_bound,
                         fmt::format("did not terminate within {} steps (a spin loop without "
                                     "yield()? use spin_until; raise with --max-steps or max_steps)",
                                     max_steps_),
                         kNoId, {}, 0};
      failed_ = true;
      end = EndKind::step_bound;
      break;
    }
    std::size_t pick = 0;
    if (enabled_.size() > 1) {
      pick = strategy.choose(enabled_, history_);
      if (!strategy.error().empty() || pick >= enabled_.size()) {
        end = EndKind::aborted;
        break;
      }
      choices_.push_back(enabled_[pick]);
    }
    const Transition tr = enabled_[pick];
    if (graph_reduction_ && doomed(tr)) {
      end = EndKind::redundant;
      break;
    }
    heartbeat_.store(beat += 2, std::memory_order_relaxed);
    history_.enabled_begin.push_back(static_cast<std::uint32_t>(history_.enabled.size()));
    history_.enabled.insert(history_.enabled.end(), enabled_.begin(), enabled_.end());
    history_.chosen.push_back(tr);
    if (tr.action == Action::flush) {
      Flushed f = memory_->flush(tr.thread);
      running_ = tr.thread;
      emit(Op::commit, f.var, f.value, 0, 0, false, f.issue);
      if (racing() && vars_[f.var].kind == ObjKind::atomic_var) race_.commit(tr.thread);
      running_ = kNoId;
      note_write(tr.thread, obj_key(f.var, false), f.var);
    } else {
      const std::size_t from = memory_->event_count();
      memory_->set_forced(false);
      run_thread(tr.thread);
      memory_->set_forced(true);
      if (graph_reduction_ && memory_->redundant_step(tr.thread, from)) {
        history_.step_events_end.push_back(static_cast<std::uint32_t>(trace_.events.size()));
        end = EndKind::redundant;
        break;
      }
    }
    history_.step_events_end.push_back(static_cast<std::uint32_t>(trace_.events.size()));
  }
  if (end != EndKind::completed && end != EndKind::aborted && end != EndKind::redundant) {
    for (ThreadId t = 0; t < nthreads_; ++t) {
      const ThreadState& ts = *threads_[t];
      if (ts.status != Status::announced) continue;
      history_.pending.push_back(ts.pending);
      history_.pending.back().drains = ts.pending_drains;
      history_.pending.back().local =
          ts.pending.action == Action::read && memory_->buffer_has(t, ts.pending.target);
      if (ts.pending.action == Action::write && !ts.pending_drains)
        history_.pending.back().seq = memory_->next_store_seq(t);
    }
    memory_->append_flushes(history_.pending);
  }
  abandon();
  program_ = nullptr;
  strategy_ = nullptr;
  strategy.end_execution(history_);
  return end;
}

void Execution::abandon() {
  if (finished_ == nthreads_) return;
  CurrentGuard guard(this);
  unwinding_ = true;
  for (std::size_t i = nthreads_; i-- > 0;) {
    ThreadId t = static_cast<ThreadId>(i);
    // A thread that swallows Unwind and keeps calling the API gets Unwind again at its
    // next operation; bounded so that a pathological program cannot hang us here.
    for (int tries = 0; threads_[t]->status != Status::finished; ++tries) {
      if (tries == 1000) {
        fmt::print(stderr,
                   "atomcheck: thread T{} keeps running after its execution was abandoned (a "
                   "catch (...) swallows atomcheck's unwinding); aborting\n",
                   t);
        std::abort();
      }
      resume(t);
    }
  }
  unwinding_ = false;
}

Outcome Execution::outcome() const {
  Outcome out(outcome_.begin(), outcome_.begin() + static_cast<std::ptrdiff_t>(noutcome_));
  std::sort(out.begin(), out.end());
  return out;
}

void Execution::materialize_names() {
  Names& n = trace_.names;
  NameTable locs = std::move(n.locs);  // the call-site table only grows: keep what we have
  n = Names{};
  n.locs = std::move(locs);
  append_call_site_names(n.locs);
  for (ThreadId t = 0; t < nthreads_; ++t) n.threads.intern(thread_name(t));
  auto add_unique = [](NameTable& table, std::string name, std::uint32_t id) {
    if (table.find(name) != kNoId) name = fmt::format("{}#{}", name, id);
    table.intern(name);
  };
  for (VarId v = 0; v < nvars_; ++v) add_unique(n.vars, var_name(v), v);
  for (LockId l = 0; l < nlocks_; ++l) add_unique(n.locks, lock_name(l), l);
  for (LabelId b = 0; b < nlabels_; ++b) add_unique(n.labels, labels_[b], b);
}

// ---- inside fibers ----------------------------------------------------------------

void Execution::to_scheduler() {
  ThreadState& ts = self();
  asan_start_switch(&ts.fake_stack, sched_bottom_, sched_size_);
  tsan_switch_to_fiber(sched_tsan_);
  ts.back = std::move(ts.back).resume();
  asan_finish_switch(ts.fake_stack, &sched_bottom_, &sched_size_);
}

bool Execution::unwinding_skip() {
  if (std::uncaught_exceptions() > 0) return false;
  throw Unwind{};
}

bool Execution::announce(Action a, std::uint32_t target, bool drains) {
  if (unwinding_) return unwinding_skip();
  ThreadState& ts = self();
  ts.pending = Transition{running_, a, target};
  ts.pending_drains = drains;
  ts.status = Status::announced;
  to_scheduler();
  if (unwinding_) return unwinding_skip();
  return true;
}

// The first failure is the execution's; the failing thread stops for the rest of it (as
// at a failed assume()), and the others run on.
void Execution::fail(FailureKind kind, std::string message) {
  if (!failed_) {
    failure_ = Failure{kind, std::move(message), running_, {}, 0};
    failure_.event = trace_.events.size();
    failed_ = true;
  }
  if (!unwinding_) {
    self().status = Status::stopped;
    to_scheduler();
  }
}

EventIndex Execution::emit(Op op, std::uint32_t target, std::int64_t value, std::int64_t value2,
                           std::uint32_t site, bool buffered, EventIndex issue) {
  EventIndex i = trace_.events.size();
  Event e;
  e.op = op;
  e.buffered = buffered;
  e.thread = running_;
  e.target = target;
  e.value = value;
  e.value2 = value2;
  e.issue = issue;
  e.loc = site;
  trace_.events.push_back(e);
  // A thread's own operation other than a read ends its run of identical reads (a
  // commit is its buffer's, not a step of the thread).
  if (op != Op::read && op != Op::commit && running_ < nthreads_) threads_[running_]->repeats = 0;
  return i;
}

// "T1 writes 42 at mp.cpp:9": one access of a race, for its message.
std::string Execution::access_text(EventIndex i) const {
  const Event& e = trace_.events[i];
  const std::string at = call_site_name(e.loc);
  return fmt::format("T{} {} {}{}", e.thread, e.op == Op::read ? "reads" : "writes", e.value,
                     at.empty() ? "" : " at " + at);
}

// A race fails the execution but stops no thread: what the program does next is still
// a behaviour of the model, and DPOR sees the whole execution.
void Execution::race_found(const Race& race, VarId var) {
  std::string first = race.first == kNoEvent ? fmt::format("its initialisation ({})", var_name(var))
                                             : access_text(race.first);
  failure_ = Failure{FailureKind::data_race,
                     fmt::format("data race on {}: {} and {}, not ordered by happens-before", var_name(var),
                                 first, access_text(race.second)),
                     running_, {}, 0};
  failure_.race_first = race.first;
  failure_.race_second = race.second;
  failed_ = true;
}

Handle Execution::create_object(ObjKind kind, std::int64_t initial, std::string_view name,
                                std::uint32_t declared_at) {
  Handle h;
  h.serial = serial_;
  if (kind == ObjKind::mutex) {
    h.id = static_cast<std::uint32_t>(nlocks_++);
    if (h.id == locks_.size()) locks_.emplace_back();
    locks_[h.id].owner = kNoId;
    locks_[h.id].name.assign(name);
    locks_[h.id].declared_at = declared_at;
    if (racing()) race_.add_lock(h.id);
  } else {
    h.id = static_cast<std::uint32_t>(nvars_++);
    if (h.id == vars_.size()) vars_.push_back(VarInfo{kind, {}, 0});
    vars_[h.id].kind = kind;
    vars_[h.id].name.assign(name);
    vars_[h.id].declared_at = declared_at;
    memory_->add_var(initial);
    if (memory_->chooses()) {
      if (h.id >= rc11_writes_.size()) rc11_writes_.resize(h.id + 1);
      rc11_writes_[h.id].assign(1, kNoEvent);  // serial 0: the initial value
    }
    if (racing()) race_.add_var(h.id, kind == ObjKind::plain_var, running_);
  }
  return h;
}

void Execution::set_name(const Handle& h, ObjKind kind, std::string_view name) {
  if (h.serial != serial_) return;  // an earlier execution's object: its next use fails
  if (kind == ObjKind::mutex) {
    if (h.id < nlocks_) locks_[h.id].name.assign(name);
  } else if (h.id < nvars_) {
    vars_[h.id].name.assign(name);
  }
}

const Execution::VarInfo* Execution::var_of(const Handle& h, const char* what) {
  if (h.serial != serial_ || h.id >= nvars_) {
    fail(FailureKind::usage,
         fmt::format("T{}: {} of an object created by an earlier execution (no state may "
                     "outlive one execution)",
                     running_, what));
    return nullptr;
  }
  return &vars_[h.id];
}

Execution::LockInfo* Execution::lock_of(const Handle& h, const char* what) {
  if (h.serial != serial_ || h.id >= nlocks_) {
    fail(FailureKind::usage,
         fmt::format("T{}: {} of a mutex created by an earlier execution (no state may outlive "
                     "one execution)",
                     running_, what));
    return nullptr;
  }
  return &locks_[h.id];
}

// A choice of the memory model (which write a load reads, where a store goes): the
// strategy picks among `n` pseudo-transitions of the running thread (Transition::choice),
// recorded in the schedule like a thread choice so that replay and DFS see it.
std::size_t Execution::choose_option(std::size_t n, Action a, VarId var) {
  if (n <= 1 || !strategy_) return 0;
  options_scratch_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    Transition t{running_, a, var};
    t.choice = true;
    t.seq = static_cast<std::uint32_t>(i);
    options_scratch_.push_back(t);
  }
  const std::size_t pick = strategy_->choose(options_scratch_, history_);
  if (!strategy_->error().empty() || pick >= n) {
    choice_aborted_ = true;
    return 0;
  }
  choices_.push_back(options_scratch_[pick]);
  const std::size_t step = history_.steps();
  history_.options.emplace_back(static_cast<std::uint32_t>(step ? step - 1 : 0), static_cast<std::uint32_t>(pick));
  return pick;
}

// The memory model found no consistent value (RC11 rules it out: every consistent graph
// extends by a read of the mo-maximal write): said as an internal error, never hidden.
void Execution::no_choice(VarId var) {
  fail(FailureKind::usage, fmt::format("T{}: internal error: the memory model has no consistent "
                                       "choice for {} (please report)", running_, var_name(var)));
}

std::int64_t Execution::load(const Handle& h, std::memory_order mo, std::uint32_t site) {
  const VarInfo* var = var_of(h, "load");
  if (!var) {
    unwinding_skip();
    return 0;
  }
  const bool plain = var->kind == ObjKind::plain_var;
  if (!announce(Action::read, h.id, false)) return 0;
  bool buffered = false;
  std::int64_t v = 0;
  if (memory_->chooses()) {
    const std::size_t n = memory_->load_options(running_, h.id, mo, plain);
    if (n == 0) return no_choice(h.id), 0;
    v = memory_->take_load(choose_option(n, Action::read, h.id));
    if (!memory_->read_latest()) self().read_old = true;
  } else {
    v = memory_->load(running_, h.id, buffered);
  }
  const EventIndex ev = emit(Op::read, h.id, v, 0, site, buffered);
  trace_.events.back().order = plain ? kPlainOrder : static_cast<std::uint8_t>(mo);
  if (memory_->chooses()) trace_.events.back().issue = rc11_source(h.id);
  if (racing()) {
    Race race;
    if (!plain && memory_->chooses()) race_.atomic_load_from(running_, h.id, mo, memory_->read_serial());
    else if (!plain) race_.atomic_load(running_, h.id, mo, buffered);
    else if (race_.plain_read(running_, h.id, ev, race)) race_found(race, h.id);
  }
  note_read(obj_key(h.id, false));
  if (spin_threshold_) repeated_read(site, h.id, v);
  return v;
}

void Execution::store(const Handle& h, std::int64_t value, std::memory_order mo,
                      std::uint32_t site) {
  const VarInfo* var = var_of(h, "store");
  if (!var) {
    unwinding_skip();
    return;
  }
  const bool plain = var->kind == ObjKind::plain_var;
  if (!announce(Action::write, h.id, memory_->drains(Action::write, mo))) return;
  EventIndex issue = emit(Op::write, h.id, value, 0, site);
  trace_.events.back().order = plain ? kPlainOrder : static_cast<std::uint8_t>(mo);
  ++self().effects;
  if (racing()) {
    Race race;
    if (!plain) race_.atomic_store(running_, h.id, mo, memory_->store_is_buffered(mo));
    else if (race_.plain_write(running_, h.id, issue, race)) race_found(race, h.id);
  }
  if (memory_->chooses()) {
    const std::size_t n = memory_->store_options(running_, h.id, value, mo, plain);
    if (n == 0) return no_choice(h.id);
    memory_->take_store(choose_option(n, Action::write, h.id));
    rc11_writes_[h.id].push_back(issue);
    note_write(running_, obj_key(h.id, false), h.id);
    return;
  }
  if (memory_->store_is_buffered(mo)) {
    memory_->buffer_store(running_, h.id, value, issue);
    return;
  }
  memory_->write_memory(h.id, value);
  // Under TSO an unbuffered (xchg) store reaches memory in the same step as its issue.
  if (memory_kind_ == MemoryModelKind::tso) emit(Op::commit, h.id, value, 0, site, false, issue);
  note_write(running_, obj_key(h.id, false), h.id);
}

RmwResult Execution::rmw(const Handle& h, RmwFn fn, std::memory_order mo, std::uint32_t site) {
  if (!var_of(h, "read-modify-write")) {
    unwinding_skip();
    return {0, false};
  }
  if (!announce(Action::rmw, h.id, memory_->drains(Action::rmw, mo))) return {0, false};
  std::int64_t old = 0, next = 0;
  bool wrote = false;
  if (memory_->chooses()) {
    const std::size_t n = memory_->rmw_options(running_, h.id, fn, mo);
    if (n == 0) return no_choice(h.id), RmwResult{0, false};
    const MemoryModel::RmwTaken taken = memory_->take_rmw(choose_option(n, Action::rmw, h.id));
    if (!memory_->read_latest()) self().read_old = true;
    old = taken.old_value;
    next = taken.new_value;
    wrote = taken.wrote;
  } else {
    old = next = memory_->read_memory(h.id);
    wrote = fn.call(fn.ctx, old, next);
  }
  note_read(obj_key(h.id, false));
  // A failed compare-exchange is a load with its failure order.
  if (racing() && memory_->chooses())
    race_.atomic_rmw_from(running_, h.id, wrote ? mo : fn.failure, wrote, memory_->read_serial());
  else if (racing())
    race_.atomic_rmw(running_, h.id, wrote ? mo : fn.failure, wrote);
  if (wrote) {
    if (!memory_->chooses()) memory_->write_memory(h.id, next);
    const EventIndex ev = emit(Op::rmw, h.id, old, next, site);
    trace_.events.back().order = static_cast<std::uint8_t>(mo);
    if (memory_->chooses()) {
      trace_.events.back().issue = rc11_source(h.id);
      rc11_writes_[h.id].push_back(ev);
    }
    ++self().effects;
    note_write(running_, obj_key(h.id, false), h.id);
  } else {
    emit(Op::read, h.id, old, fn.cas ? fn.expected : 0, site);
    trace_.events.back().failed_cas = fn.cas;
    trace_.events.back().order = static_cast<std::uint8_t>(fn.failure);
    if (memory_->chooses()) trace_.events.back().issue = rc11_source(h.id);
    if (!history_.chosen.empty()) history_.chosen.back().failed = true;
  }
  return {old, wrote};
}

void Execution::fence(std::memory_order mo, std::uint32_t site) {
  if (mo != std::memory_order_seq_cst) {
    // No event and no step (a no-op on x86), but release/acquire fences synchronise.
    if (unwinding_) return;
    if (racing()) race_.fence(running_, mo);
    memory_->sync_fence(running_, mo);
    // Under RC11 it orders (release and acquire fences take part in sw): an event, no step.
    if (memory_->chooses()) {
      emit(Op::fence, kNoId, 0, 0, site);
      trace_.events.back().order = static_cast<std::uint8_t>(mo);
    }
    return;
  }
  if (!announce(Action::fence, kNoId, memory_->drains(Action::fence, mo))) return;
  memory_->sync_fence(running_, mo);
  emit(Op::fence, kNoId, 0, 0, site);
  trace_.events.back().order = static_cast<std::uint8_t>(mo);
  if (racing()) race_.fence(running_, mo);
}

void Execution::lock(const Handle& h, std::uint32_t site) {
  LockInfo* l = lock_of(h, "lock");
  if (!l) {
    unwinding_skip();
    return;
  }
  if (l->owner == running_ && !unwinding_) {
    fail(FailureKind::usage, fmt::format("T{} locks {}, which it already holds", running_,
                                         lock_name(h.id)));
    unwinding_skip();
    return;
  }
  if (!announce(Action::acquire, h.id, memory_->drains(Action::acquire, std::memory_order_seq_cst)))
    return;
  locks_[h.id].owner = running_;
  ++self().effects;
  emit(Op::acquire, h.id, 0, 0, site);
  memory_->sync_lock(running_, h.id);
  if (racing()) race_.acquire(running_, h.id);
}

bool Execution::try_lock(const Handle& h, std::uint32_t site) {
  LockInfo* l = lock_of(h, "try_lock");
  if (!l) {
    unwinding_skip();
    return false;
  }
  if (l->owner == running_ && !unwinding_) {
    fail(FailureKind::usage, fmt::format("T{} try_locks {}, which it already holds", running_,
                                         lock_name(h.id)));
    unwinding_skip();
    return false;
  }
  if (!announce(Action::try_acquire, h.id,
                memory_->drains(Action::try_acquire, std::memory_order_seq_cst)))
    return false;
  note_read(obj_key(h.id, true));
  if (locks_[h.id].owner != kNoId) {
    memory_->sync_try_lock_failed(running_, h.id);
    return false;
  }
  locks_[h.id].owner = running_;
  ++self().effects;
  emit(Op::acquire, h.id, 0, 0, site);
  memory_->sync_lock(running_, h.id);
  if (racing()) race_.acquire(running_, h.id);
  return true;
}

// Called from lock_guard destructors: never throws.
void Execution::unlock(const Handle& h, std::uint32_t site) {
  if (unwinding_) return;
  LockInfo* l = lock_of(h, "unlock");
  if (!l) return;
  if (l->owner != running_) {
    fail(FailureKind::usage, fmt::format("T{} unlocks {}, which it does not hold", running_,
                                         lock_name(h.id)));
    return;
  }
  ThreadState& ts = self();
  ts.pending = Transition{running_, Action::release, h.id};
  ts.pending_drains = memory_->drains(Action::release, std::memory_order_seq_cst);
  ts.status = Status::announced;
  to_scheduler();
  if (unwinding_) return;
  locks_[h.id].owner = kNoId;
  emit(Op::release, h.id, 0, 0, site);
  memory_->sync_unlock(running_, h.id);
  if (racing()) race_.release(running_, h.id);
  ++self().effects;
  note_write(running_, obj_key(h.id, true));
}

ThreadId Execution::spawn(void (*entry)(void*), void* arg, std::uint32_t site) {
  if (unwinding_) {
    unwinding_skip();
    return kNoId;
  }
  // Starting a thread synchronises with it: std::thread's constructor synchronizes-with
  // the thread's start, and on x86 creating a thread drains the creator's store buffer
  // (clone is a system call, and the runtime's bookkeeping uses locked instructions). So
  // under TSO the spawn is a draining step, as a fence is: it waits for the creator's
  // flushes, and the child can only read what its creator stored before it. Under SC
  // there is nothing to wait for and no step is added (drains() is false).
  if (memory_->drains(Action::fence, std::memory_order_seq_cst) &&
      !announce(Action::fence, kNoId, true))
    return kNoId;
  ThreadId child = new_thread(entry, arg);
  history_.edges.push_back({static_cast<std::uint32_t>(history_.steps()), running_, child, false});
  emit(Op::fork, child, 0, 0, site);
  ThreadState& ts = self();
  ts.request = Request::spawn;
  ts.spawned = child;
  to_scheduler();
  if (unwinding_) throw Unwind{};
  return child;
}

void Execution::join(ThreadId child, std::uint32_t site) {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  if (child >= nthreads_ || child == running_) {
    fail(FailureKind::usage, fmt::format("T{} joins an unknown thread", running_));
    unwinding_skip();
    return;
  }
  if (!joinable_now(child)) {
    ThreadState& ts = self();
    ts.status = Status::joining;
    ts.join_target = child;
    ++waiting_;
    to_scheduler();
    if (unwinding_) {
      unwinding_skip();
      return;
    }
  }
  emit(Op::join, child, 0, 0, site);
  memory_->sync_join(running_, child);
  if (racing()) race_.join(running_, child);
  history_.edges.push_back({static_cast<std::uint32_t>(history_.steps()), child, running_, true});
}

// Called from ~thread: never throws.
void Execution::thread_dropped(ThreadId child) {
  if (unwinding_) return;
  fail(FailureKind::usage,
       fmt::format("T{} destroyed thread T{} while joinable (std::thread would call "
                   "std::terminate)",
                   running_, child));
}

LabelId Execution::begin_block(std::string_view label, std::uint32_t site, std::int64_t value, std::int64_t value2) {
  if (unwinding_) {
    unwinding_skip();
    return kNoId;
  }
  LabelId id = kNoId;
  if (!label.empty()) {
    for (LabelId b = 0; b < nlabels_; ++b)
      if (labels_[b] == label) id = b;
    if (id == kNoId) {
      id = static_cast<LabelId>(nlabels_++);
      if (id == labels_.size()) labels_.emplace_back();
      labels_[id].assign(label);
    }
  }
  ++self().depth;
  emit(Op::begin, id, value, value2, site);
  return id;
}

// Called from ~atomic_block: never throws.
void Execution::end_block(LabelId label, std::uint32_t site, std::int64_t value, std::int64_t value2) {
  if (unwinding_) return;
  ThreadState& ts = self();
  if (ts.depth > 0) --ts.depth;
  emit(Op::end, label, value, value2, site);
}

void Execution::check_failed(std::string_view message, const std::source_location& where) {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  fail(FailureKind::assertion,
       fmt::format("T{}: assertion failed: {} ({}:{})", running_, message,
                   basename(where.file_name()), where.line()));
  unwinding_skip();
}

void Execution::assume_failed(std::uint32_t site) {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  // GenMC's assume-blocking: the thread stops here and the others run on, so that the
  // race analysis sees the writes that would have made the condition true (cutting the
  // execution here hid them from DPOR). The execution is pruned when it ends.
  ThreadState& ts = self();
  ts.status = Status::stopped;
  assumed_ = true;
  (void)site;
  to_scheduler();
  unwinding_skip();
}

void Execution::record_outcome(std::string_view name, std::int64_t value) {
  if (unwinding_ || failed_) return;
  for (std::size_t i = 0; i < noutcome_; ++i) {
    if (outcome_[i].first == name) {
      outcome_[i].second = value;
      return;
    }
  }
  if (noutcome_ == outcome_.size()) outcome_.emplace_back();
  outcome_[noutcome_].first.assign(name);
  outcome_[noutcome_].second = value;
  ++noutcome_;
}

void Execution::note_read(std::uint32_t key) {
  ThreadState& ts = self();
  if (key >= ts.spin_marks.size()) ts.spin_marks.resize(key + 1, 0);
  if (ts.spin_marks[key] == 1) return;
  ts.spin_marks[key] = 1;  // an outer mark (2) read again in an attempt is the attempt's too
  ts.spin_touched.push_back(key);
}

// A write reaching memory changes what a spinning thread would read again, unless (TSO)
// that thread's own buffer still holds a store to the variable: its reads are served by
// the buffer, and this write is coherence-before that store, so they never see it.
// Counting such a write as a change made the livelock verdict ("spins forever") depend
// on where the flush fell, not on reads-from and coherence, and rf+co DPOR lost it.
void Execution::note_write(ThreadId by, std::uint32_t key, VarId var) {
  for (ThreadId t = 0; t < nthreads_; ++t) {
    ThreadState& ts = *threads_[t];
    if (t == by || key >= ts.spin_marks.size() || !ts.spin_marks[key]) continue;
    if (var != kNoId && memory_->buffer_has(t, var)) continue;
    if (ts.spin_marks[key] == 1) ts.stale = true;
    else ts.outer_stale = true;
  }
}

// A loop that reads the same thing over and over without yield() (the `spin` model)
// would give a new class per extra read and reach the step bound on the schedule where
// the writer never runs. After spin_threshold identical reads in a row the thread is
// taken to wait for a change of what it read, exactly as yield() there would make it.
void Execution::repeated_read(std::uint32_t site, VarId var, std::int64_t value) {
  ThreadState& ts = self();
  if (ts.repeats > 0 && ts.repeat_site == site && ts.repeat_var == var && ts.repeat_value == value) {
    ++ts.repeats;
  } else {
    ts.repeat_site = site;
    ts.repeat_var = var;
    ts.repeat_value = value;
    ts.repeats = 1;
  }
  if (ts.repeats < spin_threshold_) return;
  ts.repeats = 0;
  if (history_.unmarked_spin.empty()) {
    const std::string at = call_site_name(site);
    history_.unmarked_spin = fmt::format("T{} read {} = {}{} {} times in a row", running_, var_name(var), value,
                                         at.empty() ? "" : " at " + at, spin_threshold_);
  }
  // spin_threshold identical reads are a repeated iteration of a loop that only reads:
  // block as a yield() loop does, waiting on that variable alone.
  new_spin_iteration(ts);
  note_read(obj_key(var, false));
  block_spinning(site, "a loop without yield()");
}

void Execution::new_spin_iteration(ThreadState& ts) {
  for (std::uint32_t k : ts.spin_touched) ts.spin_marks[k] = 0;
  for (std::uint32_t k : ts.outer_touched) ts.spin_marks[k] = 0;
  ts.spin_touched.clear();
  ts.outer_touched.clear();
  ts.stale = false;
  ts.outer_stale = false;
  ts.read_old = false;
}

// A yield() loop under the spin-assume of GenMC (Kokologiannakis et al., "Dynamic
// Partial Order Reductions for Spinloops", FMCAD 2021), decided on the thread's own
// events: an iteration (its events since its last yield(), flushes left out) that
// repeats the end of the previous one, operation for operation with the same values
// and call sites, left the thread where it was, so every later iteration would repeat
// it until another thread changes what it read. If it wrote nothing (an rmw that wrote
// back the value it read, or a lock taken and released, counts as nothing), deleting it
// from any execution leaves a valid execution with the same values everywhere: the
// thread blocks for good, and the execution is pruned if a later write changed what the
// iteration read (the one where the iteration reads it is explored) or reported as a
// livelock if none did. The decision is a function of the values the thread read, so
// DPOR's races see everything: the iteration's reads race with the writes that would
// wake it. An iteration that repeats with a store (not deletable) waits for a change
// instead, outside the reductions' model: DPOR says so and `run` falls back to DFS.
void Execution::yield(std::uint32_t site, std::string_view waits_on, const char* without) {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  ThreadState& ts = self();
  std::vector<Event>& cur = iter_scratch_;
  cur.clear();
  for (std::size_t i = ts.iter_begin; i < trace_.events.size(); ++i) {
    const Event& e = trace_.events[i];
    if (e.thread == running_ && e.op != Op::commit) cur.push_back(e);
  }
  bool repeats = cur.size() <= ts.prev_iter.size();
  bool deletable = true;
  const std::size_t off = ts.prev_iter.size() - (repeats ? cur.size() : 0);
  for (std::size_t i = 0; i < cur.size() && repeats; ++i) {
    const Event& a = cur[i];
    const Event& b = ts.prev_iter[off + i];
    // A read's value2 (a failed CAS's expected value) is for reports, not a difference.
    repeats = a.op == b.op && a.target == b.target && a.value == b.value &&
              (a.op == Op::read || a.value2 == b.value2) && a.loc == b.loc;
    deletable = deletable && a.op != Op::write && a.op != Op::fork &&
                (a.op != Op::rmw || a.value == a.value2);
  }
  if (repeats && deletable) {
    block_spinning(site, "a yield() loop", waits_on, without);
    return;
  }
  std::swap(ts.prev_iter, cur);
  ts.iter_begin = trace_.events.size();
  if (repeats) {
    if (!history_.spins && !*history_.wait_construct) {
      history_.wait_site = site;
      history_.wait_construct = "yield() (a repeated iteration that stores)";
    }
    history_.spins = true;
    if (!ts.stale) {
      ts.status = Status::yielding;
      ++waiting_;
      to_scheduler();
      if (unwinding_) {
        unwinding_skip();
        return;
      }
    }
  }
  new_spin_iteration(self());
}

// An attempt's marks are its own reads (a failed one blocks on exactly those: the thread
// stays in spin_until whatever else changes). The enclosing yield() iteration's marks stay
// set, as "outer" (2), so that a write landing during the attempt still makes the
// iteration stale; after a passed attempt both count for the iteration. Dropping them let a
// yield() loop around a spin_until block on too few reads and report a livelock that the
// write would have ended, depending on where the write fell.
void Execution::spin_begin() {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  ThreadState& ts = self();
  for (std::uint32_t k : ts.spin_touched) ts.spin_marks[k] = 2;
  ts.outer_touched.insert(ts.outer_touched.end(), ts.spin_touched.begin(), ts.spin_touched.end());
  ts.spin_touched.clear();
  ts.outer_stale = ts.outer_stale || ts.stale;
  ts.stale = false;
  ts.read_old = false;
  ts.effects_at_spin = ts.effects;
}

void Execution::spin_passed() {
  if (unwinding_) return;
  ThreadState& ts = self();
  for (std::uint32_t k : ts.spin_touched) ts.spin_marks[k] = 1;
  for (std::uint32_t k : ts.outer_touched) {
    if (ts.spin_marks[k] == 1) continue;
    ts.spin_marks[k] = 1;
    ts.spin_touched.push_back(k);
  }
  ts.outer_touched.clear();
  ts.stale = ts.stale || ts.outer_stale;
  ts.outer_stale = false;
}

void Execution::spin_failed(std::uint32_t site, std::string_view waits_on, const char* without) {
  if (unwinding_) {
    unwinding_skip();
    return;
  }
  ThreadState& ts = self();
  if (ts.effects != ts.effects_at_spin) {
    fail(FailureKind::usage,
         fmt::format("T{}: spin_until ({}): a failed attempt wrote to shared memory or "
                     "took a lock; its condition must only read (use a loop with yield())",
                     running_, call_site_name(site)));
    unwinding_skip();
    return;
  }
  // A failed attempt changed nothing, so the executions where it is made are covered by
  // those where only the successful attempt is (GenMC's spin-assume): block for good.
  block_spinning(site, "spin_until", waits_on, without);
}

// If what the attempt read never changes again, the thread would spin forever (checked
// at the end of the execution, spin_stale()).
void Execution::block_spinning(std::uint32_t site, const char* how, std::string_view waits_on,
                               const char* without) {
  ThreadState& ts = self();
  ts.status = Status::spin_blocked;
  // Under RC11 a wait that read an older write than the latest is no livelock: the
  // execution where it read the latest is explored, so this one is discarded (GenMC's
  // spin-assume does the same).
  if (ts.read_old) ts.stale = true;
  ts.spin_site = site;
  ts.spin_how = how;
  ts.waits_on.assign(waits_on);
  ts.waits_without = without;
  to_scheduler();
  unwinding_skip();
}

// ---- the free functions api.hpp declares ------------------------------------------

Handle create_object(ObjKind kind, std::int64_t initial, std::string_view name, const CallSite& declared_at) {
  const char* what = kind == ObjKind::mutex       ? "atomcheck::mutex"
                     : kind == ObjKind::plain_var ? "atomcheck::shared"
                                                  : "atomcheck::atomic";
  Execution& e = Execution::current_or_throw(what);
  // Named objects skip the call-site lookup.
  return e.create_object(kind, initial, name, name.empty() ? e.site(declared_at) : 0);
}
void op_set_name(const Handle& h, ObjKind kind, std::string_view name) {
  Execution::current_or_throw("set_name").set_name(h, kind, name);
}
std::int64_t op_load(const Handle& h, std::memory_order mo, const CallSite& at) {
  Execution& e = Execution::current_or_throw("load");
  return e.load(h, mo, e.site(at));
}
void op_store(const Handle& h, std::int64_t value, std::memory_order mo, const CallSite& at) {
  Execution& e = Execution::current_or_throw("store");
  e.store(h, value, mo, e.site(at));
}
RmwResult op_rmw(const Handle& h, RmwFn fn, std::memory_order mo, const CallSite& at) {
  Execution& e = Execution::current_or_throw("read-modify-write");
  return e.rmw(h, fn, mo, e.site(at));
}
void op_fence(std::memory_order mo, const CallSite& at) {
  Execution& e = Execution::current_or_throw("atomic_thread_fence");
  e.fence(mo, e.site(at));
}
void op_lock(const Handle& h, const CallSite& at) {
  Execution& e = Execution::current_or_throw("mutex::lock");
  e.lock(h, e.site(at));
}
bool op_try_lock(const Handle& h, const CallSite& at) {
  Execution& e = Execution::current_or_throw("mutex::try_lock");
  return e.try_lock(h, e.site(at));
}
void op_unlock(const Handle& h, const CallSite& at) {
  // From destructors: outside an exploration there is nothing to unlock.
  if (Execution* e = Execution::current()) e->unlock(h, e->site(at));
}
ThreadId op_spawn(void (*entry)(void*), void* arg, const CallSite& at) {
  Execution& e = Execution::current_or_throw("atomcheck::thread");
  return e.spawn(entry, arg, e.site(at));
}
void op_join(ThreadId child, const CallSite& at) {
  Execution& e = Execution::current_or_throw("thread::join");
  e.join(child, e.site(at));
}
void op_thread_dropped(ThreadId child) {
  if (Execution* e = Execution::current()) e->thread_dropped(child);
}
LabelId op_begin(std::string_view label, const CallSite& at) {
  Execution& e = Execution::current_or_throw("atomic_block");
  return e.begin_block(label, e.site(at));
}
void op_end(LabelId label, const CallSite& at) {
  if (Execution* e = Execution::current()) e->end_block(label, e->site(at));
}
void op_check_failed(std::string_view message, const std::source_location& where) {
  Execution::current_or_throw("check").check_failed(message, where);
}
void op_assume_failed(const CallSite& at) {
  Execution& e = Execution::current_or_throw("assume");
  e.assume_failed(e.site(at));
}
void op_outcome(std::string_view name, std::int64_t value) {
  Execution::current_or_throw("outcome").record_outcome(name, value);
}
void op_yield(const CallSite& at, std::string_view waits_on, const char* without) {
  Execution& e = Execution::current_or_throw("this_thread::yield");
  e.yield(e.site(at), waits_on, without);
}
void op_spin_begin() { Execution::current_or_throw("spin_until").spin_begin(); }
void op_spin_passed() { Execution::current_or_throw("spin_until").spin_passed(); }
void op_spin_failed(const CallSite& at, std::string_view waits_on, const char* without) {
  Execution& e = Execution::current_or_throw("spin_until");
  e.spin_failed(e.site(at), waits_on, without);
}
bool op_spurious_wakeups() {
  return Execution::current_or_throw("condition_variable").spurious_wakeups();
}
ThreadId op_current_thread() {
  return Execution::current_or_throw("this_thread::get_id").running();
}
bool in_exploration() { return Execution::current() != nullptr; }

}  // namespace atomcheck::detail
