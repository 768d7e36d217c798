/*
 * Local APIC and timer. State here is per CPU (the APIC itself) except the
 * mapping and mode, fixed by the boot CPU before others start.
 */
#include "apic.h"
#include "sched.h"
#include "timekeeping.h"
#include "acpi.h"
#include "cpu.h"
#include "kernel.h"
#include "mm.h"
#include "perf.h"
#include "percpu.h"
#include "trap.h"
#include "tsc.h"
#include "x86.h"

#define APIC_BASE_ENABLE (1ULL << 11)
#define APIC_BASE_X2APIC (1ULL << 10)
#define SVR_ENABLE (1u << 8)

static volatile uint8_t *mmio;
static bool x2apic;
static uint64_t tsc_per_tick;      /* TSC-deadline mode */
static uint32_t apic_per_tick;     /* APIC-timer mode (divide by 16) */
static const char *mode = "off";

bool apic_x2apic_mode(void)
{
	return x2apic;
}

uint32_t apic_read(uint32_t reg)
{
	if (x2apic)
		return (uint32_t)rdmsr(0x800 + (reg >> 4));
	return *(volatile uint32_t *)(mmio + reg);
}

void apic_write(uint32_t reg, uint32_t value)
{
	if (x2apic)
		wrmsr(0x800 + (reg >> 4), value);
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
		wrmsr(0x830, ((uint64_t)apic_id << 32) | icr_low);
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

void apic_init_cpu(void)
{
	uint64_t base = rdmsr(MSR_APIC_BASE);
	if (this_cpu_id() == 0) {
		x2apic = cpu.x2apic;
		if (acpi.pic_present || !acpi.present)
			mask_legacy_pic();
		if (!x2apic) {
			uint64_t phys = acpi.lapic_phys ? acpi.lapic_phys
							: (base & ~0xfffULL);
			mmio = vm_map_mmio(phys, PAGE_SIZE);
		}
		trap_set_handler(VEC_SPURIOUS, spurious);
		trap_set_handler(VEC_ERROR, apic_error);
	}
	base |= APIC_BASE_ENABLE;
	if (x2apic)
		base |= APIC_BASE_X2APIC;
	wrmsr(MSR_APIC_BASE, base);

	apic_write(APIC_TPR, 0);
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_LVT_THERMAL, LVT_MASKED);
	apic_write(APIC_LVT_PMC, LVT_MASKED);
	apic_write(APIC_LVT_LINT0, LVT_MASKED);
	apic_write(APIC_LVT_LINT1, LVT_MASKED);
	apic_write(APIC_LVT_ERROR, VEC_ERROR);
	apic_write(APIC_ESR, 0);
	apic_write(APIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
	apic_eoi();
}

/* ---- timer ---- */

static void arm_next(void)
{
	if (tsc_per_tick)
		wrmsr(MSR_TSC_DEADLINE, rdtsc() + tsc_per_tick);
}

static void timer_tick(struct trap_frame *f)
{
	this_cpu()->ticks++;
	arm_next();
	apic_eoi();
	if (this_cpu()->running) {
		sched_tick();
		perf_tick(f);
		if (this_cpu_id() == 0)
			timers_tick();
	}
}

/* APIC timer ticks (divide 16) per TSC second, measured over 10 ms. */
static uint64_t apic_timer_hz(void)
{
	apic_write(APIC_TIMER_DIV, 0x3); /* divide by 16 */
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_TIMER_INIT, 0xffffffff);
	udelay(10000);
	uint32_t elapsed = 0xffffffff - apic_read(APIC_TIMER_CUR);
	apic_write(APIC_TIMER_INIT, 0);
	return (uint64_t)elapsed * 100;
}

void timer_start(unsigned hz)
{
	trap_set_handler(VEC_TIMER, timer_tick);
	if (cpu.tsc_deadline) {
		tsc_per_tick = tsc_hz() / hz;
		apic_write(APIC_LVT_TIMER, VEC_TIMER | LVT_TIMER_TSC_DEADLINE);
		mode = "tsc-deadline";
		arm_next();
		return;
	}
	if (!apic_per_tick)
		apic_per_tick = (uint32_t)(apic_timer_hz() / hz);
	apic_write(APIC_TIMER_DIV, 0x3);
	apic_write(APIC_LVT_TIMER, VEC_TIMER | LVT_TIMER_PERIODIC);
	apic_write(APIC_TIMER_INIT, apic_per_tick);
	mode = "apic periodic";
}

void timer_stop(void)
{
	apic_write(APIC_LVT_TIMER, LVT_MASKED);
	apic_write(APIC_TIMER_INIT, 0);
	if (cpu.tsc_deadline)
		wrmsr(MSR_TSC_DEADLINE, 0);
}

const char *timer_mode(void)
{
	return mode;
}
