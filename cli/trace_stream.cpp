// Reader thread and witness archive of check-trace (see trace_stream.hpp).
#include "cli/trace_stream.hpp"

#include <algorithm>

#include "trace/validate.hpp"

namespace atomcheck::cli {

std::ptrdiff_t EventBlock::position_of_tau(EventIndex tau) const {
  if (tau < first_tau) return -1;
  if (!has_commits) {
    EventIndex k = tau - first_tau;
    return k < events.size() ? static_cast<std::ptrdiff_t>(k) : -1;
  }
  EventIndex t = first_tau;
  for (std::size_t k = 0; k < events.size(); ++k) {
    if (events[k].op == Op::commit) continue;
    if (t == tau) return static_cast<std::ptrdiff_t>(k);
    ++t;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------

BlockReader::BlockReader(const std::string& path, TraceFormat format, std::size_t block_events)
    : reader_(open_trace(path, format)),
      format_(format),
      shown_(path == "-" ? "<stdin>" : path),
      block_events_(std::max<std::size_t>(block_events, 1)) {
  thread_ = std::thread([this] { run(); });
}

BlockReader::~BlockReader() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void BlockReader::run() {
  ValidateOptions vopt;
  vopt.check_commits = format_ == TraceFormat::jsonl;
  TraceValidator validator(reader_->names(), vopt);
  std::string error;
  EventIndex tau = 0;
  bool more = true;
  while (more) {
    std::unique_ptr<EventBlock> b;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Two blocks ahead at most: reading overlaps checking in a fixed buffer.
      cv_.wait(lock, [&] { return stop_ || ready_.size() < 2; });
      if (stop_) return;
      if (!free_.empty()) {
        b = std::move(free_.front());
        free_.pop_front();
      }
    }
    if (!b) {
      b = std::make_unique<EventBlock>();
      b->events.reserve(block_events_);
      b->lines.reserve(block_events_);
    }
    b->events.clear();
    b->lines.clear();
    b->first = events_;
    b->first_tau = tau;
    b->has_commits = false;
    try {
      Event e;
      while (b->events.size() < block_events_) {
        if (!reader_->next(e)) {
          more = false;
          break;
        }
        if (!validator.on_event(e, reader_->line())) {
          error = shown_ + ":" + std::to_string(validator.problem_line()) + ": " + validator.problem();
          more = false;
          break;
        }
        if (e.op == Op::commit) b->has_commits = true;
        else ++tau;
        b->events.push_back(e);
        b->lines.push_back(reader_->line());
        ++events_;
      }
    } catch (const TraceError& err) {
      error = err.what();
      more = false;
    }
    std::lock_guard<std::mutex> lock(mu_);
    // A problem ends the run: the events before it are not checked.
    if (error.empty() && !b->events.empty()) ready_.push_back(std::move(b));
    else free_.push_back(std::move(b));
    if (!more) {
      error_ = error;
      done_ = true;
    }
    cv_.notify_all();
  }
}

std::unique_ptr<EventBlock> BlockReader::next() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !ready_.empty() || done_; });
  if (ready_.empty()) return nullptr;
  // Once the input is known to be bad, nothing more is checked.
  if (done_ && !error_.empty()) return nullptr;
  std::unique_ptr<EventBlock> b = std::move(ready_.front());
  ready_.pop_front();
  cv_.notify_all();
  return b;
}

void BlockReader::recycle(std::unique_ptr<EventBlock> block) {
  if (!block) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.size() < 4) free_.push_back(std::move(block));
}

// ---------------------------------------------------------------------------------------

void WitnessArchive::push(std::unique_ptr<EventBlock> block) {
  for (Window& w : windows_)
    if (w.open) collect(w, *block);
  pending_events_ += block->events.size();
  pending_.push_back(std::move(block));
}

std::vector<std::unique_ptr<EventBlock>> WitnessArchive::retain(std::vector<EventIndex>& live) {
  std::sort(live.begin(), live.end());
  live.erase(std::unique(live.begin(), live.end()), live.end());
  // Built in a buffer kept between calls: no allocation (nor page faults) once warm.
  std::vector<KeptEvent>& next = next_;
  next.clear();
  std::size_t old = 0, blk = 0;
  for (EventIndex tau : live) {
    while (old < kept_.size() && kept_[old].tau < tau) ++old;
    if (old < kept_.size() && kept_[old].tau == tau) {
      next.push_back(kept_[old]);
      continue;
    }
    // Blocks are in tau order: skip those that end before `tau`.
    while (blk + 1 < pending_.size() && pending_[blk + 1]->first_tau <= tau) ++blk;
    if (blk >= pending_.size()) continue;
    const EventBlock& b = *pending_[blk];
    std::ptrdiff_t k = b.position_of_tau(tau);
    if (k < 0) continue;  // not an event seen so far: nothing to keep
    const auto u = static_cast<std::size_t>(k);
    next.push_back(KeptEvent{tau, b.first + u, b.lines[u], b.events[u]});
  }
  kept_.swap(next);
  std::vector<std::unique_ptr<EventBlock>> done;
  if (tail_) done.push_back(std::move(tail_));
  while (!pending_.empty()) {
    if (pending_.size() == 1 && before_ > 0) tail_ = std::move(pending_.front());
    else done.push_back(std::move(pending_.front()));
    pending_.pop_front();
  }
  pending_events_ = 0;
  return done;
}

const KeptEvent* WitnessArchive::find_tau(EventIndex tau) {
  auto it = std::lower_bound(kept_.begin(), kept_.end(), tau,
                             [](const KeptEvent& k, EventIndex t) { return k.tau < t; });
  if (it != kept_.end() && it->tau == tau) return &*it;
  for (const auto& b : pending_) {
    std::ptrdiff_t k = b->position_of_tau(tau);
    if (k < 0) continue;
    const auto u = static_cast<std::size_t>(k);
    scratch_ = KeptEvent{tau, b->first + u, b->lines[u], b->events[u]};
    return &scratch_;
  }
  return nullptr;
}

void WitnessArchive::collect(Window& w, const EventBlock& b) {
  for (std::size_t k = 0; k < b.events.size(); ++k) {
    EventIndex f = b.first + k;
    if (f < w.from) continue;
    if (f > w.to) {
      w.open = false;
      return;
    }
    w.events.push_back(KeptEvent{kNoEvent, f, b.lines[k], b.events[k]});
  }
  if (b.end() > w.to) w.open = false;
}

bool WitnessArchive::open_window(std::size_t id, EventIndex centre) {
  if (windows_.size() <= id) windows_.resize(id + 1);
  Window& w = windows_[id];
  if (w.open || !w.events.empty()) return true;
  EventIndex file = kNoEvent;
  for (const auto& b : pending_) {
    std::ptrdiff_t k = b->position_of_tau(centre);
    if (k >= 0) file = b->first + static_cast<EventIndex>(k);
  }
  if (file == kNoEvent && tail_) {
    std::ptrdiff_t k = tail_->position_of_tau(centre);
    if (k >= 0) file = tail_->first + static_cast<EventIndex>(k);
  }
  if (file == kNoEvent) return false;
  w.from = file > before_ ? file - before_ : 0;
  w.to = file + after_;
  w.open = true;
  if (tail_) collect(w, *tail_);
  for (const auto& b : pending_)
    if (w.open) collect(w, *b);
  return true;
}

const std::vector<KeptEvent>& WitnessArchive::window(std::size_t id) const {
  static const std::vector<KeptEvent> kEmpty;
  return id < windows_.size() ? windows_[id].events : kEmpty;
}

}  // namespace atomcheck::cli
