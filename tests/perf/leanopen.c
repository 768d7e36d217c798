/*
 * leanopen.c: perf_event_open of a counting software event on the
 * caller, the case baremon's lean system-call path finishes itself
 * (docs/processes.md), next to the cases it hands to the full path: the
 * same results either way, as on Linux. Enabled and disabled events,
 * CLOEXEC, the lowest free descriptor, distinct ids; attrs of each size
 * (short, ours, longer with zero and non-zero tail), at a page's end,
 * across into an unmapped page, NULL and a kernel address; errnos of bad
 * attrs; EMFILE at the descriptor limit; every register but RAX, RCX
 * and R11 kept; many opens and closes in a row.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include "perf.h"
#include "../abi/bare_syscall.h"

#define PAGE 4096

static void clock_attr(struct perf_event_attr *a, int disabled)
{
	perf_attr(a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a->disabled = disabled ? 1 : 0;
}

static void test_counting(void)
{
	struct perf_event_attr a;
	clock_attr(&a, 0);
	int on = perf_open(&a, 0, -1, -1, 0);
	clock_attr(&a, 1);
	int off = perf_open(&a, 0, -1, -1, 0);

	CHECK(on >= 0 && off >= 0, "open an enabled and a disabled task-clock");
	work_ns(1000000);
	CHECK(perf_value(on) > 0, "the enabled one counts");
	CHECK(perf_value(off) == 0, "the disabled one does not");
	CHECK(ioctl(off, PERF_EVENT_IOC_ENABLE, 0) == 0, "ENABLE it");
	work_ns(1000000);
	CHECK(perf_value(off) > 0, "now it counts");
	uint64_t id1 = 0, id2 = 0;
	CHECK(ioctl(on, PERF_EVENT_IOC_ID, &id1) == 0 && ioctl(off, PERF_EVENT_IOC_ID, &id2) == 0 &&
	      id1 && id2 && id1 != id2, "distinct ids (%llu, %llu)", (unsigned long long)id1,
	      (unsigned long long)id2);
	CHECK(!(fcntl(on, F_GETFD) & FD_CLOEXEC), "no close-on-exec without the flag");
	int fd = on;
	close(on);
	clock_attr(&a, 0);
	on = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(on == fd, "the lowest free descriptor again (%d, then %d)", fd, on);
	CHECK(on >= 0 && (fcntl(on, F_GETFD) & FD_CLOEXEC), "PERF_FLAG_FD_CLOEXEC: close-on-exec");
	close(on);
	close(off);
}

/* Attr sizes: a short one (VER0 and VER5), ours, a longer one with a zero
 * tail (fine) and with a non-zero tail (E2BIG, the kernel's size written
 * back), one below VER0 (E2BIG). */
static void test_sizes(void)
{
	static unsigned char buf[sizeof(struct perf_event_attr) + 64];
	struct perf_event_attr *a = (struct perf_event_attr *)buf;
	int fd;

	memset(buf, 0, sizeof(buf));
	clock_attr(a, 0);
	a->size = PERF_ATTR_SIZE_VER0;
	CHECK((fd = perf_open(a, 0, -1, -1, 0)) >= 0, "size VER0 (64)");
	close(fd);
	a->size = PERF_ATTR_SIZE_VER5;
	CHECK((fd = perf_open(a, 0, -1, -1, 0)) >= 0, "size VER5 (112)");
	close(fd);
	a->size = 0;
	CHECK((fd = perf_open(a, 0, -1, -1, 0)) >= 0, "size 0 (taken as VER0)");
	close(fd);
	a->size = sizeof(buf);
	CHECK((fd = perf_open(a, 0, -1, -1, 0)) >= 0, "a longer attr with a zero tail");
	close(fd);
	buf[sizeof(buf) - 1] = 1;
	CHECK_ERR(perf_open(a, 0, -1, -1, 0), E2BIG, "a longer attr with a non-zero tail");
	CHECK(a->size != sizeof(buf) && a->size >= PERF_ATTR_SIZE_VER0,
	      "E2BIG writes the kernel's size back (%u)", a->size);
	buf[sizeof(buf) - 1] = 0;
	clock_attr(a, 0);
	a->size = 32;
	CHECK_ERR(perf_open(a, 0, -1, -1, 0), E2BIG, "size 32, below VER0");
}

/* The attr at a page's end: a VER0 attr fits; ours reaches into the
 * unmapped page after it (EFAULT). NULL and a kernel address: EFAULT. */
