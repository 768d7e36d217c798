/*
 * timerfd.c: ABI test of timerfd_create, timerfd_settime and
 * timerfd_gettime (raw system calls, Linux's struct layouts): the
 * errnos (unknown flags and clocks, a bad itimerspec, EFAULT, a
 * descriptor that is no timerfd: EINVAL, a closed one: EBADF, a read
 * buffer under 8 bytes), a one-shot timer read blocking until it
 * expires and then disarmed, a periodic one counting its expirations
 * (at least those that were due, at most those the elapsed time allows:
 * true however loaded the machine), gettime's remaining time and
 * interval, settime's old value and its reset of the count, absolute
 * deadlines (a past one expires at once), poll, and disarming.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <asm/unistd.h>
#include <linux/time_types.h>
#include <sys/syscall.h>
#include "abi.h"

#define MS 1000000LL
#define TFD_NONBLOCK_FLAG 04000      /* O_NONBLOCK */
#define TFD_CLOEXEC_FLAG 02000000    /* O_CLOEXEC */
#define TFD_ABSTIME 1

typedef struct __kernel_itimerspec its_t;

static int tfd_create(int clock, int flags)
{
	return (int)syscall(__NR_timerfd_create, clock, flags);
}

static long tfd_set(int fd, int flags, const its_t *nv, its_t *ov)
{
	return syscall(__NR_timerfd_settime, fd, flags, nv, ov);
}

static long tfd_get(int fd, its_t *cur)
{
	return syscall(__NR_timerfd_gettime, fd, cur);
}

static its_t its(long long value_ns, long long interval_ns)
{
	its_t t = { .it_interval = { interval_ns / 1000000000, interval_ns % 1000000000 },
		    .it_value = { value_ns / 1000000000, value_ns % 1000000000 } };
	return t;
}

static long long ts_ns(const struct __kernel_timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static long long mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* read(2) of the expiration count: the count, or -errno. */
static long long expirations(int fd)
{
	uint64_t n = 0;
	long r = read(fd, &n, sizeof(n));
	return r == 8 ? (long long)n : r < 0 ? -errno : -1000;
}

static void test_errnos(void)
{
	CHECK_ERR(tfd_create(CLOCK_MONOTONIC, 1), EINVAL, "timerfd_create: unknown flag");
	CHECK_ERR(tfd_create(CLOCK_PROCESS_CPUTIME_ID, 0), EINVAL, "timerfd_create: a CPU clock");
	CHECK_ERR(tfd_create(99, 0), EINVAL, "timerfd_create: no such clock");
	int fd = tfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK_FLAG | TFD_CLOEXEC_FLAG);
	CHECK(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC) && (fcntl(fd, F_GETFL) & O_NONBLOCK),
	      "timerfd_create: CLOEXEC and NONBLOCK");
	its_t t = its(10 * MS, 0), bad = t;
	CHECK_ERR(tfd_set(fd, 4, &t, NULL), EINVAL, "settime: unknown flag");
	bad.it_value.tv_nsec = 1000000000;
	CHECK_ERR(tfd_set(fd, 0, &bad, NULL), EINVAL, "settime: tv_nsec 1e9");
	bad = t;
	bad.it_interval.tv_sec = -1;
	CHECK_ERR(tfd_set(fd, 0, &bad, NULL), EINVAL, "settime: a negative interval");
	CHECK_ERR(tfd_set(fd, 0, (its_t *)8, NULL), EFAULT, "settime: bad pointer");
	CHECK_ERR(tfd_get(fd, (its_t *)8), EFAULT, "gettime: bad pointer");
	int p[2];
	if (pipe(p) == 0) {
		CHECK_ERR(tfd_set(p[0], 0, &t, NULL), EINVAL, "settime on a pipe");
		its_t cur;
		CHECK_ERR(tfd_get(p[0], &cur), EINVAL, "gettime on a pipe");
		close(p[0]);
		close(p[1]);
		CHECK_ERR(tfd_set(p[0], 0, &t, NULL), EBADF, "settime on a closed descriptor");
	}
	uint32_t small;
	CHECK_ERR(read(fd, &small, sizeof(small)), EINVAL, "read of 4 bytes");
	CHECK_ERR(read(fd, &t, 8), EAGAIN, "a disarmed timer: EAGAIN under NONBLOCK");
	close(fd);
}

