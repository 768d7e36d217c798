/* The serial ports, the console's and the export UART; see serial.c. */
#ifndef BAREMON_SERIAL_H
#define BAREMON_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "uart.h"

#define SERIAL_LEGACY_PORTS 4   /* ttyS0-3: COM1-4 */
#define SERIAL_MAX_PORTS 8      /* ttyS4-7: SPCR, PCI */

/* Does ttyS<index> answer? */
bool serial_present(int index);
/* Make spec (a ttyS name or an earlycon form, uart_spec.h) the console;
 * *baud takes its BAUD. 0 done; 1 when it waits for serial_late_init
 * (an MMIO or discovered port); -1 (console unchanged) when it names
 * nothing that answers. */
int serial_select(const char *spec, uint32_t *baud);
/* After ACPI: SPCR and PCI discovery, a deferred console=, export=,
 * and the boot log's list of ports. */
void serial_late_init(void);
/* The console's ISA interrupt line (-1: none, poll it) and ttyS number
 * (-1 when it was named by an address discovery did not find). */
int serial_irq(void);
int serial_index(void);
/* Log the ports present and the console's. */
void serial_report(void);

/* Program the console UART for `baud` 8N1 with FIFOs. Safe to call again. */
void serial_init(uint32_t baud);
uint32_t serial_baud(void);
/* Write bytes, turning "\n" into "\r\n". Caller holds the console lock. */
void serial_write(const char *s, size_t n);
/* Write bytes unchanged (binary frames). Caller holds the console lock. */
void serial_write_raw(const void *p, size_t n);
/* A received byte, or -1 when none is waiting. */
int serial_getc(void);
void serial_enable_rx_irq(void);

/* For discovery and the export UART: */
struct uart *serial_console(void);
const struct uart *serial_port(int index);
/* Add a discovered port: its ttyS number (an existing one when the
 * address is known), or -1 when the table is full. */
int serial_add_port(const struct uart *u);
/* The UART spec names, probed (and mapped); NULL when none answers.
 * slot 0 is the console's, 1 the export's (for address-named UARTs). */
struct uart *serial_resolve(const char *spec, uint32_t *baud, int slot);
/* serial_pci.c: SPCR and PCI serial devices into the port table. */
void serial_discover(void);
/* serial_export.c: export= */
void serial_export_init(void);
struct uart *serial_export_uart(void);   /* NULL when there is none */

#endif
