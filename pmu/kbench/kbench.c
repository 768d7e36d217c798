/*
 * kbench: /dev/kbench, the kernel mode of the `bench` harness
 * (kbench_uapi.h has the interface, docs/bench.md the story).
 *
 * KBENCH_IOC_RUN calls a function in the caller's address space in
 * ring 0 on the calling CPU. Around the call:
 *   - every LVT entry of this CPU's local APIC is masked (not cli), then
 *     restored; a timer expiry lost meanwhile is re-armed;
 *   - CR4.SMEP and CR4.SMAP are off, so ring 0 can run and touch the
 *     user pages the program prepared (and touched: no page faults);
 *   - an exception raised by the function (any vector but #DB, NMI, #DF
 *     and #MC, which belong to others or cannot be survived) unwinds to
 *     kbench_enter and is reported to the caller.
 * The function calls kbench_reader at its two measurement points. MSR
 * operations (kbench_msr.c) are applied before the call under the same
 * recovery, read at the points, and undone after.
 *
 * Locking: none shared. The per-CPU state is touched only by its CPU: a
 * system call is not preempted in the kernel here, so the ioctl stays on
 * its CPU from start to end, and the exception hooks read the state of
 * the CPU they run on.
 */
#include <linux/errno.h>
#include "core/arch/apic.h"
#include "core/arch/hrtimer.h"
#include "core/arch/percpu.h"
#include "core/arch/trap.h"
#include "core/arch/x86.h"
#include "core/fs/fs.h"
#include "pmu/perf.h"
#include "kbench_msr.h"
#include "kbench_uapi.h"
#include "core/kernel.h"
#include "core/mm/uaccess.h"
#include "pmu/x86/msr.h"
#include "core/arch/percpu_table.h"

uint64_t kbench_enter(void (*fn)(void), uint64_t *saved_rsp);
void kbench_recover(void);

struct kbench_cpu {
	bool active;             /* the benchmark function may be running */
	uint64_t saved_rsp;      /* kbench_enter's frame */
	uint64_t *readings;      /* user memory, [2][KBENCH_STRIDE] */
	struct kbench_run *run;  /* the kernel's copy, for the fault */
	struct kbench_msrs *msrs;/* this run's MSR operations (ioctl stack) */
};

PERCPU_TABLE(struct kbench_cpu, kcpu);
static trap_handler chained[32];

static const uint32_t lvts[] = {
	APIC_LVT_TIMER, APIC_LVT_THERMAL, APIC_LVT_PMC,
	APIC_LVT_LINT0, APIC_LVT_LINT1, APIC_LVT_ERROR,
};
#define NLVT (sizeof lvts / sizeof lvts[0])

static inline uint64_t lfence_rdtsc(void)
{
	__asm__ volatile("lfence" ::: "memory");
	uint64_t t = rdtsc();
	__asm__ volatile("lfence" ::: "memory");
	return t;
}

/* CPUID.06H:ECX[0], read once by kbench_init (CPUs are alike). */
static bool have_aperf;

/*
 * The measurement points' reader (ring 0, on the kernel stack, SMAP
 * off). The TSC is read last at the start and first at the end, so the
 * other reads stay outside the measured interval.
 */
static void kbench_reader(void *ctx, int phase)
{
	uint64_t *r = kcpu[this_cpu_id()].readings + (phase ? KBENCH_STRIDE : 0);
	if (phase)
		r[KBENCH_TSC] = lfence_rdtsc();
	r[KBENCH_FIXED0] = pmu_rdmsr(MSR_IA32_FIXED_CTR0);
	r[KBENCH_FIXED1] = pmu_rdmsr(MSR_IA32_FIXED_CTR1);
	r[KBENCH_FIXED2] = pmu_rdmsr(MSR_IA32_FIXED_CTR2);
	r[KBENCH_APERF] = have_aperf ? rdmsr(MSR_IA32_APERF) : 0;
	r[KBENCH_MPERF] = have_aperf ? rdmsr(MSR_IA32_MPERF) : 0;
	kbench_msrs_read(kcpu[this_cpu_id()].msrs, r + KBENCH_NREAD);
	if (!phase)
		r[KBENCH_TSC] = lfence_rdtsc();
}

static bool from_kernel(const struct trap_frame *f)
{
	return (f->cs & 3) == 0;
}

/* RDPMC (0F 33) is left to whoever emulates it (the vpmu, under TCG). */
static bool is_rdpmc(uint64_t rip)
{
	const uint8_t *p = (const uint8_t *)rip;
	return p[0] == 0x0f && p[1] == 0x33;
}

static void fault_hook(struct trap_frame *f)
{
	struct kbench_cpu *k = &kcpu[this_cpu_id()];
	unsigned v = (unsigned)f->vector;
	if (!k->active || !from_kernel(f) || (v == VEC_INVALID_OP && is_rdpmc(f->rip))) {
		chained[v](f);
		return;
	}
	k->run->fault_vector = v;
	k->run->fault_rip = f->rip;
	k->run->fault_addr = v == VEC_PAGE_FAULT ? read_cr2() : 0;
	k->run->fault_error = f->error;
	k->active = false;
	f->rip = (uint64_t)kbench_recover;
	f->rsp = k->saved_rsp;
	f->rflags &= ~((1ull << 8) | (1ull << 10) | (1ull << 14) | (1ull << 18)); /* TF DF NT AC */
}

