/*
 * I/O APIC redirection entries. Only the boot CPU programs them, during
 * start-up; no lock.
 */
#include <linux/errno.h>
#include "acpi.h"
#include "ioapic.h"
#include "core/kernel.h"
#include "core/mm/mm.h"
#include "percpu.h"

#define IOREGSEL 0x00
#define IOWIN    0x10
#define REG_VER  0x01
#define REG_REDIR(n) (0x10 + 2 * (n))
#define REDIR_MASKED (1u << 16)
#define REDIR_LEVEL  (1u << 15)
#define REDIR_LOW    (1u << 13)

static uint32_t io_read(volatile uint32_t *base, uint32_t reg)
{
	base[IOREGSEL / 4] = reg;
	return base[IOWIN / 4];
}

static void io_write(volatile uint32_t *base, uint32_t reg, uint32_t v)
{
	base[IOREGSEL / 4] = reg;
	base[IOWIN / 4] = v;
}

/* ISA IRQ -> GSI and polarity/trigger, from the MADT's overrides. */
static uint32_t gsi_of(unsigned irq, uint16_t *flags)
{
	*flags = 0;
	for (unsigned i = 0; i < acpi.noverrides; i++)
		if (acpi.overrides[i].irq == irq) {
			*flags = acpi.overrides[i].flags;
			return acpi.overrides[i].gsi;
		}
	return irq;
}

int ioapic_route_isa(unsigned irq, unsigned vector)
{
	uint16_t flags;
	uint32_t gsi = gsi_of(irq, &flags);
	for (unsigned i = 0; i < acpi.nioapics; i++) {
		struct acpi_ioapic *io = &acpi.ioapics[i];
		volatile uint32_t *base = vm_map_mmio(io->phys, PAGE_SIZE);
		uint32_t count = ((io_read(base, REG_VER) >> 16) & 0xff) + 1;
		if (gsi < io->gsi_base || gsi >= io->gsi_base + count)
			continue;
		uint32_t pin = gsi - io->gsi_base;
		uint32_t low = vector;
		if ((flags & 3) == 3)
			low |= REDIR_LOW;      /* active low */
		if (((flags >> 2) & 3) == 3)
			low |= REDIR_LEVEL;    /* level triggered */
		io_write(base, REG_REDIR(pin) + 1, percpu_area[0].apic_id << 24);
		io_write(base, REG_REDIR(pin), low);
		return 0;
	}
	return -ENODEV;
}
