/*
 * calls.c: the fuzzer's system calls. Each draws its arguments from the
 * seeded generator (attrgen.c): perf_event_open, ioctl, read,
 * mmap/munmap/mremap of ring buffers, close, poll, fcntl (O_ASYNC,
 * owners, signals), prctl(PR_TASK_PERF_EVENTS_*), fork (children that
 * spin, exit, make calls or exec this program), execve with bad
 * arguments, signals (to itself and its children, sigaction and the
 * signal mask with bad pointers), sched_setaffinity, writes to
 * /proc/sys/kernel/perf_*, and user pointers that are NULL, unmapped,
 * kernel, non-canonical or straddling the end of a mapping.
 *
 * Every call that fails must give -1 and an errno Linux defines (1..133).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "attrgen.h"
#include "fuzz.h"

#define MAX_FDS 24
#define MAX_KIDS 4

struct trace *me;
bool planted;
const char *self_exe = "/proc/self/exe";

static int fds[MAX_FDS], nfds;
static void *maps[MAX_FDS];
static size_t map_len[MAX_FDS];
static bool map_writable[MAX_FDS]; /* mapped with PROT_WRITE */
static pid_t kids[MAX_KIDS];
static int ncpu = 1;
/* A mapped page followed by a PROT_NONE one: a pointer near its end
 * straddles into a page no access may touch. The guard stays mapped
 * (PROT_NONE, not unmapped) so that no later mmap or mremap can fill
 * the hole: once one did (a ring buffer, soak seed 20261163), a
 * straddling struct sigaction was read half from the ring and installed
 * SIG_DFL, and the next kill(self, SIGUSR2) killed the worker - as Linux
 * does too. */
static char *page_end;
static volatile long usr1_seen;

static void remember(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void remember(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(me->line[me->cur % MAX_CALLS], LINE, fmt, ap);
	va_end(ap);
}

static void bad(const char *why)
{
	char *l = me->line[me->cur % MAX_CALLS];
	size_t n = strlen(l);

	snprintf(l + n, LINE - n, " [%s]", why);
	if (me->first_bad < 0)
		me->first_bad = me->cur;
	me->bad_errno++;
}

/* A failed call must be -1 with an errno Linux has. */
static void outcome(long r)
{
	char why[32];

	if (r == -1 && (errno < 1 || errno > 133)) {
		snprintf(why, sizeof(why), "bad errno %d", errno);
		bad(why);
	} else if (r < -1) {
		bad("negative result");
	}
}

/* ---- user pointers, good and bad ---- */

static void *any_pointer(void *good, size_t len)
{
	switch (fz_below(10)) {
	case 0: return NULL;
	case 1: return (void *)0xffffffff80000000ULL;         /* the kernel's text */
	case 2: return (void *)0xffff800000001000ULL;         /* the direct map */
	case 3: return (void *)0x0000800000000000ULL;         /* non-canonical */
	case 4: return (void *)0x1000;                        /* unmapped */
	case 5: return page_end + 4096 - (len > 1 ? len / 2 : 1); /* straddles */
	default: return good;
	}
}

/* ---- the calls ---- */

static int any_fd(void)
{
	if (!nfds || fz_below(16) == 0)
		return (int)PICK(-1, 0, 1, 1000, 0x7fffffff);
	return fds[fz_below((uint64_t)nfds)];
}

/* ---- for the mix's calls (mixcalls.c) ---- */

void fuzz_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(me->line[me->cur % MAX_CALLS], LINE, fmt, ap);
	va_end(ap);
}

void fuzz_outcome(long r) { outcome(r); }
int fuzz_any_fd(void) { return any_fd(); }

void *fuzz_any_map(size_t *len)
{
	int n = 0, pick[MAX_FDS];

	for (int i = 0; i < nfds; i++)
		if (maps[i] && map_writable[i])
			pick[n++] = i;
	if (!n)
		return NULL;
	int i = pick[fz_below((uint64_t)n)];
	*len = map_len[i];
	return maps[i];
}

