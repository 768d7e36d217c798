/*
 * pmu_cycles [--exact SCALE]: the "cpu" PMU as a program sees it through
 * perf_event_open: cycles counted in all modes and in user mode only,
 * around a busy loop and a system-call loop; the errnos Linux gives for
 * events the PMU does not have; raw selector bits outside the format
 * dropped as Linux drops them. On the software model (caps/pmu_name
 * "vpmu") instructions and branches open in user mode, kernel-mode
 * branches are EOPNOTSUPP, branch and cache misses ENOENT.
 *
 * --exact SCALE, under QEMU -icount (TSC = SCALE x instructions): a
 * user-only count around a loop of known length must be that loop, plus
 * at most a few hundred instructions of system-call entry and exit; the
 * kernel's part of getppid calls goes to a kernel-only count.
 *
 * Prints "ok - ..." / "not ok - ..." and ends with
 * "pmu_cycles: N passed, N failed"; exit status 1 if anything failed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "abi.h"

static int perf_open(struct perf_event_attr *a, int group_fd)
{
	return (int)syscall(__NR_perf_event_open, a, 0, -1, group_fd, 0);
}

static void attr(struct perf_event_attr *a, uint32_t type, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = type;
	a->config = config;
}

/* 2n instructions exactly. */
static void spin(unsigned long n)
{
	__asm__ volatile("1: dec %0; jnz 1b" : "+r"(n));
}

static void syscalls(int n)
{
	for (int i = 0; i < n; i++)
		getppid();
}

static int is_model(void)
{
	char name[32] = "";
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/caps/pmu_name", "r");
	if (f) {
		if (!fgets(name, sizeof(name), f))
			name[0] = 0;
		fclose(f);
	}
	return strcmp(name, "vpmu\n") == 0;
}

/* A group: cycles in all modes (leader) and in user mode only. */
struct pair { int all, user; };

static int open_pair(struct pair *p)
{
	struct perf_event_attr a;
	attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.disabled = 1;
	a.read_format = PERF_FORMAT_GROUP;
	p->all = perf_open(&a, -1);
	attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.exclude_kernel = 1;
	p->user = perf_open(&a, p->all);
	return p->all >= 0 && p->user >= 0;
}

/* Run work with the group enabled; v[0] all modes, v[1] user only. */
static void measure(struct pair *p, void (*work)(void), uint64_t v[2])
{
	uint64_t buf[3] = { 0 };
	ioctl(p->all, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	ioctl(p->all, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	work();
	ioctl(p->all, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (read(p->all, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		buf[0] = 0;
	v[0] = buf[0] == 2 ? buf[1] : 0;
	v[1] = buf[0] == 2 ? buf[2] : 0;
}

static void busy(void) { spin(20000000); }
static void calls(void) { syscalls(20000); }

static void modes(void)
{
	struct pair p;
	uint64_t v[2];
	if (!CHECK(open_pair(&p), "open cycles and user-only cycles as a group"))
		return;
	measure(&p, busy, v);
	abi_note("busy loop: all %llu user %llu", (unsigned long long)v[0],
		 (unsigned long long)v[1]);
	CHECK(v[0] > 0 && v[1] > 0, "busy loop: both counts > 0");
	CHECK(v[1] <= v[0], "busy loop: user-only <= all");
	uint64_t busy_kernel_pct = v[0] ? (v[0] - v[1]) * 100 / v[0] : 100;
	CHECK(busy_kernel_pct < 50, "busy loop: mostly user time");
	measure(&p, calls, v);
	abi_note("getppid loop: all %llu user %llu", (unsigned long long)v[0],
		 (unsigned long long)v[1]);
	CHECK(v[0] > 0 && v[1] > 0, "getppid loop: both counts > 0");
	CHECK(v[1] < v[0], "getppid loop: user-only < all");
	uint64_t calls_kernel_pct = v[0] ? (v[0] - v[1]) * 100 / v[0] : 0;
	CHECK(calls_kernel_pct > busy_kernel_pct + 10,
	      "getppid loop: a larger kernel share than the busy loop");
	close(p.user);
	close(p.all);
}

static int try_open(uint32_t type, uint64_t config, int exclude_kernel)
{
	struct perf_event_attr a;
	attr(&a, type, config);
	a.exclude_kernel = exclude_kernel;
	int fd = perf_open(&a, -1);
	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : -1;
}

static void errnos(int model)
{
	struct perf_event_attr a;
	if (model) {
		CHECK(try_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1) == 0,
		      "instructions:u on the model");
		CHECK(try_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1) == 0,
		      "branches:u on the model");
		CHECK_ERR(try_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0),
			  EOPNOTSUPP, "kernel-mode branches on the model (never stepped)");
		CHECK_ERR(try_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 1), ENOENT,
			  "branch-misses on the model (no predictor)");
		CHECK_ERR(try_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 1), ENOENT,
			  "cache-misses on the model (no caches)");
	}
	CHECK(try_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 0) == 0, "ref-cycles opens");
	CHECK_ERR(try_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX, 0), EINVAL,
		  "hardware config PERF_COUNT_HW_MAX");
	CHECK_ERR(try_open(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D |
			   PERF_COUNT_HW_CACHE_OP_READ << 8 |
			   PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16, 0), ENOENT,
		  "L1D read access: no cache table");
	CHECK_ERR(try_open(PERF_TYPE_HW_CACHE, 0xff, 0), EINVAL, "cache type 0xff");
	attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.precise_ip = 3;
	CHECK_ERR(perf_open(&a, -1), EOPNOTSUPP, "precise_ip 3 without PEBS");
}

