// Optimal DPOR with units explored by other processes (atomcheck-mpi, docs/mpi.md),
// without MPI: ranks are threads of this process joined by an in-memory transport, so
// the protocol (units as words, runs in batches, runs again on rank 0, take-overs,
// stops) is checked on the random programs of the DPOR property tests, under the
// sanitizers too. Every search must be the one-job search: the same executions in the
// same order (class keys, schedules, failures, outcomes, verdicts) and the same counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/core.h>

#include "scheduler/runtime/api.hpp"
#include "scheduler/explore/cluster.hpp"
#include "scheduler/runtime/execution.hpp"
#include "scheduler/explore/explore.hpp"
#include "scheduler/explore/explore_internal.hpp"
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

// The search on this thread as rank 0 of `ranks` (1: no other rank), every rank with
// `jobs` threads.
Seen search(const Program& p, MemoryModelKind m, bool oracle, bool callback, int ranks, unsigned jobs = 1) {
  Seen out;
  ExploreOptions o = options_for(m, oracle);
  o.distribute = ranks > 1;
  o.jobs = jobs;
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
  std::uint64_t executions = 0, remote = 0, remote_threaded = 0, replayed = 0, units = 0, taken_over = 0;
  // Searches with checkers but no callback: their runs are judged where they ran, and
  // only failures and spins are run again on rank 0.
  std::uint64_t judged_remote = 0, judged_replayed = 0;
  std::size_t checked = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto rp = make_random(rng, m == MemoryModelKind::tso, spins);
    Program p = program_of(rp);
    // Runs without a callback travel as words (with the checkers' verdicts); the others
    // are run again on rank 0.
    const bool oracle = i % 2 == 0, callback = i % 3 == 0;
    Seen one = search(p, m, oracle, callback, 1);
    if (one.result.stop != StopReason::none) continue;  // too big for a unit test
    const std::string what = fmt::format("program {} ({}): {}", i, m == MemoryModelKind::tso ? "tso" : "sc",
                                         describe(rp));
    for (int ranks : {2, 3}) {
      // Every other program over 3 ranks of 2 threads each (rank 0's unit thread too).
      const unsigned jobs = ranks == 3 && i % 2 ? 2 : 1;
      Seen many = search(p, m, oracle, callback, ranks, jobs);
      ASSERT_EQ(summary(many.result), summary(one.result)) << what << " over " << ranks << " ranks, jobs " << jobs;
      ASSERT_EQ(many.executions, one.executions) << what << " over " << ranks << " ranks, jobs " << jobs;
      remote += many.result.parallel.remote_executions;
      if (jobs > 1) remote_threaded += many.result.parallel.remote_executions;
      replayed += many.result.parallel.replayed;
      if (oracle && !callback) {
        judged_remote += many.result.parallel.remote_executions;
        judged_replayed += many.result.parallel.replayed;
      }
      units += many.result.parallel.remote_units;
      taken_over += many.result.parallel.taken_over;
    }
    executions += one.result.executions;
    ++checked;
  }
  EXPECT_GT(remote, 0u) << "no execution came from another rank";
  // (Under the sanitizers a sixth of the programs run, and rank 0's own unit thread may
  // take every unit of the few with two threads per rank: there the count is printed.)
  if (n == scaled(n)) {
    // The random programs are small, and on a loaded machine rank 0's threads may take
    // every unit of the few spread over ranks of two threads: then a program of thousands
    // of executions, over the same ranks, until another rank's thread runs some of them.
    const Program big = find_program("vyukov-enqueue-3x2")->body;
    const Seen alone = search(big, m, false, false, 1);
    for (int attempt = 0; remote_threaded == 0 && attempt < 5; ++attempt) {
      const Seen spread = search(big, m, false, false, 3, 2);
      ASSERT_EQ(summary(spread.result), summary(alone.result)) << "vyukov-enqueue-3x2 over 3 ranks, jobs 2";
      remote_threaded += spread.result.parallel.remote_executions;
    }
    EXPECT_GT(remote_threaded, 0u) << "no execution came from a rank of two threads";
  }
  EXPECT_GT(units, 0u);
  EXPECT_LT(judged_replayed, judged_remote / 2) << "runs judged on other ranks were run again on rank 0";
  std::printf("checked %zu random programs (%s%s) over 2 and 3 ranks: %llu executions each; other ranks "
              "ran %llu in %llu units (%llu taken over), %llu of them on ranks of two threads; rank 0 ran %llu of them "
              "again\n",
              checked, m == MemoryModelKind::tso ? "tso" : "sc", spins ? ", spin loops" : "",
              static_cast<unsigned long long>(executions), static_cast<unsigned long long>(remote),
              static_cast<unsigned long long>(units), static_cast<unsigned long long>(taken_over),
              static_cast<unsigned long long>(remote_threaded), static_cast<unsigned long long>(replayed));
}

