/*
 * Self-tests of the software PMU model, through the same accessors the
 * driver uses: what CPUID says, the EN and GLOBAL_CTRL gates, register
 * widths, overflow status and the PMI, and USR/OS filtering while a real
 * user process runs on this CPU. They need the model (a CPU without a
 * PMU, as under TCG) in its default Intel mode (arch perfmon v4: the
 * machinery they test is the same in every mode; test_modes.c checks
 * the other modes' register maps) and this CPU's counters free of
 * events; each leaves every model register of the CPU at 0.
 */
#include <string.h>
#include <asm-generic/mman-common.h>
#include <linux/errno.h>
#include <linux/wait.h>
#include "core/arch/apic.h"
#include "pmu/x86/intel/intel.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"
#include "core/proc/sched.h"
#include "core/selftest.h"
#include "core/proc/syscall.h"
#include "core/proc/task.h"
#include "core/proc/tasks.h"
#include "core/arch/tsc.h"
#include "core/mm/usermm.h"
#include "vpmu.h"
#include "core/proc/waitq.h"

#define MASK48 ((1ULL << 48) - 1)
#define CYCLES (ARCH_CORE_CYCLES | EVTSEL_EN)
#define GLOBAL_ALL (0xfULL | 7ULL << PMC_IDX_FIXED)
#define VPMU_GP 4     /* the intel mode's counters */
#define VPMU_FIXED 3

static bool usable(struct selftest_ctx *t)
{
	if (!pmu_model_in_use()) {
		ST_SKIP(t, "this CPU has a real PMU");
		return false;
	}
	if (strcmp(vpmu_mode_name(), "intel") != 0) {
		ST_SKIP(t, "vpmu=%s, not intel", vpmu_mode_name());
		return false;
	}
	if (x86_counters_busy()) {
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
	/* all but LLC references, LLC misses and branch misses */
	ST_CHECK(t, r.ebx == 0x58);
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

	/* fixed counters: ctrl enable and global bit; kernel instructions
	 * move only with the instruction clock (the kernel is never stepped) */
	pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, 0x111); /* OS for all three */
	udelay(100);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_FIXED_CTR1) == 0);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 7ULL << PMC_IDX_FIXED);
	udelay(100);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_FIXED_CTR1) > 0);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_FIXED_CTR2) > 0);
	ST_CHECK(t, (pmu_rdmsr(MSR_IA32_FIXED_CTR0) > 0) == vpmu_icount_on());

	/* GP: reference cycles count, kernel instructions as fixed 0 does,
	 * USR-only nothing here */
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + 1, ARCH_REF_CYCLES | EVTSEL_EN | EVTSEL_OS);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + 2, ARCH_INSTRUCTIONS | EVTSEL_EN | EVTSEL_OS);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0 + 3, CYCLES | EVTSEL_USR);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0xe);
	udelay(100);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PMC0 + 1) > 0);
	ST_CHECK(t, (pmu_rdmsr(MSR_IA32_PMC0 + 2) > 0) == vpmu_icount_on());
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

/* PMIs counted in `pmis` for the length of a test, LVTPC on VEC_PMI
 * (unmasked), the model cleared; pmi_catch_end puts all back. */
struct pmi_catch {
	trap_handler handler;
	uint32_t lvt;
};

static struct pmi_catch pmi_catch_begin(void)
{
	struct pmi_catch c = { trap_get_handler(VEC_PMI), apic_read(APIC_LVT_PMC) };
	trap_set_handler(VEC_PMI, count_pmi);
	clear_all();
	pmis = 0;
	apic_write(APIC_LVT_PMC, VEC_PMI);
	return c;
}

static void pmi_catch_end(const struct pmi_catch *c)
{
	clear_all();
	apic_write(APIC_LVT_PMC, c->lvt);
	trap_set_handler(VEC_PMI, c->handler);
}

SELFTEST(vpmu_overflow_pmi)
{
	if (!usable(t))
		return;
	struct pmi_catch saved = pmi_catch_begin();

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

	pmi_catch_end(&saved);
}

/* A wrap in user time is noticed at the next kernel entry; its PMI is
 * raised at once (taken when interrupts come back) and marked as the
 * user's, once (vpmu_pmi_frame then hands the PMI handler the task's
 * user frame). A wrap in kernel time is not marked. (Mode changes by
 * hand, with interrupts off: no trap hook moves the model meanwhile.) */
