/*
 * sysfs.c: ABI test of the /sys files tools read besides the perf PMU
 * ones. /sys/bus/event_source/devices/<pmu> is a symlink to
 * ../../../devices/<pmu>, where the PMU's files are. Each CPU's
 * cache/indexM/ describes the caches CPUID's deterministic cache leaf
 * (4 on Intel, 8000_001DH on AMD) gives for subleaf M: the program runs
 * CPUID itself and compares every file. A machine whose kernel shows no
 * cache directory (this Firecracker host does not) says so. Each CPU's
 * topology/ names the CPUs of its die (die_cpus_list, from which perf
 * counts #num_dies for its metrics) and of its package; with one die per
 * package, as die_id 0 says, the two lists are the same. Each list has
 * its mask file beside it (thread_siblings, core_cpus, core_siblings,
 * package_cpus, die_cpus; hwloc reads these), the same CPUs in Linux's
 * bitmap format: hex words of 32 bits, most significant first, joined
 * by commas, as wide as the possible CPUs ("3" for 2 CPUs).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "abi.h"

/* The first line of a file, without its newline; "" if unreadable. */
static const char *first_line(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY);
	long n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	char *nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return buf;
}

static void test_pmu_paths(void)
{
	struct stat st;
	char target[256], typ[64];
	long n;

	CHECK(lstat("/sys/bus/event_source/devices/software", &st) == 0 &&
	      S_ISLNK(st.st_mode), "the bus's software entry is a symlink");
	n = syscall(SYS_readlink, "/sys/bus/event_source/devices/software",
		    target, sizeof(target) - 1);   /* libc-lite has no readlink() */
	target[n > 0 ? n : 0] = '\0';
	CHECK(strcmp(target, "../../../devices/software") == 0,
	      "to ../../../devices/software (%s)", target);
	CHECK(stat("/sys/devices/software", &st) == 0 && S_ISDIR(st.st_mode),
	      "/sys/devices/software is a directory");
	strcpy(typ, first_line("/sys/devices/software/type"));
	CHECK(strcmp(typ, "1") == 0, "its type is 1 (%s)", typ);
	CHECK(strcmp(first_line("/sys/bus/event_source/devices/software/type"),
		     typ) == 0, "read through the link too");
	CHECK(stat("/sys/devices/tracepoint/type", &st) == 0,
	      "/sys/devices/tracepoint/type");
}

static unsigned cache_leaf(void)
{
	unsigned a, b, c, d;
	char vendor[13];

	__cpuid(0, a, b, c, d);
	unsigned max = a;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (strcmp(vendor, "AuthenticAMD") == 0) {
		__cpuid(0x80000000, a, b, c, d);
		if (a < 0x8000001d)
			return 0;
		__cpuid(0x80000001, a, b, c, d);
		return (c >> 22 & 1) ? 0x8000001d : 0;
	}
	return max >= 4 ? 4 : 0;
}

static int read_num(const char *dir, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	const char *s = first_line(path);
	return *s ? atoi(s) : -1;
}

/* Every field of cpuN/cache/indexM against CPUID subleaf M. */
static void check_index(unsigned leaf, int cpu, unsigned m)
{
	static const char *const types[] = { "", "Data", "Instruction", "Unified" };
	char dir[128], path[256], want[32];
	unsigned a, b, c, d;

	__cpuid_count(leaf, m, a, b, c, d);
	unsigned ways = (b >> 22) + 1, parts = ((b >> 12) & 0x3ff) + 1;
	unsigned line = (b & 0xfff) + 1, sets = c + 1, type = a & 0x1f;
	snprintf(dir, sizeof(dir), "/sys/devices/system/cpu/cpu%d/cache/index%u",
		 cpu, m);
	CHECK(read_num(dir, "level") == (int)((a >> 5) & 7), "%s/level", dir);
	snprintf(path, sizeof(path), "%s/type", dir);
	CHECK(type < 4 && strcmp(first_line(path), types[type]) == 0,
	      "%s/type: %s", dir, first_line(path));
	CHECK(read_num(dir, "ways_of_associativity") ==
	      (int)((a >> 9 & 1) ? 0 : ways), "%s/ways_of_associativity", dir);
	CHECK(read_num(dir, "coherency_line_size") == (int)line,
	      "%s/coherency_line_size", dir);
	CHECK(read_num(dir, "number_of_sets") == (int)sets, "%s/number_of_sets", dir);
	snprintf(want, sizeof(want), "%uK", ways * parts * line * sets / 1024);
	snprintf(path, sizeof(path), "%s/size", dir);
	CHECK(strcmp(first_line(path), want) == 0, "%s/size: %s (want %s)", dir,
	      first_line(path), want);
	/* The CPU itself is always in the list ("0", "0-1", "0,2", ...). */
	snprintf(path, sizeof(path), "%s/shared_cpu_list", dir);
	const char *list = first_line(path);
	int has = 0;
	for (const char *p = list; *p;) {
		int lo = atoi(p), hi = lo;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '-') {
			hi = atoi(++p);
			while (*p >= '0' && *p <= '9')
				p++;
		}
		has |= cpu >= lo && cpu <= hi;
		if (*p == ',')
			p++;
		else
			break;
	}
	CHECK(has, "%s/shared_cpu_list (%s) has cpu%d", dir, list, cpu);
}

