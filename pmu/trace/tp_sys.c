/*
 * The records of the kernel-entry tracepoints (tp_records.h):
 * raw_syscalls:sys_enter and sys_exit around every system call (and
 * there the syscalls:* ones, tp_syscalls.c), and
 * irq:irq_handler_entry before a device interrupt's handler.
 */
#include "core/proc/syscall.h"
#include "tp_records.h"
#include "trace.h"
#include "core/arch/trap.h"

#define IRQ_NAME_MAX 32

void tp_sys_enter(const struct trap_frame *f)
{
	struct tp_sys_enter r = { 0 };
	r.id = (long)f->rax;
	r.args[0] = f->rdi;
	r.args[1] = f->rsi;
	r.args[2] = f->rdx;
	r.args[3] = f->r10;
	r.args[4] = f->r8;
	r.args[5] = f->r9;
	tp_emit(TP_SYS_ENTER, &r, sizeof(r));
	if (__atomic_load_n(&tp_sc_active[0], __ATOMIC_RELAXED))
		tp_syscall_enter(f);
}

void tp_sys_exit(const struct trap_frame *f)
{
	struct tp_sys_exit r = { 0 };
	r.id = f->vector == SYSCALL_VECTOR ? (long)f->error : -1;
	r.ret = (long)f->rax;
	tp_emit(TP_SYS_EXIT, &r, sizeof(r));
	if (__atomic_load_n(&tp_sc_active[1], __ATOMIC_RELAXED))
		tp_syscall_exit(f);
}

void tp_irq_handler_entry(int irq, const char *name)
{
	union {
		struct tp_irq_handler_entry r;
		char buf[sizeof(struct tp_irq_handler_entry) + IRQ_NAME_MAX];
	} u = { 0 };
	uint32_t end = sizeof(u.r);
	u.r.c.common_flags = TRACE_FLAG_HARDIRQ;
	u.r.irq = irq;
	u.r.name = tp_put_str(&u, &end, name ? name : "(null)", IRQ_NAME_MAX);
	tp_emit(TP_IRQ_HANDLER_ENTRY, &u, end);
}
