/*
 * kbench_uapi.h: the interface of /dev/kbench, the kernel mode of the
 * `bench` harness (docs/bench.md). Shared by the kernel (pmu/kbench/)
 * and the program (apps/bench/); plain C types only.
 *
 * The program builds the benchmark as an ordinary function in its own
 * address space (mapped PROT_EXEC, every page touched) and asks the
 * kernel to call it in ring 0 on the calling CPU:
 *
 *   struct kbench_run r = { .code = fn, .callback_slot = &ctx.callback,
 *                           .readings = ctx.reading };
 *   ioctl(fd, KBENCH_IOC_RUN, &r);
 *
 * Before the call the kernel stores the address of its counter-reading
 * function in *callback_slot; the generated code calls it at its two
 * measurement points as callback(ctx, phase) with phase 0 (start) and 1
 * (end), and the kernel writes KBENCH_NREAD values to
 * readings[phase * KBENCH_STRIDE + i] in the order of enum kbench_read.
 *
 * While the function runs the CPU's local APIC LVT entries are masked
 * (not cli: interrupts held pending by cli can slow retirement) and
 * SMEP/SMAP are off so ring 0 may run and touch the user pages. An
 * exception raised by the function ends the call: the ioctl returns 0
 * with fault_vector set and fault_rip the faulting instruction's address
 * (the program turns it into an offset in its code).
 *
 * msrs (nmsrs entries, at most KBENCH_MAX_MSRS) are MSR operations
 * around the call, as nanoBench's kernel module does them:
 *   KBENCH_MSR_WRITE  msr = value before the call;
 *   KBENCH_MSR_READ   msr read at both measurement points into the next
 *                     free reading slot (from KBENCH_NREAD on);
 *   KBENCH_MSR_PMC    programmable counter `msr` (0, 1, ...) counts the
 *                     PERFEVTSEL value `value` (event, umask, edge, inv,
 *                     cmask, USR, OS; the kernel sets EN) from zero and is
 *                     read like KBENCH_MSR_READ.
 * Every register written is restored after the call, so the perf
 * events that own the counters find them as they left them (they miss
 * what happened meanwhile). Writes happen in order before the call, in
 * ring 0 with the same recovery as the function: a write or read that
 * faults (#GP for an MSR the CPU does not have) ends the run with
 * fault_vector set and fault_msr the index of the operation; otherwise
 * fault_msr is KBENCH_NO_FAULT. A counter the PMU does not have is
 * EINVAL, as are more reads than slots and an unknown op.
 */
#ifndef BAREMON_KBENCH_UAPI_H
#define BAREMON_KBENCH_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

enum kbench_read {
	KBENCH_TSC,          /* lfence; rdtsc; lfence */
	KBENCH_FIXED0,       /* IA32_FIXED_CTR0: instructions retired */
	KBENCH_FIXED1,       /* IA32_FIXED_CTR1: core cycles */
	KBENCH_FIXED2,       /* IA32_FIXED_CTR2: reference cycles */
	KBENCH_APERF,        /* 0 when CPUID.06H:ECX[0] is clear */
	KBENCH_MPERF,
	KBENCH_NREAD
};

/* Distance between the two phases' readings, in __u64s. */
#define KBENCH_STRIDE 16

#define KBENCH_NO_FAULT 0xffffffffu

#define KBENCH_MSR_WRITE 0
#define KBENCH_MSR_READ  1
#define KBENCH_MSR_PMC   2
#define KBENCH_MAX_MSRS  32
/* Reading slots left for KBENCH_MSR_READ and KBENCH_MSR_PMC. */
#define KBENCH_MAX_MSR_READS (KBENCH_STRIDE - KBENCH_NREAD)

struct kbench_msr {
	__u32 msr;           /* the MSR, or the counter for KBENCH_MSR_PMC */
	__u32 op;            /* KBENCH_MSR_WRITE, _READ or _PMC */
	__u64 value;         /* WRITE: the value; PMC: the event select */
};

struct kbench_run {
	__u64 code;          /* in: the function to call, void fn(void) */
	__u64 callback_slot; /* in: where the kernel puts its reader's address */
	__u64 readings;      /* in: __u64[2 * KBENCH_STRIDE] */
	__u32 fault_vector;  /* out: KBENCH_NO_FAULT, or the exception */
	__u32 fault_msr;     /* out: the msrs[] entry that faulted, or KBENCH_NO_FAULT */
	__u64 fault_rip;     /* out: where it was raised */
	__u64 fault_addr;    /* out: CR2 for a page fault */
	__u64 fault_error;   /* out: the error code, if the vector has one */
	__u64 msrs;          /* in: struct kbench_msr[nmsrs], or 0 */
	__u32 nmsrs;         /* in */
	__u32 reserved;      /* in: 0 */
};

#define KBENCH_IOC_RUN _IOWR('K', 1, struct kbench_run)

#endif
