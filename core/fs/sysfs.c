/*
 * sysfs: /sys, generated files only (genfs). Other subsystems add their
 * entries with sysfs_register (perf PMUs under
 * /sys/bus/event_source/devices/<pmu>/..., see pmu/events/registry.c); the CPU
 * lists are registered here, the CPU caches in sysfs_cache.c.
 *
 * As on Linux, a PMU's files really live in /sys/devices/<pmu>/ and
 * /sys/bus/event_source/devices/<pmu> is a symlink to
 * ../../../devices/<pmu>: a path registered under the bus is moved to
 * the device, and the link made with its first file.
 */
#include <stdio.h>
#include <string.h>
#include "core/arch/acpi.h"
#include "genfs.h"
#include "core/arch/percpu.h"
#include "core/mm/mm.h"

#define EVENT_SOURCE "bus/event_source/devices/"

static struct genfs sysfs = GENFS_INIT(sysfs, "sysfs", 4);

/* The target's length (cut at max), as glink_fn returns. */
static int pmu_link(char *buf, size_t max, void *arg)
{
	int n = snprintf(buf, max, "../../../devices/%s", (const char *)arg);
	return n < (int)max ? n : (int)max;
}

/*
 * Where a path registered under EVENT_SOURCE goes: "devices/<pmu>/..."
 * in buf (with the bus's link to it made once); other paths stay.
 */
static const char *device_path(const char *path, char *buf, size_t size)
{
	size_t pre = sizeof(EVENT_SOURCE) - 1;
	if (strncmp(path, EVENT_SOURCE, pre) != 0)
		return path;
	const char *name = path + pre, *slash = strchr(name, '/');
	size_t len = slash ? (size_t)(slash - name) : strlen(name);
	if (!len || len >= 64 || snprintf(buf, size, "devices/%s", name) >= (int)size)
		return path;
	char link[sizeof(EVENT_SOURCE) + 64];
	snprintf(link, sizeof(link), "%s%.*s", EVENT_SOURCE, (int)len, name);
	char *pmu = kmalloc(len + 1);
	if (!pmu)
		return path;
	memcpy(pmu, name, len);
	pmu[len] = '\0';
	if (genfs_add(&sysfs, link, S_IFLNK | 0777, NULL, NULL, pmu_link, pmu))
		kfree(pmu); /* made before: it has its own copy */
	return buf;
}

int sysfs_register(const char *path, gen_fn gen, write_fn write, void *arg)
{
	char buf[256];
	path = device_path(path, buf, sizeof(buf));
	return genfs_add(&sysfs, path, S_IFREG | (write ? 0644 : 0444), gen,
			 write, NULL, arg);
}

int sysfs_mkdir(const char *path)
{
	char buf[256];
	path = device_path(path, buf, sizeof(buf));
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
	sysfs_cache_init();
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
