/*
 * modelnote.c: what a tool tells its user when the counts come from
 * baremon's software PMU model (the vpmu, under QEMU TCG, which has no
 * PMU): its core PMU then has caps/model_clock ("icount N" or "tsc",
 * pmu/x86/sysfs.h). One line each, on standard error:
 *  - which events of the list the model counts by single-stepping the
 *    user code, what that costs, and that --icount counts instructions
 *    exactly at full speed (branches are stepped even then);
 *  - for stat, what cycles are there: QEMU's instruction clock, 2^N per
 *    instruction, or the TSC (host time) with a stepped instruction
 *    one cycle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perftool.h"

/* The model's clock from the core PMU's caps; false: not the model. */
static bool model_clock(char *clock, size_t n)
{
	static const char *const pmus[] = { "cpu", "cpu_core" };
	char rel[96];
	for (size_t i = 0; i < sizeof pmus / sizeof pmus[0]; i++) {
		snprintf(rel, sizeof rel, "bus/event_source/devices/%s/caps/model_clock", pmus[i]);
		if (sysfs_read(rel, clock, n))
			return true;
	}
	return false;
}

static bool cpu_event(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_RAW;
}

/* The event's generic id (HARDWARE, a hybrid PMU type above bit 32
 * dropped) or, for RAW, the architectural one its encoding is. */
static int generic_id(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE)
		return (int)(a->config & 0xffffffffu);
	switch (a->config & 0xffff) {
	case 0x00c0: return PERF_COUNT_HW_INSTRUCTIONS;
	case 0x003c: return PERF_COUNT_HW_CPU_CYCLES;
	case 0x0300: return PERF_COUNT_HW_REF_CPU_CYCLES;
	}
	return (a->config & 0xff) == 0xc4 ? PERF_COUNT_HW_BRANCH_INSTRUCTIONS : -1;
}

/* What the model steps the user code for a: STEP_* bits. */
enum { STEP_INSNS = 1, STEP_BRANCHES = 2, STEP_STACKS = 4 };
static unsigned stepped(const struct perf_event_attr *a, bool clock)
{
	if (!cpu_event(a) || a->exclude_user)
		return 0;
	int id = generic_id(a);
	unsigned why = a->sample_type & PERF_SAMPLE_BRANCH_STACK ? STEP_STACKS : 0;
	if (id == PERF_COUNT_HW_BRANCH_INSTRUCTIONS)
		why |= STEP_BRANCHES;
	if (id == PERF_COUNT_HW_INSTRUCTIONS && !clock)
		why |= STEP_INSNS;
	return why;
}

/* "user instructions, branches and branch stacks", as many as `why` has. */
static void what(unsigned why, char *buf, size_t n)
{
	static const char *const names[] = { "user instructions", "user branches", "branch stacks" };
	int k = 0, total = __builtin_popcount(why);
	buf[0] = 0;
	for (int i = 0; i < 3; i++) {
		if (!(why >> i & 1))
			continue;
		if (k)
			strlcat(buf, k == total - 1 ? " and " : ", ", n);
		strlcat(buf, names[i], n);
		k++;
	}
}

static bool cycles(const struct perf_event_attr *a)
{
	int id = generic_id(a);
	return cpu_event(a) && (id == PERF_COUNT_HW_CPU_CYCLES || id == PERF_COUNT_HW_REF_CPU_CYCLES ||
				id == PERF_COUNT_HW_BUS_CYCLES);
}

void model_notes(const char *tool, const struct perf_event_attr *first, size_t stride, int n,
		 bool say_cycles)
{
	char clock[32];
	if (!model_clock(clock, sizeof clock))
		return;
	bool icount = strncmp(clock, "icount ", 7) == 0;
	unsigned shift = icount ? (unsigned)strtoul(clock + 7, NULL, 10) : 0;
	unsigned step = 0;
	bool any_cycles = false;
	char list[96];
	for (int i = 0; i < n; i++) {
		const struct perf_event_attr *a =
			(const void *)((const char *)first + (size_t)i * stride);
		step |= stepped(a, icount);
		any_cycles |= cycles(a);
	}
	what(step, list, sizeof list);
	if (step)
		fprintf(stderr, "%s: note: the software PMU model counts %s by single-stepping the "
			"user code: ~200 kernel instructions per user instruction, the program "
			"hundreds of times slower (the model's own time is in no count); %s\n", tool, list,
			icount ? "instructions alone come from the instruction clock, at full speed" :
				 "--icount N counts instructions exactly at full speed");
	if (say_cycles && any_cycles) {
		if (icount)
			fprintf(stderr, "%s: note: cycles on the software PMU model are QEMU's "
				"instruction clock (-icount shift=%u): %u per instruction, not a "
				"pipeline's\n", tool, shift, 1u << shift);
		else
			fprintf(stderr, "%s: note: cycles on the software PMU model are the TSC, "
				"host time under QEMU TCG (one per instruction while stepped), not "
				"a pipeline's\n", tool);
	}
}
