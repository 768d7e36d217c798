/*
 * codegen.h: the benchmark as machine code (nanoBench's "generated code",
 * docs/bench.md):
 *
 *   prologue    push the callee-saved registers, remember rsp, point
 *               R14 RDI RSI RBP RSP at their 1 MiB areas
 *   init        -code_init
 *   read 0      the reader at phase 0; no register or flag changes
 *               (-no_mem: inline rdtsc/rdpmc into R8-R11, see below)
 *   late_init   -code_late_init, then 128 15-byte NOPs with -df
 *   loop        (loop_count > 0) mov r15, loop_count; then, aligned to
 *               64 + alignment_offset, `copies` copies of the code and
 *               dec r15; jnz back
 *   read 1      the reader at phase 1
 *   epilogue    restore rsp and the callee-saved registers, ret
 *
 * Pure: bytes in, bytes out; the address of the bench_ctx is compiled in.
 */
#ifndef BENCH_CODEGEN_H
#define BENCH_CODEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snippet {
	const uint8_t *bytes;
	size_t len;
};

struct codegen_in {
	struct snippet code, init, late_init;
	uint64_t ctx_addr;        /* struct bench_ctx, absolute */
	uint64_t copies;          /* copies of code in the loop body; 0: none */
	uint64_t loop_count;      /* 0: no loop, the copies run once */
	unsigned alignment_offset;
	bool drain_frontend;      /* -df */
	bool measure;             /* false: no read points (one-time init) */
	/* -no_mem: the read points use no memory until the second has read
	 * everything: point 0 keeps the TSC in R8 and up to three RDPMC
	 * counters (pmc_index[i], slot 1 + i) in R9-R11; point 1 stores both
	 * points' values. They change RAX, RCX, RDX and the flags. */
	bool no_mem;
	unsigned n_pmc;
	uint32_t pmc_index[3];
};

/* Where the parts landed, to name a faulting instruction. */
struct codegen_map {
	size_t init_off, late_off, body_off, body_end;
};

/*
 * Write the function into out[0..cap); returns its length, or 0 if cap is
 * too small. map may be NULL.
 */
size_t codegen(const struct codegen_in *in, uint8_t *out, size_t cap,
	       struct codegen_map *map);

/* The size codegen needs at most for `in` (for sizing the buffer). */
size_t codegen_bound(const struct codegen_in *in);

#endif
