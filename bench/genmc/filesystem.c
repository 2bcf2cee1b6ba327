/* GenMC twin of atomcheck's filesystem-N (models/dpor_benchmarks.cpp; Flanagan and
 * Godefroid, POPL 2005): N threads each take an inode lock and, if the inode is free,
 * search for a free block under per-block locks (32 inodes, 26 blocks). Relaxed accesses
 * under pthread mutexes. Size: -DN=... (default 16).
 * Our own code, written for GenMC's C front end (C11 atomics, pthreads). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#ifndef N
#define N 16
#endif
#define THREADS N
#include "threads.h"

#define BLOCKS 26
#define INODES 32

static pthread_mutex_t locki[INODES];
static atomic_int inode[INODES];
static pthread_mutex_t lockb[BLOCKS];
static atomic_int busy[BLOCKS];

static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg % INODES;
	pthread_mutex_lock(&locki[i]);
	if (atomic_load_explicit(&inode[i], memory_order_relaxed) == 0) {
		int b = (i * 2) % BLOCKS;
		for (;;) {
			pthread_mutex_lock(&lockb[b]);
			if (atomic_load_explicit(&busy[b], memory_order_relaxed) == 0) {
				atomic_store_explicit(&busy[b], 1, memory_order_relaxed);
				atomic_store_explicit(&inode[i], b + 1, memory_order_relaxed);
				pthread_mutex_unlock(&lockb[b]);
				break;
			}
			pthread_mutex_unlock(&lockb[b]);
			b = (b + 1) % BLOCKS;
		}
	}
	pthread_mutex_unlock(&locki[i]);
	return NULL;
}

int main(void)
{
	for (int i = 0; i < INODES; i++)
		pthread_mutex_init(&locki[i], NULL);
	for (int b = 0; b < BLOCKS; b++)
		pthread_mutex_init(&lockb[b], NULL);
	run_threads(worker);
	return 0;
}
