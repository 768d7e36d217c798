/*
 * TSC frequency. Sources in order of trust: CPUID 15H (crystal ratio),
 * CPUID 16H (base MHz), then calibration (the median of 5 samples of
 * 10 ms) against the HPET, the ACPI PM timer, or PIT channel 2. Under QEMU -icount the TSC counts
 * instructions, so the "frequency" is instructions per virtual second.
 * Written once at boot; read-only afterwards.
 */
#include <string.h>
#include "tsc.h"
#include "acpi.h"
#include "core/cmdline.h"
#include "cpu.h"
#include "hpet.h"
#include "core/kernel.h"
#include "x86.h"

#define CALIBRATE_MS 10
#define PM_TIMER_HZ 3579545ULL
#define PIT_HZ 1193182ULL

static uint64_t boot_tsc;
static uint64_t hz;
/* ns = (cycles * mult) >> shift, as perf_event_mmap_page's time_mult and
 * time_shift (tsc.h). */
struct tsc_clock tsc_clock;
static const char *source = "none";

void tsc_set_boot(uint64_t tsc) { boot_tsc = tsc; }
uint64_t tsc_boot(void) { return boot_tsc; }
uint64_t tsc_hz(void) { return hz; }
const char *tsc_source(void) { return source; }

void tsc_time_params(uint32_t *m, uint16_t *s, uint64_t *zero)
{
	*m = tsc_clock.mult;
	*s = (uint16_t)tsc_clock.shift;
	*zero = -tsc_clock.boot_ns;
}

/* The largest shift (at most 32) whose mult still fits 32 bits. */
static void set_mult(void)
{
	uint32_t shift;
	for (shift = 32; shift > 0; shift--) {
		uint64_t m = (1000000000ULL << shift) / hz; /* < 2^62: no overflow */
		if (m <= 0xffffffffULL) {
			tsc_clock.mult = (uint32_t)m;
			break;
		}
	}
	tsc_clock.shift = shift;
	tsc_clock.boot_ns = tsc_to_ns(boot_tsc);
}

void udelay(uint64_t us)
{
	uint64_t end = rdtsc() + hz / 1000000 * us;
	while (rdtsc() < end)
		cpu_relax();
}

/*
 * One calibration sample: TSC ticks per second against a reference counter
 * of `ref_hz` read by `read` (wrapping at `mask`), over `ref_ticks`. Each end
 * is bracketed by two reference reads; when they lie far apart (the vCPU
 * was descheduled, or an SMI hit), the sample is refused (returns 0).
 */
static uint64_t sample(uint64_t (*read)(void), uint64_t mask, uint64_t ref_hz,
		       uint64_t ref_ticks)
{
	uint64_t slack = ref_hz / 20000 + 2; /* 50 us */
	uint64_t a0 = read(), t0 = rdtsc(), b0 = read();
	uint64_t r;
	do
		r = read();
	while (((r - a0) & mask) < ref_ticks);
	uint64_t a1 = read(), t1 = rdtsc(), b1 = read();
	if (((b0 - a0) & mask) > slack || ((b1 - a1) & mask) > slack)
		return 0;
	/* Reference time between the midpoints of the two brackets. */
	uint64_t ref = ((a1 - a0) & mask) + (((b1 - a1) & mask) - ((b0 - a0) & mask)) / 2;
	return ref ? (t1 - t0) / ref * ref_hz + (t1 - t0) % ref * ref_hz / ref : 0;
}

/*
 * Up to 5 accepted samples of CALIBRATE_MS each, sorted; the median of
 * them, or with `wraps` the smallest. A counter that wraps within a
 * stall (the PIT's 16 bits go round in 55 ms) can go round unseen while
 * the vCPU is descheduled in the middle of a sample: that sample spans
 * more time than it measures and only ever reads high (5200 MHz for a
 * 2096 MHz TSC at load 18, three samples of five stretched), so the
 * least stretched is the smallest.
 */
