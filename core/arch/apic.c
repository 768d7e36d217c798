/*
 * Local APIC and timer. State here is per CPU (the APIC itself) except the
 * mapping and mode, fixed by the boot CPU before others start.
 */
#include "apic.h"
#include "acpi.h"
#include "core/cmdline.h"
#include "cpu.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "msr-index.h"
#include "percpu.h"
#include "trap.h"
#include "tsc.h"
#include "x86.h"

#define APIC_BASE_ENABLE (1ULL << 11)
#define APIC_BASE_X2APIC (1ULL << 10)
#define SVR_ENABLE (1u << 8)

static volatile uint8_t *mmio;
static bool x2apic;
static const char *mode = "off";

bool apic_x2apic_mode(void)
{
	return x2apic;
}

uint32_t apic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(MSR_X2APIC_REG(reg));
	return *(volatile uint32_t *)(mmio + reg);
}

void apic_write(uint32_t reg, uint32_t value)
{
	if (x2apic)
		wrmsr(MSR_X2APIC_REG(reg), value);
	else
		*(volatile uint32_t *)(mmio + reg) = value;
}

uint32_t apic_current_id(void)
{
	uint32_t id = apic_read(APIC_ID);
	return x2apic ? id : id >> 24;
}

void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

void apic_send_ipi(uint32_t apic_id, uint32_t icr_low)
{
	if (x2apic) {
		wrmsr(MSR_X2APIC_REG(APIC_ICR), ((uint64_t)apic_id << 32) | icr_low);
		return;
	}
	*(volatile uint32_t *)(mmio + 0x310) = apic_id << 24;
	*(volatile uint32_t *)(mmio + 0x300) = icr_low;
	while (*(volatile uint32_t *)(mmio + 0x300) & (1u << 12))
		cpu_relax(); /* delivery pending */
}

static void spurious(struct trap_frame *f)
{
	(void)f; /* no EOI for spurious interrupts */
}

static void apic_error(struct trap_frame *f)
{
	(void)f;
	apic_write(APIC_ESR, 0);
	uint32_t esr = apic_read(APIC_ESR);
	klog("apic: error, ESR %#x on cpu %u", esr, this_cpu_id());
	apic_eoi();
}

static void mask_legacy_pic(void)
{
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
}

/*
 * x2APIC when CPUID.1:ECX[21] offers it, unless `nox2apic` asks for
 * xAPIC (for comparison) and no CPU needs x2APIC: an APIC ID above 254
 * cannot be named in xAPIC's 8-bit destination (255 is broadcast).
 */
static bool choose_x2apic(void)
{
	if (!cpu.x2apic)
		return false;
	if (!cmdline_has("nox2apic"))
		return true;
	if (acpi.max_apic_id > 254) {
		klog("apic: nox2apic ignored: apic id %u needs x2apic", acpi.max_apic_id);
		return true;
	}
	return false;
}

/* Enable this CPU's APIC in the chosen mode. From x2APIC (the firmware
 * may leave it on) back to xAPIC the APIC must pass through disabled:
 * EXTD cannot be cleared while EN stays set (SDM 10.12.5). */
static void enable_mode(void)
{
	uint64_t base = rdmsr(MSR_IA32_APICBASE);
	if (!x2apic && (base & APIC_BASE_X2APIC)) {
		base &= ~(APIC_BASE_ENABLE | APIC_BASE_X2APIC);
		wrmsr(MSR_IA32_APICBASE, base);
	}
	base |= APIC_BASE_ENABLE;
	if (x2apic)
		base |= APIC_BASE_X2APIC;
	wrmsr(MSR_IA32_APICBASE, base);
}

/* LINT0/LINT1 as the MADT's local APIC NMI entries (types 4 and 10) say
 * for this CPU's ACPI UID (or for all CPUs); masked otherwise. */
static void program_lint(uint32_t apic_id)
{
	const struct acpi_cpu *me = acpi_cpu_by_apic_id(apic_id);
	uint32_t lvt[2] = { LVT_MASKED, LVT_MASKED };
	for (unsigned i = 0; i < acpi.nlapic_nmis; i++) {
		const struct acpi_lapic_nmi *n = &acpi.lapic_nmis[i];
		if (n->lint > 1 || (n->uid != ACPI_UID_ALL && (!me || me->acpi_uid != n->uid)))
			continue;
		lvt[n->lint] = LVT_DELIVERY_NMI |
			       ((n->flags & 3) == 3 ? LVT_ACTIVE_LOW : 0);
	}
	apic_write(APIC_LVT_LINT0, lvt[0]);
	apic_write(APIC_LVT_LINT1, lvt[1]);
}

