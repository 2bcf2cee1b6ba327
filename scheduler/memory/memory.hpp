// memory/ owns the memory models behind the API objects: this interface, one file per
// model (memory_sc.cpp, memory_tso.cpp, memory_rc11.cpp), their names (model_kind.hpp) and
// the data-race detector (race.*). It may include search/ (the transitions a flush is) and
// trace/; never runtime/ or explore/ (tests/test_layers.cpp).
//
// The memory model behind the API objects: what a load returns, where a store goes, and
// (under TSO) the store buffers whose flushes are extra transitions. One small interface,
// SC, x86-TSO and RC11 implementations; variables and threads are dense ids. RC11 is the
// one model with choices (which write a load reads, where a store goes in modification
// order): the Execution asks the strategy to pick among the options it counts.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "model_kind.hpp"
#include "rmw.hpp"
#include "../search/strategy.hpp"
#include "../../trace/event.hpp"

namespace atomcheck::detail {

// A store that reached memory from a buffer.
struct Flushed {
  VarId var = kNoId;
  std::int64_t value = 0;
  EventIndex issue = kNoEvent;
};

class MemoryModel {
 public:
  virtual ~MemoryModel() = default;
  // Forgets every variable and buffer (keeps capacity).
  virtual void reset() = 0;
  // Variables get ids 0, 1, ... in order of add_var.
  virtual void add_var(std::int64_t initial) = 0;
  // The initial value of variable v, added earlier (ids may be taken before their object
  // is created: runtime/object_ids.hpp); before any access to it.
  virtual void set_initial(VarId v, std::int64_t initial) = 0;
  // What a load by `t` of `v` returns; `buffered` says it came from t's own buffer.
  virtual std::int64_t load(ThreadId t, VarId v, bool& buffered) = 0;
  // Does a store with this order go through the store buffer (true) or straight to
  // memory (false)?
  virtual bool store_is_buffered(std::memory_order mo) const = 0;
  // Must t's buffer be empty before this action (fence, locked rmw, mutex op, xchg
  // store)?
  virtual bool drains(Action a, std::memory_order mo) const = 0;
  // Puts a store in t's buffer (only when store_is_buffered).
  virtual void buffer_store(ThreadId t, VarId v, std::int64_t value, EventIndex issue) = 0;
  // Memory itself (rmw, unbuffered stores); callers ensure t's buffer is empty under TSO.
  virtual std::int64_t read_memory(VarId v) const = 0;
  virtual void write_memory(VarId v, std::int64_t value) = 0;
  virtual bool buffer_empty(ThreadId t) const = 0;
  // Does t's buffer hold a store to v (a load by t of v would be served by it)?
  virtual bool buffer_has(ThreadId t, VarId v) const = 0;
  virtual bool all_buffers_empty() const = 0;
  // Appends one flush transition per non-empty buffer, in thread order.
  virtual void append_flushes(std::vector<Transition>& out) const = 0;
  // Commits the oldest entry of t's buffer to memory.
  virtual Flushed flush(ThreadId t) = 0;
  // Number of entries in t's buffer (for reports).
  virtual std::size_t buffered_count(ThreadId t) const = 0;
  // The index, among t's buffered stores of this execution, that t's next buffered store
  // gets (Transition::seq); a flush's seq is the index of the store it commits.
  virtual std::uint32_t next_store_seq(ThreadId t) const = 0;

