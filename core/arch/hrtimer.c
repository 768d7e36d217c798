/*
 * Per-CPU one-shot timers (hrtimer.h) on the local APIC timer.
 *
 * Each CPU keeps its armed timers in a list sorted by expiry (earliest
 * first; equal expiries in the order they were started) and programs
 * the APIC timer for the head. The list and the CPU's state below are
 * touched only by their CPU with interrupts off: no lock.
 *
 * The interrupt runs expired timers in up to PASSES passes: each pass
 * takes every timer due at its start off the list before calling any of
 * them, then calls them in expiry order. A timer that became due while
 * callbacks ran (or that a callback restarted in the past) is run by the
 * next pass, in the same interrupt: a deadline already passed fires
 * once, at once, and never costs an interrupt of its own. While
 * callbacks run the hardware is not reprogrammed; that happens once at
 * the end.
 *
 * The hardware is never left armed in the past from the interrupt (it
 * would fire again before the interrupted code ran one instruction: a
 * storm). A "hang" is an interrupt after which the next expiry had
 * already passed: its callbacks outran their own periods (a clock event
 * slower to handle than its period), or arming the timer itself took
 * that long (under QEMU's -icount round-robin a vCPU that writes its
 * APIC timer can lose its turn for the other vCPU's whole time slice,
 * 10-30 ms of virtual time). After a hang the next expiry is armed at
 * least `backoff` after the interrupt, backoff being the time the hung
 * interrupt took (the longest of a run of hangs, at most HANG_MAX_NS,
 * halved by each interrupt that ends in time), as Linux's
 * hrtimer_interrupt does after its retries: the interrupted code gets at
 * least as much time as the interrupt took, and timers come late
 * instead of never. hold_until keeps that delay when other code
 * re-programs the timer meanwhile.
 */
#include "apic.h"
#include "hrtimer.h"
#include "core/kernel.h"
#include "percpu.h"
#include "trap.h"
#include "tsc.h"
#include "x86.h"
#include "percpu_table.h"

#define PASSES 3                    /* expiry passes in one interrupt */
#define HANG_MAX_NS 100000000ULL    /* the longest backoff: 100 ms */

struct hrtimer_cpu {
	struct list queue;     /* armed timers, sorted by expires */
	bool in_interrupt;     /* running callbacks: program at the end */
	uint64_t armed;        /* the expiry the hardware holds, 0: none */
	uint64_t backoff;      /* after a hang: TSC cycles, else 0 */
	uint64_t hold_until;   /* arm no earlier than this (a backoff), 0: none */
	uint64_t hangs;        /* interrupts after which the next expiry had passed */
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

uint64_t hrtimer_hangs(unsigned cpu)
{
	return hcpus && cpu < percpu_slots() ? hcpus[cpu].hangs : 0;
}

/* Arm the hardware for the head of the queue (or disarm it), no earlier
 * than a backoff holds it. */
static void program(struct hrtimer_cpu *hc)
{
	struct hrtimer *h = head(hc);
	uint64_t want = h ? (h->expires ? h->expires : 1) : 0;
	if (want && want < hc->hold_until)
		want = hc->hold_until;
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

/* One pass: take every timer due now off the queue, then call each. */
static void run_expired(struct hrtimer_cpu *hc, struct trap_frame *f)
{
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
}

static bool head_due(struct hrtimer_cpu *hc, uint64_t now)
{
	struct hrtimer *h = head(hc);
	return h && h->expires <= now;
}

/* A hang: the interrupt that began at entry took until now. */
static void hang(struct hrtimer_cpu *hc, uint64_t entry, uint64_t now)
{
	uint64_t spent = now - entry, max = hrtimer_ns_to_tsc(HANG_MAX_NS);
	uint64_t b = hc->backoff > spent ? hc->backoff : spent;
	hc->backoff = b < max ? b : max;
	if (hc->hangs++ == 0)
		klog("hrtimer: cpu %u: the next expiry passed within its interrupt "
		     "(%llu ns); timers wait %llu ns after such an interrupt",
		     this_cpu_id(), (unsigned long long)tsc_to_ns(spent),
		     (unsigned long long)tsc_to_ns(hc->backoff));
}

/* The end of the interrupt: arm for the head, at least backoff from now;
 * a write that itself outran the expiry it armed is a hang too. */
static void rearm(struct hrtimer_cpu *hc, uint64_t entry)
{
	uint64_t now = rdtsc();
	bool hung = head_due(hc, now);
	if (hung)
		hang(hc, entry, now);
	hc->hold_until = hc->backoff ? now + hc->backoff : 0;
	program(hc);
	if (hc->armed && rdtsc() >= hc->armed) {
		hang(hc, entry, rdtsc());
		hung = true;
	}
	if (!hung)
		hc->backoff /= 2;
}

/* VEC_TIMER: run the expired timers, then arm for the next one. */
static void hrtimer_interrupt(struct trap_frame *f)
{
	struct hrtimer_cpu *hc = here();
	uint64_t entry = rdtsc();
	apic_eoi();
	hc->armed = 0; /* one-shot: whatever was armed has fired */
	hc->hold_until = 0;
	hc->in_interrupt = true;
	for (int pass = 0; pass < PASSES; pass++) {
		run_expired(hc, f);
		if (!head_due(hc, rdtsc()))
			break;
	}
	hc->in_interrupt = false;
	rearm(hc, entry);
}

void hrtimer_init_cpu(void)
{
	struct hrtimer_cpu *hc = here();
	list_init(&hc->queue);
	hc->armed = 0;
	hc->backoff = 0;
	hc->hold_until = 0;
	if (this_cpu_id() == 0)
		ns_mult = (tsc_hz() << 24) / 1000000000ULL;
	trap_set_handler(VEC_TIMER, hrtimer_interrupt);
	timer_init_cpu();
}
