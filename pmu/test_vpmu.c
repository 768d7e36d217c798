/*
 * Self-tests of the software PMU model, through the same accessors the
 * driver uses: what CPUID says, the EN and GLOBAL_CTRL gates, register
 * widths, overflow status and the PMI, and USR/OS filtering while a real
 * user process runs on this CPU. They need the model (a CPU without a
 * PMU, as under TCG) and this CPU's counters free of events; each
 * leaves every model register of the CPU at 0.
 */
#include <asm-generic/mman-common.h>
#include <linux/errno.h>
#include <linux/wait.h>
#include "apic.h"
#include "intel.h"
#include "msr.h"
#include "sched.h"
#include "selftest.h"
#include "syscall.h"
#include "task.h"
#include "tasks.h"
#include "tsc.h"
#include "usermm.h"
#include "vpmu.h"

#define MASK48 ((1ULL << 48) - 1)
#define CYCLES (ARCH_CORE_CYCLES | EVTSEL_EN)
#define GLOBAL_ALL (0xfULL | 7ULL << PMC_IDX_FIXED)

static bool usable(struct selftest_ctx *t)
{
	if (!pmu_model_in_use()) {
		kprintf("selftest: %s: skipped (this CPU has a real PMU)\n", t->name);
		return false;
	}
	if (intel_counters_busy()) {
		ST_FAIL(t, "events hold this CPU's counters");
		return false;
	}
	return true;
}

static void clear_all(void)
{
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0);
	for (uint32_t i = 0; i < VPMU_GP; i++) {
		pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + i, 0);
		pmu_wrmsr(MSR_IA32_A_PMC0 + i, 0);
	}
	for (uint32_t j = 0; j < VPMU_FIXED; j++)
		pmu_wrmsr(MSR_IA32_FIXED_CTR0 + j, 0);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, ~0ULL);
}

SELFTEST(vpmu_cpuid)
{
	if (!usable(t))
		return;
	struct cpuid_regs r = pmu_cpuid(CPUID_PERFMON, 0);
	ST_CHECK(t, PERFMON_EAX_VERSION(r.eax) == 4);
	ST_CHECK(t, PERFMON_EAX_GP(r.eax) == VPMU_GP);
	ST_CHECK(t, PERFMON_EAX_GP_WIDTH(r.eax) == 48);
	ST_CHECK(t, PERFMON_EAX_EBX_LEN(r.eax) == PERFMON_EVENTS);
	/* cycles and reference cycles available, nothing else */
	ST_CHECK(t, r.ebx == 0x7a);
	ST_CHECK(t, PERFMON_EDX_FIXED(r.edx) == VPMU_FIXED);
	ST_CHECK(t, PERFMON_EDX_FIXED_WIDTH(r.edx) == 48);
	ST_CHECK(t, pmu_cpuid(1, 0).ecx & CPUID_1_ECX_PDCM);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PERF_CAPABILITIES) & PERF_CAP_FW_WRITE);
}

/* Counting needs both EN (or a fixed-counter enable) and the counter's
 * GLOBAL_CTRL bit; only the modelled events move. */
SELFTEST(vpmu_enable_gates)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save();
	unsigned cpu = this_cpu_id();
	clear_all();
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_OS);
	udelay(100);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0) == 0);       /* global bit clear */
	ST_CHECK(t, !vpmu_counting[cpu]);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
	ST_CHECK(t, vpmu_counting[cpu]);
	udelay(100);
	uint64_t a = pmu_rdmsr(MSR_IA32_PMC0);
	ST_CHECK(t, a > 0);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, ARCH_CORE_CYCLES | EVTSEL_OS); /* EN off */
	a = pmu_rdmsr(MSR_IA32_PMC0);
	udelay(100);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0) == a);
	ST_CHECK(t, !vpmu_counting[cpu]);

	/* fixed counters: ctrl enable and global bit; instructions never move */
	pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0x111); /* OS for all three */
	udelay(100);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_FIXED_CTR1) == 0);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 7ULL << PMC_IDX_FIXED);
	udelay(100);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_FIXED_CTR1) > 0);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_FIXED_CTR2) > 0);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_FIXED_CTR0) == 0);

	/* GP: reference cycles count, instructions and USR-only do not here */
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + 1, ARCH_REF_CYCLES | EVTSEL_EN | EVTSEL_OS);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + 2, ARCH_INSTRUCTIONS | EVTSEL_EN | EVTSEL_OS);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + 3, CYCLES | EVTSEL_USR);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0xe);
	udelay(100);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0 + 1) > 0);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0 + 2) == 0);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0 + 3) == 0);
	clear_all();
	ST_CHECK(t, !vpmu_counting[cpu]);
	irq_restore(f);
}

