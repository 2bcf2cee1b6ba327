// Sets of live-transaction slots for the one-pass trace TSO decider
// (tso_trace_fpt.cpp): one bit per slot, the first 64 in an inline word, the rest on
// the heap. Almost every summary has at most 64 live transactions, so the common case
// allocates nothing and costs what a plain uint64_t did; traces whose threads buffer
// many writes (no fences) get as many slots as they need.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace atomcheck::tso {

// A set of slot numbers. Sets of different word counts compare equal when they hold
// the same slots (trailing zero words are ignored by ==, subset and hash).
class SlotSet {
 public:
  SlotSet() = default;
  static SlotSet single(std::size_t b) {
    SlotSet s;
    s.set(b);
    return s;
  }

  bool test(std::size_t b) const { return (word(b >> 6) >> (b & 63)) & 1u; }
  void set(std::size_t b) {
    if (b < 64) {
      w0_ |= std::uint64_t{1} << b;
      return;
    }
    const std::size_t w = b >> 6;
    if (hi_.size() < w) hi_.resize(w, 0);
    hi_[w - 1] |= std::uint64_t{1} << (b & 63);
  }
  bool any() const {
    if (w0_ != 0) return true;
    for (std::uint64_t v : hi_)
      if (v != 0) return true;
    return false;
  }
  bool none() const { return !any(); }

  SlotSet& operator|=(const SlotSet& o) {
    w0_ |= o.w0_;
    if (hi_.size() < o.hi_.size()) hi_.resize(o.hi_.size(), 0);
    for (std::size_t k = 0; k < o.hi_.size(); ++k) hi_[k] |= o.hi_[k];
    return *this;
  }
  friend SlotSet operator|(SlotSet a, const SlotSet& b) { return a |= b; }
  // this minus o.
  void subtract(const SlotSet& o) {
    w0_ &= ~o.w0_;
    for (std::size_t k = 0; k < std::min(hi_.size(), o.hi_.size()); ++k) hi_[k] &= ~o.hi_[k];
  }
  void reset(std::size_t b) {
    if (b < 64) w0_ &= ~(std::uint64_t{1} << b);
    else if ((b >> 6) <= hi_.size()) hi_[(b >> 6) - 1] &= ~(std::uint64_t{1} << (b & 63));
  }
  bool subset_of(const SlotSet& o) const {
    if (w0_ & ~o.w0_) return false;
    for (std::size_t k = 0; k < hi_.size(); ++k)
      if (hi_[k] & ~(k < o.hi_.size() ? o.hi_[k] : 0)) return false;
    return true;
  }
  bool intersects(const SlotSet& o) const {
    if (w0_ & o.w0_) return true;
    for (std::size_t k = 0; k < std::min(hi_.size(), o.hi_.size()); ++k)
      if (hi_[k] & o.hi_[k]) return true;
    return false;
  }
  bool operator==(const SlotSet& o) const {
    if (w0_ != o.w0_) return false;
    const std::size_t n = std::max(hi_.size(), o.hi_.size());
    for (std::size_t k = 0; k < n; ++k)
      if ((k < hi_.size() ? hi_[k] : 0) != (k < o.hi_.size() ? o.hi_[k] : 0)) return false;
    return true;
  }

  // f(slot) for every slot in the set, in increasing order.
  template <class F>
  void for_each(F f) const {
    for (std::uint64_t v = w0_; v != 0; v &= v - 1) f(static_cast<std::size_t>(std::countr_zero(v)));
    for (std::size_t k = 0; k < hi_.size(); ++k)
      for (std::uint64_t v = hi_[k]; v != 0; v &= v - 1)
        f((k + 1) * 64 + static_cast<std::size_t>(std::countr_zero(v)));
  }
  // mix(word) for every word up to the last non-zero one (equal sets mix equally).
  template <class Mix>
  void mix_into(Mix& mix) const {
    std::size_t n = hi_.size();
    while (n > 0 && hi_[n - 1] == 0) --n;
    mix(w0_);
    for (std::size_t k = 0; k < n; ++k) mix(hi_[k]);
  }

