// The words of a strategy's saved state (Strategy::save/load, docs/checkpoint.md): a
// transition as two words, and a reader that checks every count against the words left,
// shared by the DPOR strategies, whose nodes hold transitions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "strategy.hpp"

namespace atomcheck::detail {

// Thread and target; action, flags (drains, local, failed, choice) and seq.
inline void push_transition(std::vector<std::uint64_t>& out, const Transition& t) {
  out.push_back(std::uint64_t{t.thread} | std::uint64_t{t.target} << 32);
  const std::uint64_t flags = (t.drains ? 1u : 0u) | (t.local ? 2u : 0u) | (t.failed ? 4u : 0u) | (t.choice ? 8u : 0u);
  out.push_back(static_cast<std::uint64_t>(t.action) | flags << 8 | std::uint64_t{t.seq} << 32);
}

inline void push_transitions(std::vector<std::uint64_t>& out, const std::vector<Transition>& ts) {
  out.push_back(ts.size());
  for (const Transition& t : ts) push_transition(out, t);
}

// A string: its length, then its bytes eight to a word (a unit's error, a schedule).
inline void push_string(std::vector<std::uint64_t>& out, std::string_view s) {
  out.push_back(s.size());
  for (std::size_t i = 0; i < s.size(); i += 8) {
    std::uint64_t w = 0;
    for (std::size_t k = 0; k < 8 && i + k < s.size(); ++k)
      w |= std::uint64_t{static_cast<unsigned char>(s[i + k])} << (8 * k);
    out.push_back(w);
  }
}

// Reads what push_* wrote; false (and no read past the end) on words that are not such.
struct WordReader {
  std::span<const std::uint64_t> in;
  std::size_t at = 0;
  std::size_t left() const { return in.size() - at; }
  bool word(std::uint64_t& w) {
    if (at >= in.size()) return false;
    w = in[at++];
    return true;
  }
  bool transition(Transition& t) {
    std::uint64_t a = 0, b = 0;
    if (!word(a) || !word(b)) return false;
    if ((b & 0xff) > static_cast<std::uint64_t>(Action::flush) || ((b >> 8) & 0xffffff) > 15) return false;
    t.thread = static_cast<ThreadId>(a & 0xffffffffu);
    t.target = static_cast<std::uint32_t>(a >> 32);
    t.action = static_cast<Action>(b & 0xff);
    t.drains = (b >> 8) & 1;
    t.local = (b >> 9) & 1;
    t.failed = (b >> 10) & 1;
    t.choice = (b >> 11) & 1;
    t.seq = static_cast<std::uint32_t>(b >> 32);
    return true;
  }
  bool text(std::string& s) {
    std::uint64_t n = 0;
    if (!word(n) || (n + 7) / 8 > left()) return false;
    s.resize(n);
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((in[at + i / 8] >> (8 * (i % 8))) & 0xff);
    at += (n + 7) / 8;
    return true;
  }
  bool transitions(std::vector<Transition>& ts) {
    std::uint64_t n = 0;
    if (!word(n) || n > left() / 2) return false;
    ts.resize(n);
    for (Transition& t : ts)
      if (!transition(t)) return false;
    return true;
  }
};

}  // namespace atomcheck::detail
