/*
 * The vDSO's data page ([vvar], one page below the vDSO's text), shared
 * by the kernel (core/proc/vdso.c, the only writer) and the vDSO
 * (vdso/vdso.c, which reads it in user mode). Its clock is the
 * kernel's own (core/arch/tsc.h, core/proc/timekeeping.c):
 *   monotonic ns = ((tsc * mult) >> shift) - boot_ns
 *   realtime ns  = epoch_ns + monotonic ns
 * so a vDSO reading and a system call agree to the nanosecond.
 *
 * Seqlock: the writer makes seq odd, writes the fields, makes it even
 * again (with store fences between); a reader copies the fields between
 * two reads of an equal, even seq, else tries again.
 */
#ifndef BAREMON_VDSO_VVAR_H
#define BAREMON_VDSO_VVAR_H

#include <stdint.h>

#define VDSO_CLOCK_TSC  1u   /* clock_mode: the fields below are valid */
#define VDSO_CPU_RDTSCP 1u   /* cpu_mode: TSC_AUX holds node << 12 | cpu */

struct vdso_data {
	uint32_t seq;
	uint32_t clock_mode;     /* 0: every clock through the system call */
	uint32_t mult, shift;
	uint64_t boot_ns;
	uint64_t epoch_ns;       /* realtime at monotonic 0 */
	uint64_t tai_offset_ns;  /* CLOCK_TAI - CLOCK_REALTIME */
	uint32_t cpu_mode;       /* 0: getcpu through the system call */
	uint32_t pad;
};

#endif
