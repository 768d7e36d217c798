/*
 * hrsleep.c: ABI test of short timed waits. Each kind of timed wait
 * (usleep, nanosleep, clock_nanosleep relative and TIMER_ABSTIME, poll,
 * ppoll, select, a futex timeout, ITIMER_REAL) never ends before its
 * time, which is all Linux guarantees; on baremon, whose sleeps are
 * hrtimers, a short wait must also end well within a millisecond of it
 * (the median of several runs, so a loaded host's stalls do not count).
 * Before, every sleep ended on the next 10 ms tick.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include "abi.h"

#define RUNS 21
#define US 1000LL
#define MS 1000000LL

static int on_baremon;

static long long now_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* One kind of wait, of `want` ns, timed RUNS times. */
struct wait_kind {
	const char *name;
	long long want;
	int (*wait)(long long want);  /* 0 when it ended as a timeout should */
};

/* Checks: every run ended as it should, none before `want`; on baremon
 * the median overshoot is under 1 ms. */
static void check_wait(const struct wait_kind *k)
{
	long long took[RUNS];
	int ok = 1, early = 0;

	for (int i = 0; i < RUNS; i++) {
		long long t0 = now_ns(CLOCK_MONOTONIC);
		ok &= k->wait(k->want) == 0;
		took[i] = now_ns(CLOCK_MONOTONIC) - t0;
		early += took[i] < k->want;
	}
	qsort(took, RUNS, sizeof(took[0]), cmp_ll);
	long long median = took[RUNS / 2];
	CHECK(ok, "%s: %d waits of %lld us each time out", k->name, RUNS,
	      k->want / US);
	CHECK(!early, "%s: none ends early (min %lld us, %d early)", k->name,
	      took[0] / US, early);
	if (on_baremon)
		CHECK(median - k->want < MS,
		      "%s: median %lld us, under 1 ms late (max %lld us)",
		      k->name, median / US, took[RUNS - 1] / US);
	else
		abi_note("%s: median %lld us (max %lld us)", k->name,
			 median / US, took[RUNS - 1] / US);
}

static int do_usleep(long long want)
{
	return usleep((unsigned)(want / US));
}

static int do_nanosleep(long long want)
{
	struct timespec ts = { 0, want };

	return nanosleep(&ts, NULL);
}

static int do_clock_rel(long long want)
{
	struct timespec ts = { 0, want };

	return (int)syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
}

static int abs_sleep(clockid_t c, long long want)
{
	long long at = now_ns(c) + want;
	struct timespec ts = { at / 1000000000LL, at % 1000000000LL };

	if (syscall(SYS_clock_nanosleep, c, TIMER_ABSTIME, &ts, NULL))
		return -1;
	return now_ns(c) >= at ? 0 : -1;   /* never before the absolute time */
}

static int do_clock_abs(long long want)
{
	return abs_sleep(CLOCK_MONOTONIC, want);
}

static int do_clock_abs_real(long long want)
{
	return abs_sleep(CLOCK_REALTIME, want);
}

/* A pipe nobody writes: the waits below can only time out. */
static int quiet[2];

static int do_poll(long long want)
{
	struct pollfd p = { quiet[0], POLLIN, 0 };

	return poll(&p, 1, (int)(want / MS)) == 0 ? 0 : -1;
}

static int do_ppoll(long long want)
{
	struct pollfd p = { quiet[0], POLLIN, 0 };
	struct timespec ts = { 0, want };

	return syscall(SYS_ppoll, &p, 1, &ts, NULL, 8) == 0 ? 0 : -1;
}

static int do_select(long long want)
{
	fd_set r;
	struct timeval tv = { 0, want / US };

	FD_ZERO(&r);
	FD_SET(quiet[0], &r);
	return select(quiet[0] + 1, &r, NULL, NULL, &tv) == 0 ? 0 : -1;
}

static int do_futex(long long want)
{
	static uint32_t word;
	struct timespec ts = { 0, want };
	long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);

	return r == -1 && errno == ETIMEDOUT ? 0 : -1;
}

static int do_futex_abs(long long want)
{
	static uint32_t word;
	long long at = now_ns(CLOCK_MONOTONIC) + want;
	struct timespec ts = { at / 1000000000LL, at % 1000000000LL };
	long r = syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, 0, &ts,
			 NULL, FUTEX_BITSET_MATCH_ANY);

	return r == -1 && errno == ETIMEDOUT ? 0 : -1;
}

