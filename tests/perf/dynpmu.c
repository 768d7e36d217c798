/*
 * dynpmu.c: PMUs as /sys/bus/event_source/devices shows them. The fixed
 * types of software (1) and tracepoint (2); the msr PMU, whose type is
 * dynamic (read from sysfs, as perf does) and whose tsc event counts
 * the time stamp counter while the task runs; its errnos (no sampling,
 * no mode filters, unknown event); a type no PMU has; and the writable
 * perf_event_mux_interval_ms. Runs as root (it writes the mux interval
 * and restores it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perf.h"

#define DEV "/sys/bus/event_source/devices/"

/* The file's text (trailing newline removed) in buf, or -1. */
static int read_text(const char *path, char *buf, int size)
{
	int fd = open(path, O_RDONLY);
	int n;

	if (fd < 0)
		return -1;
	n = (int)read(fd, buf, (size_t)size - 1);
	close(fd);
	if (n < 0)
		return -1;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	return n;
}

/* Write text to path: 0 or the errno. */
static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	int r = 0;

	if (fd < 0)
		return errno;
	if (write(fd, text, strlen(text)) < 0)
		r = errno;
	close(fd);
	return r;
}

static long pmu_type(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), DEV "%s/type", name);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static int open_msr(long type, uint64_t config, int exclude_kernel, uint64_t period)
{
	struct perf_event_attr a;

	perf_attr(&a, (uint32_t)type, config);
	a.exclude_kernel = exclude_kernel ? 1 : 0;
	a.sample_period = period;
	return perf_open(&a, 0, -1, -1, 0);
}

static void test_fixed_types(void)
{
	CHECK(pmu_type("software") == PERF_TYPE_SOFTWARE, "software/type is 1");
	CHECK(pmu_type("tracepoint") == PERF_TYPE_TRACEPOINT, "tracepoint/type is 2");
}

static void test_msr(void)
{
	char buf[64];
	long type = pmu_type("msr");
	int fd, clock;
	uint64_t tsc0, clk0, tsc, clk;

	if (type < 0) {
		abi_note("no msr PMU here: its checks are skipped");
		return;
	}
	CHECK(type >= PERF_TYPE_MAX, "msr's type is dynamic (%ld >= %d)", type, PERF_TYPE_MAX);
	CHECK(read_text(DEV "msr/events/tsc", buf, sizeof(buf)) > 0 &&
	      strcmp(buf, "event=0x00") == 0, "msr/events/tsc is event=0x00 (%s)", buf);
	CHECK(read_text(DEV "msr/format/event", buf, sizeof(buf)) > 0 &&
	      strcmp(buf, "config:0-63") == 0, "msr/format/event is config:0-63 (%s)", buf);

	fd = open_msr(type, 0, 0, 0);
	clock = perf_sw(PERF_COUNT_SW_TASK_CLOCK, 0);
	CHECK(fd >= 0 && clock >= 0, "open msr tsc (type %ld) and task-clock", type);
	tsc0 = perf_value(fd);
	clk0 = perf_value(clock);
	work_ns(20000000);
	tsc = perf_value(fd) - tsc0;
	clk = perf_value(clock) - clk0;
	abi_note("20 ms of work: tsc +%llu, task-clock +%llu ns",
	         (unsigned long long)tsc, (unsigned long long)clk);
	/* The TSC runs at 0.1 to 10 GHz while the task runs. */
	CHECK(clk > 0 && tsc > clk / 10 && tsc < clk * 10,
	      "tsc advances with the task's time");
	close(fd);
	close(clock);

	CHECK_ERR(open_msr(type, 99, 0, 0), EINVAL, "an msr event that does not exist");
	CHECK_ERR(open_msr(type, 0, 1, 0), EINVAL, "msr with exclude_kernel (no filters)");
	CHECK_ERR(open_msr(type, 0, 0, 1000), EINVAL, "msr with a sample period (no sampling)");
}

static void test_unknown_type(void)
{
	struct perf_event_attr a;

	perf_attr(&a, 10000, 0);
	CHECK_ERR(perf_open(&a, 0, -1, -1, 0), ENOENT, "a type no PMU has");
}

static void test_mux_interval(void)
{
	const char *path = DEV "software/perf_event_mux_interval_ms";
	char old[32], now[32];

	CHECK(read_text(path, old, sizeof(old)) > 0 && atoi(old) >= 1,
	      "software/perf_event_mux_interval_ms reads %s", old);
	CHECK(write_text(path, "0") == EINVAL, "writing 0 is EINVAL");
	CHECK(write_text(path, "abc") == EINVAL, "writing a non-number is EINVAL");
	CHECK(write_text(path, "7") == 0 && read_text(path, now, sizeof(now)) > 0 &&
	      strcmp(now, "7") == 0, "writing 7 reads back 7");
	write_text(path, old);
}

int main(void)
{
	test_fixed_types();
	test_msr();
	test_unknown_type();
	test_mux_interval();
	return abi_done("dynpmu");
}
