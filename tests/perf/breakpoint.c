/*
 * breakpoint.c: PERF_TYPE_BREAKPOINT, the debug registers as perf
 * events. Counting: an execute breakpoint on a function counts its
 * calls; write watchpoints of 1, 2, 4 and 8 bytes count the writes that
 * touch them; read/write ones count reads too; kernel writes into a
 * watched user buffer count unless exclude_kernel. Targets: the calling
 * task, a child by pid (its writes only), inherited copies, a CPU (pid
 * -1, cpu 0). Slots: four per task and CPU that can meet, disabled ones
 * included, then ENOSPC. The open errnos of Linux x86 (type, length,
 * alignment, kernel addresses), PERF_EVENT_IOC_MODIFY_ATTRIBUTES moving
 * a watchpoint and its errnos, and reaching inherited copies (each is
 * moved, disabled with disabled set, enabled again without, as Linux's
 * perf_event_modify_attr does), sysfs's type 5. Sampling: a sample per
 * hit with period 1, ADDR the breakpoint's address, IP the breakpoint
 * itself for execute, the instruction after the access for data.
 *
 * Needs root (per-CPU events, kernel addresses; it sets
 * perf_event_paranoid to 1 for one check and restores it). On a host
 * that opens breakpoints but delivers no hits (perf.h's probe) it says
 * so and skips the checks that need a hit; baremon must deliver them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include "perf.h"

#define N 100
#define KADDR 0xffffffff80000000ULL   /* a kernel address on both kernels */
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define NOBODY 65534

static volatile uint64_t watched[8] __attribute__((aligned(64)));
static volatile uint64_t other_var __attribute__((aligned(64)));

/* What the execute breakpoint watches, called through a pointer the
 * compiler cannot see through. */
__attribute__((noinline)) static void target_fn(void)
{
	__asm__ volatile("");
}
static void (*volatile call_target)(void) = target_fn;

static unsigned char online[1024];
static int ncpu, other_cpu = -1;

static void bp_attr(struct perf_event_attr *a, uint32_t type,
                    volatile const void *addr, uint64_t len)
{
	perf_attr(a, PERF_TYPE_BREAKPOINT, 0);
	a->bp_type = type;
	a->bp_addr = (uint64_t)(uintptr_t)addr;
	a->bp_len = len;
	a->exclude_kernel = 1;
}

