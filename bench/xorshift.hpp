// xorshift64* for the standalone trace generators (gen_std_trace, gen_tso_trace): a
// generator must outrun the checker it feeds and give the same bytes on every machine.
#pragma once

#include <cstdint>

struct XorShiftRng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1DULL;
  }
  // Uniform in [0, n).
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>((next() >> 32) * n >> 32); }
};
