// Split sampling (explore_samples.hpp). Each worker is a whole one-job explore() on its
// own thread with its own Execution, fibers and checkers; nothing is shared but a stop
// flag (Ctrl-C, the time limit of one, --stop-on-failure), the caller's callbacks behind
// one lock, and the merge at the end.
#include "scheduler/explore/explore_samples.hpp"
#include "scheduler/explore/explore_internal.hpp"
#include "scheduler/search/splitmix.hpp"
#include "scheduler/search/strategy_words.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/core.h>

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

// A search's result as words, for rank 0 (no callback: explore() keeps sampling with one
// on rank 0 alone), the checkers' summaries with their first verdicts included.
void push_part(std::vector<std::uint64_t>& out, const ExploreResult& p) {
  out.insert(out.end(), {p.executions, p.completed, p.failed, p.deadlocks, p.step_bounded, p.pruned,
                         p.sleep_blocked, p.bound_cut, p.bounded ? 1u : 0u, p.steps, p.events,
                         static_cast<std::uint64_t>(p.stop), p.unmarked_spins});
  push_string(out, p.error);
  push_string(out, p.unmarked_spin);
  push_string(out, p.unmarked_spin_schedule);
  out.push_back(p.outcomes.size());
  for (const auto& [outcome, n] : p.outcomes) {
    out.push_back(outcome.size());
    for (const auto& [name, value] : outcome) {
      push_string(out, name);
      out.push_back(static_cast<std::uint64_t>(value));
    }
    out.push_back(n);
  }
  out.push_back(p.failures.size());
  for (const Failure& f : p.failures) {
    out.insert(out.end(), {static_cast<std::uint64_t>(f.kind), f.thread, f.execution, f.event, f.race_first,
                           f.race_second});
    push_string(out, f.message);
    push_string(out, f.schedule);
  }
  out.push_back(p.checkers.size());
  for (const CheckerSummary& c : p.checkers) {
    push_string(out, c.name);
    out.insert(out.end(), {c.flagged, c.first_execution, c.undecided});
    push_string(out, c.first_schedule);
    push_string(out, c.first_undecided);
    push_verdict(out, c.first_verdict);
  }
}

bool read_part(WordReader& in, ExploreResult& p) {
  std::uint64_t bounded = 0, stop = 0, n = 0;
  if (!in.word(p.executions) || !in.word(p.completed) || !in.word(p.failed) || !in.word(p.deadlocks) ||
      !in.word(p.step_bounded) || !in.word(p.pruned) || !in.word(p.sleep_blocked) || !in.word(p.bound_cut) ||
      !in.word(bounded) || !in.word(p.steps) || !in.word(p.events) || !in.word(stop) ||
      !in.word(p.unmarked_spins) || stop > static_cast<std::uint64_t>(StopReason::nondeterministic) ||
      !in.text(p.error) || !in.text(p.unmarked_spin) || !in.text(p.unmarked_spin_schedule) || !in.word(n) ||
      n > in.left())
    return false;
  p.bounded = bounded != 0;
  p.stop = static_cast<StopReason>(stop);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint64_t pairs = 0, count = 0;
    if (!in.word(pairs) || pairs > in.left()) return false;
    Outcome o(pairs);
    for (auto& [name, value] : o) {
      std::uint64_t v = 0;
      if (!in.text(name) || !in.word(v)) return false;
      value = static_cast<std::int64_t>(v);
    }
    if (!in.word(count)) return false;
    p.outcomes[o] += count;
  }
  if (!in.word(n) || n > in.left()) return false;
  p.failures.resize(n);
  for (Failure& f : p.failures) {
    std::uint64_t kind = 0, thread = 0, event = 0, first = 0, second = 0;
    if (!in.word(kind) || !in.word(thread) || !in.word(f.execution) || !in.word(event) || !in.word(first) ||
        !in.word(second) || kind > static_cast<std::uint64_t>(kLastFailureKind) || !in.text(f.message) ||
        !in.text(f.schedule))
      return false;
    f.kind = static_cast<FailureKind>(kind);
    f.thread = static_cast<ThreadId>(thread);
    f.event = static_cast<EventIndex>(event);
    f.race_first = static_cast<EventIndex>(first);
    f.race_second = static_cast<EventIndex>(second);
  }
  if (!in.word(n) || n > in.left()) return false;
  p.checkers.resize(n);
  for (CheckerSummary& c : p.checkers)
    if (!in.text(c.name) || !in.word(c.flagged) || !in.word(c.first_execution) || !in.word(c.undecided) ||
        !in.text(c.first_schedule) || !in.text(c.first_undecided) || !read_verdict(in, c.first_verdict))
      return false;
  return true;
}

}  // namespace