static uint64_t measure(uint64_t (*read)(void), uint64_t mask, uint64_t ref_hz, bool wraps)
{
	uint64_t got[5];
	unsigned n = 0;
	for (unsigned tries = 0; tries < 15 && n < 5; tries++) {
		uint64_t v = sample(read, mask, ref_hz, ref_hz * CALIBRATE_MS / 1000);
		if (v)
			got[n++] = v;
	}
	for (unsigned i = 1; i < n; i++) /* insertion sort */
		for (unsigned j = i; j > 0 && got[j - 1] > got[j]; j--) {
			uint64_t x = got[j];
			got[j] = got[j - 1];
			got[j - 1] = x;
		}
	return n ? got[wraps ? 0 : n / 2] : 0;
}

static uint64_t read_pm_timer(void)
{
	return inl((uint16_t)acpi.pm_timer_port);
}

static bool from_cpuid(void)
{
	if (cpu.tsc_ratio_den && cpu.tsc_ratio_num && cpu.crystal_hz) {
		hz = (uint64_t)cpu.crystal_hz * cpu.tsc_ratio_num / cpu.tsc_ratio_den;
		source = "cpuid 15h";
		return true;
	}
	if (cpu.base_mhz) {
		hz = (uint64_t)cpu.base_mhz * 1000000ULL;
		source = "cpuid 16h";
		return true;
	}
	return false;
}

/* PIT channel 2 as a free-running 16-bit up counter: mode 2 (rate
 * generator) with the full count, gate on through port 0x61, speaker
 * off; each read latches the count. */
static void pit_start(void)
{
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);
	outb(0x43, 0xb4); /* ch2, lo/hi, mode 2, binary */
	outb(0x42, 0);
	outb(0x42, 0);    /* 0 = 65536 */
}

static uint64_t read_pit(void)
{
	outb(0x43, 0x80); /* latch ch2 */
	uint8_t lo = inb(0x42), hi = inb(0x42);
	return (0x10000u - ((unsigned)hi << 8 | lo)) & 0xffff; /* counts down */
}

/* Calibrated like the other references (bracketed samples, median), so
 * a vCPU descheduled while the PIT runs does not stretch the result; 0
 * when there is no PIT (the counter never moves). */
static uint64_t calibrate_pit(void)
{
	pit_start();
	uint64_t first = read_pit();
	unsigned spins = 0;
	while (read_pit() == first)
		if (++spins > 1000000)
			return 0;
	return measure(read_pit, 0xffff, PIT_HZ, true);
}

static void calibrate_hpet(void)
{
	hz = measure(hpet_read, ~0ULL, hpet_hz(), false);
	source = "hpet";
}

static void calibrate_pm_timer(void)
{
	uint64_t mask = acpi.pm_timer_32bit ? 0xffffffffULL : 0xffffffULL;
	hz = measure(read_pm_timer, mask, PM_TIMER_HZ, false);
	source = "acpi pm timer";
}

/* tsc_ref=cpuid|hpet|pmtimer|pit forces one source (for testing them, or
 * to distrust a firmware's CPUID values). Returns false if it is absent. */
static bool forced_source(const char *ref)
{
	if (strcmp(ref, "cpuid") == 0)
		return from_cpuid();
	if (strcmp(ref, "hpet") == 0 && hpet_present())
		calibrate_hpet();
	else if (strcmp(ref, "pmtimer") == 0 && acpi.pm_timer_port)
		calibrate_pm_timer();
	else if (strcmp(ref, "pit") == 0) {
		hz = calibrate_pit();
		source = "pit";
	} else
		return false;
	return true;
}

void tsc_calibrate(void)
{
	const char *ref = cmdline_get("tsc_ref");
	if (ref && !forced_source(ref))
		klog("tsc: tsc_ref=%s is not available here; choosing another", ref);
	if (!hz && !from_cpuid()) {
		if (hpet_present())
			calibrate_hpet();
		else if (acpi.pm_timer_port)
			calibrate_pm_timer();
		else {
			hz = calibrate_pit();
			source = "pit";
		}
	}
	if (!hz)
		panic("tsc: could not determine the TSC frequency");
	set_mult();
	klog("tsc: %llu.%03llu MHz (from %s)", (unsigned long long)(hz / 1000000),
	     (unsigned long long)(hz / 1000 % 1000), source);
}