static void test_pointers(void)
{
	unsigned char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED && munmap(p + PAGE, PAGE) == 0, "a page with none after it");
	if (p == MAP_FAILED)
		return;
	struct perf_event_attr a;
	clock_attr(&a, 0);
	a.size = PERF_ATTR_SIZE_VER0;
	memcpy(p + PAGE - PERF_ATTR_SIZE_VER0, &a, PERF_ATTR_SIZE_VER0);
	int fd = perf_open((struct perf_event_attr *)(p + PAGE - PERF_ATTR_SIZE_VER0), 0, -1, -1, 0);
	CHECK(fd >= 0, "a VER0 attr ending at the page's end");
	close(fd);
	a.size = sizeof(a);
	memcpy(p + PAGE - PERF_ATTR_SIZE_VER0, &a, PERF_ATTR_SIZE_VER0);
	CHECK_ERR(perf_open((struct perf_event_attr *)(p + PAGE - PERF_ATTR_SIZE_VER0), 0, -1, -1, 0),
		  EFAULT, "a full attr running into the unmapped page");
	CHECK_ERR(perf_open(NULL, 0, -1, -1, 0), EFAULT, "a NULL attr");
	CHECK_ERR(perf_open((struct perf_event_attr *)0xffffffff80000000ULL, 0, -1, -1, 0), EFAULT,
		  "a kernel address");
	munmap(p, PAGE);
}

/* What the lean path must refuse to decide itself: the errnos the full
 * path gives, as Linux does. */
static void test_errnos(void)
{
	struct perf_event_attr a;
	clock_attr(&a, 0);
	a.config = PERF_COUNT_SW_MAX + 5;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), ENOENT, "a software config past the last");
	clock_attr(&a, 0);
	a.__reserved_1 = 1;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "a reserved bit");
	clock_attr(&a, 0);
	a.read_format = ~0ULL;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "an unknown read_format bit");
	clock_attr(&a, 0);
	a.remove_on_exec = a.enable_on_exec = 1;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "remove_on_exec with enable_on_exec");
	clock_attr(&a, 0);
	CHECK_ERR(perf_open(&a, 0, -1, -1, 1UL << 20), EINVAL, "an unknown flag");
	CHECK_ERR(perf_open(&a, 0, -1, 12345, 0), EBADF, "a closed group_fd");
	CHECK_ERR(perf_open(&a, -1, -1, -1, 0), EINVAL, "pid -1 with cpu -1");
}

/* At RLIMIT_NOFILE the open fails with EMFILE, and nothing is left
 * behind: once a descriptor is free an open succeeds there. */
static void test_emfile(void)
{
	struct rlimit old, lim;
	struct perf_event_attr a;
	int fds[64], n = 0;

	getrlimit(RLIMIT_NOFILE, &old);
	int first = dup(0);
	close(first);
	lim.rlim_cur = (unsigned long)first + 8;
	lim.rlim_max = old.rlim_max;
	CHECK(setrlimit(RLIMIT_NOFILE, &lim) == 0, "RLIMIT_NOFILE %d", first + 8);
	clock_attr(&a, 0);
	while (n < 64 && (fds[n] = perf_open(&a, 0, -1, -1, 0)) >= 0)
		n++;
	/* 8 at most: descriptors above the first free one may be open */
	CHECK(n >= 4 && n <= 8 && errno == EMFILE, "events up to the limit, then EMFILE (%d, %s)",
	      n, strerror(errno));
	close(fds[3]);
	CHECK(perf_open(&a, 0, -1, -1, 0) == fds[3], "a closed descriptor is the next one");
	for (int i = 0; i < n; i++)
		close(fds[i]);
	setrlimit(RLIMIT_NOFILE, &old);
}

/* perf_event_open by SYSCALL directly, every register set to a known
 * value: the kernel must keep all but RAX (the result), RCX (the return
 * address) and R11 (RFLAGS). */
static long bare_open(struct perf_event_attr *attr, uint64_t flags)
{
	/* attr, pid 0, cpu -1, group_fd -1, flags */
	const uint64_t a[6] = { (uint64_t)attr, 0, (uint64_t)-1, (uint64_t)-1, flags,
	                        0x0909090909090909ULL };
	struct bare_regs r = bare_syscall6(SYS_perf_event_open, a);

	CHECK(bare_returned_right(&r) && bare_kept(&r, a),
	      "bare open: every register but rax, rcx and r11 kept (result %ld)", (long)r.rax);
	return (long)r.rax;
}

static void test_registers(void)
{
	struct perf_event_attr a;
	clock_attr(&a, 0);
	long fd = bare_open(&a, 0);
	CHECK(fd >= 0, "bare open: a descriptor (%ld)", fd);
	close((int)fd);
	CHECK(bare_open(NULL, 0) == -EFAULT, "bare open of NULL: -EFAULT");
}

/* Many opens and closes in a row: each gets the same descriptor back
 * and a working event. */
static void test_churn(void)
{
	struct perf_event_attr a;
	clock_attr(&a, 0);
	int first = perf_open(&a, 0, -1, -1, 0), bad = 0;
	close(first);
	for (int i = 0; i < 2000; i++) {
		int fd = perf_open(&a, 0, -1, -1, 0);
		bad += fd != first;
		close(fd);
	}
	CHECK(first >= 0 && !bad, "2000 opens and closes, the same descriptor each time (%d off)",
	      bad);
}

int main(void)
{
	test_counting();
	test_sizes();
	test_pointers();
	test_errnos();
	test_emfile();
	test_registers();
	test_churn();
	return abi_done("leanopen");
}
