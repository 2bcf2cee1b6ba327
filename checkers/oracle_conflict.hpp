// The conflict-serializability oracle ("oracle"): the simplest code that is obviously
// right, to judge the fast checkers on small traces. It buffers the events and, at
// verdict(), builds the conflict relation of DESIGN.md "Conflicts for the SC checkers"
// explicitly, the transaction graph from it (cycle = not serializable, with the
// conflicting events on every edge) and conflict-happens-before as a transitive closure
// (blame by RegionTrack Theorem 2). Quadratic to cubic in the trace length.
#pragma once

#include <vector>

#include "checker.hpp"

namespace atomcheck {

class ConflictOracle final : public Checker {
 public:
  explicit ConflictOracle(const CheckerOptions& options = {}) : options_(options) {}
  std::string_view name() const override { return "oracle"; }
  void on_event(const Event& e) override { events_.push_back(e); }
  Verdict verdict() override;
  void reset() override { events_.clear(); }

 private:
  CheckerOptions options_;
  std::vector<Event> events_;
};

}  // namespace atomcheck
