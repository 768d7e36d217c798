/*
 * -v: each perf_event_open call in the layout of perf's -vv, the
 * non-zero fields of the attr in struct order and the call's result:
 *   ------------------------------------------------------------
 *   perf_event_attr:
 *     type                             4
 *     config                           0x1c2
 *   ...
 *   ------------------------------------------------------------
 *   sys_perf_event_open: pid 123  cpu -1  group_fd -1  flags 0x8 = 3
 */
#include <stdio.h>
#include "stat.h"

static const char rule[] = "------------------------------------------------------------\n";

static void field(const char *name, unsigned long long v, bool hex)
{
	if (!v)
		return;
	if (hex)
		fprintf(stderr, "  %-32s 0x%llx\n", name, v);
	else
		fprintf(stderr, "  %-32s %llu\n", name, v);
}

static void read_format(uint64_t f)
{
	if (f == (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING))
		fprintf(stderr, "  %-32s TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING\n", "read_format");
	else
		field("read_format", f, true);
}

static void flags(const struct perf_event_attr *a)
{
	field("disabled", a->disabled, false);
	field("inherit", a->inherit, false);
	field("pinned", a->pinned, false);
	field("exclusive", a->exclusive, false);
	field("exclude_user", a->exclude_user, false);
	field("exclude_kernel", a->exclude_kernel, false);
	field("exclude_hv", a->exclude_hv, false);
	field("exclude_idle", a->exclude_idle, false);
	field("enable_on_exec", a->enable_on_exec, false);
	field("precise_ip", a->precise_ip, false);
	field("exclude_host", a->exclude_host, false);
	field("exclude_guest", a->exclude_guest, false);
}

void attr_dump(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd,
	       unsigned long fl, int result, int err)
{
	fputs(rule, stderr);
	fputs("perf_event_attr:\n", stderr);
	fprintf(stderr, "  %-32s %u\n", "type", a->type);
	fprintf(stderr, "  %-32s %u\n", "size", a->size);
	field("config", a->config, true);
	field("sample_period", a->sample_period, false);
	read_format(a->read_format);
	flags(a);
	field("config1", a->config1, true);
	field("config2", a->config2, true);
	fputs(rule, stderr);
	fprintf(stderr, "sys_perf_event_open: pid %d  cpu %d  group_fd %d  flags 0x%lx", pid, cpu,
		group_fd, fl);
	if (result >= 0)
		fprintf(stderr, " = %d\n", result);
	else
		fprintf(stderr, "\nsys_perf_event_open failed, error -%d\n", err);
}
