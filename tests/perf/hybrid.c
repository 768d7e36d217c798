/*
 * hybrid.c: a hybrid CPU's two core PMUs, as Linux registers them
 * (arch/x86/events/intel/core.c): cpu_core at type PERF_TYPE_RAW (4),
 * cpu_atom at a dynamic type, each with a `cpus` file. Runs on the
 * host Linux and on baremon (vpmu=hybrid); skipped where sysfs has no
 * cpu_core and cpu_atom.
 *
 *  - an event of one PMU counts only while its task runs on a CPU of
 *    that PMU's type: pinned to a Core CPU, cpu_core/cycles:u/ counts
 *    and cpu_atom/cycles:u/ stays at 0 with no time running; pinned to
 *    an Atom CPU, the other way round;
 *  - PERF_TYPE_HARDWARE names its PMU by type in config bits 63-32
 *    (PERF_PMU_TYPE_SHIFT); without one it goes to cpu_core (type 4),
 *    or, opened for an Atom CPU, to cpu_atom (Linux's perf_init_event
 *    retries every PMU after cpu_core's ENOENT);
 *  - an event of cpu_atom opened for a Core CPU is ENOENT; a type in
 *    bits 63-32 that is no core PMU (software) is ENOENT;
 *  - a group cannot mix cpu_core and cpu_atom events (EINVAL);
 *  - a raw event opens with cpu_atom's own type.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "perf.h"

#define DEV "/sys/bus/event_source/devices/"
#define WORK_NS 20000000ULL

struct reading {
	uint64_t value, enabled, running;
};

static long pmu_type(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), DEV "%s/type", name);
	return file_long(path, -1);
}

/* The first CPU of pmu's `cpus` file, or -1. */
static int first_cpu(const char *pmu)
{
	static unsigned char set[1024];
	char path[128];
	int top;

	snprintf(path, sizeof(path), DEV "%s/cpus", pmu);
	top = cpu_list(path, set, (int)sizeof(set));
	for (int c = 0; c < top && c < (int)sizeof(set); c++)
		if (set[c])
			return c;
	return -1;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int open_cycles(long pmu, pid_t pid, int cpu, int group)
{
	struct perf_event_attr a;
	uint64_t ext = pmu < 0 ? 0 : (uint64_t)pmu << PERF_PMU_TYPE_SHIFT;

	perf_attr(&a, PERF_TYPE_HARDWARE, ext | PERF_COUNT_HW_CPU_CYCLES);
	a.exclude_kernel = 1;
	a.disabled = group < 0;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return perf_open(&a, pid, cpu, group, 0);
}

static struct reading take(int fd)
{
	struct reading r = { PERF_BAD_VALUE, 0, 0 };

	if (read(fd, &r, sizeof(r)) != (ssize_t)sizeof(r))
		r.value = PERF_BAD_VALUE;
	return r;
}

/* Count user cycles of the two PMUs around some work on `cpu`. */
static void count_on(int cpu, long core, long atom, struct reading *rc, struct reading *ra)
{
	int fc = open_cycles(core, 0, -1, -1), fa = open_cycles(atom, 0, -1, -1);

	rc->value = ra->value = PERF_BAD_VALUE;
	if (fc < 0 || fa < 0 || pin(cpu) != 0) {
		abi_note("cannot open both PMUs' cycles or pin to cpu %d: %s", cpu, strerror(errno));
		goto out;
	}
	ioctl(fc, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fa, PERF_EVENT_IOC_ENABLE, 0);
	spin_ns(WORK_NS);
	ioctl(fc, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fa, PERF_EVENT_IOC_DISABLE, 0);
	*rc = take(fc);
	*ra = take(fa);
out:
	if (fc >= 0)
		close(fc);
	if (fa >= 0)
		close(fa);
}

static void test_types(long core, long atom)
{
	CHECK(core == PERF_TYPE_RAW, "cpu_core/type is PERF_TYPE_RAW (%ld)", core);
	CHECK(atom >= PERF_TYPE_MAX, "cpu_atom/type is dynamic (%ld)", atom);
}

static void test_bound(int cpu, const char *kind, long mine, long other)
{
	struct reading r_mine, r_other;

	count_on(cpu, mine, other, &r_mine, &r_other);
	CHECK(r_mine.value != PERF_BAD_VALUE && r_mine.value > 0 && r_mine.running > 0,
	      "on %s cpu %d: its PMU's cycles:u count (%llu, running %llu ns)", kind, cpu,
	      (unsigned long long)r_mine.value, (unsigned long long)r_mine.running);
	CHECK(r_other.value == 0 && r_other.running == 0 && r_other.enabled > 0,
	      "on %s cpu %d: the other PMU's cycles:u do not (%llu, running %llu of %llu ns)",
	      kind, cpu, (unsigned long long)r_other.value,
	      (unsigned long long)r_other.running, (unsigned long long)r_other.enabled);
}

/* A plain HARDWARE event (no type in bits 63-32) pinned to `cpu`: it
 * counts there only if it went to that CPU's PMU. */
static void test_plain_for_cpu(int cpu, const char *kind)
{
	int fd = open_cycles(-1, 0, cpu, -1);
	struct reading r = { PERF_BAD_VALUE, 0, 0 };

	if (fd >= 0 && pin(cpu) == 0) {
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		spin_ns(WORK_NS);
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		r = take(fd);
	}
	CHECK(fd >= 0 && r.value != PERF_BAD_VALUE && r.value > 0,
	      "plain cycles:u for %s cpu %d open and count there (%llu)", kind, cpu,
	      (unsigned long long)r.value);
	if (fd >= 0)
		close(fd);
}

static void test_errnos(int core_cpu, long core, long atom)
{
	int leader;

	CHECK_ERR(open_cycles(atom, 0, core_cpu, -1), ENOENT,
		  "cpu_atom cycles for a Core CPU");
	CHECK_ERR(open_cycles(PERF_TYPE_SOFTWARE, 0, -1, -1), ENOENT,
		  "a software type in config bits 63-32");
	leader = open_cycles(core, 0, -1, -1);
	CHECK(leader >= 0, "a cpu_core cycles leader opens");
	if (leader >= 0) {
		CHECK_ERR(open_cycles(atom, 0, -1, leader), EINVAL,
			  "a cpu_atom member in a cpu_core group");
		close(leader);
	}
}

static void test_raw(long atom)
{
	struct perf_event_attr a;
	int fd;

	perf_attr(&a, (uint32_t)atom, 0x3c); /* unhalted core cycles */
	a.exclude_kernel = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	CHECK(fd >= 0, "a raw event of cpu_atom's own type opens (%s)",
	      fd < 0 ? strerror(errno) : "ok");
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	long core = pmu_type("cpu_core"), atom = pmu_type("cpu_atom");
	int core_cpu = first_cpu("cpu_core"), atom_cpu = first_cpu("cpu_atom");

	if (core < 0 || atom < 0 || core_cpu < 0 || atom_cpu < 0) {
		abi_note("no hybrid PMUs (cpu_core and cpu_atom with cpus): skipped");
		return abi_done("hybrid");
	}
	test_types(core, atom);
	test_bound(core_cpu, "a Core", core, atom);
	test_bound(atom_cpu, "an Atom", atom, core);
	test_plain_for_cpu(atom_cpu, "an Atom");
	test_plain_for_cpu(core_cpu, "a Core");
	test_errnos(core_cpu, core, atom);
	test_raw(atom);
	return abi_done("hybrid");
}
