/*
 * The self-tests' knobs (selftest.h), per CPU: knobs[c][k] is written
 * and read only on CPU c (a test sets it on the CPU it runs on; the
 * code it steers runs there too, in the PMI or the NMI).
 *
 *   SELFTEST_STUCK_STATUS  pmu/x86/overflow.c raises the overflow
 *                          status again after acknowledging it, so the
 *                          status loop reaches its limit;
 *   SELFTEST_NMI_DIRECT    pmu/x86/pmi.c handles an NMI that landed in
 *                          the software model at once instead of
 *                          deferring it (the test sends it itself).
 */
#include "core/arch/percpu.h"
#include "core/selftest.h"

static bool knobs[MAX_CPUS][SELFTEST_NR_KNOBS];

bool selftest_knob(enum selftest_knob k)
{
	return knobs[this_cpu_id()][k];
}

void selftest_set_knob(enum selftest_knob k, bool on)
{
	knobs[this_cpu_id()][k] = on;
}