static void do_open(void)
{
	struct perf_event_attr a;
	pid_t pid = (pid_t)PICK(0, 0, 0, -1, 1, (uint64_t)(kids[0] > 0 ? kids[0] : 0));
	int cpu = (int)PICK(-1, -1, 0, 1, 5, 1000);
	int group = fz_below(4) == 0 ? any_fd() : -1;
	unsigned long flags = PICK(0, 0, PERF_FLAG_FD_CLOEXEC, PERF_FLAG_FD_NO_GROUP,
	                           PERF_FLAG_FD_OUTPUT, 1UL << 10);

	fz_random_attr(&a);
	void *p = any_pointer(&a, sizeof(a));
	long r = syscall(__NR_perf_event_open, p, pid, cpu, group, flags);
	/* With a bad pointer the kernel reads whatever lies at p, not the
	 * attr drawn: the line says so. */
	remember("perf_event_open(%p type %u cfg %#llx st %#llx%s, %d, %d, %d, %#lx) = %ld",
	         p, a.type, (unsigned long long)a.config, (unsigned long long)a.sample_type,
	         p == (void *)&a ? "" : " not at p", pid, cpu, group, flags, r);
	outcome(r);
	if (planted && a.type == 99)
		bad("planted");
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
	static uint64_t val;
	int fd = any_fd();
	unsigned long cmd = cmds[fz_below(sizeof(cmds) / sizeof(cmds[0]))];
	unsigned long arg;

	val = PICK(0, 1, 1000, ~0ULL);
	if (cmd == PERF_EVENT_IOC_SET_OUTPUT)
		arg = (unsigned long)(fz_below(3) ? (long)any_fd() : -1L);
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
	static uint64_t buf[512];
	int fd = any_fd();
	size_t len = PICK(0, 8, 16, 24, 512, 4096);
	void *p = any_pointer(buf, len);
	long r = read(fd, p, len);
	remember("read(%d, %p, %zu) = %ld", fd, p, len, r);
	outcome(r);
}

static void do_remap(int i)
{
	long r;

	if (fz_below(2)) {
		r = munmap(maps[i], map_len[i]);
		remember("munmap(%p, %zu) = %ld", maps[i], map_len[i], r);
		maps[i] = NULL;
	} else {
		size_t len = map_len[i] * (1 + fz_below(2));
		void *q = mremap(maps[i], map_len[i], len, MREMAP_MAYMOVE);
		r = q == MAP_FAILED ? -1 : 0;
		remember("mremap(%p, %zu, %zu) = %p", maps[i], map_len[i], len, q);
		if (q != MAP_FAILED) {
			maps[i] = q;
			map_len[i] = len;
		}
	}
	outcome(r);
}

static void do_mmap(void)
{
	int i = nfds ? (int)fz_below((uint64_t)nfds) : -1;
	size_t len = (size_t)PICK(1, 2, 3, 5, 9, 17) * 4096;
	int prot = (int)PICK(PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE, PROT_EXEC);
	int flags = (int)PICK(MAP_SHARED, MAP_SHARED, MAP_PRIVATE);
	long off = (long)PICK(0, 0, 4096);

	if (i < 0)
		return;
	if (maps[i] && fz_below(2)) {
		do_remap(i);
		return;
	}
	void *p = mmap(NULL, len, prot, flags, fds[i], off);
	remember("mmap(%zu, prot %d, flags %d, fd %d, %ld) = %p", len, prot, flags, fds[i],
	         off, p);
	outcome(p == MAP_FAILED ? -1 : 0);
	if (p != MAP_FAILED) {
		if (maps[i])
			munmap(maps[i], map_len[i]);
		maps[i] = p;
		map_len[i] = len;
		map_writable[i] = (prot & PROT_WRITE) != 0;
	}
}

static void do_close(void)
{
	if (!nfds)
		return;
	int i = (int)fz_below((uint64_t)nfds);
	long r = close(fds[i]);
	remember("close(%d) = %ld", fds[i], r);
	outcome(r);
	if (maps[i])
		munmap(maps[i], map_len[i]);
	fds[i] = fds[--nfds];
	maps[i] = maps[nfds];
	map_len[i] = map_len[nfds];
	map_writable[i] = map_writable[nfds];
	maps[nfds] = NULL;
}

static void do_poll(void)
{
	struct pollfd p[2] = { { any_fd(), POLLIN, 0 }, { any_fd(), POLLIN | POLLHUP, 0 } };
	void *where = fz_below(8) ? (void *)p : any_pointer(p, sizeof(p));
	long r = poll(where, 2, (int)PICK(0, 1, 5));
	remember("poll(%p: %d, %d) = %ld", where, p[0].fd, p[1].fd, r);
	outcome(r);
}

