// A second, deliberately naive linearizability judge, written straight from Herlihy and
// Wing's definition (DESIGN.md "Linearizability"): try every order of every subset of the
// operations that keeps each completed one, reject orders that break real time (a
// precedes b, b placed first), and replay each order on a fresh object
// of the specification from its initial state. It shares no code with
// checkers/linearizability.cpp: the objects are written again on std containers, and
// nothing is memoised. For histories of a few operations only (n! orders). It is the
// `linearizability-oracle` judge of `validate` (linearizability_oracle.cpp) and the
// property tests' second opinion.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace atomcheck::naive {

// One operation as the definition speaks of it: an invocation and, unless pending, a
// response, each at a position of real time.
struct LinOp {
  std::uint32_t thread = 0;
  std::uint32_t method = 0;  // as lin::make_spec(name) orders them
  std::int64_t arg = 0, arg2 = 0;
  std::int64_t result = 0;
  bool pending = false;
  std::uint64_t call = 0, ret = 0;
  std::int64_t arg3 = 0;  // cas(key, from, to): `to`
  // "kv" reads its values as text (nullopt: null): arg2's (put, append, write; cas's
  // expected value), arg3's (cas's new value) and the result's (get, read).
  std::optional<std::string> text2 = std::nullopt, text3 = std::nullopt, result_text = std::nullopt;
};

// `object` is "stack", "queue", "deque", "set", "map", "counter", "register", "mutex",
// "cas-register" (read, write, cas(from, to) -> 1/0; holds `none` at first) or "kv" (get,
// put, append, read, write, cas(key, from, to) -> 1/0, over texts: get reads an absent key
// as "", read as null);
// `none` is the value an operation on nothing returns. Real time from the positions: a
// precedes b when a returned (not pending) and a.ret < b.call.
bool linearizable(const std::string& object, const std::vector<LinOp>& history, std::int64_t none);

// The same with "precedes" given as a relation (docs/linearizability.md, 'What "precedes"
// means'): before[a][b] says history[a] precedes history[b], so no order that places b
// before a is tried. A pending operation precedes nothing, whatever its row says. `call`
// and `ret` are not read. Throws std::invalid_argument unless `before` is n x n.
bool linearizable(const std::string& object, const std::vector<LinOp>& history, std::int64_t none,
                  const std::vector<std::vector<bool>>& before);

}  // namespace atomcheck::naive