/* Bits outside event/umask/edge/inv/cmask (EN, INT, USR, OS, bit 40) are
 * dropped, as Linux drops them: the event opens and counts. */
static void raw_bits(void)
{
	struct perf_event_attr a;
	uint64_t stray = 1ULL << 22 | 1ULL << 20 | 3ULL << 16 | 1ULL << 40, n = 0;
	attr(&a, PERF_TYPE_RAW, 0x3c | stray);
	a.exclude_kernel = 1;
	int fd = perf_open(&a, -1);
	if (!CHECK(fd >= 0, "raw 0x3c with stray bits opens"))
		return;
	spin(1000000);
	CHECK(read(fd, &n, sizeof(n)) == (ssize_t)sizeof(n) && n > 0,
	      "raw 0x3c with stray bits counts");
	close(fd);
}

/* Cycles of this task in user mode only, or in the kernel only. */
static int open_mode(int user_only)
{
	struct perf_event_attr a;
	attr(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	a.exclude_kernel = user_only;
	a.exclude_user = !user_only;
	return perf_open(&a, -1);
}

static uint64_t value(int fd)
{
	uint64_t v = 0;
	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return 0;
	return v;
}

/* Under -icount shift=S (TSC = SCALE = 2^S per instruction): the
 * user-only count of a loop of 2n instructions between two reads is the
 * loop and a little system-call entry and exit; around getppid calls
 * the kernel's part goes to the kernel-only count, not the user one. */
static void exact(uint64_t scale)
{
	const unsigned long n = 1000000;
	const int calls = 1000;
	int u = open_mode(1), k = open_mode(0);
	if (!CHECK(u >= 0 && k >= 0, "open user-only and kernel-only cycles"))
		return;
	uint64_t u0 = value(u);
	spin(n);
	uint64_t loop = (value(u) - u0) / scale;
	abi_note("exact: %llu user instructions for a %lu-instruction loop",
		 (unsigned long long)loop, 2 * n);
	CHECK(loop >= 2 * n && loop <= 2 * n + 200,
	      "user-only cycles = the loop's instructions (+ syscall entry/exit)");
	u0 = value(u);
	uint64_t k0 = value(k);
	syscalls(calls);
	uint64_t user = (value(u) - u0) / scale / calls;
	uint64_t kernel = (value(k) - k0) / scale / calls;
	abi_note("exact: per getppid call %llu user, %llu kernel instructions",
		 (unsigned long long)user, (unsigned long long)kernel);
	/* User mode runs ~15 instructions a call (the model splits user
	 * and kernel time at the entry and exit stubs). */
	CHECK(user < 50, "getppid: the user-only count leaves the kernel's part out");
	CHECK(kernel > user, "getppid: the kernel-only count has it");
	close(u);
	close(k);
}

int main(int argc, char **argv)
{
	int model = is_model();
	abi_note("pmu_name %s", model ? "vpmu (the software model)" : "a real PMU");
	if (argc == 3 && strcmp(argv[1], "--exact") == 0) {
		exact(strtoull(argv[2], NULL, 0));
		return abi_done("pmu_cycles");
	}
	modes();
	errnos(model);
	raw_bits();
	return abi_done("pmu_cycles");
}
