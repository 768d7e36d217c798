/*
 * Finding UARTs beyond the legacy COM ports: the one ACPI's SPCR table
 * names, and PCI devices of class 07h subclass 00h (16550-compatible
 * serial controllers: PCIe serial cards, Intel AMT serial-over-LAN,
 * QEMU's pci-serial). PCI configuration space is read through
 * core/pci.c. Each UART found becomes the next ttyS.
 */
#include <stdio.h>
#include "serial.h"
#include "log.h"
#include "core/arch/acpi.h"
#include "core/pci.h"

#define PCI_CLASS_SERIAL 0x0700   /* class 07h, subclass 00h */

/* The UART behind BAR0 of a serial function, with decoding turned on. */
static void add_pci_uart(unsigned bus, unsigned dev, unsigned fn)
{
	uint32_t bar = pci_read(bus, dev, fn, 0x10);
	struct uart u = { .irq = -1 };
	uint32_t cmd = pci_read(bus, dev, fn, 0x04) & 0xffff;
	if (bar & 1) {
		u.at = (struct uart_spec){ .kind = UART_IO, .base = bar & ~3u, .width = 1 };
		cmd |= 1;   /* I/O space */
	} else {
		uint64_t base = bar & ~0xfu;
		if ((bar & 6) == 4)
			base |= (uint64_t)pci_read(bus, dev, fn, 0x14) << 32;
		u.at = (struct uart_spec){ .kind = UART_MMIO, .base = base, .width = 1 };
		cmd |= 2;   /* memory space */
	}
	if (!u.at.base)
		return;
	pci_write(bus, dev, fn, 0x04, cmd);
	snprintf(u.found_by, sizeof(u.found_by), "PCI %02x:%02x.%u", bus, dev, fn);
	if (!uart_map(&u) || !uart_probe(&u)) {
		klog("serial: %s: serial device does not answer", u.found_by);
		return;
	}
	if (serial_add_port(&u) < 0)
		klog("serial: %s: no room for another port", u.found_by);
}

static void scan_function(unsigned bus, unsigned dev, unsigned fn)
{
	uint32_t class = pci_read(bus, dev, fn, 0x08) >> 16;
	if (class == PCI_CLASS_SERIAL)
		add_pci_uart(bus, dev, fn);
}

/* Every bus, device and function (functions 1-7 only on multi-function
 * devices): at most 8192 vendor reads when nothing is multi-function. */
static void scan_pci(void)
{
	for (unsigned bus = 0; bus < 256; bus++)
		for (unsigned dev = 0; dev < 32; dev++) {
			if ((pci_read(bus, dev, 0, 0) & 0xffff) == 0xffff)
				continue;
			bool multi = (pci_read(bus, dev, 0, 0x0c) >> 16) & 0x80;
			for (unsigned fn = 0; fn < (multi ? 8u : 1u); fn++)
				if ((pci_read(bus, dev, fn, 0) & 0xffff) != 0xffff)
					scan_function(bus, dev, fn);
		}
}

static void read_spcr(void)
{
	const uint8_t *t = acpi_find_table("SPCR");
	if (!t)
		return;
	uint32_t len = (uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 |
		       (uint32_t)t[7] << 24;
	struct uart u = { .irq = -1, .found_by = "SPCR" };
	if (uart_spec_from_spcr(t, len, &u.at) != 0) {
		klog("serial: SPCR names a UART this kernel cannot drive");
		return;
	}
	if (!uart_map(&u) || !uart_probe(&u)) {
		klog("serial: SPCR's UART at %#llx does not answer",
		     (unsigned long long)u.at.base);
		return;
	}
	int n = serial_add_port(&u);
	if (n >= 0)
		klog("serial: SPCR names ttyS%d (%u baud)", n, u.at.baud);
}

void serial_discover(void)
{
	read_spcr();
	scan_pci();
}
