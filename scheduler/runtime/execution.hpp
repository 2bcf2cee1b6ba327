// One execution of a test program under the cooperative scheduler (internal). Each
// program thread is a Boost.Context fiber on a pooled stack; before every visible
// operation it announces the operation and switches to the scheduler loop in run(),
// which computes the enabled transitions, asks the strategy to pick one at choice
// points, and resumes the chosen thread. The API objects reach the running Execution
// through a thread_local pointer (current()), so explorations on different OS threads
// never see each other. An Execution object is reused for every execution of one
// exploration: its vectors keep their capacity, so a warm execution does not allocate.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/context/fiber.hpp>

#include "api.hpp"
#include "../../checkers/checker.hpp"
#include "../../trace/trace.hpp"
#include "call_sites.hpp"
#include "object_ids.hpp"
#include "../memory/memory.hpp"
#include "../memory/race.hpp"
#include "stack_pool.hpp"
#include "../search/strategy.hpp"

namespace atomcheck::detail {

// Thrown through a suspended thread to unwind an abandoned execution. Not derived from
// std::exception, so `catch (const std::exception&)` in a test program lets it pass.
struct Unwind {};

// How an execution ended.
// depth_cut: stopped by the depth bound (set_depth_bound), not a failure.
// spin_blocked: a thread blocked in spin_until() or in a yield() loop while another
// thread had changed what its attempt read (an execution where it read later is explored
// too): not a failure.
// pruned: some assume() failed (its thread blocked; the others ran on): not a failure.
// redundant: RC11's graph reduction cut it, another execution makes its graph
// (set_graph_reduction): not a failure, counted with the sleep-set-blocked ones.
enum class EndKind : std::uint8_t {
  completed, failed, deadlock, step_bound, pruned, aborted, depth_cut, spin_blocked, redundant
};

class Execution {
 public:
  Execution(MemoryModelKind memory, std::size_t stack_size, std::uint64_t max_steps,
            std::uint32_t spin_threshold = 0);
  ~Execution();
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;

  // Odd while an execution runs, bumped at every step: the hang watchdog
  // (crash_report.hpp), on another thread, sees a running execution that stopped stepping.
  std::uint64_t heartbeat() const { return heartbeat_.load(std::memory_order_relaxed); }

  // Runs the program once to its end, choosing with `strategy` at choice points.
  // `aborted` means the strategy reported an error (e.g. a replay schedule that does not
  // fit): see strategy.error().
  EndKind run(const Program& program, Strategy& strategy);
  // Bounded search: executions stop (EndKind::depth_cut) once this many steps were
  // taken and another is enabled; 0: no bound.
  void set_depth_bound(std::uint64_t steps) { depth_bound_ = steps; }
  // Data-race detection on shared<T> variables (ExploreOptions::race_check).
  void set_race_check(bool on) { race_check_ = on; }
  // RC11 under `optimal`: one execution per execution graph (memory_rc11.cpp).
  void set_graph_reduction(bool on) { graph_reduction_ = on; }

  // Results of the last run.
  const Trace& trace() const { return trace_; }  // events only; see materialize_names
  void materialize_names();                     // fills trace_.names
  const Failure& failure() const { return failure_; }
  const std::vector<Transition>& choices() const { return choices_; }
  std::string schedule() const { return format_schedule(choices_); }
  Outcome outcome() const;
  std::uint64_t steps() const { return history_.steps(); }
  const History& history() const { return history_; }
  // Exchanges the history and events of the last execution with `h` and `events` (their
  // old contents are cleared by the next run): the determinism check keeps the previous
  // execution without copying it.
  void swap_record(History& h, std::vector<Event>& events) {
    std::swap(history_, h);
    std::swap(trace_.events, events);
  }
  std::size_t stacks_allocated() const { return pool_.allocated(); }
  // The execution graph's identity under a memory model with choices (RC11), else 0.
  std::uint64_t graph_hash() const { return memory_->graph_hash(); }

  // ---- called from the API (inside fibers) ----
  static Execution& current_or_throw(const char* what);
  static Execution* current();

