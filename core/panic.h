/* Panic reports. See panic.c. */
#ifndef BAREMON_PANIC_H
#define BAREMON_PANIC_H

#include "kernel.h"
#include "core/arch/trap.h"

/* Exit status a panic reports to the host (run-qemu.sh maps it to 125). */
#define PANIC_EXIT_STATUS 125

/* Panic with the registers of a trap frame (exceptions). */
void panic_frame(struct trap_frame *f, const char *fmt, ...) __printf(2, 3)
	__noreturn;

/* Print "  #N addr name+off" lines walking the frame-pointer chain from
 * rip/rbp; rsp (or 0) lets it recover the caller of a frameless leaf. */
void backtrace_print(uint64_t rip, uint64_t rbp, uint64_t rsp);

#endif
