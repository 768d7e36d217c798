/*
 * CPU lists as Linux writes them ("0-3,6", devices/system/cpu/online)
 * and the target they make: -a counts on every online CPU, -C on the
 * CPUs listed, which must be online.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stat.h"

static int add_range(int *cpu, int n, int max, long lo, long hi)
{
	for (long c = lo; c <= hi; c++) {
		if (n == max)
			return -1;
		cpu[n++] = (int)c;
	}
	return n;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Sort and drop duplicates. */
static int tidy(int *cpu, int n)
{
	int k = 0;
	qsort(cpu, (size_t)n, sizeof *cpu, cmp_int);
	for (int i = 0; i < n; i++)
		if (k == 0 || cpu[k - 1] != cpu[i])
			cpu[k++] = cpu[i];
	return k;
}

int cpu_list_parse(const char *s, int *cpu, int max)
{
	int n = 0;
	while (*s) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;
		if (end == s || lo < 0 || lo >= MAX_CPUS)
			return -1;
		if (*end == '-') {
			s = end + 1;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo || hi >= MAX_CPUS)
				return -1;
		}
		if ((n = add_range(cpu, n, max, lo, hi)) < 0)
			return -1;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return n ? tidy(cpu, n) : -1;
}

static int online_cpus(int *cpu, int max)
{
	char buf[4096];
	if (!sysfs_read("devices/system/cpu/online", buf, sizeof buf))
		return -1;
	return cpu_list_parse(buf, cpu, max);
}

static bool in_list(int c, const int *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i] == c)
			return true;
	return false;
}

/* -C: every listed CPU must be online. */
static bool check_online(const struct target *t, const int *online, int n)
{
	for (int i = 0; i < t->ncpus; i++) {
		if (!in_list(t->cpu[i], online, n)) {
			fprintf(stderr, "stat: CPU %d is not online\n", t->cpu[i]);
			return false;
		}
	}
	return true;
}

bool target_setup(const struct config *cfg, struct target *t)
{
	static int online[MAX_CPUS];
	memset(t, 0, sizeof *t);
	t->ncpus = 1;
	t->cpu[0] = -1;
	if (!cfg->all_cpus && !cfg->cpu_list)
		return true;
	int n = online_cpus(online, MAX_CPUS);
	if (n < 0) {
		fprintf(stderr, "stat: cannot read %s/devices/system/cpu/online\n", sysfs_root());
		return false;
	}
	t->per_cpu = true;
	t->no_aggr = cfg->no_aggr;
	if (cfg->cpu_list) {
		t->ncpus = cpu_list_parse(cfg->cpu_list, t->cpu, MAX_CPUS);
		if (t->ncpus < 0) {
			fprintf(stderr, "stat: bad CPU list '%s'\n", cfg->cpu_list);
			return false;
		}
		static char label[128];
		snprintf(label, sizeof label, "CPU(s) %s", cfg->cpu_list);
		t->label = label;
		return check_online(t, online, n);
	}
	memcpy(t->cpu, online, (size_t)n * sizeof *online);
	t->ncpus = n;
	t->label = "system wide";
	return true;
}
