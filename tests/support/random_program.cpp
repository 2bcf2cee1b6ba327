// The random programs of tests/support/random_program.hpp.
#include "tests/support/random_program.hpp"

#include <fmt/core.h>

#include <mutex>

#include "scheduler/runtime/api.hpp"
#include "scheduler/runtime/sync.hpp"

namespace atomcheck::testing_support {

constexpr auto kRelaxed = std::memory_order_relaxed;

RandomProgram make_random(std::mt19937_64& rng, bool tso, bool spins, bool waits, bool sync) {
  RandomProgram rp;
  int nthreads = 2 + static_cast<int>(rng() % 3);
  int max_ops = nthreads == 4 ? 2 : nthreads == 3 ? 3 : 4;
  if (tso) max_ops = nthreads == 2 ? 3 : 2;  // flushes multiply the DFS tree
  for (int t = 0; t < nthreads; ++t) {
    int nops = 1 + static_cast<int>(rng() % static_cast<unsigned>(max_ops));
    std::vector<Op> ops;
    for (int i = 0; i < nops; ++i)
    {
      // Kind 27 (an await inside a yield() loop) is drawn with the waits.
      int kind = static_cast<int>(rng() % (sync ? 28 : waits ? 19 : spins ? 12 : 9));
      if (waits && !sync && kind == 18) kind = 27;
      ops.push_back(Op{kind, static_cast<int>(rng() % 2), 1 + static_cast<int>(rng() % 2)});
    }
    rp.threads.push_back(ops);
    rp.atomic_body.push_back(rng() % 2 == 0);
  }
  rp.forbidden = static_cast<int>(rng() % 6);
  return rp;
}

std::string describe(const RandomProgram& rp) {
  std::string out;
  const char* names[] = {"ld",     "st",    "st_sc", "faa",   "cas",      "lock",
                         "unlock", "trylock", "fence", "await", "await_sum", "spinlock",
                         "yield_until", "yield_sum", "yield_tas", "yield_poll", "assume", "yield_last", "sem_acq", "sem_rel", "cv_wait", "cv_set_all",
                         "cv_set_one", "latch_down", "latch_wait", "rw_read", "rw_write", "yield_await"};
  for (std::size_t t = 0; t < rp.threads.size(); ++t) {
    out += fmt::format("T{}{}:", t + 1, rp.atomic_body[t] ? "[atomic]" : "");
    for (const Op& op : rp.threads[t]) out += fmt::format(" {}({},{})", names[op.kind], op.obj, op.value);
    out += "; ";
  }
  return out + fmt::format("forbidden sum {}", rp.forbidden);
}

Program program_of(const RandomProgram& rp) {
  return [rp] {
    bool stuck = false;  // the naive judge: some wait ran out of attempts
    atomic<int> v0(0, "v0"), v1(0, "v1");
    mutex m0("m0"), m1("m1");
    counting_semaphore<2> sem(1, "sem");
    condition_variable cv("cv");
    int count_downs = 0;
    for (const auto& ops : rp.threads)
      for (const Op& op : ops) count_downs += op.kind == 23;
    latch done(count_downs, "done");
    shared_mutex rw("rw");
    atomic<int>* vars[2] = {&v0, &v1};
    mutex* locks[2] = {&m0, &m1};
    std::vector<thread> ths;
    for (std::size_t t = 0; t < rp.threads.size(); ++t) {
      ths.emplace_back([&, t] {
        std::unique_ptr<atomic_block> block;
        if (rp.atomic_body[t]) block = std::make_unique<atomic_block>("body");
        std::vector<int> held;
        bool has_permit = false;
        int k = 0;
        auto out = [&](std::int64_t v) { outcome(fmt::format("t{}_{}", t, k), v); };
        bool gave_up = false;
        // A wait: `attempt` until it returns true, with yield() in between, or unrolled.
        auto wait = [&](auto attempt) {
          if (rp.unroll == 0) {
            while (!attempt()) atomcheck::this_thread::yield();
            return true;
          }
          for (int i = 0; i < rp.unroll; ++i)
            if (attempt()) return true;
          stuck = gave_up = true;
          return false;
        };
        for (const Op& op : rp.threads[t]) {
          atomic<int>& x = *vars[op.obj];
          if (gave_up) break;
          auto holds = [&](int l) { return std::find(held.begin(), held.end(), l) != held.end(); };
          switch (op.kind) {
            case 0: out(x.load(kRelaxed)); break;
            case 1: x.store(op.value, kRelaxed); break;
            case 2: x.store(op.value); break;
            case 3: out(x.fetch_add(op.value)); break;
            case 4: {
              int expected = op.value - 1;
              out(x.compare_exchange_strong(expected, op.value + 1) ? 1 : 0);
              break;
            }
            case 5:
              if (!holds(op.obj)) {
                locks[op.obj]->lock();
                held.push_back(op.obj);
              }
              break;
            case 6:
              if (!held.empty()) {
                locks[held.back()]->unlock();
                held.pop_back();
              }
              break;
            case 7:
              if (!holds(op.obj)) {
                bool ok = locks[op.obj]->try_lock();
                out(ok);
                if (ok) held.push_back(op.obj);
              }
              break;
            case 8: atomcheck::atomic_thread_fence(std::memory_order_seq_cst); break;
            case 9: spin_until([&] { return x.load(kRelaxed) == op.value; }); break;
            case 10:
              spin_until([&] { return v0.load(kRelaxed) + v1.load(kRelaxed) >= op.value; });
              break;
            case 11:
              if (!holds(op.obj)) {
                spin_until([&] { return locks[op.obj]->try_lock(); });
                held.push_back(op.obj);
              }
              break;
            case 12: wait([&] { return x.load(kRelaxed) == op.value; }); break;
            case 13: wait([&] { return v0.load(kRelaxed) + v1.load(kRelaxed) >= op.value; }); break;
            case 14: wait([&] { return x.exchange(1) != 1; }); break;
            case 15:
              if (!holds(op.obj)) {
                wait([&] {
                  locks[op.obj]->lock();
                  const bool ok = x.load(kRelaxed) == op.value;
                  locks[op.obj]->unlock();
                  return ok;
                });
              }
              break;
            case 17: {
              // How many times the value it waits on changed while it waited: a change
              // is seen by every semantics of the wait, a repetition by none.
              int prev = -1, changes = 0;
              wait([&] {
                const int r = x.load(kRelaxed);
                if (r == op.value) return true;
                changes += prev != -1 && r != prev;
                prev = r;
                return false;
              });
              out(changes);
              break;
            }
            case 18:
              if (!has_permit) {
                sem.acquire();
                has_permit = true;
              }
              break;
            case 19:
              if (has_permit) {
                sem.release();
                has_permit = false;
              }
              break;
            case 20:
              if (!holds(0)) {
                std::unique_lock<mutex> lk(m0);
                cv.wait(lk, [&] { return x.load(kRelaxed) == op.value; });
              }
              break;
            case 21:
            case 22:
              if (!holds(0)) {
                {
                  std::lock_guard<mutex> g(m0);
                  x.store(op.value, kRelaxed);
                }
                if (op.kind == 21) {
                  cv.notify_all();
                } else {
                  cv.notify_one();
                }
              }
              break;
            case 23: done.count_down(); break;
            case 24:
              if (count_downs > 0) {
                done.wait();
              } else {
                out(done.try_wait());
              }
              break;
            case 25:
              rw.lock_shared();
              out(x.load(kRelaxed));
              rw.unlock_shared();
              break;
            case 26:
              rw.lock();
              x.store(op.value, kRelaxed);
              rw.unlock();
              break;
            case 27:
              // Each iteration reads obj, then awaits the other variable (a spin_until, left
              // as it is by the naive judge): the iteration waits on both.
              wait([&] {
                const bool ok = x.load(kRelaxed) == op.value;
                spin_until([&] { return vars[1 - op.obj]->load(kRelaxed) <= op.value; });
                return ok;
              });
              break;
            default:
              if (rp.unroll == 0) {
                assume(x.load(kRelaxed) == op.value);
              } else if (x.load(kRelaxed) != op.value) {
                stuck = gave_up = true;
              }
              break;
          }
          ++k;
        }
        while (!held.empty()) {
          locks[held.back()]->unlock();
          held.pop_back();
        }
        if (has_permit) sem.release();
      });
    }
    for (auto& th : ths) th.join();
    if (stuck) {
      outcome("stuck", 1);
      return;
    }
    int sum = v0.load() + v1.load();
    outcome("sum", sum);
    check(sum != rp.forbidden, "forbidden sum");
  };
}

}  // namespace atomcheck::testing_support
