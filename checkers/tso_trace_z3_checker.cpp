// trace-tso-z3: the Z3 decider (tso_trace_z3.hpp) as a checker, registered into the
// catalogue (registry.hpp) when atomcheck::z3 is linked. The target asks the linker for
// atomcheck_link_z3 (-u), which keeps this object and runs its registration.
#include <memory>
#include <vector>

#include "checkers/registry.hpp"
#include "checkers/tso_trace_checkers.hpp"
#include "checkers/tso_trace_z3.hpp"

namespace atomcheck {
namespace {

class TraceTsoZ3Checker final : public Checker {
 public:
  explicit TraceTsoZ3Checker(const CheckerOptions& options) : options_(options) {}
  std::string_view name() const override { return "trace-tso-z3"; }
  void on_event(const Event& e) override {
    if (e.op != Op::commit) events_.push_back(e);  // the decider places the commits itself
  }
  Verdict verdict() override {
    if (!z3_) z3_ = std::make_unique<tso::Z3Decider>();
    tso::TraceVerdict tv = z3_->decide(events_, options_.deadline);
    return trace_tso_verdict(name(), tv, assign_transactions(std::span<const Event>(events_)).any_open_at_end);
  }
  void reset() override { events_.clear(); }

 private:
  CheckerOptions options_;
  std::vector<Event> events_;
  // One context for every trace: making one costs milliseconds.
  std::unique_ptr<tso::Z3Decider> z3_;
};

bool register_z3() {
  register_judges();  // so that `atomcheck checkers` lists the judges first, as always
  return register_checker(
      {"trace-tso-z3",
       "trace TSO-serializability: Z3 on Corollary 1 per segment of overlapping commit windows (near-linear with "
       "frequent fences, exponential when windows chain)",
       true, false, "trace-tso-brute", false, true},
      [](const CheckerOptions& o) { return std::make_unique<TraceTsoZ3Checker>(o); });
}

}  // namespace
}  // namespace atomcheck

extern "C" {
extern const bool atomcheck_link_z3;
const bool atomcheck_link_z3 = atomcheck::register_z3();
}