TEST(RemoteUnits, RandomProgramsSc) { check_ranks(MemoryModelKind::sc, 8001, scaled(600), false); }
TEST(RemoteUnits, RandomProgramsTso) { check_ranks(MemoryModelKind::tso, 8002, scaled(600), false); }
TEST(RemoteUnits, RandomSpinProgramsTso) { check_ranks(MemoryModelKind::tso, 8003, scaled(300), true); }

// A unit's first and last executions come to rank 0 as records (push_record): what the
// determinism check reads must come back field for field, a cut record must be refused,
// and the check must answer on records as on the executions.
TEST(RemoteUnits, ARecordTravelsAsWordsExactly) {
  std::mt19937_64 rng(8005);
  std::size_t records = 0, differing = 0;
  for (int i = 0; i < 60; ++i) {
    const bool tso = i % 2 == 1;
    auto rp = make_random(rng, tso, i % 3 == 0);
    Program p = program_of(rp);
    ExploreOptions o = options_for(tso ? MemoryModelKind::tso : MemoryModelKind::sc, false);
    const std::unique_ptr<detail::Execution> x = detail::execution_for(o);
    const std::unique_ptr<Strategy> st = make_dfs_strategy();
    History prev, prev_back;
    std::vector<Event> prev_events, prev_events_back;
    for (int run = 0; run < 12 && st->begin_execution(); ++run) {
      x->run(p, *st);
      const History& h = x->history();
      const std::vector<Event>& ev = x->trace().events;
      std::vector<std::uint64_t> words{7};  // a word before, as in a message
      detail::push_record(words, h, ev);
      History back;
      std::vector<Event> back_events;
      detail::WordReader in{words};
      in.at = 1;
      ASSERT_TRUE(detail::read_record(in, back, back_events)) << describe(rp);
      ASSERT_EQ(in.left(), 0u);
      ASSERT_EQ(back.steps(), h.steps());
      for (std::size_t k = 0; k < h.steps(); ++k) {
        ASSERT_TRUE(back.chosen[k] == h.chosen[k]) << k;
        const auto a = back.enabled_at(k), b = h.enabled_at(k);
        ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "step " << k << ": " << describe(rp);
      }
      ASSERT_EQ(back.step_events_end, h.step_events_end);
      ASSERT_EQ(back.options, h.options);
      ASSERT_EQ(back_events.size(), ev.size());
      for (std::size_t k = 0; k < ev.size(); ++k) {
        ASSERT_EQ(back_events[k].op, ev[k].op);
        ASSERT_EQ(back_events[k].thread, ev[k].thread);
        ASSERT_EQ(back_events[k].target, ev[k].target);
        ASSERT_EQ(back_events[k].value, ev[k].value);
        ASSERT_EQ(back_events[k].value2, ev[k].value2);
      }
      for (std::size_t cut = 1; run < 2 && cut < words.size(); ++cut) {  // quadratic: two runs a program
        History h2;
        std::vector<Event> e2;
        detail::WordReader short_in{std::span<const std::uint64_t>(words).first(cut)};
        short_in.at = 1;
        ASSERT_FALSE(detail::read_record(short_in, h2, e2)) << "a record cut to " << cut << " of " << words.size();
      }
      if (run > 0) {
        EXPECT_EQ(detail::compare_with_previous(prev_back, prev_events_back, back, back_events),
                  detail::compare_with_previous(prev, prev_events, h, ev));
        // A changed value is caught on records as on the executions.
        if (!back_events.empty() && !h.step_events_end.empty() && h.step_events_end[0] > 0) {
          std::vector<Event> changed = back_events;
          ++changed[0].value;
          EXPECT_NE(detail::compare_with_previous(back, back_events, back, changed), "");
          ++differing;
        }
      }
      prev = h;
      prev_events = ev;
      prev_back = std::move(back);
      prev_events_back = std::move(back_events);
      ++records;
    }
  }
  EXPECT_GT(records, 300u);
  EXPECT_GT(differing, 100u);
}