void apic_init_cpu(void)
{
	if (this_cpu_id() == 0) {
		x2apic = choose_x2apic();
		if (acpi.pic_present || !acpi.present)
			mask_legacy_pic();
		if (!x2apic) {
			uint64_t phys = acpi.lapic_phys ? acpi.lapic_phys
				: (rdmsr(MSR_IA32_APICBASE) & ~0xfffULL);
			mmio = vm_map_mmio(phys, PAGE_SIZE);
		}
		trap_set_handler(VEC_SPURIOUS, spurious);
		trap_set_handler(VEC_ERROR, apic_error);
	}
	enable_mode();

	apic_write(APIC_TPR, 0);
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_LVT_THERMAL, LVT_MASKED);
	apic_write(APIC_LVT_PMC, LVT_MASKED);
	program_lint(apic_current_id());
	apic_write(APIC_LVT_ERROR, VEC_ERROR);
	apic_write(APIC_ESR, 0);
	apic_write(APIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
	apic_eoi();
}

/* ---- timer: one-shot, armed by hrtimer.c for its earliest expiry ---- */

#define LVT_TIMER_ONESHOT 0u
#define APIC_TIMER_MAX 0xffffffffULL

static uint64_t apic_mult;     /* APIC-timer counts per TSC cycle, 40.24 */
static uint64_t max_delta_tsc; /* the longest delay one count can hold */

/* The APIC timer's current count and the TSC read together: the TSC
 * halfway through a read that took under 10 us (a longer one was
 * interrupted, or under emulation the CPU was descheduled: try again). */
static uint32_t read_count_tsc(uint64_t *tsc)
{
	uint64_t limit = tsc_hz() / 100000;
	uint32_t cur = 0;
	for (int i = 0; i < 100; i++) {
		uint64_t a = rdtsc();
		cur = apic_read(APIC_TIMER_CUR);
		uint64_t b = rdtsc();
		*tsc = a + (b - a) / 2;
		if (b - a < limit)
			break;
	}
	return cur;
}

/* APIC timer counts (divide by 16) per second over about 10 ms of TSC,
 * each end read as a pair: a delay between reading one clock and the
 * other would skew the rate (and every timer after it). */
static uint64_t apic_timer_hz_once(void)
{
	uint64_t t0, t1;
	apic_write(APIC_TIMER_DIV, 0x3); /* divide by 16 */
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_TIMER_INIT, 0xffffffff);
	uint32_t c0 = read_count_tsc(&t0);
	udelay(10000);
	uint32_t c1 = read_count_tsc(&t1);
	apic_write(APIC_TIMER_INIT, 0);
	uint64_t ns = tsc_to_ns(t1 - t0);
	return ns ? (uint64_t)(c0 - c1) * 1000000000ULL / ns : 0;
}

/* The median of three measurements. */
static uint64_t apic_timer_hz(void)
{
	uint64_t a = apic_timer_hz_once(), b = apic_timer_hz_once(),
		 c = apic_timer_hz_once(), t;
	if (a > b)
		t = a, a = b, b = t;
	if (b > c)
		t = b, b = c, c = t;
	if (a > b)
		t = a, a = b, b = t;
	return b;
}

void timer_init_cpu(void)
{
	if (cpu.tsc_deadline) {
		apic_write(APIC_LVT_TIMER, VEC_TIMER | LVT_TIMER_TSC_DEADLINE);
		mode = "tsc-deadline";
		return;
	}
	if (!apic_mult) { /* boot CPU: every CPU's bus clock is the same */
		uint64_t hz = apic_timer_hz();
		apic_mult = (hz << 24) / tsc_hz();
		if (!apic_mult)
			apic_mult = 1;
		max_delta_tsc = (APIC_TIMER_MAX << 24) / apic_mult;
		klog("apic: timer one-shot at %llu Hz (divide by 16)",
		     (unsigned long long)hz);
	}
	apic_write(APIC_TIMER_DIV, 0x3);
	apic_write(APIC_LVT_TIMER, VEC_TIMER | LVT_TIMER_ONESHOT);
	mode = "apic one-shot";
}

/*
 * Interrupt at TSC `deadline` (past: at once). One-shot mode counts the
 * delay in APIC-timer counts, rounded up so it never fires early by
 * rounding; a delay beyond 32 bits of count is clamped and the
 * interrupt, finding nothing expired, arms again (hrtimer.c).
 */
void timer_arm(uint64_t deadline)
{
	if (cpu.tsc_deadline) {
		wrmsr(MSR_IA32_TSC_DEADLINE, deadline);
		return;
	}
	uint64_t now = rdtsc();
	uint64_t delta = deadline > now ? deadline - now : 0;
	if (delta > max_delta_tsc)
		delta = max_delta_tsc;
	uint64_t count = ((delta * apic_mult) >> 24) + 1;
	if (count > APIC_TIMER_MAX)
		count = APIC_TIMER_MAX;
	apic_write(APIC_TIMER_INIT, (uint32_t)count);
}

void timer_disarm(void)
{
	if (cpu.tsc_deadline)
		wrmsr(MSR_IA32_TSC_DEADLINE, 0);
	else
		apic_write(APIC_TIMER_INIT, 0);
}

const char *timer_mode(void)
{
	return mode;
}
