// The linearizability checker of the panel (see linearizability_checker.hpp).
#include "checkers/linearizability_checker.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/core.h>

namespace atomcheck {

namespace {

ClassOrder::Model model_of(std::uint8_t memory) {
  return memory == 1 ? ClassOrder::Model::tso : memory == 2 ? ClassOrder::Model::rc11 : ClassOrder::Model::sc;
}

}  // namespace

LinearizabilityChecker::LinearizabilityChecker(const CheckerOptions& options) : options_(options) {
  order_.reset(model_of(options_.memory));
}

void LinearizabilityChecker::reset() {
  order_.reset(model_of(options_.memory));
  for (Object& o : objects_) o.ops.clear();
  ops_.clear();
  for (auto& stack : open_) stack.clear();
  for (auto& u : uncalled_) u.clear();
  awaiting_commit_.clear();
  next_ = 0;
}

void LinearizabilityChecker::on_event(const Event& e) {
  const EventIndex at = next_++;
  order_.on_event(e);
  if (e.thread >= open_.size()) {
    open_.resize(e.thread + 1);
    uncalled_.resize(e.thread + 1);
  }
  std::vector<Open>& stack = open_[e.thread];
  const bool tso = options_.memory == 1;
  if (e.op == Op::begin) {
    Open o;
    if (lin::is_operation_code(e.value2)) {
      const lin::OperationCode code = lin::decode_operation(e.value2);
      if (code.object >= objects_.size()) objects_.resize(code.object + 1);
      Object& obj = objects_[code.object];
      obj.spec = code.spec;
      Rec r;
      r.op.thread = e.thread;
      r.op.method = code.method;
      r.op.arg = e.value;
      r.op.call = at;  // moved to its first step
      r.object = code.object;
      ops_.push_back(std::move(r));
      obj.ops.push_back(ops_.size() - 1);
      uncalled_[e.thread].push_back(ops_.size() - 1);
      o = {true, ops_.size() - 1};
    }
    stack.push_back(o);
    return;
  }
  if (e.op == Op::end) {
    if (stack.empty()) return;
    const Open o = stack.back();
    stack.pop_back();
    if (!o.operation) return;
    Rec& r = ops_[o.rec];
    r.ended = true;
    r.op.result = e.value;
    r.op.arg2 = e.value2;
    if (!r.stepped) {  // no step: its thread's last one before its end (or its start)
      r.last = ClassOrder::at(order_.thread_clock(e.thread), order_.thread_chain(e.thread));
      r.last_pos = at;
    }
    r.op.ret = r.last_pos;
    if (tso && r.last_write != kNoEvent && !r.committed) awaiting_commit_.push_back(o.rec);
    return;
  }
  if (e.op == Op::commit) {
    const std::uint32_t stamp = ClassOrder::at(order_.buffer_clock(e.thread), order_.buffer_chain(e.thread));
    auto commit = [&](Rec& r) {
      if (r.last_write != e.issue || r.committed) return false;
      r.committed = true;
      r.commit = stamp;
      return true;
    };
    for (Open& o : stack)  // still running (an unbuffered store commits with its issue)
      if (o.operation) commit(ops_[o.rec]);
    for (std::size_t k = 0; k < awaiting_commit_.size();) {
      Rec& r = ops_[awaiting_commit_[k]];
      if (!commit(r)) {
        ++k;
        continue;
      }
      r.op.ret = std::max<std::uint64_t>(r.op.ret, at);
      awaiting_commit_[k] = awaiting_commit_.back();
      awaiting_commit_.pop_back();
    }
    return;
  }
  if (!ClassOrder::is_step(e)) return;
  const ClassOrder::Clock& now = order_.thread_clock(e.thread);
  const std::uint32_t mine = ClassOrder::at(now, order_.thread_chain(e.thread));
  // The latest point at which every operation awaiting a step was called (nested ones,
  // and ended ones that had none, whose call is their thread's next step).
  for (std::size_t k : uncalled_[e.thread]) {
    Rec& r = ops_[k];
    r.called = true;
    r.call = now;
    if (!r.ended) r.op.call = at;
  }
  uncalled_[e.thread].clear();
  for (Open& o : stack)
    if (o.operation) {
      Rec& r = ops_[o.rec];
      r.stepped = true;
      r.last = mine;
      r.last_pos = at;
      if (e.op == Op::write) {
        r.last_write = at;
        r.committed = false;
      } else if (e.op == Op::rmw) {
        r.last_write = kNoEvent;  // reached memory with the buffer drained
      }
    }
}

Verdict LinearizabilityChecker::verdict() {
  Verdict v;
  v.checker = "linearizability";
  v.answers_serializability = true;
  for (const auto& stack : open_)
    for (const Open& o : stack) v.open_at_end = v.open_at_end || o.operation;
  for (std::size_t t = 0; t < uncalled_.size(); ++t)
    for (std::size_t k : uncalled_[t]) {  // no step came after: the thread's end
      ops_[k].called = true;
      ops_[k].call = order_.thread_clock(static_cast<ThreadId>(t));
    }
  const bool tso = options_.memory == 1;
  // a precedes b: a ended, and its last step (TSO: and its last store's commit) is in b's
  // call clock. A store never committed orders a before nothing of another thread.
  auto precedes = [&](const Rec& a, const Rec& b) {
    if (!a.ended) return false;
    if (a.op.thread == b.op.thread) return a.op.call < b.op.call;
    const ThreadId t = a.op.thread;
    if (ClassOrder::at(b.call, order_.thread_chain(t)) < a.last) return false;
    if (!tso || a.last_write == kNoEvent) return true;
    return a.committed && ClassOrder::at(b.call, order_.buffer_chain(t)) >= a.commit;
  };
  for (std::uint32_t id = 0; id < objects_.size(); ++id) {
    Object& obj = objects_[id];
    if (obj.ops.empty()) continue;
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
    lin::History history;
    for (std::size_t k : obj.ops) {
      lin::Operation op = ops_[k].op;
      if (!ops_[k].ended) op.ret = lin::kPending;
      history.push_back(op);
    }
    lin::Precedence before(obj.ops.size());
    for (std::size_t a = 0; a < obj.ops.size(); ++a)
      for (std::size_t b = 0; b < obj.ops.size(); ++b)
        if (a != b && precedes(ops_[obj.ops[a]], ops_[obj.ops[b]])) before.set(a, b);
    lin::Options lo;
    lin::Answer a;
    try {
      a = lin::check(history, before, spec, lo);
    } catch (const std::invalid_argument& bad) {
      v.undecided = fmt::format("linearizability: object {}: {}", id, bad.what());
      return v;
    }
    if (!a.undecided.empty()) {
      v.undecided = "linearizability: " + a.undecided;
      return v;
    }
    if (a.linearizable) continue;
    v.serializable = false;
    lin::Precedence prefix_order;
    lin::History prefix = lin::shortest_failing_prefix(history, before, spec, lo, &prefix_order);
    if (prefix.empty()) {
      prefix = history;
      prefix_order = before;
    }
    EventIndex last = 0;
    for (const lin::Operation& op : prefix) last = std::max(last, op.pending() ? op.call : op.ret);
    v.detected_at = last;
    const std::string orders = lin::format_order(prefix, prefix_order, spec);
    v.note = fmt::format("not linearizable ({} object {}), the shortest failing history:\n{}{}", spec.name(), id,
                         lin::format_history(prefix, spec),
                         orders.empty() ? std::string("no operation of one thread precedes one of another\n")
                                        : "ordered across threads by the execution:\n" + orders);
    if (!options_.all) return v;
  }
  return v;
}

}  // namespace atomcheck
