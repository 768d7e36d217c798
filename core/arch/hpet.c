/* HPET: only the free-running main counter is used. Set up once by the
 * boot CPU; reads are lock-free. */
#include "hpet.h"
#include "acpi.h"
#include "core/kernel.h"
#include "core/mm/mm.h"

#define HPET_CAP      0x000
#define HPET_CONFIG   0x010
#define HPET_COUNTER  0x0f0
#define CONFIG_ENABLE 1

static volatile uint8_t *regs;
static uint64_t hz;

static inline uint64_t reg_read(unsigned off)
{
	return *(volatile uint64_t *)(regs + off);
}

static inline void reg_write(unsigned off, uint64_t v)
{
	*(volatile uint64_t *)(regs + off) = v;
}

bool hpet_init(void)
{
	if (!acpi.hpet_phys)
		return false;
	regs = vm_map_mmio(acpi.hpet_phys, 1024);
	uint64_t period_fs = reg_read(HPET_CAP) >> 32;
	if (period_fs == 0 || period_fs > 100000000) { /* spec: <= 100 ns */
		klog("hpet: bad period %llu fs, ignored", (unsigned long long)period_fs);
		regs = 0;
		return false;
	}
	hz = 1000000000000000ULL / period_fs;
	reg_write(HPET_CONFIG, reg_read(HPET_CONFIG) | CONFIG_ENABLE);
	klog("hpet: at %#llx, %llu Hz", (unsigned long long)acpi.hpet_phys,
	     (unsigned long long)hz);
	return true;
}

bool hpet_present(void)
{
	return regs != 0;
}

uint64_t hpet_read(void)
{
	return reg_read(HPET_COUNTER);
}

uint64_t hpet_hz(void)
{
	return hz;
}
