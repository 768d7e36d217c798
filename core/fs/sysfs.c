/*
 * sysfs: /sys, generated files only (genfs). Other subsystems add their
 * entries with sysfs_register (perf PMUs under
 * /sys/bus/event_source/devices/<pmu>/..., see pmu/registry.c); the CPU
 * lists are registered here.
 */
#include "arch/acpi.h"
#include "genfs.h"
#include "arch/percpu.h"

static struct genfs sysfs = GENFS_INIT(sysfs, "sysfs", 4);

int sysfs_register(const char *path, gen_fn gen, write_fn write, void *arg)
{
	return genfs_add(&sysfs, path, S_IFREG | (write ? 0644 : 0444), gen,
			 write, NULL, arg);
}

int sysfs_mkdir(const char *path)
{
	return genfs_add(&sysfs, path, S_IFDIR | 0755, NULL, NULL, NULL, NULL);
}

static int gen_string(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%s\n", (const char *)arg);
	return 0;
}

int sysfs_register_string(const char *path, const char *s)
{
	return sysfs_register(path, gen_string, NULL, (void *)s);
}

/* A CPU mask as Linux prints CPU lists: "0-3,6". */
static void cpu_ranges(struct seqbuf *out, const bool *set, unsigned n)
{
	const char *sep = "";
	for (unsigned i = 0; i < n; i++) {
		if (!set[i])
			continue;
		unsigned j = i;
		while (j + 1 < n && set[j + 1])
			j++;
		if (j > i)
			sb_printf(out, "%s%u-%u", sep, i, j);
		else
			sb_printf(out, "%s%u", sep, i);
		sep = ",";
		i = j;
	}
	sb_printf(out, "\n");
}

static int gen_online(struct seqbuf *out, void *arg)
{
	bool set[MAX_CPUS];
	for (unsigned i = 0; i < MAX_CPUS; i++)
		set[i] = percpu_area[i].online;
	cpu_ranges(out, set, MAX_CPUS);
	return 0;
}

static int gen_possible(struct seqbuf *out, void *arg)
{
	bool set[MAX_CPUS];
	unsigned n = acpi.ncpus ? acpi.ncpus : 1;
	for (unsigned i = 0; i < MAX_CPUS; i++)
		set[i] = i < n;
	cpu_ranges(out, set, MAX_CPUS);
	return 0;
}

void sysfs_init_files(void)
{
	sysfs_register("devices/system/cpu/online", gen_online, NULL, NULL);
	sysfs_register("devices/system/cpu/possible", gen_possible, NULL, NULL);
	sysfs_register("devices/system/cpu/present", gen_possible, NULL, NULL);
	sysfs_mkdir("bus/event_source/devices");
	sysfs_mkdir("kernel");
}

struct inode *sysfs_mount(struct super_block **sb)
{
	struct gnode *root = genfs_root(&sysfs);
	if (!root)
		return NULL;
	*sb = &sysfs.sb;
	inode_get(&root->inode);
	return &root->inode;
}