  Handle create_object(ObjKind kind, std::int64_t initial, std::string_view name, std::uint32_t declared_at = 0,
                       const void* self = nullptr);
  void* make_block(std::size_t size, std::size_t align, std::string_view type, std::uint32_t site);
  void made(void* block);
  void make_failed(void* block);
  bool destroy_begin(void* block, std::uint32_t site);
  void destroy_end(void* block, std::uint32_t site);
  void set_name(const Handle& h, ObjKind kind, std::string_view name);
  std::int64_t load(const Handle& h, std::memory_order mo, std::uint32_t site);
  // detail::op_unsynchronised: the memory model's accesses to h synchronise nothing.
  void unsynchronised(const Handle& h) {
    if (h.serial == serial_ && h.id < nvars_) memory_->set_unsynchronised(h.id);
  }
  void store(const Handle& h, std::int64_t value, std::memory_order mo, std::uint32_t site);
  RmwResult rmw(const Handle& h, RmwFn fn, std::memory_order mo, std::uint32_t site);
  void fence(std::memory_order mo, std::uint32_t site);
  void lock(const Handle& h, std::uint32_t site);
  bool try_lock(const Handle& h, std::uint32_t site);
  void unlock(const Handle& h, std::uint32_t site);
  ThreadId spawn(void (*entry)(void*), void* arg, std::uint32_t site);
  void join(ThreadId child, std::uint32_t site);
  void thread_dropped(ThreadId child);
  // The values go into the begin and end events (an operation's code, argument and result,
  // lin_test.hpp `operation`); a plain atomic block leaves them 0.
  LabelId begin_block(std::string_view label, std::uint32_t site, std::int64_t value = 0, std::int64_t value2 = 0);
  void end_block(LabelId label, std::uint32_t site, std::int64_t value = 0, std::int64_t value2 = 0);
  void check_failed(std::string_view message, const std::source_location& where);
  void assume_failed(std::uint32_t site);
  void record_outcome(std::string_view name, std::int64_t value);
  void yield(std::uint32_t site, std::string_view waits_on = {}, const char* without = "notifier");
  void spin_begin();
  void spin_passed();
  void spin_failed(std::uint32_t site, std::string_view waits_on = {}, const char* without = "notifier");
  void loop_head();
  void loop_retry(std::uint32_t site);
  // cas_loop::compare_exchange_* failed: a retry(), and the next retry() with nothing in
  // between is none.
  void loop_confirm_failed(std::uint32_t site);
  // Is the running thread in a cas_loop attempt that has written nothing so far?
  bool attempt_unwritten() const;
  void loop_exit();
  // cas_loop's reduction (ExploreOptions::loop_reduction): off, every attempt runs.
  void set_loop_reduction(bool on) { loop_reduction_ = on; }
  // Under rc11 with TruSt (ExploreOptions::rc11_revisits): each mutex is a word of memory,
  // lock a compare-exchange 0 -> 1 (acquire) that blocks when it reads 1, unlock a
  // release store of 0, so that the order of a mutex's critical sections is reads-from,
  // which TruSt revisits, not an interleaving (GenMC models locks the same way).
  void set_lock_words(bool on) { lock_words_ = on; }
  // Under sc: the memory is RC11's graph with every access seq_cst (ExploreOptions::
  // sc_graphs), whose choices a graph strategy explores. Called before the first run.
  void set_sc_graphs();
  // Graph strategies (TruSt): a compare-exchange that confirms a cas_loop attempt which
  // wrote nothing is offered with Transition::waits while it would fail on its variable's
  // latest write, and the strategy runs another thread first, as a lock waits for its
  // mutex (GenMC's removeCASReadIfBlocks): failing, the attempt would only block, and the
  // execution where it ran after the write it needs is this one. When nothing else can
  // run, it runs and fails (a livelock is still found).
  void set_cas_waits(bool on) { cas_waits_ = on; }
  // Shares one search's object ids (object_ids.hpp); without, the Execution keeps its own.
  void set_object_ids(std::shared_ptr<ObjectIds> ids) {
    ids_ = std::move(ids);
    for (auto& c : id_cache_) c.clear();
  }
  // The allocator model (ExploreOptions::leak_check, reuse_freed; execution_heap.cpp).
  void set_heap_options(bool leak_check, bool reuse_freed) {
    leak_check_ = leak_check;
    reuse_freed_ = reuse_freed;
  }
  // condition_variable: whether a wait may return without a notify (ExploreOptions).
  bool spurious_wakeups() const { return spurious_wakeups_; }
  void set_spurious_wakeups(bool on) { spurious_wakeups_ = on; }
  ThreadId running() const { return running_; }
  // std::terminate on a test thread's fiber (an exception met a noexcept frame): reports it
  // and leaves the fiber for good; returns only when no test thread is running.
  void terminated();
  // The call-site id of an operation (Event::loc).
  std::uint32_t site(const CallSite& at) { return sites_.id(at); }
  // Atomic sets and units of work the program declared in this run, in this run's ids
  // (scheduler/declare.cpp); empty when it declared none.
  void declare_atomic_set(std::string_view name, const VarId* vars, std::size_t n);
  void declare_unit_of_work(std::string_view label, const std::string_view* sets, std::size_t n);
  const AtomicSets& atomic_sets();

