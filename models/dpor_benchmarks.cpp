// The classic DPOR benchmarks, parameterised and registered at a few sizes, so dfs, dpor
// and optimal can be compared on the programs the literature compares them on
// (scripts/bench-dpor.sh tables them). Written from the papers' descriptions:
//  - indexer-N (Flanagan & Godefroid, POPL 2005): N threads each insert 4 messages into
//    a 128-slot hash table with compare-and-swap and linear probing; the hash keys only
//    collide from 12 threads on, so most steps are independent.
//  - lastzero-N (Abdulla et al., POPL 2014): array[0..N]; thread 0 scans from N down for
//    the last zero while threads 1..N each set array[j] = array[j-1] + 1.
//  - readers-N (same paper set): one writer writes x, N readers read it: 2^N classes.
//  - filesystem-N (Flanagan & Godefroid): N threads each take an inode lock and, if the
//    inode is free, search for a free block under per-block locks (32 inodes, 26 blocks;
//    the block search only contends from 14 threads on).
// Objects are unnamed: these programs are for counting and timing, not for reading traces.
#include <deque>
#include <memory>
#include <vector>

#include "scheduler/runtime/api.hpp"

namespace {

using atomcheck::atomic;
using atomcheck::mutex;
using atomcheck::thread;

constexpr auto rlx = std::memory_order_relaxed;

template <class F>
void run_threads(int n, F body) {
  std::vector<std::unique_ptr<thread>> threads;
  threads.reserve(static_cast<std::size_t>(n));
  for (int t = 0; t < n; ++t) threads.push_back(std::make_unique<thread>([body, t] { body(t); }));
  for (auto& t : threads) t->join();
}

void indexer(int n) {
  constexpr int kSize = 128, kMessages = 4;
  std::deque<atomic<int>> table;
  for (int i = 0; i < kSize; ++i) table.emplace_back(0);
  run_threads(n, [&table](int tid) {
    for (int m = 0; m < kMessages; ++m) {
      const int w = (m + 1) * 11 + tid;
      int h = (w * 7) % kSize;
      for (;;) {
        int expected = 0;
        if (table[static_cast<std::size_t>(h)].compare_exchange_strong(expected, w, rlx)) break;
        h = (h + 1) % kSize;
      }
    }
  });
}

void lastzero(int n) {
  std::deque<atomic<int>> array;
  for (int i = 0; i <= n; ++i) array.emplace_back(0);
  run_threads(n + 1, [&array, n](int tid) {
    if (tid == 0) {
      // array[0] stays 0, so the scan stops there at the latest.
      for (int i = n; array[static_cast<std::size_t>(i)].load(rlx) != 0; --i) {
      }
      return;
    }
    const auto j = static_cast<std::size_t>(tid);
    array[j].store(array[j - 1].load(rlx) + 1, rlx);
  });
}

void readers(int n) {
  atomic<int> x(0, "x");
  run_threads(n + 1, [&x](int tid) {
    if (tid == 0)
      x.store(1, rlx);
    else
      (void)x.load(rlx);
  });
}

void filesystem(int n) {
  constexpr int kBlocks = 26, kInodes = 32;
  std::deque<mutex> locki, lockb;
  std::deque<atomic<int>> inode, busy;
  for (int i = 0; i < kInodes; ++i) {
    locki.emplace_back();
    inode.emplace_back(0);
  }
  for (int b = 0; b < kBlocks; ++b) {
    lockb.emplace_back();
    busy.emplace_back(0);
  }
  run_threads(n, [&](int tid) {
    const auto i = static_cast<std::size_t>(tid % kInodes);
    locki[i].lock();
    if (inode[i].load(rlx) == 0) {
      auto b = (i * 2) % kBlocks;
      for (;;) {
        lockb[b].lock();
        if (busy[b].load(rlx) == 0) {
          busy[b].store(1, rlx);
          inode[i].store(static_cast<int>(b) + 1, rlx);
          lockb[b].unlock();
          break;
        }
        lockb[b].unlock();
        b = (b + 1) % kBlocks;
      }
    }
    locki[i].unlock();
  });
}

}  // namespace

ATOMCHECK_PROGRAM("indexer-5", "DPOR benchmark: 5 threads insert into a CAS hash table (no collisions)") { indexer(5); }
ATOMCHECK_PROGRAM("indexer-12", "DPOR benchmark: 12 threads insert into a CAS hash table") { indexer(12); }
ATOMCHECK_PROGRAM("indexer-13", "DPOR benchmark: 13 threads insert into a CAS hash table") { indexer(13); }
ATOMCHECK_PROGRAM("indexer-14", "DPOR benchmark: 14 threads insert into a CAS hash table") { indexer(14); }
ATOMCHECK_PROGRAM("indexer-15", "DPOR benchmark: 15 threads insert into a CAS hash table") { indexer(15); }
ATOMCHECK_PROGRAM("lastzero-2", "DPOR benchmark: find the last zero while 2 threads fill the array") { lastzero(2); }
ATOMCHECK_PROGRAM("lastzero-3", "DPOR benchmark: find the last zero while 3 threads fill the array") { lastzero(3); }
ATOMCHECK_PROGRAM("lastzero-5", "DPOR benchmark: find the last zero while 5 threads fill the array") { lastzero(5); }
ATOMCHECK_PROGRAM("lastzero-8", "DPOR benchmark: find the last zero while 8 threads fill the array") { lastzero(8); }
ATOMCHECK_PROGRAM("lastzero-10", "DPOR benchmark: find the last zero while 10 threads fill the array") { lastzero(10); }
ATOMCHECK_PROGRAM("lastzero-12", "DPOR benchmark: find the last zero while 12 threads fill the array") { lastzero(12); }
ATOMCHECK_PROGRAM("lastzero-15", "DPOR benchmark: find the last zero while 15 threads fill the array (147,456 classes)") { lastzero(15); }
ATOMCHECK_PROGRAM("readers-3", "DPOR benchmark: one writer, 3 readers of x (8 classes)") { readers(3); }
ATOMCHECK_PROGRAM("readers-8", "DPOR benchmark: one writer, 8 readers of x (256 classes)") { readers(8); }
ATOMCHECK_PROGRAM("readers-12", "DPOR benchmark: one writer, 12 readers of x (4096 classes)") { readers(12); }
ATOMCHECK_PROGRAM("readers-15", "DPOR benchmark: one writer, 15 readers of x (32768 classes)") { readers(15); }
ATOMCHECK_PROGRAM("filesystem-4", "DPOR benchmark: 4 threads allocate inodes and blocks under locks") { filesystem(4); }
ATOMCHECK_PROGRAM("filesystem-14", "DPOR benchmark: 14 threads allocate inodes and blocks under locks") { filesystem(14); }
ATOMCHECK_PROGRAM("filesystem-16", "DPOR benchmark: 16 threads allocate inodes and blocks under locks") { filesystem(16); }
ATOMCHECK_PROGRAM("filesystem-18", "DPOR benchmark: 18 threads allocate inodes and blocks under locks") { filesystem(18); }
ATOMCHECK_PROGRAM("filesystem-20", "DPOR benchmark: 20 threads allocate inodes and blocks under locks") { filesystem(20); }
