/*
 * The x86 drivers' PMI (Intel's and AMD's, pmu/x86/pmi.h): how LVTPC
 * delivers it and what runs in it; the driver's ops handle the
 * overflows.
 *
 * `pmi=nmi` (the default, as Linux): LVTPC delivers the PMI as an NMI,
 * so code running with interrupts off - system calls' entry and exit,
 * the scheduler's locked sections, perf_lock holders - is sampled where
 * it runs. The NMI handler takes no lock the interrupted code may hold:
 *
 *   - it trylocks perf_lock (the lock of event state: counts,
 *     period_left, throttle and freq state, what notify.c owes) and,
 *     holding it, handles the overflows and writes the samples itself.
 *     The ring buffers need no lock: their writer is lock-free and
 *     NMI-safe (ringbuf/write.c); a write only sets this CPU's
 *     perf_wakeup, and what takes other locks (owners' signals,
 *     SIGTRAP, REFRESH's disable, pollers' wake-ups) is queued by
 *     notify.c and ring writes for perf_wakeup_pending(), which runs
 *     from irq_work (a self-IPI, taken when the interrupted code allows
 *     interrupts);
 *   - the PMI is deferred only where the NMI cannot go on: perf_lock is
 *     taken (here or on another CPU: event state is mid-change), or the
 *     NMI landed inside the software model (vpmu_busy: an NMI from
 *     another source; the model's own is sent once its update is whole,
 *     and handled here). Then it copies the interrupted registers and
 *     hands the whole PMI to its maskable vector, VEC_PMI, sent to this
 *     CPU (like irq_work, taken once interrupts are allowed; the model
 *     counts that vector's time as the profiler's own, not the measured
 *     code's): the counters stay frozen and LVTPC masked until then,
 *     and the samples still carry the registers the NMI interrupted and
 *     the kernel callchain walked in the NMI (the stack has moved on by
 *     the time the vector is taken);
 *   - an NMI is this driver's when LVTPC, in NMI mode, is masked: the
 *     CPU masks it on delivery (Intel SDM 18.2.1) and only the end of
 *     the PMI unmasks it. Others are left to nmi.c (unknown NMIs).
 *
 * `pmi=irq`: a maskable interrupt on VEC_PMI, for comparison; code with
 * interrupts off is not sampled (its overflow is taken, and attributed,
 * where interrupts come back on).
 *
 * Either way the PMI ends by unmasking LVTPC (delivery masked it), and
 * a status that does not clear after X86_PMI_MAX_LOOPS rounds resets
 * the PMU, reported once in the log (from irq_work: the log takes a
 * lock).
 *
 * Locking: the per-CPU arrays belong to their CPU; owed[c] and frames[c]
 * are written by the NMI and read by the VEC_PMI handler on CPU c, which
 * cannot run while the NMI does.
 */
#include <string.h>
#include "core/arch/apic.h"
#include "core/arch/irq_work.h"
#include "core/arch/nmi.h"
#include "core/arch/percpu.h"
#include "core/cmdline.h"
#include "pmu/events/event.h"
#include "pmu/x86/pmi.h"
#include "core/kernel.h"
#include "pmu/x86/msr.h"
#include "pmu/perf.h"
#include "core/arch/percpu_table.h"

static const struct x86_pmi_ops *ops; /* the driver's */
static bool nmi_mode = true;
static uint64_t pmi_counts[MAX_CPUS], deferred_counts[MAX_CPUS];
#define CHAIN_MAX 64
PERCPU_TABLE(struct trap_frame, frames); /* the NMI's registers, owed */
PERCPU_TABLE(uint64_t[CHAIN_MAX], chains); /* and its kernel callchain */
static uint32_t chain_nr[MAX_CPUS];
static bool owed[MAX_CPUS];                /* frames[c] waits for VEC_PMI */
static bool direct_for_test[MAX_CPUS];
static int work_wakeup = -1, work_report = -1;
static uint64_t stuck_count;
static bool stuck_reported;

bool x86_pmi_is_nmi(void)
{
	return nmi_mode;
}

uint32_t x86_lvtpc(void)
{
	return nmi_mode ? (LVT_DELIVERY_NMI | VEC_PMI) : VEC_PMI;
}

static void unmask_lvtpc(void)
{
	apic_write(APIC_LVT_PMC, x86_lvtpc());
}

