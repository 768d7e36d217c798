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
 *  - a raw event opens with cpu_atom's own type;
 *  - caps/ as Linux shows it there (one x86_pmu behind both PMUs):
 *    pmu_name and branches (the LBR depth, Alder Lake and later have
 *    arch LBR) alike on both, max_precise on each;
 *  - each PMU has the `rdpmc` file, one setting behind both (root:
 *    writing cpu_atom's changes cpu_core's); a cpu_atom event mapped
 *    and pinned to an Atom CPU self-monitors with RDPMC (the man
 *    page's loop agrees with read()).
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
#include "rdpmc.h"

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

/* The first line of a sysfs file into buf (newline cut); 0, or -1. */
static int file_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static void test_caps(void)
{
	char core_name[64] = "", atom_name[64] = "";
	long core_br = file_long(DEV "cpu_core/caps/branches", -1);
	long atom_br = file_long(DEV "cpu_atom/caps/branches", -1);

	CHECK(file_text(DEV "cpu_core/caps/pmu_name", core_name, sizeof(core_name)) == 0 &&
	      file_text(DEV "cpu_atom/caps/pmu_name", atom_name, sizeof(atom_name)) == 0 &&
	      strcmp(core_name, atom_name) == 0,
	      "caps/pmu_name is the package's on both PMUs (%s, %s)", core_name, atom_name);
	CHECK(core_br > 0 && core_br == atom_br,
	      "caps/branches is the LBR depth on both PMUs (%ld, %ld)", core_br, atom_br);
	CHECK(file_long(DEV "cpu_core/caps/max_precise", -1) >= 0 &&
	      file_long(DEV "cpu_atom/caps/max_precise", -1) >= 0, "each PMU has caps/max_precise");
}

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

static void test_rdpmc_files(void)
{
	long core = file_long(DEV "cpu_core/rdpmc", -1), atom = file_long(DEV "cpu_atom/rdpmc", -1);

	CHECK(core >= 0 && core == atom, "cpu_core/rdpmc and cpu_atom/rdpmc exist and agree (%ld, %ld)",
	      core, atom);
	if (core < 0 || geteuid() != 0)
		return;
	CHECK(write_text(DEV "cpu_atom/rdpmc", core == 2 ? "1" : "2") == 0 &&
	      file_long(DEV "cpu_core/rdpmc", -1) == (core == 2 ? 1 : 2),
	      "writing cpu_atom/rdpmc sets cpu_core/rdpmc too (one setting)");
	write_text(DEV "cpu_core/rdpmc", core == 2 ? "2" : core == 1 ? "1" : "0");
}

static void test_rdpmc_atom(int cpu, long atom)
{
	int fd = open_cycles(atom, 0, -1, -1), used = 0;
	void *page = MAP_FAILED;
	uint64_t before = PERF_BAD_VALUE, self = 0, after = 0;

	if (fd >= 0 && pin(cpu) == 0)
		page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (page != MAP_FAILED) {
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		spin_ns(WORK_NS / 4);
		before = take(fd).value;
		self = perf_self_read(page, &used);
		after = take(fd).value;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		munmap(page, (size_t)sysconf(_SC_PAGESIZE));
	}
	CHECK(used && before != PERF_BAD_VALUE && before > 0 && before <= self && self <= after,
	      "cpu_atom cycles:u on Atom cpu %d: RDPMC self-read %llu within read()'s %llu..%llu",
	      cpu, (unsigned long long)self, (unsigned long long)before, (unsigned long long)after);
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
	test_caps();
	test_rdpmc_files();
	test_rdpmc_atom(atom_cpu, atom);
	return abi_done("hybrid");
}
