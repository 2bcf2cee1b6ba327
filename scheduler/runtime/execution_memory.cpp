// Execution's memory operations (execution.hpp): creating and naming shared objects,
// load, store, read-modify-write and fence as the API calls them, the memory model's
// choices (which write a load reads, under RC11) and the data races found on the way.
// Apart from the scheduler loop (execution.cpp) because they are its other side: each runs
// inside a fiber, announces its step, and once the step is chosen applies it to the
// memory model and the race detector.
#include "scheduler/runtime/execution.hpp"

#include <fmt/core.h>

namespace atomcheck::detail {

namespace {
bool g_every_cas_confirms = false;  // every_cas_confirms
}  // namespace

void every_cas_confirms(bool on) { g_every_cas_confirms = on; }


namespace {
// Event::mo_pos of a write the memory model placed at `position` (kNoMoPos past its range).
std::uint16_t mo_pos(std::uint32_t position) {
  return position < kNoMoPos ? static_cast<std::uint16_t>(position) : kNoMoPos;
}
}  // namespace

// "T1 writes 42 at mp.cpp:9": one access of a race, for its message.
std::string Execution::access_text(EventIndex i) const {
  const Event& e = trace_.events[i];
  const std::string at = call_site_name(e.loc);
  return fmt::format("T{} {} {}{}", e.thread, e.op == Op::read ? "reads" : "writes", format_value(e.value),
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

// The running thread's next object of `kind` (0 variables, 1 locks): its id in the
// search's table (object_ids.hpp), copied here so that a warm execution takes no lock.
// Objects are created on test threads only (the body is thread 0), so running_ is set.
std::uint32_t Execution::stable_id(int kind) {
  const ThreadId t = running_;
  const std::uint32_t k = threads_[t]->created[kind]++;
  auto& cache = id_cache_[kind];
  if (t >= cache.size()) cache.resize(t + 1);
  auto& mine = cache[t];
  while (mine.size() <= k) mine.push_back(ids_->get(kind, t, static_cast<std::uint32_t>(mine.size())));
  return mine[k];
}

void Execution::new_var_slot() {
  const auto v = static_cast<VarId>(nvars_++);
  if (v == vars_.size()) vars_.push_back(VarInfo{ObjKind::atomic_var, {}, 0});
  vars_[v] = VarInfo{ObjKind::atomic_var, "(unused)", 0};
  memory_->add_var(0);
  if (memory_->chooses()) {
    if (v >= rc11_writes_.size()) rc11_writes_.resize(v + 1);
    rc11_writes_[v].assign(1, kNoEvent);  // serial 0: the initial value
  }
  if (racing()) race_.add_var(v, false, kNoId);
}

void Execution::new_lock_slot() {
  const auto l = static_cast<LockId>(nlocks_++);
  if (l == locks_.size()) locks_.emplace_back();
  locks_[l] = LockInfo{kNoId, "(unused)", 0};
  if (racing()) race_.add_lock(l);
}

Handle Execution::create_object(ObjKind kind, std::int64_t initial, std::string_view name,
                                std::uint32_t declared_at, const void* self) {
  const std::uint32_t block = self && nblocks_ ? block_containing(self) : kNoId;
  Handle h;
  h.serial = serial_;
  if (kind == ObjKind::mutex) {
    h.id = stable_id(1);
    while (nlocks_ <= h.id) new_lock_slot();
    locks_[h.id].owner = kNoId;
    locks_[h.id].name.assign(name);
    locks_[h.id].declared_at = declared_at;
    locks_[h.id].block = block;
    locks_[h.id].freed = false;
    locks_[h.id].word = kNoId;
    if (lock_words_) {  // its word: the thread's next variable, so ids stay stable
      const VarId w = stable_id(0);
      while (nvars_ <= w) new_var_slot();
      vars_[w].kind = ObjKind::atomic_var;
      vars_[w].name = fmt::format("{}.word", name);
      vars_[w].declared_at = declared_at;
      vars_[w].block = kNoId;
      vars_[w].freed = false;
      memory_->set_initial(w, 0);
      locks_[h.id].word = w;
    }
    if (block != kNoId) blocks_[block].locks.push_back(h.id);
    if (racing()) race_.add_lock(h.id);
  } else {
    h.id = stable_id(0);
    while (nvars_ <= h.id) new_var_slot();
    vars_[h.id].kind = kind;
    vars_[h.id].name.assign(name);
    vars_[h.id].declared_at = declared_at;
    memory_->set_initial(h.id, initial);
    if (racing()) race_.add_var(h.id, kind == ObjKind::plain_var, running_);
    vars_[h.id].block = block;
    vars_[h.id].freed = false;
    if (block != kNoId) {
      blocks_[block].vars.push_back(h.id);
      if (racing()) race_.track(h.id, running_);
    }
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


// A choice of the memory model (which write a load reads, where a store goes): the
// strategy picks among `n` pseudo-transitions of the running thread (Transition::choice),
// recorded in the schedule like a thread choice so that replay and DFS see it.
std::size_t Execution::choose_option(std::size_t n, Action a, VarId var) {
  if (!strategy_ || n == 0) return 0;
  // A graph strategy checks even a forced choice: a revisit's replay is refused when the
  // write it planned is not the one the model allows. Not a choice point: not recorded.
  if (n == 1 && !strategy_->wants_graph()) return 0;
  options_scratch_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    Transition t{running_, a, var};
    t.choice = true;
    t.seq = static_cast<std::uint32_t>(i);
    options_scratch_.push_back(t);
  }
  if (strategy_->wants_graph()) {
    history_.option_keys.clear();
    history_.option_values.clear();
    history_.option_blocks.clear();
    for (std::size_t i = 0; i < n; ++i) {
      history_.option_keys.push_back(memory_->option_key(i));
      history_.option_values.push_back(memory_->option_value(i));
      history_.option_blocks.push_back(memory_->option_blocks(i));
    }
  }
  const std::size_t pick = strategy_->choose(options_scratch_, history_);
  if (pick == Strategy::kCut) {  // a graph strategy's inconsistent revisit
    choice_cut_ = true;
    return 0;
  }
  if (n == 1) return 0;
  // A schedule holds the choices every strategy sees: not the atomicity-breaking options.
  if (memory_->consistent_options(n) < 2 && pick < n && strategy_->error().empty()) return pick;
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
  if (vars_[h.id].freed) return used_after_free(h.id, "reads", site), unwinding_skip(), 0;
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
    // Stamped before the detector hands the clock out (and ticks it) for this access.
    if (vars_[h.id].block != kNoId) race_.access(running_, h.id, ev);
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
  if (vars_[h.id].freed) return used_after_free(h.id, "writes", site), (void)unwinding_skip();
  EventIndex issue = emit(Op::write, h.id, value, 0, site);
  trace_.events.back().order = plain ? kPlainOrder : static_cast<std::uint8_t>(mo);
  ++self().effects;
  if (racing()) {
    Race race;
    if (vars_[h.id].block != kNoId) race_.access(running_, h.id, issue);
    if (!plain) race_.atomic_store(running_, h.id, mo, memory_->store_is_buffered(mo));
    else if (race_.plain_write(running_, h.id, issue, race)) race_found(race, h.id);
  }
  if (memory_->chooses()) {
    const std::size_t n = memory_->store_options(running_, h.id, value, mo, plain);
    if (n == 0) return no_choice(h.id);
    memory_->take_store(choose_option(n, Action::write, h.id));
    trace_.events[issue].mo_pos = mo_pos(memory_->write_position());
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
  // Set before the announce, which is where the thread waits (compute_enabled).
  const bool confirming =
      (fn.confirming || (fn.cas && g_every_cas_confirms)) && memory_->chooses() && loop_reduction_ && attempt_unwritten();
  self().pending_confirming = confirming && cas_waits_;
  self().pending_rmw = fn;
  const bool announced = announce(Action::rmw, h.id, memory_->drains(Action::rmw, mo));
  self().pending_confirming = false;
  if (!announced) return {0, false};
  if (vars_[h.id].freed) return used_after_free(h.id, "updates", site), unwinding_skip(), RmwResult{0, false};
  std::int64_t old = 0, next = 0;
  bool wrote = false;
  if (memory_->chooses()) {
    fn.confirming = confirming;
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
  // The rmw's event comes next (emitted below).
  if (racing() && vars_[h.id].block != kNoId) race_.access(running_, h.id, trace_.events.size());
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
      trace_.events.back().mo_pos = mo_pos(memory_->write_position());
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

}  // namespace atomcheck::detail