SELFTEST(vpmu_user_wrap_marked)
{
	if (!usable(t))
		return;
	struct pmi_catch saved = pmi_catch_begin();

	uint64_t f = irq_save();
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_USR | EVTSEL_INT);
	pmu_wrmsr(MSR_IA32_A_PMC0, MASK48 - 1000);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
	vpmu_set_mode(VPMU_USER);
	udelay(100);                         /* "user" time: the wrap */
	vpmu_set_mode(VPMU_KERNEL);          /* the kernel entry notices it */
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & 1);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	ST_CHECK(t, vpmu_pmi_user_mark());   /* marked, */
	ST_CHECK(t, !vpmu_pmi_user_mark());  /* once */
	irq_restore(f);
	for (int i = 0; i < 1000; i++)
		cpu_relax();
	ST_CHECK(t, pmis == 1);              /* raised at once */

	/* a kernel-time wrap: raised, not marked */
	f = irq_save();
	apic_write(APIC_LVT_PMC, VEC_PMI); /* delivery masked it */
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_OVF_CTRL, 1);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_OS | EVTSEL_INT);
	pmu_wrmsr(MSR_IA32_A_PMC0, MASK48 - 1000);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
	udelay(100);
	ST_CHECK(t, pmu_rdmsr(MSR_IA32_PERF_GLOBAL_STATUS) & 1);
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	ST_CHECK(t, !vpmu_pmi_user_mark());
	irq_restore(f);
	for (int i = 0; i < 1000; i++)
		cpu_relax();
	ST_CHECK(t, pmis == 2);

	pmi_catch_end(&saved);
}

/* When the model will look next: the first wrap of a counter with its
 * PMI enabled that counts in the current mode. */
SELFTEST(vpmu_wrap_due)
{
	if (!usable(t))
		return;
	uint64_t f = irq_save();
	clear_all();
	ST_CHECK(t, vpmu_wrap_due() == ~0ULL);
	pmu_wrmsr(MSR_IA32_A_PMC0, MASK48 - 1000000000ULL);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_OS);       /* no INT */
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1);
	ST_CHECK(t, vpmu_wrap_due() == ~0ULL);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_OS | EVTSEL_INT);
	uint64_t now = rdtsc(), due = vpmu_wrap_due();
	ST_CHECK(t, due > now + 900000000ULL && due <= now + 1000000001ULL);
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_USR | EVTSEL_INT); /* kernel now */
	ST_CHECK(t, vpmu_wrap_due() == ~0ULL);
	/* fixed counter 1 with its PMI bit, nearer: it decides */
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_OS | EVTSEL_INT);
	pmu_wrmsr(MSR_IA32_FIXED_CTR1, MASK48 - 500000000ULL);
	pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, (FIXED_CTRL_OS | FIXED_CTRL_PMI) << FIXED_CTRL_SHIFT(1));
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1 | 2ULL << PMC_IDX_FIXED);
	now = rdtsc();
	due = vpmu_wrap_due();
	ST_CHECK(t, due > now + 400000000ULL && due <= now + 500000001ULL);
	clear_all();
	ST_CHECK(t, vpmu_wrap_due() == ~0ULL);
	irq_restore(f);
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

/* Child programs, x86-64 code: spin 10,000,000 times (989680H); the
 * same after one getppid; 100,000 (186A0H) getppids. Each then calls
 * exit_group(0). */
#define EXIT_0 0xb8, 0xe7, 0x00, 0x00, 0x00, 0x31, 0xff, 0x0f, 0x05
#define SPIN 0xb9, 0x80, 0x96, 0x98, 0x00, 0xff, 0xc9, 0x75, 0xfc  /* 1: dec ecx; jnz 1b */
#define GETPPID 0xb8, __NR_getppid, 0x00, 0x00, 0x00, 0x0f, 0x05  /* mov eax, nr; syscall */
static const uint8_t spin_prog[] = { SPIN, EXIT_0 };
static const uint8_t getppid_spin_prog[] = { GETPPID, SPIN, EXIT_0 };
static const uint8_t getppids_prog[] = {
	0xbb, 0xa0, 0x86, 0x01, 0x00,   /* mov ebx, 100000 */
	GETPPID, 0xff, 0xcb, 0x75, 0xf5, /* 1: getppid; dec ebx; jnz 1b */
	EXIT_0,
};

