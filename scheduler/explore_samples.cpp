// Split sampling (explore_samples.hpp). Each worker is a whole one-job explore() on its
// own thread with its own Execution, fibers and checkers; nothing is shared but a stop
// flag (Ctrl-C, the time limit of one, --stop-on-failure), the caller's callbacks behind
// one lock, and the merge at the end.
#include "scheduler/explore_samples.hpp"
#include "scheduler/splitmix.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

namespace atomcheck::detail {

std::uint64_t sample_worker_seed(std::uint64_t seed, unsigned w) {
  if (w == 0) return seed;
  return splitmix64_mix(seed + kSplitMix64Gamma * w);
}

namespace {

// Adds worker w's result to `r`; execution numbers become i * jobs + w.
void merge_into(ExploreResult& r, ExploreResult& part, unsigned w, unsigned jobs) {
  auto global = [&](std::uint64_t i) { return i * jobs + w; };
  r.executions += part.executions;
  r.completed += part.completed;
  r.failed += part.failed;
  r.deadlocks += part.deadlocks;
  r.step_bounded += part.step_bounded;
  r.pruned += part.pruned;
  r.sleep_blocked += part.sleep_blocked;
  r.bound_cut += part.bound_cut;
  r.bounded = r.bounded || part.bounded;
  r.steps += part.steps;
  r.events += part.events;
  for (const auto& [outcome, n] : part.outcomes) r.outcomes[outcome] += n;
  for (Failure& f : part.failures) {
    f.execution = global(f.execution);
    r.failures.push_back(std::move(f));
  }
  if (part.unmarked_spins && r.unmarked_spins == 0) {
    r.unmarked_spin = part.unmarked_spin;
    r.unmarked_spin_schedule = part.unmarked_spin_schedule;
  }
  r.unmarked_spins += part.unmarked_spins;
  for (std::size_t k = 0; k < r.checkers.size(); ++k) {
    CheckerSummary& c = r.checkers[k];
    CheckerSummary& p = part.checkers[k];
    if (p.undecided && c.undecided == 0) c.first_undecided = p.first_undecided;
    c.undecided += p.undecided;
    if (p.flagged && (c.flagged == 0 || global(p.first_execution) < c.first_execution)) {
      c.first_execution = global(p.first_execution);
      c.first_schedule = p.first_schedule;
      c.first_verdict = p.first_verdict;
    }
    c.flagged += p.flagged;
  }
  if (r.error.empty() && !part.error.empty()) r.error = part.error;
}

}  // namespace

ExploreResult explore_split_samples(const Program& program, const ExploreOptions& options,
                                    const std::function<void(const ExecutionView&)>& on_execution) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const unsigned jobs = options.jobs;
  const std::uint64_t total = options.max_executions.value_or(kDefaultSamples);  // 0: unlimited

  std::atomic<bool> stop_all{false};
  std::mutex callback_mu;
  std::vector<std::uint64_t> progress_of(jobs, 0);  // under callback_mu
  std::vector<ExploreResult> parts(jobs);
  std::vector<std::atomic<bool>> done(jobs);
  std::vector<std::thread> threads;

  for (unsigned w = 0; w < jobs; ++w) {
    const std::uint64_t share = total == 0 ? 0 : total / jobs + (w < total % jobs ? 1 : 0);
    if (total != 0 && share == 0) {
      done[w] = true;
      continue;
    }
    ExploreOptions o = options;
    o.jobs = 1;
    o.seed = sample_worker_seed(options.seed, w);
    o.max_executions = share;
    o.interrupt = &stop_all;
    o.count_classes = false;  // a sample's classes are not a union the workers could count
    if (options.progress) {
      o.progress = [&, w](const ExploreProgress& p) {
        std::lock_guard lock(callback_mu);
        progress_of[w] = p.executions;
        ExploreProgress all = p;
        all.executions = 0;
        for (std::uint64_t n : progress_of) all.executions += n;
        all.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start).count();
        all.estimate = 0;
        options.progress(all);
      };
    }
    std::function<void(const ExecutionView&)> each;
    if (on_execution) {
      each = [&, w](const ExecutionView& v) {
        std::lock_guard lock(callback_mu);
        ExecutionView view = v;
        view.index = v.index * jobs + w;
        on_execution(view);
      };
    }
    threads.emplace_back([&, w, o = std::move(o), each = std::move(each)] {
      parts[w] = explore(program, o, each);
      // --stop-on-failure, or a program error: the other workers stop too.
      if (parts[w].stop == StopReason::failure || !parts[w].error.empty()) stop_all = true;
      done[w] = true;
    });
  }
  // Ctrl-C reaches the workers through their shared flag.
  for (;;) {
    if (std::all_of(done.begin(), done.end(), [](const std::atomic<bool>& d) { return d.load(); })) break;
    if (options.interrupt && options.interrupt->load(std::memory_order_relaxed)) stop_all = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (std::thread& t : threads) t.join();

  ExploreResult r;
  r.sampled = true;
  r.equivalence = parts[0].equivalence;
  r.preemption_bound = options.preemption_bound;
  for (const std::string& name : options.checkers) r.checkers.emplace_back().name = name;
  bool any_failure_stop = false, any_time = false;
  for (unsigned w = 0; w < jobs; ++w) {
    if (parts[w].checkers.size() != r.checkers.size()) continue;  // a worker that never started
    any_failure_stop = any_failure_stop || parts[w].stop == StopReason::failure;
    any_time = any_time || parts[w].stop == StopReason::time_limit;
    if (r.error.empty() && !parts[w].error.empty()) r.stop = parts[w].stop;
    merge_into(r, parts[w], w, jobs);
  }
  if (r.error.empty()) {
    r.stop = any_failure_stop                                              ? StopReason::failure
             : options.interrupt && options.interrupt->load()               ? StopReason::interrupted
             : any_time                                                    ? StopReason::time_limit
                                                                           : StopReason::none;
  }
  std::sort(r.failures.begin(), r.failures.end(), [](const Failure& a, const Failure& b) {
    return std::tie(a.schedule, a.execution) < std::tie(b.schedule, b.execution);
  });
  if (r.failures.size() > options.keep_failures) r.failures.resize(options.keep_failures);
  r.elapsed_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return r;
}

}  // namespace atomcheck::detail
