/*
 * CPU exceptions: from user mode they become signals for the faulting
 * thread (Linux's choice of signal and si_code); from kernel mode a page
 * fault on user memory is resolved or fixed up (uaccess.asm), anything
 * else is a panic. A fault on a kernel stack's guard page (mm/kstack.h),
 * usually a #DF on its IST stack because the #PF could not be pushed,
 * panics as "kernel stack overflow".
 */
#include <asm/siginfo.h>
#include <linux/errno.h>
#include <asm/signal.h>
#include "core/kernel.h"
#include "core/panic.h"
#include "pmu/perf.h"
#include "core/proc/signal.h"
#include "core/proc/task.h"
#include "trap.h"
#include "core/mm/uaccess.h"
#include "core/mm/usermm.h"
#include "x86.h"
#include "gdt.h"
#include "core/mm/mm.h"


static bool from_user(const struct trap_frame *f)
{
	return (f->cs & 3) == 3;
}

extern uint8_t boot_stack[];

/* Which stack starts just above the guard page at `guard`. */
static const char *stack_name(uint64_t guard)
{
	uint64_t base = guard + PAGE_SIZE;
	unsigned cpu = this_cpu_id();
	static const char *const ist_names[IST_COUNT] = {
		"#DF IST stack", "NMI IST stack", "#MC IST stack"
	};
	if (current && base == current->kstack)
		return "kernel stack of the running task";
	if (base == (uint64_t)boot_stack)
		return "boot stack";
	for (unsigned i = 1; i <= IST_COUNT; i++)
		if (base == ist_stack_top(cpu, i) - IST_STACK_SIZE)
			return ist_names[i - 1];
	return "kernel stack of another task or CPU";
}

static void __noreturn stack_overflow(struct trap_frame *f, uint64_t addr)
{
	struct task *t = current;
	uint64_t guard = ALIGN_DOWN(addr, PAGE_SIZE);
	panic_frame(f, "kernel stack overflow: %s[%d] on cpu %u ran into the guard page at %#llx (%s)",
		    t ? t->comm : "-", t ? t->tid : -1, this_cpu_id(),
		    (unsigned long long)guard, stack_name(guard));
}

/* A #DF, on its own IST stack. The one we expect: a kernel stack ran
 * into its guard page and the #PF could not be pushed there (CR2 still
 * names the guard page). */
static void double_fault(struct trap_frame *f)
{
	uint64_t addr = read_cr2();
	if (vm_is_guard(addr))
		stack_overflow(f, addr);
	if (vm_is_guard(f->rsp - 8))
		stack_overflow(f, f->rsp - 8);
	panic_frame(f, "unhandled %s", trap_name((unsigned)f->vector));
}

static void page_fault(struct trap_frame *f)
{
	uint64_t addr = read_cr2();
	struct task *t = current;
	int r = -EFAULT;
	bool user_addr = addr < USER_TOP;
	bool may_resolve = from_user(f) || uaccess_may_resolve(f->rip);
	if (user_addr && t && t->mm && may_resolve)
		r = mm_handle_fault(t->mm, addr, f->error);
	if (r == 0) {
		t->minflt++;
		enum perf_sw_where where = from_user(f) ? PERF_SW_USER : PERF_SW_KERNEL;
		struct perf_hit hit = { .regs = f, .addr = addr };
		perf_sw_event_at(PERF_COUNT_SW_PAGE_FAULTS, 1, where, &hit);
		perf_sw_event_at(PERF_COUNT_SW_PAGE_FAULTS_MIN, 1, where, &hit);
		perf_wakeup_pending();
		return;
	}
	if (from_user(f)) {
		if (r == -ENOMEM) {
			/* No page to give: killed, as by Linux's OOM killer
			 * (which would pick the biggest process; here the
			 * one that asked). */
			klog("oom: killed %s[%d]: no memory for a page at %#llx",
			     t->comm, t->tid, (unsigned long long)addr);
			signal_force(SIGKILL, SI_KERNEL, 0);
			return;
		}
		if (r == -ENXIO)
			signal_force(SIGBUS, BUS_ADRERR, addr);
		else
			signal_force(SIGSEGV, r == -EACCES ? SEGV_ACCERR : SEGV_MAPERR, addr);
		return;
	}
	uint64_t fixup = uaccess_fixup(f->rip);
	if (fixup && user_addr) {
		f->rip = fixup;
		return;
	}
	if (!user_addr && vm_is_guard(addr))
		stack_overflow(f, addr);
	panic_frame(f, "page fault at %#llx in the kernel", (unsigned long long)addr);
}

struct user_fault {
	int sig, code;
};

static struct user_fault user_signal(unsigned vector)
{
	switch (vector) {
	case VEC_DIVIDE: return (struct user_fault){ SIGFPE, FPE_INTDIV };
	case VEC_DEBUG: return (struct user_fault){ SIGTRAP, TRAP_TRACE };
	case VEC_BREAKPOINT: return (struct user_fault){ SIGTRAP, SI_KERNEL };
	case VEC_INVALID_OP: return (struct user_fault){ SIGILL, ILL_ILLOPN };
	case 16: case 19: return (struct user_fault){ SIGFPE, 0 };
	case 17: return (struct user_fault){ SIGBUS, BUS_ADRALN };
	default: return (struct user_fault){ SIGSEGV, SI_KERNEL };
	}
}

static void exception(struct trap_frame *f)
{
	if (f->vector == VEC_PAGE_FAULT) {
		page_fault(f);
		return;
	}
	uint64_t fixup = f->vector == VEC_GP && !from_user(f) ? uaccess_fixup(f->rip) : 0;
	if (fixup) { /* a checked WRMSR or RDPMC (pmu/x86/msr_extable.c) */
		f->rip = fixup;
		return;
	}
	if (!from_user(f))
		panic_frame(f, "unhandled %s", trap_name((unsigned)f->vector));
	struct user_fault u = user_signal((unsigned)f->vector);
	uint64_t addr = u.sig == SIGSEGV ? 0 : f->rip;
	if (f->vector == VEC_BREAKPOINT)
		addr = 0;
	signal_force(u.sig, u.code, addr);
}

void exceptions_init(void)
{
	for (unsigned v = 0; v < 32; v++)
		if (v != VEC_NMI && v != VEC_DOUBLE_FAULT && v != VEC_MACHINE_CHECK)
			trap_set_handler(v, exception);
	trap_set_handler(VEC_DOUBLE_FAULT, double_fault);
}
