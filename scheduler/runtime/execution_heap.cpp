// The allocator model (api.hpp make/destroy, docs/api.md "Memory: make and destroy"):
// blocks made through the harness, the atomcheck objects built inside them, and the
// failures of reclamation: use after free, double free, leak.
//
// Why a free is a step per object: an access and the free of its object must not commute,
// or DPOR would explore one order of the two and call the other equivalent. Each object of
// the block is freed by a read-modify-write-like step on it (draining the buffer under
// TSO), so every order of a free and the accesses to that object is explored; an object
// counts as freed from its own step on. A block with no atomcheck object inside frees in
// no step (nothing can observe the order).
//
// Under RC11 "after the free" is happens-after (the detector's clocks): an access ordered
// after the free in the interleaving but not by happens-before races with it, and so does
// an earlier access that the free does not happen after. Where the free falls among the
// steps then changes no verdict, so it takes none (with race_check off, only accesses
// after it in the explored order are found).
#include <fmt/core.h>

#include <algorithm>

#include "scheduler/runtime/execution.hpp"

namespace atomcheck::detail {

namespace {
constexpr std::size_t kChunk = 64 * 1024;
}  // namespace

void Execution::reset_heap() {
  nblocks_ = 0;
  free_list_.clear();
  for (Arena& a : arenas_) a.chunk = a.used = 0;
}

std::int64_t Execution::heap_value_of(std::int64_t v) const {
  const auto u = static_cast<std::uintptr_t>(v & kHeapPointerBits);
  for (std::size_t t = 0; t < arenas_.size(); ++t) {
    const Arena& a = arenas_[t];
    std::uint64_t before = 0;  // bytes of the arena's earlier chunks
    for (std::size_t c = 0; c < a.chunks.size(); ++c) {
      const auto lo = reinterpret_cast<std::uintptr_t>(a.chunks[c].get());
      if (u >= lo && u < lo + a.sizes[c]) return heap_value(v, static_cast<std::uint32_t>(t), before + (u - lo));
      before += a.sizes[c];
    }
  }
  return v;
}

std::uint32_t Execution::block_of(const void* p) const {
  for (std::size_t i = nblocks_; i-- > 0;)
    if (blocks_[i].addr == p) return static_cast<std::uint32_t>(i);
  return kNoId;
}

// Objects are built by the constructor that make() runs: the innermost block under
// construction that holds the address (a constructor may make() other blocks).
std::uint32_t Execution::block_containing(const void* p) const {
  const auto& stack = threads_[running_]->constructing;
  const char* c = static_cast<const char*>(p);
  for (std::size_t i = stack.size(); i-- > 0;) {
    const Block& b = blocks_[stack[i]];
    if (c >= b.addr && c < b.addr + b.size) return stack[i];
  }
  return kNoId;
}

void* Execution::make_block(std::size_t size, std::size_t align, std::string_view type, std::uint32_t site) {
  if (size == 0) size = 1;
  char* addr = nullptr;
  if (reuse_freed_) {
    // A LIFO free list: the most recent free of a block this size is the next made.
    for (std::size_t i = free_list_.size(); i-- > 0;) {
      const Block& f = blocks_[free_list_[i]];
      if (f.size == size && reinterpret_cast<std::uintptr_t>(f.addr) % align == 0) {
        addr = f.addr;
        free_list_.erase(free_list_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
  }
  if (!addr) {
    if (running_ >= arenas_.size()) arenas_.resize(running_ + 1);
    Arena& a = arenas_[running_];
    align = std::max<std::size_t>(align, alignof(std::max_align_t));
    for (;;) {
      if (a.chunk == a.chunks.size()) {
        const std::size_t n = std::max(kChunk, size + align);
        a.chunks.emplace_back(new char[n]);
        a.sizes.push_back(n);
        const auto lo = reinterpret_cast<std::uintptr_t>(a.chunks.back().get());
        heap_lo_ = std::min(heap_lo_, lo);
        heap_hi_ = std::max(heap_hi_, lo + n);
      }
      const auto base = reinterpret_cast<std::uintptr_t>(a.chunks[a.chunk].get());
      const std::size_t at = ((base + a.used + align - 1) / align) * align - base;
      if (at + size <= a.sizes[a.chunk]) {
        addr = a.chunks[a.chunk].get() + at;
        a.used = at + size;
        break;
      }
      ++a.chunk;
      a.used = 0;
    }
  }
  const auto id = static_cast<std::uint32_t>(nblocks_++);
  if (id == blocks_.size()) blocks_.emplace_back();
  Block& b = blocks_[id];
  b.addr = addr;
  b.size = size;
  b.type = type;
  b.made_by = running_;
  b.made_site = site;
  b.destroyed_by = kNoId;
  b.destroy_site = 0;
  b.destroy_step = 0;
  b.free_step = 0;
  b.freed = false;
  b.vars.clear();
  b.locks.clear();
  threads_[running_]->constructing.push_back(id);
  return addr;
}

// The block whose constructor just ended is the innermost one under construction.
void Execution::made(void* block) {
  auto& stack = threads_[running_]->constructing;
  if (stack.empty() || blocks_[stack.back()].addr != block) return;
  stack.pop_back();
}

// The constructor threw: nothing was made, so nothing leaks or may be freed.
void Execution::make_failed(void* block) {
  auto& stack = threads_[running_]->constructing;
  if (stack.empty() || blocks_[stack.back()].addr != block) return;
  blocks_[stack.back()].freed = true;
  stack.pop_back();
}

namespace {
// Anonymous namespaces say nothing to the reader ("atomcheck::{anonymous}::Node").
std::string type_text(std::string_view t) {
  std::string type(t);
  for (std::string_view anon : {"{anonymous}::", "(anonymous namespace)::"})
    for (std::size_t p; (p = type.find(anon)) != std::string::npos;) type.erase(p, anon.size());
  return type;
}
}  // namespace

std::string Execution::block_text(const Block& b) const {
  const std::string at = call_site_name(b.made_site);
  return fmt::format("{} made by T{}{}", type_text(b.type), b.made_by, at.empty() ? "" : " at " + at);
}

bool Execution::destroy_begin(void* block, std::uint32_t site) {
  if (unwinding_) return unwinding_skip();
  const std::uint32_t id = block_of(block);
  if (id == kNoId) {
    fail(FailureKind::usage, fmt::format("T{}: destroy() of {} that make() did not return{}", running_, block,
                                         site ? " at " + call_site_name(site) : std::string()));
    return false;
  }
  Block& b = blocks_[id];
  if (b.freed || b.destroyed_by != kNoId) {
    double_free(id, site);
    return false;
  }
  // A destroy, not only its free, is what a second destroy doubles: two destructors of one
  // block must not both run (the second would race with the first, or read freed memory).
  b.destroyed_by = running_;
  b.destroy_site = site;
  b.destroy_step = trace_.events.size();
  return true;
}

void Execution::double_free(std::uint32_t id, std::uint32_t site) {
  const Block& b = blocks_[id];
  const std::string first = call_site_name(b.destroy_site), again = call_site_name(site);
  fail(FailureKind::double_free,
       fmt::format("double free of {}: freed by T{}{} (destroy from step {}), again by T{}{} (before step {})",
                   block_text(b), b.destroyed_by, first.empty() ? "" : " at " + first, b.destroy_step, running_,
                   again.empty() ? "" : " at " + again, trace_.events.size()));
}

// The block is freed when the free's first step runs (an access before it is no use after
// free); only its destroyer gets here (destroy_begin), so who freed it and where are
// destroyed_by and destroy_site.
void Execution::mark_freed(std::uint32_t id, std::uint32_t site) {
  Block& b = blocks_[id];
  b.freed = true;
  // Where the free shows in a report's table (steps are the trace's events): before the
  // event that follows it.
  b.free_step = trace_.events.size();
  trace_.notes.push_back({b.free_step, running_, site, "free " + type_text(b.type)});
}

void Execution::destroy_end(void* block, std::uint32_t site) {
  const std::uint32_t id = block_of(block);
  if (id == kNoId) return;
  // Under RC11 happens-before decides, not the order of steps: no step (a step without a
  // memory event would also look movable to the graph reduction, which cuts it).
  const bool steps = !memory_->chooses() && (!blocks_[id].vars.empty() || !blocks_[id].locks.empty());
  if (!steps) mark_freed(id, site);
  // Indices, not references: announce() switches to the scheduler, and other threads
  // may make blocks (and grow blocks_) before this one resumes.
  for (std::size_t k = 0; k < blocks_[id].vars.size(); ++k) {
    const VarId v = blocks_[id].vars[k];
    if (steps && !announce(Action::rmw, v, memory_->drains(Action::rmw, std::memory_order_seq_cst))) return;
    if (steps && k == 0) mark_freed(id, site);
    if (failed_) continue;
    if (racing()) {
      Race race;
      // The free is no event: the race names the access (race_first) and no second one.
      if (race_.free_var(running_, v, kNoEvent, race)) {
        failure_ = Failure{FailureKind::data_race,
                           fmt::format("data race on {} of {}: {} and its free by T{} at {} (before step {}), "
                                       "not ordered by happens-before",
                                       var_name(v), block_text(blocks_[id]),
                                       race.first == kNoEvent
                                           ? std::string("its initialisation")
                                           : fmt::format("{} (step {})", access_text(race.first), race.first),
                                       running_, call_site_name(site), trace_.events.size()),
                           running_, {}, 0};
        failure_.race_first = race.first;
        failed_ = true;
      }
    }
    vars_[v].freed = true;
    note_write(running_, obj_key(v, false), v);
  }
  // A mutex's free is a step dependent with its lock operations, labelled as the one that
  // never blocks (try_lock), so DPOR orders it both ways with each of them.
  for (std::size_t k = 0; k < blocks_[id].locks.size(); ++k) {
    const LockId l = blocks_[id].locks[k];
    if (steps && !announce(Action::try_acquire, l, memory_->drains(Action::try_acquire, std::memory_order_seq_cst)))
      return;
    if (steps && k == 0 && blocks_[id].vars.empty()) mark_freed(id, site);
    locks_[l].freed = true;
    note_write(running_, obj_key(l, true));
  }
  if (reuse_freed_) free_list_.push_back(id);
}

void Execution::lock_used_after_free(LockId lock, const char* what, std::uint32_t site) {
  const Block& b = blocks_[locks_[lock].block];
  const std::string freed_at = call_site_name(b.destroy_site), at = call_site_name(site);
  fail(FailureKind::use_after_free,
       fmt::format("use after free: T{} {} {}{} (before step {}) of {}, freed by T{}{} (before step {})", running_,
                   what, lock_name(lock), at.empty() ? "" : " at " + at, trace_.events.size(), block_text(b),
                   b.destroyed_by, freed_at.empty() ? "" : " at " + freed_at, b.free_step));
}

void Execution::used_after_free(VarId var, const char* what, std::uint32_t site) {
  // The access is in the trace (as a read whatever it was: it takes no effect), so the
  // report's columns and any judge of the trace see where it happened.
  emit(Op::read, var, 0, 0, site);
  const Block& b = blocks_[vars_[var].block];
  const std::string freed_at = call_site_name(b.destroy_site), at = call_site_name(site);
  // Under RC11 an access the free does not happen before races with it.
  if (memory_->chooses() && racing() && !race_.after_free(running_, var)) {
    fail(FailureKind::data_race,
         fmt::format("data race on {} of {}: T{} {} {}{} (step {}) and its free by T{}{} (before step {}), not "
                     "ordered by happens-before",
                     var_name(var), block_text(b), running_, what, var_name(var), at.empty() ? "" : " at " + at,
                     trace_.events.size() - 1, b.destroyed_by, freed_at.empty() ? "" : " at " + freed_at, b.free_step));
    return;
  }
  fail(FailureKind::use_after_free,
       fmt::format("use after free: T{} {} {}{} (step {}) of {}, freed by T{}{} (before step {})", running_, what,
                   var_name(var), at.empty() ? "" : " at " + at, trace_.events.size() - 1, block_text(b),
                   b.destroyed_by, freed_at.empty() ? "" : " at " + freed_at, b.free_step));
}

bool Execution::leaked() {
  if (!leak_check_) return false;
  std::size_t n = 0, first = kNoId;
  for (std::size_t i = 0; i < nblocks_; ++i)
    if (!blocks_[i].freed) {
      if (first == kNoId) first = i;
      ++n;
    }
  if (n == 0) return false;
  failure_ = Failure{FailureKind::leak,
                     fmt::format("leak: {} was never freed{}", block_text(blocks_[first]),
                                 n > 1 ? fmt::format(" ({} blocks in all)", n) : std::string()),
                     blocks_[first].made_by, {}, 0};
  failure_.event = trace_.events.size();
  failed_ = true;
  return true;
}

}  // namespace atomcheck::detail
