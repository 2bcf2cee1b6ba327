// The linearizability checker of the panel (see linearizability_checker.hpp).
#include "checkers/linearizability_checker.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/core.h>

namespace atomcheck {

namespace {

// A step of an operation on shared state: where, at the latest, it was called.
bool shared_step(Op op) { return is_access(op) || is_lock_op(op) || is_thread_op(op) || op == Op::fence; }

}  // namespace

LinearizabilityChecker::LinearizabilityChecker(const CheckerOptions& options) : options_(options) {}

void LinearizabilityChecker::reset() {
  for (Object& o : objects_) o.history.clear();
  for (auto& stack : open_) stack.clear();
  std::fill(committed_.begin(), committed_.end(), kNoEvent);  // sized with open_, which keeps its size
  awaiting_.clear();
  next_ = 0;
}

void LinearizabilityChecker::on_event(const Event& e) {
  const EventIndex at = next_++;
  if (e.thread >= open_.size()) {
    open_.resize(e.thread + 1);
    committed_.resize(e.thread + 1, kNoEvent);
  }
  std::vector<Open>& stack = open_[e.thread];
  if (e.op == Op::begin) {
    Open o;
    if (lin::is_operation_code(e.value2)) {
      const lin::OperationCode code = lin::decode_operation(e.value2);
      if (code.object >= objects_.size()) objects_.resize(code.object + 1);
      Object& obj = objects_[code.object];
      obj.spec = code.spec;
      lin::Operation op;
      op.thread = e.thread;
      op.method = code.method;
      op.arg = e.value;
      op.call = at;  // moved to its first step below
      obj.history.push_back(op);
      o = {true, code.object, obj.history.size() - 1, false};
    }
    stack.push_back(o);
    return;
  }
  if (e.op == Op::end) {
    if (stack.empty()) return;
    const Open o = stack.back();
    stack.pop_back();
    if (!o.operation) return;
    lin::Operation& op = objects_[o.object].history[o.index];
    op.result = e.value;
    op.arg2 = e.value2;
    const EventIndex done = committed_[e.thread];
    if (o.last_write != kNoEvent && (done == kNoEvent || done < o.last_write))
      awaiting_.push_back({o.last_write, o.object, o.index, at});
    else
      op.ret = at;
    return;
  }
  if (e.op == Op::commit) {
    committed_[e.thread] = e.issue;
    for (std::size_t k = 0; k < awaiting_.size(); ++k)
      if (awaiting_[k].issue == e.issue) {
        objects_[awaiting_[k].object].history[awaiting_[k].index].ret = at;
        awaiting_[k] = awaiting_.back();
        awaiting_.pop_back();
        break;
      }
    return;
  }
  if (e.op == Op::write)
    for (Open& o : stack)
      if (o.operation) o.last_write = at;
  if (!shared_step(e.op)) return;
  // The first step of every operation open in this thread (nested ones included) is the
  // latest point at which it was called.
  for (Open& o : stack)
    if (o.operation && !o.started) {
      o.started = true;
      objects_[o.object].history[o.index].call = at;
    }
}

Verdict LinearizabilityChecker::verdict() {
  Verdict v;
  v.checker = "linearizability";
  v.answers_serializability = true;
  // A store never committed (the execution ended with it buffered): the block's end.
  for (const Awaiting& w : awaiting_) objects_[w.object].history[w.index].ret = w.end;
  awaiting_.clear();
  for (const auto& stack : open_)
    for (const Open& o : stack) v.open_at_end = v.open_at_end || o.operation;
  for (std::uint32_t id = 0; id < objects_.size(); ++id) {
    Object& obj = objects_[id];
    if (obj.history.empty()) continue;
    if (obj.spec >= specs_.size()) specs_.resize(obj.spec + 1);
    if (!specs_[obj.spec]) {
      const std::vector<std::string>& names = lin::spec_names();
      if (obj.spec >= names.size()) {
        v.undecided = fmt::format("an operation names specification {}, which this build does not have", obj.spec);
        return v;
      }
      specs_[obj.spec] = lin::make_spec(names[obj.spec]);
    }
    const lin::Spec& spec = *specs_[obj.spec];
    lin::Options lo;
    lin::Answer a;
    try {
      a = lin::check(obj.history, spec, lo);
    } catch (const std::invalid_argument& bad) {  // e.g. two nested operations of one object
      v.undecided = fmt::format("linearizability: object {}: {}", id, bad.what());
      return v;
    }
    if (!a.undecided.empty()) {
      v.undecided = "linearizability: " + a.undecided;
      return v;
    }
    if (a.linearizable) continue;
    v.serializable = false;
    lin::History prefix = lin::shortest_failing_prefix(obj.history, spec, lo);
    if (prefix.empty()) prefix = obj.history;
    EventIndex last = 0;
    for (const lin::Operation& op : prefix) last = std::max(last, op.pending() ? op.call : op.ret);
    v.detected_at = last;
    v.note = fmt::format("not linearizable ({} object {}), the shortest failing history:\n{}", spec.name(), id,
                         lin::format_history(prefix, spec));
    if (!options_.all) return v;
  }
  return v;
}

}  // namespace atomcheck
