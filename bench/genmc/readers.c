/* GenMC twin of atomcheck's readers-N (models/dpor_benchmarks.cpp): thread 0 writes x = 1,
 * threads 1..N each read x once. Relaxed accesses. Size: -DN=... (default 8).
 * Our own code, written for GenMC's C front end (C11 atomics, pthreads). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#ifndef N
#define N 8
#endif
#define THREADS (N + 1)
#include "threads.h"

static atomic_int x;

static void *worker(void *arg)
{
	if ((intptr_t)arg == 0)
		atomic_store_explicit(&x, 1, memory_order_relaxed);
	else
		(void)atomic_load_explicit(&x, memory_order_relaxed);
	return NULL;
}

int main(void)
{
	run_threads(worker);
	return 0;
}
