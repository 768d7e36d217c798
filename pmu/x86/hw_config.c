/*
 * Attributes of an x86 core-PMU event (core.h), once for every vendor:
 * Linux's x86_pmu_event_init and x86_setup_perfctr, with the vendor's
 * hw_config in between, and the selector the attributes ask for.
 *
 *   HARDWARE  the vendor's generic map: configs past PERF_COUNT_HW_MAX
 *             EINVAL, events without an encoding ENOENT, a period of 1
 *             on branches (BTS, which neither driver has) EOPNOTSUPP;
 *   HW_CACHE  the vendor's table: a 0 entry ENOENT, X86_CACHE_NA (no
 *             such combination) EINVAL; without a table every valid
 *             (type, op, result) is ENOENT, an invalid one EINVAL;
 *   RAW       the selector bits raw_mask allows; others are dropped,
 *             as Linux drops them.
 *
 * On the software model, a selector it cannot count exactly is refused
 * (pmu_model_event_check, msr.h).
 */
#include <linux/errno.h>
#include "pmu/x86/core.h"
#include "pmu/x86/msr.h"

static bool cache_fields(uint64_t config, unsigned *type, unsigned *op, unsigned *res)
{
	*type = config & 0xff;
	*op = config >> 8 & 0xff;
	*res = config >> 16 & 0xff;
	return *type < PERF_COUNT_HW_CACHE_MAX && *op < PERF_COUNT_HW_CACHE_OP_MAX &&
	       *res < PERF_COUNT_HW_CACHE_RESULT_MAX;
}

static int check_hardware(const struct perf_event_attr *a)
{
	if (a->config >= PERF_COUNT_HW_MAX)
		return -EINVAL;
	if (!x86_pmu->event_map[a->config])
		return -ENOENT;
	/* A period of 1 on branches asks for BTS, which we lack. */
	if (a->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS && !a->freq &&
	    a->sample_period == 1)
		return -EOPNOTSUPP;
	return 0;
}

static int check_cache(uint64_t config)
{
	unsigned type, op, res;
	if (!cache_fields(config, &type, &op, &res))
		return -EINVAL;
	if (!x86_pmu->cache_map)
		return -ENOENT;
	uint64_t v = (*x86_pmu->cache_map)[type][op][res];
	if (v == X86_CACHE_NA)
		return -EINVAL;
	return v ? 0 : -ENOENT;
}

int x86_setup_perfctr(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE)
		return check_hardware(a);
	if (a->type == PERF_TYPE_HW_CACHE)
		return check_cache(a->config);
	return 0;
}

static uint64_t event_code(const struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	unsigned type, op, res;
	if (a->type == PERF_TYPE_HARDWARE && a->config < PERF_COUNT_HW_MAX)
		return x86_pmu->event_map[a->config];
	if (a->type == PERF_TYPE_HW_CACHE && x86_pmu->cache_map &&
	    cache_fields(a->config, &type, &op, &res))
		return (*x86_pmu->cache_map)[type][op][res];
	if (x86_pmu->is_raw(e))
		return a->config & x86_pmu->raw_mask;
	return 0;
}

uint64_t x86_event_config(const struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	uint64_t c = EVTSEL_INT | event_code(e);
	if (!a->exclude_user)
		c |= EVTSEL_USR;
	if (!a->exclude_kernel)
		c |= EVTSEL_OS;
	return x86_pmu->config_fixup ? x86_pmu->config_fixup(e, c) : c;
}

/* Linux's order: the type, the CPU (hybrid), precise_ip (no PEBS or
 * IBS: max_precise is 0), the vendor's checks, the model's, then
 * whether the event fits the counters at all. */
int x86_pmu_event_init(struct perf_event *e)
{
	const struct perf_event_attr *a = &e->attr;
	int r;
	if (a->type != PERF_TYPE_HARDWARE && a->type != PERF_TYPE_HW_CACHE && !x86_pmu->is_raw(e))
		return -ENOENT;
	if (e->cpu >= 0 && e->pmu->filter && e->pmu->filter(e->pmu, (unsigned)e->cpu))
		return -ENOENT; /* hybrid: a CPU of the other core type */
	if (a->precise_ip)
		return -EOPNOTSUPP;
	if ((r = x86_pmu->hw_config(e)) != 0)
		return r;
	e->hw.config = x86_event_config(e);
	if ((r = pmu_model_event_check(e->hw.config)) != 0)
		return r; /* the model cannot count it exactly */
	e->hw.idx = -1;
	e->hw.flags = 0;
	if (x86_pmu->group_pick(e, 0) < 0)
		return -EINVAL;
	return x86_pmu->event_init_done ? x86_pmu->event_init_done(e) : 0;
}