/* A user-only breakpoint on the calling task, any CPU. */
static int bp_open(uint32_t type, volatile const void *addr, uint64_t len)
{
	struct perf_event_attr a;

	bp_attr(&a, type, addr, len);
	return perf_open(&a, 0, -1, -1, 0);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void unpin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < ncpu && c < (int)sizeof(online); c++)
		if (online[c])
			CPU_SET(c, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Store v into the len bytes at p, once. */
static void store(volatile void *p, uint64_t len, uint64_t v)
{
	switch (len) {
	case 1: *(volatile uint8_t *)p = (uint8_t)v; break;
	case 2: *(volatile uint16_t *)p = (uint16_t)v; break;
	case 4: *(volatile uint32_t *)p = (uint32_t)v; break;
	default: *(volatile uint64_t *)p = v; break;
	}
}

__attribute__((noinline)) static void write_n(volatile uint64_t *p, int n)
{
	for (int i = 0; i < n; i++)
		*p = (uint64_t)i;
}

static void test_sysfs(void)
{
	char buf[16] = "";
	int fd = open("/sys/bus/event_source/devices/breakpoint/type", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	CHECK(n > 0 && atoi(buf) == PERF_TYPE_BREAKPOINT,
	      "sysfs: devices/breakpoint/type is %d", PERF_TYPE_BREAKPOINT);
}

static void test_execute(void)
{
	int fd = bp_open(HW_BREAKPOINT_X, (void *)(uintptr_t)target_fn, sizeof(long));

	if (!CHECK(fd >= 0, "open an execute breakpoint on a function")) {
		printf("#   errno %d (%s)\n", errno, strerror(errno));
		return;
	}
	for (int i = 0; i < N; i++)
		call_target();
	CHECK_HIT(perf_value(fd) == N, "execute: %d calls count %d (got %llu)", N,
	      N, (unsigned long long)perf_value(fd));
	close(fd);

	struct perf_event_attr a;
	bp_attr(&a, HW_BREAKPOINT_X, (void *)(uintptr_t)target_fn, sizeof(long));
	a.exclude_user = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	for (int i = 0; i < N; i++)
		call_target();
	CHECK(fd >= 0 && perf_value(fd) == 0,
	      "execute with exclude_user: the calls go on, none counted");
	close(fd);
}

/* A watchpoint of len bytes at watched[1]: writes of those bytes count,
 * writes of the bytes beside them do not. */
static void test_write_len(uint64_t len)
{
	volatile uint8_t *base = (volatile uint8_t *)&watched[1];
	int fd = bp_open(HW_BREAKPOINT_W, base, len);

	if (!CHECK(fd >= 0, "open a write watchpoint of %llu bytes",
	           (unsigned long long)len))
		return;
	for (int i = 0; i < N; i++)
		store(base, len, (uint64_t)i);
	base[-1] = 1;                 /* the byte before */
	if (len < 8)
		base[len] = 1;        /* the byte after */
	for (int i = 0; i < N; i++)
		(void)*(volatile uint64_t *)base;   /* reads */
	CHECK_HIT(perf_value(fd) == N, "write len %llu: %d writes count %d, the "
	      "bytes beside and reads do not (got %llu)",
	      (unsigned long long)len, N, N, (unsigned long long)perf_value(fd));
	close(fd);
}

static void test_read_write(void)
{
	int fd = bp_open(HW_BREAKPOINT_RW, &watched[2], 8);
	uint64_t sum = 0;

	if (!CHECK(fd >= 0, "open a read/write watchpoint"))
		return;
	for (int i = 0; i < N; i++)
		sum += watched[2];
	write_n(&watched[2], N / 2);
	CHECK_HIT(perf_value(fd) == N + N / 2,
	      "read/write: %d reads and %d writes count %d (got %llu)", N,
	      N / 2, N + N / 2, (unsigned long long)perf_value(fd));
	close(fd);
	(void)sum;
}

/* A child waiting on a pipe: it writes watched[3] n times when told. */
static pid_t child_writer(int n, int *go)
{
	int p[2];
	pid_t c;

	if (pipe(p))
		return -1;
	c = fork();
	if (c == 0) {
		char x;
		close(p[1]);
		if (read(p[0], &x, 1) == 1)
			write_n(&watched[3], n);
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return c;
}

static void release(pid_t c, int go)
{
	if (write(go, "x", 1) != 1)
		kill(c, SIGKILL);
	close(go);
	waitpid(c, NULL, 0);
}

static void test_child_pid(void)
{
	int go;
	pid_t c = child_writer(N, &go);
	struct perf_event_attr a;

	bp_attr(&a, HW_BREAKPOINT_W, &watched[3], 8);
	int fd = perf_open(&a, c, -1, -1, 0);
	CHECK(fd >= 0, "open a watchpoint on a child (pid)");
	write_n(&watched[3], 7);      /* ours: not the child's */
	release(c, go);
	CHECK_HIT(perf_value(fd) == N, "the child's %d writes count, not ours "
	      "(got %llu)", N, (unsigned long long)perf_value(fd));
	close(fd);
}

static void test_inherit(int inherit)
{
	struct perf_event_attr a;
	int go, fd;
	pid_t c;

	bp_attr(&a, HW_BREAKPOINT_W, &watched[3], 8);
	a.inherit = (uint64_t)inherit;
	fd = perf_open(&a, 0, -1, -1, 0);
	c = child_writer(N, &go);
	release(c, go);
	write_n(&watched[3], 5);
	CHECK_HIT(fd >= 0 && perf_value(fd) == (uint64_t)(5 + (inherit ? N : 0)),
	      "%s: a child's %d writes %s (got %llu)",
	      inherit ? "inherit" : "no inherit", N,
	      inherit ? "add to ours" : "are not ours",
	      (unsigned long long)perf_value(fd));
	close(fd);
}

static void test_cpu_event(void)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, &watched[4], 8);
	pin(0);
	fd = perf_open(&a, -1, 0, -1, 0);
	if (!CHECK(fd >= 0, "open a watchpoint on CPU 0 (pid -1, cpu 0)")) {
		printf("#   errno %d (%s)\n", errno, strerror(errno));
		unpin();
		return;
	}
	write_n(&watched[4], N);
	CHECK_HIT(perf_value(fd) == N, "on CPU 0: %d writes count %d (got %llu)",
	      N, N, (unsigned long long)perf_value(fd));
	if (other_cpu >= 0 && pin(other_cpu) == 0) {
		write_n(&watched[4], 9);
		pin(0);
		CHECK_HIT(perf_value(fd) == N, "writes on CPU %d do not count",
		      other_cpu);
	}
	unpin();
	close(fd);
}

static void close_all(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Four on the task, disabled or not; the fifth anywhere it could meet
 * them is ENOSPC. */
static void test_task_slots(void)
{
	struct perf_event_attr a;
	int fds[4];

	for (int i = 0; i < 4; i++) {
		bp_attr(&a, HW_BREAKPOINT_W, &watched[i], 8);
		a.disabled = (uint64_t)(i & 1);
		fds[i] = perf_open(&a, 0, -1, -1, 0);
	}
	CHECK(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0 && fds[3] >= 0,
	      "four breakpoints on one task (two disabled)");
	CHECK_ERR(bp_open(HW_BREAKPOINT_W, &watched[4], 8), ENOSPC,
	          "a fifth on the task");
	CHECK_ERR(bp_open(HW_BREAKPOINT_X, (void *)(uintptr_t)target_fn, 8),
	          ENOSPC, "a fifth, execute");
	bp_attr(&a, HW_BREAKPOINT_W, &watched[4], 8);
	a.disabled = 1;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), ENOSPC, "a fifth, disabled");
	CHECK_ERR(perf_open(&a, -1, 0, -1, 0), ENOSPC,
	          "one on CPU 0, where the task's four may run");
	close(fds[1]);
	fds[1] = bp_open(HW_BREAKPOINT_W, &watched[4], 8);
	CHECK(fds[1] >= 0, "after closing one, another fits");
	close_all(fds, 4);
}

