/*
 * sysctl.c: perf's tunables in /proc/sys/kernel: perf_event_max_sample_rate,
 * perf_event_mlock_kb, perf_event_max_stack,
 * perf_event_max_contexts_per_stack and perf_cpu_time_max_percent. Each
 * exists, reads as one decimal integer and a newline, is writable by
 * root only (EACCES for others), takes what Linux's proc_dointvec takes
 * (decimal, 0x hex, 0 octal, white space around; the first number of
 * several, leaving the rest unread; an empty write is a no-op; anything
 * else, or beyond int, EINVAL with the value left alone) and refuses
 * values out of its range with EINVAL:
 *
 *   perf_event_max_sample_rate         1 .. INT_MAX, and EINVAL whatever
 *                                      the value while
 *                                      perf_cpu_time_max_percent is 0 or
 *                                      100 (throttling off)
 *   perf_event_mlock_kb                any int
 *   perf_event_max_stack               0 .. 655360 (EBUSY while an event
 *                                      with PERF_SAMPLE_CALLCHAIN exists)
 *   perf_event_max_contexts_per_stack  0 .. 1000
 *   perf_cpu_time_max_percent          0 .. 100
 *
 * And they are honoured: freq with sample_freq above the sample rate
 * limit is EINVAL, raising the limit lets it open; sample_max_stack above
 * perf_event_max_stack is EOVERFLOW; an unprivileged process (with
 * RLIMIT_MEMLOCK 0, perf_event_paranoid 2) may map a ring buffer of up to
 * perf_event_mlock_kb of data pages, beyond that EPERM; root may map more.
 *
 * Needs root. Every value is restored at the end, whatever happens: the
 * tests run in a child process, the first process only saves, waits and
 * restores.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "perf.h"

#define K "/proc/sys/kernel/"
#define RATE     K "perf_event_max_sample_rate"
#define MLOCK    K "perf_event_mlock_kb"
#define STACK    K "perf_event_max_stack"
#define CONTEXTS K "perf_event_max_contexts_per_stack"
#define PERCENT  K "perf_cpu_time_max_percent"
#define PARANOID K "perf_event_paranoid"
#define NOBODY 65534

/* The order matters to main's restore: PERCENT is the fifth. */
enum { F_PERCENT = 4 };
static const char *const files[] = { RATE, MLOCK, STACK, CONTEXTS, PERCENT,
                                     PARANOID };
#define NFILES (sizeof(files) / sizeof(files[0]))

static const char *base(const char *path)
{
	return path + strlen(K);
}

/* Write s to path in one write(): its result, errno set on -1. */
static ssize_t put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	e = errno;
	close(fd);
	errno = e;
	return n;
}

/* The file's text, or "" if it cannot be read. */
static void text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
}

/* The integer in path, or LONG_MIN. */
static long get(const char *path)
{
	char buf[32];

	text(path, buf, sizeof(buf));
	return buf[0] ? strtol(buf, NULL, 10) : LONG_MIN;
}

static int set(const char *path, long v)
{
	char s[24];

	snprintf(s, sizeof(s), "%ld", v);
	return put(path, s) == (ssize_t)strlen(s) && get(path) == v;
}


static void test_read(void)
{
	for (unsigned i = 0; i < NFILES - 1; i++) {
		char buf[32], *end;
		long v;

		text(files[i], buf, sizeof(buf));
		v = strtol(buf, &end, 10);
		CHECK(buf[0] && end != buf && end[0] == '\n' && end[1] == 0,
		      "%s reads as one integer and a newline (%ld)",
		      base(files[i]), v);
	}
}

/* s with its newlines shown as \n (one static buffer). */
static const char *shown(const char *s)
{
	static char buf[64];
	size_t n = 0;

	for (; *s && n + 3 < sizeof(buf); s++) {
		if (*s == '\n') {
			buf[n++] = '\\';
			buf[n++] = 'n';
		} else {
			buf[n++] = *s;
		}
	}
	buf[n] = 0;
	return buf;
}

/*
 * One write: it must give `ret` (the bytes taken) or fail with `err`,
 * and leave the value `after`.
 */
static void write_case(const char *path, const char *s, ssize_t ret, int err,
                       long after)
{
	ssize_t n;
	long now;
	int e;

	errno = 0;
	n = put(path, s);
	e = errno;
	now = get(path);
	if (err)
		CHECK(n == -1 && e == err && now == after,
		      "%s: write \"%s\" -> %s, value stays %ld (got %zd, %s, %ld)",
		      base(path), shown(s),
		      err == EINVAL ? "EINVAL" : strerror(err),
		      after, n, strerror(e), now);
	else
		CHECK(n == ret && now == after,
		      "%s: write \"%s\" takes %zd bytes, value %ld (got %zd, %ld)",
		      base(path), shown(s), ret, after, n, now);
}

