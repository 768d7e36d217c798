/*
 * The serial ports and the console's. ttyS0-3 are the legacy COM ports;
 * serial_discover() adds the UART that ACPI's SPCR table names (when it
 * is not one of those) and PCI serial devices as ttyS4 and up
 * (serial_pci.c). `console=` picks the console (docs/cmdline.md): a
 * ttyS name or an earlycon-style address (uart_spec.h); a name found
 * only by discovery, or an MMIO address, takes effect at
 * serial_late_init(), the console staying on ttyS0 until then.
 * `export=` picks a second UART for the frame stream (serial_export.c).
 *
 * Console output waits for the transmit holding register; input is read
 * when the line status register says data is ready: from the receive
 * interrupt once serial_enable_rx_irq() ran (a legacy port, whose IRQ
 * the I/O APIC routes), else by polling.
 */
#include <string.h>
#include "serial.h"
#include "cmdline.h"
#include "log.h"
#include <stdio.h>
#include "core/arch/acpi.h"

static struct uart ports[SERIAL_MAX_PORTS] = {
	{ .at = { UART_IO, 0, 0x3f8, 0, 1, 0 }, .irq = 4, .found_by = "legacy" },
	{ .at = { UART_IO, 0, 0x2f8, 0, 1, 0 }, .irq = 3, .found_by = "legacy" },
	{ .at = { UART_IO, 0, 0x3e8, 0, 1, 0 }, .irq = 4, .found_by = "legacy" },
	{ .at = { UART_IO, 0, 0x2e8, 0, 1, 0 }, .irq = 3, .found_by = "legacy" },
};
static int nports = SERIAL_LEGACY_PORTS;
/* A UART named by address that discovery did not find. */
static struct uart named[2];
static struct uart *con = &ports[0];
static const char *deferred;   /* console= to resolve at late init */

bool serial_present(int index)
{
	return index >= 0 && index < nports && uart_probe(&ports[index]);
}

int serial_add_port(const struct uart *u)
{
	for (int i = 0; i < nports; i++)
		if (ports[i].at.kind == u->at.kind && ports[i].at.base == u->at.base)
			return i;   /* already known (SPCR naming COM1, say) */
	if (nports == SERIAL_MAX_PORTS)
		return -1;
	ports[nports] = *u;
	return nports++;
}

struct uart *serial_resolve(const char *text, uint32_t *baud, int slot)
{
	struct uart_spec s;
	if (uart_spec_parse(text, &s) != 0)
		return NULL;
	if (s.baud)
		*baud = s.baud;
	if (s.kind == UART_TTYS)
		return serial_present(s.ttys) ? &ports[s.ttys] : NULL;
	for (int i = 0; i < nports; i++)
		if (ports[i].at.kind == s.kind && ports[i].at.base == s.base)
			return uart_probe(&ports[i]) ? &ports[i] : NULL;
	struct uart *u = &named[slot];
	*u = (struct uart){ .at = s, .irq = -1, .found_by = "cmdline" };
	if (!uart_map(u) || !uart_probe(u))
		return NULL;
	return u;
}

/* Forms that need discovery or a mapping wait for serial_late_init. */
static bool needs_late(const char *spec)
{
	struct uart_spec s;
	if (uart_spec_parse(spec, &s) != 0)
		return false;
	return s.kind == UART_MMIO || (s.kind == UART_TTYS && s.ttys >= SERIAL_LEGACY_PORTS);
}

int serial_select(const char *spec, uint32_t *baud)
{
	if (needs_late(spec)) {
		deferred = spec;
		return 1;
	}
	struct uart *u = serial_resolve(spec, baud, 0);
	if (!u)
		return -1;
	con = u;
	return 0;
}

int serial_irq(void)
{
	return con->irq;
}

int serial_index(void)
{
	for (int i = 0; i < nports; i++)
		if (con == &ports[i])
			return i;
	return -1;
}

const struct uart *serial_port(int index)
{
	return index >= 0 && index < nports ? &ports[index] : NULL;
}

struct uart *serial_console(void)
{
	return con;
}

void serial_report(void)
{
	for (int i = 0; i < nports; i++) {
		struct uart *u = &ports[i];
		if (!uart_probe(u))
			continue;
		char where[40];
		uart_describe(u, where, sizeof(where));
		klog("serial: ttyS%d: %s (%s)%s%s", i, where, u->found_by,
		     u == con ? ", console" : "", u == serial_export_uart() ? ", export" : "");
	}
	char where[40];
	uart_describe(con, where, sizeof(where));
	klog("serial: console %s (%s) at %u baud", where, con->found_by, con->baud);
}

/* Discovery, then the console and export choices that waited for it. */
void serial_late_init(void)
{
	serial_discover();
	if (deferred) {
		uint32_t baud = con->baud;
		struct uart *u = serial_resolve(deferred, &baud, 0);
		if (u) {
			klog("serial: console moves to %s", deferred);
			con = u;
			uart_program(con, baud);
		} else {
			klog("serial: console=%s: no such port; staying on ttyS%d", deferred,
			     serial_index());
		}
	}
	serial_export_init();
	serial_report();
}

void serial_init(uint32_t baud)
{
	uart_program(con, baud);
}

uint32_t serial_baud(void)
{
	return con->baud;
}

void serial_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			uart_putc(con, '\r');
		uart_putc(con, (uint8_t)s[i]);
	}
}

void serial_write_raw(const void *p, size_t n)
{
	uart_write(con, p, n);
}

int serial_getc(void)
{
	return uart_getc(con);
}

void serial_enable_rx_irq(void)
{
	uart_enable_rx_irq(con);
}