static void mask_lvts(uint32_t saved[NLVT])
{
	for (unsigned i = 0; i < NLVT; i++) {
		saved[i] = apic_read(lvts[i]);
		apic_write(lvts[i], saved[i] | LVT_MASKED);
	}
}

static void restore_lvts(const uint32_t saved[NLVT])
{
	for (unsigned i = 0; i < NLVT; i++)
		apic_write(lvts[i], saved[i]);
	hrtimer_rearm_cpu();
}

/* kbench_enter's functions for the MSR steps of this CPU's run. */
static void apply_msrs(void)
{
	kbench_msrs_apply(kcpu[this_cpu_id()].msrs);
}

static void undo_msrs(void)
{
	kbench_msrs_undo(kcpu[this_cpu_id()].msrs);
}

/* The caller's MSR operations into m: 0, -EFAULT or -EINVAL. */
static int copy_msrs(const struct kbench_run *r, struct kbench_msrs *m)
{
	struct kbench_msr ops[KBENCH_MAX_MSRS];
	if (r->reserved || r->nmsrs > KBENCH_MAX_MSRS)
		return -EINVAL;
	if (r->nmsrs && copy_from_user(ops, (const void *)r->msrs, r->nmsrs * sizeof ops[0]))
		return -EFAULT;
	return kbench_msrs_prepare(m, ops, r->nmsrs);
}

/* Check the caller's addresses and fault in what the reader writes. */
static int prepare(struct kbench_run *r)
{
	uint8_t probe;
	uint64_t zero[2 * KBENCH_STRIDE] = { 0 };
	uint64_t reader = (uint64_t)kbench_reader;
	if ((r->callback_slot | r->readings) & 7)
		return -EINVAL;
	if (copy_from_user(&probe, (const void *)r->code, 1) ||
	    copy_to_user((void *)r->callback_slot, &reader, sizeof reader) ||
	    copy_to_user((void *)r->readings, zero, sizeof zero))
		return -EFAULT;
	return 0;
}

/* With the LVTs masked: the MSR steps, the call, the undo. */
static void run_masked(struct kbench_cpu *k, struct kbench_run *r)
{
	k->active = true;
	bool faulted = kbench_enter(apply_msrs, &k->saved_rsp);
	if (faulted)
		r->fault_msr = k->msrs->cur_op;
	else {
		k->active = true;
		kbench_enter((void (*)(void))r->code, &k->saved_rsp);
	}
	k->active = false;
	kbench_enter(undo_msrs, &k->saved_rsp); /* rewrites what was read: no fault */
}

static long kbench_ioctl(struct file *f, unsigned cmd, uint64_t arg)
{
	struct kbench_run r;
	struct kbench_msrs msrs; /* ~2 KiB of this task's kernel stack */
	if (cmd != KBENCH_IOC_RUN)
		return -ENOTTY;
	if (copy_from_user(&r, (const void *)arg, sizeof r))
		return -EFAULT;
	struct kbench_cpu *k = &kcpu[this_cpu_id()];
	k->msrs = &msrs;
	int err = prepare(&r);
	if (!err)
		err = copy_msrs(&r, k->msrs);
	if (err)
		return err;
	r.fault_vector = r.fault_msr = KBENCH_NO_FAULT;
	r.fault_rip = r.fault_addr = r.fault_error = 0;
	uint32_t saved[NLVT];
	mask_lvts(saved);
	uint64_t cr4 = read_cr4();
	write_cr4(cr4 & ~(CR4_SMEP | CR4_SMAP));
	k->readings = (uint64_t *)r.readings;
	k->run = &r;
	run_masked(k, &r);
	write_cr4(cr4);
	restore_lvts(saved);
	if (r.fault_vector != KBENCH_NO_FAULT && r.fault_msr != KBENCH_NO_FAULT)
		klog("kbench: MSR operation %u raised %s; recovered", r.fault_msr,
		     trap_name(r.fault_vector));
	else if (r.fault_vector != KBENCH_NO_FAULT)
		klog("kbench: the benchmark raised %s at %#llx; recovered",
		     trap_name(r.fault_vector), (unsigned long long)r.fault_rip);
	return copy_to_user((void *)arg, &r, sizeof r) ? -EFAULT : 0;
}

static const struct file_ops kbench_fops = { .ioctl = kbench_ioctl };

void kbench_init(void)
{
	have_aperf = cpuid(0, 0).eax >= 6 && (cpuid(6, 0).ecx & 1);
	for (unsigned v = 0; v < 32; v++) {
		if (v == VEC_DEBUG || v == VEC_NMI || v == VEC_DOUBLE_FAULT ||
		    v == VEC_MACHINE_CHECK)
			continue;
		chained[v] = trap_get_handler(v);
		trap_set_handler(v, fault_hook);
	}
	devfs_register("kbench", 0600, mkdev(10, 240), &kbench_fops);
}
