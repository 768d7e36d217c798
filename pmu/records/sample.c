/*
 * PERF_RECORD_SAMPLE: the fields attr.sample_type asks for, in Linux's
 * order, written into the event's ring buffer. What baremon cannot know
 * is what Linux reports when it cannot know it either: weight 0,
 * data_src "not available", transaction 0, no AUX data; RAW without a
 * payload is Linux's 4-byte placeholder.
 *
 * Runs under perf_lock with interrupts off. User memory (callchain,
 * user stack) is read with page faults disabled: a page not present is
 * where the walk stops, never a fault taken here.
 */
#include <string.h>
#include <asm/perf_regs.h>
#include "pmu/events/event.h"
#include "boot/bootinfo.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "records.h"
#include "pmu/events/hit.h"
#include "core/proc/task.h"
#include "core/arch/tsc.h"
#include "core/mm/uaccess.h"
#include "core/mm/usermm.h"
#include "core/fs/vfs.h"
#include "core/arch/percpu_table.h"

#define MAX_CHAIN 256        /* entries, markers included */
#define MAX_STACK_USER 65528 /* Linux caps sample_stack_user below 64 KiB */

struct sample {
	struct perf_event *e;
	const struct perf_hit *hit;
	struct trap_frame *regs;  /* where it happened */
	struct trap_frame *uregs; /* the task's user registers, or NULL */
	uint64_t period;
	uint64_t chain[MAX_CHAIN];
	uint32_t chain_nr;
	uint64_t read[64];
	uint32_t read_size;
	uint64_t stack_size;      /* bytes of user stack to copy */
};

static bool user_mode(const struct trap_frame *f)
{
	return f && (f->cs & 3) == 3;
}

/* ---- reading user memory without faulting ---- */

static bool peek_user(uint64_t addr, void *dst, size_t n)
{
	this_cpu()->pagefault_disabled++;
	bool ok = copy_from_user(dst, (const void *)addr, n) == 0;
	this_cpu()->pagefault_disabled--;
	return ok;
}

/* ---- callchain ---- */

static void chain_add(struct sample *s, uint64_t ip, uint32_t max)
{
	if (s->chain_nr < max)
		s->chain[s->chain_nr++] = ip;
}

/* Frame-pointer walk: [rbp] is the caller's rbp, [rbp+8] the return
 * address; frames must go up the stack. */