void x86_pmi_stuck(void)
{
	stuck_count++;
	irq_work_raise(work_report);
}

static void report_stuck(void)
{
	if (stuck_reported)
		return;
	stuck_reported = true;
	klog("pmu: cpu %u: PMI loop stuck after %d rounds: counters reset",
	     this_cpu_id(), X86_PMI_MAX_LOOPS);
}

/* ---- maskable ---- */

static void pmi_deferred(void);

/* VEC_PMI: the PMI itself with pmi=irq; with pmi=nmi, the PMI an NMI
 * handed over (LVTPC never sends this vector in NMI mode). */
static void pmi_irq(struct trap_frame *f)
{
	if (nmi_mode) {
		apic_eoi();
		pmi_deferred();
		return;
	}
	pmi_counts[this_cpu_id()]++;
	struct perf_hit where = { .regs = f };
	spin_lock(&perf_lock);
	ops->handle(&where);
	spin_unlock(&perf_lock);
	unmask_lvtpc();
	apic_eoi();
	perf_wakeup_pending(); /* pollers of the buffers written */
}

/* ---- NMI ---- */

/* The PMI the NMI handed over, with the registers it interrupted.
 * Interrupts off, no lock held. */
static void pmi_deferred(void)
{
	unsigned cpu = this_cpu_id();
	if (!owed[cpu])
		return;
	struct perf_hit where = { .regs = &frames[cpu], .kchain = chains[cpu],
				  .kchain_nr = chain_nr[cpu] };
	spin_lock(&perf_lock);
	ops->handle(&where);
	spin_unlock(&perf_lock);
	owed[cpu] = false;
	unmask_lvtpc();
	perf_wakeup_pending();
}

static bool must_defer(unsigned cpu)
{
	if (pmu_model_busy() && !direct_for_test[cpu])
		return true;
	return !spin_trylock(&perf_lock);
}

static bool pmi_nmi(struct trap_frame *f)
{
	uint32_t lvt = apic_read(APIC_LVT_PMC);
	if ((lvt & (LVT_MASKED | (7u << 8))) != (LVT_MASKED | LVT_DELIVERY_NMI))
		return ops->claim_late && ops->claim_late(); /* LVTPC was not delivered */
	unsigned cpu = this_cpu_id();
	pmi_counts[cpu]++;
	if (owed[cpu])
		return true; /* LVTPC is masked until VEC_PMI handles it */
	if (must_defer(cpu)) {
		frames[cpu] = *f;
		chain_nr[cpu] = (f->cs & 3) == 3 ? 0 : perf_kernel_chain(f, chains[cpu], CHAIN_MAX);
		owed[cpu] = true;
		deferred_counts[cpu]++;
		self_ipi(VEC_PMI);
		return true;
	}
	struct perf_hit where = { .regs = f };
	ops->handle(&where);
	spin_unlock(&perf_lock);
	unmask_lvtpc();
	if (perf_wakeup_owed())
		irq_work_raise(work_wakeup);
	return true;
}

/* ---- boot ---- */

void x86_pmi_init(const struct x86_pmi_ops *o)
{
	ops = o;
	const char *mode = cmdline_get("pmi");
	if (mode && strcmp(mode, "irq") == 0)
		nmi_mode = false;
	else if (mode && strcmp(mode, "nmi") != 0)
		klog("pmu: pmi=%s unknown (nmi or irq): nmi", mode);
	work_wakeup = irq_work_register(perf_wakeup_pending);
	work_report = irq_work_register(report_stuck);
	trap_set_handler(VEC_PMI, pmi_irq);
	nmi_register(pmi_nmi);
	klog("pmu: cpu: PMI delivered as %s", nmi_mode ? "an NMI" : "a maskable interrupt (pmi=irq)");
}

/* ---- counts ---- */

uint64_t x86_pmi_count(unsigned cpu)
{
	return pmi_counts[cpu];
}

/* /proc/interrupts' PMI row: whichever driver took them. */
uint64_t perf_pmi_count(unsigned cpu)
{
	return pmi_counts[cpu];
}

uint64_t x86_pmi_deferred_count(unsigned cpu)
{
	return deferred_counts[cpu];
}

uint64_t x86_pmi_stuck_count(void)
{
	return stuck_count;
}

void x86_test_nmi_direct(bool on)
{
	direct_for_test[this_cpu_id()] = on;
}
