/* GenMC twin of atomcheck's treiber-stack model (models/data_structures.cpp, the
 * cas_push branch) widened to three threads: nodes are a preallocated array indexed
 * by small integers (no malloc); node 0 (value 100) is on the stack initially; thread
 * i pushes node i+1 (value i+1) and then pops once; main joins, pops what is left
 * and asserts every value was popped exactly once. No node is pushed twice: no ABA.
 * Our own code, written for GenMC's C front end (C11 atomics, pthreads). */
#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define THREADS 3
#include "threads.h"
#define NODES (THREADS + 1)
#define NIL (-1)

static int value[NODES] = {100};		     /* plain, like shared<int> */
static atomic_int next[NODES] = {NIL, NIL, NIL, NIL}; /* NODES == 4 */
static atomic_int head = 0;
static int popped[THREADS];

static void push(int node)
{
	value[node] = node;
	int h = atomic_load_explicit(&head, memory_order_relaxed);
	do {
		atomic_store_explicit(&next[node], h, memory_order_relaxed);
	} while (!atomic_compare_exchange_weak_explicit(&head, &h, node, memory_order_release,
							memory_order_relaxed));
}

static int pop(void)
{
	int h = atomic_load_explicit(&head, memory_order_acquire);
	while (h != NIL &&
	       !atomic_compare_exchange_weak_explicit(
		       &head, &h, atomic_load_explicit(&next[h], memory_order_relaxed),
		       memory_order_acquire, memory_order_acquire))
		;
	return h == NIL ? NIL : value[h];
}

static void *worker(void *arg)
{
	int i = (int)(intptr_t)arg; /* distinct arguments: no symmetry reduction */
	push(i + 1);
	popped[i] = pop();
	return NULL;
}

int main(void)
{
	run_threads(worker);

	int seen[NODES];
	for (int n = 0; n < NODES; n++)
		seen[n] = 0;
	for (int i = 0; i < THREADS; i++) {
		assert(popped[i] != NIL); /* each pop follows its own push */
		seen[popped[i] == 100 ? 0 : popped[i]]++;
	}
	int last = pop();
	assert(last != NIL && pop() == NIL); /* exactly one element left */
	seen[last == 100 ? 0 : last]++;
	for (int n = 0; n < NODES; n++)
		assert(seen[n] == 1); /* nothing lost or duplicated */
	return 0;
}
