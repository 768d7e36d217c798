/*
 * PS/2 keyboard through the i8042 controller. See kbd.h.
 *
 * The controller is left as the firmware set it up, except that its
 * command byte is rewritten to enable the keyboard interrupt and the
 * translation to scancode set 1. Set 1: a key's make code is below 0x80,
 * its break code has bit 7 set; 0xe0 prefixes extended keys (skipped but
 * for the right Ctrl). The layout is US. Shift and Ctrl state is kept
 * here; it is touched only by the IRQ 1 handler, on one CPU at a time.
 */
#include <string.h>
#include "core/arch/apic.h"
#include "core/arch/ioapic.h"
#include "core/arch/trap.h"
#include "core/arch/x86.h"
#include "cmdline.h"
#include "core/fs/vfs.h"
#include "kbd.h"
#include "kernel.h"

#define I8042_DATA   0x60
#define I8042_STATUS 0x64          /* read */
#define I8042_CMD    0x64          /* write */
#define STATUS_OUT_FULL 0x01
#define STATUS_IN_FULL  0x02
#define STATUS_AUX      0x20       /* the byte is from the mouse port */
#define CMD_READ_CONFIG  0x20
#define CMD_WRITE_CONFIG 0x60
#define CONFIG_KBD_IRQ   0x01
#define CONFIG_KBD_OFF   0x10
#define CONFIG_XLATE     0x40
#define KBD_IRQ 1

#define SC_LSHIFT 0x2a
#define SC_RSHIFT 0x36
#define SC_CTRL   0x1d
#define SC_EXTENDED 0xe0
#define SC_BREAK  0x80

/* Set-1 make codes 0x00-0x39 -> ASCII, without and with Shift. */
static const char plain[0x3a] =
	"\0\033" "1234567890-=" "\177\t" "qwertyuiop[]" "\r\0" "asdfghjkl;'`"
	"\0\\" "zxcvbnm,./" "\0*\0 ";
static const char shifted[0x3a] =
	"\0\033" "!@#$%^&*()_+" "\177\t" "QWERTYUIOP{}" "\r\0" "ASDFGHJKL:\"~"
	"\0|" "ZXCVBNM<>?" "\0*\0 ";

static bool shift, ctrl, extended;

static bool wait_input_empty(void)
{
	for (int i = 0; i < 100000; i++)
		if (!(inb(I8042_STATUS) & STATUS_IN_FULL))
			return true;
	return false;
}

static int read_data(void)
{
	for (int i = 0; i < 100000; i++)
		if (inb(I8042_STATUS) & STATUS_OUT_FULL)
			return inb(I8042_DATA);
	return -1;
}

/* One scancode byte; returns the character it types, or 0. */
static char translate(uint8_t sc)
{
	if (sc == SC_EXTENDED) {
		extended = true;
		return 0;
	}
	bool was_extended = extended, down = !(sc & SC_BREAK);
	extended = false;
	sc &= (uint8_t)~SC_BREAK;
	if (sc == SC_LSHIFT || sc == SC_RSHIFT) {
		shift = down && !was_extended;
		return 0;
	}
	if (sc == SC_CTRL) {
		ctrl = down;
		return 0;
	}
	if (!down || was_extended || sc >= sizeof(plain))
		return 0;
	char c = shift ? shifted[sc] : plain[sc];
	if (ctrl && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
		c = (char)(c & 0x1f);
	return c;
}

static void kbd_interrupt(struct trap_frame *f)
{
	(void)f;
	uint8_t status;
	while ((status = inb(I8042_STATUS)) & STATUS_OUT_FULL) {
		uint8_t sc = inb(I8042_DATA);
		if (status & STATUS_AUX)
			continue;
		char c = translate(sc);
		if (c)
			console_input_byte(c);
	}
	apic_eoi();
}

bool kbd_init(void)
{
	const char *opt = cmdline_get("kbd");
	if ((opt && strcmp(opt, "off") == 0) || inb(I8042_STATUS) == 0xff)
		return false; /* turned off, or no controller on the bus */
	while (inb(I8042_STATUS) & STATUS_OUT_FULL)
		(void)inb(I8042_DATA); /* stale bytes */
	if (!wait_input_empty())
		return false;
	outb(I8042_CMD, CMD_READ_CONFIG);
	int config = read_data();
	if (config < 0 || !wait_input_empty())
		return false;
	config = (config | CONFIG_KBD_IRQ | CONFIG_XLATE) & ~CONFIG_KBD_OFF;
	outb(I8042_CMD, CMD_WRITE_CONFIG);
	if (!wait_input_empty())
		return false;
	outb(I8042_DATA, (uint8_t)config);
	trap_set_handler(VEC_IRQ_BASE + KBD_IRQ, kbd_interrupt);
	trap_set_irq_name(KBD_IRQ, "i8042");
	if (ioapic_route_isa(KBD_IRQ, VEC_IRQ_BASE + KBD_IRQ) != 0)
		return false;
	klog("kbd: PS/2 keyboard (i8042) on IRQ %d is a console input", KBD_IRQ);
	return true;
}
