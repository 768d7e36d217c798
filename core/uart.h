/*
 * One 16550-compatible UART, wherever its registers are: I/O ports
 * (the legacy COM ports, PCI cards with an I/O BAR) or memory (SPCR
 * or PCI memory BARs, earlycon's mmio/mmio32), with a register stride
 * (shift) and access width. See uart.c.
 */
#ifndef BAREMON_UART_H
#define BAREMON_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "uart_spec.h"

struct uart {
	struct uart_spec at;      /* kind UART_IO or UART_MMIO */
	volatile uint8_t *regs;   /* UART_MMIO: the mapping of at.base */
	int irq;                  /* ISA line of a legacy port, else -1 */
	uint32_t baud;            /* as programmed */
	unsigned fifo;            /* transmit FIFO bytes (16 or 1); 0 until programmed */
	/* Output dropped while the transmitter stayed full (uart.c);
	 * changed under the lock of whoever writes this UART. */
	bool stuck;
	uint64_t dropped;
	char found_by[24];        /* "legacy", "SPCR", "PCI 00:03.0", "cmdline" */
};

/* Map an MMIO UART's registers (after vm_init); false when it cannot. */
bool uart_map(struct uart *u);
/* Does it answer? (scratch register round trip; absent ports read 0xff) */
bool uart_probe(struct uart *u);
/* 8N1 at baud (115200 when 0 or not a divisor of 115200), FIFOs on. */
void uart_program(struct uart *u, uint32_t baud);
/* Polls of a full transmitter before its output is dropped (about a
 * minute of polling on hardware or QEMU; a real line drains in 1.4 ms). */
#define UART_STUCK_POLLS (1u << 25)
/* Wait for the transmitter, then send one byte. */
void uart_putc(struct uart *u, uint8_t c);
/* n bytes, a FIFO's worth per wait for the transmitter. */
void uart_write(struct uart *u, const uint8_t *p, size_t n);
/* The transmit holding register is empty: a byte can go now. */
bool uart_tx_ready(struct uart *u);
/* Bytes the transmitter takes at once when it reports empty. */
unsigned uart_fifo_size(const struct uart *u);
/* Put n <= uart_fifo_size() bytes without waiting: only right after
 * uart_tx_ready() said yes. */
void uart_write_fifo(struct uart *u, const uint8_t *p, size_t n);
/* A received byte, or -1 when none is waiting. */
int uart_getc(struct uart *u);
/* Receive interrupts on (IER bit 0) and OUT2, the PC's IRQ gate. */
void uart_enable_rx_irq(struct uart *u);
/* "io 0x3f8" / "mmio32 0xfe000000" into buf. */
void uart_describe(const struct uart *u, char *buf, size_t size);

#endif
