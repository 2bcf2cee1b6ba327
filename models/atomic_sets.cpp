// Hammer et al.'s Account/Global example (ICSE 2008, Fig. 1) and variants, for the
// atomic-set checkers. Account.transfer() (lock acct) moves 5 from savings to checking
// and calls Global.inc() (lock glob) twice; another thread calls Global.inc(). With
// atomic sets {checking, savings} (transfer a unit of work on it) and {opCounter} (inc a
// unit of work on it) every execution is atomic-set serializable, although the one where
// T2's inc() runs between T1's two inc() calls is not conflict serializable (2.1, 2.2).
#include <mutex>

#include "scheduler/runtime/api.hpp"

namespace {

using namespace atomcheck;

struct Bank {
  shared<int> checking{0, "checking"}, savings{10, "savings"}, opCounter{0, "opCounter"};
  mutex acct{"acct"}, glob{"glob"};

  void inc() {
    atomic_block b("inc");
    std::lock_guard<mutex> g(glob);
    opCounter = opCounter + 1;
  }
  void transfer(bool locked) {
    atomic_block b("transfer");
    std::unique_lock<mutex> g(acct, std::defer_lock);
    if (locked) g.lock();
    checking = checking + 5;
    inc();
    savings = savings - 5;
    inc();
  }
  void declare() {
    atomic_set("S1", checking, savings);
    atomic_set("S2", opCounter);
    unit_of_work("transfer", {"S1"});
    unit_of_work("inc", {"S2"});
  }
};

// T1: transfer(), T2: inc() (Fig. 1); `second_transfer` adds a thread with another
// transfer, `locked` says whether transfer takes its lock.
void run(bool declared, bool locked, bool second_transfer) {
  Bank bank;
  if (declared) bank.declare();
  thread t1([&] { bank.transfer(locked); });
  thread t2([&] { bank.inc(); });
  thread t3;
  if (second_transfer) t3 = thread([&] { bank.transfer(locked); });
  t1.join();
  t2.join();
  if (second_transfer) t3.join();
  const int n = second_transfer ? 2 : 1;
  check(bank.opCounter == 2 * n + 1, "an increment of opCounter was lost");
  if (locked) check(bank.checking + bank.savings == 10, "money was created or destroyed");
}

}  // namespace

ATOMCHECK_PROGRAM("hammer-account-global",
                  "Hammer et al. Fig. 1 with atomic sets {checking,savings}, {opCounter}: "
                  "not conflict serializable, atomic-set serializable") {
  run(true, true, false);
}

ATOMCHECK_PROGRAM("hammer-account-global-default",
                  "Hammer et al. Fig. 1 without declarations (one set, every block a unit): "
                  "the atomic-set checker reverts to conflict serializability") {
  run(false, true, false);
}

ATOMCHECK_PROGRAM("hammer-account-unlocked",
                  "two unlocked transfers and an inc: lost updates of checking and savings "
                  "(atomic-set patterns on S1)") {
  run(true, false, true);
}
