// Writes a RAPID STD trace of any length to standard output, for end-to-end runs of
// `atomcheck check-trace` (bench/check_trace_scale.sh) and side-by-side runs with RAPID
// (bench/rapid_side_by_side.sh). Standalone and fast (hundreds of MB/s), so a 10^9-event
// trace can be piped straight into `atomcheck check-trace -` instead of sitting on disk.
//
// Workload (the shape of the RAPID traces: 8 threads, 16 locks, ~1.5 k
// variables): each thread runs transactions begin · acq(l) · K accesses to variables
// guarded by l · rel(l) · end (two-phase locking, so the trace is serializable), with
// unary accesses to its own variables in between; which thread moves next is random.
// --violation-at=N makes it non-serializable: once N events are out and two threads are
// between transactions, they interleave begin w(a) | begin r(a) w(b) end | r(b) end on
// two variables no lock guards (a cycle, and the first transaction is to blame).
//
// gen_std_trace --events=N [--threads=8] [--locks=16] [--vars=1500] [--txn=8]
//               [--seed=1] [--violation-at=N]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "xorshift.hpp"

namespace {

struct Params {
  std::uint64_t events = 1000000;
  std::uint32_t threads = 8, locks = 16, vars = 1500, txn = 8;
  std::uint64_t seed = 1;
  std::uint64_t violation_at = UINT64_MAX;
};

using Rng = XorShiftRng;

class Out {
 public:
  Out() : buf_(1 << 20) {}
  ~Out() { flush(); }
  void put(const char* s, std::size_t n) {
    if (len_ + n > buf_.size()) flush();
    std::memcpy(buf_.data() + len_, s, n);
    len_ += n;
  }
  void put(char c) {
    if (len_ == buf_.size()) flush();
    buf_[len_++] = c;
  }
  void num(std::uint64_t v) {
    char tmp[24];
    int n = 0;
    do {
      tmp[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (n > 0) put(tmp[--n]);
  }
  void flush() {
    std::size_t off = 0;
    while (off < len_) {
      std::size_t w = std::fwrite(buf_.data() + off, 1, len_ - off, stdout);
      if (w == 0) std::exit(0);  // the reader went away (e.g. the checker stopped)
      off += w;
    }
    len_ = 0;
  }

 private:
  std::vector<char> buf_;
  std::size_t len_ = 0;
};

class Generator {
 public:
  explicit Generator(const Params& p)
      : p_(p), rng_{p.seed * 0x9E3779B97F4A7C15ULL + 1}, state_(p.threads, 0),
        lock_of_(p.threads, 0), left_(p.threads, 0), holder_(p.locks, UINT32_MAX) {}

  void run() {
    while (emitted_ < p_.events) {
      if (!injected_ && emitted_ >= p_.violation_at && inject()) continue;
      step(rng_.below(p_.threads));
    }
    // Close what is open, so checkers judge finished transactions (a few extra events).
    for (std::uint32_t t = 0; t < p_.threads; ++t) {
      if (state_[t] == 1) state_[t] = 3;
      if (state_[t] == 2) left_[t] = 0;
      while (state_[t] != 0) step(t);
    }
  }

 private:
  // op: "r(", "w(", "acq(", "rel(", "begin", "end"; kind: 'V' variable, 'L' lock.
  void event(std::uint32_t t, const char* op, char kind, std::uint64_t id) {
    out_.put('T');
    out_.num(t);
    out_.put('|');
    out_.put(op, std::strlen(op));
    if (kind != 0) {
      out_.put(kind);
      out_.num(id);
      out_.put(')');
    }
    out_.put('|');
    out_.num(++loc_ % 100000);
    out_.put('\n');
    ++emitted_;
  }

  void step(std::uint32_t t) {
    switch (state_[t]) {
      case 0:
        if (rng_.below(1000) < 300) {  // a unary access to a thread-local variable
          event(t, rng_.below(2) ? "w(" : "r(", 'V', p_.vars + t);
          return;
        }
        event(t, "begin", 0, 0);
        state_[t] = 1;
        return;
      case 1: {
        std::uint32_t l = rng_.below(p_.locks);
        if (holder_[l] != UINT32_MAX) return;  // held: another thread moves next
        holder_[l] = t;
        lock_of_[t] = l;
        left_[t] = p_.txn;
        state_[t] = 2;
        event(t, "acq(", 'L', l);
        return;
      }
      case 2:
        if (left_[t] > 0) {
          --left_[t];
          std::uint32_t per_lock = (p_.vars + p_.locks - 1) / p_.locks;
          std::uint32_t x = lock_of_[t] + p_.locks * rng_.below(per_lock);
          if (x >= p_.vars) x = lock_of_[t];
          event(t, rng_.below(1000) < 300 ? "w(" : "r(", 'V', x);
          return;
        }
        holder_[lock_of_[t]] = UINT32_MAX;
        state_[t] = 3;
        event(t, "rel(", 'L', lock_of_[t]);
        return;
      default:
        state_[t] = 0;
        event(t, "end", 0, 0);
        return;
    }
  }

  // Two threads between transactions interleave a non-serializable pair.
  bool inject() {
    std::uint32_t a = UINT32_MAX, b = UINT32_MAX;
    for (std::uint32_t t = 0; t < p_.threads; ++t) {
      if (state_[t] != 0) continue;
      if (a == UINT32_MAX) a = t;
      else if (b == UINT32_MAX) b = t;
    }
    if (b == UINT32_MAX) return false;
    const std::uint64_t x = p_.vars + p_.threads, y = x + 1;  // guarded by no lock
    event(a, "begin", 0, 0);
    event(a, "w(", 'V', x);
    event(b, "begin", 0, 0);
    event(b, "r(", 'V', x);
    event(b, "w(", 'V', y);
    event(b, "end", 0, 0);
    event(a, "r(", 'V', y);
    event(a, "end", 0, 0);
    injected_ = true;
    return true;
  }

  Params p_;
  Rng rng_;
  Out out_;
  std::vector<std::uint8_t> state_;
  std::vector<std::uint32_t> lock_of_, left_, holder_;
  std::uint64_t emitted_ = 0, loc_ = 0;
  bool injected_ = false;
};

bool flag(const char* arg, const char* name, std::uint64_t& out) {
  std::size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  char* end = nullptr;
  out = std::strtoull(arg + n + 1, &end, 10);
  if (end == arg + n + 1 || *end != '\0') {
    std::fprintf(stderr, "gen_std_trace: bad number in '%s'\n", arg);
    std::exit(2);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Params p;
  for (int i = 1; i < argc; ++i) {
    std::uint64_t v = 0;
    const char* a = argv[i];
    if (flag(a, "--events", v)) p.events = v;
    else if (flag(a, "--threads", v)) p.threads = static_cast<std::uint32_t>(v);
    else if (flag(a, "--locks", v)) p.locks = static_cast<std::uint32_t>(v);
    else if (flag(a, "--vars", v)) p.vars = static_cast<std::uint32_t>(v);
    else if (flag(a, "--txn", v)) p.txn = static_cast<std::uint32_t>(v);
    else if (flag(a, "--seed", v)) p.seed = v;
    else if (flag(a, "--violation-at", v)) p.violation_at = v;
    else {
      std::fprintf(stderr,
                   "usage: gen_std_trace --events=N [--threads=8] [--locks=16] [--vars=1500] "
                   "[--txn=8] [--seed=1] [--violation-at=N]\n");
      return 2;
    }
  }
  if (p.threads < 2 || p.locks == 0 || p.vars < p.locks) {
    std::fprintf(stderr, "gen_std_trace: need threads >= 2, locks >= 1, vars >= locks\n");
    return 2;
  }
  Generator(p).run();
  return 0;
}
