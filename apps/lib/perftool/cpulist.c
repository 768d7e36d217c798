/*
 * CPU lists as Linux writes them ("0-3,6", devices/system/cpu/online).
 */
#include <stdlib.h>
#include "perftool.h"

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
		if (end == s || lo < 0 || lo >= PT_MAX_CPUS)
			return -1;
		if (*end == '-') {
			s = end + 1;
			hi = strtol(s, &end, 10);
			if (end == s || hi < lo || hi >= PT_MAX_CPUS)
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

int cpus_online(int *cpu, int max)
{
	char buf[4096];
	if (!sysfs_read("devices/system/cpu/online", buf, sizeof buf))
		return -1;
	return cpu_list_parse(buf, cpu, max);
}
