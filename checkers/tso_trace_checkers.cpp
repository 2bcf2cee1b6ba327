// The trace TSO deciders as checkers (see tso_trace_checkers.hpp).
#include "checkers/tso_trace_checkers.hpp"

#include "checkers/tso_trace_fpt.hpp"

namespace atomcheck {

Verdict trace_tso_verdict(std::string_view checker, const tso::TraceVerdict& tv, bool open_at_end) {
  Verdict v;
  v.checker = std::string(checker);
  v.answers_serializability = true;
  v.undecided = tv.undecided;
  v.serializable = tv.serializable;
  v.cycle = tv.cycle;
  v.witness_execution = tv.witness;
  v.open_at_end = open_at_end;
  std::string note;
  if (!tv.serializable && tv.witness.empty()) note = "no witness execution was constructed";
  if (open_at_end)
    note += std::string(note.empty() ? "" : "; ") +
            "a transaction was still open at the end of the trace; judged as ended there";
  v.note = note;
  return v;
}

std::string_view TraceTsoChecker::name() const {
  switch (kind_) {
    case Kind::brute: return "trace-tso-brute";
    case Kind::fpt: return "trace-tso-fpt";
    case Kind::main: return "trace-tso";
    case Kind::search: return "trace-tso-search";
  }
  return "trace-tso";
}

Verdict TraceTsoChecker::verdict() {
  tso::TraceVerdict tv;
  const Deadline& deadline = options_.deadline;
  switch (kind_) {
    case Kind::brute: tv = tso::decide_brute(events_, kBruteLimit, deadline); break;
    case Kind::search: tv = tso::decide_fpt(events_, deadline); break;
    case Kind::fpt:
    case Kind::main: tv = stream_->finish(deadline); break;
  }
  return trace_tso_verdict(name(), tv,
                           stream_ ? nesting_.any_open()
                                   : assign_transactions(std::span<const Event>(events_)).any_open_at_end);
}

TraceTsoChecker::TraceTsoChecker(const CheckerOptions& options, Kind kind) : options_(options), kind_(kind) {
  if (kind == Kind::fpt || kind == Kind::main) stream_ = std::make_unique<tso::TraceStream>();
}

void TraceTsoChecker::on_event(const Event& e) {
  if (e.op == Op::commit) return;  // a trace decider places the commits itself
  if (stream_) {
    nesting_.on_event(e);
    stream_->on_event(e, options_.deadline);
  } else {
    events_.push_back(e);
  }
}

bool TraceTsoChecker::live_events(LiveEvents& out) const {
  if (!stream_) return false;
  stream_->live_events(out.events, out.first_problem);
  return true;
}

void TraceTsoChecker::reset() {
  events_.clear();
  nesting_.reset();
  if (stream_) stream_->reset();
}
TraceTsoChecker::~TraceTsoChecker() = default;

}  // namespace atomcheck
