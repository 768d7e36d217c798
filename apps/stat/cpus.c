/*
 * The target CPUs: -a counts on every online CPU, -C on the CPUs
 * listed, which must be online.
 */
#include <stdio.h>
#include <string.h>
#include "stat.h"

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
	if (cfg->pids || cfg->tids || cfg->per_thread)
		return target_threads(cfg, t);
	if (!cfg->all_cpus && !cfg->cpu_list)
		return true;
	int n = cpus_online(online, MAX_CPUS);
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
		snprintf(label, sizeof label, "'CPU(s) %s'", cfg->cpu_list);
		t->label = label;
		return check_online(t, online, n);
	}
	memcpy(t->cpu, online, (size_t)n * sizeof *online);
	t->ncpus = n;
	t->label = "'system wide'";
	return true;
}
