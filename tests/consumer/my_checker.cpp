// A checker of the project's own, registered from its code: cli_main's `validate`,
// `run --checker` and `check-trace` then use it by name like a built-in one, and
// `validate` judges it against the oracle it names.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <atomcheck/checkers/registry.hpp>

namespace {

using atomcheck::Event;
using atomcheck::Op;

// Flags an access that conflicts with what another thread's still-open transaction
// accessed (one of the two writes): the overlap that makes two read-modify-write
// transactions non-serializable. Cheap and online, but not exact: a transaction that
// only reads before another thread's write could still be ordered first, which is
// what `validate --checker my-checker` is there to find out.
class MyChecker : public atomcheck::Checker {
 public:
  std::string_view name() const override { return "my-checker"; }

  void on_event(const Event& e) override {
    const std::uint64_t at = index_++;
    if (e.thread >= depth_.size()) {
      depth_.resize(e.thread + 1, 0);
      touched_.resize(e.thread + 1);
    }
    if (e.op == Op::begin || e.op == Op::end) {
      int& d = depth_[e.thread];
      d += e.op == Op::begin ? 1 : (d > 0 ? -1 : 0);
      if (d == 0) touched_[e.thread].clear();  // its transaction is over
      return;
    }
    if (!atomcheck::is_access(e.op)) return;
    const bool writes = atomcheck::is_write_like(e.op);
    for (std::size_t t = 0; t < touched_.size() && !violation_; ++t)
      if (t != e.thread && depth_[t] > 0)
        for (const auto& [var, wrote] : touched_[t])
          if (var == e.target && (wrote || writes)) {
            violation_ = true;
            detected_ = static_cast<atomcheck::EventIndex>(at);
            break;
          }
    if (depth_[e.thread] > 0) touched_[e.thread].emplace_back(e.target, writes);
  }

  atomcheck::Verdict verdict() override {
    atomcheck::Verdict v;
    v.checker = "my-checker";
    v.answers_serializability = true;
    v.serializable = !violation_;
    v.detected_at = detected_;
    return v;
  }

  void reset() override {
    depth_.clear();
    touched_.clear();
    index_ = 0;
    violation_ = false;
    detected_ = atomcheck::kNoEvent;
  }

 private:
  std::vector<int> depth_;  // per thread: begin/end nesting
  std::vector<std::vector<std::pair<std::uint32_t, bool>>> touched_;  // per thread: (variable, written)
  std::uint64_t index_ = 0;
  bool violation_ = false;
  atomcheck::EventIndex detected_ = atomcheck::kNoEvent;
};

std::unique_ptr<atomcheck::Checker> make_my_checker(const atomcheck::CheckerOptions&) {
  return std::make_unique<MyChecker>();
}

// Answers serializability, judged by the oracle; not predictive; reads the trace only.
const bool registered = atomcheck::register_checker(
    {"my-checker", "overlapping transactions with a conflicting access (a project's own checker)", true, false,
     "oracle", false, true},
    make_my_checker);

}  // namespace
