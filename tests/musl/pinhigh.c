/*
 * pinhigh: run on CPU N (tests/qemu/x2apic.sh gives the one whose APIC ID is
 * above 255) and count there. Checks sched_getaffinity/setaffinity's
 * size rules as Linux has them, moves itself to CPU N (the scheduler's
 * IPI reaches it), and counts a per-CPU event on CPU N opened from
 * another CPU (the pmu's cross-CPU call reaches it). Prints
 * "N passed, N failed"; exit status 1 if any check failed.
 *
 *   pinhigh CPU
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (cond) {                                               \
			passed++;                                         \
		} else {                                                  \
			failed++;                                         \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);       \
			printf(__VA_ARGS__);                              \
			printf("\n");                                     \
		}                                                         \
	} while (0)

static long getaff(size_t size, void *mask)
{
	long r = syscall(SYS_sched_getaffinity, 0, size, mask);
	return r < 0 ? -errno : r;
}

static long setaff(size_t size, const void *mask)
{
	long r = syscall(SYS_sched_setaffinity, 0, size, mask);
	return r < 0 ? -errno : r;
}

static int perf_open(uint32_t type, uint64_t config, int cpu)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
}

static uint64_t read_count(int fd)
{
	uint64_t v = 0;
	return read(fd, &v, sizeof(v)) == sizeof(v) ? v : 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: pinhigh CPU\n");
		return 2;
	}
	int target = atoi(argv[1]);
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	CHECK(target > 0 && target < ncpus, "cpu %d of %ld online", target, ncpus);

	/* The kernel's mask: whole longs covering nr_cpu_ids bits (possible
	 * CPUs: on Linux they may be more than those online). */
	unsigned char big[1024] = { 0 };
	long got = getaff(sizeof(big), big);
	CHECK(got > 0 && got % 8 == 0 && got * 8 >= ncpus && got <= (long)sizeof(big),
	      "getaffinity wrote %ld bytes for %ld cpus", got, ncpus);
	CHECK(big[target / 8] >> (target % 8) & 1, "cpu %d allowed at start", target);
	CHECK(getaff(4, big) == -EINVAL, "getaffinity: a size not whole longs");
	CHECK(getaff(sizeof(big), (void *)8) == -EFAULT, "getaffinity: a bad pointer");

	/* A mask naming only CPUs that do not exist: EINVAL. */
	unsigned char none[128] = { 0 };
	none[127] = 0x80; /* CPU 1023 */
	CHECK(setaff(sizeof(none), none) == -EINVAL || ncpus > 1023,
	      "setaffinity to cpu 1023 only");
	CHECK(setaff(sizeof(none), (void *)8) == -EFAULT, "setaffinity: a bad pointer");

	/* A per-CPU event on the target, opened from here. */
	int clk = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, target);
	CHECK(clk >= 0, "cpu-clock on cpu %d: errno %d", target, clk < 0 ? errno : 0);
	/* No PMU (Linux in a VM without one): ENOENT, and no cycles check. */
	int cyc = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, target);
	bool have_pmu = cyc >= 0 || errno != ENOENT;
	CHECK(!have_pmu || cyc >= 0, "cycles on cpu %d: errno %d", target, cyc < 0 ? errno : 0);

	/* Move there: the only CPU in a mask big enough for it. */
	unsigned char one[1024] = { 0 };
	one[target / 8] = (unsigned char)(1u << (target % 8));
	CHECK(setaff((size_t)target / 8 + 1, one) == 0, "setaffinity to cpu %d (a short mask)", target);
	int where = sched_getcpu();
	CHECK(where == target, "running on cpu %d, not %d", where, target);
	memset(big, 0, sizeof(big));
	got = getaff(sizeof(big), big);
	int others = 0;
	for (long i = 0; i < got * 8; i++)
		others += i != target && (big[i / 8] >> (i % 8) & 1);
	CHECK(got > 0 && (big[target / 8] >> (target % 8) & 1) && !others,
	      "getaffinity names cpu %d alone", target);

	volatile uint64_t spin = 0;
	for (uint64_t i = 0; i < 20000000; i++)
		spin += i;
	uint64_t ns = clk >= 0 ? read_count(clk) : 0, cycles = cyc >= 0 ? read_count(cyc) : 0;
	CHECK(ns > 1000000, "cpu-clock on cpu %d counted %llu ns", target,
	      (unsigned long long)ns);
	CHECK(!have_pmu || cycles > 0, "cycles on cpu %d counted %llu", target, (unsigned long long)cycles);
	printf("pinhigh: cpu %d, cpu-clock %llu ns, cycles %llu\n", target,
	       (unsigned long long)ns, (unsigned long long)cycles);

	/* Back to every CPU: a mask longer than the kernel's is fine. */
	memset(big, 0xff, sizeof(big));
	CHECK(setaff(sizeof(big), big) == 0, "setaffinity with a 1024-byte mask");
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
