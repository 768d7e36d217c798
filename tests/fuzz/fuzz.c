/*
 * fuzz.c: a seeded system-call fuzzer for baremon's perf_event_open and
 * the calls around it (issue 11). Usage:
 *
 *   fuzz [SEED [CALLS [WORKERS [SECONDS]]]]
 *
 * WORKERS processes (default 2) each make CALLS random calls (default
 * 2000) from a generator seeded with SEED + worker: perf_event_open with
 * attrs drawn from every field's valid and invalid values, ioctl, read,
 * mmap/munmap/mremap of ring buffers, poll, fcntl (O_ASYNC, owners),
 * prctl(PR_TASK_PERF_EVENTS_*), fork (children that spin on a CPU until
 * killed, exit or make calls of their own), sched_setaffinity,
 * sched_yield, and user pointers that are NULL,
 * unmapped, kernel addresses or straddle the end of a mapping.
 *
 * Checks: every call that fails gives -1 with an errno Linux defines
 * (1..133); no worker goes SECONDS (default 60) without making a call,
 * else the watchdog (this process) reports it hung. Either way
 * it prints the seed and the worker's last calls (kept in shared
 * memory), so `fuzz SEED CALLS 1` replays a worker alone. A kernel
 * panic or hang of the whole machine is the runner's to see
 * (tests/qemu/fuzz.sh). Last line: "fuzz: N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>

#define MAX_WORKERS 8
#define HISTORY 32          /* calls remembered per worker */
#define MAX_FDS 24
#define MAX_KIDS 4

/* What each worker leaves where the watchdog can read it. */
struct trace {
	uint64_t seed;
	long calls, bad_errno;
	int head;
	char last[HISTORY][96];  /* ring of the latest calls, one line each */
	const char *in;          /* the kind of call under way (literal) */
	volatile int done;
};

static struct trace *traces;
static struct trace *me;
static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t below(uint64_t n)
{
	return n ? next() % n : 0;
}

static void remember(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void remember(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(me->last[me->head % HISTORY], sizeof(me->last[0]), fmt, ap);
	va_end(ap);
	me->head++;
	me->calls++;
}

/* A failed call must be -1 with an errno Linux has. */
static void outcome(long r)
{
	if (r == -1 && (errno < 1 || errno > 133)) {
		me->bad_errno++;
		remember("  ^ bad errno %d", errno);
	}
}

/* ---- user pointers, good and bad ---- */

static char *page_end;      /* a mapped page followed by an unmapped one */

static void *any_pointer(void *good, size_t len)
{
	switch (below(8)) {
	case 0: return NULL;
	case 1: return (void *)0xffffffff80000000ULL;         /* the kernel */
	case 2: return (void *)0x1000;                        /* unmapped */
	case 3: return page_end + 4096 - (len > 1 ? len / 2 : 1); /* straddles */
	default: return good;
	}
}

/* ---- perf_event_attr from every field's valid and invalid values ---- */

static uint64_t pick(const uint64_t *v, size_t n)
{
	return v[below(n)];
}

#define PICK(...) ({ const uint64_t v_[] = { __VA_ARGS__ }; pick(v_, sizeof(v_) / sizeof(v_[0])); })

/* Half the attrs are plausible ones (what opens, and so what can go
 * wrong later), half drawn from every field's values. */
static void plausible_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = (uint32_t)PICK(PERF_TYPE_HARDWARE, PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE);
	a->config = a->type == PERF_TYPE_HARDWARE ? PICK(0, 0, 1, 4, 5)
	                                          : PICK(0, 1, 2, 3, 5, 9);
	a->sample_period = PICK(0, 0, 1000, 100000);
	a->sample_type = a->sample_period ? PICK(PERF_SAMPLE_IP, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
	                                         PERF_SAMPLE_TIME, PERF_SAMPLE_READ) : 0;
	a->read_format = below(16);
	a->disabled = below(2);
	a->inherit = below(2);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->pinned = below(8) == 0;
}

