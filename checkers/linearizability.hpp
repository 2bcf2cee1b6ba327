// Linearizability (Herlihy and Wing 1990; DESIGN.md "Linearizability"): is there an order
// of a history's operations that respects real time (an operation that returned before
// another was called comes first) and in which the sequential specification gives every
// completed operation its result? Pending operations (called, never returned) may be left
// out or take effect with any result.
//
// Two deciders. The default is Lowe's just-in-time linearization as a graph search ("Testing
// for linearizability", 2017): it walks the history's calls and returns in real-time order
// keeping the set of distinct configurations (specification state, operations already
// linearized but not yet returned), and at each return linearizes the returning operation,
// preceded by any sequence of the other open ones; so its cost is linear in the history for
// a bounded number of overlapping operations, and the first return that leaves no
// configuration ends the shortest non-linearizable prefix. The second is Wing and Gong's
// search with Lowe's memoisation of (operations linearized, state), as Porcupine and
// Lincheck run it, which can backtrack over the whole history. Both apply
// P-compositionality: a set's or a map's keys are checked apart (linearizable iff every
// key's operations are). Before either, check() decides a queue's or a stack's history of
// distinct values without a search where it can (checkers/lin_collections.hpp), and a
// register's history of distinct written values (checkers/lin_register.hpp).
// checkers/lin_naive.cpp is a third judge, from the definition.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../trace/event.hpp"

