/*
 * leanpath.c: read() and the ENABLE/DISABLE/RESET ioctls of a counting
 * event in the cases baremon's lean system-call path finishes itself and
 * in those it hands to the full path (docs/processes.md): the same
 * results either way, as on Linux. Reads in each layout and buffer size,
 * into a page not yet touched, a read-only page, a page's end, NULL and a
 * kernel address; bad descriptors, descriptors of another kind, and the
 * upper halves of unsigned int arguments; one inode for all event files
 * (Linux's anon inode); every register but RAX, RCX and
 * R11 kept; calls from a signal handler, signals delivered to a loop of
 * such calls, and a descriptor table shared with another process.
 * What each kind of event reads and how it takes ENABLE, DISABLE and
 * RESET, whichever path does it: a software event that is not a clock,
 * an event bound to another CPU, a group's leader and member, an
 * inherited event with a live and an exited child, an event of a task
 * that exited, reads into copy-on-write pages after fork, and the
 * control page after RESET.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <linux/sched.h>
#include <unistd.h>
#include "perf.h"
#include "../abi/bare_syscall.h"

#define PAGE 4096

static int open_clock(uint64_t read_format, uint64_t period)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.read_format = read_format;
	a.sample_period = period;
	return perf_open(&a, 0, -1, -1, 0);
}

/* read(2) by number: the buffers here are meant to be bad. */
static long sys_read(int fd, uint64_t buf, size_t n)
{
	return syscall(SYS_read, fd, buf, n);
}

