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
#include <sys/wait.h>
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


/* Descriptors opened and closed in the middle and below: each open takes
 * the lowest free one, as POSIX says (the table's next_fd hint must be
 * lowered by every close below it). */
static void test_lowest_free(void)
{
	struct perf_event_attr a;
	int fd[6];
	clock_attr(&a, 0);
	for (int i = 0; i < 6; i++)
		fd[i] = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd[0] >= 0 && fd[5] == fd[0] + 5, "six opens in a row: consecutive descriptors (%d..%d)",
	      fd[0], fd[5]);
	close(fd[4]);
	close(fd[1]);
	int x = perf_open(&a, 0, -1, -1, 0), y = perf_open(&a, 0, -1, -1, 0);
	int z = perf_open(&a, 0, -1, -1, 0);
	CHECK(x == fd[1] && y == fd[4] && z == fd[5] + 1,
	      "after closing two in the middle: the lower, the higher, then past the end (%d %d %d)",
	      x, y, z);
	close(z);
	int d = dup(fd[2]);
	CHECK(d == fd[5] + 1, "dup takes the lowest free one too (%d)", d);
	close(d);
	close(fd[0]);
	close(fd[3]);
	x = perf_open(&a, 0, -1, -1, 0);
	CHECK(x == fd[0], "a close below the others: its descriptor next (%d)", x);
	close(x);
	for (int i = 1; i < 6; i++)
		close(i == 1 ? fd[1] : i == 4 ? fd[4] : fd[i]);
	close(y);
}

/* Close-on-exec set where asked, and not inherited by a later open that
 * reuses the slot: through PERF_FLAG_FD_CLOEXEC and through F_SETFD. */
static void test_cloexec_slots(void)
{
	struct perf_event_attr a;
	clock_attr(&a, 0);
	int c = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(c >= 0 && fcntl(c, F_GETFD) == FD_CLOEXEC, "PERF_FLAG_FD_CLOEXEC: F_GETFD is FD_CLOEXEC");
	close(c);
	int p = perf_open(&a, 0, -1, -1, 0);
	CHECK(p == c && fcntl(p, F_GETFD) == 0, "the same slot reopened without the flag: no FD_CLOEXEC");
	CHECK(fcntl(p, F_SETFD, FD_CLOEXEC) == 0, "F_SETFD FD_CLOEXEC");
	close(p);
	p = perf_open(&a, 0, -1, -1, 0);
	CHECK(p == c && fcntl(p, F_GETFD) == 0, "after F_SETFD and close: the slot reopens without it");
	int q = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	CHECK(q > p && fcntl(q, F_GETFD) == FD_CLOEXEC && fcntl(p, F_GETFD) == 0,
	      "the next one with the flag has it, its neighbour still not");
	close(q);
	close(p);
}

/* read_format a plain open may have: ID, the times, LOST, in order. */
static void test_read_formats(void)
{
	struct perf_event_attr a;
	uint64_t v[8], id = 0;
	clock_attr(&a, 0);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			PERF_FORMAT_ID | PERF_FORMAT_LOST;
	int fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "task-clock with ENABLED, RUNNING, ID and LOST");
	work_ns(1000000);
	CHECK(read(fd, v, sizeof(v)) == 5 * 8, "its read: 5 words");
	CHECK(ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0 && v[3] == id, "the ID word is IOC_ID's");
	CHECK(v[0] > 0 && v[1] >= v[0] / 2 && v[2] == v[1] && v[4] == 0,
	      "value, enabled = running, no lost (%llu %llu %llu %llu)", (unsigned long long)v[0],
	      (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[4]);
	close(fd);
	clock_attr(&a, 0);
	a.read_format = PERF_FORMAT_GROUP;
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0 && read(fd, v, sizeof(v)) == 2 * 8 && v[0] == 1,
	      "read_format GROUP (not plain): nr 1 and the value");
	close(fd);
}

/* Attrs one step past plain: the full path opens them, and they count. */
static void test_not_plain(void)
{
	struct perf_event_attr a;
	static const char *const what[] = {
		"inherit", "pinned", "exclusive", "exclude_idle", "context_switch",
		"exclude_host", "disabled with enable_on_exec",
	};
	for (unsigned i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		clock_attr(&a, 0);
		switch (i) {
		case 0: a.inherit = 1; break;
		case 1: a.pinned = 1; break;
		case 2: a.exclusive = 1; break;
		case 3: a.exclude_idle = 1; break;
		case 4: a.context_switch = 1; break;
		case 5: a.exclude_host = 1; break;
		default: a.disabled = a.enable_on_exec = 1; break;
		}
		int fd = perf_open(&a, 0, -1, -1, 0);
		work_ns(200000);
		uint64_t v = fd >= 0 ? perf_value(fd) : PERF_BAD_VALUE;
		int waits = a.enable_on_exec;
		CHECK(fd >= 0 && (waits ? v == 0 : v > 0 && v != PERF_BAD_VALUE), "%s: opens and %s (%llu)",
		      what[i], waits ? "waits for exec" : "counts", (unsigned long long)v);
		close(fd);
	}
	clock_attr(&a, 0);
	a.sample_type = PERF_SAMPLE_IP;
	int fd = perf_open(&a, 0, -1, -1, 0);
	work_ns(200000);
	CHECK(fd >= 0 && perf_value(fd) > 0, "counting with a sample_type: opens and counts");
	close(fd);
	clock_attr(&a, 0);
	a.sample_period = 100000;
	fd = perf_open(&a, 0, -1, -1, 0);
	work_ns(200000);
	CHECK(fd >= 0 && perf_value(fd) > 0, "sampling every 100 us: opens and counts");
	close(fd);
	clock_attr(&a, 0);
	a.exclude_kernel = a.exclude_hv = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	work_ns(200000);
	CHECK(fd >= 0 && perf_value(fd) > 0, "exclude_kernel and exclude_hv (plain): opens and counts");
	close(fd);
}

