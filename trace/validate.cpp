// The streaming well-formedness checks of validate.hpp.
#include "trace/validate.hpp"

#include <fmt/core.h>

namespace atomcheck {

TraceValidator::TraceValidator(const Names& names, ValidateOptions options)
    : names_(names), options_(options) {}

TraceValidator::ThreadState& TraceValidator::thread(ThreadId t) {
  if (t >= threads_.size()) threads_.resize(static_cast<std::size_t>(t) + 1);
  return threads_[t];
}

TraceValidator::LockState& TraceValidator::lock(LockId l) {
  if (l >= locks_.size()) locks_.resize(static_cast<std::size_t>(l) + 1);
  return locks_[l];
}

std::string TraceValidator::at(const Where& w) const {
  return have_lines_ ? fmt::format("line {}", w.line) : fmt::format("event {}", w.index);
}

bool TraceValidator::fail(std::string message) {
  problem_ = std::move(message);
  return false;
}

bool TraceValidator::on_event(const Event& e, std::uint64_t line) {
  if (!problem_.empty()) return false;
  const Where here{index_, line};
  problem_event_ = index_;
  problem_line_ = line;
  ++index_;
  if (line != 0) have_lines_ = true;

  const ThreadId t = e.thread;
  ThreadState& ts = thread(t);
  auto tname = [&] { return names_.thread(t); };

  if (ts.joined) {
    return fail(fmt::format("{} performs {} after it was joined ({})", tname(), op_name(e.op),
                            at(ts.join)));
  }
  if (!ts.acted) {
    ts.acted = true;
    ts.first = here;
  }

  switch (e.op) {
    case Op::acquire: {
      LockState& ls = lock(e.target);
      if (ls.holder == t) {
        return fail(fmt::format("{} acquires lock {}, which it already holds (acquired at {})",
                                tname(), names_.lock(e.target), at(ls.acquired)));
      }
      if (ls.holder != kNoId) {
        return fail(fmt::format("{} acquires lock {}, which {} holds (acquired at {})", tname(),
                                names_.lock(e.target), names_.thread(ls.holder), at(ls.acquired)));
      }
      ls.holder = t;
      ls.acquired = here;
      break;
    }
    case Op::release: {
      LockState& ls = lock(e.target);
      if (ls.holder == kNoId) {
        return fail(fmt::format("{} releases lock {}, which nobody holds", tname(),
                                names_.lock(e.target)));
      }
      if (ls.holder != t) {
        return fail(fmt::format("{} releases lock {}, which {} holds (acquired at {})", tname(),
                                names_.lock(e.target), names_.thread(ls.holder), at(ls.acquired)));
      }
      ls.holder = kNoId;
      break;
    }
    case Op::begin:
      ts.open_blocks.push_back(here);
      ts.labels.push_back(e.target);
      break;
    case Op::end:
      if (ts.open_blocks.empty()) {
        return fail(fmt::format("{}: end without a matching begin", tname()));
      }
      if (e.target != kNoId && ts.labels.back() != e.target) {
        return fail(fmt::format("{}: end '{}' does not match begin '{}' ({})", tname(),
                                names_.label(e.target), names_.label(ts.labels.back()),
                                at(ts.open_blocks.back())));
      }
      ts.open_blocks.pop_back();
      ts.labels.pop_back();
      break;
    case Op::fork: {
      const ThreadId u = e.target;
      if (u == t) return fail(fmt::format("{} forks itself", tname()));
      ThreadState& us = thread(u);  // may move threads_: `ts` is not used below
      if (us.forked) {
        return fail(fmt::format("{} forks {}, which was already forked ({})", tname(),
                                names_.thread(u), at(us.fork)));
      }
      if (us.joined) {
        return fail(fmt::format("{} forks {}, which was already joined ({})", tname(),
                                names_.thread(u), at(us.join)));
      }
      if (us.acted) {
        return fail(fmt::format("{} forks {}, which already performed events (first at {})",
                                tname(), names_.thread(u), at(us.first)));
      }
      us.forked = true;
      us.fork = here;
      break;
    }
    case Op::join: {
      const ThreadId u = e.target;
      if (u == t) return fail(fmt::format("{} joins itself", tname()));
      ThreadState& us = thread(u);
      if (us.joined) {
        return fail(fmt::format("{} joins {}, which was already joined ({})", tname(),
                                names_.thread(u), at(us.join)));
      }
      us.joined = true;
      us.join = here;
      break;
    }
    case Op::write:
      if (options_.check_commits) ts.pending.push_back({here, e.target});
      break;
    case Op::commit: {
      if (e.issue == kNoEvent) return fail(fmt::format("{}: commit without an issue", tname()));
      if (e.issue >= here.index) {
        return fail(fmt::format("{}: commit of event {}, which is not an earlier event", tname(),
                                e.issue));
      }
      if (!options_.check_commits) break;
      ThreadState& cs = threads_[t];
      if (cs.pending_head == cs.pending.size()) {
        return fail(fmt::format("{}: commit of event {}, but {} has no uncommitted write",
                                tname(), e.issue, tname()));
      }
      const auto& oldest = cs.pending[cs.pending_head];
      if (oldest.first.index != e.issue) {
        return fail(fmt::format("{}: commit of event {}, but the oldest uncommitted write of {} "
                                "is event {} (commits keep FIFO order)",
                                tname(), e.issue, tname(), oldest.first.index));
      }
      if (oldest.second != e.target) {
        return fail(fmt::format("{}: commit of {} for event {}, which writes {}", tname(),
                                names_.var(e.target), e.issue, names_.var(oldest.second)));
      }
      ++cs.pending_head;
      if (cs.pending_head == cs.pending.size()) {
        cs.pending.clear();
        cs.pending_head = 0;
      }
      break;
    }
    default:
      break;
  }
  return true;
}

bool TraceValidator::finish() {
  if (!problem_.empty()) return false;
  if (!options_.require_closed) return true;
  problem_event_ = index_;
  problem_line_ = 0;
  for (ThreadId t = 0; t < threads_.size(); ++t) {
    if (!threads_[t].open_blocks.empty()) {
      return fail(fmt::format("{} ends inside an atomic block (begun at {})", names_.thread(t),
                              at(threads_[t].open_blocks.back())));
    }
  }
  for (LockId l = 0; l < locks_.size(); ++l) {
    if (locks_[l].holder != kNoId) {
      return fail(fmt::format("{} still holds lock {} at the end (acquired at {})",
                              names_.thread(locks_[l].holder), names_.lock(l),
                              at(locks_[l].acquired)));
    }
  }
  return true;
}

std::optional<std::string> validate(const Trace& trace, ValidateOptions options) {
  TraceValidator v(trace.names, options);
  for (const Event& e : trace.events) {
    if (!v.on_event(e)) break;
  }
  if (v.finish()) return std::nullopt;
  return fmt::format("event {}: {}", v.problem_event(), v.problem());
}

std::optional<std::string> validate(const Trace& trace) {
  ValidateOptions options;
  options.check_commits = false;
  for (const Event& e : trace.events) {
    if (e.op == Op::commit) {
      options.check_commits = true;
      break;
    }
  }
  return validate(trace, options);
}

}  // namespace atomcheck
