// RegionTrack (regiontrack-tosem.txt §4): transactional atomicity violations by
// Algorithms 1+2 ("regiontrack-blame": which transactions are to blame) and, with the
// transactional vector clocks of Algorithms 3+4, non-serializable traces as well
// ("regiontrack" as printed; "regiontrack-fixed" with the two corrections of Alg. 3 that
// the property test against the oracle needed). Streaming, flat arrays indexed by dense
// ids, shadow vector clocks shared through a reference-counted pool, no allocation per
// event once warm. The non-serializability witness has two edges: Trans(e_x) -> C(t) by
// the conflict just joined (with its events) and C(t) ~> Trans(e_x), which the TVC knows
// to hold transitively but not through which events (kNoEvent). Blames list every blamed
// transaction once, with the e_x and e_m of Theorem 2; CheckerOptions::all changes
// nothing (blame always continues, the trace is non-serializable from the first report).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "checker.hpp"
#include "../trace/transactions.hpp"

namespace atomcheck {

// Which reading of the paper's pseudo-code a RegionTrack instance follows.
struct RegionTrackConfig {
  std::string_view name = "regiontrack";
  // Algorithms 3+4 (transactional vector clocks, non-serializable traces) on top of 1+2.
  bool tvc = true;
  // TV entries are 0 when no transaction is recorded. true: the tests "TV <= timestamp"
  // (Alg. 3 lines 20 and 32, Alg. 4 line 9) read 0 as "none", never <= anything — the
  // reading the paper's own Fig. 6 walkthrough needs ("TV(t3) is [0,0,0]. Thus, nothing
  // needs to be propagated", which literal line 20 `TV(t')[t1] <= source` contradicts).
  // false: taken literally, kept only to show that it is wrong (tests).
  bool zero_is_none = true;
  // Corrections found by the property test against the oracle (each a false negative
  // as printed; see tests/test_regiontrack_properties.cpp for the minimal traces):
  // Alg. 3 line 5 lacks the "or TV(T(e_x))[t] = 0" that lines 21 and 34 have;
  bool fix_line5 = false;
  // Alg. 3 line 34 copies a 0 (no transaction) over a recorded sink timestamp.
  bool fix_line34 = false;
};

// All variants; the config picks the algorithm. Not thread-safe; one per exploration.
class RegionTrack : public Checker {
 public:
  RegionTrack(const CheckerOptions& options, const RegionTrackConfig& config);
  std::string_view name() const override { return config_.name; }
  void on_event(const Event& e) override;
  Verdict verdict() override;
  void reset() override;
  bool live_events(LiveEvents& out) const override;

 private:
  static constexpr std::uint32_t kNone = 0xffffffffu;
  using Clock = std::uint32_t;

  // The vector clock of one past event (W(x), R(t,x), L(m), a fork): a shadow state
  // shared with every other event of its subregion, plus who did it, for witnesses.
  struct Access {
    std::uint32_t snap = kNone;  // pool slot, kNone: null
    ThreadId thread = 0;
    EventIndex event = kNoEvent;
    EventIndex txn_first = kNoEvent;  // first event of its transaction
  };

  // --- ids and layout
  void ensure_thread(ThreadId t);
  void ensure_var(VarId x);
  void ensure_lock(LockId m);
  void grow_dim(std::size_t need);
  Clock* vt(ThreadId t) { return &vt_[static_cast<std::size_t>(t) * dim_]; }
  Clock* tv(ThreadId t) { return &tv_[static_cast<std::size_t>(t) * dim_]; }
  Clock* snap(std::uint32_t s) { return &pool_[static_cast<std::size_t>(s) * dim_]; }
  Access& rd(VarId x, ThreadId t) { return reads_[static_cast<std::size_t>(x) * dim_ + t]; }

  // --- shadow-state pool
  std::uint32_t new_snapshot_of(ThreadId t);
  void ref(std::uint32_t s) { ++refs_[s]; }
  void unref(std::uint32_t s);
  void set_access(Access& a, ThreadId t, EventIndex i);
  void clear_access(Access& a);

