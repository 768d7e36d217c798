/*
 * ctx.h: the memory the generated code shares with the C side (codegen.c
 * emits its offsets; run.c and the kernel's reader fill it). One per
 * process, 64-byte aligned.
 *
 * The generated function never trusts a register after the snippet ran:
 * it finds this block through the absolute address compiled into it.
 */
#ifndef BENCH_CTX_H
#define BENCH_CTX_H

#include <stdint.h>
#include "pmu/kbench/kbench_uapi.h"

/* Counter slots a measurement point reads: the TSC, up to 8 counters of
 * one set and the fixed counters (user mode), or the kernel's list. */
#define BENCH_SLOTS KBENCH_STRIDE

struct bench_ctx;
typedef void (*bench_reader)(struct bench_ctx *ctx, int phase);

struct bench_ctx {
	uint8_t fxsave[512];      /* the snippet's x87/SSE state (fxsave64) */
	uint64_t entry_rsp;       /* rsp after the prologue's pushes */
	uint64_t snippet_rsp;     /* rsp while the reader runs */
	uint64_t save[9];         /* rax rcx rdx rsi rdi r8 r9 r10 r11 */
	uint64_t init_r14, init_rdi, init_rsi, init_rbp, init_rsp;
	bench_reader reader;      /* called at each measurement point */
	uint64_t reading[2][BENCH_SLOTS]; /* [phase][slot] */
} __attribute__((aligned(64)));

#endif
