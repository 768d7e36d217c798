/*
 * 16550 register access. Register i is at base + (i << shift); MMIO
 * registers are read and written with the UART's access width (a
 * 32-bit access for mmio32, whose registers hold one byte each in the
 * low bits). A missing UART reads 0xff, so the waits below end.
 */
#include <stdio.h>
#include "uart.h"
#include "core/arch/x86.h"
#include "core/mm/mm.h"

#define REG_DATA 0
#define REG_IER  1
#define REG_FCR  2
#define REG_IIR  2   /* read; FCR when written */
#define REG_LCR  3
#define REG_MCR  4
#define REG_LSR  5
#define REG_SCR  7
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY  0x20
#define LCR_DLAB 0x80
#define LCR_8N1  0x03

static uint8_t reg_in(struct uart *u, unsigned reg)
{
	uint64_t off = (uint64_t)reg << u->at.shift;
	if (u->at.kind == UART_IO)
		return inb((uint16_t)(u->at.base + off));
	if (!u->regs)
		return 0xff;
	if (u->at.width == 4)
		return (uint8_t)*(volatile uint32_t *)(u->regs + off);
	return u->regs[off];
}

static void reg_out(struct uart *u, unsigned reg, uint8_t v)
{
	uint64_t off = (uint64_t)reg << u->at.shift;
	if (u->at.kind == UART_IO)
		outb((uint16_t)(u->at.base + off), v);
	else if (u->regs && u->at.width == 4)
		*(volatile uint32_t *)(u->regs + off) = v;
	else if (u->regs)
		u->regs[off] = v;
}

bool uart_map(struct uart *u)
{
	if (u->at.kind != UART_MMIO || u->regs)
		return true;
	u->regs = vm_map_mmio(u->at.base, (size_t)8 << u->at.shift);
	return u->regs != NULL;
}

bool uart_probe(struct uart *u)
{
	if (u->at.kind == UART_MMIO && !u->regs)
		return false;
	if (reg_in(u, REG_LSR) == 0xff)
		return false;
	uint8_t saved = reg_in(u, REG_SCR);
	reg_out(u, REG_SCR, 0x5a);
	bool ok = reg_in(u, REG_SCR) == 0x5a;
	reg_out(u, REG_SCR, saved);
	return ok;
}

void uart_program(struct uart *u, uint32_t baud)
{
	if (baud == 0 || baud > 115200 || 115200 % baud != 0)
		baud = 115200;
	uint16_t divisor = (uint16_t)(115200 / baud);
	reg_out(u, REG_IER, 0);
	reg_out(u, REG_LCR, LCR_DLAB);
	reg_out(u, REG_DATA, divisor & 0xff);
	reg_out(u, REG_IER, divisor >> 8);
	reg_out(u, REG_LCR, LCR_8N1);
	reg_out(u, REG_FCR, 0xc7); /* enable + clear FIFOs, 14-byte level */
	reg_out(u, REG_MCR, 0x03); /* DTR + RTS */
	/* IIR bits 7:6 both set: the FIFOs took (a 16550A's 16 bytes);
	 * a 16450 or 8250 holds one byte. */
	u->fifo = (reg_in(u, REG_IIR) & 0xc0) == 0xc0 ? 16 : 1;
	u->baud = baud;
}

bool uart_tx_ready(struct uart *u)
{
	return reg_in(u, REG_LSR) & LSR_THR_EMPTY;
}

unsigned uart_fifo_size(const struct uart *u)
{
	return u->fifo ? u->fifo : 1;
}

void uart_write_fifo(struct uart *u, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		reg_out(u, REG_DATA, p[i]);
}

/*
 * Wait for the transmitter; false when it stayed full for UART_STUCK_POLLS
 * polls. A real UART always drains (no flow control here), but QEMU's
 * holds THRE clear while its chardev cannot take bytes - a socket nobody
 * reads - and this wait runs with interrupts off under the console lock,
 * so an unread line would stop the machine for good (docs/export.md, the
 * -icount stall). A count, not a time: under -icount a spin barely moves
 * the clock. Once stuck, bytes are dropped at once until THRE comes back;
 * then the line says how many were lost.
 */
static bool wait_tx(struct uart *u)
{
	if (u->stuck && !uart_tx_ready(u))
		return false;
	for (uint32_t polls = 0; !uart_tx_ready(u); polls++) {
		if (polls == UART_STUCK_POLLS) {
			u->stuck = true;
			return false;
		}
		__asm__ volatile("pause");
	}
	if (u->stuck) {
		u->stuck = false;
		char note[96];
		int k = snprintf(note, sizeof(note),
				 "\r\n[uart: transmitter stuck, %llu bytes dropped]\r\n",
				 (unsigned long long)u->dropped);
		for (int i = 0; i < k; i++) {
			while (!uart_tx_ready(u))
				__asm__ volatile("pause");
			reg_out(u, REG_DATA, (uint8_t)note[i]);
		}
		u->dropped = 0;
	}
	return true;
}

void uart_putc(struct uart *u, uint8_t c)
{
	if (wait_tx(u))
		reg_out(u, REG_DATA, c);
	else
		u->dropped++;
}

void uart_write(struct uart *u, const uint8_t *p, size_t n)
{
	unsigned burst = uart_fifo_size(u);
	while (n) {
		size_t k = n < burst ? n : burst;
		if (wait_tx(u))
			uart_write_fifo(u, p, k);
		else
			u->dropped += k;
		p += k;
		n -= k;
	}
}

int uart_getc(struct uart *u)
{
	uint8_t lsr = reg_in(u, REG_LSR);
	if (lsr == 0xff || !(lsr & LSR_DATA_READY))
		return -1;
	return reg_in(u, REG_DATA);
}

void uart_enable_rx_irq(struct uart *u)
{
	reg_out(u, REG_MCR, 0x0b); /* DTR, RTS, OUT2 */
	reg_out(u, REG_IER, 0x01);
}

void uart_describe(const struct uart *u, char *buf, size_t size)
{
	if (u->at.kind == UART_IO)
		snprintf(buf, size, "io %#llx", (unsigned long long)u->at.base);
	else
		snprintf(buf, size, "%s %#llx", u->at.width == 4 ? "mmio32" : "mmio",
			 (unsigned long long)u->at.base);
}
