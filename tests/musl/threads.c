/*
 * pthread create/join, a mutex-protected counter and a condition variable.
 * `threads exec N`: N threads sleep, the main thread execs itself; exec
 * must kill every other thread however many there are (it did in batches
 * of 64 and then waited for ever).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4
#define ROUNDS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter;
static int ready;

static void *worker(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!ready)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return arg;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return arg;
}

static int exec_from_threads(int n)
{
	pthread_attr_t small;
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 16384);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &small, sleeper, NULL)) {
			printf("pthread_create %d failed\n", i);
			return 1;
		}
	}
	char self[256], count[16];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0) {
		printf("readlink /proc/self/exe failed\n");
		return 1;
	}
	self[len] = 0;
	snprintf(count, sizeof(count), "%d", n);
	char *argv[] = { self, "exec-done", count, NULL };
	execv(self, argv);
	printf("execv failed\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "exec") == 0)
		return exec_from_threads(atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "exec-done") == 0) {
		printf("exec from %s threads: ok\n", argv[2]);
		return 0;
	}
	pthread_t t[THREADS];
	for (long i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)i)) {
			printf("pthread_create failed\n");
			return 1;
		}
	pthread_mutex_lock(&lock);
	ready = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (long i = 0; i < THREADS; i++) {
		void *ret;
		pthread_join(t[i], &ret);
		if ((long)ret != i) {
			printf("thread %ld returned %ld\n", i, (long)ret);
			return 1;
		}
	}
	printf("counter %ld (expected %d)\n", counter, THREADS * ROUNDS);
	return counter == THREADS * ROUNDS ? 0 : 1;
}