static void *map(int prot)
{
	void *p = mmap(NULL, PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void test_layouts(void)
{
	const uint64_t times = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd = open_clock(0, 0), tfd = open_clock(times, 0);
	uint64_t v[8] = { 0 }, w[8] = { 0 };

	CHECK(fd >= 0 && tfd >= 0, "open two task-clock events");
	CHECK(read(fd, v, sizeof(v)) == 8, "read: a value alone is 8 bytes (of 64 offered)");
	work_ns(1000000);
	CHECK(read(fd, w, 8) == 8 && w[0] > v[0], "it counts on (%llu, %llu)",
	      (unsigned long long)v[0], (unsigned long long)w[0]);
	CHECK(read(tfd, v, 24) == 24 && v[0] > 0 && v[1] > 0 && v[1] == v[2],
	      "with both times: 24 bytes, enabled = running (%llu, %llu)",
	      (unsigned long long)v[1], (unsigned long long)v[2]);
	/* RESET of a running clock: what it reads next is time since the
	 * RESET, never the time since it was enabled. */
	work_ns(5000000);
	uint64_t t0 = now_ns();
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0 && read(fd, w, 8) == 8,
	      "RESET, read");
	uint64_t t1 = now_ns();
	CHECK(w[0] <= t1 - t0, "after RESET it counts from the RESET (%llu ns of %llu)",
	      (unsigned long long)w[0], (unsigned long long)(t1 - t0));
	CHECK_ERR(read(fd, v, 4), ENOSPC, "read of 4 bytes");
	CHECK_ERR(read(fd, v, 0), ENOSPC, "read of 0 bytes");
	CHECK_ERR(read(tfd, v, 16), ENOSPC, "read of 16 bytes with both times");
	close(fd);
	close(tfd);
}

static void test_buffers(void)
{
	int fd = open_clock(0, 0);
	uint64_t *fresh = map(PROT_READ | PROT_WRITE), *ro = map(PROT_READ);
	char *two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(fd >= 0 && fresh && ro && two != MAP_FAILED, "open, map");
	CHECK(read(fd, fresh, 8) == 8 && *fresh > 0,
	      "read into a page not touched before: 8 bytes, %llu",
	      (unsigned long long)*fresh);
	CHECK_ERR(sys_read(fd, (uint64_t)ro, 8), EFAULT, "read into a read-only page");
	CHECK_ERR(sys_read(fd, 0, 8), EFAULT, "read into NULL");
	CHECK_ERR(sys_read(fd, 0xffff800000000000ULL, 8), EFAULT,
		  "read into a kernel address");
	munmap(two + PAGE, PAGE);
	two[0] = 1;
	CHECK_ERR(sys_read(fd, (uint64_t)(two + PAGE - 4), 8), EFAULT, "read across a page's end into nothing");
	close(fd);
	munmap(fresh, PAGE);
	munmap(ro, PAGE);
	munmap(two, PAGE);
}

static void test_descriptors(void)
{
	int fd = open_clock(0, 0), closed = open_clock(0, 0), p[2];
	uint64_t v = 0;
	char c[4] = { 0 };

	CHECK(fd >= 0 && closed >= 0 && pipe(p) == 0, "open, pipe");
	close(closed);
	CHECK_ERR(read(closed, &v, 8), EBADF, "read of a closed descriptor");
	CHECK_ERR(read(-1, &v, 8), EBADF, "read of -1");
	CHECK_ERR(ioctl(closed, PERF_EVENT_IOC_ENABLE, 0), EBADF, "ENABLE on a closed descriptor");
	CHECK_ERR(ioctl(-1, PERF_EVENT_IOC_RESET, 0), EBADF, "RESET on -1");
	CHECK_ERR(ioctl(p[0], PERF_EVENT_IOC_DISABLE, 0), ENOTTY, "DISABLE on a pipe");
	CHECK_ERR(ioctl(p[0], PERF_EVENT_IOC_ENABLE, 0), ENOTTY, "ENABLE on a pipe");
	CHECK(write(p[1], "abc", 3) == 3 && read(p[0], c, 4) == 3 && !strcmp(c, "abc"),
	      "read of a pipe reads the pipe");
	/* fd and cmd are unsigned int: the register's upper half is ignored. */
	CHECK(syscall(SYS_read, (1ULL << 32) | (unsigned)fd, &v, 8) == 8 && v > 0,
	      "read with bits above the unsigned int fd");
	CHECK(syscall(SYS_ioctl, fd, (1ULL << 32) | PERF_EVENT_IOC_DISABLE, 0) == 0,
	      "DISABLE with bits above the unsigned int cmd");
	uint64_t a = perf_value(fd);
	work_ns(1000000);
	CHECK(a != PERF_BAD_VALUE && perf_value(fd) == a, "and the count stands still");
	CHECK(syscall(SYS_ioctl, (1ULL << 32) | (unsigned)fd, PERF_EVENT_IOC_ENABLE, 0) == 0,
	      "ENABLE with bits above the unsigned int fd");
	work_ns(1000000);
	CHECK(perf_value(fd) > a, "and it counts again");
	/* Every event's file is on one anonymous inode, as Linux's. */
	struct stat s1, s2;
	CHECK(fstat(fd, &s1) == 0 && fstat(closed = open_clock(0, 0), &s2) == 0 &&
	      s1.st_ino == s2.st_ino && s1.st_dev == s2.st_dev,
	      "two events' files share one inode (%llu)", (unsigned long long)s1.st_ino);
	close(closed);
#ifdef O_PATH
	int path = open("/", O_PATH);
	CHECK_ERR(read(path, &v, 8), EBADF, "read of an O_PATH descriptor");
	CHECK_ERR(ioctl(path, PERF_EVENT_IOC_ENABLE, 0), EBADF, "ENABLE on an O_PATH descriptor");
	close(path);
#endif
	close(fd);
	close(p[0]);
	close(p[1]);
}

/*
 * A bare SYSCALL with three arguments and a pattern in every other
 * register the kernel must keep: the result in RAX, the return address
 * in RCX, RFLAGS in R11, everything else as it was.
 */
static long bare_syscall(long nr, uint64_t a0, uint64_t a1, uint64_t a2, const char *what)
{
	const uint64_t a[6] = { a0, a1, a2, 0x1010101010101010ULL, 0x0808080808080808ULL,
	                        0x0909090909090909ULL };
	struct bare_regs r = bare_syscall6(nr, a);

	CHECK(bare_returned_right(&r) && bare_kept(&r, a),
	      "%s: every register but rax, rcx and r11 kept (result %ld)", what, (long)r.rax);
	return (long)r.rax;
}

static void test_registers(void)
{
	int fd = open_clock(0, 0), p[2];
	uint64_t v = 0, *fresh = map(PROT_READ | PROT_WRITE);

	CHECK(fd >= 0 && fresh && pipe(p) == 0, "open, map, pipe");
	CHECK(bare_syscall(SYS_read, (unsigned)fd, (uint64_t)&v, 8, "read") == 8 && v > 0,
	      "bare read: 8 bytes");
	CHECK(bare_syscall(SYS_read, (unsigned)fd, (uint64_t)fresh, 8, "read into a fresh page") == 8,
	      "bare read into a fresh page: 8 bytes");
	CHECK(bare_syscall(SYS_read, (unsigned)fd, 0, 8, "read into NULL") == -EFAULT,
	      "bare read into NULL: -EFAULT");
	CHECK(bare_syscall(SYS_ioctl, (unsigned)fd, PERF_EVENT_IOC_DISABLE, 0, "DISABLE") == 0 &&
	      bare_syscall(SYS_ioctl, (unsigned)fd, PERF_EVENT_IOC_RESET, 0, "RESET") == 0 &&
	      bare_syscall(SYS_ioctl, (unsigned)fd, PERF_EVENT_IOC_ENABLE, 0, "ENABLE") == 0,
	      "bare DISABLE, RESET, ENABLE: 0");
	CHECK(bare_syscall(SYS_ioctl, (unsigned)p[0], PERF_EVENT_IOC_ENABLE, 0, "ENABLE on a pipe") ==
	      -ENOTTY, "bare ENABLE on a pipe: -ENOTTY");
	close(fd);
	close(p[0]);
	close(p[1]);
	munmap(fresh, PAGE);
}

/* ---- signals ---- */

static int sig_fd;
static volatile int handled, handler_ok, ticks;

static void on_usr1(int sig)
{
	uint64_t a = 0, b = 1;

	(void)sig;
	handled++;
	handler_ok = read(sig_fd, &a, 8) == 8 && a > 0 &&
		     ioctl(sig_fd, PERF_EVENT_IOC_DISABLE, 0) == 0 &&
		     read(sig_fd, &a, 8) == 8 && read(sig_fd, &b, 8) == 8 && a == b &&
		     ioctl(sig_fd, PERF_EVENT_IOC_RESET, 0) == 0 &&
		     read(sig_fd, &a, 8) == 8 && a == 0 &&
		     ioctl(sig_fd, PERF_EVENT_IOC_ENABLE, 0) == 0;
}

static void on_alarm(int sig)
{
	(void)sig;
	ticks++;
}

static void catch(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigaction(sig, &sa, NULL);
}

static void test_signals(void)
{
	sig_fd = open_clock(0, 0);
	CHECK(sig_fd >= 0, "open");
	catch(SIGUSR1, on_usr1);
	kill(getpid(), SIGUSR1);
	CHECK(handled == 1 && handler_ok,
	      "read, DISABLE, RESET, ENABLE from a signal handler");
	work_ns(1000000);
	CHECK(perf_value(sig_fd) > 0, "the event counts again after the handler");

	/* A timer's signals reach a loop that only reads and resets. */
	struct itimerval it = { { 0, 2000 }, { 0, 2000 } }, off = { { 0, 0 }, { 0, 0 } };
	uint64_t start = now_ns(), v;
	long calls = 0, bad = 0;
	catch(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	while (ticks < 3 && now_ns() - start < 5000000000ULL) {
		for (int i = 0; i < 100; i++, calls++)
			bad += read(sig_fd, &v, 8) != 8 ||
			       ioctl(sig_fd, PERF_EVENT_IOC_RESET, 0) != 0;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	CHECK(ticks >= 3 && !bad, "a 2 ms timer's signals reach a loop of reads and RESETs "
	      "(%d signals in %ld calls, %ld failed)", ticks, calls, bad);
	catch(SIGALRM, SIG_DFL);
	catch(SIGUSR1, SIG_DFL);
	close(sig_fd);
}

/* ---- a descriptor table shared with another process ---- */

static void test_shared_table(void)
{
	int fd = open_clock(0, 0), p[2];
	uint64_t a, b;

	CHECK(fd >= 0 && pipe(p) == 0, "open, pipe");
	pid_t pid = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) { /* shares the table: wait until told, then go */
		char c;
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	CHECK(pid > 0, "clone with CLONE_FILES");
	work_ns(1000000);
	a = perf_value(fd);
	CHECK(a != PERF_BAD_VALUE && a > 0, "read with the table shared (%llu)",
	      (unsigned long long)a);
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE with the table shared");
	a = perf_value(fd);
	work_ns(1000000);
	b = perf_value(fd);
	CHECK(a == b, "the count stands still");
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0 && perf_value(fd) == 0,
	      "RESET with the table shared: 0");
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE with the table shared");
	int st = -1;
	CHECK(write(p[1], "x", 1) == 1 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the other process ends");
	work_ns(1000000);
	CHECK(perf_value(fd) > 0, "alone again, the count went on");
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* A sampling event, which the lean path leaves to the full one. */
static void test_sampling(void)
{
	int fd = open_clock(0, 100000000);
	uint64_t a;

	CHECK(fd >= 0, "open a sampling task-clock");
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE it");
	a = perf_value(fd);
	work_ns(1000000);
	CHECK(a != PERF_BAD_VALUE && perf_value(fd) == a, "its count stands still");
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0 && perf_value(fd) == 0, "RESET: 0");
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE it");
	work_ns(1000000);
	CHECK(perf_value(fd) > 0, "it counts");
	close(fd);
}


/* ---- each kind of event ---- */

static int open_sw(uint64_t config, uint64_t read_format, int disabled, pid_t pid, int cpu,
		   int group)
{
	struct perf_event_attr a;

	perf_attr(&a, PERF_TYPE_SOFTWARE, config);
	a.read_format = read_format;
	a.disabled = disabled ? 1 : 0;
	return perf_open(&a, pid, cpu, group, 0);
}

/* Page faults: a software event that is not a clock, counted where the
 * kernel sees each fault. */
static void test_count_event(void)
{
	const uint64_t times = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, 0, 0, 0, -1, -1);
	int tfd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, times, 0, 0, -1, -1);
	uint64_t a, b, t[3] = { 0 }, u[3] = { 0 };

	CHECK(fd >= 0 && tfd >= 0, "open two page-fault counters");
	a = perf_value(fd);
	int touched = touch_pages(8);
	b = perf_value(fd);
	CHECK(touched == 0 && b >= a + 8,
	      "8 fresh pages: at least 8 faults more (%llu, %llu)",
	      (unsigned long long)a, (unsigned long long)b);
	CHECK(read(tfd, t, 24) == 24 && t[0] >= 8 && t[1] > 0 && t[1] == t[2],
	      "with both times: at least 8, enabled = running (%llu, %llu, %llu)",
	      (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2]);
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0 && perf_value(fd) == 0,
	      "RESET while it counts: 0");
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0 && ioctl(tfd, PERF_EVENT_IOC_DISABLE, 0) == 0,
	      "DISABLE both");
	CHECK(touch_pages(4) == 0 && perf_value(fd) == 0, "disabled: 4 faults not counted");
	CHECK(read(tfd, u, 24) == 24 && u[0] == t[0] && u[1] >= t[1] && u[1] == u[2],
	      "disabled: count and times stand still but for the time up to DISABLE "
	      "(%llu, %llu, %llu)", (unsigned long long)u[0], (unsigned long long)u[1],
	      (unsigned long long)u[2]);
	CHECK(read(tfd, t, 24) == 24 && t[1] == u[1] && t[2] == u[2],
	      "and read again, the times have not moved");
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0 && perf_value(fd) == 0,
	      "DISABLE of a disabled event: 0, nothing changes");
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0,
	      "ENABLE twice");
	touched = touch_pages(4);
	a = perf_value(fd);
	CHECK(touched == 0 && a >= 4 && a < 1000,
	      "enabled again: the faults count (%llu)", (unsigned long long)a);
	close(fd);
	close(tfd);
}

