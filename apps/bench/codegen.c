/*
 * codegen.c: emits the benchmark function described in codegen.h.
 * x86-64 encodings are written out by hand, one helper per instruction
 * form; only [rax + disp32] addressing is used, so no SIB bytes except
 * for lea rsp, [rsp - 8].
 */
#include <stddef.h>
#include <string.h>
#include "codegen.h"
#include "ctx.h"

enum reg { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

/* The registers a read point saves in ctx->save[1..] (rax is save[0]). */
static const enum reg scratch[] = { RCX, RDX, RSI, RDI, R8, R9, R10, R11 };

struct out {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct out *o, const void *bytes, size_t n)
{
	if (o->len + n <= o->cap && o->p)
		memcpy(o->p + o->len, bytes, n);
	o->len += n;
}

static void byte(struct out *o, uint8_t b) { put(o, &b, 1); }

static void imm32(struct out *o, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	put(o, b, 4);
}

static void imm64(struct out *o, uint64_t v)
{
	imm32(o, (uint32_t)v);
	imm32(o, (uint32_t)(v >> 32));
}

/* mov rax, imm64 */
static void mov_rax_imm(struct out *o, uint64_t v)
{
	byte(o, 0x48);
	byte(o, 0xb8);
	imm64(o, v);
}

/* mov [rax + disp], r (store) or mov r, [rax + disp] (load) */
static void mov_mem(struct out *o, enum reg r, uint32_t disp, bool load)
{
	byte(o, (uint8_t)(0x48 | (r >= R8 ? 0x04 : 0)));
	byte(o, load ? 0x8b : 0x89);
	byte(o, (uint8_t)(0x80 | (r & 7) << 3));
	imm32(o, disp);
}

/* The ModRM form `op [rax + disp]` with a /digit opcode extension. */
static void rax_disp(struct out *o, const uint8_t *op, size_t n, unsigned digit, uint32_t disp)
{
	put(o, op, n);
	byte(o, (uint8_t)(0x80 | digit << 3));
	imm32(o, disp);
}

#define OFF(field) ((uint32_t)offsetof(struct bench_ctx, field))

static void prologue(struct out *o, uint64_t ctx)
{
	static const uint8_t pushes[] = { 0x53, 0x55, 0x41, 0x54, 0x41, 0x55,
					  0x41, 0x56, 0x41, 0x57 };
	put(o, pushes, sizeof pushes);
	mov_rax_imm(o, ctx);
	mov_mem(o, RSP, OFF(entry_rsp), false);
	mov_mem(o, R14, OFF(init_r14), true);
	mov_mem(o, RDI, OFF(init_rdi), true);
	mov_mem(o, RSI, OFF(init_rsi), true);
	mov_mem(o, RBP, OFF(init_rbp), true);
	mov_mem(o, RSP, OFF(init_rsp), true);
}

static void epilogue(struct out *o, uint64_t ctx)
{
	static const uint8_t pops[] = { 0x41, 0x5f, 0x41, 0x5e, 0x41, 0x5d,
					0x41, 0x5c, 0x5d, 0x5b, 0xc3 };
	mov_rax_imm(o, ctx);
	mov_mem(o, RSP, OFF(entry_rsp), true);
	put(o, pops, sizeof pops);
}

/*
 * A measurement point: call ctx->reader(ctx, phase) on the stack below
 * entry_rsp, leaving every general register, the flags and the x87/SSE
 * state as the snippet had them. Flags are pushed before the first
 * instruction that changes them (and rsp, -16).
 */
static void read_point(struct out *o, uint64_t ctx, int phase)
{
	static const uint8_t fx[] = { 0x48, 0x0f, 0xae };
	static const uint8_t call[] = { 0xff };
	byte(o, 0x48); byte(o, 0xa3); imm64(o, ctx + OFF(save[0]));   /* mov [abs], rax */
	mov_rax_imm(o, ctx);
	for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; i++)
		mov_mem(o, scratch[i], OFF(save[1 + i]), false);
	mov_mem(o, RSP, OFF(snippet_rsp), false);
	mov_mem(o, RSP, OFF(entry_rsp), true);
	byte(o, 0x9c);                                                 /* pushfq */
	byte(o, 0xfc);                                                 /* cld */
	static const uint8_t align[] = { 0x48, 0x83, 0xe4, 0xf0 };     /* and rsp, -16 */
	put(o, align, sizeof align);
	rax_disp(o, fx, sizeof fx, 0, OFF(fxsave));                    /* fxsave64 */
	static const uint8_t args[] = { 0x48, 0x89, 0xc7, 0xbe };      /* mov rdi, rax; mov esi, */
	put(o, args, sizeof args);
	imm32(o, (uint32_t)phase);
	rax_disp(o, call, sizeof call, 2, OFF(reader));                /* call [rax + reader] */
	mov_rax_imm(o, ctx);
	rax_disp(o, fx, sizeof fx, 1, OFF(fxsave));                    /* fxrstor64 */
	mov_mem(o, RSP, OFF(entry_rsp), true);
	static const uint8_t lea_popf[] = { 0x48, 0x8d, 0x64, 0x24, 0xf8, 0x9d }; /* lea rsp, [rsp-8]; popfq */
	put(o, lea_popf, sizeof lea_popf);
	mov_mem(o, RSP, OFF(snippet_rsp), true);
	for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; i++)
		mov_mem(o, scratch[i], OFF(save[1 + i]), true);
	byte(o, 0x48); byte(o, 0xa1); imm64(o, ctx + OFF(save[0]));   /* mov rax, [abs] */
}

