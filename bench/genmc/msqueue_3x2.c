/* GenMC twin of atomcheck's ms-queue model (models/queues.cpp, the cas_link branch)
 * widened to three threads: nodes are a preallocated array indexed by small integers
 * (no malloc); node 0 is the initial dummy; thread i enqueues node i+1 (value i+1)
 * and then dequeues once; main joins, dequeues once more (empty) and asserts the
 * three dequeues returned {1, 2, 3}. No node is reused: no ABA, and enqueue leaves
 * out the tail re-read as the model does. Our own code, written for GenMC's C front
 * end (C11 atomics, pthreads). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define THREADS 3
#include "threads.h"
#define NODES (THREADS + 1)
#define NIL (-1)
#define EMPTY (-1)

static int value[NODES];				     /* plain, like shared<int> */
static atomic_int next[NODES] = {NIL, NIL, NIL, NIL}; /* NODES == 4 */
static atomic_int head = 0, tail = 0;
static int got[THREADS];

static void enqueue(int node)
{
	value[node] = node;
	for (;;) {
		int t = atomic_load_explicit(&tail, memory_order_acquire);
		int n = atomic_load_explicit(&next[t], memory_order_acquire);
		if (n == NIL) {
			if (atomic_compare_exchange_strong_explicit(&next[t], &n, node,
								    memory_order_release,
								    memory_order_relaxed)) {
				atomic_compare_exchange_strong_explicit(&tail, &t, node,
									memory_order_release,
									memory_order_relaxed);
				return;
			}
		} else {
			/* help a lagging tail along */
			atomic_compare_exchange_strong_explicit(&tail, &t, n, memory_order_release,
								memory_order_relaxed);
		}
	}
}

static int dequeue(void)
{
	for (;;) {
		int h = atomic_load_explicit(&head, memory_order_acquire);
		int t = atomic_load_explicit(&tail, memory_order_acquire);
		int n = atomic_load_explicit(&next[h], memory_order_acquire);
		if (h != atomic_load_explicit(&head, memory_order_acquire))
			continue;
		if (h == t) {
			if (n == NIL)
				return EMPTY;
			atomic_compare_exchange_strong_explicit(&tail, &t, n, memory_order_release,
								memory_order_relaxed);
			continue;
		}
		if (n == NIL)
			return EMPTY; /* unreachable with this (correct) enqueue */
		int v = value[n];
		if (atomic_compare_exchange_strong_explicit(&head, &h, n, memory_order_acq_rel,
							    memory_order_relaxed))
			return v;
	}
}

static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg; /* distinct arguments: no symmetry reduction */
	enqueue(i + 1);
	got[i] = dequeue();
	return NULL;
}

int main(void)
{
	run_threads(worker);

	assert(dequeue() == EMPTY); /* nothing left */
	int seen[NODES];
	for (int n = 0; n < NODES; n++)
		seen[n] = 0;
	for (int i = 0; i < THREADS; i++) {
		assert(got[i] != EMPTY); /* each dequeue follows its own enqueue */
		seen[got[i]]++;
	}
	for (int n = 1; n < NODES; n++)
		assert(seen[n] == 1); /* nothing lost or duplicated */
	return 0;
}