 private:
  enum class Status : std::uint8_t {
    unused,
    announced,  // suspended before `pending`
    joining,    // suspended in join() until `join_target` finishes
    yielding,   // suspended in yield() until another thread changes what it read
    spin_blocked,  // a spin_until() attempt failed or a yield() loop repeated an iteration:
                   // blocked for the rest of the execution
    stopped,    // failed, or an assume() failed: never runs again (the others run on)
    running,
    finished,
  };
  enum class Request : std::uint8_t { none, spawn };

  struct ThreadState {
    boost::context::fiber fiber;  // this thread, while suspended (held by the scheduler)
    boost::context::fiber back;   // the scheduler, while this thread runs
    Status status = Status::unused;
    Request request = Request::none;
    Transition pending;
    bool pending_drains = false;
    ThreadId join_target = kNoId;
    ThreadId spawned = kNoId;  // Request::spawn: the child to start
    // What the current spin iteration read (yield(): the steps since the thread started
    // or last left yield(); spin_until(): the current attempt), by object key (obj_key);
    // a change by another thread to one of them makes the iteration `stale`. Re-running
    // an iteration that is not stale reads the same values and takes the same path, so
    // yield() blocks until it is stale. The thread's own writes do not count (a failed
    // test-and-set writes back the 1 it read, and would never block).
    std::vector<std::uint8_t> spin_marks;
    std::vector<std::uint32_t> spin_touched;
    bool stale = false;
    // RC11: a read of the current iteration or attempt read a write older than the
    // mo-latest one (block_spinning).
    bool read_old = false;
    // spin_until inside a yield() loop: the iteration's reads before the attempt (their
    // spin_marks are 2 while it runs) and whether a write changed one of them since.
    std::vector<std::uint32_t> outer_touched;
    bool outer_stale = false;
    // spin_until(): the thread's stores, rmws and lock operations so far (a failed attempt
    // must have none since `effects_at_spin`), and the call site it blocked at.
    std::uint64_t effects = 0;
    std::uint64_t effects_at_spin = 0;
    std::uint32_t spin_site = 0;
    const char* spin_how = "";  // what blocked it: "spin_until", "a yield() loop", ...
    std::string waits_on;       // or the object it waits on, for reports ("latch done")
    const char* waits_without = "notifier";  // and what never came ("count_down")
    // yield(): where the current iteration's events begin in the trace, and the thread's
    // events of the previous iteration (an iteration repeated unchanged blocks it).
    std::size_t iter_begin = 0;
    std::vector<Event> prev_iter;
    // cas_loop: where the current attempt of each open loop (innermost last) begins in
    // the trace.
    std::vector<std::size_t> loop_attempts;
    // Its announced compare-exchange confirms a cas_loop attempt that wrote nothing
    // (set_cas_waits): while it would fail on the latest write, the thread waits.
    bool pending_confirming = false;
    std::size_t confirm_end = ~std::size_t{0};  // the trace's size at loop_confirm_failed
    detail::RmwFn pending_rmw{};
    // The thread's last read (call site, variable, value) and how many times in a row it
    // read just that, with no other operation of its own in between (spin_threshold).
    std::uint32_t repeat_site = 0;
    VarId repeat_var = kNoId;
    std::int64_t repeat_value = 0;
    std::uint32_t repeats = 0;
    std::uint32_t depth = 0;   // atomic block nesting
    std::vector<std::uint32_t> constructing;  // blocks of make() whose constructor runs
    std::uint32_t created[2] = {0, 0};        // variables and locks it created (object_ids.hpp)
    void (*entry)(void*) = nullptr;
    void* arg = nullptr;
    // ASan bookkeeping of this fiber's stack.
    const void* stack_bottom = nullptr;
    std::size_t stack_size = 0;
    void* fake_stack = nullptr;
    void* tsan_fiber = nullptr;  // the TSan build's handle for this thread slot
    boost::context::stack_context sctx;  // its stack, for release_dropped
    bool dropped = false;  // left inside the terminate handler (terminated())
  };