// The checkers' verdicts on a run another rank judged come to rank 0 as words
// (push_verdict): every field must come back, and a cut verdict must be refused. The
// checkers named give cycles (velodrome), blames (regiontrack-blame), notes and open
// transactions; the hand-made verdict sets every field.
TEST(RemoteUnits, AVerdictTravelsAsWordsExactly) {
  auto same = [](const Verdict& a, const Verdict& b) {
    auto edges = [](const std::vector<CycleEdge>& c) {
      std::vector<std::tuple<ThreadId, EventIndex, ThreadId, EventIndex, EventIndex, EventIndex>> out;
      for (const CycleEdge& e : c)
        out.emplace_back(e.from.thread, e.from.first, e.to.thread, e.to.first, e.from_event, e.to_event);
      return out;
    };
    auto blames = [](const std::vector<Blame>& c) {
      std::vector<std::tuple<ThreadId, EventIndex, EventIndex, EventIndex>> out;
      for (const Blame& b : c) out.emplace_back(b.txn.thread, b.txn.first, b.interfering, b.at);
      return out;
    };
    return a.checker == b.checker && a.answers_serializability == b.answers_serializability &&
           a.answers_blame == b.answers_blame && a.serializable == b.serializable && edges(a.cycle) == edges(b.cycle) &&
           a.detected_at == b.detected_at && blames(a.blamed) == blames(b.blamed) && a.undecided == b.undecided &&
           a.open_at_end == b.open_at_end && a.note == b.note && a.witness_execution == b.witness_execution;
  };
  auto round_trip = [&](const Verdict& v, bool cuts) {
    std::vector<std::uint64_t> words{7};  // a word before, as in a message
    detail::push_verdict(words, v);
    Verdict back;
    detail::WordReader in{words};
    in.at = 1;
    ASSERT_TRUE(detail::read_verdict(in, back)) << v.checker;
    EXPECT_EQ(in.left(), 0u);
    EXPECT_TRUE(same(back, v)) << v.checker;
    for (std::size_t cut = 1; cuts && cut < words.size(); ++cut) {
      Verdict part;
      detail::WordReader short_in{std::span<const std::uint64_t>(words).first(cut)};
      short_in.at = 1;
      EXPECT_FALSE(detail::read_verdict(short_in, part)) << "a verdict cut to " << cut << " of " << words.size();
    }
  };
  Verdict all;
  all.checker = "hand-made";
  all.answers_serializability = all.answers_blame = all.open_at_end = true;
  all.serializable = false;
  all.cycle = {{{1, 2}, {3, 4}, 5, 6}, {{3, 4}, {1, 2}, kNoEvent, 8}};
  all.detected_at = 9;
  all.blamed = {{{1, 2}, 10, 11}};
  all.undecided = "a budget of 12 steps";
  all.note = "a note longer than one word";
  all.witness_execution = {13, 14, kNoEvent};
  round_trip(all, true);
  Verdict none;  // empty strings and lists, all flags clear
  none.serializable = false;
  round_trip(none, true);

  std::mt19937_64 rng(8006);
  std::size_t verdicts = 0, with_cycle = 0, with_blame = 0;
  for (int i = 0; i < 40; ++i) {
    const bool tso = i % 2 == 1;
    auto rp = make_random(rng, tso, false);
    Program p = program_of(rp);
    ExploreOptions o = options_for(tso ? MemoryModelKind::tso : MemoryModelKind::sc, false);
    o.checkers = {"velodrome", "regiontrack-blame", "aerodrome", "atomic-set"};
    const std::unique_ptr<detail::Execution> x = detail::execution_for(o);
    detail::Judges judges(o);
    const std::unique_ptr<Strategy> st = make_dfs_strategy();
    for (int run = 0; run < 8 && st->begin_execution(); ++run) {
      x->run(p, *st);
      judges.judge(o, *x, true);
      for (const Verdict& v : judges.verdicts) {
        round_trip(v, run == 0);
        ++verdicts;
        with_cycle += !v.cycle.empty();
        with_blame += !v.blamed.empty();
      }
    }
  }
  EXPECT_GT(verdicts, 500u);
  EXPECT_GT(with_cycle, 20u);
  EXPECT_GT(with_blame, 20u);
  std::printf("%zu verdicts came back field for field (%zu with a cycle, %zu with blames)\n", verdicts, with_cycle,
              with_blame);
}

// Four threads racing on x, y and z after a first store to x of 1, or of 2 where `odd`
// says so (a static that outlives an execution, as a faulty program's would).
Program odd_first_store(std::function<bool()> odd) {
  return [odd] {
    const bool deviate = odd();
    atomic<int> x(0, "x"), y(0, "y"), z(0, "z");
    x.store(deviate ? 2 : 1);
    thread t1([&] { y.store(1); x.store(3); z.store(1); });
    thread t2([&] { outcome("s", y.load() + x.load() + z.load()); });
    thread t3([&] { x.store(4); y.store(2); z.store(2); });
    thread t4([&] { outcome("t", z.load() + y.load()); });
    t1.join();
    t2.join();
    t3.join();
    t4.join();
  };
}