/* RESET of a disabled clock: 0, and 0 it stays until ENABLE. */
static void test_reset_disabled(void)
{
	int fd = open_clock(0, 0);

	CHECK(fd >= 0, "open");
	work_ns(1000000);
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0 && perf_value(fd) > 0, "DISABLE");
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0 && perf_value(fd) == 0, "RESET: 0");
	work_ns(1000000);
	CHECK(perf_value(fd) == 0, "still 0 while disabled");
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE");
	work_ns(1000000);
	CHECK(perf_value(fd) > 0, "counts again");
	close(fd);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* A task-clock of this task bound to CPU `there`, enabled while the task
 * runs on `here`: it does not count until the task moves there. */
static void test_other_cpu(void)
{
	unsigned char online[64];
	int n = cpu_list("/sys/devices/system/cpu/online", online, (int)sizeof(online));
	int here = -1, there = -1;

	for (int c = 0; c < n && c < (int)sizeof(online); c++)
		if (online[c] && here < 0)
			here = c;
		else if (online[c] && there < 0)
			there = c;
	if (there < 0) {
		abi_note("one CPU online: no event bound to another CPU");
		return;
	}
	cpu_set_t saved;
	CHECK(sched_getaffinity(0, sizeof(saved), &saved) == 0, "the affinity to restore");
	CHECK(pin(here) == 0, "run on CPU %d", here);
	int fd = open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, 1, 0, there, -1);
	CHECK(fd >= 0, "open a disabled task-clock bound to CPU %d", there);
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE it on CPU %d", here);
	work_ns(2000000);
	CHECK(perf_value(fd) == 0, "it does not count on CPU %d", here);
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0 && perf_value(fd) == 0, "RESET: 0");
	CHECK(pin(there) == 0, "move to CPU %d", there);
	work_ns(2000000);
	uint64_t a = perf_value(fd);
	CHECK(a > 0 && a != PERF_BAD_VALUE, "it counts there (%llu)", (unsigned long long)a);
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE it there");
	a = perf_value(fd);
	work_ns(1000000);
	CHECK(perf_value(fd) == a, "its count stands still");
	close(fd);
	sched_setaffinity(0, sizeof(saved), &saved);
}

