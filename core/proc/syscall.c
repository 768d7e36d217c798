/*
 * System-call dispatch. The table is built once at boot from every
 * SYSCALL_DEFINEn entry (section .syscalls) and read-only afterwards.
 */
#include "core/kernel.h"
#include "core/arch/percpu.h"
#include "signal.h"
#include "syscall.h"
#include "task.h"
#include "pmu/perf.h"
#include "userret.h"
#include "ptrace.h"
#include "core/arch/msr-index.h"
#include "core/arch/x86.h"
#include "core/fs/vfs.h"
#include "core/missing.h"
#include "core/proc/vdso.h"

#define EFER_SCE  1ULL
#define RFLAGS_IF (1u << 9)
#define RFLAGS_TF (1u << 8)
#define RFLAGS_DF (1u << 10)
#define RFLAGS_AC (1u << 18)

_Static_assert(offsetof(struct percpu, kernel_rsp) == 16, "syscall_entry.asm");
_Static_assert(offsetof(struct percpu, user_rsp) == 24, "syscall_entry.asm");
/* The fast path's checks (syscall_entry.asm's %defines). */
_Static_assert(offsetof(struct percpu, running) == 8, "syscall_entry.asm");
_Static_assert(offsetof(struct percpu, id) == 32, "syscall_entry.asm");
_Static_assert(PT_SYSCALL == 2, "syscall_entry.asm");
_Static_assert(TP_SYS_EXIT == TP_SYS_ENTER + 1 && TP_SYS_ENTER == 5 &&
	       sizeof(tp_active[0]) == 4, "syscall_entry.asm: one qword for both");
_Static_assert(sizeof(vpmu_counting[0]) == 1, "syscall_entry.asm");
_Static_assert(SYSCALL_LEAN_DECLINE == -ENOIOCTLCMD, "syscall_entry.asm");

extern const struct syscall_entry __syscalls_start[], __syscalls_end[];

static const struct syscall_entry *table[MAX_SYSCALL];
syscall_fast_fn syscall_fast[MAX_SYSCALL];
syscall_lean_fn syscall_lean[MAX_SYSCALL];
syscall_quick_fn syscall_quick[MAX_SYSCALL];
const void *syscall_path[MAX_SYSCALL];
/* syscall_entry.asm's paths (not functions: jumped to, never called). */
extern const char syscall_path_quick[], syscall_path_fast[], syscall_path_lean[],
	syscall_path_full[];

void syscall_init(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < MAX_SYSCALL; i++)
		syscall_path[i] = syscall_path_full;
	for (const struct syscall_entry *e = __syscalls_start; e < __syscalls_end; e++) {
		BUG_ON(e->nr >= MAX_SYSCALL);
		if (table[e->nr])
			panic("syscall %u (%s) defined twice", e->nr, e->name);
		table[e->nr] = e;
		syscall_fast[e->nr] = e->fast;
		if (e->fast)
			syscall_path[e->nr] = syscall_path_fast;
		n++;
	}
	klog("syscall: %u Linux system calls", n);
	missing_init();
}

/* A call with a fast handler has nothing left for a lean one to do. */
void syscall_lean_register(unsigned nr, syscall_lean_fn fn)
{
	BUG_ON(nr >= MAX_SYSCALL || !table[nr] || syscall_fast[nr] || syscall_lean[nr]);
	syscall_lean[nr] = fn;
	if (!syscall_quick[nr])
		syscall_path[nr] = syscall_path_lean;
}

/* A quick handler goes first; a lean one (registered before or after)
 * takes what it declines. */
void syscall_quick_register(unsigned nr, syscall_quick_fn fn)
{
	BUG_ON(nr >= MAX_SYSCALL || !table[nr] || syscall_fast[nr] || syscall_quick[nr]);
	syscall_quick[nr] = fn;
	syscall_path[nr] = syscall_path_quick;
}

void syscall_init_cpu(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	/* SYSRET bases: user CS = 0x10+16 | 3, SS = 0x10+8 | 3 (gdt.h). */
	wrmsr(MSR_STAR, (0x10ULL << 48) | ((uint64_t)0x08 << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_SYSCALL_MASK, RFLAGS_IF | RFLAGS_TF | RFLAGS_DF | RFLAGS_AC);
	vdso_init_cpu(); /* what the vDSO's getcpu reads */
}

const struct syscall_entry *syscall_lookup(uint64_t nr)
{
	return nr < MAX_SYSCALL ? table[nr] : NULL;
}

const char *syscall_name(unsigned nr)
{
	return nr < MAX_SYSCALL && table[nr] ? table[nr]->name : "?";
}

static long unknown(const struct trap_frame *f)
{
	const uint64_t args[6] = { f->rdi, f->rsi, f->rdx, f->r10, f->r8, f->r9 };
	missing_syscall(f->rax, args);
	return -ENOSYS;
}

bool syscall_dispatch(struct trap_frame *f)
{
	struct task *self = current;
	self->frame = f;
	account_user_to_kernel(self);
	irq_enable();
	trace_sys_enter(f);
	/* A tracer may change the call and its arguments, or cancel it. */
	bool cancelled = ptrace_syscall_traced(self) && ptrace_syscall_entry_stop(f);
	uint64_t nr = f->rax;
	const struct syscall_entry *e = nr < MAX_SYSCALL ? table[nr] : NULL;
	long ret = cancelled ? (long)f->rax
		 : e ? e->fn(f->rdi, f->rsi, f->rdx, f->r10, f->r8, f->r9)
		 : unknown(f);
	f->rax = (uint64_t)ret;
	trace_sys_exit(f);
	if (ptrace_syscall_traced(self))
		ptrace_syscall_exit_stop(f);
	return syscall_return(f);
}
