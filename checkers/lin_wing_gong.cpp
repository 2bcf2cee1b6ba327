// Wing and Gong's linearizability search with Lowe's memo, as Porcupine runs it, over one
// part of a history (see lin_search.hpp). Entries (calls and returns) sit in a doubly
// linked list in real-time order; a step linearizes a minimal operation (one called
// before the first remaining return) and takes its entries out of the list, a return
// whose operation is not linearized yet undoes the last step. The memo of (operations
// linearized, state) keeps every pair from being explored twice. Nothing on the hot path
// allocates: states are saved on one flat stack, memo keys in one arena, and the longest
// order found is updated only past the prefix it shares with the stack when the search
// backs out of a deeper stack than ever.
#include <algorithm>

#include "checkers/lin_search.hpp"

namespace atomcheck::lin::detail {

namespace {

using State = std::vector<std::int64_t>;

// A set of integer sequences: an open-addressing table of (hash, offset) over one arena
// holding each sequence as its length then its elements.
class Memo {
 public:
  // Inserts the sequence; false when it was there.
  bool insert(const std::vector<std::int64_t>& key, Meter& meter) {
    if ((count_ + 1) * 2 > slots_.size()) grow(meter);
    const std::uint64_t h = hash(key);
    for (std::size_t i = h & (slots_.size() - 1);; i = (i + 1) & (slots_.size() - 1)) {
      Slot& s = slots_[i];
      if (s.at == 0) {
        s.hash = h;
        s.at = arena_.size() + 1;
        arena_.push_back(static_cast<std::int64_t>(key.size()));
        arena_.insert(arena_.end(), key.begin(), key.end());
        ++count_;
        meter.grew((key.size() + 1) * sizeof(std::int64_t));
        return true;
      }
      if (s.hash == h && equal(s.at - 1, key)) return false;
    }
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint64_t at = 0;  // 1 + the offset of the length in the arena; 0 empty
  };
  static std::uint64_t hash(const std::vector<std::int64_t>& key) {
    std::uint64_t h = 0x9e3779b97f4a7c15ull ^ key.size();
    for (std::int64_t x : key) {
      h ^= static_cast<std::uint64_t>(x) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
      h *= 0xbf58476d1ce4e5b9ull;
    }
    h ^= h >> 31;
    return h;
  }
  bool equal(std::size_t at, const std::vector<std::int64_t>& key) const {
    if (arena_[at] != static_cast<std::int64_t>(key.size())) return false;
    return std::equal(key.begin(), key.end(), arena_.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
  void grow(Meter& meter) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(1024, old.size() * 2), Slot{});
    meter.grew((slots_.size() - old.size()) * sizeof(Slot));
    for (const Slot& s : old) {
      if (s.at == 0) continue;
      std::size_t i = s.hash & (slots_.size() - 1);
      while (slots_[i].at != 0) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = s;
    }
  }
  std::vector<Slot> slots_;
  std::vector<std::int64_t> arena_;
  std::size_t count_ = 0;
};

class WingGong final : public PartSearch {
 public:
  WingGong(const History& h, const std::vector<std::uint32_t>& ops, const Spec& spec) : h_(h), spec_(spec) {
    const std::size_t n = ops.size();
    // Part-local operations in call order (their call rank), entries 1..2n in time order,
    // 0 the head sentinel. A pending return goes after every completed one.
    by_call_ = ops;
    std::sort(by_call_.begin(), by_call_.end(), [&](std::uint32_t x, std::uint32_t y) { return h[x].call < h[y].call; });
    e_.resize(1);
    e_.reserve(2 * n + 1);
    for (std::uint32_t k = 0; k < n; ++k) {
      const Operation& op = h[by_call_[k]];
      e_.push_back({op.call, k, true});
      e_.push_back({op.pending() ? kPending - n + k : op.ret, k, false});
      completed_ += op.pending() ? 0 : 1;
    }
    std::sort(e_.begin() + 1, e_.end(), [](const Entry& x, const Entry& y) { return x.time < y.time; });
    std::vector<std::uint32_t> call_of(n), ret_of(n);
    for (std::uint32_t i = 1; i < e_.size(); ++i) (e_[i].call ? call_of : ret_of)[e_[i].op] = i;
    for (std::uint32_t i = 0; i < e_.size(); ++i) {
      e_[i].prev = i == 0 ? 0 : i - 1;
      e_[i].next = i + 1 < e_.size() ? i + 1 : 0;
      if (i > 0) e_[i].match = e_[i].call ? ret_of[e_[i].op] : call_of[e_[i].op];
    }
    state_ = spec.initial();
    at_ = e_[0].next;
  }

  bool run(Meter& meter, Answer& a, std::uint64_t slice) override {
    for (std::uint64_t left = slice; done_ != completed_; --left) {
      if (left == 0) return false;
      if (!meter.step()) return true;
      if (at_ != 0 && e_[at_].call) {
        if (fresh_) {
          fresh_ = false;
          if (linearize_free(meter)) continue;
        }
        if (!try_linearize(meter, false)) at_ = e_[at_].next;
        continue;
      }
      // A return (or the end) whose operation is not linearized: undo the last choice.
      if (stack_.size() > longest_.size()) save_longest();
      if (stack_.empty()) {
        a.linearizable = false;
        answer_longest(a);
        return true;
      }
      undo();
    }
    save_longest();
    answer_longest(a);
    return true;
  }

