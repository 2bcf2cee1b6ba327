// A bank: two concurrent transfers between three accounts, each account a plain balance
// guarded by its own mutex. Each transfer is intended to be atomic (atomic block
// "transfer"). The correct version takes both account locks in a fixed (index) order and
// checks the balance under them; two broken versions check the balance before locking,
// or release the lock between reading and writing a balance. The total must be conserved
// and no balance may go negative.
#include <algorithm>
#include <array>
#include <cstddef>
#include <mutex>

#include "scheduler/runtime/api.hpp"

namespace {

using atomcheck::atomic_block;
using atomcheck::check;
using atomcheck::mutex;
using atomcheck::shared;
using atomcheck::thread;

enum class Variant { locked, check_then_lock, split_locks };

struct Bank {
  std::array<shared<int>, 3> balance{shared<int>(100, "acct0"), shared<int>(0, "acct1"),
                                     shared<int>(0, "acct2")};
  std::array<mutex, 3> lock{mutex("lock0"), mutex("lock1"), mutex("lock2")};

  void transfer(Variant v, std::size_t from, std::size_t to, int amount) {
    atomic_block b("transfer");
    if (v == Variant::locked) {
      // Fixed order (lower index first) rules out a deadlock between opposite transfers.
      std::scoped_lock<mutex> first(lock[std::min(from, to)]);
      std::scoped_lock<mutex> second(lock[std::max(from, to)]);
      if (balance[from].get() < amount) return;
      balance[from] -= amount;
      balance[to] += amount;
      return;
    }
    if (v == Variant::check_then_lock) {
      if (balance[from].get() < amount) return;  // checked without the lock: stale
      std::scoped_lock<mutex> first(lock[std::min(from, to)]);
      std::scoped_lock<mutex> second(lock[std::max(from, to)]);
      balance[from] -= amount;
      balance[to] += amount;
      return;
    }
    // split_locks: every access is locked, but the read and the write of a balance are
    // in different critical sections, so another transfer can slip in between.
    int have;
    {
      std::scoped_lock<mutex> g(lock[from]);
      have = balance[from].get();
    }
    if (have < amount) return;
    {
      std::scoped_lock<mutex> g(lock[from]);
      balance[from].set(have - amount);
    }
    std::scoped_lock<mutex> g(lock[to]);
    balance[to] += amount;
  }
};

void run_bank(Variant v) {
  Bank bank;
  // Both transfers draw on account 0: 80 + 80 exceeds its 100, so only one may happen.
  thread t1([&] { bank.transfer(v, 0, 1, 80); });
  thread t2([&] { bank.transfer(v, 0, 2, 80); });
  t1.join();
  t2.join();
  int total = 0;
  for (std::size_t a = 0; a < 3; ++a) {
    const int x = bank.balance[a].get();
    check(x >= 0, "negative balance");
    total += x;
  }
  check(total == 100, "total not conserved");
}

}  // namespace

ATOMCHECK_PROGRAM("bank-locked", "two transfers, per-account mutexes taken in index order") {
  run_bank(Variant::locked);
}

ATOMCHECK_PROGRAM("bank-check-then-lock",
                  "two transfers that check the balance before locking: overdraft") {
  run_bank(Variant::check_then_lock);
}

ATOMCHECK_PROGRAM("bank-split-locks",
                  "two transfers that unlock between reading and writing a balance") {
  run_bank(Variant::split_locks);
}
