/* Self-tests: NMI dispatch (unknown NMIs counted), irq_work, and the
 * NMI and PMI rows of /proc/interrupts. */
#include <string.h>
#include "apic.h"
#include "core/fs/fstest.h"
#include "irq_work.h"
#include "core/kernel.h"
#include "nmi.h"
#include "percpu.h"
#include "core/selftest.h"
#include "x86.h"

static volatile int work_runs;
static volatile bool work_ran_in_nmi;

static void note_work(void)
{
	work_runs++;
	work_ran_in_nmi = in_nmi();
}

/* Raised with interrupts off, the work waits for them; raised twice, it
 * runs once; it runs outside the NMI. */
SELFTEST(irq_work_runs_once_later)
{
	static int id = -2;
	if (id == -2)
		id = irq_work_register(note_work);
	ST_CHECK(t, id >= 0);
	unsigned cpu = this_cpu_id();
	uint64_t ipis = irq_work_ipis(cpu);
	work_runs = 0;
	uint64_t f = irq_save();
	irq_work_raise(id);
	irq_work_raise(id);
	ST_CHECK(t, work_runs == 0);
	irq_restore(f);
	for (int i = 0; i < 1000 && !work_runs; i++)
		cpu_relax();
	ST_CHECK(t, work_runs == 1);
	ST_CHECK(t, !work_ran_in_nmi);
	ST_CHECK(t, irq_work_ipis(cpu) == ipis + 1);
}

/* An NMI no handler claims (LVTPC did not deliver it) is counted as
 * unknown, on its CPU, and is no panic. */
SELFTEST(nmi_unknown_counted)
{
	if (trap_get_handler(VEC_NMI)) {
		ST_FAIL(t, "a test NMI handler is installed");
		return;
	}
	unsigned cpu = this_cpu_id();
	uint32_t lvtpc = apic_read(APIC_LVT_PMC);
	ST_CHECK(t, !((lvtpc & LVT_MASKED) && (lvtpc & (7u << 8)) == LVT_DELIVERY_NMI));
	uint64_t all = nmi_count(cpu), unknown = nmi_unknown_count(cpu);
	uint64_t f = irq_save();
	apic_send_ipi(this_cpu()->apic_id, LVT_DELIVERY_NMI);
	irq_restore(f);
	ST_CHECK(t, nmi_count(cpu) == all + 1);
	ST_CHECK(t, nmi_unknown_count(cpu) == unknown + 1);
	ST_CHECK(t, !in_nmi());
}

/* Linux's named rows follow the vector rows. */
SELFTEST(proc_interrupts_nmi_pmi_rows)
{
	static char buf[16384];
	long n = fs_test_read("/proc/interrupts", buf, sizeof(buf) - 1);
	ST_CHECK(t, n > 0);
	buf[n > 0 ? n : 0] = 0;
	ST_CHECK(t, strstr(buf, "\nNMI: ") && strstr(buf, "  Non-maskable interrupts\n"));
	ST_CHECK(t, strstr(buf, "\nPMI: ") && strstr(buf, "  Performance monitoring interrupts\n"));
}
