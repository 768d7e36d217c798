/*
 * threads: libpthread (in glibc's libc.so.6) in a dynamic program:
 * threads with their own stacks, TLS and tids, a mutex, a condition
 * variable, thread-specific data and joins.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "abi.h"

#define NTHREADS 4
#define ROUNDS 10000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static long counter, started;
static pthread_key_t key;
static int destructed;

static void key_done(void *p)
{
	__atomic_add_fetch(&destructed, 1, __ATOMIC_SEQ_CST);
}

static void *worker(void *arg)
{
	pthread_setspecific(key, arg);
	pthread_mutex_lock(&lock);
	started++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return (void *)(long)(pthread_getspecific(key) == arg ? syscall(SYS_gettid) : -1);
}

int main(void)
{
	pthread_t t[NTHREADS];
	long tids[NTHREADS];
	CHECK(pthread_key_create(&key, key_done) == 0, "pthread_key_create");
	for (long i = 0; i < NTHREADS; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)(i + 1)) == 0,
		      "pthread_create %ld", i);
	pthread_mutex_lock(&lock);
	while (started < NTHREADS)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	CHECK(1, "every thread started (condition variable)");
	int distinct = 1;
	for (int i = 0; i < NTHREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		tids[i] = (long)r;
		distinct &= tids[i] > 0 && tids[i] != getpid();
		for (int j = 0; j < i; j++)
			distinct &= tids[j] != tids[i];
	}
	CHECK(distinct, "each thread had its own tid and its own specific data");
	CHECK(counter == (long)NTHREADS * ROUNDS, "the mutex kept the count (%ld)", counter);
	CHECK(destructed == NTHREADS, "each thread's key destructor ran");
	return abi_done("dyn-threads");
}