/* Four on CPU 0: a task breakpoint that could run there is ENOSPC, one
 * bound to another CPU fits. */
static void test_cpu_slots(void)
{
	struct perf_event_attr a;
	int fds[4], fd;

	bp_attr(&a, HW_BREAKPOINT_W, &watched[0], 8);
	for (int i = 0; i < 4; i++)
		fds[i] = perf_open(&a, -1, 0, -1, 0);
	CHECK(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0 && fds[3] >= 0,
	      "four breakpoints on CPU 0");
	CHECK_ERR(perf_open(&a, -1, 0, -1, 0), ENOSPC, "a fifth on CPU 0");
	CHECK_ERR(perf_open(&a, 0, 0, -1, 0), ENOSPC,
	          "one on the task bound to CPU 0");
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), ENOSPC,
	          "one on the task, any CPU (it may run on CPU 0)");
	if (other_cpu >= 0) {
		fd = perf_open(&a, 0, other_cpu, -1, 0);
		CHECK(fd >= 0, "one on the task bound to CPU %d fits", other_cpu);
		if (fd >= 0)
			close(fd);
	}
	close_all(fds, 4);
}

/* Slots are per task: a child's four leave ours free, but no CPU
 * breakpoint fits beside either. */
static void test_slots_per_task(void)
{
	int go, mine[4], theirs[4];
	pid_t c = child_writer(0, &go);
	struct perf_event_attr a;

	bp_attr(&a, HW_BREAKPOINT_W, &watched[0], 8);
	for (int i = 0; i < 4; i++) {
		theirs[i] = perf_open(&a, c, -1, -1, 0);
		mine[i] = perf_open(&a, 0, -1, -1, 0);
	}
	CHECK(theirs[3] >= 0 && mine[3] >= 0,
	      "four on a child and four on ourselves");
	CHECK_ERR(perf_open(&a, -1, 0, -1, 0), ENOSPC,
	          "none on CPU 0 beside them");
	close_all(mine, 4);
	CHECK_ERR(perf_open(&a, -1, 0, -1, 0), ENOSPC,
	          "nor beside the child's alone");
	close_all(theirs, 4);
	int fd = perf_open(&a, -1, 0, -1, 0);
	CHECK(fd >= 0, "with all closed, CPU 0 has room");
	if (fd >= 0)
		close(fd);
	release(c, go);
}

