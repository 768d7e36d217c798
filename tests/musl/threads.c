/* pthread create/join, a mutex-protected counter and a condition variable. */
#include <pthread.h>
#include <stdio.h>

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

int main(void)
{
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
