/* The C twins' common driver: THREADS threads running worker(i), joined. Each argument is
 * distinct (i), so that GenMC's symmetry reduction does not merge the threads and the
 * counts compare with atomcheck's. */
#pragma once
#include <pthread.h>
#include <stdint.h>

static void run_threads(void *(*worker)(void *))
{
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
}