static void test_bad_attrs(void)
{
	volatile void *w = &watched[5];
	struct perf_event_attr a;

	CHECK_ERR(bp_open(HW_BREAKPOINT_EMPTY, w, 8), EINVAL, "bp_type 0");
	CHECK_ERR(bp_open(HW_BREAKPOINT_R, w, 8), EINVAL,
	          "read-only (x86 has none)");
	CHECK_ERR(bp_open(HW_BREAKPOINT_INVALID, w, 8), EINVAL,
	          "read/write/execute");
	CHECK_ERR(bp_open(HW_BREAKPOINT_X | HW_BREAKPOINT_W, w, 8), EINVAL,
	          "write/execute");
	CHECK_ERR(bp_open(8, w, 8), EINVAL, "an unknown bp_type bit");
	CHECK_ERR(bp_open(HW_BREAKPOINT_X, (void *)(uintptr_t)target_fn, 4),
	          EINVAL, "execute of length 4 (must be sizeof(long))");
	int fd = bp_open(HW_BREAKPOINT_X, (char *)(uintptr_t)target_fn + 1, 8);
	CHECK(fd >= 0, "execute at an odd address");
	if (fd >= 0)
		close(fd);
	CHECK_ERR(bp_open(HW_BREAKPOINT_W, w, 0), EINVAL, "length 0");
	CHECK_ERR(bp_open(HW_BREAKPOINT_W, w, 3), EINVAL, "length 3");
	CHECK_ERR(bp_open(HW_BREAKPOINT_W, (char *)w + 2, 4), EINVAL,
	          "length 4 not aligned");
	CHECK_ERR(bp_open(HW_BREAKPOINT_W, (char *)w + 4, 8), EINVAL,
	          "length 8 not aligned");
	CHECK_ERR(bp_open(HW_BREAKPOINT_W, (char *)w + 1, 2), EINVAL,
	          "length 2 not aligned");
	CHECK_ERR(bp_open(HW_BREAKPOINT_W, &watched[1], 16), EINVAL,
	          "length 16 not aligned");
	errno = 0;
	fd = bp_open(HW_BREAKPOINT_W, &watched[0], 16);
	CHECK(fd >= 0 || errno == EOPNOTSUPP,
	      "length 16 aligned: EOPNOTSUPP without AMD's range breakpoints");
	if (fd >= 0)
		close(fd);
	bp_attr(&a, HW_BREAKPOINT_W, w, 8);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EOPNOTSUPP,
	          "branch stack sampling");
}

/* Read /dev/zero into watched[6..7] ten times: the kernel's writes. */
static void kernel_writes(void)
{
	int z = open("/dev/zero", O_RDONLY);

	for (int i = 0; i < 10; i++)
		if (read(z, (void *)&watched[6], 16) != 16)
			break;
	close(z);
}