static void random_attr(struct perf_event_attr *a)
{
	if (below(2)) {
		plausible_attr(a);
		return;
	}
	memset(a, 0, sizeof(*a));
	a->type = (uint32_t)PICK(PERF_TYPE_SOFTWARE, PERF_TYPE_SOFTWARE, PERF_TYPE_HARDWARE,
	                         PERF_TYPE_HARDWARE, PERF_TYPE_BREAKPOINT, PERF_TYPE_TRACEPOINT,
	                         PERF_TYPE_HW_CACHE, PERF_TYPE_RAW, 6, 7, 8, 99, 0xffffffff);
	a->size = (uint32_t)PICK(sizeof(*a), sizeof(*a), sizeof(*a), 0, 64, 72, 120, 4096, 5000, 3);
	a->config = PICK(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x3c, 0xc0, 1ULL << 40, ~0ULL);
	if (below(2))
		a->sample_period = PICK(0, 1, 2, 1000, 100000, 1ULL << 62, 1ULL << 63);
	else {
		a->freq = 1;
		a->sample_freq = PICK(1, 100, 4000, 100000, 10000000);
	}
	a->sample_type = below(2) ? next() & ((PERF_SAMPLE_MAX << 1) - 1)
	                          : PICK(0, PERF_SAMPLE_IP | PERF_SAMPLE_TID,
	                                 PERF_SAMPLE_READ | PERF_SAMPLE_TIME, PERF_SAMPLE_CALLCHAIN);
	a->read_format = next() & ((PERF_FORMAT_MAX << 1) - 1);
	uint64_t bits = next();
	a->disabled = bits & 1;
	a->inherit = bits >> 1 & 1;
	a->pinned = (bits >> 2 & 7) == 0;
	a->exclusive = (bits >> 5 & 7) == 0;
	a->exclude_user = (bits >> 8 & 3) == 0;
	a->exclude_kernel = (bits >> 10 & 3) != 0;
	a->exclude_hv = bits >> 12 & 1;
	a->exclude_idle = bits >> 13 & 1;
	a->mmap = bits >> 14 & 1;
	a->comm = bits >> 15 & 1;
	a->inherit_stat = (bits >> 16 & 3) == 0;
	a->enable_on_exec = (bits >> 18 & 3) == 0;
	a->task = bits >> 20 & 1;
	a->watermark = (bits >> 21 & 3) == 0;
	a->precise_ip = bits >> 23 & 3;
	a->sample_id_all = bits >> 25 & 1;
	a->context_switch = (bits >> 26 & 3) == 0;
	a->write_backward = (bits >> 28 & 7) == 0;
	a->remove_on_exec = (bits >> 31 & 3) == 0;
	a->sigtrap = (bits >> 33 & 7) == 0;
	a->inherit_thread = (bits >> 36 & 7) == 0;
	a->use_clockid = (bits >> 39 & 3) == 0;
	a->clockid = (int32_t)PICK(CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_REALTIME, 99, -1);
	a->wakeup_events = (uint32_t)PICK(0, 1, 2, 1000);
	a->bp_type = (uint32_t)PICK(HW_BREAKPOINT_X, HW_BREAKPOINT_W, HW_BREAKPOINT_RW, 0, 8);
	a->bp_addr = (uint64_t)(uintptr_t)PICK((uintptr_t)&rng, (uintptr_t)random_attr,
	                                       0, 0xffffffff80000000ULL, 3);
	a->bp_len = PICK(1, 2, 4, 8, 3, 16);
	a->sample_regs_user = PICK(0, 1, 0xff, 1ULL << 12, 1ULL << 30, 1ULL << 40);
	a->sample_stack_user = (uint32_t)PICK(0, 8, 100, 8192, 65536);
	a->sample_max_stack = (uint16_t)PICK(0, 1, 127, 128, 60000);
	a->aux_watermark = (uint32_t)PICK(0, 4096);
	a->sig_data = next();
}

/* ---- the calls ---- */

static int fds[MAX_FDS], nfds;
static void *maps[MAX_FDS];
static size_t map_len[MAX_FDS];
static pid_t kids[MAX_KIDS];
static int ncpu = 1;

static int any_fd(void)
{
	if (!nfds || below(16) == 0)
		return (int)PICK(-1, 0, 1, 1000, 0x7fffffff);
	return fds[below((uint64_t)nfds)];
}

static void do_open(void)
{
	struct perf_event_attr a;
	pid_t pid = (pid_t)PICK(0, 0, 0, -1, 1, (uint64_t)(kids[0] > 0 ? kids[0] : 0));
	int cpu = (int)PICK(-1, -1, 0, 1, 5, 1000);
	int group = below(4) == 0 ? any_fd() : -1;
	unsigned long flags = PICK(0, 0, PERF_FLAG_FD_CLOEXEC, PERF_FLAG_FD_NO_GROUP,
	                           PERF_FLAG_FD_OUTPUT, 1UL << 10);

	random_attr(&a);
	void *p = any_pointer(&a, sizeof(a));
	long r = syscall(__NR_perf_event_open, p, pid, cpu, group, flags);
	remember("perf_event_open(%p type %u cfg %#llx st %#llx, %d, %d, %d, %#lx) = %ld",
	         p, a.type, (unsigned long long)a.config,
	         (unsigned long long)a.sample_type, pid, cpu, group, flags, r);
	outcome(r);
	if (r >= 0 && nfds < MAX_FDS)
		fds[nfds++] = (int)r;
	else if (r >= 0)
		close((int)r);
}

