/*
 * Linux system calls. Each call is a function registered with
 * SYSCALL_DEFINE(name) under its Linux number (from <asm/unistd_64.h>), in
 * whatever file implements it; syscall.c builds the dispatch table from
 * those entries at boot. Handlers return a value or a negative errno, which
 * goes back to user space unchanged in RAX.
 *
 * Handlers run in the calling task's context with interrupts enabled and
 * may sleep. The saved user registers are current_frame().
 */
#ifndef BAREMON_SYSCALL_H
#define BAREMON_SYSCALL_H

#include <stdint.h>
#include <asm/unistd_64.h>
#include <linux/errno.h>
#include "arch/trap.h"

typedef long (*syscall_fn)(uint64_t a0, uint64_t a1, uint64_t a2,
			   uint64_t a3, uint64_t a4, uint64_t a5);

struct syscall_entry {
	unsigned nr;
	const char *name;
	syscall_fn fn;
};

#define SYSCALL_DEFINE(sname)                                                \
	static long sys_##sname(uint64_t, uint64_t, uint64_t, uint64_t,      \
				uint64_t, uint64_t);                         \
	static const struct syscall_entry syscall_entry_##sname              \
		__attribute__((section(".syscalls"), used, aligned(8))) =     \
			{ __NR_##sname, #sname, sys_##sname };               \
	static long sys_##sname(uint64_t a0, uint64_t a1, uint64_t a2,       \
				uint64_t a3, uint64_t a4, uint64_t a5)

/* Silence unused-argument warnings in handlers that take fewer. */
#define SYSCALL_UNUSED_ARGS() \
	((void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5)

#define SYSCALL_VECTOR 0x100 /* trap_frame.vector for a syscall entry */
#define MAX_SYSCALL 512

void syscall_init(void);       /* build the table (boot CPU, once) */
void syscall_init_cpu(void);   /* program STAR/LSTAR/FMASK on this CPU */
const char *syscall_name(unsigned nr);

#endif
