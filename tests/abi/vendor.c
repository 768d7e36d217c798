/*
 * vendor.c: ABI test that the CPU's vendor is reported consistently:
 * /proc/cpuinfo's vendor_id (for every processor) is what CPUID leaf 0
 * says, and a cpu PMU driven by the Intel perfmon driver (Linux's and
 * baremon's give caps/pmu_name) comes with a GenuineIntel CPU, since
 * tools pick their event tables by vendor. A host with no cpu PMU checks
 * the first part only.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "abi.h"

static char cpuinfo[65536];

static void cpuid_vendor(char *v)
{
	unsigned a, b, c, d;

	__cpuid(0, a, b, c, d);
	memcpy(v, &b, 4);
	memcpy(v + 4, &d, 4);
	memcpy(v + 8, &c, 4);
	v[12] = '\0';
}

int main(void)
{
	char vendor[13];
	int fd = open("/proc/cpuinfo", O_RDONLY);
	long n = 0, r;

	cpuid_vendor(vendor);
	if (!CHECK(fd >= 0, "open /proc/cpuinfo"))
		return abi_done("vendor");
	while (n < (long)sizeof(cpuinfo) - 1 &&
	       (r = read(fd, cpuinfo + n, sizeof(cpuinfo) - 1 - (size_t)n)) > 0)
		n += r;
	close(fd);
	cpuinfo[n] = '\0';
	int lines = 0, agree = 0;
	for (char *p = cpuinfo; (p = strstr(p, "vendor_id")); p++) {
		char *colon = strchr(p, ':');
		lines++;
		agree += colon && strncmp(colon + 2, vendor, 12) == 0;
	}
	CHECK(lines > 0 && agree == lines,
	      "every vendor_id says CPUID's %s (%d of %d)", vendor, agree, lines);
	struct stat st;
	if (stat("/sys/bus/event_source/devices/cpu/caps/pmu_name", &st) == 0)
		CHECK(strcmp(vendor, "GenuineIntel") == 0,
		      "an Intel-driver cpu PMU on a GenuineIntel CPU (%s)", vendor);
	else
		abi_note("no Intel cpu PMU here: vendor %s", vendor);
	return abi_done("vendor");
}