/* A group: the leader read alone (read_format 0) is its own count; with
 * PERF_FORMAT_GROUP, the whole group. DISABLE of the leader stops the
 * group; of a member, the member alone. Groups of one kind of clock:
 * Linux 6.18 was seen to leave a page-fault member of a task-clock
 * group at 0 after the task had migrated. */
static void test_group(void)
{
	int l = open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0, -1, -1);
	int m = open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0, -1, l);
	int g = open_sw(PERF_COUNT_SW_CPU_CLOCK, PERF_FORMAT_GROUP | PERF_FORMAT_ID, 0, 0, -1, -1);
	int gm = open_sw(PERF_COUNT_SW_CPU_CLOCK, PERF_FORMAT_GROUP | PERF_FORMAT_ID, 0, 0, -1, g);
	uint64_t v[8] = { 0 }, a, b, id = 0, mid = 0;

	CHECK(l >= 0 && m >= 0 && g >= 0 && gm >= 0, "open two groups of two");
	work_ns(1000000);
	a = perf_value(l);
	b = perf_value(m);
	CHECK(a > 500000 && b > 500000 && a != PERF_BAD_VALUE && b != PERF_BAD_VALUE,
	      "leader and member read their own times (%llu, %llu)",
	      (unsigned long long)a, (unsigned long long)b);
	CHECK(ioctl(g, PERF_EVENT_IOC_ID, &id) == 0 && ioctl(gm, PERF_EVENT_IOC_ID, &mid) == 0,
	      "ids");
	CHECK(read(g, v, sizeof(v)) == 40 && v[0] == 2 && v[1] > 500000 && v[2] == id &&
	      v[3] > 500000 && v[4] == mid, "PERF_FORMAT_GROUP of the leader: nr 2, both values "
	      "and ids (%llu, %llu)", (unsigned long long)v[1], (unsigned long long)v[3]);
	CHECK(read(gm, v, sizeof(v)) == 40 && v[0] == 2 && v[2] == id && v[4] == mid,
	      "PERF_FORMAT_GROUP of the member: the same layout");
	CHECK_ERR(read(g, v, 32), ENOSPC, "a group read into 32 bytes");
	CHECK(ioctl(l, PERF_EVENT_IOC_DISABLE, 0) == 0, "DISABLE the leader alone");
	a = perf_value(l);
	b = perf_value(m);
	work_ns(1000000);
	CHECK(perf_value(l) == a && perf_value(m) == b, "the group stands still, member too");
	CHECK(ioctl(l, PERF_EVENT_IOC_ENABLE, 0) == 0 && ioctl(m, PERF_EVENT_IOC_DISABLE, 0) == 0,
	      "ENABLE the leader, DISABLE the member");
	b = perf_value(m);
	work_ns(1000000);
	CHECK(perf_value(l) > a && perf_value(m) == b,
	      "the leader counts on, the member stands still");
	CHECK(ioctl(m, PERF_EVENT_IOC_RESET, 0) == 0 && perf_value(m) == 0 &&
	      ioctl(m, PERF_EVENT_IOC_ENABLE, 0) == 0, "RESET the member: 0; ENABLE it");
	work_ns(1000000);
	CHECK(perf_value(m) > 0, "it counts again");
	close(gm);
	close(g);
	close(m);
	close(l);
}