static void test_kernel_writes(void)
{
	struct perf_event_attr a;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, &watched[6], 8);
	a.exclude_kernel = 0;
	fd = perf_open(&a, 0, -1, -1, 0);
	kernel_writes();
	CHECK_HIT(fd >= 0 && perf_value(fd) > 0 && perf_value(fd) != PERF_BAD_VALUE,
	      "the kernel's writes into a watched buffer count (%llu)",
	      (unsigned long long)perf_value(fd));
	close(fd);

	fd = bp_open(HW_BREAKPOINT_W, &watched[6], 8);
	kernel_writes();
	CHECK(fd >= 0 && perf_value(fd) == 0, "with exclude_kernel they do not");
	close(fd);

	a.exclude_user = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	write_n(&watched[6], N);
	CHECK(fd >= 0 && perf_value(fd) == 0,
	      "exclude_user: our own writes do not count");
	kernel_writes();
	CHECK_HIT(perf_value(fd) > 0 && perf_value(fd) != PERF_BAD_VALUE,
	          "exclude_user: the kernel's do");
	close(fd);
}

static int put_text(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = fd >= 0 ? write(fd, s, strlen(s)) : -1;

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* In a child, as nobody: a kernel address is EPERM, a user one opens. */
static void as_nobody(long unused)
{
	struct perf_event_attr a;

	(void)unused;
	if (!CHECK(setuid(NOBODY) == 0, "setuid(%d)", NOBODY))
		return;
	bp_attr(&a, HW_BREAKPOINT_W, (void *)KADDR, 8);
	a.exclude_kernel = 0;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EPERM,
	          "unprivileged: a kernel address");
	bp_attr(&a, HW_BREAKPOINT_W, &watched[0], 8);
	a.exclude_kernel = 0;
	CHECK(perf_open(&a, 0, -1, -1, 0) >= 0,
	      "unprivileged: a user address opens");
}

/* At perf_event_paranoid 1, which lets nobody count its own kernel side,
 * restored afterwards. */
static void test_unprivileged(void)
{
	char saved[16] = "2";
	int fd = open(PARANOID, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, saved, sizeof(saved) - 1) : -1;

	if (fd >= 0)
		close(fd);
	saved[n > 0 ? n : 1] = 0;
	if (!CHECK(put_text(PARANOID, "1") == 0, "perf_event_paranoid set to 1"))
		return;
	in_child(as_nobody, 0, "as nobody");
	put_text(PARANOID, saved);
}

static void test_kernel_addresses(void)
{
	struct perf_event_attr a;
	int fd;

	CHECK_ERR(bp_open(HW_BREAKPOINT_W, (void *)KADDR, 8), EINVAL,
	          "a kernel address with exclude_kernel");
	bp_attr(&a, HW_BREAKPOINT_W, (void *)KADDR, 8);
	a.exclude_kernel = 0;
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "root: a kernel address without exclude_kernel");
	if (fd >= 0)
		close(fd);
	bp_attr(&a, HW_BREAKPOINT_X, (void *)KADDR, 8);
	a.exclude_kernel = 0;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL,
	          "root: execute at a kernel address");
	fd = bp_open(HW_BREAKPOINT_W, (void *)(0x7ffffffff000ULL - 8), 8);
	CHECK(fd >= 0, "the last 8 bytes below the kernel are user's");
	if (fd >= 0)
		close(fd);
	test_unprivileged();
}

static int modify(int fd, struct perf_event_attr *a)
{
	return ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, a);
}

static void test_modify_errors(int fd, const struct perf_event_attr *a)
{
	struct perf_event_attr b;

	b = *a;
	b.exclude_user = 1;
	CHECK_ERR(modify(fd, &b), EINVAL, "modify: another field changed");
	b = *a;
	b.bp_len = 3;
	CHECK_ERR(modify(fd, &b), EINVAL, "modify: length 3");
	b = *a;
	b.bp_type = HW_BREAKPOINT_EMPTY;
	CHECK_ERR(modify(fd, &b), EINVAL, "modify: bp_type 0");
	b = *a;
	b.bp_addr = KADDR;
	CHECK_ERR(modify(fd, &b), EINVAL, "modify: kernel address, exclude_kernel");
	b = *a;
	b.type = PERF_TYPE_SOFTWARE;
	CHECK_ERR(modify(fd, &b), EINVAL, "modify: another type");
	b = *a;
	b.size = 4096 + 8;
	CHECK_ERR(modify(fd, &b), E2BIG, "modify: size beyond a page");
	CHECK_ERR(ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, NULL), EFAULT,
	          "modify: NULL attr");
}

