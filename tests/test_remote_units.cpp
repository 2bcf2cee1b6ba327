// Optimal DPOR with units explored by other processes (atomcheck-mpi, docs/mpi.md),
// without MPI: ranks are threads of this process joined by an in-memory transport, so
// the protocol (units as words, runs in batches, runs again on rank 0, take-overs,
// stops) is checked on the random programs of the DPOR property tests, under the
// sanitizers too. Every search must be the one-job search: the same executions in the
// same order (class keys, schedules, failures, outcomes, verdicts) and the same counts.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/core.h>

#include "scheduler/cluster.hpp"
#include "scheduler/explore.hpp"
#include "tests/support/options.hpp"
#include "tests/support/random_program.hpp"
#include "tests/support/result_summary.hpp"

namespace atomcheck {
namespace {

using testing_support::describe;
using testing_support::make_random;
using testing_support::program_of;

// Mailboxes of N ranks, one lock.
struct Network {
  explicit Network(int n) : boxes(static_cast<std::size_t>(n)) {}
  struct Message {
    int from;
    detail::ClusterTag tag;
    std::vector<std::uint64_t> words;
  };
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::deque<Message>> boxes;
};

struct Left {};  // a rank told to quit

class ThreadCluster final : public detail::Cluster {
 public:
  ThreadCluster(Network& net, int rank) : net_(net), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(net_.boxes.size()); }
  void send(int to, detail::ClusterTag tag, std::span<const std::uint64_t> words) override {
    {
      std::lock_guard lock(net_.m);
      net_.boxes[static_cast<std::size_t>(to)].push_back({rank_, tag, {words.begin(), words.end()}});
    }
    net_.cv.notify_all();
    ++messages;
    bytes += 8 * words.size();
  }
  bool receive(int& from, detail::ClusterTag& tag, std::vector<std::uint64_t>& words, bool wait) override {
    std::unique_lock lock(net_.m);
    auto& box = net_.boxes[static_cast<std::size_t>(rank_)];
    if (wait) net_.cv.wait(lock, [&] { return !box.empty(); });
    if (box.empty()) return false;
    from = box.front().from;
    tag = box.front().tag;
    words = std::move(box.front().words);
    box.pop_front();
    return true;
  }
  [[noreturn]] void leave() override { throw Left{}; }