SELFTEST(vpmu_register_widths)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save();
	clear_all();
	pmu_wrmsr(MSR_IA32_PMC0, 0x80000000ULL); /* legacy: bit 31 extends */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0) == 0xffff80000000ULL);
	pmu_wrmsr(MSR_IA32_PMC0, 0x7fffffffULL);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_A_PMC0) == 0x7fffffffULL);
	pmu_wrmsr(MSR_IA32_A_PMC0, 0x123456789abcULL);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0) == 0x123456789abcULL);
	pmu_wrmsr(MSR_IA32_FIXED_CTR1, ~0ULL);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_FIXED_CTR1) == MASK48);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_STATUS_SET, 0x5ULL | 2ULL << PMC_IDX_FIXED);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) == (0x5ULL | 2ULL << PMC_IDX_FIXED));
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_STATUS, 0); /* read-only */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) != 0);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, 0x1);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) == (0x4ULL | 2ULL << PMC_IDX_FIXED));
	clear_all();
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) == 0);
	irq_restore(f);
}

/* ---- overflow and the PMI ---- */

static volatile int pmis;

static void count_pmi(struct trap_frame *f)
{
	(void)f;
	pmis++;
	apic_eoi(); /* LVTPC stays masked, as delivery left it */
}

/* Let GP0 (cycles, OS, with or without INT) pass 2^48, then give the
 * PMI a chance with interrupts on. Returns GLOBAL_STATUS. */
static uint64_t overflow_gp0(bool intr)
{
	uint64_t f = irq_save();
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_OS | (intr ? EVTSEL_INT : 0));
	pmu_wrmsr(MSR_IA32_A_PMC0, MASK48 - 1000);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
	udelay(100);
	uint64_t status = pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	irq_restore(f);
	for (int i = 0; i < 1000; i++)
		cpu_relax(); /* a pending PMI is taken here */
	return status;
}

SELFTEST(vpmu_overflow_pmi)
{
	if (!usable(t))
		return;
	trap_handler old = trap_get_handler(VEC_PMI);
	uint32_t old_lvt = apic_read(APIC_LVT_PMC);
	trap_set_handler(VEC_PMI, count_pmi);
	clear_all();
	pmis = 0;

	apic_write(APIC_LVT_PMC, VEC_PMI);
	ST_CHECK(t, overflow_gp0(false) & 1);   /* status without INT ... */
	ST_CHECK(t, pmis == 0);                 /* ... and no PMI */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_A_PMC0) < 1ULL << 40); /* wrapped */
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) == 0);

	ST_CHECK(t, overflow_gp0(true) & 1);
	ST_CHECK(t, pmis == 1);
	ST_CHECK(t, apic_read(APIC_LVT_PMC) & LVT_MASKED); /* delivery masks */
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1);
	ST_CHECK(t, overflow_gp0(true) & 1);    /* masked LVTPC: no PMI */
	ST_CHECK(t, pmis == 1);

	clear_all();
	apic_write(APIC_LVT_PMC, old_lvt);
	trap_set_handler(VEC_PMI, old);
}

/* ---- USR/OS across real mode switches ---- */

extern const struct syscall_entry __syscalls_start[], __syscalls_end[];

static long call(unsigned nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	for (const struct syscall_entry *e = __syscalls_start; e < __syscalls_end; e++)
		if (e->nr == nr)
			return e->fn(a0, a1, a2, 0, 0, 0);
	return -ENOSYS;
}

