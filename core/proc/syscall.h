/*
 * Linux system calls. Each call is defined in whatever file implements it
 * with SYSCALL_DEFINEn(name, type1, arg1, ..., typen, argn), as Linux's
 * include/linux/syscalls.h does: that gives a typed handler sys_<name>()
 * and registers an untyped stub under the call's Linux number (from
 * <asm/unistd_64.h>); syscall.c builds the dispatch table from those
 * entries at boot. Handlers return a value or a negative errno, which goes
 * back to user space unchanged in RAX.
 *
 * The stub converts each 64-bit register to the declared type with a
 * plain C cast: an int argument is the register's low 32 bits, a 64-bit
 * type takes the whole register. A user pointer is declared __user (a
 * marker for the reader; nothing checks it); one that is only handed on
 * to helpers taking user addresses as integers is a uint64_t.
 *
 * Handlers run in the calling task's context with interrupts enabled and
 * may sleep. The saved user registers are current_frame().
 */
#ifndef BAREMON_SYSCALL_H
#define BAREMON_SYSCALL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <asm/unistd_64.h>
#include <linux/errno.h>
#include "core/arch/trap.h"

/* syscall_entry.asm reads syscall_path[nr], syscall_fast[nr], syscall_lean[nr] and syscall_quick[nr] below
 * this bound. */
#define MAX_SYSCALL 512

/* The dispatch table's view of a handler: six raw argument registers. */
typedef long (*syscall_fn)(uint64_t a0, uint64_t a1, uint64_t a2,
			   uint64_t a3, uint64_t a4, uint64_t a5);

/* A fast call (SYSCALL_DEFINE0_FAST): no arguments, see below. */
typedef long (*syscall_fast_fn)(void);

struct syscall_entry {
	unsigned nr;
	const char *name;
	syscall_fn fn;
	syscall_fast_fn fast; /* the typed handler of a fast call, or NULL */
	unsigned nargs;
	/* The parameters as written: "type1, name1, type2, name2, ..."
	 * (the syscalls:sys_enter_<name> tracepoints' fields) */
	const char *params;
};

/* The entry of call nr, or NULL when baremon has none. */
const struct syscall_entry *syscall_lookup(uint64_t nr);

/* Marks a user-space pointer in a handler's parameters. */
#ifndef __user
#define __user
#endif

/* "t1 a1, t2 a2, ..." from "t1, a1, t2, a2, ...". */
#define SC_DECL0(...) void
#define SC_DECL1(t, a) t a
#define SC_DECL2(t, a, ...) t a, SC_DECL1(__VA_ARGS__)
#define SC_DECL3(t, a, ...) t a, SC_DECL2(__VA_ARGS__)
#define SC_DECL4(t, a, ...) t a, SC_DECL3(__VA_ARGS__)
#define SC_DECL5(t, a, ...) t a, SC_DECL4(__VA_ARGS__)
#define SC_DECL6(t, a, ...) t a, SC_DECL5(__VA_ARGS__)

/* "(t1)r0, (t2)r1, ..." : the raw registers converted to the types. */
#define SC_CAST0(...)
#define SC_CAST1(t1, a1) (t1)r0
#define SC_CAST2(t1, a1, t2, a2) SC_CAST1(t1, a1), (t2)r1
#define SC_CAST3(t1, a1, t2, a2, t3, a3) SC_CAST2(t1, a1, t2, a2), (t3)r2
#define SC_CAST4(t1, a1, t2, a2, t3, a3, t4, a4) \
	SC_CAST3(t1, a1, t2, a2, t3, a3), (t4)r3
#define SC_CAST5(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5) \
	SC_CAST4(t1, a1, t2, a2, t3, a3, t4, a4), (t5)r4
#define SC_CAST6(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5, t6, a6) \
	SC_CAST5(t1, a1, t2, a2, t3, a3, t4, a4, t5, a5), (t6)r5

/*
 * The typed handler sys_<name>, its untyped stub sys_<name>_regs and the
 * table entry. The handler's body follows the macro. The handler is never
 * inlined, so a panic's backtrace names it (sys_write, not the stub).
 */
#define SYSCALL_DEFINEx(n, name, ...) SYSCALL_DEFINE_ENTRY(n, NULL, name, __VA_ARGS__)

