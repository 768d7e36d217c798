/*
 * attr.c: perf_event_open's validation of its arguments, with the errno
 * Linux gives: attr.size (0, every published size, larger sizes with a
 * zero or non-zero tail, sizes too small or too large, and the size the
 * kernel writes back on E2BIG), unknown types and configs, reserved bits,
 * flags, pid/cpu combinations, group_fd, bad attr pointers,
 * PERF_FLAG_FD_CLOEXEC, and pids that do not exist.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "perf.h"

/* An attr that may be larger than the struct: up to two pages. */
static union {
	struct perf_event_attr attr;
	unsigned char bytes[8192];
} big;

/* A task-clock attr for the calling task in big, with the given size. */
static struct perf_event_attr *big_attr(uint32_t size)
{
	memset(&big, 0, sizeof(big));
	perf_attr(&big.attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	big.attr.size = size;
	return &big.attr;
}

static void test_sizes(void)
{
	static const uint32_t sizes[] = {
		PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER2,
		PERF_ATTR_SIZE_VER3, PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5,
		PERF_ATTR_SIZE_VER6, PERF_ATTR_SIZE_VER7,
#ifdef PERF_ATTR_SIZE_VER8
		PERF_ATTR_SIZE_VER8,
#endif
		sizeof(struct perf_event_attr),
	};
	struct perf_event_attr *a;
	char what[64];
	uint32_t k;

	/* Size 0 is read as PERF_ATTR_SIZE_VER0 and is not written back. */
	a = big_attr(0);
	check_opens(perf_open(a, 0, -1, -1, 0), "size 0 (read as VER0)");
	CHECK(a->size == 0, "a successful open leaves attr.size alone");

	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		snprintf(what, sizeof(what), "size %u", (unsigned)sizes[i]);
		check_opens(perf_open(big_attr(sizes[i]), 0, -1, -1, 0), what);
	}

	/*
	 * A size the kernel does not know: anything past its own struct
	 * must be zero. The byte at 1023 is past every kernel's struct.
	 */
	a = big_attr(1024);
	big.bytes[1023] = 1;
	CHECK_ERR(perf_open(a, 0, -1, -1, 0), E2BIG,
	          "size 1024, non-zero byte at 1023");
	k = a->size;   /* the kernel's own struct size */
	CHECK(k >= PERF_ATTR_SIZE_VER7 && k < 1024 && k % 8 == 0,
	      "E2BIG writes back the kernel's size (%u)", (unsigned)k);
	abi_note("the kernel's perf_event_attr is %u bytes, ours %u",
	         (unsigned)k, (unsigned)sizeof(struct perf_event_attr));

	a = big_attr(1024);
	check_opens(perf_open(a, 0, -1, -1, 0), "size 1024, zero tail");
	if (k >= PERF_ATTR_SIZE_VER7 && k < 1024) {
		a = big_attr(k + 8);
		big.bytes[k] = 1;
		CHECK_ERR(perf_open(a, 0, -1, -1, 0), E2BIG,
		          "non-zero byte just past the kernel's struct");
		CHECK(a->size == k, "and the size written back is the same");
		a = big_attr(k + 8);
		check_opens(perf_open(a, 0, -1, -1, 0),
		            "8 zero bytes past the kernel's struct");
	}

	/* Linux copies size bytes, whatever they are: no multiple of 8. */
	check_opens(perf_open(big_attr(PERF_ATTR_SIZE_VER1 + 4), 0, -1, -1, 0),
	            "size 76 (VER1 + 4, not a multiple of 8)");

	/* Too small: below VER0. Too large: more than a page (Linux's cap). */
	a = big_attr(32);
	CHECK_ERR(perf_open(a, 0, -1, -1, 0), E2BIG, "size 32 (< VER0)");
	CHECK(a->size == k, "the kernel's size is written back (%u)",
	      (unsigned)a->size);
	a = big_attr(PERF_ATTR_SIZE_VER0 - 1);
	CHECK_ERR(perf_open(a, 0, -1, -1, 0), E2BIG, "size 63");
	a = big_attr((uint32_t)sysconf(_SC_PAGESIZE) + 8);
	CHECK_ERR(perf_open(a, 0, -1, -1, 0), E2BIG,
	          "size page + 8 with a zero tail");
	CHECK(a->size == k, "the kernel's size is written back (%u)",
	      (unsigned)a->size);
	a = big_attr(0xffffffffu);
	CHECK_ERR(perf_open(a, 0, -1, -1, 0), E2BIG, "size 0xffffffff");
}

