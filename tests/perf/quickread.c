/*
 * quickread.c: read() of a perf fd as baremon's quick path does it (a
 * software event's value, read by its own task, through the descriptor
 * table's one-entry cache; docs/processes.md), and every way a cached
 * descriptor can change meaning: closed and opened again on the same
 * number (a disabled event, other read_formats), dup2 and dup3 of
 * another event or of a pipe over it, close-on-exec, a table shared with
 * another process that changes it. Reads with bad buffers (NULL,
 * unmapped, a kernel address, across a page's end, read-only, a
 * copy-on-write page after fork) and short counts after the cache is
 * warm; a clock's value never goes back; a forked child reads the
 * inherited descriptor of its parent's event; every register but RAX,
 * RCX and R11 kept. The same results on Linux.
 *
 * The exec'd program is this one (/proc/self/exe, else argv[0]), run as
 *   quickread --after-exec FD   FD was close-on-exec: EBADF; an event
 *                               opened now takes FD and reads right
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sched.h>
#include <unistd.h>
#include "perf.h"
#include "../abi/bare_syscall.h"

#define PAGE 4096

static char *self;

static int open_event(uint64_t config, uint64_t read_format, int disabled, int inherit,
		      unsigned long flags)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.read_format = read_format;
	a.disabled = disabled ? 1 : 0;
	a.inherit = inherit ? 1 : 0;
	return perf_open(&a, 0, -1, -1, flags);
}

static int open_clock(void)
{
	return open_event(PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0, 0);
}

/* A page-fault counter that never started: it reads 0. */
static int open_idle(void)
{
	return open_event(PERF_COUNT_SW_PAGE_FAULTS, 0, 1, 0, 0);
}

/* Read twice, so that the second read is a quick one where there is one. */
static uint64_t warm_value(int fd)
{
	perf_value(fd);
	return perf_value(fd);
}

