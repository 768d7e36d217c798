/*
 * The perf_event_attr perf record opens (perf 6.1, as `perf record -vv`
 * shows it): samples of IP, TID, TIME, and PERIOD when the period
 * varies (-F), CPU and RAW of a tracepoint (each hit, unless -c), CALLCHAIN with -g, BRANCH_STACK with -b or --call-graph
 * lbr, CPU per CPU (-a, -C); with several
 * events, ID, or IDENTIFIER when their sample_types differ (then only
 * a fixed place tells whose a record is); sample_id_all, so that every
 * record says whose it is and when; read_format ID|LOST. Events are
 * inherited by the program's children. A leader starts disabled: on the
 * program, enable_on_exec starts it at the exec; per CPU, record enables
 * it.
 *
 * The side-band records (COMM with comm_exec, MMAP/MMAP2 of executable
 * mappings, FORK/EXIT with task) come with the first event on the
 * program; per CPU, as perf does, with a "tracking" dummy event of its
 * own that is never disabled and samples nothing itself.
 */
#include <string.h>
#include <asm/perf_regs.h>
#include "record.h"

static uint64_t sample_type(const struct event *e, const struct config *cfg,
			    const struct target *t)
{
	uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	if (e->attr.freq)
		type |= PERF_SAMPLE_PERIOD;
	if (cfg->callchain)
		type |= PERF_SAMPLE_CALLCHAIN;
	if ((cfg->branch_any || cfg->lbr_callchain) && !e->tracking)
		type |= PERF_SAMPLE_BRANCH_STACK;
	if (cfg->dwarf_stack)
		type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	if (t->per_cpu || e->attr.type == PERF_TYPE_TRACEPOINT)
		type |= PERF_SAMPLE_CPU;
	if (e->attr.type == PERF_TYPE_TRACEPOINT)
		type |= PERF_SAMPLE_RAW;   /* the fields, as perf asks for them */
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

static void period(struct perf_event_attr *a, const struct config *cfg, bool tracking)
{
	if (cfg->period) {
		a->sample_period = cfg->period;
	} else if (tracking || a->type == PERF_TYPE_TRACEPOINT) {
		a->sample_period = 1;   /* every hit, as perf samples tracepoints */
	} else if (!a->sample_period) { /* a period= term keeps its own */
		a->freq = 1;
		a->sample_freq = cfg->freq;
	}
}

/* -b: any branch (privilege from the event, as perf); --call-graph
 * lbr: user calls from the LBR's call stack, as perf 6.x asks (the
 * call chain is still sampled: perf puts the LBR's calls in place of
 * its user part). */
static void branches(struct perf_event_attr *a, const struct config *cfg)
{
	if (!(a->sample_type & PERF_SAMPLE_BRANCH_STACK))
		return;
	if (cfg->lbr_callchain) {
		a->branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK |
					PERF_SAMPLE_BRANCH_NO_CYCLES | PERF_SAMPLE_BRANCH_NO_FLAGS |
					PERF_SAMPLE_BRANCH_HW_INDEX;
	} else {
		a->branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	}
}

/* --call-graph dwarf: the user registers perf's x86-64 unwinder reads
 * (all but the segment registers DS, ES, FS, GS: perf's 0xff0fff) and
 * the top of the user stack; the kernel part of the chain still comes
 * from frame pointers, the user part from the host's DWARF unwinding. */
static void dwarf(struct perf_event_attr *a, const struct config *cfg)
{
	if (!cfg->dwarf_stack)
		return;
	a->sample_regs_user = ((1ULL << PERF_REG_X86_64_MAX) - 1) &
			      ~((1ULL << PERF_REG_X86_DS) | (1ULL << PERF_REG_X86_ES) |
				(1ULL << PERF_REG_X86_FS) | (1ULL << PERF_REG_X86_GS));
	a->sample_stack_user = cfg->dwarf_stack;
	a->exclude_callchain_user = 1;
}

static void attr_one(struct event *e, int i, const struct config *cfg, const struct target *t)
{
	struct perf_event_attr *a = &e->attr;
	bool leads = e->spec.leader == i;
	*a = e->spec.attr;
	a->size = ATTR_SIZE;
	period(a, cfg, e->tracking);
	a->sample_type = sample_type(e, cfg, t);
	branches(a, cfg);
	dwarf(a, cfg);
	a->read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
	a->disabled = leads && !e->tracking;
	a->enable_on_exec = a->disabled && !t->per_cpu;
	a->inherit = 1;
	a->sample_id_all = 1;
	if (e->tracking)
		a->exclude_guest = 0;
}

void attrs_setup(struct session *s, const struct config *cfg)
{
	bool same = true;
	for (int i = 0; i < s->nev; i++) {
		attr_one(&s->ev[i], i, cfg, &s->t);
		same = same && s->ev[i].attr.sample_type == s->ev[0].attr.sample_type;
	}
	int side = s->ev[s->nev - 1].tracking ? s->nev - 1 : 0;
	if (!cfg->no_sideband)
		sideband(&s->ev[side].attr);
	for (int i = 0; s->nev > 1 && i < s->nev; i++)
		s->ev[i].attr.sample_type |= same ? PERF_SAMPLE_ID : PERF_SAMPLE_IDENTIFIER;
}

void attrs_add_tracking(struct session *s)
{
	struct event *e = &s->ev[s->nev];
	memset(&e->spec.attr, 0, sizeof e->spec.attr);
	e->spec.attr.type = PERF_TYPE_SOFTWARE;
	e->spec.attr.config = PERF_COUNT_SW_DUMMY;
	e->spec.name = "dummy";
	e->spec.leader = s->nev;
	e->tracking = true;
	s->nev++;
}

size_t id_trailer_size(uint64_t type)
{
	uint64_t id_bits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			   PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	return 8 * (size_t)__builtin_popcountll(type & id_bits);
}
