/*
 * perf.h: what every perf_event_open ABI test shares. The tests use the
 * harness of the ABI suite (tests/abi/abi.h: CHECK, CHECK_ERR, abi_note,
 * abi_done) and add:
 *
 *   perf_open(attr, pid, cpu, group_fd, flags)  the raw system call
 *   perf_attr(&attr, type, config)              a zeroed attr, size set
 *   perf_sw(config, disabled)                   open a software counter on
 *                                               the calling task, any CPU
 *   perf_value(fd)                              read() one u64 (or ~0)
 *   now_ns(), cpu_ns()                          monotonic, thread CPU time
 *   spin_ns(ns), work_ns(ns)                    busy for ns of wall time,
 *                                               or of CPU time
 *   sleep_ns(ns)                                nanosleep
 *   touch_pages(n)                              n fresh page faults
 *   cpu_list(path, set, max)                    parse a sysfs CPU list
 *   perf_on_baremon()                           running on baremon
 *   bp_hits_checked()                           breakpoint hits can be
 *                                               asserted here (a probe)
 *   CHECK_HIT(cond, "what", ...)                CHECK when they can
 *
 * Everything here is POSIX or Linux uapi, and within what libc-lite
 * offers, so each test builds with libc-lite, musl and glibc. The system
 * call goes through syscall() rather than a library wrapper: glibc and
 * musl have none.
 */
#ifndef PERF_TESTS_PERF_H
#define PERF_TESTS_PERF_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include "../abi/abi.h"

/* Returns the new fd, or -1 with errno set. */
static inline int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
                            int group_fd, unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd,
	                    flags);
}

static inline void perf_attr(struct perf_event_attr *attr, uint32_t type,
                             uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
}

/* A software counter on the calling task (pid 0, any CPU, no group). */
static inline int perf_sw(uint64_t config, int disabled)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.disabled = disabled ? 1 : 0;
	return perf_open(&a, 0, -1, -1, 0);
}

#define PERF_BAD_VALUE (~(uint64_t)0)

/* The counter's value (read_format 0), or PERF_BAD_VALUE if read fails. */
static inline uint64_t perf_value(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return PERF_BAD_VALUE;
	return v;
}

static inline uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* The calling thread's CPU time. */
static inline uint64_t cpu_ns(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

/* Keep the CPU busy for ns of wall time; returns the time it took. */
static inline uint64_t spin_ns(uint64_t ns)
{
	uint64_t start = now_ns(), t;
	volatile uint64_t sink = 0;

	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
		t = now_ns();
	} while (t - start < ns);
	return t - start;
}

/*
 * Work until this thread has had ns of CPU time, however loaded the
 * machine; returns the CPU time it had. A thread clock that does not
 * advance ends it after 50 ns + 100 ms of wall time.
 */
static inline uint64_t work_ns(uint64_t ns)
{
	uint64_t start = cpu_ns(), wall = now_ns(), t;
	volatile uint64_t sink = 0;

	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
		t = cpu_ns();
	} while (t - start < ns && now_ns() - wall < 50 * ns + 100000000u);
	return t - start;
}

static inline void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	nanosleep(&ts, NULL);
}

/*
 * A sleep that is meant to switch the task out (one context switch
 * each). A sleep whose timer expires before the task blocks returns
 * without a switch, on Linux as on baremon (whose sleeps are hrtimers);
 * under TCG on a loaded host the vCPU may stall for a millisecond
 * between the two, so these sleeps are 10 ms.
 */
#define SWITCH_SLEEP_NS 10000000L

/*
 * Map n fresh anonymous pages and write one byte to each: n minor page
 * faults. Transparent huge pages are refused for the mapping (a fault
 * could otherwise fill many pages at once); a kernel without madvise
 * simply has none. The mapping is left in place: unmapping it is not
 * what is measured. Returns 0, or -1 if mmap fails.
 */
static inline int touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p;

	p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
	         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	syscall(__NR_madvise, p, (size_t)(n * page), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	return 0;
}

/* The integer at the start of a small file (sysfs, /proc/sys), or
 * `fail` if it cannot be read. */
static inline long file_long(const char *path, long fail)
{
	char buf[32];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fail;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return fail;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/*
 * The core PMU's sysfs directory, found as Linux's perf finds it:
 * devices/cpu, or on a hybrid CPU (which has no cpu/) devices/cpu_core,
 * else devices/cpu_atom; NULL if there is none. A PMU's directory has a
 * type file.
 */
static inline const char *core_pmu_dir(void)
{
	static const char *const dirs[] = {
		"/sys/bus/event_source/devices/cpu",
		"/sys/bus/event_source/devices/cpu_core",
		"/sys/bus/event_source/devices/cpu_atom",
	};
	char path[64];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/type", dirs[i]);
		if (file_long(path, -1) >= 0)
			return dirs[i];
	}
	return NULL;
}