/* Fork the calling process into a child that spins `loops` times in
 * user mode, then exits. Returns its pid. */
static int fork_spinner(uint32_t loops)
{
	uint8_t code[] = {
		0xb9, (uint8_t)loops, (uint8_t)(loops >> 8), (uint8_t)(loops >> 16),
		(uint8_t)(loops >> 24),         /* mov ecx, loops */
		0xff, 0xc9, 0x75, 0xfc,         /* 1: dec ecx; jnz 1b */
		0xb8, 0xe7, 0x00, 0x00, 0x00,   /* mov eax, exit_group */
		0x31, 0xff, 0x0f, 0x05,         /* xor edi, edi; syscall */
	};
	long pid = call(__NR_fork, 0, 0, 0);
	struct task *c = pid > 0 ? task_find((int)pid) : NULL;
	if (!c)
		return pid > 0 ? -ESRCH : (int)pid;
	/* The child runs only once we sleep: it shares our one CPU. */
	uint64_t at = mm_find_free(c->mm, PAGE_SIZE);
	if (!at || mm_map_anon(c->mm, at, PAGE_SIZE, PROT_READ | PROT_EXEC, 0, "selftest") ||
	    mm_write(c->mm, at, code, sizeof(code)))
		at = 0;
	c->frame->rip = at; /* 0: the child faults and dies, the test fails */
	return (int)pid;
}

static void read_three(uint64_t v[3])
{
	v[0] = pmu_rdmsr(MSR_IA32_PMC0);       /* USR only */
	v[1] = pmu_rdmsr(MSR_IA32_PMC0 + 1);   /* OS only */
	v[2] = pmu_rdmsr(MSR_IA32_FIXED_CTR1); /* both */
}

/* GP0 counts cycles in user mode, GP1 in the kernel, fixed counter 1 in
 * both, started and stopped by one GLOBAL_CTRL write each: whatever
 * happens between, usr + os == all exactly. */
static void run_three(void (*work)(void), uint64_t v[3])
{
	clear_all();
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_USR);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + 1, CYCLES | EVTSEL_OS);
	pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, (FIXED_CTRL_USR | FIXED_CTRL_OS) << 4);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0x3 | 2ULL << PMC_IDX_FIXED);
	work();
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	read_three(v);
	clear_all();
}

static void kernel_spin(void)
{
	udelay(500);
}

static long spinner_status;

/* Run the spinner and reap it. Polling (WNOHANG, then yield to it)
 * rather than sleeping: a signal pending for the calling process would
 * make every interruptible wait return at once. */
static void user_spin(void)
{
	int pid = fork_spinner(2000000);
	long r = pid;
	for (int i = 0; pid > 0 && i < 100000; i++) {
		r = call(__NR_wait4, (uint64_t)pid, 0, WNOHANG);
		if (r != 0)
			break;
		sched_yield_now();
	}
	spinner_status = r == pid ? 0 : r;
}

SELFTEST(vpmu_user_kernel_modes)
{
	if (!usable(t))
		return;
	if (!current->mm) {
		kprintf("selftest: %s: skipped (needs a user process: run it from the shell)\n",
			t->name);
		return;
	}
	uint64_t v[3], affinity = current->affinity;
	current->affinity = 1ULL << this_cpu_id(); /* the child inherits it */
	run_three(kernel_spin, v);
	ST_CHECK(t, v[0] == 0 && v[1] > 0 && v[2] == v[1]);
	run_three(user_spin, v);
	current->affinity = affinity;
	ST_CHECK(t, spinner_status == 0);
	ST_CHECK(t, v[0] > 0);          /* the child's user-mode loop */
	ST_CHECK(t, v[1] > 0);          /* fork, wait, exit, interrupts */
	ST_CHECK(t, v[0] + v[1] == v[2]);
	if (v[0] + v[1] != v[2] || !v[0])
		ST_FAIL(t, "usr %llu os %llu all %llu", (unsigned long long)v[0],
			(unsigned long long)v[1], (unsigned long long)v[2]);
}