static void do_fcntl(void)
{
	int fd = any_fd();
	long r;

	switch (fz_below(4)) {
	case 0:
		r = fcntl(fd, F_SETFL, fz_below(2) ? O_ASYNC : 0);
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
	int op = fz_below(2) ? PR_TASK_PERF_EVENTS_ENABLE : PR_TASK_PERF_EVENTS_DISABLE;
	long r = prctl(op, 0, 0, 0, 0);
	remember("prctl(%s) = %ld", op == PR_TASK_PERF_EVENTS_ENABLE ? "ENABLE" : "DISABLE", r);
	outcome(r);
}

static void do_affinity(void)
{
	cpu_set_t set;
	int cpu = (int)fz_below((uint64_t)ncpu + 1);

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

/* exec this program as an exec child: inherited events (enable_on_exec,
 * remove_on_exec, inherit) meet an exec. */
static void exec_child(void)
{
	char seed[24];
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)fz_next());
	char *argv[] = { "fuzz", "--exec-child", seed, NULL };
	execv(self_exe, argv);
	_exit(127);
}

/* A child that spins on one CPU until killed, exits at once, makes calls
 * of its own (inherited events and all), or execs this program. */
static void do_fork(void)
{
	int slot = -1, how = (int)fz_below(4);

	for (int i = 0; i < MAX_KIDS; i++)
		if (kids[i] <= 0)
			slot = i;
	if (slot < 0) {
		int i = (int)fz_below(MAX_KIDS);
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
		remember("kill+wait child %d", kids[i]);
		kids[i] = 0;
		return;
	}
	uint64_t child_seed = fz_next();
	pid_t c = fork();
	if (c == 0) {
		static struct trace own; /* not the worker's: the runner reads that */
		me = &own;
		fz_seed(child_seed);
		if (how == 0) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET((int)fz_below((uint64_t)ncpu), &set);
			sched_setaffinity(0, sizeof(set), &set);
			for (;;)
				;
		}
		if (how == 2)
			for (int i = 0; i < 20; i++)
				do_prctl(), do_ioctl();
		if (how == 3)
			exec_child();
		_exit(0);
	}
	remember("fork(how %d) = %d", how, c);
	outcome(c);
	kids[slot] = c;
}

/* execve that must fail: a missing program, or bad pointers. */
static void do_exec(void)
{
	static char path[] = "/no/such/program";
	static char *argv[] = { path, NULL };
	void *p = any_pointer(path, sizeof(path));
	void *av = fz_below(2) ? any_pointer(argv, sizeof(argv)) : argv;
	void *ev = fz_below(2) ? any_pointer(argv, sizeof(argv)) : NULL;
	long r = syscall(__NR_execve, p, av, ev);
	remember("execve(%p, %p, %p) = %ld (errno %d)", p, av, ev, r, errno);
	outcome(r);
	if (r != -1)
		bad("execve of a missing program returned");
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen++;
}

/* The kernel's struct sigaction (a libc's differs): only SIG_IGN goes in
 * by the raw call, as a handler would need a restorer. */
struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static void do_signal(void)
{
	struct kernel_sigaction sa = { .handler = SIG_IGN }, old;
	sigset_t set;
	long r;
	int kid = kids[fz_below(MAX_KIDS)];

	switch (fz_below(4)) {
	case 0: {
		int sig = (int)PICK(SIGSTOP, SIGCONT, SIGUSR1, SIGKILL, SIGTERM, 0, 70);
		r = kill(kid > 0 ? kid : 999999, sig);
		remember("kill(child %d, %d) = %ld", kid, sig, r);
		break;
	}
	case 1: {
		int sig = (int)PICK(SIGUSR1, SIGUSR2, SIGIO, SIGTRAP, SIGCHLD, 40, 0);
		r = kill(getpid(), sig);
		remember("kill(self, %d) = %ld", sig, r);
		break;
	}
	case 2: {
		void *act = any_pointer(&sa, sizeof(sa)), *oldp = any_pointer(&old, sizeof(old));
		r = syscall(__NR_rt_sigaction, SIGUSR2, act, oldp, 8);
		remember("rt_sigaction(SIGUSR2, %p, %p) = %ld", act, oldp, r);
		break;
	}
	default: {
		sigemptyset(&set);
		sigaddset(&set, (int)PICK(SIGUSR1, SIGIO, SIGCHLD, SIGKILL));
		int how = (int)PICK(SIG_BLOCK, SIG_UNBLOCK, SIG_SETMASK, 7);
		void *sp = any_pointer(&set, 8), *op = any_pointer(&old, 8);
		r = syscall(__NR_rt_sigprocmask, how, sp, op, 8);
		remember("rt_sigprocmask(%d, %p, %p) = %ld", how, sp, op, r);
		break;
	}
	}
	outcome(r);
}