/* path = the core PMU's file `name` ("caps/pmu_name"); 0, or -1 with
 * no core PMU. */
static inline int core_pmu_file(char *path, size_t size, const char *name)
{
	const char *dir = core_pmu_dir();

	if (!dir)
		return -1;
	snprintf(path, size, "%s/%s", dir, name);
	return 0;
}

/*
 * The CPUs in a sysfs CPU list such as /sys/devices/system/cpu/online
 * ("0-3,6,8-9"): set[i] = 1 for each listed i < max. Returns one more
 * than the highest CPU listed (Linux's nr_cpu_ids for "possible"), or -1
 * if the file cannot be read. Read here rather than through sysconf:
 * musl and libc-lite count the CPUs the task may run on.
 */
static inline int cpu_list(const char *path, unsigned char *set, int max)
{
	char buf[256], *p = buf, *end;
	int fd = open(path, O_RDONLY), top = -1;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (set)
		memset(set, 0, (size_t)max);
	while (*p >= '0' && *p <= '9') {
		long lo = strtol(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long i = lo; i <= hi; i++)
			if (set && i < max)
				set[i] = 1;
		if (hi + 1 > top)
			top = (int)hi + 1;
		if (*end != ',')
			break;
		p = end + 1;
	}
	return top;
}

/* baremon names itself in uname's release ("6.1.0-baremon"). */
static inline int perf_on_baremon(void)
{
	struct utsname u;

	return uname(&u) == 0 && (strstr(u.nodename, "baremon") ||
	                          strstr(u.release, "baremon"));
}

/* What the breakpoint probe watches. */
static __attribute__((noinline, unused)) void bp_probe_fn(void)
{
	__asm__ volatile("");
}

/*
 * Whether checks that need a breakpoint hit apply here. Some Linux hosts
 * (a Firecracker VM) open breakpoint events but never deliver a hit: the
 * probe, an execute breakpoint on a function that is then called once,
 * must count 1. On such a host this says so on one line and returns 0:
 * the caller skips only the checks that need a hit. baremon must deliver
 * hits: there the probe is a check of its own and the checks always
 * apply. The answer is probed once and kept.
 */
static inline int bp_hits_checked(void)
{
	static int answer = -1;
	void (*volatile call)(void) = bp_probe_fn; /* opaque to the compiler */
	struct perf_event_attr a;
	uint64_t hits = PERF_BAD_VALUE;
	int fd;

	if (answer >= 0)
		return answer;
	perf_attr(&a, PERF_TYPE_BREAKPOINT, 0);
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = (uint64_t)(uintptr_t)bp_probe_fn;
	a.bp_len = sizeof(long);
	a.exclude_kernel = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	if (fd >= 0) {
		call();
		hits = perf_value(fd);
		close(fd);
	}
	answer = 1;
	if (perf_on_baremon())
		CHECK(hits == 1, "breakpoint probe: one call of a function with "
		      "an execute breakpoint counts 1 (got %lld)", (long long)hits);
	else if (hits != 1) {
		abi_note("this host does not deliver breakpoint hits (the probe "
		         "counted %lld, not 1): the checks that need one are skipped",
		         (long long)hits);
		answer = 0;
	}
	return answer;
}

/* A check that needs a breakpoint hit: skipped where none is delivered. */
#define CHECK_HIT(...)                                                      \
	do {                                                                \
		if (bp_hits_checked())                                      \
			CHECK(__VA_ARGS__);                                 \
	} while (0)

/*
 * Run fn(arg) in a child process (one that may setuid, change limits or
 * crash) and add the checks it made to this process's counts; the child
 * finishing cleanly is a check of its own.
 */
static inline void in_child(void (*fn)(long), long arg, const char *what)
{
	int p[2], counts[2] = { 0, 0 }, st = -1;
	ssize_t n;
	pid_t pid;

	if (pipe(p) != 0) {
		CHECK(0, "%s: pipe", what);
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		abi_passed = abi_failed = 0;
		fn(arg);
		counts[0] = abi_passed;
		counts[1] = abi_failed;
		write(p[1], counts, sizeof(counts));
		_exit(0);
	}
	close(p[1]);
	n = pid < 0 ? -1 : read(p[0], counts, sizeof(counts));
	if (pid > 0)
		waitpid(pid, &st, 0);
	close(p[0]);
	if (n == (ssize_t)sizeof(counts)) {
		abi_passed += counts[0];
		abi_failed += counts[1];
	}
	CHECK(n == (ssize_t)sizeof(counts) && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "%s: the child process finishes", what);
}

#endif
