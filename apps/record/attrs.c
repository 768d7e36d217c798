/*
 * The perf_event_attr perf record opens (perf 6.1, as `perf record -vv`
 * shows it): samples of IP, TID, TIME, and PERIOD when the period
 * varies (-F), CALLCHAIN with -g, CPU per CPU (-a, -C), ID when there
 * are several events; sample_id_all, so that every record says whose
 * it is and when; read_format ID|LOST. The first event also asks for
 * the side-band records: COMM (comm_exec), MMAP/MMAP2 of executable
 * mappings, FORK/EXIT (task). A leader starts disabled: on the program,
 * enable_on_exec starts it at the exec; per CPU, record enables it.
 * Events are inherited by the program's children.
 */
#include <string.h>
#include "record.h"

static uint64_t sample_type(int n, const struct config *cfg, const struct target *t)
{
	uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (!cfg->period)
		type |= PERF_SAMPLE_PERIOD;
	if (cfg->callchain)
		type |= PERF_SAMPLE_CALLCHAIN;
	if (t->per_cpu)
		type |= PERF_SAMPLE_CPU;
	if (n > 1)
		type |= PERF_SAMPLE_ID;
	return type;
}

static void sideband(struct perf_event_attr *a)
{
	a->comm = 1;
	a->comm_exec = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->task = 1;
}

void attr_setup(struct perf_event_attr *a, const struct evspec *spec, int i, int n,
		const struct config *cfg, const struct target *t)
{
	bool leads = spec->leader == i;
	*a = spec->attr;
	a->size = ATTR_SIZE;
	if (cfg->period) {
		a->sample_period = cfg->period;
	} else if (!a->sample_period) { /* a period= term keeps its own */
		a->freq = 1;
		a->sample_freq = cfg->freq;
	}
	a->sample_type = sample_type(n, cfg, t);
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->disabled = leads;
	a->enable_on_exec = leads && !t->per_cpu;
	a->inherit = 1;
	a->sample_id_all = 1;
	if (i == 0 && !cfg->no_sideband)
		sideband(a);
}

size_t id_trailer_size(uint64_t type)
{
	uint64_t id_bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	return 8 * (size_t)__builtin_popcountll(type & id_bits);
}