ExploreResult explore_split_samples(const Program& program, const ExploreOptions& options,
                                    const std::function<void(const ExecutionView&)>& on_execution,
                                    Cluster* cluster) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const unsigned jobs = options.jobs;
  const unsigned ranks = cluster ? static_cast<unsigned>(cluster->size()) : 1;
  const unsigned rank = cluster ? static_cast<unsigned>(cluster->rank()) : 0;
  const unsigned all = jobs * ranks;  // the searches of the whole split
  const unsigned g0 = rank * jobs;    // this process's first
  const std::uint64_t total = options.max_executions.value_or(kDefaultSamples);  // 0: unlimited

  std::atomic<bool> stop_all{false};
  std::mutex callback_mu;
  std::vector<std::uint64_t> progress_of(jobs, 0);  // under callback_mu
  std::vector<ExploreResult> parts(jobs);
  std::vector<std::atomic<bool>> done(jobs);
  std::vector<std::thread> threads;

  for (unsigned w = 0; w < jobs; ++w) {
    const unsigned g = g0 + w;
    const std::uint64_t share = total == 0 ? 0 : total / all + (g < total % all ? 1 : 0);
    if (total != 0 && share == 0) {
      done[w] = true;
      continue;
    }
    ExploreOptions o = options;
    o.jobs = 1;
    o.seed = sample_worker_seed(options.seed, g);
    o.distribute = false;
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
        view.index = v.index * all + g0 + w;
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

  std::vector<ExploreResult> others;  // rank 0: the other ranks' searches, in order
  if (cluster && rank != 0) {
    std::vector<std::uint64_t> words{cluster->serial};
    for (const ExploreResult& p : parts) {
      words.push_back(p.checkers.size() == options.checkers.size() ? 1u : 0u);
      push_part(words, p);
    }
    cluster->send(0, ClusterTag::part, words);
    for (const ExploreResult& p : parts) cluster->executions += p.executions;
    return ExploreResult{};
  }
  if (cluster) {
    others.resize(all - jobs);
    std::vector<bool> started(all - jobs, false);
    std::vector<std::uint64_t> words;
    int from = 0;
    ClusterTag tag{};
    for (unsigned got = 0; got + 1 < ranks;) {
      cluster->receive(from, tag, words, true);
      if (tag != ClusterTag::part || words.empty() || words[0] != cluster->serial || from < 1) continue;
      ++got;
      WordReader in{words};
      in.at = 1;
      for (unsigned w = 0; w < jobs; ++w) {
        const std::size_t k = static_cast<std::size_t>(from - 1) * jobs + w;
        std::uint64_t ran = 0;
        ExploreResult& p = others[k];
        // A damaged result keeps the checkers' names, so that the merge takes its error.
        if (!in.word(ran) || !read_part(in, p) || (ran && p.checkers.size() != options.checkers.size())) {
          p = ExploreResult{};
          p.error = fmt::format("rank {} sent a damaged result", from);
          for (const std::string& name : options.checkers) p.checkers.emplace_back().name = name;
          ran = 1;
        }
        started[k] = ran != 0;
        if (!started[k]) p.checkers.clear();
      }
    }
  }
  for (auto& p : others) parts.push_back(std::move(p));
  const unsigned jobs_all = all;

  ExploreResult r;
  r.sampled = true;
  r.equivalence = parts[0].equivalence;
  r.preemption_bound = options.preemption_bound;
  for (const std::string& name : options.checkers) r.checkers.emplace_back().name = name;
  bool any_failure_stop = false, any_time = false;
  for (unsigned w = 0; w < jobs_all; ++w) {
    if (parts[w].checkers.size() != r.checkers.size()) continue;  // a worker that never started
    any_failure_stop = any_failure_stop || parts[w].stop == StopReason::failure;
    any_time = any_time || parts[w].stop == StopReason::time_limit;
    if (r.error.empty() && !parts[w].error.empty()) r.stop = parts[w].stop;
    merge_into(r, parts[w], w, jobs_all);
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
