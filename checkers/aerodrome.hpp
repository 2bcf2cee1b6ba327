// AeroDrome (Mathur & Viswanathan, ASPLOS 2020): a single-pass vector-clock checker of
// conflict serializability. Two checkers:
//  - "aerodrome": Algorithm 1 as written (a read clock R[t][x] per thread and variable,
//    full vector comparisons, END joins every lock, variable and read clock), with the
//    §4.1.4 rules: only outermost begin/end count, events outside blocks are unary
//    transactions (never "active", so never checked), fork/join as in Alg. 1.
//  - "aerodrome-opt": the §4.3 variant, one R[x] and one chR[x] per variable. Since every
//    clock is a join of thread-clock snapshots, "C_t^begin ⊑ clk" is decided by the t
//    component alone, and END only visits the clocks changed since the transaction
//    began (the only ones that can know that begin), so END costs O(threads) per
//    changed clock instead of O(threads * (locks + variables)).
// Both answer only question (a), trace serializability; the witness is at most one
// conflict edge of the cycle (the clocks do not remember the rest). A transaction still
// open at the end is closed virtually in verdict(), as if it ended there.
#pragma once

#include <cstdint>
#include <vector>

#include "checker.hpp"
#include "../trace/transactions.hpp"

namespace atomcheck {

// State shared by both variants: thread clocks, nesting, what was detected.
class AeroDromeBase : public Checker {
 public:
  AeroDromeBase(const CheckerOptions& options, bool fixed)
      : options_(options), fixed_(fixed) {}
  void on_event(const Event& e) final;
  Verdict verdict() final;
  void reset() final;
  bool live_events(LiveEvents& out) const final;

 protected:
  using Clock = std::uint32_t;
  // Ensures thread t (and everything indexed by thread) exists.
  void ensure_thread(ThreadId t);
  void ensure_var(VarId x);
  void ensure_lock(LockId l);
  Clock* C(ThreadId t) { return &c_[static_cast<std::size_t>(t) * dim_]; }
  Clock* Cb(ThreadId t) { return &cb_[static_cast<std::size_t>(t) * dim_]; }
  Clock* L(LockId l) { return &l_[static_cast<std::size_t>(l) * dim_]; }
  Clock* W(VarId x) { return &w_[static_cast<std::size_t>(x) * dim_]; }
  bool active(ThreadId t) const { return nesting_.in_transaction(t); }

  // The variant's handlers (Alg. 1 procedures). `now` is the current event index.
  virtual void grow_threads(std::uint32_t old_dim) = 0;  // re-lay out per-variant clocks
  virtual void grow_vars(std::uint32_t vars) = 0;
  virtual void on_begin(ThreadId t) = 0;
  virtual void on_end(ThreadId t) = 0;
  virtual void on_read(ThreadId t, VarId x) = 0;
  virtual void on_write(ThreadId t, VarId x) = 0;
  virtual void on_acquire(ThreadId t, LockId l) = 0;
  virtual void on_release(ThreadId t, LockId l) = 0;
  virtual void on_fork(ThreadId t, ThreadId u) = 0;
  virtual void on_join(ThreadId t, ThreadId u) = 0;
  virtual void clear_variant() = 0;

  // A violation at the current event in t's active transaction. `from_event` is the
  // earlier conflicting event when the caller knows it (kNoEvent otherwise).
  void violation(ThreadId t, EventIndex from_event, TxnRef from_txn);
  // The transaction of u's last event (for a join's witness).
  TxnRef last_txn_of(ThreadId u) const;

  static void join_into(Clock* dst, const Clock* src, std::uint32_t n) {
    for (std::uint32_t i = 0; i < n; ++i) dst[i] = dst[i] < src[i] ? src[i] : dst[i];
  }
  static bool leq(const Clock* a, const Clock* b, std::uint32_t n) {
    bool ok = true;
    for (std::uint32_t i = 0; i < n; ++i) ok &= a[i] <= b[i];
    return ok;
  }

  // A join of a thread that never performed an event: Alg. 1 checks C_u, which holds
  // only what the fork copied from the parent, and so reports a cycle through a thread
  // that has no transaction. The corrected variants skip such joins (see
  // tests/test_aerodrome.cpp, EmptyForkedThread).
  bool skip_join(ThreadId u) const { return fixed_ && !has_event_[u]; }

