// What a program says about its execution and what the execution reports back
// (execution.hpp): atomic blocks and their labels, check() and assume() failures and
// outcomes, as the API calls them; the names of threads, variables and locks in messages
// and in the trace's name tables, and the description of a deadlock. Apart because none of
// it takes part in scheduling: it records and names.
#include "scheduler/runtime/execution.hpp"

#include <algorithm>

#include <fmt/core.h>

namespace atomcheck::detail {

namespace {

std::string_view basename(std::string_view path) {
  auto pos = path.find_last_of('/');
  return pos == std::string_view::npos ? path : path.substr(pos + 1);
}

}  // namespace

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

}  // namespace atomcheck::detail
