/*
 * The TSC as the kernel's clock. Its frequency comes from CPUID 15H/16H,
 * else is calibrated against the HPET, the ACPI PM timer or the PIT (in
 * that order), see tsc.c. Before calibration, times read as 0.
 */
#ifndef BAREMON_TSC_H
#define BAREMON_TSC_H

#include <stdint.h>
#include "x86.h"

/* Record the TSC value that counts as "boot" (the loader's hand-off). */
void tsc_set_boot(uint64_t tsc);
uint64_t tsc_boot(void);

/* Find the TSC frequency; logs the source. Needs ACPI parsed (HPET/PM). */
void tsc_calibrate(void);
uint64_t tsc_hz(void);
const char *tsc_source(void);

/* Nanoseconds between two TSC values / since boot (0 if uncalibrated):
 * ns = (cycles * mult) >> shift; time since boot = ns(tsc) + zero, with
 * zero = -ns(boot tsc) (mod 2^64), as perf_event_mmap_page's
 * time_mult, time_shift and time_zero say it. Inline: the clock is read
 * on every perf read, switch and lean call. */
struct tsc_clock {
	uint32_t mult, shift;  /* mult fits 32 bits */
	uint64_t boot_ns;      /* the boot TSC converted */
};
/* Set by tsc_calibrate, read-only afterwards. */
extern struct tsc_clock tsc_clock;

static inline uint64_t tsc_to_ns(uint64_t cycles)
{
	/* shift <= 32: the mask only tells the compiler so */
	return (uint64_t)(((unsigned __int128)cycles * tsc_clock.mult) >> (tsc_clock.shift & 63));
}

static inline uint64_t time_since_boot_ns(void)
{
	return tsc_to_ns(rdtsc()) - tsc_clock.boot_ns;
}

void tsc_time_params(uint32_t *mult, uint16_t *shift, uint64_t *zero);

/* Busy-wait (only valid after calibration). */
void udelay(uint64_t us);

#endif
