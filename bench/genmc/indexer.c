/* GenMC twin of atomcheck's indexer-N (models/dpor_benchmarks.cpp; Flanagan and Godefroid,
 * POPL 2005): N threads each insert 4 messages into a 128-entry hash table by relaxed
 * compare-exchange, probing linearly on a collision. Size: -DN=... (default 12).
 * Our own code, written for GenMC's C front end (C11 atomics, pthreads). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#ifndef N
#define N 12
#endif
#define THREADS N
#include "threads.h"

#define SIZE 128
#define MESSAGES 4

static atomic_int table[SIZE];

static void *worker(void *arg)
{
	int tid = (int)(intptr_t)arg;
	for (int m = 0; m < MESSAGES; ++m) {
		int w = (m + 1) * 11 + tid;
		int h = (w * 7) % SIZE;
		for (;;) {
			int expected = 0;
			if (atomic_compare_exchange_strong_explicit(&table[h], &expected, w, memory_order_relaxed,
								    memory_order_relaxed))
				break;
			h = (h + 1) % SIZE;
		}
	}
	return NULL;
}

int main(void)
{
	run_threads(worker);
	return 0;
}
