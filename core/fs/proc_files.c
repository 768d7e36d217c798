/*
 * The system-wide files of /proc, in Linux's formats: cpuinfo (cpuid.c
 * gives the flags), meminfo, uptime, interrupts, loadavg, version,
 * mounts, filesystems, kallsyms. Each is generated at open from the kernel's
 * counters, read without locks: a snapshot may be a moment old.
 */
#include <stdio.h>
#include "core/arch/acpi.h"
#include "core/arch/nmi.h"
#include "core/ksyms.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "procfs.h"
#include "core/arch/trap.h"
#include "core/arch/tsc.h"
#include "pmu/perf.h"

#ifndef BAREMON_VERSION
#define BAREMON_VERSION "dev"
#endif

static int gen_cpuinfo(struct seqbuf *out, void *arg)
{
	for (unsigned c = 0; c < MAX_CPUS; c++)
		if (percpu_area[c].online)
			cpuinfo_block(out, c, percpu_area[c].apic_id);
	return 0;
}

static void kb_line(struct seqbuf *out, const char *name, uint64_t kb)
{
	sb_printf(out, "%-16s%8llu kB\n", name, (unsigned long long)kb);
}

static int gen_meminfo(struct seqbuf *out, void *arg)
{
	uint64_t total = pmm_total_count() * 4, free = pmm_free_count() * 4;
	uint64_t shmem = tmpfs_pages_in_use() * 4, slab = heap_in_use() / 1024;
	uint64_t used = total - free, other = used > shmem + slab ? used - shmem - slab : 0;
	kb_line(out, "MemTotal:", total);
	kb_line(out, "MemFree:", free);
	kb_line(out, "MemAvailable:", free);
	kb_line(out, "Buffers:", 0);
	kb_line(out, "Cached:", shmem);
	kb_line(out, "SwapCached:", 0);
	kb_line(out, "Active:", shmem);
	kb_line(out, "Inactive:", 0);
	kb_line(out, "SwapTotal:", 0);
	kb_line(out, "SwapFree:", 0);
	kb_line(out, "Dirty:", 0);
	kb_line(out, "AnonPages:", other);
	kb_line(out, "Shmem:", shmem);
	kb_line(out, "Slab:", slab);
	kb_line(out, "SReclaimable:", 0);
	kb_line(out, "SUnreclaim:", slab);
	kb_line(out, "CommitLimit:", total);
	kb_line(out, "VmallocTotal:", 34359738367ULL);
	sb_printf(out, "HugePages_Total:   %5u\nHugePages_Free:    %5u\n", 0, 0);
	kb_line(out, "Hugepagesize:", 2048);
	return 0;
}

/* Idle time is not measured yet: reported as 0. */
static int gen_uptime(struct seqbuf *out, void *arg)
{
	uint64_t cs = time_since_boot_ns() / 10000000;
	sb_printf(out, "%llu.%02llu 0.00\n", (unsigned long long)(cs / 100),
		  (unsigned long long)(cs % 100));
	return 0;
}

/* One of Linux's named rows: "NMI:" counts every NMI (a PMI delivered
 * as an NMI, an unknown one), "PMI:" every PMI however delivered. */
static void interrupts_row(struct seqbuf *out, const char *name, const char *what,
			   uint64_t (*count)(unsigned cpu))
{
	sb_printf(out, "%3s: ", name);
	for (unsigned c = 0; c < MAX_CPUS; c++)
		if (percpu_area[c].online)
			sb_printf(out, " %10llu", (unsigned long long)count(c));
	sb_printf(out, "  %s\n", what);
}

static int gen_interrupts(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%*s", 11, "");
	for (unsigned c = 0; c < MAX_CPUS; c++)
		if (percpu_area[c].online)
			sb_printf(out, "CPU%-8u", c);
	sb_printf(out, "\n");
	for (unsigned v = 0; v < 256; v++) {
		uint64_t total = 0;
		for (unsigned c = 0; c < MAX_CPUS; c++)
			total += trap_count(c, v);
		if (!total)
			continue;
		sb_printf(out, "%3u: ", v);
		for (unsigned c = 0; c < MAX_CPUS; c++)
			if (percpu_area[c].online)
				sb_printf(out, " %10llu", (unsigned long long)trap_count(c, v));
		sb_printf(out, "  %s\n", trap_name(v));
	}
	interrupts_row(out, "NMI", "Non-maskable interrupts", nmi_count);
	interrupts_row(out, "PMI", "Performance monitoring interrupts", perf_pmi_count);
	return 0;
}

/* Load averages are not kept; the process count and the highest pid
 * (Linux: the last one given out) are. */
static int gen_loadavg(struct seqbuf *out, void *arg)
{
	int n = 0;
	int *pids = procfs_all_pids(&n);
	sb_printf(out, "0.00 0.00 0.00 1/%d %d\n", n, pids && n ? pids[n - 1] : 0);
	kfree(pids);
	return 0;
}

static int gen_version(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%s version %s (baremon@baremon) (gcc) #1 SMP %s\n",
		  SYSCTL_OSTYPE, SYSCTL_OSRELEASE, BAREMON_VERSION);
	return 0;
}

static int gen_mounts(struct seqbuf *out, void *arg)
{
	for (unsigned i = 0; i < mount_count(); i++) {
		struct mount *m = mount_nth(i);
		sb_printf(out, "%s %s %s %s 0 0\n", m->source, m->where,
			  m->sb->type, m->sb->rdonly ? "ro" : "rw");
	}
	return 0;
}

static int gen_filesystems(struct seqbuf *out, void *arg)
{
	static const char *const types[] = { "sysfs", "tmpfs", "proc",
					     "devtmpfs", "rootfs" };
	for (unsigned i = 0; i < ARRAY_SIZE(types); i++)
		sb_printf(out, "nodev\t%s\n", types[i]);
	return 0;
}

/* The kernel's functions, "ADDRESS T NAME", between _text and _etext as
 * on Linux: what perf record reads to describe the kernel's text. */
static int gen_kallsyms(struct seqbuf *out, void *arg)
{
	uint64_t start, end, addr;
	ksym_text(&start, &end);
	sb_printf(out, "%016llx T _text\n", (unsigned long long)start);
	for (uint64_t i = 0; i < ksym_count(); i++) {
		const char *name = ksym_at(i, &addr);
		sb_printf(out, "%016llx T %s\n", (unsigned long long)addr, name);
	}
	sb_printf(out, "%016llx T _etext\n", (unsigned long long)end);
	return 0;
}

void proc_system_files_init(void)
{
	procfs_register("cpuinfo", gen_cpuinfo, NULL, NULL);
	procfs_register("meminfo", gen_meminfo, NULL, NULL);
	procfs_register("uptime", gen_uptime, NULL, NULL);
	procfs_register("interrupts", gen_interrupts, NULL, NULL);
	procfs_register("loadavg", gen_loadavg, NULL, NULL);
	procfs_register("version", gen_version, NULL, NULL);
	procfs_register("mounts", gen_mounts, NULL, NULL);
	procfs_register("filesystems", gen_filesystems, NULL, NULL);
	procfs_register("kallsyms", gen_kallsyms, NULL, NULL);
}
