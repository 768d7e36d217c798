/*
 * Self-tests of the per-CPU hrtimers (hrtimer.c): expiry order, cancel,
 * a callback re-arming its own timer, an expiry already past, and many
 * timers at once; no timer ever fires before its expiry. Each test arms
 * timers on its own CPU with interrupts off (the calling rule) and waits
 * for them with interrupts on.
 */
#include "core/cmdline.h"
#include "hrtimer.h"
#include "core/kernel.h"
#include "percpu.h"
#include "core/selftest.h"
#include "x86.h"

#define MANY 48

struct probe {
	struct hrtimer t;
	int id;
	uint64_t fired_at;   /* rdtsc in the callback, 0: not fired */
	int rearms;          /* re-arm this many more times */
	uint64_t step;
};

static int order[MANY + 8];
static int nfired;
static bool early;       /* a callback ran before its expiry */

static void record(struct hrtimer *t, struct trap_frame *f)
{
	(void)f;
	struct probe *p = container_of(t, struct probe, t);
	uint64_t now = rdtsc();
	if (now < t->expires)
		early = true;
	p->fired_at = now;
	if (nfired < (int)(sizeof(order) / sizeof(order[0])))
		order[nfired] = p->id;
	nfired++;
	if (p->rearms > 0) {
		p->rearms--;
		hrtimer_start(t, t->expires + p->step);
	}
}

static void reset(struct probe *p, int n)
{
	for (int i = 0; i < n; i++) {
		hrtimer_init(&p[i].t, record);
		p[i].id = i;
		p[i].fired_at = 0;
		p[i].rearms = 0;
		p[i].step = 0;
	}
	nfired = 0;
	early = false;
}

static uint64_t us(uint64_t n)
{
	return hrtimer_ns_to_tsc(n * 1000);
}

/* Busy-wait (interrupts on) until `want` callbacks ran or ms passed. */
static void wait_fired(int want, uint64_t ms)
{
	uint64_t end = rdtsc() + us(ms * 1000);
	while (nfired < want && rdtsc() < end)
		cpu_relax();
}

/* Cancel every probe before a test returns: its probes are on its
 * stack, and one still queued (a loaded host stalled this vCPU past the
 * wait) would fire into a dead frame later. This CPU's timers run on
 * this CPU only, so with interrupts off none is in its callback. */
static void finish(struct probe *p, int n)
{
	uint64_t f = irq_save();
	for (int i = 0; i < n; i++)
		hrtimer_cancel(&p[i].t);
	irq_restore(f);
}

static void start(struct probe *p, uint64_t expires)
{
	uint64_t f = irq_save();
	hrtimer_start(&p->t, expires);
	irq_restore(f);
}

SELFTEST(hrtimer_order)
{
	struct probe p[3];
	reset(p, 3);
	/* Queued with interrupts off, so a host that stalls this CPU past
	 * an expiry cannot fire one before the others are queued: they then
	 * fire in expiry order, not start order, whatever the stall. */
	uint64_t f = irq_save();
	uint64_t now = rdtsc();
	hrtimer_start(&p[0].t, now + us(3000));
	hrtimer_start(&p[1].t, now + us(1000));
	hrtimer_start(&p[2].t, now + us(2000));
	ST_CHECK(t, hrtimer_queued(&p[0].t) && hrtimer_queued(&p[1].t)); /* until due */
	irq_restore(f);
	wait_fired(3, 2000);
	ST_CHECK(t, nfired == 3);
	ST_CHECK(t, order[0] == 1 && order[1] == 2 && order[2] == 0);
	ST_CHECK(t, !early);
	ST_CHECK(t, !hrtimer_queued(&p[0].t) && !hrtimer_queued(&p[1].t));
	finish(p, 3);
}