/* An inherited task-clock: a read sums the children, running or gone. */
static void test_inherited(void)
{
	struct perf_event_attr a;
	int go[2], done[2];
	char c = 0;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.inherit = 1;
	int fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0 && pipe(go) == 0 && pipe(done) == 0, "open an inherited task-clock, pipes");
	pid_t pid = fork();
	if (pid == 0) { /* 20 ms of CPU, then wait to be told to go */
		work_ns(20000000);
		_exit(write(done[1], "x", 1) == 1 && read(go[0], &c, 1) == 1 ? 0 : 1);
	}
	CHECK(pid > 0 && read(done[0], &c, 1) == 1, "the child worked 20 ms");
	uint64_t live = perf_value(fd);
	CHECK(live >= 10000000 && live != PERF_BAD_VALUE,
	      "with the child alive, the read sums its time (%llu ns)", (unsigned long long)live);
	int st = -1;
	CHECK(write(go[1], "x", 1) == 1 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the child exits");
	uint64_t gone = perf_value(fd);
	CHECK(gone >= live && gone != PERF_BAD_VALUE,
	      "after its exit its time stays in the sum (%llu ns)", (unsigned long long)gone);
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0 && perf_value(fd) >= gone,
	      "DISABLE: the sum stays");
	close(fd);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