/* lfence; rdtsc or rdpmc (ecx = idx); lfence; rax = edx:eax */
static void fenced_read(struct out *o, bool pmc, uint32_t idx)
{
	static const uint8_t lfence[] = { 0x0f, 0xae, 0xe8 };
	static const uint8_t combine[] = { 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0 }; /* shl rdx, 32; or rax, rdx */
	if (pmc) {
		byte(o, 0xb9);                                         /* mov ecx, idx */
		imm32(o, idx);
	}
	put(o, lfence, sizeof lfence);
	byte(o, 0x0f);
	byte(o, pmc ? 0x33 : 0x31);
	put(o, lfence, sizeof lfence);
	put(o, combine, sizeof combine);
}

/* mov [abs], rax */
static void store_abs(struct out *o, uint64_t addr)
{
	byte(o, 0x48); byte(o, 0xa3); imm64(o, addr);
}

/*
 * -no_mem's measurement points. Point 0: counters into R9.., the TSC
 * last into R8. Point 1: the TSC first, then the counters, each stored
 * at once (the measured interval has ended), then R8.. stored as
 * point 0's readings.
 */
static void read_point_no_mem(struct out *o, const struct codegen_in *in, int phase)
{
	uint64_t r0 = in->ctx_addr + OFF(reading[0]), r1 = in->ctx_addr + OFF(reading[1]);
	if (phase == 0) {
		for (unsigned i = 0; i < in->n_pmc; i++) {
			fenced_read(o, true, in->pmc_index[i]);
			byte(o, 0x49); byte(o, 0x89); byte(o, (uint8_t)(0xc1 + i)); /* mov r9+i, rax */
		}
		fenced_read(o, false, 0);
		byte(o, 0x49); byte(o, 0x89); byte(o, 0xc0);               /* mov r8, rax */
		return;
	}
	fenced_read(o, false, 0);
	store_abs(o, r1);
	for (unsigned i = 0; i < in->n_pmc; i++) {
		fenced_read(o, true, in->pmc_index[i]);
		store_abs(o, r1 + 8 * (1 + i));
	}
	for (unsigned i = 0; i <= in->n_pmc; i++) {
		byte(o, 0x4c); byte(o, 0x89); byte(o, (uint8_t)(0xc0 | i << 3)); /* mov rax, r8+i */
		store_abs(o, r0 + 8 * i);
	}
}

static void measure_point(struct out *o, const struct codegen_in *in, int phase)
{
	if (in->no_mem)
		read_point_no_mem(o, in, phase);
	else
		read_point(o, in->ctx_addr, phase);
}

/* nanoBench's -df: 128 15-byte NOPs drain the front end's buffers. */
static void drain(struct out *o)
{
	static const uint8_t nop15[] = { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e,
					 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 };
	for (int i = 0; i < 128; i++)
		put(o, nop15, sizeof nop15);
}

static void body(struct out *o, const struct codegen_in *in, struct codegen_map *m)
{
	if (in->loop_count) {
		byte(o, 0x49); byte(o, 0xbf); imm64(o, in->loop_count);   /* mov r15, n */
	}
	while (o->len % 64 != in->alignment_offset % 64)
		byte(o, 0x90);
	size_t top = o->len;
	m->body_off = top;
	for (uint64_t i = 0; i < in->copies; i++)
		put(o, in->code.bytes, in->code.len);
	m->body_end = o->len;
	if (in->loop_count) {
		static const uint8_t dec_jnz[] = { 0x49, 0xff, 0xcf, 0x0f, 0x85 };
		put(o, dec_jnz, sizeof dec_jnz);
		imm32(o, (uint32_t)(int32_t)(top - (o->len + 4)));
	}
}

size_t codegen(const struct codegen_in *in, uint8_t *out, size_t cap,
	       struct codegen_map *map)
{
	struct codegen_map m;
	struct out o = { out, 0, cap };
	prologue(&o, in->ctx_addr);
	m.init_off = o.len;
	put(&o, in->init.bytes, in->init.len);
	if (in->measure)
		measure_point(&o, in, 0);
	m.late_off = o.len;
	put(&o, in->late_init.bytes, in->late_init.len);
	if (in->drain_frontend)
		drain(&o);
	body(&o, in, &m);
	if (in->measure)
		measure_point(&o, in, 1);
	epilogue(&o, in->ctx_addr);
	if (o.len > cap)
		return 0;
	if (map)
		*map = m;
	return o.len;
}

size_t codegen_bound(const struct codegen_in *in)
{
	struct out o = { NULL, 0, 0 };
	struct codegen_map m;
	prologue(&o, 0);
	put(&o, NULL, in->init.len);
	read_point(&o, 0, 0);
	put(&o, NULL, in->late_init.len);
	if (in->drain_frontend)
		drain(&o);
	o.len += 10 + 63;
	body(&o, in, &m);
	read_point(&o, 0, 1);
	epilogue(&o, 0);
	return o.len + 64;
}