static long sys_read(int fd, uint64_t buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

static void test_reopen(void)
{
	int fd = open_clock(), keep = dup(fd);

	CHECK(fd >= 0 && keep >= 0, "open a task-clock, keep a dup of it");
	work_ns(1000000);
	CHECK(warm_value(fd) > 0, "it reads");
	close(fd);
	uint64_t v;
	CHECK_ERR(read(fd, &v, 8), EBADF, "closed: EBADF");
	int again = open_idle();
	CHECK(again == fd, "a new event takes the same number (%d, %d)", again, fd);
	CHECK(perf_value(again) == 0 && perf_value(again) == 0,
	      "and reads its own count, 0, not the old event's");
	CHECK(perf_value(keep) > 0, "the old event reads on through its dup");
	close(again);
	const uint64_t times = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	uint64_t w[4] = { 0 };
	again = open_event(PERF_COUNT_SW_TASK_CLOCK, times, 0, 0, 0);
	CHECK(again == fd && read(again, w, sizeof(w)) == 24 && w[1] > 0 && w[1] == w[2],
	      "reopened with both times: 24 bytes, enabled = running");
	close(again);
	again = open_event(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_ID, 0, 0, 0);
	uint64_t id = 0;
	CHECK(again == fd && ioctl(again, PERF_EVENT_IOC_ID, &id) == 0 &&
	      read(again, w, sizeof(w)) == 16 && w[1] == id,
	      "reopened with its ID: 16 bytes, the ID");
	close(again);
	again = open_event(PERF_COUNT_SW_TASK_CLOCK, PERF_FORMAT_GROUP, 0, 0, 0);
	CHECK(again == fd && read(again, w, sizeof(w)) == 16 && w[0] == 1 && w[1] > 0,
	      "reopened as a group of one: 16 bytes, nr 1");
	close(again);
	close(keep);
}

/* Each clock is kept alive by a dup, so that a stale cache would still
 * find it counting. */
static void test_dup_over(void)
{
	int fd = open_clock(), idle = open_idle(), p[2], keep[3];
	uint64_t v = 0;

	CHECK(fd >= 0 && idle >= 0 && pipe(p) == 0, "open two events, a pipe");
	keep[0] = dup(fd);
	work_ns(1000000);
	CHECK(warm_value(fd) > 0, "the clock reads");
	CHECK(dup2(idle, fd) == fd && perf_value(fd) == 0 && perf_value(fd) == 0,
	      "dup2 of an idle event over it: reads 0");
	close(fd);
	fd = open_clock();
	keep[1] = dup(fd);
	work_ns(1000000);
	CHECK(fd >= 0 && warm_value(fd) > 0, "a clock again");
	CHECK(write(p[1], "pipebyte", 8) == 8 && dup2(p[0], fd) == fd &&
	      read(fd, &v, 8) == 8 && !memcmp(&v, "pipebyte", 8),
	      "dup2 of a pipe over it: reads the pipe");
	close(fd);
	fd = open_clock();
	keep[2] = dup(fd);
	work_ns(1000000);
	CHECK(fd >= 0 && warm_value(fd) > 0, "a clock again");
	CHECK(dup3(idle, fd, O_CLOEXEC) == fd && perf_value(fd) == 0,
	      "dup3 of an idle event over it: reads 0");
	close(fd);
	close(idle);
	close(p[0]);
	close(p[1]);
	for (int i = 0; i < 3; i++)
		close(keep[i]);
}

static void test_buffers(void)
{
	int fd = open_clock();
	uint64_t *ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	uint64_t v = 0;

	CHECK(fd >= 0 && ro != MAP_FAILED && two != MAP_FAILED, "open, map");
	CHECK(warm_value(fd) > 0, "it reads");
	CHECK_ERR(sys_read(fd, 0, 8), EFAULT, "into NULL");
	CHECK_ERR(sys_read(fd, 0xffff800000000000ULL, 8), EFAULT, "into a kernel address");
	CHECK_ERR(sys_read(fd, (uint64_t)ro, 8), EFAULT, "into a read-only page");
	munmap(two + PAGE, PAGE);
	two[0] = 1;
	CHECK_ERR(sys_read(fd, (uint64_t)(two + PAGE), 8), EFAULT, "into an unmapped page");
	CHECK_ERR(sys_read(fd, (uint64_t)(two + PAGE - 4), 8), EFAULT,
		  "across a page's end into nothing");
	CHECK(sys_read(fd, (uint64_t)(two + PAGE - 8), 8) == 8, "into a page's last 8 bytes");
	CHECK_ERR(read(fd, &v, 7), ENOSPC, "7 bytes: ENOSPC");
	CHECK_ERR(read(fd, &v, 0), ENOSPC, "0 bytes: ENOSPC");
	CHECK(read(fd, &v, 8) == 8 && v > 0, "and then 8 bytes read again");
	munmap(ro, PAGE);
	munmap(two, PAGE);
	close(fd);
}

static void test_monotonic(void)
{
	int fd = open_clock();
	uint64_t first = warm_value(fd), last = first, v;
	int back = 0, bad = 0;

	for (int i = 0; i < 2000; i++) {
		if (read(fd, &v, 8) != 8)
			bad++;
		else if (v < last)
			back++;
		else
			last = v;
	}
	CHECK(!bad && !back && last > first,
	      "2000 reads of a clock: never back, it moves (%llu to %llu, %d back, %d failed)",
	      (unsigned long long)first, (unsigned long long)last, back, bad);
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE");
	uint64_t a = perf_value(fd);
	work_ns(1000000);
	CHECK(a != PERF_BAD_VALUE && perf_value(fd) == a, "disabled, the reads stand still");
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	work_ns(1000000);
	CHECK(perf_value(fd) > a, "and move again");
	close(fd);
}

static uint64_t cow_word;

/* After fork the parent's pages are copy-on-write; a child reads the
 * parent's event through the descriptor it inherited. */
static void test_fork(void)
{
	int fd = open_clock(), p[2];

	CHECK(fd >= 0 && pipe(p) == 0, "open, pipe");
	work_ns(1000000);
	uint64_t before = warm_value(fd);
	cow_word = 0;
	pid_t pid = fork();
	if (pid == 0) {
		uint64_t v = perf_value(fd), w = perf_value(fd);
		char c;
		int ok = v != PERF_BAD_VALUE && v >= before && w >= v;
		_exit(read(p[0], &c, 1) == 1 && ok && cow_word == 0 ? 0 : 1);
	}
	CHECK(pid > 0, "fork");
	CHECK(read(fd, &cow_word, 8) == 8 && cow_word >= before,
	      "the parent reads into a copy-on-write page");
	int st = -1;
	CHECK(write(p[1], "x", 1) == 1 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the child read its parent's event, saw its own page");
	close(fd);
	fd = open_event(PERF_COUNT_SW_TASK_CLOCK, 0, 0, 1, 0);
	before = warm_value(fd);
	pid = fork();
	if (pid == 0) {
		work_ns(3000000);
		_exit(0);
	}
	CHECK(pid > 0 && perf_value(fd) >= before, "an inherited event reads with a child out");
	CHECK(waitpid(pid, &st, 0) == pid && perf_value(fd) >= before + 3000000,
	      "and counts the child's time once it exited");
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* A table shared with another process (CLONE_FILES), which puts a pipe
 * over the cached descriptor. */
static void test_shared(void)
{
	int fd = open_clock(), p[2], q[2];
	uint64_t v = 0;

	CHECK(fd >= 0 && pipe(p) == 0 && pipe(q) == 0, "open, two pipes");
	CHECK(warm_value(fd) > 0, "it reads");
	pid_t pid = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		char c;
		if (read(p[0], &c, 1) != 1 || dup2(q[0], fd) != fd)
			_exit(1);
		_exit(write(q[1], "sharedfd", 8) == 8 ? 0 : 1);
	}
	CHECK(pid > 0 && warm_value(fd) > 0, "clone with CLONE_FILES: it reads");
	int st = -1;
	CHECK(write(p[1], "x", 1) == 1 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the other process put a pipe over it");
	CHECK(read(fd, &v, 8) == 8 && !memcmp(&v, "sharedfd", 8), "it reads the pipe");
	close(fd);
	fd = open_clock();
	CHECK(fd >= 0 && warm_value(fd) > 0, "alone again, a new clock reads");
	close(fd);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
}

/* The child opens a close-on-exec clock of its own, reads it and execs. */
static void test_exec(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open_event(PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0, PERF_FLAG_FD_CLOEXEC);
		char arg[16];
		snprintf(arg, sizeof(arg), "%d", fd);
		/* kept across the exec: a stale cache would find it counting */
		if (fd < 0 || dup(fd) < 0 || warm_value(fd) == PERF_BAD_VALUE)
			_exit(8);
		char *argv[] = { self, "--after-exec", arg, NULL };
		execv("/proc/self/exe", argv);
		execv(self, argv);
		_exit(9);
	}
	int st = -1;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "a close-on-exec clock read, exec: EBADF, then a new event on the number "
	      "reads (status %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static int after_exec(int fd)
{
	uint64_t v;

	if (read(fd, &v, 8) != -1 || errno != EBADF)
		return 1;
	int again = open_idle();
	if (again != fd)
		return 2;
	return perf_value(fd) == 0 && perf_value(fd) == 0 ? 0 : 3;
}

static long bare_read(int fd, uint64_t buf, uint64_t n, const char *what)
{
	const uint64_t a[6] = { (unsigned)fd, buf, n, 0x1010101010101010ULL,
				0x0808080808080808ULL, 0x0909090909090909ULL };
	struct bare_regs r = bare_syscall6(SYS_read, a);

	CHECK(bare_returned_right(&r) && bare_kept(&r, a),
	      "%s: every register but rax, rcx and r11 kept (result %ld)", what, (long)r.rax);
	return (long)r.rax;
}

static void test_registers(void)
{
	int fd = open_clock();
	uint64_t v = 0;

	CHECK(fd >= 0 && warm_value(fd) > 0, "open, read");
	CHECK(bare_read(fd, (uint64_t)&v, 8, "read") == 8 && v > 0, "bare read: 8 bytes");
	CHECK(bare_read(fd, 0, 8, "read into NULL") == -EFAULT, "bare read into NULL: -EFAULT");
	CHECK(bare_read(fd, (uint64_t)&v, 4, "read of 4 bytes") == -ENOSPC,
	      "bare read of 4 bytes: -ENOSPC");
	close(fd);
}

int main(int argc, char **argv)
{
	self = argv[0];
	if (argc == 3 && !strcmp(argv[1], "--after-exec"))
		return after_exec(atoi(argv[2]));
	test_reopen();
	test_dup_over();
	test_buffers();
	test_monotonic();
	test_fork();
	test_shared();
	test_exec();
	test_registers();
	return abi_done("quickread");
}