  // ---- models with choices (chooses() true: RC11) ------------------------------------
  // The Execution calls *_options, lets the strategy pick one of the n (n >= 1; 0 only
  // if the model has no consistent way on, which RC11 rules out) and calls take_* with
  // it before any other call. `plain`: a shared<T> (non-atomic) access.
  virtual bool chooses() const { return false; }
  virtual std::size_t load_options(ThreadId t, VarId v, std::memory_order mo, bool plain) {
    (void)t, (void)v, (void)mo, (void)plain;
    return 1;
  }
  virtual std::int64_t take_load(std::size_t pick) { (void)pick; return 0; }
  virtual std::size_t store_options(ThreadId t, VarId v, std::int64_t value, std::memory_order mo, bool plain) {
    (void)t, (void)v, (void)value, (void)mo, (void)plain;
    return 1;
  }
  virtual void take_store(std::size_t pick) { (void)pick; }
  // A read-modify-write; an option that does not write is a failed compare-exchange,
  // a load with fn.failure.
  virtual std::size_t rmw_options(ThreadId t, VarId v, const RmwFn& fn, std::memory_order mo) {
    (void)t, (void)v, (void)fn, (void)mo;
    return 1;
  }
  struct RmwTaken {
    std::int64_t old_value = 0, new_value = 0;
    bool wrote = false;
  };
  virtual RmwTaken take_rmw(std::size_t pick) { (void)pick; return {}; }
  // The write the last take_load or take_rmw read, numbered per variable in the order
  // the writes were made (the initial value is 0): what the race detector synchronises on.
  virtual std::uint32_t read_serial() const { return 0; }
  // Did it read the mo-latest write of its variable?
  virtual bool read_latest() const { return true; }
  // The index in its variable's mo at which the last take_store, or take_rmw that wrote,
  // inserted its write (the initial value is 0), for Event::mo_pos.
  virtual std::uint32_t write_position() const { return 0; }
  // Synchronisation the model's happens-before needs (RC11's sw and thread edges).
  virtual void sync_fence(ThreadId t, std::memory_order mo) { (void)t, (void)mo; }
  virtual void sync_spawn(ThreadId parent, ThreadId child) { (void)parent, (void)child; }
  virtual void sync_join(ThreadId joiner, ThreadId child) { (void)joiner, (void)child; }
  virtual void sync_lock(ThreadId t, LockId l) { (void)t, (void)l; }
  virtual void sync_unlock(ThreadId t, LockId l) { (void)t, (void)l; }
  // The execution graph's identity (rf of every read, mo of every variable), for counting
  // distinct graphs; 0 where the interleaving decides them.
  virtual std::uint64_t graph_hash() const { return 0; }
  // One execution per graph (RC11 under `optimal`): events made outside a chosen step
  // (a waiting thread resumed, the program's first run) are `forced`; redundant_step(t,
  // from) says whether the step of thread t that made events [from, end) leaves the
  // execution off the one interleaving kept per graph (docs/rc11.md).
  virtual std::size_t event_count() const { return 0; }
  virtual void set_forced(bool forced) { (void)forced; }
  // Accesses to v choose as they would, and synchronise nothing (detail::op_unsynchronised).
  virtual void set_unsynchronised(VarId v) { (void)v; }
  virtual bool redundant_step(ThreadId t, std::size_t from) const { (void)t, (void)from; return false; }
  virtual void sync_try_lock_failed(ThreadId t, LockId l) { (void)t, (void)l; }
  // For graph strategies (search/exec_graph.hpp): option i's graph_key after *_options,
  // and the execution's graph.
  virtual std::uint64_t option_key(std::size_t i) const { (void)i; return 0; }
  // Option i's value written (an RMW's new value), for a graph that takes it unrun.
  virtual std::int64_t option_value(std::size_t i) const { (void)i; return 0; }
  // Option i makes a confirming compare-exchange (RmwFn::confirming) fail on a write that
  // is not the latest: its attempt would only block, and a graph strategy need not take it
  // as a new branch (GenMC's SAVER, filterValuesFromAnnotSAVER). It stays an option, so
  // that a revisit's replay, which adds the events in another order, still finds it.
  virtual bool option_blocks(std::size_t i) const { (void)i; return false; }
  // Graph strategies also get an RMW's atomicity-breaking options (kMootKey).
  virtual void set_graph_mode(bool on) { (void)on; }
  // Of the n options just listed, how many are consistent (the rest: atomicity-breaking
  // ones, graph mode only). Only those make a choice point of the schedule.
  virtual std::size_t consistent_options(std::size_t n) const { return n; }
  virtual void export_graph(ExecGraph& out) const { out.clear(); }
};

// A memory without store buffers (SC, RC11): every store goes straight to memory.
class UnbufferedMemory : public MemoryModel {
 public:
  bool store_is_buffered(std::memory_order) const override { return false; }
  bool drains(Action, std::memory_order) const override { return false; }
  bool buffer_empty(ThreadId) const override { return true; }
  bool buffer_has(ThreadId, VarId) const override { return false; }
  bool all_buffers_empty() const override { return true; }
  void append_flushes(std::vector<Transition>&) const override {}
  Flushed flush(ThreadId) override { return {}; }
  std::size_t buffered_count(ThreadId) const override { return 0; }
  std::uint32_t next_store_seq(ThreadId) const override { return 0; }
};

std::unique_ptr<MemoryModel> make_memory_model(MemoryModelKind kind);  // memory.cpp: the table
std::unique_ptr<MemoryModel> make_sc_memory();    // memory_sc.cpp
std::unique_ptr<MemoryModel> make_tso_memory();   // memory_tso.cpp
std::unique_ptr<MemoryModel> make_rc11_memory();  // memory_rc11.cpp
// RC11 with every access and fence taken as seq_cst: SC as a graph model (GenMC's -sc),
// for ExploreOptions::sc_graphs. memory_rc11.cpp.
std::unique_ptr<MemoryModel> make_sc_graph_memory();
// Tests: RC11's SC axiom checked in its general form even where every access is seq_cst
// and the faster check applies (memory_rc11.cpp, sc_graph_acyclic). Not thread-safe: set
// it before a search starts.
void rc11_general_psc_check(bool on);

}  // namespace atomcheck::detail
