// The `linearizability-oracle` judge: the operations of a trace, read again from its events
// (an operation's begin carries its code, linearizability.hpp OperationCode), decided per
// object by the naive judge of lin_naive.hpp, which tries every order. It reads the events
// with code of its own, so that a mistake in the checker's reading is not shared; the one
// definition in common is the event encoding itself. Histories past kMaxOperations
// operations per object are left undecided (input too large), as the other oracles do.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "checkers/lin_naive.hpp"
#include "checkers/linearizability.hpp"
#include "checkers/registry.hpp"

namespace atomcheck {

class LinearizabilityOracle final : public Checker {
 public:
  static constexpr std::size_t kMaxOperations = 9;
  explicit LinearizabilityOracle(const CheckerOptions&) {}
  std::string_view name() const override { return "linearizability-oracle"; }
  void reset() override {
    events_.clear();
  }
  void on_event(const Event& e) override { events_.push_back(e); }
  bool wants_commits() const override { return true; }
  Verdict verdict() override;

 private:
  std::vector<Event> events_;
};

Verdict LinearizabilityOracle::verdict() {
  Verdict v;
  v.checker = "linearizability-oracle";
  v.answers_serializability = true;
  // Object id -> (specification, operations). Calls at the first shared step after the
  // begin, returns at the matching end, found by scanning forward per operation, or under
  // TSO at the commit of the operation's last store when that comes later.
  struct Object {
    std::uint32_t spec = 0;
    std::vector<naive::LinOp> ops;
  };
  std::vector<Object> objects;
  for (std::size_t i = 0; i < events_.size(); ++i) {
    const Event& b = events_[i];
    if (b.op != Op::begin || !lin::is_operation_code(b.value2)) continue;
    const lin::OperationCode code = lin::decode_operation(b.value2);
    naive::LinOp op;
    op.thread = b.thread;
    op.method = code.method;
    op.arg = b.value;
    op.call = i;
    op.pending = true;
    bool stepped = false;
    int depth = 0;
    std::size_t last_store = events_.size();
    for (std::size_t j = i + 1; j < events_.size(); ++j) {
      const Event& e = events_[j];
      if (e.thread != b.thread) continue;
      if (e.op == Op::begin) ++depth;
      // A commit is the buffer's step, not the thread's: it may flush a store issued
      // before this operation began.
      const bool step = e.op == Op::read || e.op == Op::write || e.op == Op::rmw || e.op == Op::acquire ||
                        e.op == Op::release || e.op == Op::fork || e.op == Op::join || e.op == Op::fence;
      if (step && !stepped) {
        stepped = true;
        op.call = j;
      }
      if (e.op == Op::write) last_store = j;
      if (e.op == Op::end && depth-- == 0) {
        op.pending = false;
        op.ret = j;
        op.result = e.value;
        op.arg2 = e.value2;
        for (std::size_t k = last_store; k < events_.size(); ++k)
          if (events_[k].op == Op::commit && events_[k].issue == last_store) {
            op.ret = std::max<std::uint64_t>(op.ret, k);
            break;
          }
        break;
      }
    }
    if (code.object >= objects.size()) objects.resize(code.object + 1);
    objects[code.object].spec = code.spec;
    objects[code.object].ops.push_back(op);
  }
  for (std::uint32_t id = 0; id < objects.size(); ++id) {
    const Object& o = objects[id];
    if (o.ops.empty()) continue;
    if (o.ops.size() > kMaxOperations) {
      v.undecided = fmt::format("{}object {} has {} operations (at most {})", Verdict::kInputTooLarge, id,
                                o.ops.size(), kMaxOperations);
      return v;
    }
    if (o.spec >= lin::spec_names().size()) {
      v.undecided = fmt::format("object {} names specification {}, which this build does not have", id, o.spec);
      return v;
    }
    if (!naive::linearizable(lin::spec_names()[o.spec], o.ops, lin::kNone)) {
      v.serializable = false;
      return v;
    }
  }
  return v;
}

std::unique_ptr<Checker> make_linearizability_oracle(const CheckerOptions& options) {
  return std::make_unique<LinearizabilityOracle>(options);
}

}  // namespace atomcheck
