// The names of the memory models (memory.hpp implements them): public, so that options,
// reports and the command line name a model without the models' internals.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace atomcheck {

// Which memory model answers loads and owns the store buffers.
//  - sc: sequential consistency; every order is seq_cst.
//  - tso: x86-TSO, store buffers with forwarding (the C++ orders mapped to x86).
//  - rc11: the repaired C11 model (Lahav et al., PLDI 2017) as GenMC runs it: every
//    memory order honoured, a load reads any write coherence allows, no load buffering
//    (po ∪ rf acyclic), no consume (it is acquire). docs/rc11.md.
enum class MemoryModelKind : std::uint8_t { sc, tso, rc11 };
// "sc", "tso", "rc11"; nullopt for another name.
std::optional<MemoryModelKind> memory_model_from_name(std::string_view name);
std::string_view memory_model_name(MemoryModelKind kind);

}  // namespace atomcheck