// A program whose state outlives an execution is caught over ranks too, wherever the
// odd execution falls in rank 1's units: inside one (rank 1 compares it with its
// neighbours), or at a unit's ends, whose records rank 0 compares with the search's
// neighbours. (Rank 1 runs unit executions only; rank 0 also runs the estimator's walks,
// which no check sees.)
TEST(RemoteUnits, StateOutlivingAnExecutionIsCaught) {
  std::atomic<int> on_rank1{0};
  int odd = 0;
  Program p = odd_first_store([&] {
    const detail::Cluster* c = detail::cluster();
    return c && c->rank() == 1 && ++on_rank1 == odd;
  });
  // Until 40 searches caught it (how many runs rank 1 gets, and which units are
  // dropped, vary with timing), or 400 searches.
  const std::size_t enough = scaled(40);
  std::size_t caught = 0, dropped = 0;
  for (int i = 0; i < 400 && caught < enough; ++i) {
    odd = 1 + i % 40;
    for (int ranks : {2, 3}) {
      on_rank1 = 0;
      const Seen r = search(p, MemoryModelKind::sc, false, false, ranks);
      if (on_rank1 < odd) {  // rank 1 ran fewer executions this time
        EXPECT_EQ(r.result.stop, StopReason::none) << r.result.error;
        continue;
      }
      // A unit whose branch changed before the search reached it is dropped with its
      // runs (the search explores the branch itself): the odd one may have been there.
      if (r.result.parallel.discarded > 0 && r.result.stop == StopReason::none) {
        ++dropped;
        continue;
      }
      EXPECT_EQ(r.result.stop, StopReason::nondeterministic) << "run " << odd << " of rank 1, " << ranks << " ranks";
      EXPECT_NE(r.result.error.find("not deterministic"), std::string::npos) << r.result.error;
      ++caught;
    }
  }
  std::printf("caught the odd execution in %zu searches (%zu more had dropped units)\n", caught, dropped);
  EXPECT_GE(caught, enough) << "rank 1 ran few executions";
}

// A rank whose program differs in every execution (a static it alone set) agrees with
// itself inside its units: only rank 0's checks at each unit's ends, on the records of
// the unit's first and last executions, can see it.
TEST(RemoteUnits, ARankThatDiffersIsCaughtAtItsUnitsEnds) {
  Program p = odd_first_store([] {
    const detail::Cluster* c = detail::cluster();
    return c && c->rank() == 1;
  });
  const std::size_t enough = scaled(20);
  std::size_t caught = 0;
  for (int i = 0; i < 300 && caught < enough; ++i) {
    const Seen r = search(p, MemoryModelKind::sc, false, false, 2);
    if (r.result.parallel.units == 0) {  // the search took no unit's runs
      EXPECT_EQ(r.result.stop, StopReason::none) << r.result.error;
      continue;
    }
    EXPECT_EQ(r.result.stop, StopReason::nondeterministic) << "search " << i;
    EXPECT_NE(r.result.error.find("not deterministic"), std::string::npos) << r.result.error;
    ++caught;
  }
  EXPECT_GE(caught, enough) << "the search took few units";
}

// Split samples over ranks: rank k runs searches k*jobs.. of the split, so 3 ranks of
// one job each give the summary of one process with 3 jobs.
TEST(RemoteUnits, SamplesSplitOverRanksAreTheJobsSplit) {
  std::mt19937_64 rng(8004);
  std::uint64_t flagged = 0;
  for (int i = 0; i < 20; ++i) {
    auto rp = make_random(rng, true, false);
    Program p = program_of(rp);
    ExploreOptions o = options_for(MemoryModelKind::tso, false);
    o.strategy = i % 2 ? StrategyKind::random : StrategyKind::pct;
    o.max_executions = 300;
    o.seed = 40 + i;
    o.jobs = 3;
    // Half with checkers: their summaries, first verdicts included, travel as words.
    if (i % 4 < 2) o.checkers = {"oracle", "velodrome", "regiontrack-blame"};
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
    ASSERT_EQ(ranks.checkers.size(), o.checkers.size());
    for (std::size_t k = 0; k < o.checkers.size(); ++k) {
      const CheckerSummary &a = ranks.checkers[k], &b = threads.checkers[k];
      EXPECT_EQ(a.undecided, b.undecided);
      EXPECT_EQ(a.first_undecided, b.first_undecided);
      EXPECT_EQ(a.first_verdict.checker, b.first_verdict.checker);
      EXPECT_EQ(a.first_verdict.serializable, b.first_verdict.serializable);
      EXPECT_EQ(a.first_verdict.cycle.size(), b.first_verdict.cycle.size());
      EXPECT_EQ(a.first_verdict.blamed.size(), b.first_verdict.blamed.size());
      EXPECT_EQ(a.first_verdict.note, b.first_verdict.note);
      flagged += a.flagged;
    }
    EXPECT_GT(c0.messages, 0u);
  }
  EXPECT_GT(flagged, 0u) << "no checker flagged a sample: the summaries' words went untested";
}

}  // namespace
}  // namespace atomcheck