/* Fork the calling process into a child that runs `prog`. */
static int fork_child(const uint8_t *prog, size_t len)
{
	long pid = call(__NR_fork, 0, 0, 0);
	/* No pin needed: c is our child, which only we can reap, and it
	 * has not run yet. */
	struct task *c = pid > 0 ? task_find((int)pid) : NULL;
	if (!c)
		return pid > 0 ? -ESRCH : (int)pid;
	/* The child runs only once we sleep: it shares our one CPU. */
	uint64_t at = mm_find_free(c->mm, PAGE_SIZE);
	if (!at || mm_map_anon(c->mm, at, PAGE_SIZE, PROT_READ | PROT_EXEC, 0, "selftest") ||
	    mm_write(c->mm, at, prog, len))
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

static const uint8_t *child_prog;
static size_t child_len;
static long child_status;

/* Run the child and reap it. Polling (WNOHANG, then yield to it)
 * rather than sleeping: a signal pending for the calling process would
 * make every interruptible wait return at once. */
static void run_child(void)
{
	int pid = fork_child(child_prog, child_len);
	long r = pid;
	for (int i = 0; pid > 0 && i < 100000; i++) {
		r = call(__NR_wait4, (uint64_t)pid, 0, WNOHANG);
		if (r != 0)
			break;
		sched_yield_now();
	}
	child_status = r == pid ? 0 : r;
}

static void run_prog(const uint8_t *prog, size_t len, uint64_t v[3])
{
	child_prog = prog;
	child_len = len;
	run_three(run_child, v);
}

static void check_three(struct selftest_ctx *t, const uint64_t v[3])
{
	ST_CHECK(t, child_status == 0);
	ST_CHECK(t, v[0] > 0);          /* the child's user-mode part */
	ST_CHECK(t, v[1] > 0);          /* fork, wait, exit, interrupts */
	ST_CHECK(t, v[0] + v[1] == v[2]);
	if (v[0] + v[1] != v[2] || !v[0])
		ST_FAIL(t, "usr %llu os %llu all %llu", (unsigned long long)v[0],
			(unsigned long long)v[1], (unsigned long long)v[2]);
}

/* The kernel alone counts no user cycles. A child's loop counts as user
 * time whether it starts on the first trip to user mode or after a
 * system call returned (about as much: not a quarter of it); a child
 * making system calls adds kernel time (under TCG its user share is
 * large, the emulated syscall and iretq being slow, but the kernel's
 * part is more than a tenth of it). Each run: usr + os == all exactly. */
SELFTEST(vpmu_user_kernel_modes)
{
	if (!usable(t))
		return;
	if (!current->mm) {
		ST_SKIP(t, "needs a user process: run it from the shell");
		return;
	}
	uint64_t v[3], after_call[3], calls[3];
	struct cpumask affinity = current->affinity;
	current->affinity = cpumask_of(this_cpu_id()); /* the children inherit it */
	run_three(kernel_spin, v);
	ST_CHECK(t, v[0] == 0 && v[1] > 0 && v[2] == v[1]);
	run_prog(spin_prog, sizeof(spin_prog), v);
	check_three(t, v);
	run_prog(getppid_spin_prog, sizeof(getppid_spin_prog), after_call);
	check_three(t, after_call);
	run_prog(getppids_prog, sizeof(getppids_prog), calls);
	check_three(t, calls);
	current->affinity = affinity;
	ST_CHECK(t, after_call[0] > v[0] / 4);
	ST_CHECK(t, calls[1] > v[1] && calls[1] - v[1] > calls[0] / 10);
	if (calls[1] <= v[1] || calls[1] - v[1] <= calls[0] / 10)
		ST_FAIL(t, "getppid child: usr %llu os %llu; spinning child os %llu",
			(unsigned long long)calls[0], (unsigned long long)calls[1],
			(unsigned long long)v[1]);
}

/* ---- halted time ---- */

static void sleep_ms(unsigned ms)
{
	uint64_t deadline = time_since_boot_ns() + ms * 1000000ULL;
	while (time_since_boot_ns() < deadline) {
		current->state = TASK_SLEEPING_UNINT; /* a pending signal must not cut it short */
		schedule_until(deadline);
	}
}

/* Unhalted cycles (GP0) and reference cycles (fixed counter 2), all
 * modes, while this CPU idles in hlt for 50 ms, then spins 5 ms in the
 * kernel: the spin counts whole (the interrupt that ended the hlt put
 * the model back in kernel mode), most of the sleep does not. */
SELFTEST(vpmu_halted_not_counted)
{
	if (!usable(t))
		return;
	struct cpumask affinity = current->affinity;
	current->affinity = cpumask_of(this_cpu_id());
	clear_all();
	pmu_wrmsr(MSR_IA32_PERFEVTSEL0, CYCLES | EVTSEL_USR | EVTSEL_OS);
	pmu_wrmsr(MSR_IA32_FIXED_CTR_CTRL, (FIXED_CTRL_USR | FIXED_CTRL_OS) << 8);
	uint64_t t0 = rdtsc();
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 1 | 4ULL << PMC_IDX_FIXED);
	sleep_ms(50);
	uint64_t t1 = rdtsc();
	udelay(5000);
	uint64_t t2 = rdtsc();
	pmu_wrmsr(MSR_IA32_PERF_GLOBAL_CTRL, 0);
	uint64_t cycles = pmu_rdmsr(MSR_IA32_PMC0), ref = pmu_rdmsr(MSR_IA32_FIXED_CTR2);
	clear_all();
	current->affinity = affinity;
	uint64_t spun = t2 - t1, slept = t1 - t0;
	ST_CHECK(t, cycles >= spun && ref >= spun);
	ST_CHECK(t, cycles < spun + slept / 2 && ref < spun + slept / 2);
	if (cycles < spun || cycles >= spun + slept / 2)
		ST_FAIL(t, "%llu cycles for %llu ticks asleep, %llu spinning",
			(unsigned long long)cycles, (unsigned long long)slept,
			(unsigned long long)spun);
}