  // Slot p becomes free: every slot >= p moves up by one.
  void insert_at(std::size_t p) {
    std::uint64_t carry = 0;
    const std::size_t pw = p >> 6;
    if ((last_word() >> 63) != 0) hi_.push_back(0);
    for (std::size_t k = 0; k < 1 + hi_.size(); ++k) {
      std::uint64_t& v = k == 0 ? w0_ : hi_[k - 1];
      const std::uint64_t out = v >> 63;
      if (k < pw) continue;
      if (k == pw) {
        const std::uint64_t low = (p & 63) == 0 ? 0 : (std::uint64_t{1} << (p & 63)) - 1;
        v = (v & low) | ((v & ~low) << 1);
      } else {
        v = (v << 1) | carry;
      }
      carry = out;
    }
  }

  // Drops the slots not in `keep` and renumbers the rest densely, in order. `narrow`:
  // every slot is below 64 (then `keep0` is keep's word and `drop_desc` the dropped
  // slots, highest first); otherwise `to[slot]` is the new number of each kept slot.
  void compress(bool narrow, std::uint64_t keep0, const std::uint32_t* drop_desc, std::size_t ndrop,
                const std::vector<std::uint32_t>& to, const SlotSet& keep) {
    if (narrow) {
      hi_.clear();
      if (ndrop > 8) {
        std::uint64_t out = 0;
        int k = 0;
        for (std::uint64_t b = keep0; b != 0; b &= b - 1, ++k)
          if (w0_ & (b & (~b + 1))) out |= std::uint64_t{1} << k;
        w0_ = out;
        return;
      }
      std::uint64_t v = w0_;
      for (std::size_t j = 0; j < ndrop; ++j) {
        const std::uint32_t b = drop_desc[j];
        const std::uint64_t low = (std::uint64_t{1} << b) - 1;
        v = (v & low) | ((v >> b >> 1) << b);
      }
      w0_ = v;
      return;
    }
    // In place, upward: a kept slot only moves down (to[b] <= b), into a word already
    // read.
    for (std::size_t k = 0; k <= hi_.size(); ++k) {
      std::uint64_t& w = k == 0 ? w0_ : hi_[k - 1];
      const std::uint64_t cur = w;
      w = 0;
      for (std::uint64_t v = cur; v != 0; v &= v - 1) {
        const std::size_t b = k * 64 + static_cast<std::size_t>(std::countr_zero(v));
        if (keep.test(b)) set(to[b]);
      }
    }
  }

 private:
  std::uint64_t word(std::size_t k) const { return k == 0 ? w0_ : k - 1 < hi_.size() ? hi_[k - 1] : 0; }
  std::uint64_t last_word() const { return hi_.empty() ? w0_ : hi_.back(); }
  std::uint64_t w0_ = 0;
  std::vector<std::uint64_t> hi_;  // words 1, 2, ...
};

// Renumbers slot sets when the slots outside `keep` (of n) are dropped: the bits of a
// set at the positions in keep, packed low. Usually a collection drops one or two
// slots, so with at most 64 slots this closes the gaps one dropped bit at a time,
// highest first; past 64 it renumbers slot by slot.
struct SlotCompressor {
  const SlotSet& keep;
  bool narrow;
  std::uint64_t keep0 = 0;
  std::uint32_t drop[64];  // narrow: the dropped slots, highest first
  std::size_t ndrop = 0;
  std::vector<std::uint32_t> to;  // wide: the new number of each kept slot
  SlotCompressor(const SlotSet& k, std::size_t n) : keep(k), narrow(n <= 64) {
    if (narrow) {
      for (std::size_t b = n; b-- > 0;) {
        if (keep.test(b)) keep0 |= std::uint64_t{1} << b;
        else drop[ndrop++] = static_cast<std::uint32_t>(b);
      }
    } else {
      to.assign(n, 0);
      std::uint32_t k2 = 0;
      for (std::size_t b = 0; b < n; ++b)
        if (keep.test(b)) to[b] = k2++;
    }
  }
  void operator()(SlotSet& v) const { v.compress(narrow, keep0, drop, ndrop, to, keep); }
};

}  // namespace atomcheck::tso
