// The scheduler loop and the API entry points. Threads are fibers; all switching goes
// through the scheduler (run_thread/resume on one side, to_scheduler on the other), so
// a fiber's `back` continuation is always the scheduler. Abandoned executions are
// unwound by resuming each unfinished thread with unwinding_ set, which makes its
// pending operation throw Unwind (or return a dummy value when an exception is already
// in flight, so destructors never throw).
// This file holds the core of an Execution: its lifetime, the threads' fibers, run()
// (the enabled set, the strategy's choices, the end of an execution), the switch into
// and out of a fiber with what every operation shares (announce, fail, emit), and the
// free functions api.hpp declares. The operations themselves are apart, by concern:
// execution_memory.cpp (objects, load, store, rmw, fence, races), execution_sync.cpp
// (locks, spawn, join), execution_spin.cpp (spin loops: yield, spin_until, repeated
// reads) and execution_report.cpp (atomic blocks, check, assume, outcomes, names).
#include "scheduler/runtime/execution.hpp"

#include "scheduler/runtime/crash_report.hpp"

#include <atomic>
#include <cstdlib>
#include <exception>

#include <cxxabi.h>

#include <mutex>
#include <new>

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

// std::terminate inside a test thread: an exception (atomcheck's unwinding, or the
// program's own) met a noexcept frame, a destructor most often. The running Execution
// reports it and drops that thread's fiber without unwinding it (Execution::terminated);
// anywhere else the handler that was installed before runs.
std::terminate_handler g_previous_terminate = nullptr;
std::once_flag g_terminate_once;