/* A newer program's longer attr (VER8 adds 8 bytes): a zero tail is
 * fine and counts, a tail in an unmapped page EFAULT. (A non-zero tail:
 * test_sizes; not within 8 bytes, which the host's Linux may know.) */
static void test_longer(void)
{
	static unsigned char buf[sizeof(struct perf_event_attr) + 16];
	struct perf_event_attr *a = (struct perf_event_attr *)buf;
	memset(buf, 0, sizeof(buf));
	clock_attr(a, 0);
	a->size = sizeof(*a) + 8;
	int fd = perf_open(a, 0, -1, -1, 0);
	work_ns(200000);
	CHECK(fd >= 0 && perf_value(fd) > 0, "an attr 8 bytes longer, zero tail: opens and counts");
	close(fd);
	unsigned char *p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || munmap(p + PAGE, PAGE))
		return;
	clock_attr(a, 0);
	a->size = sizeof(*a) + 16;
	memcpy(p + PAGE - sizeof(*a), a, sizeof(*a));
	CHECK_ERR(perf_open((struct perf_event_attr *)(p + PAGE - sizeof(*a)), 0, -1, -1, 0), EFAULT,
		  "a longer attr whose tail is in an unmapped page");
	munmap(p, PAGE);
}

/* Errnos of attrs close to plain, from the full path as on Linux. */
static void test_more_errnos(void)
{
	struct perf_event_attr a;
	clock_attr(&a, 0);
	a.__reserved_2 = 1;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "__reserved_2 set");
	clock_attr(&a, 0);
	a.sample_type = ~0ULL;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "an unknown sample_type bit");
	clock_attr(&a, 0);
	a.inherit_thread = 1;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "inherit_thread without inherit");
	clock_attr(&a, 0);
	a.sigtrap = 1;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "sigtrap without remove_on_exec");
	clock_attr(&a, 0);
	a.sample_period = 1ULL << 63;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "a sample_period with bit 63");
	clock_attr(&a, 0);
	a.use_clockid = 1;
	a.clockid = 99;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "an unknown clockid");
	clock_attr(&a, 0);
	a.size = PERF_ATTR_SIZE_VER0 - 8;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), E2BIG, "size 56");
	CHECK(a.size == sizeof(a) || a.size > PERF_ATTR_SIZE_VER0,
	      "E2BIG wrote the kernel's size (%u)", a.size);
	clock_attr(&a, 0);
	a.size = 4096 + 8;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), E2BIG, "a size past a page");
}

/* A short attr whose bytes past its size are not zero: they are not
 * part of it (a VER6 attr with sig_data's bytes set). */
static void test_short_tail(void)
{
	struct perf_event_attr a;
	clock_attr(&a, 0);
	a.sig_data = ~0ULL;
	a.size = PERF_ATTR_SIZE_VER6;
	int fd = perf_open(&a, 0, -1, -1, 0);
	work_ns(200000);
	CHECK(fd >= 0 && perf_value(fd) > 0, "VER6 with bytes set past it: opens and counts");
	close(fd);
}

/* Counts across fork: a plain event (not inherited) counts its opener
 * alone, an inherited one the child's page faults too; the child's fd
 * reads the parent's event, and a plain open in the child counts the
 * child's faults. */
static void test_fork(void)
{
	struct perf_event_attr a;
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	int plain = perf_open(&a, 0, -1, -1, 0);
	a.inherit = 1;
	int inh = perf_open(&a, 0, -1, -1, 0);
	CHECK(plain >= 0 && inh >= 0, "page-fault events, plain and inherited");
	uint64_t i0 = perf_value(inh), p0 = perf_value(plain);
	pid_t pid = fork();
	if (pid == 0) {
		perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
		int own = perf_open(&a, 0, -1, -1, 0);
		touch_pages(64);
		uint64_t mine = perf_value(own), theirs = perf_value(plain);
		_exit(own >= 0 && mine >= 64 && mine != PERF_BAD_VALUE && theirs != PERF_BAD_VALUE ? 0 : 1);
	}
	int st = -1;
	waitpid(pid, &st, 0);
	uint64_t p1 = perf_value(plain), i1 = perf_value(inh);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "in the child: its own plain event counts its 64 faults; the parent's fd reads");
	CHECK(i1 - i0 >= p1 - p0 + 64, "the inherited event has the child's faults, the plain one not "
	      "(%llu, %llu)", (unsigned long long)(i1 - i0), (unsigned long long)(p1 - p0));
	close(plain);
	close(inh);
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
	test_lowest_free();
	test_cloexec_slots();
	test_read_formats();
	test_not_plain();
	test_more_errnos();
	test_short_tail();
	test_longer();
	test_fork();
	return abi_done("leanopen");
}
