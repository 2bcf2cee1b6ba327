// The streaming statistics behind trace-info.
#include "trace/summary.hpp"

namespace atomcheck {

namespace {
template <typename T>
T& grow(std::vector<T>& v, std::uint32_t id) {
  if (id >= v.size()) v.resize(static_cast<std::size_t>(id) + 1, T{});
  return v[id];
}
}  // namespace

void SummaryBuilder::on_event(const Event& e) {
  ++s_.events;
  ++s_.by_op[static_cast<std::size_t>(e.op)];
  if (e.op == Op::read && e.buffered) ++s_.buffered_reads;
  grow(acted_, e.thread) = 1;
  locations_.insert(e.loc);
  if (is_access(e.op) && e.target != kNoId) {
    std::uint8_t& f = grow(var_flags_, e.target);
    if (e.op == Op::read || e.op == Op::rmw) f |= 1;
    if (is_write_like(e.op)) f |= 2;
  }
  if (is_lock_op(e.op) && e.target != kNoId) grow(lock_used_, e.target) = 1;

  // Transactions as trace/transactions.hpp assigns them: an outermost block is one, an
  // event outside every block (a stray end included) is a unary one, a commit joins the
  // transaction of its issue and so never starts one.
  std::uint32_t& d = grow(depth_, e.thread);
  if (e.op == Op::begin) {
    if (d == 0) ++s_.blocks;
    ++d;
    if (d > s_.max_nesting) s_.max_nesting = d;
  } else if (e.op == Op::end && d > 0) {
    --d;
  } else if (d == 0 && e.op != Op::commit) {
    ++s_.unary;
  }
}

TraceSummary SummaryBuilder::result(const Names& names) const {
  TraceSummary s = s_;
  s.threads = 0;
  for (auto a : acted_) s.threads += a;
  s.named_threads = std::max<std::uint64_t>(names.threads.size(), acted_.size());
  for (auto f : var_flags_) {
    s.variables += f != 0;
    s.read_variables += (f & 1) != 0;
    s.written_variables += (f & 2) != 0;
  }
  for (auto l : lock_used_) s.locks += l;
  s.locations = locations_.size();
  s.open_blocks = 0;
  for (auto d : depth_) s.open_blocks += d > 0;
  s.transactions = s.blocks + s.unary;
  return s;
}

TraceSummary summarize(const Trace& trace) {
  SummaryBuilder b;
  for (const Event& e : trace.events) b.on_event(e);
  return b.result(trace.names);
}

}  // namespace atomcheck