static void test_caches(void)
{
	struct stat st;
	unsigned leaf = cache_leaf();

	if (stat("/sys/devices/system/cpu/cpu0/cache", &st) != 0) {
		abi_note("no /sys/devices/system/cpu/cpu0/cache here: "
			 "nothing to compare");
		return;
	}
	if (!CHECK(leaf != 0, "CPUID has a deterministic cache leaf"))
		return;
	unsigned m = 0, a, b, c, d;
	for (;; m++) {
		__cpuid_count(leaf, m, a, b, c, d);
		if (!(a & 0x1f) || m >= 8)
			break;
		for (int cpu = 0; cpu < 2; cpu++) {
			char dir[96];
			snprintf(dir, sizeof(dir), "/sys/devices/system/cpu/cpu%d", cpu);
			if (cpu == 0 || stat(dir, &st) == 0)
				check_index(leaf, cpu, m);
		}
	}
	CHECK(m > 0, "%u caches described", m);
	char dir[96];
	snprintf(dir, sizeof(dir), "/sys/devices/system/cpu/cpu0/cache/index%u", m);
	CHECK(stat(dir, &st) != 0, "no index%u beyond the last", m);
}

static void test_topology(void)
{
	const char *dir = "/sys/devices/system/cpu/cpu0/topology";
	char path[128], die[256];

	snprintf(path, sizeof(path), "%s/die_cpus_list", dir);
	strcpy(die, first_line(path));
	CHECK(die[0] >= '0' && die[0] <= '9', "cpu0's die_cpus_list (%s)", die);
	snprintf(path, sizeof(path), "%s/die_id", dir);
	if (strcmp(first_line(path), "0") != 0) {
		abi_note("cpu0's die_id is not 0: not comparing it with the package");
		return;
	}
	snprintf(path, sizeof(path), "%s/package_cpus_list", dir);
	CHECK(strcmp(die, first_line(path)) == 0,
	      "one die: die_cpus_list is package_cpus_list (%s)", first_line(path));
}

/* The CPUs of a list ("0-3,8") as a mask of up to 64 bits. */
static unsigned long long list_mask(const char *list)
{
	unsigned long long m = 0;
	for (const char *p = list; *p >= '0' && *p <= '9';) {
		int lo = atoi(p), hi = lo;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '-') {
			hi = atoi(++p);
			while (*p >= '0' && *p <= '9')
				p++;
		}
		for (int c = lo; c <= hi && c < 64; c++)
			m |= 1ULL << c;
		if (*p != ',')
			break;
		p++;
	}
	return m;
}

/* Linux's bitmap text for the mask m of `bits` bits. */
static void bitmap_text(char *out, size_t size, unsigned long long m, unsigned bits)
{
	unsigned words = (bits + 31) / 32, top = bits - (words - 1) * 32;
	size_t n = 0;
	for (unsigned w = words; w-- > 0 && n < size;) {
		unsigned v = w < 2 ? (unsigned)(m >> (32 * w)) : 0;
		int digits = w == words - 1 ? (int)((top + 3) / 4) : 8;
		n += (size_t)snprintf(out + n, size - n, "%s%0*x", w == words - 1 ? "" : ",",
				      digits, v);
	}
}

static void test_topology_masks(void)
{
	static const char *const names[] = { "thread_siblings", "core_cpus", "core_siblings",
					     "package_cpus", "die_cpus" };
	const char *possible = first_line("/sys/devices/system/cpu/possible");
	const char *last = strrchr(possible, '-');
	unsigned bits = (unsigned)atoi(last ? last + 1 : possible) + 1;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[128], list[256], want[160];
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/topology/%s_list",
			 names[i]);
		strcpy(list, first_line(path));
		if (!list[0]) {
			abi_note("no %s here: not comparing its mask", path);
			continue;
		}
		bitmap_text(want, sizeof(want), list_mask(list), bits);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/topology/%s", names[i]);
		CHECK(strcmp(first_line(path), want) == 0, "cpu0's %s is \"%s\" (its list %s, %u CPUs: \"%s\")",
		      names[i], first_line(path), list, bits, want);
	}
}

int main(void)
{
	test_pmu_paths();
	test_topology();
	test_topology_masks();
	test_caches();
	return abi_done("sysfs");
}
