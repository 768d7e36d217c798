/* bp.c: whether breakpoint hits are delivered here (perf.h). */
#include "perf.h"

/* What the breakpoint probe watches. */
static __attribute__((noinline)) void bp_probe_fn(void)
{
	__asm__ volatile("");
}

/*
 * The probe: an execute breakpoint on a function that is then called
 * once must count 1. Where it does not (and this is not baremon), one
 * note says so and the checks that need a hit are skipped.
 */
int bp_hits_checked(void)
{
	static int answer = -1;
	void (*volatile call)(void) = bp_probe_fn; /* opaque to the compiler */
	struct perf_event_attr a;
	uint64_t hits = PERF_BAD_VALUE;
	int fd;

	if (answer >= 0)
		return answer;
	perf_attr(&a, PERF_TYPE_BREAKPOINT, 0);
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = (uint64_t)(uintptr_t)bp_probe_fn;
	a.bp_len = sizeof(long);
	a.exclude_kernel = 1;
	fd = perf_open(&a, 0, -1, -1, 0);
	if (fd >= 0) {
		call();
		hits = perf_value(fd);
		close(fd);
	}
	answer = 1;
	if (abi_on_baremon())
		CHECK(hits == 1, "breakpoint probe: one call of a function with "
		      "an execute breakpoint counts 1 (got %lld)", (long long)hits);
	else if (hits != 1) {
		abi_note("this host does not deliver breakpoint hits (the probe "
		         "counted %lld, not 1): the checks that need one are skipped",
		         (long long)hits);
		answer = 0;
	}
	return answer;
}
