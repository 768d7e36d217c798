/*
 * Per-CPU one-shot timers (hrtimer.h) on the local APIC timer.
 *
 * Each CPU keeps its armed timers in a list sorted by expiry (earliest
 * first; equal expiries in the order they were started) and programs
 * the APIC timer for the head. The list and the CPU's state below are
 * touched only by their CPU with interrupts off: no lock.
 *
 * The interrupt takes every timer whose expiry has passed off the list
 * before calling any of them, then calls them in expiry order. A
 * callback that restarts its timer (even in the past) is queued again
 * but not run again in the same interrupt: it fires at the next one, so
 * a callback can never hold the CPU in the handler. While callbacks run
 * the hardware is not reprogrammed; that happens once at the end.
 */
#include "apic.h"
#include "hrtimer.h"
#include "core/kernel.h"
#include "percpu.h"
#include "trap.h"
#include "tsc.h"
#include "x86.h"
#include "percpu_table.h"

struct hrtimer_cpu {
	struct list queue;     /* armed timers, sorted by expires */
	bool in_interrupt;     /* running callbacks: program at the end */
	uint64_t armed;        /* the expiry the hardware holds, 0: none */
};

PERCPU_TABLE(struct hrtimer_cpu, hcpus);
static uint64_t ns_mult;   /* TSC cycles per ns, fixed point 40.24 */

uint64_t hrtimer_ns_to_tsc(uint64_t ns)
{
	return (uint64_t)(((unsigned __int128)ns * ns_mult) >> 24);
}

static struct hrtimer_cpu *here(void)
{
	return &hcpus[this_cpu_id()];
}

static struct hrtimer *head(struct hrtimer_cpu *hc)
{
	return list_empty(&hc->queue) ? 0 : list_entry(hc->queue.next, struct hrtimer, node);
}

/* Arm the hardware for the head of the queue (or disarm it). */
static void program(struct hrtimer_cpu *hc)
{
	struct hrtimer *h = head(hc);
	uint64_t want = h ? (h->expires ? h->expires : 1) : 0;
	if (want == hc->armed)
		return;
	hc->armed = want;
	if (want)
		timer_arm(want);
	else
		timer_disarm();
}

void hrtimer_rearm_cpu(void)
{
	uint64_t fl = irq_save();
	struct hrtimer_cpu *hc = here();
	hc->armed = 0;
	program(hc);
	irq_restore(fl);
}

void hrtimer_init(struct hrtimer *t, hrtimer_fn fn)
{
	t->fn = fn;
	t->expires = 0;
	t->cpu = -1;
	list_init(&t->node);
}

/* Insert t after every timer expiring no later than it. */
static void enqueue(struct hrtimer_cpu *hc, struct hrtimer *t)
{
	struct list *pos = hc->queue.prev;
	while (pos != &hc->queue &&
	       list_entry(pos, struct hrtimer, node)->expires > t->expires)
		pos = pos->prev;
	list_insert_between(&t->node, pos, pos->next);
	t->cpu = (int)this_cpu_id();
}

void hrtimer_start(struct hrtimer *t, uint64_t expires)
{
	struct hrtimer_cpu *hc = here();
	if (hrtimer_queued(t))
		hrtimer_cancel(t);
	t->expires = expires;
	enqueue(hc, t);
	if (!hc->in_interrupt)
		program(hc);
}

void hrtimer_cancel(struct hrtimer *t)
{
	if (!hrtimer_queued(t))
		return;
	if (t->cpu != (int)this_cpu_id())
		panic("hrtimer_cancel: timer queued on cpu %d, called on cpu %u",
		      t->cpu, this_cpu_id());
	struct hrtimer_cpu *hc = here();
	list_remove(&t->node);
	t->cpu = -1;
	if (!hc->in_interrupt)
		program(hc);
}

/* VEC_TIMER: run the expired timers, then arm for the next one. */
static void hrtimer_interrupt(struct trap_frame *f)
{
	struct hrtimer_cpu *hc = here();
	apic_eoi();
	hc->armed = 0; /* one-shot: whatever was armed has fired */
	hc->in_interrupt = true;
	uint64_t now = rdtsc();
	struct list expired;
	list_init(&expired);
	struct hrtimer *t;
	while ((t = head(hc)) && t->expires <= now) {
		list_remove(&t->node);
		list_add_tail(&t->node, &expired);
	}
	while (!list_empty(&expired)) {
		t = list_entry(expired.next, struct hrtimer, node);
		list_remove(&t->node);
		t->cpu = -1;
		t->fn(t, f); /* may restart t, or start and cancel others */
	}
	hc->in_interrupt = false;
	program(hc);
}

void hrtimer_init_cpu(void)
{
	struct hrtimer_cpu *hc = here();
	list_init(&hc->queue);
	hc->armed = 0;
	if (this_cpu_id() == 0)
		ns_mult = (tsc_hz() << 24) / 1000000000ULL;
	trap_set_handler(VEC_TIMER, hrtimer_interrupt);
	timer_init_cpu();
}
