/* 16550 UART on COM1: the console. Polled; see serial.c. */
#ifndef BAREMON_SERIAL_H
#define BAREMON_SERIAL_H

#include <stddef.h>
#include <stdint.h>

#define COM1_PORT 0x3f8

/* Program COM1 for `baud` 8N1 with FIFOs. Safe to call again. */
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