  struct VarInfo {
    ObjKind kind;
    std::string name;
    std::uint32_t declared_at = 0;  // call site naming it when `name` is empty
    std::uint32_t block = kNoId;    // the block of make() it lives in
    bool freed = false;             // its block's free reached it (a step of destroy())
  };
  struct LockInfo {
    ThreadId owner = kNoId;
    std::string name;
    std::uint32_t declared_at = 0;
    std::uint32_t block = kNoId;
    bool freed = false;
    VarId word = kNoId;  // lock words (set_lock_words): the variable the lock is
  };
  // A block of make(): where it lies, who made and who freed it (execution_heap.cpp).
  struct Block {
    char* addr = nullptr;
    std::size_t size = 0;
    std::string_view type;
    ThreadId made_by = kNoId, destroyed_by = kNoId;  // the destroyer frees the block too
    std::uint32_t made_site = 0, destroy_site = 0;
    std::uint64_t free_step = 0, destroy_step = 0;  // the trace's event counts then
    bool freed = false;
    std::vector<VarId> vars;
    std::vector<LockId> locks;
  };
  // A thread's bump arena: its k-th block lies where it lay in every execution with the
  // same allocations before it, so pointer values replay (chunks kept across executions).
  struct Arena {
    std::vector<std::unique_ptr<char[]>> chunks;
    std::vector<std::size_t> sizes;
    std::size_t chunk = 0, used = 0;
  };

  void reset();
  ThreadId new_thread(void (*entry)(void*), void* arg);
  void start_fiber(ThreadId t);
  void resume(ThreadId t);           // one switch into t and back
  void run_thread(ThreadId t);       // resume until t announces, blocks or finishes
  bool settle();                     // wake joiners/yielders that may continue
  bool joinable_now(ThreadId child) const;
  bool spin_stale() const;
  void compute_enabled();
  bool doomed(const Transition& chosen) const;  // graph reduction: every extension is cut
  void abandon();                    // unwinds every unfinished thread
  void fiber_main(ThreadId t);
  void release_dropped(ThreadState& ts);

  // Inside a fiber.
  ThreadState& self() { return *threads_[running_]; }
  void to_scheduler();               // switch to the scheduler; returns when resumed
  bool announce(Action a, std::uint32_t target, bool drains);  // false: skip the op
  bool unwinding_skip();             // in an abandoned execution: skip or throw Unwind
  void fail(FailureKind kind, std::string message);
  const VarInfo* var_of(const Handle& h, const char* what);  // nullptr: failed
  LockInfo* lock_of(const Handle& h, const char* what);
  EventIndex emit(Op op, std::uint32_t target, std::int64_t value = 0, std::int64_t value2 = 0,
                  std::uint32_t site = 0, bool buffered = false, EventIndex issue = kNoEvent);
  static std::string thread_name(ThreadId t);
  std::string var_name(VarId v) const;
  std::string lock_name(LockId l) const;
  std::string blocked_description();
  // Records the race as the execution's failure; the threads run on.
  void race_found(const Race& race, VarId var);
  std::string access_text(EventIndex e) const;
  bool racing() const { return race_check_ && !failed_; }
  std::size_t choose_option(std::size_t n, Action a, VarId var);
  void no_choice(VarId var);
  Strategy* strategy_ = nullptr;     // the running execution's
  bool choice_aborted_ = false;      // the strategy refused a memory model's choice
  bool choice_cut_ = false;          // ... or cut the execution there (Strategy::kCut)
  ExecGraph graph_;                  // History::graph for graph strategies
  bool graph_reduction_ = false;
  std::vector<Transition> options_scratch_;

  MemoryModelKind memory_kind_;
  // RC11: per variable, the events of its writes in the order made (index = the memory
  // model's read_serial(); 0 is the initial value, kNoEvent), so a read's event names the
  // write it read.
  std::vector<std::vector<EventIndex>> rc11_writes_;
  EventIndex rc11_source(VarId v) const { return rc11_writes_[v][memory_->read_serial()]; }
  std::unique_ptr<MemoryModel> memory_;
  StackPool pool_;
  std::uint64_t max_steps_;
  std::uint32_t spin_threshold_;
  std::uint64_t depth_bound_ = 0;
  std::atomic<std::uint64_t> heartbeat_{0};

  std::uint64_t serial_ = 0;
  std::uint64_t serial_end_ = 0;  // serials below it are this Execution's to use
  static constexpr std::uint64_t kSerialBlock = 4096;
  // Declarations belong to the run whose serial_ is decl_serial_ (older ones are stale).
  std::uint64_t decl_serial_ = ~std::uint64_t{0};
  AtomicSets decl_;
  std::vector<std::pair<std::string, std::uint64_t>> unit_decls_;  // label -> set mask
  std::size_t nunit_decls_ = 0;
  void fresh_declarations();
  std::vector<std::unique_ptr<ThreadState>> threads_;
  std::size_t nthreads_ = 0;
  std::size_t finished_ = 0;
  std::size_t waiting_ = 0;  // threads in joining or yielding
  ThreadId running_ = kNoId;
  std::vector<VarInfo> vars_;
  std::size_t nvars_ = 0;
  std::vector<LockInfo> locks_;
  std::size_t nlocks_ = 0;
  std::vector<std::string> labels_;
  std::size_t nlabels_ = 0;
  std::vector<std::pair<std::string, std::int64_t>> outcome_;
  std::size_t noutcome_ = 0;