#define SYSCALL_DEFINE_ENTRY(n, fast, name, ...)                             \
	static long __attribute__((noinline)) sys_##name(SC_DECL##n(__VA_ARGS__)); \
	static long sys_##name##_regs(uint64_t r0, uint64_t r1, uint64_t r2, \
				      uint64_t r3, uint64_t r4, uint64_t r5) \
	{                                                                    \
		return sys_##name(SC_CAST##n(__VA_ARGS__));                  \
	}                                                                    \
	static const struct syscall_entry syscall_entry_##name               \
		__attribute__((section(".syscalls"), used, aligned(8))) =     \
			{ __NR_##name, #name, sys_##name##_regs, fast, n,    \
			  #__VA_ARGS__ };                                      \
	static long sys_##name(SC_DECL##n(__VA_ARGS__))

#define SYSCALL_DEFINE0(name) SYSCALL_DEFINEx(0, name)
/*
 * A fast call: syscall_entry.asm runs it on a lean path (no trap frame,
 * interrupts off from SYSCALL to SYSRET, no accounting boundary: its few
 * instructions count as user time, as they would under tick accounting).
 * Only for a handler that reads the calling task's own state: it must not
 * sleep, enable interrupts, fault, take a lock an interrupt handler takes,
 * touch current_frame() or leave work for the return to user mode. The
 * lean path is skipped (the call runs as any other) while the task is
 * traced, single-stepped, has TASK_WORK_* bits, the vpmu counts on the CPU
 * or a raw_syscalls tracepoint listens.
 */
#define SYSCALL_DEFINE0_FAST(name) SYSCALL_DEFINE_ENTRY(0, sys_##name, name)
/*
 * A lean handler: another way into an existing call, for the cases it can
 * finish alone (the perf event file's read and ioctls: pmu/events/fd_ops.c). It
 * runs on the same lean path as a fast call (interrupts off from SYSCALL
 * to SYSRET, no trap frame, no accounting boundary) with the call's six
 * arguments, and either finishes the call (a value or -errno) or returns
 * SYSCALL_LEAN_DECLINE having changed nothing: the entry then takes the
 * full path with the registers as the program passed them, and the
 * ordinary handler does the call. Besides a fast call's rules (never
 * sleep, enable interrupts or leave work for the return to user mode), a
 * lean handler touches user memory only with page faults disabled
 * (mm/uaccess.h's copy_words_to_user_nofault), declining when a copy
 * fails, and does
 * nothing that waits for another CPU (an IPI). Registered at boot
 * (syscall_lean_register), before user programs run.
 */
typedef syscall_fn syscall_lean_fn;
#define SYSCALL_LEAN_DECLINE (-515L) /* ENOIOCTLCMD: never reaches users */
void syscall_lean_register(unsigned nr, syscall_lean_fn fn);
/* The lean handlers by number (read by syscall_entry.asm). */
extern syscall_lean_fn syscall_lean[MAX_SYSCALL];

/*
 * A quick handler: a lean handler's cases that need no lock and no
 * arguments past the third, called by syscall_entry.asm with no
 * registers saved: it must preserve every register but RAX itself
 * (SYSCALL_QUICK, GCC's no_caller_saved_registers) and calls nothing
 * that does not. Besides a lean handler's rules, it never returns an
 * error: it returns the call's value (>= 0) or SYSCALL_QUICK_DECLINE(nr)
 * having changed nothing, and the call then goes to nr's lean handler,
 * if any, else the full way, with the program's registers.
 */
#define SYSCALL_QUICK __attribute__((no_caller_saved_registers))
typedef long (*syscall_quick_fn)(uint64_t, uint64_t, uint64_t);
#define SYSCALL_QUICK_DECLINE(nr) (~(long)(nr))
void syscall_quick_register(unsigned nr, syscall_quick_fn fn);
extern syscall_quick_fn syscall_quick[MAX_SYSCALL];
/* The way syscall_entry.asm takes for each number (its labels), after
 * the checks every call passes: set at boot, read-only afterwards. */
extern const void *syscall_path[MAX_SYSCALL];

#define SYSCALL_DEFINE1(name, ...) SYSCALL_DEFINEx(1, name, __VA_ARGS__)
#define SYSCALL_DEFINE2(name, ...) SYSCALL_DEFINEx(2, name, __VA_ARGS__)
#define SYSCALL_DEFINE3(name, ...) SYSCALL_DEFINEx(3, name, __VA_ARGS__)
#define SYSCALL_DEFINE4(name, ...) SYSCALL_DEFINEx(4, name, __VA_ARGS__)
#define SYSCALL_DEFINE5(name, ...) SYSCALL_DEFINEx(5, name, __VA_ARGS__)
#define SYSCALL_DEFINE6(name, ...) SYSCALL_DEFINEx(6, name, __VA_ARGS__)

#define SYSCALL_VECTOR 0x100 /* trap_frame.vector for a syscall entry */

void syscall_init(void);       /* build the table (boot CPU, once) */
void syscall_init_cpu(void);   /* program STAR/LSTAR/FMASK on this CPU */
const char *syscall_name(unsigned nr);
/* The fast calls' handlers by number, NULL for the others (filled by
 * syscall_init, read-only afterwards; read by syscall_entry.asm). */
extern syscall_fast_fn syscall_fast[MAX_SYSCALL];

struct trap_frame;
/* Run the system call in f->rax (arch/syscall_entry.asm calls it).
 * Returns with interrupts off; true: f may leave by SYSRET. */
bool syscall_dispatch(struct trap_frame *f);
/* The SYSCALL instruction's target (arch/syscall_entry.asm). */
void syscall_entry(void);

#endif