/* Writes to the perf knobs, in range or not (the runner restores them). */
static void do_sysctl(void)
{
	static const char *const knobs[] = {
		"perf_event_paranoid", "perf_event_max_sample_rate",
		"perf_cpu_time_max_percent", "perf_event_mlock_kb",
		"perf_event_max_stack", "perf_event_max_contexts_per_stack",
	};
	static const char *const values[] = {
		"-1\n", "0\n", "1", "2\n", "3\n", "1000\n", "100000\n", "7", "abc\n",
		"", "99999999999999999999\n", "4294967296\n", "-5000\n",
	};
	char path[96];
	const char *knob = knobs[fz_below(sizeof(knobs) / sizeof(knobs[0]))];
	const char *v = values[fz_below(sizeof(values) / sizeof(values[0]))];

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", knob);
	int fd = open(path, O_WRONLY);
	if (fd < 0) {
		remember("open(%s) = -1 (errno %d)", path, errno);
		outcome(-1);
		return;
	}
	void *buf = fz_below(6) ? (void *)v : any_pointer((void *)v, strlen(v));
	long r = write(fd, buf, strlen(v));
	remember("write(%s, \"%.12s\") = %ld", knob, buf == v ? v : "(bad pointer)", r);
	outcome(r);
	close(fd);
}

static void do_yield(void)
{
	sched_yield();
	remember("sched_yield");
}

static void reap_kids(void)
{
	for (int i = 0; i < MAX_KIDS; i++)
		if (kids[i] > 0 && waitpid(kids[i], NULL, WNOHANG) == kids[i])
			kids[i] = 0;
}

static const struct { void (*fn)(void); const char *name; } kinds[] = {
	{ do_open, "perf_event_open" }, { do_open, "perf_event_open" },
	{ do_open, "perf_event_open" }, { do_open, "perf_event_open" },
	{ do_ioctl, "ioctl" }, { do_ioctl, "ioctl" }, { do_ioctl, "ioctl" },
	{ do_read, "read" }, { do_mmap, "mmap/munmap/mremap" },
	{ do_mmap, "mmap/munmap/mremap" }, { do_close, "close" },
	{ do_poll, "poll" }, { do_fcntl, "fcntl" }, { do_prctl, "prctl" },
	{ do_affinity, "sched_setaffinity" }, { do_fork, "fork" },
	{ do_exec, "execve" }, { do_signal, "signals" }, { do_sysctl, "sysctl" },
	{ do_yield, "sched_yield" },
};

void fuzz_call(uint64_t seed, long i)
{
	fz_seed(seed * 0x100000001b3ULL ^ (uint64_t)i);
	int k = (int)fz_below(sizeof(kinds) / sizeof(kinds[0]));

	me->cur = i;
	me->in = kinds[k].name;
	kinds[k].fn();
	me->calls++;
	me->in = "wait4 (reaping children)";
	reap_kids();
	me->in = NULL;
}

void fuzz_calls_init(void)
{
	/* fds 0-2 are among those it tries: a read of the console would
	 * wait for a key, which is no hang of the kernel's. A worker prints
	 * nothing itself (its trace is in shared memory). */
	int null = open("/dev/null", O_RDWR);
	for (int fd = 0; null > 2 && fd <= 2; fd++)
		dup2(null, fd);
	if (null > 2)
		close(null);
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	ncpu = ncpu < 1 ? 1 : ncpu > 8 ? 8 : ncpu;
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, SIG_IGN);
	signal(SIGIO, SIG_IGN);
	signal(SIGTRAP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	for (int s = 34; s <= 64; s++)
		signal(s, SIG_IGN);
	page_end = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(page_end + 4096, 4096, PROT_NONE);
	me->first_bad = -1;
}

void fuzz_calls_end(void)
{
	for (int i = 0; i < MAX_KIDS; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
			kids[i] = 0;
		}
}

/* After exec: the event fds it inherited are the open ones from 3 up. */
int fuzz_exec_child(uint64_t seed)
{
	static struct trace own;

	me = &own;
	fuzz_calls_init();
	for (int fd = 3; fd < 64 && nfds < MAX_FDS; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			fds[nfds++] = fd;
	fz_seed(seed);
	for (int i = 0; i < 20; i++) {
		me->cur = i;
		switch (fz_below(4)) {
		case 0: do_ioctl(); break;
		case 1: do_read(); break;
		case 2: do_prctl(); break;
		default: do_mmap(); break;
		}
	}
	return 0;
}
