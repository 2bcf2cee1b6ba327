/* GenMC twin of atomcheck's lastzero-N (models/dpor_benchmarks.cpp; Abdulla et al., POPL
 * 2014): array[0..N] of zeros; thread 0 scans from N down for the last zero while threads
 * 1..N each set array[j] = array[j-1] + 1. Relaxed accesses. Size: -DN=... (default 10).
 * Our own code, written for GenMC's C front end (C11 atomics, pthreads). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#ifndef N
#define N 10
#endif
#define THREADS (N + 1)
#include "threads.h"

static atomic_int array[N + 1];

static void *worker(void *arg)
{
	int tid = (int)(intptr_t)arg;
	if (tid == 0) {
		/* array[0] stays 0, so the scan stops there at the latest */
		for (int i = N; atomic_load_explicit(&array[i], memory_order_relaxed) != 0; --i)
			;
		return NULL;
	}
	int v = atomic_load_explicit(&array[tid - 1], memory_order_relaxed);
	atomic_store_explicit(&array[tid], v + 1, memory_order_relaxed);
	return NULL;
}

int main(void)
{
	run_threads(worker);
	return 0;
}