/* proc_dointvec's parsing, on perf_event_mlock_kb (any int is valid). */
static void test_parsing(void)
{
	set(MLOCK, 516);
	write_case(MLOCK, "-1", 2, 0, -1);
	write_case(MLOCK, "2147483647", 10, 0, INT_MAX);
	write_case(MLOCK, "-2147483648", 11, 0, INT_MIN);
	write_case(MLOCK, "2147483648", 0, EINVAL, INT_MIN);
	write_case(MLOCK, "-2147483649", 0, EINVAL, INT_MIN);
	write_case(MLOCK, "0x10", 4, 0, 16);
	write_case(MLOCK, "010", 3, 0, 8);
	write_case(MLOCK, " 7\n", 3, 0, 7);
	write_case(MLOCK, "abc", 0, EINVAL, 7);
	write_case(MLOCK, "12abc", 0, EINVAL, 7);
	write_case(MLOCK, "1 2", 2, 0, 1);
	write_case(MLOCK, "", 0, 0, get(MLOCK));
	write_case(MLOCK, "516\n", 4, 0, 516);
}

static void test_ranges(void)
{
	write_case(RATE, "0", 0, EINVAL, get(RATE));
	write_case(RATE, "-1", 0, EINVAL, get(RATE));
	write_case(RATE, "1", 1, 0, 1);
	write_case(RATE, "2147483647", 10, 0, INT_MAX);
	write_case(RATE, "100000", 6, 0, 100000);

	write_case(STACK, "-1", 0, EINVAL, get(STACK));
	write_case(STACK, "655361", 0, EINVAL, get(STACK));
	write_case(STACK, "655360", 6, 0, 655360);
	write_case(STACK, "0", 1, 0, 0);
	write_case(STACK, "127", 3, 0, 127);

	write_case(CONTEXTS, "-1", 0, EINVAL, get(CONTEXTS));
	write_case(CONTEXTS, "1001", 0, EINVAL, get(CONTEXTS));
	write_case(CONTEXTS, "1000", 4, 0, 1000);
	write_case(CONTEXTS, "0", 1, 0, 0);
	write_case(CONTEXTS, "8", 1, 0, 8);

	write_case(PERCENT, "-1", 0, EINVAL, get(PERCENT));
	write_case(PERCENT, "101", 0, EINVAL, get(PERCENT));
	write_case(PERCENT, "100", 3, 0, 100);
	/* Throttling off: the sample rate may not be set. */
	write_case(RATE, "5000", 0, EINVAL, 100000);
	write_case(PERCENT, "0", 1, 0, 0);
	write_case(RATE, "5000", 0, EINVAL, 100000);
	write_case(PERCENT, "25", 2, 0, 25);
	write_case(RATE, "5000", 4, 0, 5000);
	write_case(RATE, "100000", 6, 0, 100000);
}

/* A task-clock (or cpu-clock) sampling event at freq f: 0 or errno. */
static int try_freq(uint64_t config, uint64_t f)
{
	struct perf_event_attr a;
	int fd;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.freq = 1;
	a.sample_freq = f;
	fd = perf_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void test_sample_rate(void)
{
	CHECK(set(RATE, 5000), "set perf_event_max_sample_rate 5000");
	CHECK(try_freq(PERF_COUNT_SW_TASK_CLOCK, 5000) == 0,
	      "task-clock at freq 5000 opens");
	CHECK(try_freq(PERF_COUNT_SW_TASK_CLOCK, 5001) == EINVAL,
	      "at freq 5001: EINVAL");
	CHECK(try_freq(PERF_COUNT_SW_CPU_CLOCK, 5001) == EINVAL,
	      "cpu-clock at freq 5001: EINVAL");
	CHECK(set(RATE, 10000), "raise it to 10000");
	CHECK(try_freq(PERF_COUNT_SW_TASK_CLOCK, 5001) == 0 &&
	      try_freq(PERF_COUNT_SW_CPU_CLOCK, 10000) == 0,
	      "then freq 5001 and 10000 open");
	CHECK(try_freq(PERF_COUNT_SW_CPU_CLOCK, 10001) == EINVAL,
	      "and 10001 is EINVAL");
	CHECK(set(RATE, 100000), "back to 100000");
}

/* A sampling event with a callchain of at most max frames: fd or -1. */
static int callchain(uint16_t max)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = 1000000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
	a.sample_max_stack = max;
	return perf_open(&a, 0, -1, -1, 0);
}

static void test_max_stack(void)
{
	int fd;

	CHECK(set(STACK, 127), "set perf_event_max_stack 127");
	fd = callchain(127);
	CHECK(fd >= 0, "a callchain event with sample_max_stack 127 opens");
	CHECK_ERR(put(STACK, "200"), EBUSY,
	          "while it exists, write perf_event_max_stack");
	CHECK(get(STACK) == 127, "the value stays 127");
	if (fd >= 0)
		close(fd);
	CHECK(set(STACK, 127), "with none open, it can be written (127)");
	CHECK_ERR(fd = callchain(128), EOVERFLOW, "sample_max_stack 128");
	if (fd >= 0)
		close(fd);
	fd = callchain(0);
	CHECK(fd >= 0, "sample_max_stack 0 (the limit) opens");
	if (fd >= 0)
		close(fd);
	CHECK(set(STACK, 200), "set it to 200");
	fd = callchain(200);
	CHECK(fd >= 0, "then sample_max_stack 200 opens");
	if (fd >= 0)
		close(fd);
	CHECK_ERR(fd = callchain(201), EOVERFLOW, "and 201 is EOVERFLOW");
	if (fd >= 0)
		close(fd);
	CHECK(set(STACK, 127), "back to 127");
}

