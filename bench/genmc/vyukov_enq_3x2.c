/* GenMC twin of atomcheck's VyukovQueue::enqueue (models/lin_structures.hpp), for
 * bench/loop_reduction_vs_genmc.sh: Vyukov's bounded MPMC queue, capacity 8, three
 * threads each enqueueing twice (never full), main joins. Our own code, written
 * for GenMC's C front end (C11 atomics, pthreads). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define CAPACITY 8
#define MASK (CAPACITY - 1)
#define THREADS 3
#include "threads.h"
#define OPS 2

struct cell {
	_Atomic(int64_t) sequence;
	int value; /* plain: published by the release store of sequence */
};

/* Cell i's sequence starts at i, set by the initialiser (no store event). */
static struct cell cells[CAPACITY] = {{0, 0}, {1, 0}, {2, 0}, {3, 0},
				      {4, 0}, {5, 0}, {6, 0}, {7, 0}};
static _Atomic(int64_t) enqueue_pos;

static bool enqueue(int v)
{
	int64_t pos = atomic_load_explicit(&enqueue_pos, memory_order_relaxed);
	struct cell *cell;
	for (;;) {
		cell = &cells[pos & MASK];
		int64_t seq = atomic_load_explicit(&cell->sequence, memory_order_acquire);
		int64_t dif = seq - pos;
		if (dif == 0) {
			/* pos reloaded on failure */
			if (atomic_compare_exchange_weak_explicit(&enqueue_pos, &pos, pos + 1,
								  memory_order_relaxed,
								  memory_order_relaxed))
				break;
		} else if (dif < 0) {
			return false; /* full */
		} else {
			pos = atomic_load_explicit(&enqueue_pos, memory_order_relaxed);
		}
	}
	cell->value = v;
	atomic_store_explicit(&cell->sequence, pos + 1, memory_order_release);
	return true;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg; /* distinct arguments: no symmetry reduction */
	for (int k = 0; k < OPS; k++) {
		bool ok = enqueue(10 * (id + 1) + k);
		assert(ok);
	}
	return NULL;
}

int main(void)
{
	run_threads(worker);
	return 0;
}