[[noreturn]] void on_terminate() {
  if (Execution* e = Execution::current()) e->terminated();
  if (g_previous_terminate) g_previous_terminate();
  std::abort();
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
  // Installed before any Unwind is thrown: libstdc++ calls the handler current at the throw.
  std::call_once(g_terminate_once, [] { g_previous_terminate = std::set_terminate(on_terminate); });
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

void Execution::set_sc_graphs() {
  memory_ = make_sc_graph_memory();
  race_.keep_messages(true);
}

Execution::~Execution() {
  unwatch_execution(this);
  abandon();
  for (const auto& ts : threads_) release_dropped(*ts);
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
  reset_heap();
  trace_.events.clear();
  trace_.notes.clear();
  history_.clear();
  choices_.clear();
  failed_ = assumed_ = unwinding_ = false;
  choice_aborted_ = false;
  choice_cut_ = false;
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
  ts.loop_attempts.clear();
  ts.pending_confirming = false;
  ts.confirm_end = ~std::size_t{0};
  ts.spin_how = "";
  ts.waits_on.clear();
  ts.repeats = 0;
  ts.read_old = false;
  ts.effects = ts.effects_at_spin = 0;
  ts.depth = 0;
  ts.constructing.clear();
  ts.created[0] = ts.created[1] = 0;
  ts.entry = entry;
  ts.arg = arg;
  ts.fake_stack = nullptr;
  if (racing()) race_.start_thread(t, running_);
  if (running_ != kNoId) memory_->sync_spawn(running_, t);
  start_fiber(t);
  return t;
}

// A fiber dropped by terminated() is suspended inside the terminate handler: destroying it
// would unwind it through the same noexcept frame. Its handle is forgotten and its stack
// goes back to the pool, whose memory nothing on it refers to any more.
void Execution::release_dropped(ThreadState& ts) {
  if (!ts.dropped) return;
  // Moved into storage whose object is never destroyed: the next one is built over it.
  alignas(boost::context::fiber) static thread_local unsigned char sink[sizeof(boost::context::fiber)];
  ::new (static_cast<void*>(sink)) boost::context::fiber(std::move(ts.fiber));
  pool_.give_back(ts.sctx);
  ts.dropped = false;
}

// Inside the terminate handler, on a test thread's fiber: the failure is the exception's
// (unless it was atomcheck's own unwinding), the thread counts as finished, and control
// goes back to the scheduler for good.
void Execution::terminated() {
  if (running_ == kNoId || running_ >= nthreads_ || self().status != Status::running) return;
  ThreadState& ts = self();
  {
    std::string what;
    bool ours = false;
    if (std::exception_ptr p = std::current_exception()) {
      try {
        std::rethrow_exception(p);
      } catch (const Unwind&) {
        ours = true;
      } catch (const boost::context::detail::forced_unwind&) {
        ours = true;
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
        what = "(not a std::exception)";
      }
      // The runtime's call to std::terminate began a catch of the exception; end it, or
      // the OS thread's exception stack keeps it for the next thread to find.
      abi::__cxa_end_catch();
    }
    if (!ours && !unwinding_ && !failed_) {
      failure_ = Failure{FailureKind::exception,
                         fmt::format("T{}: std::terminate: an exception left a noexcept function (a "
                                     "destructor?): {}",
                                     running_, what.empty() ? "no exception" : what),
                         running_, {}, 0};
      failure_.event = trace_.events.size();
      failed_ = true;
    }
  }
  ts.status = Status::finished;
  ++finished_;
  ts.dropped = true;
  asan_start_switch(nullptr, sched_bottom_, sched_size_);
  tsan_switch_to_fiber(sched_tsan_);
  ts.back = std::move(ts.back).resume();
  std::abort();  // never resumed
}

void Execution::start_fiber(ThreadId t) {
  ThreadState& ts = *threads_[t];
  release_dropped(ts);
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
  ts.sctx = sctx;
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
    // With lock words too: a lock that would read "held" waits rather than reads
    // (GenMC's removeCASReadIfBlocks), so no execution blocks on a mutex it could take later.
    if (ts.pending.action == Action::acquire && locks_[ts.pending.target].owner != kNoId) continue;
    enabled_.push_back(ts.pending);
    if (ts.pending_confirming) {
      std::int64_t next = 0;
      enabled_.back().waits = !ts.pending_rmw.call(ts.pending_rmw.ctx, memory_->read_memory(ts.pending.target), next);
    }
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
  const bool graph_strategy = strategy.wants_graph();
  memory_->set_graph_mode(graph_strategy);
  ThreadId main = new_thread(&call_program, const_cast<Program*>(&program));
  run_thread(main);
  EndKind end;
  for (;;) {
    if (choice_aborted_) {
      end = EndKind::aborted;
      break;
    }
    if (choice_cut_) {
      end = EndKind::redundant;
      break;
    }
    if (waiting_ > 0 && settle()) continue;
    compute_enabled();
    if (graph_strategy && strategy.refuses(enabled_, history_)) {
      end = EndKind::redundant;
      break;
    }
    history_.blocked_read_step = History::kNoStep;
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
        end = leaked() ? EndKind::failed : EndKind::completed;
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
  if (strategy.wants_graph()) {
    memory_->export_graph(graph_);
    history_.graph = &graph_;
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
  // A heap pointer is recorded by its place in the arenas, not its address, which differs
  // between Executions: replays, --jobs workers and the determinism check then agree.
  const bool memory_op = op == Op::read || op == Op::write || op == Op::rmw || op == Op::commit;
  e.value = memory_op ? heap_event_value(value) : value;
  e.value2 = memory_op ? heap_event_value(value2) : value2;
  e.issue = issue;
  e.loc = site;
  trace_.events.push_back(e);
  // A thread's own operation other than a read ends its run of identical reads (a
  // commit is its buffer's, not a step of the thread).
  if (op != Op::read && op != Op::commit && running_ < nthreads_) threads_[running_]->repeats = 0;
  return i;
}

// ---- the free functions api.hpp declares ------------------------------------------

Handle create_object(ObjKind kind, std::int64_t initial, std::string_view name, const CallSite& declared_at,
                     std::uintptr_t self) {
  const char* what = kind == ObjKind::mutex       ? "atomcheck::mutex"
                     : kind == ObjKind::plain_var ? "atomcheck::shared"
                                                  : "atomcheck::atomic";
  Execution& e = Execution::current_or_throw(what);
  // Named objects skip the call-site lookup.
  return e.create_object(kind, initial, name, name.empty() ? e.site(declared_at) : 0,
                         reinterpret_cast<const void*>(self));
}
void* op_make_block(std::size_t size, std::size_t align, std::string_view type, const CallSite& at) {
  Execution& e = Execution::current_or_throw("atomcheck::make");
  return e.make_block(size, align, type, e.site(at));
}
void op_made(void* block) { Execution::current_or_throw("atomcheck::make").made(block); }
void op_make_failed(void* block) { Execution::current_or_throw("atomcheck::make").make_failed(block); }
bool op_destroy_begin(void* block, const CallSite& at) {
  Execution& e = Execution::current_or_throw("atomcheck::destroy");
  return e.destroy_begin(block, e.site(at));
}
void op_destroy_end(void* block, const CallSite& at) {
  Execution& e = Execution::current_or_throw("atomcheck::destroy");
  e.destroy_end(block, e.site(at));
}
void op_set_name(const Handle& h, ObjKind kind, std::string_view name) {
  Execution::current_or_throw("set_name").set_name(h, kind, name);
}
std::int64_t op_load(const Handle& h, std::memory_order mo, const CallSite& at) {
  Execution& e = Execution::current_or_throw("load");
  return e.load(h, mo, e.site(at));
}
void op_unsynchronised(const Handle& h) {
  Execution& e = Execution::current_or_throw("unsynchronised");
  e.unsynchronised(h);
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
void op_loop_head(const CallSite&) { Execution::current_or_throw("cas_loop").loop_head(); }
void op_loop_retry(const CallSite& at) {
  Execution& e = Execution::current_or_throw("cas_loop");
  e.loop_retry(e.site(at));
}
void op_loop_confirm_failed(const CallSite& at) {
  Execution& e = Execution::current_or_throw("cas_loop");
  e.loop_confirm_failed(e.site(at));
}
void op_loop_exit() {
  if (Execution* e = Execution::current()) e->loop_exit();
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
