/*
 * Which counter an Intel event may take: pure functions of the PMU's
 * capabilities, the CPU model's constraint table and the counters in
 * use, so the self-tests can feed them any CPU (test_place.c).
 *
 * Fixed counters (Eranian's rule, as Linux's fixed-event constraints):
 * a fixed counter counts one event and filters only by mode (USR/OS), so
 * only that event's plain encoding - no edge, inv, cmask or AnyThread -
 * may take it. Fixed j also answers Linux's pseudo-encoding event 0x00,
 * umask j + 1 (ref-cycles is 0x0300 on fixed 2, TOPDOWN.SLOTS 0x0400 on
 * fixed 3; not 0x0200); a pseudo-encoding has no general-counter form.
 *
 * General counters: an event in the constraint table may use only the
 * counters of its mask (Linux's INTEL_EVENT_CONSTRAINT matches the event
 * code, INTEL_UEVENT_CONSTRAINT event and umask). A constrained event
 * takes the lowest allowed free counter. An unconstrained one takes the
 * free counter fewest table entries want (lowest first among equals),
 * leaving the wanted ones to constrained events that come later. Linux
 * instead reassigns every event's counter on each schedule
 * (perf_assign_events); baremon keeps an event's counter while it stays
 * scheduled, so an order of adds Linux could place may, rarely, be
 * refused here (the event then waits for multiplexing).
 */
#include "intel.h"
#include "pmu/x86/msr.h"

#define EVENT_ONLY  0x00ffu
#define EVENT_UMASK 0xffffu

/* Westmere (family 6 models 25H, 2CH, 2FH). */
static const struct intel_constraint westmere[] = {
	{ 0x51, EVENT_ONLY, 0x3 },   /* L1D */
	{ 0x60, EVENT_ONLY, 0x1 },   /* OFFCORE_REQUESTS_OUTSTANDING */
	{ 0x63, EVENT_ONLY, 0x3 },   /* CACHE_LOCK_CYCLES */
	{ 0xb3, EVENT_ONLY, 0x1 },   /* SNOOPQ_REQUEST_OUTSTANDING */
	{ 0, 0, 0 },
};

/* Sandy Bridge (family 6 models 2AH, 2DH). */
static const struct intel_constraint sandy_bridge[] = {
	{ 0x04a3, EVENT_UMASK, 0xf }, /* CYCLE_ACTIVITY.CYCLES_NO_DISPATCH */
	{ 0x05a3, EVENT_UMASK, 0xf }, /* CYCLE_ACTIVITY.STALLS_L2_PENDING */
	{ 0x02a3, EVENT_UMASK, 0x4 }, /* CYCLE_ACTIVITY.CYCLES_L1D_PENDING */
	{ 0x06a3, EVENT_UMASK, 0x4 }, /* CYCLE_ACTIVITY.STALLS_L1D_PENDING */
	{ 0x48, EVENT_ONLY, 0x4 },    /* L1D_PEND_MISS.PENDING */
	{ 0x01c0, EVENT_UMASK, 0x2 }, /* INST_RETIRED.PREC_DIST */
	{ 0xcd, EVENT_ONLY, 0x8 },    /* MEM_TRANS_RETIRED.LOAD_LATENCY */
	{ 0, 0, 0 },
};

static const struct intel_constraint none[] = { { 0, 0, 0 } };

const struct intel_constraint *intel_constraints_for(unsigned family, unsigned model)
{
	if (family != 6)
		return none;
	switch (model) {
	case 0x25: case 0x2c: case 0x2f: return westmere;
	case 0x2a: case 0x2d: return sandy_bridge;
	}
	return none;
}

/* Linux's pseudo-encodings: event 0x00, umask j + 1 for fixed counter
 * j: 0x0100 (fixed 0), 0x0300 ref-cycles, 0x0400 TOPDOWN.SLOTS, 0x0500-
 * 0x0700. No general counter counts them. */
static bool is_pseudo(uint64_t config)
{
	unsigned code = (unsigned)(config & (EVTSEL_EVENT | EVTSEL_UMASK));
	unsigned umask = code >> 8;
	return (code & 0xff) == 0 && (umask == 1 || (umask >= 3 && umask <= INTEL_MAX_FIXED));
}

/* The fixed counter `config` may take, or -1. */
int intel_fixed_for(uint64_t config)
{
	if (config & (EVTSEL_EDGE | EVTSEL_INV | EVTSEL_CMASK | EVTSEL_ANY))
		return -1; /* a fixed counter filters by mode only */
	unsigned code = (unsigned)(config & (EVTSEL_EVENT | EVTSEL_UMASK));
	switch (code) {
	case ARCH_INSTRUCTIONS: return 0;
	case ARCH_CORE_CYCLES: return 1;
	}
	return is_pseudo(config) ? (int)(code >> 8) - 1 : -1;
}

static const struct intel_constraint *lookup(const struct intel_constraint *table,
					     uint64_t config)
{
	for (; table && table->match; table++)
		if ((config & table->match) == table->code)
			return table;
	return NULL;
}

/* How many table entries want GP counter i. */
static unsigned wanted(const struct intel_constraint *table, unsigned i)
{
	unsigned n = 0;
	for (; table && table->match; table++)
		n += table->gp_mask >> i & 1;
	return n;
}

static int pick_gp(const struct intel_caps *caps, const struct intel_constraint *table,
		   uint64_t config, uint64_t used)
{
	const struct intel_constraint *c = lookup(table, config);
	uint64_t all = caps->n_gp >= 64 ? ~0ULL : (1ULL << caps->n_gp) - 1;
	uint64_t free = (c ? c->gp_mask : all) & all & ~used;
	int best = -1;
	for (unsigned i = 0; i < caps->n_gp; i++) {
		if (!(free >> i & 1))
			continue;
		if (c)
			return (int)i; /* constrained: the lowest allowed */
		if (best < 0 || wanted(table, i) < wanted(table, (unsigned)best))
			best = (int)i;
	}
	return best;
}

int intel_place(const struct intel_caps *caps, const struct intel_constraint *table,
		uint64_t config, uint64_t used)
{
	int j = intel_fixed_for(config);
	if (j >= 0 && (caps->fixed_mask >> j & 1) && !(used >> (PMC_IDX_FIXED + j) & 1))
		return PMC_IDX_FIXED + j;
	if (is_pseudo(config))
		return -1; /* its fixed counter or nothing */
	return pick_gp(caps, table, config, used);
}
