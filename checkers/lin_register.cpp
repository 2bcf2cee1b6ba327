// A register's history of distinct written values decided by Gibbons and Korach's zones (see
// lin_register.hpp and docs/linearizability.md "Registers of distinct written values").
#include "checkers/lin_register.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace atomcheck::lin {

namespace {

using Verdict = RegisterAnswer::Verdict;
constexpr std::uint32_t kNoOp = ~0u;
// The initial value's write, which precedes every position, and the return of a write that
// never returned, which follows them all.
constexpr std::int64_t kBefore = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kAfter = std::numeric_limits<std::int64_t>::max();
// The order built places operations between positions, at 8 times a position plus a small
// offset; positions this large or larger are left to the search rather than overflow.
constexpr std::uint64_t kLargest = std::uint64_t{1} << 58;

RegisterAnswer undecided(std::string why) { return RegisterAnswer::left(std::move(why)); }

RegisterAnswer bad(std::string pattern, std::vector<std::uint32_t> witness) {
  std::erase(witness, kNoOp);
  std::sort(witness.begin(), witness.end());
  witness.erase(std::unique(witness.begin(), witness.end()), witness.end());
  return RegisterAnswer::found(std::move(pattern), std::move(witness));
}

// A write and the completed reads of its value (cluster 0: the initial value, whose write
// is before everything). Every linearization places a cluster's operations contiguously,
// the write first: values are distinct, so once another write comes, no later read can
// return this one's value. Its zone runs from its earliest return to its latest call:
// forward when the earliest return comes first, so the cluster's operations must span
// [min_ret, max_call]; backward otherwise, so all of them may take effect at one point in
// [max_call, min_ret].
struct Cluster {
  std::uint32_t write = kNoOp;
  std::vector<std::uint32_t> reads;
  std::int64_t min_ret = kAfter, max_call = kBefore;
  std::uint32_t min_ret_op = kNoOp, max_call_op = kNoOp;
  bool forward() const { return min_ret < max_call; }
};

std::int64_t call_of(const Operation& op) { return static_cast<std::int64_t>(op.call); }
std::int64_t ret_of(const Operation& op) { return op.pending() ? kAfter : static_cast<std::int64_t>(op.ret); }

}  // namespace

