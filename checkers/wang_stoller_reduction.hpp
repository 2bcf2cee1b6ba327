// Wang & Stoller §4, the reduction-based predictive checker: decide which accesses are
// race-free from the locks held (Theorem 4.3, pairwise lockset intersection, or Theorem
// 4.4, one common lock per variable), classify every event as a mover (Theorem 4.2:
// acquire right, release left, race-free access both, racy access non-mover), and accept
// when every transaction matches (R+B)*N?(L+B)* (Theorem 4.1). "Serializable" means
// "predicts that every feasible interleaving of the observed transactions is atomic".
//
// Choices the paper leaves open: there is no initialization phase (no access is exempt
// as "part of initialization", which is conservative); Theorem 4.4 is applied literally,
// so a variable whose accesses share no lock is racy even if one thread alone accesses
// it; fork is a left-mover and join a right-mover (a child's events cannot precede its
// fork nor follow its join); begin, end and fence are both-movers; a read-modify-write
// is a write. A transaction still open at the end is judged as ended there.
//
// The witness: for the first transaction that does not match (every one with
// CheckerOptions::all), a Blame whose `interfering`
// is the event that ended the (R+B)* phase (the first N or L) and whose `at` is the
// later event that cannot follow it (an R or a second N); both are events of the blamed
// transaction itself, unlike RegionTrack blames. The note names the first such pair.
#pragma once

#include <vector>

#include "checker.hpp"

namespace atomcheck {

class WangStollerReduction final : public Checker {
 public:
  // theorem: 43 (Theorem 4.3) or 44 (Theorem 4.4).
  WangStollerReduction(const CheckerOptions& options, int theorem) : options_(options), theorem_(theorem) {}
  std::string_view name() const override { return theorem_ == 44 ? "ws-reduction-4.4" : "ws-reduction-4.3"; }
  void on_event(const Event& e) override { events_.push_back(e); }
  Verdict verdict() override;
  void reset() override { events_.clear(); }

  enum class Mover : std::uint8_t { both, left, right, non };
  // The mover class of every event (exposed for tests).
  std::vector<Mover> classify() const;

 private:
  CheckerOptions options_;
  int theorem_;
  std::vector<Event> events_;
};

}  // namespace atomcheck