SELFTEST(hrtimer_cancel)
{
	struct probe p[2];
	reset(p, 2);
	/* Armed and cancelled with interrupts off: p[0] cannot fire before
	 * it is cancelled, however long a loaded host stops this vCPU. */
	uint64_t f = irq_save();
	uint64_t now = rdtsc();
	hrtimer_start(&p[0].t, now + us(10000));
	hrtimer_start(&p[1].t, now + us(20000));
	hrtimer_cancel(&p[0].t);
	hrtimer_cancel(&p[0].t); /* twice: no effect */
	bool queued = !hrtimer_queued(&p[0].t) && hrtimer_queued(&p[1].t);
	irq_restore(f);
	ST_CHECK(t, queued);
	wait_fired(1, 2000);
	wait_fired(2, 40); /* only one can come */
	ST_CHECK(t, nfired == 1 && order[0] == 1);
	ST_CHECK(t, p[0].fired_at == 0);
	finish(p, 2);
	/* Restarting a queued timer moves it: it fires once, at the new time. */
	reset(p, 1);
	f = irq_save();
	now = rdtsc();
	hrtimer_start(&p[0].t, now + us(10000));
	hrtimer_start(&p[0].t, now + us(20000));
	irq_restore(f);
	wait_fired(1, 2000);
	wait_fired(2, 40);
	ST_CHECK(t, nfired == 1 && p[0].fired_at >= now + us(20000));
	finish(p, 1);
}

SELFTEST(hrtimer_rearm)
{
	struct probe p[1];
	reset(p, 1);
	p[0].rearms = 9;
	p[0].step = us(200);
	uint64_t first = rdtsc() + us(200);
	start(&p[0], first);
	wait_fired(10, 2000);
	ST_CHECK(t, nfired == 10);
	ST_CHECK(t, !hrtimer_queued(&p[0].t));
	/* The last one was due 9 steps after the first, and not before. */
	ST_CHECK(t, p[0].fired_at >= first + 9 * us(200));
	ST_CHECK(t, !early);
	finish(p, 1);
}

SELFTEST(hrtimer_past)
{
	struct probe p[3];
	reset(p, 3);
	uint64_t now = rdtsc();
	start(&p[0], now - us(1000));  /* already due */
	start(&p[1], 0);               /* the earliest possible */
	start(&p[2], now + us(5000));  /* a reference, due after them */
	wait_fired(3, 2000);
	ST_CHECK(t, nfired == 3);
	/* Soon: before a timer due 5 ms later, so not at the 10 ms tick. A
	 * loaded host may stop this vCPU past both; then they fire in one
	 * interrupt, still in that order. Under -icount (virtual time, which
	 * the host's load cannot stretch) also well before the tick. */
	ST_CHECK(t, order[2] == 2);
	if (cmdline_get("icount"))
		ST_CHECK(t, p[0].fired_at && p[0].fired_at < now + us(5000));
	finish(p, 3);
	/* A callback re-arming in the past is not run again in the same
	 * interrupt (the handler cannot livelock), but does come. */
	reset(p, 1);
	p[0].rearms = 3;
	p[0].step = 0;
	start(&p[0], rdtsc());
	wait_fired(4, 2000);
	ST_CHECK(t, nfired == 4);
	finish(p, 1);
}

SELFTEST(hrtimer_many)
{
	static struct probe p[MANY];
	reset(p, MANY);
	/* Started and partly cancelled with interrupts off, so a host that
	 * stalls this vCPU cannot fire one before the cancels. */
	uint64_t f = irq_save();
	uint64_t now = rdtsc(), seed = 12345;
	for (int i = 0; i < MANY; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		/* 10..14 ms, with some equal expiries */
		hrtimer_start(&p[i].t, now + us(10000) + us((seed >> 33) % 16 * 250));
	}
	/* Cancel every fourth one. */
	for (int i = 0; i < MANY; i += 4)
		hrtimer_cancel(&p[i].t);
	irq_restore(f);
	int want = MANY - MANY / 4;
	wait_fired(want + 1, 200);
	ST_CHECK(t, nfired == want);
	ST_CHECK(t, !early);
	bool sorted = true, cancelled_fired = false;
	for (int i = 1; i < nfired; i++) {
		struct probe *a = &p[order[i - 1]], *b = &p[order[i]];
		if (a->t.expires > b->t.expires ||
		    (a->t.expires == b->t.expires && a->id > b->id))
			sorted = false; /* equal expiries: in start order */
	}
	for (int i = 0; i < MANY; i += 4)
		cancelled_fired |= p[i].fired_at != 0;
	ST_CHECK(t, sorted);
	ST_CHECK(t, !cancelled_fired);
}