RegisterAnswer check_register(const History& h, const Spec& spec) {
  const std::optional<RegisterShape> shape = spec.register_shape();
  if (!shape) return undecided("not a register");
  for (const Operation& op : h) {
    if (op.method != shape->read && op.method != shape->write)
      return undecided("an operation other than a read and a write");
    if (op.call >= kLargest || (!op.pending() && op.ret >= kLargest)) return undecided("positions too large");
  }

  std::vector<Cluster> cl(1);
  std::unordered_map<std::int64_t, std::uint32_t> cluster_of;
  cluster_of.reserve(h.size());
  bool twice = false, initial_written = false;
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    if (h[i].method != shape->write) continue;
    if (h[i].arg == shape->initial) {
      initial_written = true;
    } else if (!cluster_of.emplace(h[i].arg, static_cast<std::uint32_t>(cl.size())).second) {
      twice = true;
    } else {
      cl.emplace_back().write = i;
    }
  }
  // A read of a value that no write, completed or not, writes and that the register did not
  // hold at first: no order gives it, whatever the other operations did.
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    const Operation& op = h[i];
    if (op.method != shape->read || op.pending() || op.result == shape->initial) continue;
    if (!cluster_of.contains(op.result)) return bad("unwritten", {i});
  }
  if (twice) return undecided("a value written twice");
  if (initial_written) return undecided("a write of the initial value");

  // A pending read may return anything, so it is left out of every cluster.
  for (std::uint32_t i = 0; i < h.size(); ++i) {
    const Operation& op = h[i];
    if (op.method != shape->read || op.pending()) continue;
    cl[op.result == shape->initial ? 0 : cluster_of.at(op.result)].reads.push_back(i);
  }

  // The clusters kept: the initial value's when read, every completed write's, and a
  // pending write's when a read saw its value (one nobody saw may never have taken effect,
  // which constrains the others least).
  std::vector<std::uint32_t> kept;
  for (std::uint32_t k = 0; k < cl.size(); ++k) {
    Cluster& c = cl[k];
    if (c.reads.empty() && (k == 0 || h[c.write].pending())) continue;
    if (k == 0) c.min_ret = kBefore;
    std::int64_t min_read_ret = kAfter;
    std::uint32_t min_read_op = kNoOp;
    auto add = [&](std::uint32_t i) {
      if (ret_of(h[i]) < c.min_ret) c.min_ret = ret_of(h[i]), c.min_ret_op = i;
      if (call_of(h[i]) > c.max_call) c.max_call = call_of(h[i]), c.max_call_op = i;
    };
    if (c.write != kNoOp) add(c.write);
    for (std::uint32_t r : c.reads) {
      add(r);
      if (ret_of(h[r]) < min_read_ret) min_read_ret = ret_of(h[r]), min_read_op = r;
    }
    // A read that returned before its value's write was called.
    if (c.write != kNoOp && min_read_ret < call_of(h[c.write])) return bad("early", {min_read_op, c.write});
    kept.push_back(k);
  }

  // Two clusters whose operations must each span their forward zone cannot both be
  // contiguous when the zones overlap.
  std::vector<std::uint32_t> fwd;
  for (std::uint32_t k : kept)
    if (k == 0 || cl[k].forward()) fwd.push_back(k);
  std::sort(fwd.begin(), fwd.end(), [&](std::uint32_t a, std::uint32_t b) { return cl[a].min_ret < cl[b].min_ret; });
  for (std::size_t j = 0; j + 1 < fwd.size(); ++j) {
    const Cluster &a = cl[fwd[j]], &b = cl[fwd[j + 1]];
    if (a.max_call > b.min_ret)
      return bad("overlap", {a.write, a.min_ret_op, a.max_call_op, b.write, b.min_ret_op, b.max_call_op});
  }
  // The forward zone, if any, around a position (the zones are now disjoint).
  auto zone_around = [&](std::int64_t x) -> const Cluster* {
    auto it = std::partition_point(fwd.begin(), fwd.end(), [&](std::uint32_t k) { return cl[k].min_ret < x; });
    if (it == fwd.begin()) return nullptr;
    const Cluster& z = cl[*std::prev(it)];
    return x < z.max_call ? &z : nullptr;
  };
  // A cluster whose backward zone lies inside another's forward zone can neither end before
  // that zone begins (its latest call is in it) nor start after it ends (its earliest
  // return is in it).
  for (std::uint32_t k : kept) {
    const Cluster& c = cl[k];
    if (k == 0 || c.forward()) continue;
    if (const Cluster* z = zone_around(c.max_call); z && c.min_ret < z->max_call)
      return bad("inside", {c.write, c.min_ret_op, c.max_call_op, z->write, z->min_ret_op, z->max_call_op});
  }

  // An order: a forward cluster's write just before its zone, each read at its call or just
  // after the write; a backward cluster's operations together at one point of its zone that
  // no forward zone covers (its latest call, or the end of the forward zone around that).
  // Then replayed, against real time and the specification.
  std::vector<std::tuple<std::int64_t, std::uint32_t, std::uint8_t, std::uint32_t>> points;
  for (std::uint32_t k : kept) {
    const Cluster& c = cl[k];
    if (k == 0 || c.forward()) {
      if (c.write != kNoOp) points.emplace_back(8 * c.min_ret - 3, k, 0, c.write);
      for (std::uint32_t r : c.reads) {
        std::int64_t p = 8 * call_of(h[r]) + 1;
        if (k != 0) p = std::max(p, 8 * c.min_ret - 2);
        points.emplace_back(p, k, 1, r);
      }
    } else {
      const Cluster* z = zone_around(c.max_call);
      const std::int64_t t = 8 * (z ? z->max_call : c.max_call) + 2;
      points.emplace_back(t, k, 0, c.write);
      for (std::uint32_t r : c.reads) points.emplace_back(t, k, 1, r);
    }
  }
  std::sort(points.begin(), points.end());
  std::int64_t later_ret = kAfter;  // the earliest return of the operations placed after
  for (auto it = points.rbegin(); it != points.rend(); ++it) {
    const Operation& op = h[std::get<3>(*it)];
    if (call_of(op) > later_ret) return undecided("no linearization built");
    later_ret = std::min(later_ret, ret_of(op));
  }
  std::vector<std::int64_t> state = spec.initial();
  for (const auto& p : points) {
    const Operation& op = h[std::get<3>(p)];
    if (!spec.step(state, op, !op.pending())) return undecided("no linearization built");
  }
  RegisterAnswer a;
  a.verdict = Verdict::linearizable;
  return a;
}

}  // namespace atomcheck::lin