static void test_modify(void)
{
	struct perf_event_attr a, b;
	int fd;

	bp_attr(&a, HW_BREAKPOINT_W, &watched[0], 8);
	fd = perf_open(&a, 0, -1, -1, 0);
	write_n(&watched[0], 3);
	b = a;
	b.bp_addr = (uint64_t)(uintptr_t)&other_var;
	CHECK(fd >= 0 && modify(fd, &b) == 0, "modify: move to another variable");
	write_n(&watched[0], 5);
	write_n(&other_var, 4);
	CHECK_HIT(perf_value(fd) == 7, "modify: 3 writes before, 4 to the new "
	      "one after, none to the old (got %llu)",
	      (unsigned long long)perf_value(fd));
	test_modify_errors(fd, &b);
	write_n(&other_var, 1);
	CHECK_HIT(perf_value(fd) == 8, "modify: failures left it counting");

	b.bp_type = HW_BREAKPOINT_RW;
	CHECK(modify(fd, &b) == 0, "modify: to read/write");
	(void)other_var;
	CHECK_HIT(perf_value(fd) == 9, "modify: a read counts now");
	b.disabled = 1;
	CHECK(modify(fd, &b) == 0, "modify: disabled");
	write_n(&other_var, 2);
	CHECK_HIT(perf_value(fd) == 9, "modify: disabled, it stops");
	b.disabled = 0;
	b.bp_type = HW_BREAKPOINT_X;
	b.bp_addr = (uint64_t)(uintptr_t)target_fn;
	CHECK(modify(fd, &b) == 0, "modify: to execute, enabled");
	call_target();
	CHECK_HIT(perf_value(fd) == 10, "modify: enabled again, a call counts");
	close(fd);

	fd = perf_sw(PERF_COUNT_SW_TASK_CLOCK, 0);
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	CHECK_ERR(modify(fd, &a), EINVAL, "modify: a software event");
	close(fd);
}

/* A child forked with fd's inherited copy on watched[1]: told to go, it
 * writes other_var N times and watched[1] 3 times. */
static pid_t child_mover(int *go)
{
	int p[2];
	pid_t c;

	if (pipe(p))
		return -1;
	c = fork();
	if (c == 0) {
		char x;
		close(p[1]);
		if (read(p[0], &x, 1) == 1) {
			write_n(&other_var, N);
			write_n(&watched[1], 3);
		}
		_exit(0);
	}
	close(p[0]);
	*go = p[1];
	return c;
}

/* MODIFY on an inherited event, with a child's copy live: moved to
 * other_var (the child's N writes there count); disabled, then (after
 * IOC_DISABLE stopped the copies) enabled by a modify without it. */
static void test_modify_inherit(void)
{
	struct perf_event_attr a, b;
	int fd, go;
	pid_t c;

	bp_attr(&a, HW_BREAKPOINT_W, &watched[1], 8);
	a.inherit = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	if (!CHECK(fd >= 0, "modify inherit: open"))
		return;
	b = a;
	b.bp_addr = (uint64_t)(uintptr_t)&other_var;
	c = child_mover(&go);
	CHECK(modify(fd, &b) == 0, "modify inherit: move with a child's copy");
	release(c, go);
	CHECK_HIT(perf_value(fd) == N, "modify inherit: the copy moved: the "
	      "child's %d writes to the new address count, none to the old "
	      "(got %llu)", N, (unsigned long long)perf_value(fd));

	c = child_mover(&go);
	b.disabled = 1;
	CHECK(modify(fd, &b) == 0, "modify inherit: disabled");
	release(c, go);
	CHECK_HIT(perf_value(fd) == N, "modify inherit: the copy is disabled "
	      "too (got %llu)", (unsigned long long)perf_value(fd));

	b.disabled = 0;
	CHECK(modify(fd, &b) == 0, "modify inherit: enabled");
	uint64_t before = perf_value(fd);
	c = child_mover(&go);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	CHECK(modify(fd, &b) == 0, "modify inherit: enabled after IOC_DISABLE");
	release(c, go);
	CHECK_HIT(perf_value(fd) - before == N, "modify inherit: the copy is "
	      "enabled again: the child's %d writes count (got %llu)", N,
	      (unsigned long long)(perf_value(fd) - before));
	close(fd);
}

