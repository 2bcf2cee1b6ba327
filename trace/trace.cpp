// Name tables, op names and the execution-to-trace projection.
#include "trace/trace.hpp"

#include <array>
#include <cstdio>
#include <string>

namespace atomcheck {

namespace {
constexpr std::array<std::string_view, kOpCount> kOpNames = {
    "read", "write", "commit", "fence", "rmw", "acquire",
    "release", "fork", "join", "begin", "end"};
}

std::string_view op_name(Op op) { return kOpNames[static_cast<std::size_t>(op)]; }

bool parse_op(std::string_view name, Op& out) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == name) {
      out = static_cast<Op>(i);
      return true;
    }
  }
  return false;
}

std::uint32_t NameTable::intern(std::string_view name) {
  auto it = ids.find(name);
  if (it != ids.end()) return it->second;
  auto id = static_cast<std::uint32_t>(names.size());
  names.emplace_back(name);
  ids.emplace(names.back(), id);
  return id;
}

std::uint32_t NameTable::find(std::string_view name) const {
  auto it = ids.find(name);
  return it == ids.end() ? kNoId : it->second;
}

namespace {
std::string name_or(const NameTable& t, std::uint32_t id, const char* prefix) {
  if (id < t.size()) return t.name(id);
  return prefix + std::to_string(id);
}
}  // namespace

std::string Names::thread(ThreadId id) const { return name_or(threads, id, "T"); }
std::string Names::var(VarId id) const { return name_or(vars, id, "v"); }
std::string Names::lock(LockId id) const { return name_or(locks, id, "l"); }
std::string Names::label(LabelId id) const {
  if (id == kNoId) return "";
  return name_or(labels, id, "b");
}

std::string_view order_name(std::uint8_t order) {
  // std::memory_order's values, then kPlainOrder.
  static constexpr std::string_view kOrders[] = {"relaxed", "consume", "acquire", "release",
                                                 "acq_rel", "seq_cst", "plain"};
  static_assert(sizeof(kOrders) / sizeof(kOrders[0]) == kPlainOrder + 1);
  return order < sizeof(kOrders) / sizeof(kOrders[0]) ? kOrders[order] : std::string_view();
}

std::string rc11_note(const Event& e) {
  if (order_name(e.order).empty()) return {};
  std::string out = " (" + std::string(order_name(e.order));
  if (e.op == Op::read || e.op == Op::rmw)
    out += e.issue == kNoEvent ? ", reads the initial value" : ", reads #" + std::to_string(e.issue);
  return out + ")";
}

std::string format_value(std::int64_t v) {
  if (is_heap_value(v))
    return "&T" + std::to_string((v >> 36) & 0xff) + "+" + std::to_string(v & ((std::int64_t{1} << 36) - 1));
  std::string out = std::to_string(v);
  if (v > -65536 && v < 65536) return out;
  // The magnitude in hex; computed unsigned so that INT64_MIN does not overflow.
  const std::uint64_t mag = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  char hex[24];
  std::snprintf(hex, sizeof hex, "%s0x%llx", v < 0 ? "-" : "", static_cast<unsigned long long>(mag));
  return out + " (" + hex + ")";
}

std::string Names::loc(std::uint32_t id) const {
  if (id == 0) return {};
  if (id < locs.size() && !locs.names[id].empty()) return locs.names[id];
  return "loc " + std::to_string(id);
}

Trace drop_commits(const Trace& execution) {
  Trace out;
  out.names = execution.names;
  out.events.reserve(execution.events.size());
  std::size_t note = 0;
  // Notes placed before event i stay before what event i becomes (or what follows it).
  const auto notes_before = [&](std::size_t i) {
    for (; note < execution.notes.size() && execution.notes[note].before <= i; ++note) {
      out.notes.push_back(execution.notes[note]);
      out.notes.back().before = out.events.size();
    }
  };
  for (std::size_t i = 0; i < execution.events.size(); ++i) {
    notes_before(i);
    const Event& e = execution.events[i];
    if (e.op == Op::commit) continue;
    Event copy = e;
    copy.issue = kNoEvent;
    out.events.push_back(copy);
  }
  notes_before(execution.events.size());
  return out;
}

}  // namespace atomcheck
