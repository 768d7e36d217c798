/*
 * Self-tests of the breakpoint PMU from inside the kernel: DR7's
 * encoding (against the values Linux's encode_dr7 gives), watchpoints on
 * kernel data counted through #DB (including hits taken while this CPU
 * holds perf_lock, which wait to be folded), the four-slot accounting of
 * CPU events, and the kernel ranges no breakpoint may watch.
 *
 * The events are CPU events of the CPU running the test, used with
 * interrupts off so the test cannot move to another CPU meanwhile.
 */
#include <linux/errno.h>
#include <linux/hw_breakpoint.h>
#include "breakpoint.h"
#include "debugreg.h"
#include "pmu/events/event.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "core/arch/percpu.h"
#include "core/selftest.h"
#include "core/arch/x86.h"

#define DR7_RESERVED (1ULL << 10) /* reads as 1 */

static volatile uint64_t kvar[4] __attribute__((aligned(64)));

static void bp_attr(struct perf_event_attr *a, uint32_t type, const volatile void *p,
		    uint64_t len)
{
	*a = (struct perf_event_attr){ .type = PERF_TYPE_BREAKPOINT,
				       .size = sizeof(*a) };
	a->bp_type = type;
	a->bp_addr = (uint64_t)p;
	a->bp_len = len;
}

/* A breakpoint event on this CPU, through event_init as an open would
 * do; NULL with *err set when event_init refuses it. */
static struct perf_event *bp_event(uint32_t type, const volatile void *p, uint64_t len,
				   int *err)
{
	struct perf_event_attr a;
	bp_attr(&a, type, p, len);
	struct perf_event *e = event_alloc(&a, NULL, (int)this_cpu_id(), EVENT_INACTIVE);
	if (!e) {
		*err = -ENOMEM;
		return NULL;
	}
	e->pmu = &perf_bp_pmu;
	*err = perf_bp_pmu.event_init(e);
	if (*err) {
		event_free(e);
		return NULL;
	}
	event_attach(e, NULL);
	return e;
}

/* e's count as #DB left it (a hit changes it behind the compiler). */
static uint64_t count_of(struct perf_event *e)
{
	__asm__ volatile("" ::: "memory");
	return e->count;
}

static void put(struct perf_event *e)
{
	if (e)
		event_put(e);
}

/* Linux's encode_dr7 values for the same breakpoints. */
SELFTEST(bp_dr7_encoding)
{
	struct perf_event_attr a;
	bp_attr(&a, HW_BREAKPOINT_W, kvar, 1);
	ST_CHECK(t, bp_dr7_bits(0, &a) == 0x00010002);
	bp_attr(&a, HW_BREAKPOINT_RW, kvar, 4);
	ST_CHECK(t, bp_dr7_bits(1, &a) == 0x00f00008);
	bp_attr(&a, HW_BREAKPOINT_X, kvar, 8);
	ST_CHECK(t, bp_dr7_bits(2, &a) == 0x00000020);
	bp_attr(&a, HW_BREAKPOINT_W, kvar, 8);
	ST_CHECK(t, bp_dr7_bits(3, &a) == 0x90000080);
	bp_attr(&a, HW_BREAKPOINT_RW, kvar, 2);
	ST_CHECK(t, bp_dr7_bits(0, &a) == 0x00070002);
}

/* Writes to a watched kernel variable count; DR7 holds the slot while
 * the event is on, nothing once it is closed. */
SELFTEST(bp_kernel_watch)
{
	int err;
	uint64_t f = irq_save();
	struct perf_event *e = bp_event(HW_BREAKPOINT_W, &kvar[0], 8, &err);
	ST_CHECK(t, e && e->state == EVENT_ACTIVE && e->hw.idx >= 0);
	if (e)
		ST_CHECK(t, (read_dr7() & ~DR7_RESERVED) ==
			    (bp_dr7_bits(e->hw.idx, &e->attr) | DR7_GE));
	for (int i = 0; i < 10; i++)
		kvar[0] = (uint64_t)i;
	kvar[1] = 1; /* the next word: not watched */
	ST_CHECK(t, e && count_of(e) == 10);
	put(e);
	ST_CHECK(t, (read_dr7() & ~DR7_RESERVED) == 0);
	irq_restore(f);
}

/* A read/write watchpoint counts reads; hits taken while this CPU holds
 * perf_lock wait and are folded in by the next hit. */
SELFTEST(bp_deferred_hits)
{
	int err;
	uint64_t f = irq_save();
	struct perf_event *e = bp_event(HW_BREAKPOINT_RW, &kvar[2], 8, &err);
	ST_CHECK(t, e != NULL);
	uint64_t sum = kvar[2] + kvar[2];
	spin_lock(&perf_lock);
	kvar[2] = sum;
	kvar[2] = sum + 1;
	spin_unlock(&perf_lock);
	ST_CHECK(t, e && count_of(e) == 2);
	kvar[2] = 0;
	ST_CHECK(t, e && count_of(e) == 5);
	put(e);
	irq_restore(f);
}

/* Four CPU breakpoints fill this CPU; a fifth is ENOSPC until one goes. */
SELFTEST(bp_cpu_slots)
{
	struct perf_event *ev[4];
	int err;
	uint64_t f = irq_save();
	for (int i = 0; i < 4; i++)
		ev[i] = bp_event(HW_BREAKPOINT_W, &kvar[i], 8, &err);
	ST_CHECK(t, ev[0] && ev[1] && ev[2] && ev[3]);
	struct perf_event *fifth = bp_event(HW_BREAKPOINT_W, &kvar[0], 8, &err);
	ST_CHECK(t, !fifth && err == -ENOSPC);
	put(fifth);
	put(ev[1]);
	ev[1] = bp_event(HW_BREAKPOINT_RW, &kvar[1], 8, &err);
	ST_CHECK(t, ev[1] && ev[1]->state == EVENT_ACTIVE);
	for (int i = 0; i < 4; i++)
		put(ev[i]);
	irq_restore(f);
}

struct __attribute__((packed)) table_ptr {
	uint16_t limit;
	uint64_t base;
};

/* The kernel's entry and trap data (per-CPU area, IDT, GDT), its heap,
 * and kernel instructions are refused; ordinary kernel data is not. */
SELFTEST(bp_unsafe_ranges)
{
	struct perf_event_attr a;
	struct table_ptr idt, gdt;
	__asm__ volatile("sidt %0; sgdt %1" : "=m"(idt), "=m"(gdt));
	void *heap = kmalloc(64);
	const volatile void *refused[] = {
		&percpu_area[0], heap, (void *)idt.base, (void *)(gdt.base + 8),
	};
	for (unsigned i = 0; i < ARRAY_SIZE(refused); i++) {
		bp_attr(&a, HW_BREAKPOINT_W, refused[i], 8);
		ST_CHECK(t, bp_parse(&a) == -EINVAL);
	}
	bp_attr(&a, HW_BREAKPOINT_W, kvar, 8);
	ST_CHECK(t, bp_parse(&a) == 0);
	a.exclude_kernel = 1;
	ST_CHECK(t, bp_parse(&a) == -EINVAL);
	bp_attr(&a, HW_BREAKPOINT_X, (void *)bp_parse, 8);
	ST_CHECK(t, bp_parse(&a) == -EINVAL);
	kfree(heap);
}