/* An event of another task that has exited: its count is final, and
 * the ioctls still answer 0 as on Linux (RESET clears it). */
static void test_exited_task(void)
{
	int go[2];
	char c = 0;

	CHECK(pipe(go) == 0, "pipe");
	pid_t pid = fork();
	if (pid == 0) {
		_exit(read(go[0], &c, 1) == 1 && work_ns(2000000) > 0 ? 0 : 1);
	}
	int fd = open_sw(PERF_COUNT_SW_TASK_CLOCK, 0, 0, pid, -1, -1);
	CHECK(pid > 0 && fd >= 0, "a task-clock on a child");
	int st = -1;
	CHECK(write(go[1], "x", 1) == 1 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the child works 2 ms and exits");
	uint64_t a = perf_value(fd);
	CHECK(a >= 1000000 && a != PERF_BAD_VALUE, "its count (%llu ns)", (unsigned long long)a);
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0 && perf_value(fd) == a, "DISABLE: 0, the count stays");
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0 && perf_value(fd) == a, "ENABLE: 0, the count stays");
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0 && perf_value(fd) == 0, "RESET: 0, and it reads 0");
	CHECK(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0 && perf_value(fd) == 0, "ENABLE again: still 0");
	close(fd);
	close(go[0]);
	close(go[1]);
}

