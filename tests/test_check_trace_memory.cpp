// check-trace's peak memory must not grow with the trace (issue 23): the same workload
// at 10^5 and 10^7 events is piped into a child `atomcheck check-trace -`, and the
// child's peak RSS (getrusage through wait4) of the long run must stay within a small
// factor of the short one. Before streaming, check-trace kept the first 2^22 events and
// peaked at 72 MB from 10^6 events and 270 MB from 4*10^6 on. No time is asserted.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// The shape of the RAPID traces: 8 threads, 16 locks, ~1.5k variables, locked
// (serializable) transactions with thread-local unary accesses in between.
class Workload {
 public:
  std::string chunk(std::uint64_t events) {
    std::string s;
    s.reserve(events * 16);
    while (events > 0) {
      std::uint32_t t = below(8);
      const std::uint32_t th = t;
      switch (state_[t]) {
        case 0:
          if (below(10) < 3) {
            s += fmt::format("T{}|w(v{})|1\n", th, 1500 + t);
          } else {
            s += fmt::format("T{}|begin|1\n", th);
            state_[t] = 1;
          }
          break;
        case 1: {
          std::uint32_t l = below(16);
          if (held_[l]) continue;
          held_[l] = true;
          lock_[t] = l;
          left_[t] = 8;
          state_[t] = 2;
          s += fmt::format("T{}|acq(l{})|1\n", th, l);
          break;
        }
        case 2:
          if (left_[t] > 0) {
            --left_[t];
            const char* op = below(10) < 3 ? "w" : "r";
            s += fmt::format("T{}|{}(v{})|1\n", th, op, lock_[t] + 16 * below(93));
          } else {
            held_[lock_[t]] = false;
            state_[t] = 3;
            s += fmt::format("T{}|rel(l{})|1\n", th, lock_[t]);
          }
          break;
        default:
          state_[t] = 0;
          s += fmt::format("T{}|end|1\n", th);
      }
      --events;
    }
    return s;
  }

 private:
  std::uint32_t below(std::uint32_t n) {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 7;
    x_ ^= x_ << 17;
    return static_cast<std::uint32_t>(x_ % n);
  }
  std::uint64_t x_ = 88172645463325252ULL;
  std::uint32_t state_[8] = {}, lock_[8] = {}, left_[8] = {};
  bool held_[16] = {};
};

// Peak RSS in KB of `atomcheck check-trace - --checker ...` fed `events` events.
long peak_rss_kb(std::uint64_t events, int& exit_code) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[0], 0);
    close(fds[0]);
    close(fds[1]);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    execl(ATOMCHECK_BIN, "atomcheck", "check-trace", "-", "--checker",
          "aerodrome-opt-fixed,velodrome,regiontrack-fixed", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[0]);
  std::signal(SIGPIPE, SIG_IGN);
  Workload w;
  for (std::uint64_t done = 0; done < events;) {
    std::uint64_t n = std::min<std::uint64_t>(100000, events - done);
    std::string text = w.chunk(n);
    for (std::size_t off = 0; off < text.size();) {
      ssize_t k = write(fds[1], text.data() + off, text.size() - off);
      if (k <= 0) break;
      off += static_cast<std::size_t>(k);
    }
    done += n;
  }
  close(fds[1]);
  int status = 0;
  struct rusage ru {};
  if (wait4(pid, &status, 0, &ru) != pid) return -1;
  exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return ru.ru_maxrss;
}

TEST(CheckTraceMemory, PeakRssIsFlatInTheTraceLength) {
  // Sanitizers make each event dearer and their own memory grows: shorter there.
  const bool sanitized = std::getenv("ATOMCHECK_SANITIZED") != nullptr;
  const std::uint64_t small = sanitized ? 10000 : 100000, large = sanitized ? 1000000 : 10000000;
  int rc_small = -1, rc_large = -1;
  long rss_small = peak_rss_kb(small, rc_small);
  long rss_large = peak_rss_kb(large, rc_large);
  ASSERT_EQ(rc_small, 0);
  ASSERT_EQ(rc_large, 0);
  ASSERT_GT(rss_small, 0);
  RecordProperty("rss_small_kb", std::to_string(rss_small));
  RecordProperty("rss_large_kb", std::to_string(rss_large));
  // 100x the events, at most 1.5x the memory (plus 4 MB of allocator slack).
  EXPECT_LE(rss_large, rss_small * 3 / 2 + 4096) << "peak RSS " << rss_small << " KB at " << small
                                                 << " events, " << rss_large << " KB at " << large;
}

}  // namespace