 private:
  Network& net_;
  int rank_;
};

struct Seen {
  ExploreResult result;
  std::vector<std::string> executions;
};

ExploreOptions options_for(MemoryModelKind m, bool oracle) {
  ExploreOptions o = testing_support::every_schedule();
  o.strategy = StrategyKind::optimal;
  o.memory = m;
  o.count_classes = true;
  o.keep_failures = 1000000;
  o.max_executions = 20000;
  o.jobs = 1;
  if (oracle) o.checkers = {"oracle", "velodrome"};
  return o;
}

// The search on this thread as rank 0 of `ranks` (1: no other rank).
Seen search(const Program& p, MemoryModelKind m, bool oracle, bool callback, int ranks) {
  Seen out;
  ExploreOptions o = options_for(m, oracle);
  o.distribute = ranks > 1;
  std::function<void(const ExecutionView&)> cb;
  if (callback)
    cb = [&](const ExecutionView& v) {
      std::string verdicts;
      for (const Verdict& d : *v.verdicts) verdicts += d.serializable ? 's' : 'n';
      out.executions.push_back(fmt::format("{} {:x} {} {} {} {} {}", v.index, v.class_key, v.schedule,
                                           v.failure ? v.failure->message : "-",
                                           v.outcome ? format_outcome(*v.outcome) : "-", verdicts, v.sleep_blocked));
    };
  if (ranks == 1) {
    out.result = explore(p, o, cb);
    return out;
  }
  Network net(ranks);
  std::vector<std::thread> others;
  for (int r = 1; r < ranks; ++r)
    others.emplace_back([&, r] {
      ThreadCluster c(net, r);
      detail::set_cluster(&c);
      try {
        explore(p, o);  // serves rank 0's searches until it says quit
      } catch (const Left&) {
      }
      detail::set_cluster(nullptr);
    });
  ThreadCluster c0(net, 0);
  detail::set_cluster(&c0);
  out.result = explore(p, o, cb);
  const std::uint64_t none[] = {0};
  for (int r = 1; r < ranks; ++r) c0.send(r, detail::ClusterTag::quit, none);
  for (std::thread& t : others) t.join();
  detail::set_cluster(nullptr);
  return out;
}

std::string summary(const ExploreResult& r) { return testing_support::result_summary(r); }

std::size_t scaled(std::size_t n) {
  const char* s = std::getenv("ATOMCHECK_SANITIZED");
  return s && std::string(s) == "1" ? n / 6 : n;
}

void check_ranks(MemoryModelKind m, std::uint64_t seed, std::size_t n, bool spins) {
  std::mt19937_64 rng(seed);
  std::uint64_t executions = 0, remote = 0, replayed = 0, units = 0, taken_over = 0;
  std::size_t checked = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto rp = make_random(rng, m == MemoryModelKind::tso, spins);
    Program p = program_of(rp);
    // Runs without a callback or checkers travel as words; the others are run again.
    const bool oracle = i % 2 == 0, callback = i % 3 == 0;
    Seen one = search(p, m, oracle, callback, 1);
    if (one.result.stop != StopReason::none) continue;  // too big for a unit test
    const std::string what = fmt::format("program {} ({}): {}", i, m == MemoryModelKind::tso ? "tso" : "sc",
                                         describe(rp));
    for (int ranks : {2, 3}) {
      Seen many = search(p, m, oracle, callback, ranks);
      ASSERT_EQ(summary(many.result), summary(one.result)) << what << " over " << ranks << " ranks";
      ASSERT_EQ(many.executions, one.executions) << what << " over " << ranks << " ranks";
      remote += many.result.parallel.remote_executions;
      replayed += many.result.parallel.replayed;
      units += many.result.parallel.remote_units;
      taken_over += many.result.parallel.taken_over;
    }
    executions += one.result.executions;
    ++checked;
  }
  EXPECT_GT(remote, 0u) << "no execution came from another rank";
  EXPECT_GT(units, 0u);
  std::printf("checked %zu random programs (%s%s) over 2 and 3 ranks: %llu executions each; other ranks "
              "ran %llu in %llu units (%llu taken over), rank 0 ran %llu of them again\n",
              checked, m == MemoryModelKind::tso ? "tso" : "sc", spins ? ", spin loops" : "",
              static_cast<unsigned long long>(executions), static_cast<unsigned long long>(remote),
              static_cast<unsigned long long>(units), static_cast<unsigned long long>(taken_over),
              static_cast<unsigned long long>(replayed));
}

TEST(RemoteUnits, RandomProgramsSc) { check_ranks(MemoryModelKind::sc, 8001, scaled(600), false); }
TEST(RemoteUnits, RandomProgramsTso) { check_ranks(MemoryModelKind::tso, 8002, scaled(600), false); }
TEST(RemoteUnits, RandomSpinProgramsTso) { check_ranks(MemoryModelKind::tso, 8003, scaled(300), true); }

// Split samples over ranks: rank k runs searches k*jobs.. of the split, so 3 ranks of
// one job each give the summary of one process with 3 jobs.
TEST(RemoteUnits, SamplesSplitOverRanksAreTheJobsSplit) {
  std::mt19937_64 rng(8004);
  for (int i = 0; i < 20; ++i) {
    auto rp = make_random(rng, true, false);
    Program p = program_of(rp);
    ExploreOptions o = options_for(MemoryModelKind::tso, false);
    o.strategy = i % 2 ? StrategyKind::random : StrategyKind::pct;
    o.max_executions = 300;
    o.seed = 40 + i;
    o.jobs = 3;
    const ExploreResult threads = explore(p, o);
    o.jobs = 1;
    o.distribute = true;
    Network net(3);
    std::vector<std::thread> others;
    for (int r = 1; r < 3; ++r)
      others.emplace_back([&, r] {
        ThreadCluster c(net, r);
        detail::set_cluster(&c);
        try {
          explore(p, o);
        } catch (const Left&) {
        }
        detail::set_cluster(nullptr);
      });
    ThreadCluster c0(net, 0);
    detail::set_cluster(&c0);
    const ExploreResult ranks = explore(p, o);
    const std::uint64_t none[] = {0};
    for (int r = 1; r < 3; ++r) c0.send(r, detail::ClusterTag::quit, none);
    for (std::thread& t : others) t.join();
    detail::set_cluster(nullptr);
    ASSERT_EQ(summary(ranks), summary(threads)) << describe(rp);
    EXPECT_GT(c0.messages, 0u);
  }
}

}  // namespace
}  // namespace atomcheck
