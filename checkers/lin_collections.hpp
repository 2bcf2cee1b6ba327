// Linearizability of queue and stack histories whose pushed (enqueued) values are
// distinct, decided in O(n log n) from bad patterns instead of a search: Henzinger, Sezgin
// and Vafeiadis's characterisation of queues ("Aspect-oriented linearizability proofs",
// CONCUR 2013) and the stack patterns of Emmi and Enea ("Sound, complete, and tractable
// linearizability monitoring for concurrent collections", POPL 2018). lin::check runs it
// before its searches (Options::collections); a history outside its preconditions, or one
// it cannot settle, is left to them. "Not linearizable" comes from a pattern found,
// "linearizable" from an order built and replayed, never from the absence of patterns
// alone. docs/linearizability.md "Queues and stacks of
// distinct values" says what each verdict rests on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "linearizability.hpp"

namespace atomcheck::lin {

enum class Collection : std::uint8_t { queue, stack };

// The answer of a check that decides a whole history by patterns, without a search
// (queues and stacks here, registers in lin_register.hpp).
struct PatternAnswer {
  enum class Verdict : std::uint8_t { undecided, linearizable, not_linearizable };
  Verdict verdict = Verdict::undecided;
  // The bad pattern found or, undecided, why the history is left to the search ("" when
  // decided linearizable). Queues and stacks: "fresh", "repeated", "order", "empty", "lifo".
  std::string pattern;
  // The operations that make up the pattern, as indices into the history.
  std::vector<std::uint32_t> witness;

  // Left to the search, and why.
  static PatternAnswer left(std::string why) { return {Verdict::undecided, std::move(why), {}}; }
  // A bad pattern found, with the operations that make it up.
  static PatternAnswer found(std::string pattern, std::vector<std::uint32_t> witness) {
    return {Verdict::not_linearizable, std::move(pattern), std::move(witness)};
  }
};
using CollectionAnswer = PatternAnswer;

// `h` holds operations of lin::make_spec("queue") (enqueue = 0, dequeue = 1) or "stack"
// (push = 0, pop = 1). Undecided, never a guess, when a value is pushed twice or is kNone,
// or when neither a bad pattern nor a linearization is found (with a removal that never
// returned, any result or none: a pattern that holds whatever it did).
CollectionAnswer check_collection(const History& h, Collection kind);

}  // namespace atomcheck::lin