#define RING_PAGES 8

struct sample_ip_addr {
	struct perf_event_header h;
	uint64_t ip, addr;
};

/* Samples in fd's ring (mapped at meta): how many, and how many have
 * ADDR == addr and an IP ip_ok accepts. */
static int count_samples(struct perf_event_mmap_page *meta, uint64_t addr,
                         int (*ip_ok)(uint64_t), int *good)
{
	unsigned char *data = (unsigned char *)meta + meta->data_offset;
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t size = meta->data_size, pos = 0;
	int n = 0;

	*good = 0;
	while (pos < head && head <= size) {
		struct sample_ip_addr s;
		memcpy(&s.h, data + pos, sizeof(s.h));
		if (s.h.size < sizeof(s.h) || pos + s.h.size > size)
			break;
		if (s.h.type == PERF_RECORD_SAMPLE && s.h.size == sizeof(s)) {
			memcpy(&s, data + pos, sizeof(s));
			n++;
			*good += s.addr == addr && ip_ok(s.ip);
		}
		pos += s.h.size;
	}
	return n;
}

static int ip_is_target(uint64_t ip)
{
	return ip == (uint64_t)(uintptr_t)target_fn;
}

/* A data breakpoint traps after the access: within write_n. */
static int ip_in_writer(uint64_t ip)
{
	return ip > (uint64_t)(uintptr_t)write_n &&
	       ip - (uint64_t)(uintptr_t)write_n < 512;
}

static void sample_one(uint32_t type, volatile void *addr, uint64_t len,
                       int (*ip_ok)(uint64_t), const char *what)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t map_len = (size_t)(1 + RING_PAGES) * (size_t)page;
	struct perf_event_attr a;
	int fd, n, good;
	void *p;

	bp_attr(&a, type, addr, len);
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	a.disabled = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	p = fd >= 0 ? mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
	            : MAP_FAILED;
	if (!CHECK(p != MAP_FAILED, "%s: open with sample_period 1 and map", what)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	if (type == HW_BREAKPOINT_X)
		for (int i = 0; i < 10; i++)
			call_target();
	else
		write_n(addr, 10);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	n = count_samples(p, (uint64_t)(uintptr_t)addr, ip_ok, &good);
	CHECK_HIT(n == 10 && good == 10, "%s: 10 hits, 10 samples with ADDR the "
	      "breakpoint's and the expected IP (%d samples, %d good)", what, n,
	      good);
	munmap(p, map_len);
	close(fd);
}

static void test_sampling(void)
{
	sample_one(HW_BREAKPOINT_X, (void *)(uintptr_t)target_fn, sizeof(long),
	           ip_is_target, "sample execute");
	sample_one(HW_BREAKPOINT_W, &watched[7], 8, ip_in_writer,
	           "sample write");
}

int main(void)
{
	if (geteuid() != 0)
		abi_note("not root: per-CPU events and kernel addresses need root");
	ncpu = cpu_list("/sys/devices/system/cpu/online", online,
	                (int)sizeof(online));
	for (int c = 1; c < ncpu && c < (int)sizeof(online); c++)
		if (online[c] && other_cpu < 0)
			other_cpu = c;
	bp_hits_checked();
	test_sysfs();
	test_execute();
	for (uint64_t len = 1; len <= 8; len *= 2)
		test_write_len(len);
	test_read_write();
	test_child_pid();
	test_inherit(0);
	test_inherit(1);
	test_cpu_event();
	test_task_slots();
	test_cpu_slots();
	test_slots_per_task();
	test_bad_attrs();
	test_kernel_writes();
	test_kernel_addresses();
	test_modify();
	test_modify_inherit();
	test_sampling();
	return abi_done("breakpoint");
}
