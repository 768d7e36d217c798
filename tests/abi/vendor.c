/*
 * vendor.c: ABI test that the CPU's vendor is reported consistently:
 * /proc/cpuinfo's vendor_id, cpu family and model (for every processor)
 * are what CPUID leaves 0 and 1 say, and the cpu PMU's driver is the
 * vendor's, since tools pick their event tables by vendor: one driven
 * by the Intel perfmon driver (Linux's and baremon's give caps/pmu_name)
 * comes with a GenuineIntel CPU, one driven by the AMD driver (no
 * pmu_name; format/event is config:0-7,32-35, AMD's 12-bit event
 * number) with an AuthenticAMD or HygonGenuine one. A host with no cpu
 * PMU checks the first part only.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "abi.h"

static char cpuinfo[65536];

#define CPU_DEV "/sys/bus/event_source/devices/cpu"

/* Family and model as Linux computes them from CPUID leaf 1. */
static void cpuid_family_model(unsigned *family, unsigned *model)
{
	unsigned a, b, c, d;

	__cpuid(1, a, b, c, d);
	*family = (a >> 8) & 0xf;
	*model = (a >> 4) & 0xf;
	if (*family == 0xf)
		*family += (a >> 20) & 0xff;
	if (*family >= 6)
		*model |= ((a >> 16) & 0xf) << 4;
}

/* How many "KEY\t...: N" lines say `want`, of how many there are. */
static int count_field(const char *key, unsigned want, int *lines)
{
	int agree = 0;

	*lines = 0;
	for (char *p = cpuinfo; (p = strstr(p, key)); p++) {
		char *colon;

		if (p != cpuinfo && p[-1] != '\n')
			continue; /* "model" inside "model name" */
		colon = strchr(p, ':');
		if (!colon || strncmp(p + strlen(key), "\t", 1) != 0)
			continue;
		(*lines)++;
		agree += strtoul(colon + 1, NULL, 10) == want;
	}
	return agree;
}

static int read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	long n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

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
	unsigned family, model;
	cpuid_family_model(&family, &model);
	agree = count_field("cpu family", family, &lines);
	CHECK(lines > 0 && agree == lines, "every cpu family says CPUID's %u (%d of %d)",
	      family, agree, lines);
	agree = count_field("model", model, &lines);
	CHECK(lines > 0 && agree == lines, "every model says CPUID's %u (%d of %d)",
	      model, agree, lines);

	struct stat st;
	char event_format[64];
	int amd = strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0;
	if (stat(CPU_DEV "/caps/pmu_name", &st) == 0) {
		CHECK(strcmp(vendor, "GenuineIntel") == 0,
		      "an Intel-driver cpu PMU on a GenuineIntel CPU (%s)", vendor);
	} else if (read_text(CPU_DEV "/format/event", event_format, sizeof(event_format)) == 0) {
		CHECK(amd, "a cpu PMU without pmu_name (AMD's driver) on an AMD CPU (%s)", vendor);
		CHECK(strcmp(event_format, "config:0-7,32-35") == 0,
		      "the AMD driver's format/event is config:0-7,32-35 (%s)", event_format);
	} else {
		abi_note("no cpu PMU here: vendor %s", vendor);
	}
	return abi_done("vendor");
}
