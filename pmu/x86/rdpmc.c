/*
 * User-space RDPMC (Linux's x86 rules, arch/x86/events/core.c):
 *
 *   /sys/bus/event_source/devices/cpu/rdpmc  0: never; 1 (default): a
 *   task whose mm maps the buffer of an event of the cpu PMU; 2: every
 *   task. A hybrid CPU has the file under cpu_core/ and cpu_atom/, one
 *   setting behind both (Linux's x86_pmu.attr_rdpmc). CR4.PCE follows it per task: set on the way into a task that
 *   may, cleared otherwise (perf_rdpmc_sched_in, and at mmap/munmap for
 *   the mapping task).
 *
 * The control page (pmu/events/userpage.c) carries index = the counter's
 * RDPMC number + 1 (GP i: i; fixed j: 2^30 + j), 0 while the event is
 * not on a counter of the CPU it runs on; offset = count - the counter's
 * value sign-extended from pmc_width bits, so that the man page's read
 * loop computes offset + RDPMC. It is rewritten whenever the event goes
 * on or off a counter and whenever the driver re-arms the counter.
 *
 * Locking: the mode is written by sysfs and read anywhere (one int);
 * mm->perf_rdpmc_maps changes under the mm lock, atomically.
 */
#include <stdio.h>
#include <linux/errno.h>
#include "core/arch/x86.h"
#include "pmu/events/event.h"
#include "core/fs/vfs.h"
#include "pmu/x86/amd/amd.h"
#include "pmu/x86/intel/intel.h"
#include "core/kernel.h"
#include "core/mm/usermm.h"
#include "msr.h"
#include "core/proc/task.h"
#include "rdpmc.h"

#define CR4_PCE (1ULL << 8)
#define RDPMC_FIXED (1u << 30)

static volatile int rdpmc_mode = 1;

static bool is_amd_pmu(const struct perf_event *e)
{
	return amd_caps.registered && e->pmu == &amd_pmu;
}

/* A core PMU's: cpu, or a hybrid CPU's cpu_core and cpu_atom. */
static bool is_cpu_pmu(const struct perf_event *e)
{
	return (intel_caps.registered && (e->pmu == &intel_pmu || e->pmu == &intel_atom_pmu)) ||
	       is_amd_pmu(e);
}

/* RDPMC's ECX for counter idx: AMD's counters are 0-5; Intel's fixed
 * ones have ECX[30]. */
static uint32_t rdpmc_ecx(const struct perf_event *e, int idx)
{
	if (is_amd_pmu(e) || idx < PMC_IDX_FIXED)
		return (uint32_t)idx;
	return RDPMC_FIXED | (uint32_t)(idx - PMC_IDX_FIXED);
}

static uint16_t counter_width(const struct perf_event *e, int idx)
{
	if (is_amd_pmu(e))
		return AMD_WIDTH;
	const struct intel_caps *c = intel_pmu_caps(e->pmu); /* a hybrid CPU's: its type's */
	return (uint16_t)(idx >= PMC_IDX_FIXED ? c->fixed_width : c->gp_width);
}

struct perf_rdpmc_fields perf_rdpmc_fields(const struct perf_event *e, uint64_t count)
{
	struct perf_rdpmc_fields r = { 0, (int64_t)count, 0, false };
	if (!is_cpu_pmu(e) || !rdpmc_mode)
		return r;
	int idx = e->hw.idx;
	r.cap = true;
	r.width = counter_width(e, idx);
	if (e->state != EVENT_ACTIVE || idx < 0)
		return r;
	r.index = rdpmc_ecx(e, idx) + 1;
	unsigned shift = 64 - r.width;
	int64_t raw = (int64_t)(e->hw.prev_count << shift) >> shift;
	r.offset = (int64_t)count - raw;
	return r;
}

static bool may_rdpmc(const struct task *t)
{
	if (rdpmc_mode == 2)
		return true;
	return rdpmc_mode == 1 && t && t->mm &&
	       __atomic_load_n(&t->mm->perf_rdpmc_maps, __ATOMIC_ACQUIRE) > 0;
}

static void set_pce(bool on)
{
	uint64_t cr4 = read_cr4();
	if (on != !!(cr4 & CR4_PCE))
		write_cr4(on ? cr4 | CR4_PCE : cr4 & ~CR4_PCE);
}

void perf_rdpmc_sched_in(struct task *next)
{
	set_pce(may_rdpmc(next));
}

static void count_map(struct mm *mm, int delta)
{
	__atomic_add_fetch(&mm->perf_rdpmc_maps, delta, __ATOMIC_ACQ_REL);
	if (current && current->mm == mm)
		set_pce(may_rdpmc(current));
}

bool perf_rdpmc_map(const struct perf_event *e, struct mm *mm)
{
	if (!is_cpu_pmu(e) || !mm)
		return false;
	count_map(mm, 1);
	return true;
}

void perf_rdpmc_unmap(struct mm *mm)
{
	count_map(mm, -1);
}

static int gen_mode(struct seqbuf *out, void *arg)
{
	(void)arg;
	sb_printf(out, "%d\n", rdpmc_mode);
	return 0;
}

/* "0", "1" or "2", as Linux's set_attr_rdpmc takes (it also takes
 * larger numbers as 2; we do not). The running task's CR4.PCE follows
 * at once, others' at their next switch. */
static int write_mode(const char *data, size_t len, void *arg)
{
	(void)arg;
	if (len < 1 || data[0] < '0' || data[0] > '2' || (len > 1 && (len != 2 || data[1] != '\n')))
		return -EINVAL;
	rdpmc_mode = data[0] - '0';
	set_pce(may_rdpmc(current));
	return 0;
}

void perf_rdpmc_sysfs(const char *pmu_name)
{
	char path[96];
	snprintf(path, sizeof(path), "bus/event_source/devices/%s/rdpmc", pmu_name);
	sysfs_register(path, gen_mode, write_mode, NULL);
}

void perf_rdpmc_init(void)
{
	if (intel_caps.registered || amd_caps.registered)
		perf_rdpmc_sysfs("cpu"); /* a hybrid CPU's PMUs come later */
}
