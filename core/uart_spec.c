/* Parsing UART names and the SPCR table; see uart_spec.h. */
#include <string.h>
#include "uart_spec.h"

/* Digits of base 10 or (with 0x) 16 at *p; advances *p. False if none. */
static bool parse_number(const char **p, uint64_t *out)
{
	const char *s = *p;
	unsigned base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	uint64_t v = 0;
	const char *start = s;
	for (;; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			break;
		v = v * base + d;
	}
	if (s == start)
		return false;
	*p = s;
	*out = v;
	return true;
}

/* ",BAUD[parity bits...]" or nothing. */
static bool parse_baud(const char *p, uint32_t *baud)
{
	*baud = 0;
	if (!*p)
		return true;
	if (*p++ != ',')
		return false;
	uint64_t b;
	if (!parse_number(&p, &b) || b == 0 || b > 4000000)
		return false;
	*baud = (uint32_t)b;
	return true;   /* "n8" and the like: accepted, 8N1 is what we program */
}

static bool skip_prefix(const char **p, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(*p, prefix, n) != 0)
		return false;
	*p += n;
	return true;
}

int uart_spec_parse(const char *text, struct uart_spec *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = text;
	uint64_t v;
	if (skip_prefix(&p, "ttyS")) {
		if (!parse_number(&p, &v) || v > 63)
			return -1;
		out->kind = UART_TTYS;
		out->ttys = (int)v;
		out->width = 1;
		return parse_baud(p, &out->baud) ? 0 : -1;
	}
	if (!skip_prefix(&p, "uart8250,") && !skip_prefix(&p, "uart,"))
		return -1;
	if (skip_prefix(&p, "io,")) {
		out->kind = UART_IO;
		out->width = 1;
	} else if (skip_prefix(&p, "mmio32,")) {
		out->kind = UART_MMIO;
		out->width = 4;
		out->shift = 2;
	} else if (skip_prefix(&p, "mmio,")) {
		out->kind = UART_MMIO;
		out->width = 1;
	} else {
		return -1;
	}
	if (!parse_number(&p, &out->base) || out->base == 0 ||
	    (out->kind == UART_IO && out->base > 0xfff8))
		return -1;
	return parse_baud(p, &out->baud) ? 0 : -1;
}

/* SPCR offsets (revision 1 and later): the ACPI header is 36 bytes. */
#define SPCR_INTERFACE   36
#define SPCR_GAS         40   /* space id, bit width, bit offset, access size, address */
#define SPCR_BAUD        58
#define SPCR_MIN_LEN     80

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int uart_spec_from_spcr(const void *table, size_t len, struct uart_spec *out)
{
	const uint8_t *t = table;
	memset(out, 0, sizeof(*out));
	if (len < SPCR_MIN_LEN || memcmp(t, "SPCR", 4) != 0)
		return -1;
	uint8_t type = t[SPCR_INTERFACE];
	if (type != 0x00 && type != 0x01 && type != 0x12)
		return -1;   /* 16550 / 16450 / 16550-compatible only */
	uint8_t space = t[SPCR_GAS], bits = t[SPCR_GAS + 1], access = t[SPCR_GAS + 3];
	out->base = le64(t + SPCR_GAS + 4);
	if (out->base == 0)
		return -1;
	if (space == 1) {
		out->kind = UART_IO;
		out->width = 1;
	} else if (space == 0) {
		out->kind = UART_MMIO;
		/* Access size 3 (dword) or a 32-bit register width: 32-bit
		 * registers 4 bytes apart, as Linux's SPCR code reads it. */
		bool wide = access == 3 || (access == 0 && bits == 32);
		out->width = wide ? 4 : 1;
		out->shift = wide ? 2 : 0;
	} else {
		return -1;
	}
	static const uint32_t rates[] = { 0, 0, 0, 9600, 19200, 0, 57600, 115200 };
	uint8_t code = t[SPCR_BAUD];
	out->baud = code < sizeof(rates) / sizeof(rates[0]) ? rates[code] : 0;
	return 0;
}