/*
 * Map 1 + data pages of a sampling event's ring buffer: 0 or errno. The
 * event is user-only so that nobody may open it at level 2.
 */
static int try_map(int data)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr a;
	void *p;
	int fd, e = 0;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = 1000000;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	p = mmap(NULL, (size_t)((1 + data) * page), PROT_READ | PROT_WRITE,
	         MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		e = errno;
	else
		munmap(p, (size_t)((1 + data) * page));
	close(fd);
	return e;
}

/*
 * As nobody with RLIMIT_MEMLOCK 0: what fits in perf_event_mlock_kb per
 * online CPU (Linux's allowance, control page included): the largest
 * power of two of data pages that fits maps, twice that is EPERM.
 */
static void unprivileged_maps(long kb)
{
	struct rlimit none = { 0, 0 };
	long allowed = kb / 4 * sysconf(_SC_NPROCESSORS_ONLN);
	int small = 1, e;

	while (2 * small + 1 <= allowed)
		small *= 2;
	if (!CHECK(setrlimit(RLIMIT_MEMLOCK, &none) == 0 &&
	           setuid(NOBODY) == 0, "RLIMIT_MEMLOCK 0, setuid(%d)", NOBODY))
		return;
	e = try_map(small);
	CHECK(e == 0, "mlock_kb %ld: nobody maps 1 + %d pages (%s)", kb, small,
	      e ? strerror(e) : "ok");
	e = try_map(2 * small);
	CHECK(e == EPERM, "mlock_kb %ld: 1 + %d pages is EPERM (%s)", kb,
	      2 * small, e ? strerror(e) : "maps");
}

static void test_mlock(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int e;

	if (!CHECK(page == 4096, "4 KiB pages"))
		return;
	CHECK(set(PARANOID, 2), "perf_event_paranoid 2 (-1 lifts the limit)");
	CHECK(set(MLOCK, 16), "set perf_event_mlock_kb 16");
	in_child(unprivileged_maps, 16, "mlock_kb 16");
	e = try_map(8);
	CHECK(e == 0, "root maps 1 + 8 pages all the same (%s)",
	      e ? strerror(e) : "ok");
	CHECK(set(MLOCK, 32), "set perf_event_mlock_kb 32");
	in_child(unprivileged_maps, 32, "mlock_kb 32");
	CHECK(set(MLOCK, 516), "back to 516");
}

/* Only root may write: nobody's open for writing is EACCES. */
static void unprivileged_writes(long unused)
{
	if (!CHECK(setuid(NOBODY) == 0, "setuid(%d)", NOBODY))
		return;
	for (unsigned i = 0; i < NFILES - 1; i++) {
		char buf[32];
		int fd;

		errno = 0;
		fd = open(files[i], O_WRONLY);
		CHECK(fd < 0 && errno == EACCES,
		      "nobody opens %s for writing: EACCES (%d, %s)",
		      base(files[i]), fd, strerror(errno));
		if (fd >= 0)
			close(fd);
		text(files[i], buf, sizeof(buf));
		CHECK(buf[0] != 0, "but reads it (%ld)", strtol(buf, NULL, 10));
	}
}

static void body(long unused)
{
	test_read();
	test_parsing();
	test_ranges();
	test_sample_rate();
	test_max_stack();
	test_mlock();
	in_child(unprivileged_writes, 0, "writes as nobody");
}

int main(void)
{
	char saved[NFILES][32];
	long want[NFILES];
	int ok = 1;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (unsigned i = 0; i < NFILES; i++) {
		text(files[i], saved[i], sizeof(saved[i]));
		want[i] = strtol(saved[i], NULL, 10);
		ok = CHECK(saved[i][0] != 0, "%s exists (%ld)", base(files[i]),
		           want[i]) && ok;
	}
	if (!ok)
		return abi_done("sysctl");
	if (geteuid() != 0) {
		abi_note("not root: cannot change the tunables; skipped");
		return abi_done("sysctl");
	}
	in_child(body, 0, "the tests");

	/*
	 * Restore. The sample rate can only be written while throttling is
	 * on (percent neither 0 nor 100): restore it under 25, then the
	 * percentage.
	 */
	put(PERCENT, "25");
	for (unsigned i = 0; i < NFILES; i++)
		if (i != F_PERCENT)
			put(files[i], saved[i]);
	put(PERCENT, saved[F_PERCENT]);
	for (unsigned i = 0; i < NFILES; i++)
		ok = get(files[i]) == want[i] && ok;
	CHECK(ok, "every value restored");
	return abi_done("sysctl");
}
