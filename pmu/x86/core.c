/*
 * The x86 layer's counters on a CPU (core.h): which event holds which
 * counter, programming and reading them through the vendor's ops, and
 * whether a group fits - written once for Intel and AMD, as Linux's
 * x86_pmu_add/del/start/stop/read and validate_group.
 *
 * Periods and folding are common.c's: a counter is armed at -left so
 * that it overflows after what remains of the event's period.
 *
 * Locking: counters[c] belongs to CPU c and is touched only on CPU c
 * with interrupts off: the pmu ops run so (under perf_lock), and the
 * PMI handles overflows only under perf_lock (pmi.c: an NMI that
 * cannot trylock it defers the work to VEC_PMI). e->count and e->hw
 * change under perf_lock only.
 */
#include <linux/errno.h>
#include "core/arch/apic.h"
#include "core/arch/percpu.h"
#include "core/arch/percpu_table.h"
#include "pmu/x86/claim.h"
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"
#include "pmu/x86/pmi.h"

struct cpu_counters {
	struct x86_counters k; /* k.active: what the global control holds */
	bool ready;            /* registers cleared, LVTPC set, on this CPU */
};

PERCPU_TABLE(struct cpu_counters, counters);

const struct x86_pmu *x86_pmu;

struct x86_counters *x86_counters_here(void)
{
	return &counters[this_cpu_id()].k;
}

bool x86_counters_busy(void)
{
	return x86_counters_here()->used != 0;
}

/* First use on this CPU: nothing counting, no stale overflow, and the
 * PMI on its vector (apic_init_cpu left LVTPC masked). */
static struct x86_counters *here(void)
{
	struct cpu_counters *c = &counters[this_cpu_id()];
	if (c->ready)
		return &c->k;
	uint64_t bits = x86_pmu->counter_bits();
	x86_pmu->enable_all(c->k.active);
	for (int idx = 0; idx < X86_MAX_IDX; idx++)
		if (bits >> idx & 1)
			x86_pmu->disable_counter(idx);
	if (x86_pmu->get_status)
		x86_pmu->ack_status(bits);
	apic_write(APIC_LVT_PMC, x86_lvtpc()); /* unmasked: NMI or VEC_PMI */
	c->ready = true;
	return &c->k;
}

static bool owned_here(const struct perf_event *e)
{
	return x86_owns(x86_counters_here(), e);
}

static void set_period(struct perf_event *e)
{
	struct x86_counter k = x86_pmu->counter(e->hw.idx);
	x86_set_period(e, &k, false);
}

static void fold(struct perf_event *e)
{
	struct x86_counter k = x86_pmu->counter(e->hw.idx);
	x86_fold(e, &k);
}

static void enable(struct x86_counters *k, struct perf_event *e)
{
	x86_pmu->enable_counter(e->hw.idx, e->hw.config);
	k->active |= 1ULL << e->hw.idx;
	x86_pmu->enable_all(k->active);
}

static void disable(struct x86_counters *k, struct perf_event *e)
{
	k->active &= ~(1ULL << e->hw.idx);
	x86_pmu->enable_all(k->active);
	x86_pmu->disable_counter(e->hw.idx);
}

/* The selector comes from the attributes again: inherited copies reach
 * add() without event_init. */
int x86_pmu_add(struct perf_event *e, uint64_t now)
{
	(void)now;
	struct x86_counters *k = here();
	e->hw.config = x86_event_config(e);
	int idx = x86_pmu->pick(e, k->used);
	if (idx < 0)
		return -EAGAIN;
	x86_claim(k, e, idx);
	/* The stepping cap may only thin a CPU-wide sampler's samples, as
	 * Linux's throttling does; a count stays exact. */
	pmu_model_counter_owner(idx, e->task == NULL && e->attr.sample_period != 0);
	set_period(e);
	x86_pmu->lbr_add(e);
	enable(k, e);
	return 0;
}

void x86_pmu_del(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (!owned_here(e))
		return;
	struct x86_counters *k = x86_counters_here();
	if (x86_is_active(k, e)) {
		disable(k, e);
		fold(e);
	}
	x86_pmu->lbr_del(e);
	x86_release(k, e);
}

/* Resume an event stopped on its counter. */
void x86_pmu_start(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (!owned_here(e))
		return;
	struct x86_counters *k = x86_counters_here();
	if (x86_is_active(k, e))
		return;
	set_period(e);
	enable(k, e);
}

void x86_pmu_stop(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (!owned_here(e))
		return;
	struct x86_counters *k = x86_counters_here();
	if (!x86_is_active(k, e))
		return;
	disable(k, e);
	fold(e);
}

uint64_t x86_pmu_read(struct perf_event *e, uint64_t now)
{
	(void)now;
	if (owned_here(e) && x86_is_active(x86_counters_here(), e))
		fold(e);
	return e->count;
}

/* ---- groups ---- */

static bool is_ours(const struct perf_event *e)
{
	return e && e->pmu && (e->pmu == x86_pmu->pmus[0] || e->pmu == x86_pmu->pmus[1]);
}

/* The group's PMU of this layer (a group holds one hardware PMU). */
static const struct pmu *group_pmu(struct perf_event *leader, struct perf_event *extra)
{
	if (is_ours(leader))
		return leader->pmu;
	list_for_each(n, &leader->siblings) {
		struct perf_event *s = list_entry(n, struct perf_event, sibling_node);
		if (is_ours(s))
			return s->pmu;
	}
	return is_ours(extra) ? extra->pmu : x86_pmu->pmus[0];
}

static int group_pick(const struct perf_event *e, uint64_t used)
{
	return x86_pmu->group_pick(e, used);
}

/* The group placed in its order, as add() will place it. */
bool x86_pmu_group_fits(struct perf_event *leader, struct perf_event *extra)
{
	return x86_group_fits(group_pmu(leader, extra), group_pick, leader, extra);
}

/* ---- boot ---- */

/* A PMU of this layer: its counters are scarce, its ops ours. */
static void fill_ops(struct pmu *pmu)
{
	pmu->scarce = true;
	pmu->event_init = x86_pmu_event_init;
	pmu->group_fits = x86_pmu_group_fits;
	pmu->add = x86_pmu_add;
	pmu->del = x86_pmu_del;
	pmu->start = x86_pmu_start;
	pmu->stop = x86_pmu_stop;
	pmu->read = x86_pmu_read;
}

/* The PMI (pmi.c) hands this CPU's overflows to overflow.c. */
void x86_pmu_register(const struct x86_pmu *p)
{
	static struct x86_pmi_ops ops;
	x86_pmu = p;
	for (unsigned i = 0; i < 2; i++)
		if (p->pmus[i])
			fill_ops(p->pmus[i]);
	ops.handle = x86_handle_overflows;
	ops.claim_late = p->claim_late;
	x86_pmi_init(&ops);
}