  // --- Algorithm 1
  void begin_txn(ThreadId t, EventIndex i);
  void sub_region(ThreadId t);
  void on_read(ThreadId t, VarId x, EventIndex i);
  void on_write(ThreadId t, VarId x, EventIndex i);
  void on_acquire(ThreadId t, LockId m, EventIndex i);
  void on_release(ThreadId t, LockId m, EventIndex i);
  void apply_pending_fork(ThreadId u, EventIndex i);

  // --- Algorithms 2 / 4 (join, checkHB) and 3 (TVC)
  bool join(const Access& ex, ThreadId t, EventIndex i);
  void check_hb(const Access& ex, ThreadId t, EventIndex i);
  void update_tvc(const Access& ex, ThreadId t);
  std::size_t back_propagate(std::size_t tid, ThreadId t1, ThreadId t2, Clock source, Clock sink);
  std::size_t forward_propagate(std::size_t tid, ThreadId t1, ThreadId t2);
  bool tv_le(Clock a, Clock b) const { return config_.zero_is_none ? (a != 0 && a <= b) : a <= b; }

  // --- thread sets (Tid) on a scratch stack of bit words, so the recursion of Alg. 3
  // allocates nothing once warm. A set is an offset into set_arena_.
  std::size_t push_all();
  std::size_t push_copy(std::size_t from);
  void pop_to(std::size_t off) { set_top_ = off; }
  void set_copy(std::size_t to, std::size_t from);
  bool set_has(std::size_t s, ThreadId t) const { return (set_arena_[s + t / 64] >> (t % 64)) & 1u; }
  void set_erase(std::size_t s, ThreadId t) { set_arena_[s + t / 64] &= ~(std::uint64_t{1} << (t % 64)); }

  void report_nonserializable(const Access& ex, ThreadId t, EventIndex i);

  CheckerOptions options_;
  RegionTrackConfig config_;
  NestingTracker nesting_;
  EventIndex next_index_ = 0;

  std::size_t dim_ = 0;        // stride of every vector clock (>= threads seen)
  std::size_t nthreads_ = 0;   // threads seen: ids 0..nthreads_-1 form Tid
  std::size_t nvars_ = 0, nlocks_ = 0;

  // Per thread.
  std::vector<Clock> vt_;                // V(t)
  std::vector<Clock> tv_;                // TV(t)
  std::vector<std::uint32_t> cur_;       // C(t).currVC (pool slot)
  std::vector<Clock> txn_ts_;            // V(C(t).begin)[t]
  std::vector<EventIndex> txn_first_;    // first event of C(t)
  std::vector<std::uint8_t> txn_blamed_;
  std::vector<std::uint8_t> started_;
  std::vector<EventIndex> last_event_;
  std::vector<Access> fork_;             // pending fork(u) -> first event of u

  // Per variable / lock.
  std::vector<Access> writes_;           // W(x)
  std::vector<Access> reads_;            // R(t, x) at [x * dim_ + t]
  std::vector<std::uint32_t> nreads_;    // non-null R(., x)
  std::vector<Access> locks_;            // L(m)

  // Shadow-state pool.
  std::vector<Clock> pool_;
  std::vector<std::uint32_t> refs_;
  std::vector<std::uint32_t> free_;

  std::vector<std::uint64_t> set_arena_;
  std::size_t set_words_ = 0, set_top_ = 0;

  Verdict verdict_;
};

// "regiontrack-blame": Algorithms 1+2, transactional atomicity violations only.
class RegionTrackBlame final : public RegionTrack {
 public:
  explicit RegionTrackBlame(const CheckerOptions& options = {})
      : RegionTrack(options, RegionTrackConfig{"regiontrack-blame", false, true, false, false}) {}
};

// "regiontrack": Algorithms 1+3+4 as printed, blame and non-serializable traces.
class RegionTrackFull final : public RegionTrack {
 public:
  explicit RegionTrackFull(const CheckerOptions& options = {})
      : RegionTrack(options, RegionTrackConfig{"regiontrack", true, true, false, false}) {}
};

// "regiontrack-fixed": "regiontrack" with Alg. 3 lines 5 and 34 corrected.
class RegionTrackFixed final : public RegionTrack {
 public:
  explicit RegionTrackFixed(const CheckerOptions& options = {})
      : RegionTrack(options, RegionTrackConfig{"regiontrack-fixed", true, true, true, true}) {}
};

}  // namespace atomcheck