static void walk_user(struct sample *s, const struct trap_frame *r, uint32_t max)
{
	chain_add(s, PERF_CONTEXT_USER, max);
	chain_add(s, r->rip, max);
	uint64_t fp = r->rbp;
	while (s->chain_nr < max && fp && !(fp & 7) && fp < USER_TOP - 16) {
		uint64_t frame[2];
		if (!peek_user(fp, frame, sizeof(frame)) || !frame[1])
			break;
		chain_add(s, frame[1], max);
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
}

uint32_t perf_kernel_chain(const struct trap_frame *r, uint64_t *ips, uint32_t max)
{
	uint32_t n = 0;
	uint64_t fp = r->rbp;
	while (n < max && fp >= PHYSMAP_BASE && !(fp & 7)) {
		const uint64_t *frame = (const uint64_t *)fp;
		if (frame[1] < KERNEL_VMA_BASE)
			break;
		ips[n++] = frame[1];
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	return n;
}

static void walk_kernel(struct sample *s, const struct trap_frame *r, uint32_t max)
{
	chain_add(s, PERF_CONTEXT_KERNEL, max);
	chain_add(s, r->rip, max);
	if (s->hit && s->hit->kchain) {
		for (uint32_t i = 0; i < s->hit->kchain_nr; i++)
			chain_add(s, s->hit->kchain[i], max);
		return;
	}
	if (s->chain_nr < max)
		s->chain_nr += perf_kernel_chain(r, s->chain + s->chain_nr, max - s->chain_nr);
}

static void build_chain(struct sample *s)
{
	const struct perf_event_attr *a = &s->e->attr;
	uint32_t depth = a->sample_max_stack ? a->sample_max_stack
					     : (uint32_t)sysctl_perf_event_max_stack();
	uint32_t max = depth + 2 < MAX_CHAIN ? depth + 2 : MAX_CHAIN;
	s->chain_nr = 0;
	if (s->regs && !user_mode(s->regs) && !a->exclude_callchain_kernel)
		walk_kernel(s, s->regs, max);
	if (s->uregs && !a->exclude_callchain_user)
		walk_user(s, s->uregs, max);
}

/* ---- registers ---- */

static uint64_t reg_value(const struct trap_frame *f, int idx)
{
	switch (idx) {
	case PERF_REG_X86_AX: return f->rax;
	case PERF_REG_X86_BX: return f->rbx;
	case PERF_REG_X86_CX: return f->rcx;
	case PERF_REG_X86_DX: return f->rdx;
	case PERF_REG_X86_SI: return f->rsi;
	case PERF_REG_X86_DI: return f->rdi;
	case PERF_REG_X86_BP: return f->rbp;
	case PERF_REG_X86_SP: return f->rsp;
	case PERF_REG_X86_IP: return f->rip;
	case PERF_REG_X86_FLAGS: return f->rflags;
	case PERF_REG_X86_CS: return f->cs;
	case PERF_REG_X86_SS: return f->ss;
	case PERF_REG_X86_R8: return f->r8;
	case PERF_REG_X86_R9: return f->r9;
	case PERF_REG_X86_R10: return f->r10;
	case PERF_REG_X86_R11: return f->r11;
	case PERF_REG_X86_R12: return f->r12;
	case PERF_REG_X86_R13: return f->r13;
	case PERF_REG_X86_R14: return f->r14;
	case PERF_REG_X86_R15: return f->r15;
	default: return 0; /* ds, es, fs, gs: not kept in 64-bit mode */
	}
}

static uint32_t regs_size(const struct trap_frame *f, uint64_t mask)
{
	return 8 + (f ? 8 * popcount64(mask) : 0);
}

static void put_regs(struct rb_output *o, const struct trap_frame *f, uint64_t mask)
{
	uint64_t abi = f ? PERF_SAMPLE_REGS_ABI_64 : PERF_SAMPLE_REGS_ABI_NONE;
	rb_output_copy(o, &abi, 8);
	for (int i = 0; f && i < 64; i++) {
		if (!(mask >> i & 1))
			continue;
		uint64_t v = reg_value(f, i);
		rb_output_copy(o, &v, 8);
	}
}

/* ---- the record ---- */

static uint32_t raw_padded(const struct perf_hit *h)
{
	uint32_t size = 4 + (h && h->raw ? h->raw_size : 4);
	return (size + 7) & ~7u;
}

/* PERF_SAMPLE_BRANCH_STACK: nr, hw_idx with BRANCH_HW_INDEX, then nr
 * perf_branch_entry records, newest first (the driver's). hw_idx is the
 * driver's (Linux's: legacy LBR's top of stack, else 0), -1 (unknown)
 * when the driver gave no records. */
static uint32_t branch_nr(const struct sample *s)
{
	return s->hit && s->hit->branches ? s->hit->branches_nr : 0;
}

static bool branch_hw_index(const struct sample *s)
{
	return s->e->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX;
}

static uint32_t branch_stack_size(const struct sample *s)
{
	return 8 + (branch_hw_index(s) ? 8 : 0) +
	       (uint32_t)sizeof(struct perf_branch_entry) * branch_nr(s);
}

static uint32_t sample_size(struct sample *s)
{
	uint64_t t = s->e->attr.sample_type;
	uint32_t size = sizeof(struct perf_event_header);
	size += 8 * popcount64(t & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
		PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP |
		PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX));
	if (t & PERF_SAMPLE_READ)
		size += s->read_size;
	if (t & PERF_SAMPLE_CALLCHAIN)
		size += 8 + 8 * s->chain_nr;
	if (t & PERF_SAMPLE_RAW)
		size += raw_padded(s->hit);
	if (t & PERF_SAMPLE_BRANCH_STACK)
		size += branch_stack_size(s);
	if (t & PERF_SAMPLE_REGS_USER)
		size += regs_size(s->uregs, s->e->attr.sample_regs_user);
	if (t & PERF_SAMPLE_STACK_USER)
		size += s->uregs ? 16 + s->stack_size : 8;
	if (t & PERF_SAMPLE_REGS_INTR)
		size += regs_size(s->regs, s->e->attr.sample_regs_intr);
	return size;
}

static void put_u64(struct rb_output *o, uint64_t v)
{
	rb_output_copy(o, &v, 8);
}

static void put_raw(struct rb_output *o, const struct perf_hit *h)
{
	uint32_t padded = raw_padded(h);
	uint32_t size = padded - 4;
	uint8_t zero[8] = { 0 };
	rb_output_copy(o, &size, 4);
	uint32_t n = h && h->raw ? h->raw_size : 0;
	if (n)
		rb_output_copy(o, h->raw, n);
	rb_output_copy(o, zero, size - n);
}

static void put_stack_user(struct rb_output *o, struct sample *s)
{
	if (!s->uregs) {
		put_u64(o, 0);
		return;
	}
	put_u64(o, s->stack_size);
	uint64_t done = 0, sp = s->uregs->rsp;
	uint8_t chunk[256];
	while (done < s->stack_size) {
		uint64_t n = s->stack_size - done < sizeof(chunk) ? s->stack_size - done : sizeof(chunk);
		if (!peek_user(sp + done, chunk, n))
			break;
		rb_output_copy(o, chunk, (uint32_t)n);
		done += n;
	}
	memset(chunk, 0, sizeof(chunk));
	for (uint64_t pad = done; pad < s->stack_size; pad += sizeof(chunk)) {
		uint64_t n = s->stack_size - pad < sizeof(chunk) ? s->stack_size - pad : sizeof(chunk);
		rb_output_copy(o, chunk, (uint32_t)n);
	}
	put_u64(o, done); /* dyn_size: what was really there */
}

static uint64_t data_src_na(void)
{
	return PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(SNOOP, NA) |
	       PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA);
}