/* Reads into pages fork left copy-on-write: the child gets its own copy
 * with the value, the parent's stays as it was. */
static uint64_t cow_value[PAGE / 8] __attribute__((aligned(PAGE)));
static uint64_t cow_times[PAGE / 8] __attribute__((aligned(PAGE)));

static void test_copy_on_write(void)
{
	const uint64_t times = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd = open_clock(0, 0), tfd = open_clock(times, 0);

	CHECK(fd >= 0 && tfd >= 0, "open");
	cow_value[0] = cow_times[0] = 7; /* present and private before fork */
	work_ns(1000000);
	pid_t pid = fork();
	if (pid == 0) {
		int ok = read(fd, cow_value, 8) == 8 && cow_value[0] > 7 &&
			 read(tfd, cow_times, 24) == 24 && cow_times[0] > 7 && cow_times[1] > 0;
		_exit(ok ? 0 : 1);
	}
	int st = -1;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child reads both into its copy-on-write pages");
	CHECK(cow_value[0] == 7 && cow_times[0] == 7, "the parent's pages are as they were");
	close(fd);
	close(tfd);
}

/* A read with both times (24 bytes) where only 16 fit before a hole. */
static void test_multiword_fault(void)
{
	const uint64_t times = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	int fd = open_clock(times, 0);
	char *two = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CHECK(fd >= 0 && two != MAP_FAILED, "open, map");
	munmap(two + PAGE, PAGE);
	two[0] = 1;
	CHECK_ERR(sys_read(fd, (uint64_t)(two + PAGE - 16), 24), EFAULT,
		  "read of 24 bytes with 16 before a hole");
	CHECK(sys_read(fd, (uint64_t)(two + PAGE - 24), 24) == 24, "and of 24 bytes that fit");
	close(fd);
	munmap(two, PAGE);
}

/* The control page follows RESET: its offset (the count as of its last
 * update) is then a count since the RESET, well below the 20 ms before
 * it (a stale page shows the count at the ENABLE, just below it). (After DISABLE, Linux 6.18 leaves it where the last switch put
 * it.) */
static void test_control_page(void)
{
	int fd = open_clock(0, 0);
	void *map_at = fd >= 0 ? mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
	volatile struct perf_event_mmap_page *pc = map_at;

	CHECK(fd >= 0 && map_at != MAP_FAILED, "open a task-clock, map its control page");
	if (map_at == MAP_FAILED)
		return;
	work_ns(20000000);
	/* Off and on again: what it counted so far is folded into the
	 * event's count, which a stale page would show. */
	CHECK(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0,
	      "DISABLE, ENABLE");
	uint64_t before = perf_value(fd);
	CHECK(ioctl(fd, PERF_EVENT_IOC_RESET, 0) == 0, "RESET it while it counts");
	uint64_t offset = (uint64_t)pc->offset;
	CHECK(before >= 10000000 && before != PERF_BAD_VALUE && offset < before / 2,
	      "the page's offset is a count since the RESET (%llu; before it %llu)",
	      (unsigned long long)offset, (unsigned long long)before);
	munmap(map_at, PAGE);
	close(fd);
}

int main(void)
{
	test_layouts();
	test_buffers();
	test_descriptors();
	test_registers();
	test_signals();
	test_shared_table();
	test_sampling();
	test_count_event();
	test_reset_disabled();
	test_other_cpu();
	test_group();
	test_inherited();
	test_exited_task();
	test_copy_on_write();
	test_multiword_fault();
	test_control_page();
	return abi_done("leanpath");
}