static void test_one_shot(void)
{
	int fd = tfd_create(CLOCK_MONOTONIC, 0);
	its_t t = its(20 * MS, 0), cur;
	long long t0 = mono_ns();
	CHECK(fd >= 0 && tfd_set(fd, 0, &t, NULL) == 0, "arm a 20 ms one-shot timer");
	CHECK(tfd_get(fd, &cur) == 0 && ts_ns(&cur.it_value) > 0 &&
	      ts_ns(&cur.it_value) <= 20 * MS && ts_ns(&cur.it_interval) == 0,
	      "gettime: up to 20 ms left, no interval (%lld ns)", ts_ns(&cur.it_value));
	long long n = expirations(fd);
	long long waited = mono_ns() - t0;
	CHECK(n == 1 && waited >= 20 * MS, "read blocks until it expires: 1 after %lld ms (%lld)",
	      waited / MS, n);
	CHECK(tfd_get(fd, &cur) == 0 && ts_ns(&cur.it_value) == 0, "then it is disarmed");
	close(fd);
}

static void test_periodic(void)
{
	int fd = tfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK_FLAG);
	its_t t = its(10 * MS, 10 * MS), old, cur;
	long long t0 = mono_ns();
	tfd_set(fd, 0, &t, NULL);
	struct timespec nap = { 0, 55 * MS };
	nanosleep(&nap, NULL);
	long long n = expirations(fd), elapsed = mono_ns() - t0;
	long long most = elapsed / (10 * MS);
	CHECK(n >= 5 && n <= most, "10 ms periods over %lld ms: %lld expirations (5 to %lld)",
	      elapsed / MS, n, most);
	CHECK(tfd_get(fd, &cur) == 0 && ts_ns(&cur.it_interval) == 10 * MS &&
	      ts_ns(&cur.it_value) > 0 && ts_ns(&cur.it_value) <= 10 * MS,
	      "gettime: the interval, and up to one period left (%lld ns)", ts_ns(&cur.it_value));
	nanosleep(&nap, NULL);
	its_t again = its(1000 * MS, 0);
	CHECK(tfd_set(fd, 0, &again, &old) == 0 && ts_ns(&old.it_interval) == 10 * MS &&
	      ts_ns(&old.it_value) <= 10 * MS, "settime gives the old value");
	CHECK(expirations(fd) == -EAGAIN, "and drops the expirations not read");
	its_t off = its(0, 0);
	CHECK(tfd_set(fd, 0, &off, NULL) == 0 && tfd_get(fd, &cur) == 0 &&
	      ts_ns(&cur.it_value) == 0, "a zero value disarms it");
	close(fd);
}

static void test_absolute_and_poll(void)
{
	int fd = tfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK_FLAG);
	struct pollfd p = { fd, POLLIN, 0 };
	CHECK(poll(&p, 1, 0) == 0, "poll: a disarmed timer is not readable");
	long long at = mono_ns() + 20 * MS;
	its_t t = its(at, 0);
	CHECK(tfd_set(fd, TFD_ABSTIME, &t, NULL) == 0, "arm at an absolute time");
	p.revents = 0;
	int r = poll(&p, 1, 10000);
	long long now = mono_ns();
	CHECK(r == 1 && (p.revents & POLLIN) && now >= at,
	      "poll: readable once the deadline has passed (%lld ms after)", (now - at) / MS);
	CHECK(expirations(fd) == 1, "one expiration");
	t = its(mono_ns() - 1000 * MS, 0);
	CHECK(tfd_set(fd, TFD_ABSTIME, &t, NULL) == 0 && expirations(fd) == 1,
	      "a deadline in the past expires at once");
	close(fd);
	fd = tfd_create(CLOCK_REALTIME, 0);
	t = its(5 * MS, 0);
	CHECK(fd >= 0 && tfd_set(fd, 0, &t, NULL) == 0 && expirations(fd) == 1,
	      "CLOCK_REALTIME, relative: expires");
	close(fd);
	fd = tfd_create(CLOCK_BOOTTIME, 0);
	CHECK(fd >= 0 && tfd_set(fd, 0, &t, NULL) == 0 && expirations(fd) == 1,
	      "CLOCK_BOOTTIME: expires");
	close(fd);
}

int main(void)
{
	test_errnos();
	test_one_shot();
	test_periodic();
	test_absolute_and_poll();
	return abi_done("timerfd");
}
