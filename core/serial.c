/*
 * COM1 console, polled. Output waits for the transmit holding register;
 * input is read when the line status register says data is ready. The
 * UART's receive interrupt is not used yet (the session shell polls).
 */
#include "serial.h"
#include "arch/x86.h"

#define REG_DATA 0
#define REG_IER  1
#define REG_FCR  2
#define REG_LCR  3
#define REG_MCR  4
#define REG_LSR  5
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY  0x20
#define LCR_DLAB 0x80
#define LCR_8N1  0x03

static uint32_t current_baud;

void serial_init(uint32_t baud)
{
	if (baud == 0 || baud > 115200 || 115200 % baud != 0)
		baud = 115200;
	uint16_t divisor = (uint16_t)(115200 / baud);
	outb(COM1_PORT + REG_IER, 0);
	outb(COM1_PORT + REG_LCR, LCR_DLAB);
	outb(COM1_PORT + REG_DATA, divisor & 0xff);
	outb(COM1_PORT + REG_IER, divisor >> 8);
	outb(COM1_PORT + REG_LCR, LCR_8N1);
	outb(COM1_PORT + REG_FCR, 0xc7); /* enable + clear FIFOs, 14-byte level */
	outb(COM1_PORT + REG_MCR, 0x03); /* DTR + RTS */
	current_baud = baud;
}

uint32_t serial_baud(void)
{
	return current_baud;
}

static void put_raw(char c)
{
	/* A missing UART reads 0xff, so this loop cannot hang on it. */
	while (!(inb(COM1_PORT + REG_LSR) & LSR_THR_EMPTY))
		__asm__ volatile("pause");
	outb(COM1_PORT + REG_DATA, (uint8_t)c);
}

void serial_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			put_raw('\r');
		put_raw(s[i]);
	}
}

void serial_write_raw(const void *p, size_t n)
{
	const char *s = p;
	for (size_t i = 0; i < n; i++)
		put_raw(s[i]);
}

int serial_getc(void)
{
	uint8_t lsr = inb(COM1_PORT + REG_LSR);
	if (lsr == 0xff || !(lsr & LSR_DATA_READY))
		return -1;
	return inb(COM1_PORT + REG_DATA);
}

/* Receive interrupts (IRQ 4 through the I/O APIC): IER bit 0, and OUT2,
 * which gates the UART's interrupt line on PC hardware. */
void serial_enable_rx_irq(void)
{
	outb(COM1_PORT + REG_MCR, 0x0b); /* DTR, RTS, OUT2 */
	outb(COM1_PORT + REG_IER, 0x01);
}