static void test_type_config(void)
{
	struct perf_event_attr a;

	/* Far above any PMU type Linux numbers dynamically (from 6 up). */
	perf_attr(&a, 1000000, 0);
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), ENOENT, "type 1000000");

	/*
	 * Linux's software PMUs (the generic one, task-clock's, cpu-clock's)
	 * each refuse a config they do not know with ENOENT, "no such
	 * event": an unknown software config is ENOENT, not EINVAL.
	 */
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_MAX);
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), ENOENT,
	          "software config PERF_COUNT_SW_MAX");
	perf_attr(&a, PERF_TYPE_SOFTWARE, 1000);
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), ENOENT, "software config 1000");

	/* Every software event these headers name opens (bpf-output too). */
	for (unsigned c = 0; c < PERF_COUNT_SW_MAX; c++) {
		char what[48];

		perf_attr(&a, PERF_TYPE_SOFTWARE, c);
		snprintf(what, sizeof(what), "software config %u", c);
		check_opens(perf_open(&a, 0, -1, -1, 0), what);
	}
}

static void test_reserved(void)
{
	struct perf_event_attr a;
	volatile uint64_t all = ~(uint64_t)0;
	uint64_t width, top;

	/*
	 * __reserved_1 is what is left of the flag bits; newer kernels give
	 * its low bits names. Its top bit is reserved on every kernel.
	 */
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.__reserved_1 = all;
	width = 0;
	for (uint64_t v = a.__reserved_1; v; v >>= 1)
		width++;
	top = (uint64_t)1 << (width - 1);
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.__reserved_1 = top;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "top bit of __reserved_1");

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.__reserved_2 = 0x8000;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "__reserved_2 0x8000");

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.read_format = 1u << 30;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "unknown read_format bit");

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_type = (uint64_t)1 << 62;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "unknown sample_type bit");

	/* A sampling period must fit in 63 bits. */
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.sample_period = (uint64_t)1 << 63;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "sample_period 1 << 63");

	/* freq: the frequency may not exceed perf_event_max_sample_rate. */
	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	a.freq = 1;
	a.sample_freq = (uint64_t)1 << 40;
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), EINVAL, "sample_freq 1 << 40");
}

static void test_flags_pid_cpu(void)
{
	struct perf_event_attr a;
	int possible = cpu_list("/sys/devices/system/cpu/possible", NULL, 0);
	int online = cpu_list("/sys/devices/system/cpu/online", NULL, 0);

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	CHECK_ERR(perf_open(&a, 0, -1, -1, 1ul << 10), EINVAL, "flags 1 << 10");
	CHECK_ERR(perf_open(&a, 0, -1, -1, ~0ul), EINVAL, "flags ~0");
	CHECK_ERR(perf_open(&a, -1, -1, -1, 0), EINVAL, "pid -1 and cpu -1");
	/* PERF_FLAG_PID_CGROUP wants a cgroup fd in pid and a real cpu. */
	CHECK_ERR(perf_open(&a, 0, -1, -1, PERF_FLAG_PID_CGROUP), EINVAL,
	          "PERF_FLAG_PID_CGROUP with cpu -1");

	/*
	 * A cpu number no CPU can have: Linux says EINVAL (cpu >= nr_cpu_ids,
	 * one more than the highest possible CPU, checked as the event is
	 * allocated). ENODEV is for a possible CPU that is offline, which a
	 * test cannot arrange.
	 */
	CHECK(possible > 0 && online > 0,
	      "read /sys/devices/system/cpu/{possible,online}");
	abi_note("CPUs possible below %d, online below %d", possible, online);
	if (possible > 0)
		CHECK_ERR(perf_open(&a, 0, possible, -1, 0), EINVAL,
		          "cpu = one past the highest possible CPU");
	CHECK_ERR(perf_open(&a, 0, 1 << 20, -1, 0), EINVAL, "cpu 1 << 20");
	CHECK_ERR(perf_open(&a, 0, INT_MAX, -1, 0), EINVAL, "cpu INT_MAX");
	CHECK_ERR(perf_open(&a, 0, -2, -1, 0), EINVAL, "cpu -2");
	if (online > 0)
		check_opens(perf_open(&a, 0, online - 1, -1, 0),
		            "the highest online CPU");

	CHECK_ERR(perf_open(&a, INT_MAX, -1, -1, 0), ESRCH, "pid INT_MAX");
	CHECK_ERR(perf_open(&a, -2, -1, -1, 0), ESRCH, "pid -2");
	check_opens(perf_open(&a, getpid(), -1, -1, 0), "pid getpid()");
	check_opens(perf_open(&a, getppid(), -1, -1, 0),
	            "pid getppid() (root may watch any task)");
}