static void do_ioctl(void)
{
	static const unsigned long cmds[] = {
		PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE, PERF_EVENT_IOC_RESET,
		PERF_EVENT_IOC_REFRESH, PERF_EVENT_IOC_PERIOD, PERF_EVENT_IOC_SET_OUTPUT,
		PERF_EVENT_IOC_ID, PERF_EVENT_IOC_PAUSE_OUTPUT, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
		PERF_EVENT_IOC_SET_FILTER, FIOASYNC, 0x12345678,
	};
	uint64_t val = PICK(0, 1, 1000, ~0ULL);
	int fd = any_fd();
	unsigned long cmd = cmds[below(sizeof(cmds) / sizeof(cmds[0]))];
	unsigned long arg;

	if (cmd == PERF_EVENT_IOC_SET_OUTPUT)
		arg = (unsigned long)(below(3) ? (long)any_fd() : -1L);
	else if (cmd == PERF_EVENT_IOC_PERIOD || cmd == PERF_EVENT_IOC_ID ||
	         cmd == PERF_EVENT_IOC_MODIFY_ATTRIBUTES || cmd == FIOASYNC)
		arg = (unsigned long)any_pointer(&val, sizeof(val));
	else
		arg = PICK(0, 1, 2, PERF_IOC_FLAG_GROUP, ~0UL);
	long r = ioctl(fd, cmd, arg);
	remember("ioctl(%d, %#lx, %#lx) = %ld", fd, cmd, arg, r);
	outcome(r);
}

static void do_read(void)
{
	static uint64_t buf[64];
	int fd = any_fd();
	size_t len = PICK(0, 8, 16, 24, 512, 4096);
	void *p = any_pointer(buf, len);
	long r = read(fd, p, len);
	remember("read(%d, %p, %zu) = %ld", fd, p, len, r);
	outcome(r);
}

static void do_mmap(void)
{
	int i = nfds ? (int)below((uint64_t)nfds) : -1;
	size_t len = (size_t)PICK(1, 2, 3, 5, 9, 17) * 4096;
	int prot = (int)PICK(PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE, PROT_EXEC);
	int flags = (int)PICK(MAP_SHARED, MAP_SHARED, MAP_PRIVATE);

	if (i < 0)
		return;
	if (maps[i] && below(2)) {
		long r;
		if (below(2)) {
			r = munmap(maps[i], map_len[i]);
			remember("munmap(%p, %zu) = %ld", maps[i], map_len[i], r);
			maps[i] = NULL;
		} else {
			void *q = mremap(maps[i], map_len[i], map_len[i] * (1 + below(2)),
			                 MREMAP_MAYMOVE);
			r = q == MAP_FAILED ? -1 : 0;
			remember("mremap(%p, %zu) = %p", maps[i], map_len[i], q);
			if (q != MAP_FAILED)
				maps[i] = q;
		}
		outcome(r);
		return;
	}
	void *p = mmap(NULL, len, prot, flags, fds[i], PICK(0, 0, 4096));
	remember("mmap(%zu, prot %d, flags %d, fd %d) = %p", len, prot, flags, fds[i], p);
	outcome(p == MAP_FAILED ? -1 : 0);
	if (p != MAP_FAILED) {
		if (maps[i])
			munmap(maps[i], map_len[i]);
		maps[i] = p;
		map_len[i] = len;
	}
}

static void do_close(void)
{
	if (!nfds)
		return;
	int i = (int)below((uint64_t)nfds);
	long r = close(fds[i]);
	remember("close(%d) = %ld", fds[i], r);
	outcome(r);
	if (maps[i])
		munmap(maps[i], map_len[i]);
	fds[i] = fds[--nfds];
	maps[i] = maps[nfds];
	map_len[i] = map_len[nfds];
	maps[nfds] = NULL;
}

