/*
 * time.c: ABI test of clocks and sleeping: CLOCK_MONOTONIC never goes
 * back, CLOCK_REALTIME is a plausible date and agrees with gettimeofday
 * and time(), the process CPU clock advances while working, nanosleep
 * sleeps at least as asked, is interrupted by a signal with the time
 * left, and rejects bad arguments.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "abi.h"

static long long ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static long long now(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return ns(&t);
}

static void test_monotonic(void)
{
	struct timespec t, prev;
	int ok = 1;

	CHECK(clock_gettime(CLOCK_MONOTONIC, &prev) == 0, "CLOCK_MONOTONIC");
	for (int i = 0; i < 1000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		ok &= ns(&t) >= ns(&prev) && t.tv_nsec >= 0 &&
		      t.tv_nsec < 1000000000;
		prev = t;
	}
	CHECK(ok, "1000 readings never go back, tv_nsec in range");
	CHECK(clock_getres(CLOCK_MONOTONIC, &t) == 0 && ns(&t) > 0 &&
	      ns(&t) <= 10000000, "resolution 0 < res <= 10 ms (%lld ns)",
	      ns(&t));
	CHECK_ERR(clock_gettime(12345, &t), EINVAL, "an unknown clock");
}

static void test_realtime(void)
{
	struct timespec t;
	struct timeval tv;

	CHECK(clock_gettime(CLOCK_REALTIME, &t) == 0, "CLOCK_REALTIME");
	CHECK(t.tv_sec > 1577836800, "it is after 2020 (%lld)",
	      (long long)t.tv_sec);
	CHECK(gettimeofday(&tv, NULL) == 0 && tv.tv_usec >= 0 &&
	      tv.tv_usec < 1000000, "gettimeofday");
	CHECK(tv.tv_sec - t.tv_sec <= 1 && tv.tv_sec >= t.tv_sec,
	      "gettimeofday agrees with CLOCK_REALTIME");
	time_t s = time(NULL);
	CHECK(s - tv.tv_sec <= 1 && s >= tv.tv_sec, "time() agrees too");
}

static void test_cputime(void)
{
	long long start = now(CLOCK_PROCESS_CPUTIME_ID);
	long long wall = now(CLOCK_MONOTONIC);
	volatile unsigned long x = 0;

	/* Busy until 5 ms of CPU time show, for up to 2 s of wall time: on a
	 * loaded host 20 ms of wall time gave less than 5 ms of CPU. */
	while (now(CLOCK_PROCESS_CPUTIME_ID) - start < 5000000 &&
	       now(CLOCK_MONOTONIC) - wall < 2000000000LL)
		for (int i = 0; i < 10000; i++)
			x += i;
	CHECK(now(CLOCK_PROCESS_CPUTIME_ID) - start >= 5000000,
	      "CLOCK_PROCESS_CPUTIME_ID advances while busy");
}

static void test_nanosleep(void)
{
	struct timespec req = { 0, 20000000 };
	long long t0 = now(CLOCK_MONOTONIC), dt;

	CHECK(nanosleep(&req, NULL) == 0, "nanosleep 20 ms");
	dt = now(CLOCK_MONOTONIC) - t0;
	CHECK(dt >= 20000000 && dt < 1000000000,
	      "slept at least 20 ms, less than 1 s (%lld us)", dt / 1000);
	req = (struct timespec){ 0, 0 };
	CHECK(nanosleep(&req, NULL) == 0, "nanosleep 0");
	req = (struct timespec){ 0, 1000000000 };
	CHECK_ERR(nanosleep(&req, NULL), EINVAL, "tv_nsec 1e9");
	req = (struct timespec){ -1, 0 };
	CHECK_ERR(nanosleep(&req, NULL), EINVAL, "negative tv_sec");
	CHECK(sleep(0) == 0, "sleep(0)");
}

static void on_alarm(int sig) { }

static void test_interrupted(void)
{
	struct sigaction sa = { 0 };
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	struct timespec req = { 0, 500000000 }, rem = { 0, 0 };
	long long t0 = now(CLOCK_MONOTONIC);

	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	CHECK_ERR(nanosleep(&req, &rem), EINTR, "a signal interrupts nanosleep");
	CHECK(now(CLOCK_MONOTONIC) - t0 < 400000000, "early");
	CHECK(ns(&rem) > 0 && ns(&rem) < ns(&req),
	      "*rem holds the time left (%lld ms)", ns(&rem) / 1000000);
	signal(SIGALRM, SIG_DFL);
}

int main(void)
{
	test_monotonic();
	test_realtime();
	test_cputime();
	test_nanosleep();
	test_interrupted();
	return abi_done("time");
}