static void put_fields(struct rb_output *o, struct sample *s)
{
	struct perf_event *e = s->e;
	uint64_t t = e->attr.sample_type;
	struct task *cur = current;
	const struct trap_frame *r = s->regs;
	uint64_t addr = s->hit ? s->hit->addr : 0;
	if (t & PERF_SAMPLE_IDENTIFIER) put_u64(o, e->id);
	if (t & PERF_SAMPLE_IP) put_u64(o, r ? r->rip : 0);
	if (t & PERF_SAMPLE_TID) put_u64(o, (uint64_t)(uint32_t)cur->tid << 32 | (uint32_t)cur->tgid);
	if (t & PERF_SAMPLE_TIME) put_u64(o, perf_event_clock(e));
	if (t & PERF_SAMPLE_ADDR) put_u64(o, addr);
	if (t & PERF_SAMPLE_ID) put_u64(o, e->id);
	if (t & PERF_SAMPLE_STREAM_ID) put_u64(o, e->stream_id);
	if (t & PERF_SAMPLE_CPU) put_u64(o, this_cpu_id());
	if (t & PERF_SAMPLE_PERIOD) put_u64(o, s->period);
	if (t & PERF_SAMPLE_READ) rb_output_copy(o, s->read, s->read_size);
	if (t & PERF_SAMPLE_CALLCHAIN) {
		put_u64(o, s->chain_nr);
		rb_output_copy(o, s->chain, 8 * s->chain_nr);
	}
	if (t & PERF_SAMPLE_RAW) put_raw(o, s->hit);
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		put_u64(o, branch_nr(s));
		if (branch_hw_index(s))
			put_u64(o, s->hit && s->hit->branches ? s->hit->branches_hw_idx : ~0ULL);
		if (branch_nr(s))
			rb_output_copy(o, s->hit->branches,
				       sizeof(struct perf_branch_entry) * branch_nr(s));
	}
	if (t & PERF_SAMPLE_REGS_USER) put_regs(o, s->uregs, e->attr.sample_regs_user);
	if (t & PERF_SAMPLE_STACK_USER) put_stack_user(o, s);
	if (t & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) put_u64(o, 0);
	if (t & PERF_SAMPLE_DATA_SRC) put_u64(o, data_src_na());
	if (t & PERF_SAMPLE_TRANSACTION) put_u64(o, 0);
	if (t & PERF_SAMPLE_REGS_INTR) put_regs(o, s->regs, e->attr.sample_regs_intr);
	if (t & PERF_SAMPLE_PHYS_ADDR) put_u64(o, 0);
	if (t & PERF_SAMPLE_CGROUP) put_u64(o, 1); /* the root cgroup */
	if (t & PERF_SAMPLE_DATA_PAGE_SIZE) put_u64(o, addr ? PAGE_SIZE : 0);
	if (t & PERF_SAMPLE_CODE_PAGE_SIZE) put_u64(o, r && r->rip ? PAGE_SIZE : 0);
	if (t & PERF_SAMPLE_AUX) put_u64(o, 0); /* no AUX data */
}

PERCPU_TABLE(struct sample, samples); /* too big for the stack */

void perf_output_sample(struct perf_event *e, const struct perf_hit *hit, uint64_t period)
{
	struct sample *s = &samples[this_cpu_id()];
	struct task *cur = current;
	s->e = e;
	s->hit = hit;
	s->uregs = cur && cur->mm ? cur->frame : NULL;
	s->regs = hit && hit->regs ? hit->regs : s->uregs;
	if (user_mode(s->regs))
		s->uregs = s->regs; /* an NMI in user mode: no kernel entry saved them */
	s->period = period;
	uint64_t t = e->attr.sample_type;
	if (t & PERF_SAMPLE_CALLCHAIN)
		build_chain(s);
	if (t & PERF_SAMPLE_READ) {
		s->read_size = (uint32_t)perf_read_size(e);
		if (s->read_size > sizeof(s->read))
			s->read_size = 0; /* big groups: open refuses READ for them */
		else
			perf_format_read(e, s->read);
	}
	uint64_t stack = e->attr.sample_stack_user;
	s->stack_size = stack > MAX_STACK_USER ? MAX_STACK_USER : stack & ~7ULL;
	struct rb_output o;
	uint32_t size = sample_size(s);
	if (size > 0xffff) { /* header.size is 16 bits: less user stack */
		uint64_t cut = (size - 0xffff + 7) & ~7u;
		s->stack_size = s->stack_size > cut ? s->stack_size - cut : 0;
		size = sample_size(s);
	}
	if (!perf_output_begin(&o, e, size))
		return;
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE,
		.misc = user_mode(s->regs) ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL,
		.size = (uint16_t)size,
	};
	rb_output_copy(&o, &h, sizeof(h));
	put_fields(&o, s);
	perf_output_end(&o, e, true);
}