static void do_poll(void)
{
	struct pollfd p[2] = { { any_fd(), POLLIN, 0 }, { any_fd(), POLLIN | POLLHUP, 0 } };
	long r = poll(below(8) ? p : any_pointer(p, sizeof(p)), 2, (int)PICK(0, 1, 5));
	remember("poll(%d, %d) = %ld", p[0].fd, p[1].fd, r);
	outcome(r);
}

static void do_fcntl(void)
{
	int fd = any_fd();
	long r;

	switch (below(4)) {
	case 0:
		r = fcntl(fd, F_SETFL, below(2) ? O_ASYNC : 0);
		break;
	case 1:
		r = fcntl(fd, F_SETOWN, (int)PICK(0, (uint64_t)getpid(), (uint64_t)-getpgrp(), 999999));
		break;
	case 2:
		r = fcntl(fd, F_SETSIG, (int)PICK(0, SIGIO, 40, 65));
		break;
	default:
		r = fcntl(fd, F_GETOWN_EX, any_pointer(&r, 8));
		break;
	}
	remember("fcntl(%d, ...) = %ld", fd, r);
	outcome(r);
}

static void do_prctl(void)
{
	int op = below(2) ? PR_TASK_PERF_EVENTS_ENABLE : PR_TASK_PERF_EVENTS_DISABLE;
	long r = prctl(op, 0, 0, 0, 0);
	remember("prctl(%s) = %ld", op == PR_TASK_PERF_EVENTS_ENABLE ? "ENABLE" : "DISABLE", r);
	outcome(r);
}

static void do_affinity(void)
{
	cpu_set_t set;
	int cpu = (int)below((uint64_t)ncpu + 1);

	CPU_ZERO(&set);
	if (cpu < ncpu)
		CPU_SET(cpu, &set);
	else
		for (int c = 0; c < ncpu; c++)
			CPU_SET(c, &set);
	long r = sched_setaffinity(0, sizeof(set), &set);
	remember("sched_setaffinity(cpu %d) = %ld", cpu, r);
	outcome(r);
}

/* A child that spins a while, exits at once, or makes calls of its own
 * (inherited events and all), then exits. */
static void do_fork(void)
{
	int slot = -1, how = (int)below(3);

	for (int i = 0; i < MAX_KIDS; i++)
		if (kids[i] <= 0)
			slot = i;
	if (slot < 0) {
		int i = (int)below(MAX_KIDS);
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
		remember("kill+wait child %d", kids[i]);
		kids[i] = 0;
		return;
	}
	pid_t c = fork();
	if (c == 0) {
		static struct trace own; /* not the worker's: the watchdog reads that */
		me = &own;
		if (how == 0) { /* spin on one CPU until killed */
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET((int)below((uint64_t)ncpu), &set);
			sched_setaffinity(0, sizeof(set), &set);
			for (;;)
				;
		}
		if (how == 2)
			for (int i = 0; i < 20; i++)
				do_prctl(), do_ioctl();
		_exit(0);
	}
	remember("fork(how %d) = %d", how, c);
	outcome(c);
	kids[slot] = c;
}

static void reap_kids(void)
{
	for (int i = 0; i < MAX_KIDS; i++)
		if (kids[i] > 0 && waitpid(kids[i], NULL, WNOHANG) == kids[i])
			kids[i] = 0;
}

static void one_call(void)
{
	static const struct { void (*fn)(void); const char *name; } kinds[16] = {
		{ do_open, "perf_event_open" }, { do_open, "perf_event_open" },
		{ do_open, "perf_event_open" }, { do_open, "perf_event_open" },
		{ do_ioctl, "ioctl" }, { do_ioctl, "ioctl" }, { do_ioctl, "ioctl" },
		{ do_read, "read" }, { do_mmap, "mmap/munmap/mremap" },
		{ do_close, "close" }, { do_poll, "poll" }, { do_fcntl, "fcntl" },
		{ do_prctl, "prctl" }, { do_affinity, "sched_setaffinity" },
		{ do_fork, "fork" }, { NULL, "sched_yield" },
	};
	int k = (int)below(16);

	me->in = kinds[k].name;
	if (kinds[k].fn)
		kinds[k].fn();
	else {
		sched_yield();
		remember("sched_yield");
	}
	me->in = "wait4 (reaping children)";
	reap_kids();
	me->in = NULL;
}

