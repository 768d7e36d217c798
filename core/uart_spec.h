/*
 * Naming a UART (docs/cmdline.md, "Serial ports"): what console= and
 * export= accept, and what ACPI's SPCR table says. Pure parsing, no
 * hardware access, so the host unit tests run it (tests/unit/test_uart_spec.c).
 */
#ifndef BAREMON_UART_SPEC_H
#define BAREMON_UART_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a 16550-compatible UART's registers are. */
struct uart_spec {
	enum { UART_NONE, UART_TTYS, UART_IO, UART_MMIO } kind;
	int ttys;           /* UART_TTYS: the N of ttySN */
	uint64_t base;      /* UART_IO: port; UART_MMIO: physical address */
	uint8_t shift;      /* register i is at base + (i << shift) */
	uint8_t width;      /* access size in bytes: 1 or 4 */
	uint32_t baud;      /* 0: not given */
};

/*
 * Parse a console=/export= value, Linux earlycon's forms:
 *   ttySN[,BAUD]                      a port by name (legacy, SPCR, PCI)
 *   uart[8250],io,ADDR[,BAUD]         I/O ports, byte registers
 *   uart[8250],mmio,ADDR[,BAUD]       memory, byte registers, stride 1
 *   uart[8250],mmio32,ADDR[,BAUD]     memory, 32-bit registers, stride 4
 * BAUD may carry a Linux-style suffix ("115200n8"), which is ignored.
 * 0, or -1 when the text is none of these.
 */
int uart_spec_parse(const char *text, struct uart_spec *out);

/*
 * ACPI's Serial Port Console Redirection table (SPCR, Microsoft's
 * specification): a 16550-compatible interface type (0, 1 or 0x12) at
 * a Generic Address Structure, with a baud code. 0 and *out set; -1 when
 * the table is too short, another kind of UART, or has no address.
 */
int uart_spec_from_spcr(const void *table, size_t len, struct uart_spec *out);

#endif