static volatile int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* Wait for the SIGALRM in sigsuspend (SIGALRM blocked until then, so it
 * cannot slip in before the wait). A spinning wait is checked by the
 * periodic test below. */
static int do_itimer(long long want)
{
	struct itimerval it = { { 0, 0 }, { 0, want / US } };
	sigset_t alrm, old;
	int before = alarms;

	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alrm, &old);
	if (setitimer(ITIMER_REAL, &it, NULL))
		return -1;
	sigdelset(&old, SIGALRM);
	while (alarms == before)
		sigsuspend(&old);
	sigprocmask(SIG_UNBLOCK, &alrm, NULL);
	return 0;
}

static const struct wait_kind kinds[] = {
	{ "usleep(10)", 10 * US, do_usleep },
	{ "usleep(200)", 200 * US, do_usleep },
	{ "nanosleep 50 us", 50 * US, do_nanosleep },
	{ "clock_nanosleep 50 us", 50 * US, do_clock_rel },
	{ "clock_nanosleep TIMER_ABSTIME 50 us", 50 * US, do_clock_abs },
	{ "clock_nanosleep REALTIME TIMER_ABSTIME 50 us", 50 * US,
	  do_clock_abs_real },
	{ "poll 1 ms", 1 * MS, do_poll },
	{ "ppoll 50 us", 50 * US, do_ppoll },
	{ "select 50 us", 50 * US, do_select },
	{ "futex WAIT 50 us", 50 * US, do_futex },
	{ "futex WAIT_BITSET absolute 50 us", 50 * US, do_futex_abs },
	{ "ITIMER_REAL 100 us", 100 * US, do_itimer },
};

/* A periodic ITIMER_REAL of 1 ms: 20 signals take 20 ms or more; on
 * baremon the median gap between two is under 5 ms (a 10 ms tick would
 * make it 10; the median ignores a loaded host's stalls, during which
 * expirations merge into one pending SIGALRM). */
static long long stamps[21];

static void on_periodic(int sig)
{
	(void)sig;
	if (alarms < 21)
		stamps[alarms] = now_ns(CLOCK_MONOTONIC);
	alarms++;
}

static void test_periodic_itimer(void)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa, old;
	long long gaps[20];

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_periodic;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, &old);
	alarms = 0;
	long long t0 = now_ns(CLOCK_MONOTONIC);
	setitimer(ITIMER_REAL, &it, NULL);
	while (alarms < 21)
		;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	long long took = stamps[20] - t0;
	for (int i = 0; i < 20; i++)
		gaps[i] = stamps[i + 1] - stamps[i];
	qsort(gaps, 20, sizeof(gaps[0]), cmp_ll);
	CHECK(took >= 20 * MS, "periodic 1 ms ITIMER_REAL: 21 signals in %lld us",
	      took / US);
	if (on_baremon)
		CHECK(gaps[10] < 5 * MS, "... median gap %lld us, under 5 ms",
		      gaps[10] / US);
	else
		abi_note("median gap %lld us", gaps[10] / US);
	struct itimerval cur;
	int r = getitimer(ITIMER_REAL, &cur);
	CHECK(r == 0 && cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0,
	      "disarmed again");
}

/* A long alarm shows its time left and is cancelled by alarm(0). */
static void test_alarm_left(void)
{
	struct itimerval cur;

	CHECK(alarm(100) == 0, "alarm(100) with none pending");
	int r = getitimer(ITIMER_REAL, &cur);
	CHECK(r == 0 && cur.it_value.tv_sec >= 98 && cur.it_value.tv_sec <= 100,
	      "getitimer: %ld s left", (long)cur.it_value.tv_sec);
	CHECK(alarm(0) == 100, "alarm(0) says 100 s were left");
	r = getitimer(ITIMER_REAL, &cur);
	CHECK(r == 0 && cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0,
	      "and disarmed it");
}

int main(void)
{
	struct utsname u;
	struct sigaction sa;

	on_baremon = uname(&u) == 0 && strstr(u.release, "baremon") != NULL;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(quiet))
		return abi_done("hrsleep");
	for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		check_wait(&kinds[i]);
	test_periodic_itimer();
	test_alarm_left();
	return abi_done("hrsleep");
}