namespace atomcheck::lin {

// "No value": an absent argument, or the result of a pop, dequeue or get on nothing.
inline constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
// The return position of an operation that never returned.
inline constexpr std::uint64_t kPending = std::numeric_limits<std::uint64_t>::max();

// One operation of a history: who called which method with what, what it returned, and
// when (positions in one real-time order; calls and returns have distinct positions).
struct Operation {
  ThreadId thread = 0;
  std::uint32_t method = 0;  // index into the specification's methods()
  std::int64_t arg = kNone;
  std::int64_t arg2 = kNone;  // a map's value
  std::int64_t arg3 = kNone;  // a key-value store's cas(key, from, to): `to`
  std::int64_t result = kNone;
  std::uint64_t call = 0;
  std::uint64_t ret = kPending;
  bool pending() const { return ret == kPending; }
};

using History = std::vector<Operation>;

// A sequential specification over a plain state of integers (the contents of a stack, a
// queue, a set, ...). step() applies one operation to the state and says whether its result
// is the one the specification gives; with check_result false (a pending operation) it
// applies the operation whatever the result.
// What a register looks like to checkers/lin_register.hpp, which decides a history of
// distinct written values without a search: the method that reads, the one that writes
// and the value held at first.
struct RegisterShape {
  std::uint32_t read = 0, write = 0;
  std::int64_t initial = 0;
};

class Spec {
 public:
  virtual ~Spec() = default;
  virtual std::string_view name() const = 0;
  virtual const std::vector<std::string>& methods() const = 0;
  virtual std::vector<std::int64_t> initial() const { return {}; }
  virtual bool step(std::vector<std::int64_t>& state, const Operation& op, bool check_result) const = 0;
  // The key whose operations are independent of every other key's (P-compositionality):
  // a set's or map's element; nullopt for objects that cannot be split.
  virtual std::optional<std::int64_t> key(const Operation&) const { return std::nullopt; }
  // True when the operation leaves every state in which its result is right as it was (a
  // read, a get, a cas that answered false): a search may then linearize it as soon as it
  // can go, without trying the others first. False, the default, is always safe.
  virtual bool observer(const Operation&) const { return false; }
  // Set only by a specification that is a register: a write sets the value to its argument,
  // a read returns it and changes nothing, and nothing is keyed. Its other methods (a cas)
  // leave a history that has them to the search. nullopt, the default, is always safe.
  virtual std::optional<RegisterShape> register_shape() const { return std::nullopt; }
};

// The built-in specifications, by name: stack (push, pop), queue (enqueue, dequeue),
// deque (push_bottom, pop_bottom, steal: a work-stealing deque, the owner at the bottom),
// set (add, remove, contains: results 1/0), map (put: previous value or kNone, get,
// remove: removed value or kNone), counter (increment: the value before, get), register
// (write, read; initial 0), mutex (lock, unlock: a lock taken only when free, released only
// by its holder). nullptr for an unknown name.
std::unique_ptr<Spec> make_spec(std::string_view name);
// How many specifications are built in: the first names of spec_names().
inline constexpr std::size_t kBuiltinSpecs = 8;
// Their names, then those of the specifications registered (register_spec), by index:
// an operation's code names its specification by this index.
const std::vector<std::string>& spec_names();
// Adds a specification of one's own, so that lin::operation, ATOMCHECK_LIN_OBJECT,
// `atomcheck lincheck` and the panel's checker find it by its name() as they find a
// built-in one; returns its index in spec_names(). A name registered again takes the new
// specification (check_scenarios registers the one it is given); a built-in's name is
// refused (std::invalid_argument), as are more than 255 specifications. Register before
// exploring: the table is not guarded against a search running meanwhile.
std::uint32_t register_spec(std::shared_ptr<const Spec> spec);

// Operations in a trace (scheduler/lin_test.hpp `operation`): an operation is an atomic
// block whose `begin` event carries the argument in `value` and, in `value2`, the code
// below naming the specification (its index in spec_names()), the object (a dense id per
// execution, so two stacks are two histories) and the method; its `end` carries the result
// in `value` and the second argument (a map's value) in `value2`. A plain atomic block's
// begin has value2 0, which is no code. Packed into one field so that events keep their
// size and every other checker reads an operation as the atomic block it also is.
struct OperationCode {
  std::uint32_t spec = 0;    // < 256
  std::uint32_t object = 0;  // < 65536
  std::uint32_t method = 0;  // < 256
};
inline constexpr std::int64_t kOperationMark = std::int64_t{1} << 40;
constexpr std::int64_t encode_operation(OperationCode c) {
  return kOperationMark | static_cast<std::int64_t>(c.spec & 0xffu) << 24 |
         static_cast<std::int64_t>(c.object & 0xffffu) << 8 | static_cast<std::int64_t>(c.method & 0xffu);
}
constexpr bool is_operation_code(std::int64_t v) { return (v & ~std::int64_t{0xffffffff}) == kOperationMark; }
constexpr OperationCode decode_operation(std::int64_t v) {
  return {static_cast<std::uint32_t>(v >> 24) & 0xffu, static_cast<std::uint32_t>(v >> 8) & 0xffffu,
          static_cast<std::uint32_t>(v) & 0xffu};
}

// One part's outcome (a key's operations, or the whole history), when
// Options::report_parts asks for them.
struct PartAnswer {
  std::optional<std::int64_t> key;  // nullopt: the history is not split
  std::uint32_t operations = 0;
  std::uint64_t steps = 0;
  double seconds = 0;
  // "linearizable", "not linearizable", "undecided", or "not decided" (stopped: another
  // part failed first).
  std::string verdict;
};

struct Answer {
  bool linearizable = true;
  // Why no answer ("" when decided): the search budget ran out. `linearizable` means
  // nothing then.
  std::string undecided;
  // Not linearizable, by wing_gong: one linearization of the longest prefix the search
  // could order, as indices into the history (just_in_time leaves it empty).
  std::vector<std::uint32_t> longest;
  std::uint64_t steps = 0;  // search steps, for the budget and for benchmarks
  std::vector<PartAnswer> parts;  // with Options::report_parts, in the order of parts
};

enum class Algorithm : std::uint8_t { just_in_time, wing_gong };

// Every budget answers undecided when it runs out, never a verdict.
struct Options {
  std::uint64_t max_steps = 50'000'000;  // then undecided
  bool partition = true;                 // check each key alone where the spec has keys
  Algorithm algorithm = Algorithm::just_in_time;
  double timeout_seconds = 0;    // wall-clock limit of one check; 0: none
  std::uint64_t max_memory = 0;  // bytes the searches' memos may hold in all; 0: none
  // Parts (keys) decided at once on this many threads; the first part found not
  // linearizable stops the others. 0: every core.
  unsigned jobs = 1;
  bool report_parts = false;  // fill Answer::parts
  // A built-in queue's or stack's history whose pushed values are distinct is first
  // decided in O(n log n) by its bad patterns and an order built and replayed
  // (checkers/lin_collections.hpp); what that leaves undecided goes to the search.
  // false: the search alone.
  bool collections = true;
  // The same for a register's history whose written values are distinct (read and write
  // only; Spec::register_shape), by Gibbons and Korach's zones
  // (checkers/lin_register.hpp). false: the search alone.
  bool registers = true;
};

// Throws std::invalid_argument when an operation returns before it is called, a method
// index is out of range, or two positions coincide.
Answer check(const History& history, const Spec& spec, const Options& options = {});

// Which operations precede which, where no one real-time order says it: the panel's
// executions, whose precedence is the order every member of the explored class agrees on
// (docs/linearizability.md "What precedes means"), a partial order that need not be an
// interval order. before(a, b): operation a returned before operation b was called.
// Operations of one thread are ordered by their calls whatever it says; a pending
// operation precedes nothing. `call` and `ret` then only place the cuts of
// shortest_failing_prefix and the positions printed.
struct Precedence {
  std::size_t n = 0;
  std::vector<std::uint8_t> bits;  // n × n: row a, column b
  explicit Precedence(std::size_t count = 0) : n(count), bits(count * count, 0) {}
  bool before(std::size_t a, std::size_t b) const { return bits[a * n + b] != 0; }
  void set(std::size_t a, std::size_t b) { bits[a * n + b] = 1; }
};

// Linearizability under a precedence: a search over the per-thread prefixes linearized so
// far (the down-sets of the order, polynomial in the operations for a fixed number of
// threads) and the state, each pair visited once. P-compositional as check(). Throws
// std::invalid_argument when the sizes differ or a method index is out of range.
Answer check(const History& history, const Precedence& order, const Spec& spec, const Options& options = {});

// The shortest non-linearizable prefix of a history that is not linearizable: the
// operations called before the earliest cut of real time at which the history so far
// (operations not yet returned taken as pending) is already not linearizable. Empty when
// the history is linearizable (or undecided).
History shortest_failing_prefix(const History& history, const Spec& spec, const Options& options = {});
// The same under a precedence; `prefix_order`, when given, receives the prefix's.
History shortest_failing_prefix(const History& history, const Precedence& order, const Spec& spec,
                                const Options& options = {}, Precedence* prefix_order = nullptr);

// "T1 enqueue(1) -> none  before  T2 dequeue() -> none": one line per pair of operations
// of different threads that the order relates and no third operation between them does
// (its transitive reduction), so a report shows what made a history fail.
std::string format_order(const History& history, const Precedence& order, const Spec& spec);

// "T1 push(3) -> ok  [2, 5]": one line per operation, in call order.
std::string format_history(const History& history, const Spec& spec);

}  // namespace atomcheck::lin