 private:
  struct Entry {
    std::uint64_t time;
    std::uint32_t op;  // call rank
    bool call;
    std::uint32_t match = 0, prev = 0, next = 0;
  };
  struct Frame {
    std::uint32_t entry;
    std::uint32_t frontier;  // before the step
    std::size_t saved;       // where the state before the step starts in saved_
    bool forced;             // an observer taken at once: backing out of it backs out of the step before
  };

  void unlink(std::uint32_t i) {
    e_[e_[i].prev].next = e_[i].next;
    e_[e_[i].next].prev = e_[i].prev;
  }
  void relink(std::uint32_t i) {
    e_[e_[i].prev].next = i;
    e_[e_[i].next].prev = i;
  }

  // Linearizes the operation called at at_ if its step gives its result and the set with
  // it and the state after it are new; then starts again from the list's head.
  bool try_linearize(Meter& meter, bool forced) {
    const std::uint32_t r = e_[at_].op;
    const Operation& op = h_[by_call_[r]];
    next_.assign(state_.begin(), state_.end());
    if (!spec_.step(next_, op, !op.pending())) return false;
    // The set linearized is [0, frontier) without the holes: the memo key is the frontier
    // with r added, the holes, a -1, then the state.
    key_.clear();
    key_.push_back(std::max(frontier_, r + 1));
    for (std::uint32_t x : holes_)
      if (x != r) key_.push_back(x);
    for (std::uint32_t x = frontier_; x < r; ++x) key_.push_back(x);
    key_.push_back(-1);
    key_.insert(key_.end(), next_.begin(), next_.end());
    if (!memo_.insert(key_, meter)) return false;
    if (agree_ == stack_.size() && agree_ < longest_.size() && longest_[agree_] == r) ++agree_;
    stack_.push_back({at_, frontier_, saved_.size(), forced});
    saved_.insert(saved_.end(), state_.begin(), state_.end());
    std::swap(state_, next_);
    if (r >= frontier_) {
      for (std::uint32_t x = frontier_; x < r; ++x) holes_.push_back(x);
      frontier_ = r + 1;
    } else {
      holes_.erase(std::lower_bound(holes_.begin(), holes_.end(), r));
    }
    done_ += op.pending() ? 0 : 1;
    unlink(at_);
    unlink(e_[at_].match);
    at_ = e_[0].next;
    fresh_ = true;
    return true;
  }

  // An observer (Spec::observer: it leaves every state where its result is right as it
  // was) that can go next with its result may as well go now: any linearization from
  // here that places it later can place it first instead, since every operation that must
  // precede it is linearized, it gives its result here, and where it stood it changed
  // nothing. So it is taken without trying the others, and backing out of it backs out of
  // the step before (undo). Reads cost no search.
  bool linearize_free(Meter& meter) {
    for (std::uint32_t i = e_[0].next; i != 0 && e_[i].call; i = e_[i].next) {
      const Operation& op = h_[by_call_[e_[i].op]];
      if (!spec_.observer(op)) continue;
      at_ = i;
      if (try_linearize(meter, true)) return true;
    }
    at_ = e_[0].next;
    return false;
  }

  void undo() {
    const Frame f = stack_.back();
    stack_.pop_back();
    agree_ = std::min(agree_, stack_.size());
    const std::uint32_t r = e_[f.entry].op;
    done_ -= h_[by_call_[r]].pending() ? 0 : 1;
    if (r >= f.frontier) {
      holes_.resize(holes_.size() - (r - f.frontier));
    } else {
      holes_.insert(std::lower_bound(holes_.begin(), holes_.end(), r), r);
    }
    frontier_ = f.frontier;
    state_.assign(saved_.begin() + static_cast<std::ptrdiff_t>(f.saved), saved_.end());
    saved_.resize(f.saved);
    relink(e_[f.entry].match);
    relink(f.entry);
    at_ = f.forced ? 0 : e_[f.entry].next;
  }

  // The stack is deeper than the longest order saved: copy it, past the prefix the two
  // still share (so the copies cost no more than the steps that built the stack).
  void save_longest() {
    longest_.resize(agree_);
    for (std::size_t i = agree_; i < stack_.size(); ++i) longest_.push_back(e_[stack_[i].entry].op);
    agree_ = stack_.size();
  }
  void answer_longest(Answer& a) const {
    a.longest.clear();
    for (std::uint32_t r : longest_) a.longest.push_back(by_call_[r]);
  }

  const History& h_;
  const Spec& spec_;
  std::vector<std::uint32_t> by_call_;
  std::vector<Entry> e_;
  std::size_t completed_ = 0, done_ = 0;  // completed operations, and those linearized
  State state_, next_;
  std::uint32_t frontier_ = 0;        // 1 + the highest call rank linearized
  std::vector<std::uint32_t> holes_;  // ranks below it not linearized, sorted
  std::vector<std::int64_t> key_, saved_;
  std::vector<Frame> stack_;
  Memo memo_;
  std::vector<std::uint32_t> longest_;  // call ranks of the deepest stack seen
  std::size_t agree_ = 0;               // how many of its first frames the stack still has
  std::uint32_t at_ = 0;
  bool fresh_ = true;  // at_ went back to the head: look for a free operation first
};

}  // namespace

std::unique_ptr<PartSearch> make_wing_gong(const History& h, const std::vector<std::uint32_t>& ops, const Spec& spec) {
  return std::make_unique<WingGong>(h, ops, spec);
}

}  // namespace atomcheck::lin::detail