static void worker(int w, uint64_t seed, long calls)
{
	me = &traces[w];
	me->seed = seed;
	/* fds 0-2 are among those it tries: a read of the console would
	 * wait for a key, which is no hang of the kernel's. The worker prints
	 * nothing itself (its trace is in shared memory). */
	int null = open("/dev/null", O_RDWR);
	for (int fd = 0; null > 2 && fd <= 2; fd++)
		dup2(null, fd);
	if (null > 2)
		close(null);
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	signal(SIGIO, SIG_IGN);
	signal(SIGTRAP, SIG_IGN);
	for (int s = 34; s <= 64; s++)
		signal(s, SIG_IGN);
	page_end = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(page_end + 4096, 4096);
	for (long i = 0; i < calls; i++)
		one_call();
	for (int i = 0; i < MAX_KIDS; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	me->done = 1;
	_exit(0);
}

static long seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec - t0->tv_sec;
}

static void show(int w)
{
	struct trace *t = &traces[w];
	int from = t->head > HISTORY ? t->head - HISTORY : 0;

	printf("# worker %d: seed %llu, %ld calls made; the last ones:\n", w,
	       (unsigned long long)t->seed, t->calls);
	for (int i = from; i < t->head; i++)
		printf("#   %s\n", t->last[i % HISTORY]);
	if (t->in)
		printf("#   ... then in %s\n", t->in);
}

int main(int argc, char **argv)
{
	uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (uint64_t)time(NULL);
	long calls = argc > 2 ? strtol(argv[2], NULL, 0) : 2000;
	int workers = argc > 3 ? atoi(argv[3]) : 2;
	long limit = argc > 4 ? strtol(argv[4], NULL, 0) : 60;
	pid_t pids[MAX_WORKERS];
	int passed = 0, failed = 0;
	struct timespec t0;

	workers = workers < 1 ? 1 : workers > MAX_WORKERS ? MAX_WORKERS : workers;
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	ncpu = ncpu < 1 ? 1 : ncpu > 8 ? 8 : ncpu;
	traces = mmap(NULL, sizeof(*traces) * MAX_WORKERS, PROT_READ | PROT_WRITE,
	              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (traces == MAP_FAILED)
		return 2;
	printf("# fuzz: seed %llu, %d workers x %ld calls, %ld s allowed\n",
	       (unsigned long long)seed, workers, calls, limit);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int w = 0; w < workers; w++) {
		pids[w] = fork();
		if (pids[w] == 0) {
			setpgid(0, 0);   /* its children die with it */
			worker(w, seed + (uint64_t)w, calls);
		}
	}
	/* The watchdog: a worker that makes no call for `limit` seconds
	 * hangs (the kernel never returned it to user mode). */
	int st[MAX_WORKERS], left = workers;
	long seen[MAX_WORKERS], since[MAX_WORKERS];
	bool over[MAX_WORKERS];
	for (int w = 0; w < workers; w++)
		seen[w] = -1, since[w] = 0, over[w] = false;
	while (left > 0) {
		usleep(100000);
		for (int w = 0; w < workers; w++) {
			if (over[w])
				continue;
			if (waitpid(pids[w], &st[w], WNOHANG) == pids[w]) {
				over[w] = true;
				left--;
				continue;
			}
			if (traces[w].calls != seen[w]) {
				seen[w] = traces[w].calls;
				since[w] = seconds_since(&t0);
			} else if (seconds_since(&t0) - since[w] >= limit) {
				printf("not ok - worker %d (seed %llu) made no call for %ld s: "
				       "it hangs\n", w, (unsigned long long)traces[w].seed, limit);
				show(w);
				kill(-pids[w], SIGKILL);
				kill(pids[w], SIGKILL);
				waitpid(pids[w], NULL, 0);
				over[w] = true;
				st[w] = -1;
				failed++;
				left--;
			}
		}
	}
	for (int w = 0; w < workers; w++) {
		struct trace *t = &traces[w];
		if (st[w] == -1)
			continue;
		int ok = WIFEXITED(st[w]) && WEXITSTATUS(st[w]) == 0 && t->done && !t->bad_errno;
		printf("%s - worker %d (seed %llu): %ld calls, every failure an errno "
		       "(status %#x, %ld bad)\n", ok ? "ok" : "not ok", w,
		       (unsigned long long)t->seed, t->calls, st[w], t->bad_errno);
		if (!ok)
			show(w);
		ok ? passed++ : failed++;
		kill(-pids[w], SIGKILL); /* leftover children */
	}
	long calls_made = 0;
	for (int w = 0; w < workers; w++)
		calls_made += traces[w].calls;
	printf("# %ld calls in %ld s\n", calls_made, seconds_since(&t0));
	printf("fuzz: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