static void test_group_fd(void)
{
	struct perf_event_attr a;
	int null, fd, sib;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	null = open("/dev/null", O_RDONLY);
	CHECK(null >= 0, "open /dev/null");
	/* Linux: any fd that is not a perf event is EBADF, as is no fd. */
	CHECK_ERR(perf_open(&a, 0, -1, null, 0), EBADF,
	          "group_fd a /dev/null fd");
	close(null);
	CHECK_ERR(perf_open(&a, 0, -1, null, 0), EBADF, "group_fd a closed fd");
	CHECK_ERR(perf_open(&a, 0, -1, -2, 0), EBADF, "group_fd -2");

	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "group_fd -1 opens a leader");
	sib = perf_open(&a, 0, -1, fd, 0);
	CHECK(sib >= 0, "group_fd a leader opens a sibling");
	/* Linux: groups are one level deep, on one task and one CPU. */
	CHECK_ERR(perf_open(&a, 0, -1, sib, 0), EINVAL, "group_fd a sibling");
	CHECK_ERR(perf_open(&a, getppid(), -1, fd, 0), EINVAL,
	          "a sibling on another task than its leader's");
	CHECK_ERR(perf_open(&a, 0, 0, fd, 0), EINVAL,
	          "a sibling on cpu 0, its leader on any CPU");
	close(sib);
	close(fd);
}

static void test_pointers(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr *a;
	char *p;

	CHECK_ERR(perf_open(NULL, 0, -1, -1, 0), EFAULT, "attr NULL");

	/* Two pages, the second unmapped: the attr ends past the first. */
	p = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE,
	         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED, "mmap two pages");
	if (p == MAP_FAILED)
		return;
	munmap(p + page, (size_t)page);
	a = (struct perf_event_attr *)(p + page - 64);
	memset(a, 0, 64);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->size = 64;
	check_opens(perf_open(a, 0, -1, -1, 0), "a 64-byte attr at a page's end");
	a->size = 128;
	CHECK_ERR(perf_open(a, 0, -1, -1, 0), EFAULT,
	          "a 128-byte attr running into an unmapped page");
	CHECK_ERR(perf_open((struct perf_event_attr *)(p + page), 0, -1, -1, 0),
	          EFAULT, "attr in an unmapped page");
	munmap(p, (size_t)page);
}

static void test_cloexec(void)
{
	struct perf_event_attr a;
	int fd, fl;

	perf_attr(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	fd = perf_open(&a, 0, -1, -1, 0);
	fl = fcntl(fd, F_GETFD);
	CHECK(fd >= 0 && fl >= 0 && !(fl & FD_CLOEXEC),
	      "without PERF_FLAG_FD_CLOEXEC: no FD_CLOEXEC");
	close(fd);
	fd = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	fl = fcntl(fd, F_GETFD);
	CHECK(fd >= 0 && fl >= 0 && (fl & FD_CLOEXEC),
	      "PERF_FLAG_FD_CLOEXEC sets FD_CLOEXEC");
	close(fd);
}

int main(void)
{
	test_sizes();
	test_type_config();
	test_reserved();
	test_flags_pid_cpu();
	test_group_fd();
	test_pointers();
	test_cloexec();
	return abi_done("attr");
}