  Trace trace_;
  CallSiteCache sites_;
  History history_;
  std::vector<Transition> enabled_;
  std::vector<Transition> choices_;
  // Spin-loop bookkeeping (yield()): objects are keyed as variables 2v, locks 2l + 1.
  static std::uint32_t obj_key(std::uint32_t target, bool lock) { return 2 * target + (lock ? 1 : 0); }
  void note_read(std::uint32_t key);             // by the running thread
  void repeated_read(std::uint32_t site, VarId var, std::int64_t value);  // spin_threshold
  // A store, rmw, unlock or buffer flush; `var`: the variable written (kNoId: a lock).
  void note_write(ThreadId by, std::uint32_t key, VarId var = kNoId);
  void new_spin_iteration(ThreadState& ts);
  // The step of the running thread's last access if it is a read (History::blocked_read_step).
  std::uint32_t blocked_read_step() const;
  // The running thread, for good; `waits_on` names a condition variable for reports.
  void block_spinning(std::uint32_t site, const char* how, std::string_view waits_on = {},
                      const char* without = "notifier");
  bool spurious_wakeups_ = true;
  std::vector<Event> iter_scratch_;
  bool loop_reduction_ = true;  // cas_loop (execution_spin.cpp)
  bool lock_words_ = false;
  bool cas_waits_ = false;       // set_cas_waits     // set_lock_words (execution_sync.cpp)
  bool lock_word_acquire(LockInfo& l, bool block);
  void lock_word_release(LockInfo& l);

  RaceDetector race_;
  bool race_check_ = true;

  // Object ids (object_ids.hpp): the search's table and this Execution's copy of it.
  std::shared_ptr<ObjectIds> ids_ = std::make_shared<ObjectIds>();
  std::vector<std::vector<std::uint32_t>> id_cache_[2];
  std::uint32_t stable_id(int kind);  // the next object's id, of the running thread
  void new_var_slot();                // an unused variable id (a placeholder)
  void new_lock_slot();

  // The allocator model (execution_heap.cpp).
  std::vector<Block> blocks_;
  std::size_t nblocks_ = 0;
  std::vector<Arena> arenas_;                // per thread
  // Every arena chunk lies in [heap_lo_, heap_hi_): a value outside is no heap pointer,
  // found with two compares on each event's value (heap_event_value).
  std::uintptr_t heap_lo_ = UINTPTR_MAX, heap_hi_ = 0;
  std::int64_t heap_value_of(std::int64_t v) const;  // a heap pointer as events record it
  std::int64_t heap_event_value(std::int64_t v) const {
    const auto u = static_cast<std::uintptr_t>(v & kHeapPointerBits);  // a tagged pointer's too
    return u >= heap_lo_ && u < heap_hi_ ? heap_value_of(v) : v;
  }
  std::vector<std::uint32_t> free_list_;     // reuse_freed: freed blocks, last freed last
  bool leak_check_ = true, reuse_freed_ = false;
  std::uint32_t block_of(const void* p) const;  // the block starting at p (latest), or kNoId
  std::uint32_t block_containing(const void* p) const;  // among the running thread's constructing ones
  void reset_heap();
  bool leaked();                             // at the end: fails the execution with a leak
  // An access to object `var` of a freed block: fails the execution (use after free).
  void used_after_free(VarId var, const char* what, std::uint32_t site);
  // The same for a mutex of a freed block (no event: a lock operation that took no effect).
  void lock_used_after_free(LockId lock, const char* what, std::uint32_t site);
  std::string block_text(const Block& b) const;
  void double_free(std::uint32_t block, std::uint32_t site);      // fails the execution
  void mark_freed(std::uint32_t block, std::uint32_t site);

  bool failed_ = false;
  bool assumed_ = false;  // some thread is assume_blocked: the execution ends pruned
  bool unwinding_ = false;
  Failure failure_;

  // The scheduler's own stack, learnt from the first switch back (ASan).
  const void* sched_bottom_ = nullptr;
  std::size_t sched_size_ = 0;
  void* sched_fake_ = nullptr;
  void* sched_tsan_ = nullptr;  // TSan: the scheduler's fiber, while a thread runs
  const Program* program_ = nullptr;
};

}  // namespace atomcheck::detail