  CheckerOptions options_;
  bool fixed_;
  std::vector<std::uint8_t> has_event_;
  std::uint32_t dim_ = 0;       // clock width = thread capacity
  std::uint32_t threads_ = 0, vars_ = 0, locks_ = 0;
  std::vector<Clock> c_, cb_, l_, w_;
  std::vector<std::uint8_t> thread_init_;
  std::vector<ThreadId> last_rel_thr_, last_w_thr_;
  // Witness bookkeeping: last write / release event and its transaction, per variable
  // and lock; the begin event of each thread's active transaction; each thread's last
  // event (for join).
  std::vector<EventIndex> last_w_evt_, last_rel_evt_, last_evt_;
  std::vector<TxnRef> last_w_txn_, last_rel_txn_;
  std::vector<EventIndex> begin_evt_, last_txn_first_;
  NestingTracker nesting_;
  EventIndex now_ = 0;
  TxnRef cur_txn_;  // transaction of the event being processed

  bool detected_ = false;
  bool stopped_ = false;  // first violation seen and options_.all is off
  bool closing_ = false;      // verdict() is closing open transactions
  bool open_at_end_ = false;
  bool detected_at_end_ = false;
  std::uint64_t detections_ = 0;
  EventIndex last_detection_ = kNoEvent;
  EventIndex detected_at_ = kNoEvent;
  std::vector<CycleEdge> witness_;
  TxnRef detected_txn_, detected_from_txn_;
};

// Algorithm 1 exactly ("aerodrome").
class AeroDrome final : public AeroDromeBase {
 public:
  explicit AeroDrome(const CheckerOptions& options = {}, bool fixed = false)
      : AeroDromeBase(options, fixed) {}
  std::string_view name() const override { return fixed_ ? "aerodrome-fixed" : "aerodrome"; }

 private:
  Clock* R(ThreadId u, VarId x) {
    return &r_[(static_cast<std::size_t>(x) * dim_ + u) * dim_];
  }
  // CHECKANDGET(clk, t): lines 9-12.
  void check_and_get(const Clock* clk, ThreadId t, EventIndex from_event, TxnRef from_txn);
  void grow_threads(std::uint32_t old_dim) override;
  void grow_vars(std::uint32_t vars) override;
  void on_begin(ThreadId t) override;
  void on_end(ThreadId t) override;
  void on_read(ThreadId t, VarId x) override;
  void on_write(ThreadId t, VarId x) override;
  void on_acquire(ThreadId t, LockId l) override;
  void on_release(ThreadId t, LockId l) override;
  void on_fork(ThreadId t, ThreadId u) override;
  void on_join(ThreadId t, ThreadId u) override;
  void clear_variant() override { std::fill(r_.begin(), r_.end(), 0); }

  std::vector<Clock> r_;  // R[x][u]: vars * dim * dim
};

// §4.3 read-clock optimisation plus epoch checks and change-log END ("aerodrome-opt").
class AeroDromeOpt final : public AeroDromeBase {
 public:
  explicit AeroDromeOpt(const CheckerOptions& options = {}, bool fixed = false)
      : AeroDromeBase(options, fixed) {}
  std::string_view name() const override {
    return fixed_ ? "aerodrome-opt-fixed" : "aerodrome-opt";
  }

 private:
  Clock* R(VarId x) { return &r_[static_cast<std::size_t>(x) * dim_]; }
  Clock* ChR(VarId x) { return &chr_[static_cast<std::size_t>(x) * dim_]; }
  // C_t^begin ⊑ clk, decided by the t component (see the header comment).
  bool knows_begin(ThreadId t, const Clock* clk) { return clk[t] >= Cb(t)[t]; }
  void check_and_get(const Clock* clk, ThreadId t, EventIndex from_event, TxnRef from_txn);
  // Records that a variable (id) or lock (id | kLockTag) clock changed, so the END of
  // every active transaction visits it.
  void changed(std::uint32_t obj);
  void grow_threads(std::uint32_t old_dim) override;
  void grow_vars(std::uint32_t vars) override;
  void on_begin(ThreadId t) override;
  void on_end(ThreadId t) override;
  void on_read(ThreadId t, VarId x) override;
  void on_write(ThreadId t, VarId x) override;
  void on_acquire(ThreadId t, LockId l) override;
  void on_release(ThreadId t, LockId l) override;
  void on_fork(ThreadId t, ThreadId u) override;
  void on_join(ThreadId t, ThreadId u) override;
  void clear_variant() override;

  static constexpr std::uint32_t kLockTag = 0x80000000u;
  std::vector<Clock> r_, chr_;  // R[x] = join of all reads, chR[x] = join of R[u][x][0/u]
  // Change log: object ids in order of change; log_base_ is the absolute position of
  // log_[0]. begin_pos_[t] is the absolute log position at t's outermost begin.
  std::vector<std::uint32_t> log_;
  std::uint64_t log_base_ = 0;
  std::uint64_t last_begin_pos_ = 0;
  std::vector<std::uint64_t> var_logged_, lock_logged_;  // absolute position + 1, 0 = never
  std::vector<std::uint64_t> begin_pos_;
  std::uint32_t active_count_ = 0;
};

}  // namespace atomcheck
