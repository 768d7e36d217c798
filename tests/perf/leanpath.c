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
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <linux/sched.h>
#include <unistd.h>
#include "perf.h"

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
	register uint64_t r8 __asm__("r8") = 0x0808080808080808ULL;
	register uint64_t r9 __asm__("r9") = 0x0909090909090909ULL;
	register uint64_t r10 __asm__("r10") = 0x1010101010101010ULL;
	register uint64_t r11 __asm__("r11");
	register uint64_t r12 __asm__("r12") = 0x1212121212121212ULL;
	uint64_t rax = (uint64_t)nr, rdi = a0, rsi = a1, rdx = a2,
		 rbx = 0xb0b0b0b0b0b0b0b0ULL, rcx, after;

	__asm__ volatile("syscall\n1:\n\t"
			 "lea 1b(%%rip), %[after]"
			 : "+a"(rax), "+D"(rdi), "+S"(rsi), "+d"(rdx), "+b"(rbx),
			   "+r"(r8), "+r"(r9), "+r"(r10), "+r"(r12), "=c"(rcx),
			   "=r"(r11), [after] "=r"(after)
			 : : "memory", "cc");
	uint64_t v8 = r8, v9 = r9, v10 = r10, v11 = r11, v12 = r12;
	CHECK(rcx == after && (v11 & 0x302) == 0x202 && rdi == a0 && rsi == a1 &&
	      rdx == a2 && v8 == 0x0808080808080808ULL && v9 == 0x0909090909090909ULL &&
	      v10 == 0x1010101010101010ULL && rbx == 0xb0b0b0b0b0b0b0b0ULL &&
	      v12 == 0x1212121212121212ULL,
	      "%s: every register but rax, rcx and r11 kept (result %ld)", what, (long)rax);
	return (long)rax;
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

int main(void)
{
	test_layouts();
	test_buffers();
	test_descriptors();
	test_registers();
	test_signals();
	test_shared_table();
	test_sampling();
	return abi_done("leanpath");
}
