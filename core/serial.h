/* The 16550 UART of the console, on a legacy COM port; see serial.c. */
#ifndef BAREMON_SERIAL_H
#define BAREMON_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERIAL_LEGACY_PORTS 4   /* ttyS0-3: COM1-4 */

/* Does legacy port ttyS<index> answer? */
bool serial_present(int index);
/* Make "ttySN" or "ttySN,BAUD" (Linux's console= form) the console when
 * that port is present; *baud takes BAUD. -1 (console unchanged) when
 * the name is not one of ttyS0-3 or the port is absent. */
int serial_select(const char *spec, uint32_t *baud);
/* The console's ISA interrupt line and its ttyS number. */
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

#endif
