/*
 * The serial console: a 16550 on one of the legacy COM ports (COM1 by
 * default; `console=ttySN[,BAUD]` picks another that is present).
 * Output waits for the transmit holding register; input is read when
 * the line status register says data is ready: from the receive
 * interrupt once serial_enable_rx_irq() ran (the console tty, where the
 * I/O APIC routes the port's IRQ), else by polling (the timer tick's
 * hook, and the rescue shell's read loop).
 */
#include <string.h>
#include "serial.h"
#include "log.h"
#include <stdio.h>
#include "arch/x86.h"

#define REG_DATA 0
#define REG_IER  1
#define REG_FCR  2
#define REG_LCR  3
#define REG_MCR  4
#define REG_LSR  5
#define REG_SCR  7
#define LSR_DATA_READY 0x01
#define LSR_THR_EMPTY  0x20
#define LCR_DLAB 0x80
#define LCR_8N1  0x03

/* The legacy ports and their ISA interrupt lines (ttyS0-3). */
static const struct {
	uint16_t port;
	uint8_t irq;
} legacy[SERIAL_LEGACY_PORTS] = {
	{ 0x3f8, 4 }, { 0x2f8, 3 }, { 0x3e8, 4 }, { 0x2e8, 3 },
};

static int current = 0;   /* index into legacy[]: the console */
static uint32_t current_baud;
#define COM_PORT legacy[current].port

/* A UART answers with what was written to its scratch register; an
 * absent port reads 0xff whatever was written. */
bool serial_present(int index)
{
	uint16_t p = legacy[index].port;
	if (inb(p + REG_LSR) == 0xff)
		return false;
	uint8_t saved = inb(p + REG_SCR);
	outb(p + REG_SCR, 0x5a);
	bool ok = inb(p + REG_SCR) == 0x5a;
	outb(p + REG_SCR, saved);
	return ok;
}

int serial_select(const char *spec, uint32_t *baud)
{
	if (strncmp(spec, "ttyS", 4) != 0 || spec[4] < '0' ||
	    spec[4] >= '0' + SERIAL_LEGACY_PORTS || (spec[5] && spec[5] != ','))
		return -1;
	int index = spec[4] - '0';
	if (!serial_present(index))
		return -1;
	current = index;
	if (spec[5] == ',') {
		uint32_t b = 0;
		for (const char *c = spec + 6; *c >= '0' && *c <= '9'; c++)
			b = b * 10 + (uint32_t)(*c - '0');
		if (b)
			*baud = b;
	}
	return 0;
}

int serial_irq(void)
{
	return legacy[current].irq;
}

int serial_index(void)
{
	return current;
}

void serial_report(void)
{
	char found[64] = "";
	for (int i = 0; i < SERIAL_LEGACY_PORTS; i++) {
		if (!serial_present(i))
			continue;
		size_t n = strlen(found);
		snprintf(found + n, sizeof(found) - n, "%sttyS%d", n ? ", " : "", i);
	}
	klog("serial: legacy ports present: %s; console ttyS%d (%#x, irq %d) at %u baud",
	     found[0] ? found : "none", current, legacy[current].port,
	     legacy[current].irq, current_baud);
}

void serial_init(uint32_t baud)
{
	if (baud == 0 || baud > 115200 || 115200 % baud != 0)
		baud = 115200;
	uint16_t divisor = (uint16_t)(115200 / baud);
	outb(COM_PORT + REG_IER, 0);
	outb(COM_PORT + REG_LCR, LCR_DLAB);
	outb(COM_PORT + REG_DATA, divisor & 0xff);
	outb(COM_PORT + REG_IER, divisor >> 8);
	outb(COM_PORT + REG_LCR, LCR_8N1);
	outb(COM_PORT + REG_FCR, 0xc7); /* enable + clear FIFOs, 14-byte level */
	outb(COM_PORT + REG_MCR, 0x03); /* DTR + RTS */
	current_baud = baud;
}

uint32_t serial_baud(void)
{
	return current_baud;
}

static void put_raw(char c)
{
	/* A missing UART reads 0xff, so this loop cannot hang on it. */
	while (!(inb(COM_PORT + REG_LSR) & LSR_THR_EMPTY))
		__asm__ volatile("pause");
	outb(COM_PORT + REG_DATA, (uint8_t)c);
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
	uint8_t lsr = inb(COM_PORT + REG_LSR);
	if (lsr == 0xff || !(lsr & LSR_DATA_READY))
		return -1;
	return inb(COM_PORT + REG_DATA);
}

/* Receive interrupts (IRQ 4 through the I/O APIC): IER bit 0, and OUT2,
 * which gates the UART's interrupt line on PC hardware. */
void serial_enable_rx_irq(void)
{
	outb(COM_PORT + REG_MCR, 0x0b); /* DTR, RTS, OUT2 */
	outb(COM_PORT + REG_IER, 0x01);
}
