/*
 * pfmcount EVENT N: what libpfm4 (Debian's libpfm4) makes of this CPU
 * and of EVENT. It prints the core PMUs libpfm4 finds present (it picks
 * them by CPUID's vendor, family and model), encodes EVENT for
 * perf_event_open as perf-based tools do (pfm_get_os_event_encoding,
 * user level only), and counts known_loop(N) with it:
 *
 *   pmu: skl "Intel Skylake" core, 4 counters
 *   event: INSTRUCTION_RETIRED:u -> skl::INST_RETIRED:ANY_P:k=0:u=1:..., type 4, config 0x5300c0
 *   count: 2000004 (N 1000000)
 *
 * Exit status 0 when the event was encoded and counted, 1 otherwise.
 */
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "loop.h"

static void print_core_pmus(void)
{
	for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; p++) {
		pfm_pmu_info_t info;
		memset(&info, 0, sizeof info);
		info.size = sizeof info;
		if (pfm_get_pmu_info(p, &info) != PFM_SUCCESS || !info.is_present ||
		    info.type != PFM_PMU_TYPE_CORE)
			continue;
		printf("pmu: %s \"%s\" core, %d counters\n", info.name, info.desc, info.num_cntrs);
	}
}

/* perf_event_open of `attr` (disabled), enabled around the loop. */
static int count_loop(struct perf_event_attr *attr, unsigned long n, uint64_t *count)
{
	attr->size = sizeof *attr;
	attr->disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	known_loop(n);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	int got = read(fd, count, sizeof *count) == sizeof *count;
	close(fd);
	return got ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: pfmcount EVENT N\n");
		return 2;
	}
	int r = pfm_initialize();
	if (r != PFM_SUCCESS) {
		printf("pfm_initialize: %s\n", pfm_strerror(r));
		return 1;
	}
	print_core_pmus();
	struct perf_event_attr attr;
	char *fstr = NULL;
	pfm_perf_encode_arg_t arg;
	memset(&attr, 0, sizeof attr);
	memset(&arg, 0, sizeof arg);
	arg.attr = &attr;
	arg.fstr = &fstr;
	arg.size = sizeof arg;
	r = pfm_get_os_event_encoding(argv[1], PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (r != PFM_SUCCESS) {
		printf("event: %s: %s\n", argv[1], pfm_strerror(r));
		return 1;
	}
	printf("event: %s -> %s, type %u, config %#llx\n", argv[1], fstr, attr.type,
	       (unsigned long long)attr.config);
	free(fstr);
	unsigned long n = strtoul(argv[2], NULL, 0);
	uint64_t count;
	if (count_loop(&attr, n, &count))
		return 1;
	printf("count: %llu (N %lu)\n", (unsigned long long)count, n);
	pfm_terminate();
	return 0;
}
