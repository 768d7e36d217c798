/* Naming UARTs and reading ACPI's SPCR table (core/uart_spec.c). */
#include "unit.h"
#include <string.h>
#include "core/uart_spec.h"

static void test_ttys_names(void **state)
{
	(void)state;
	struct uart_spec s;
	assert_int_equal(uart_spec_parse("ttyS1", &s), 0);
	assert_int_equal(s.kind, UART_TTYS);
	assert_int_equal(s.ttys, 1);
	assert_int_equal(s.baud, 0);
	assert_int_equal(uart_spec_parse("ttyS4,57600n8", &s), 0);
	assert_int_equal(s.ttys, 4);
	assert_int_equal(s.baud, 57600);
	assert_int_equal(uart_spec_parse("ttyS", &s), -1);
	assert_int_equal(uart_spec_parse("ttyS1x", &s), -1);
	assert_int_equal(uart_spec_parse("ttyS64", &s), -1);
	assert_int_equal(uart_spec_parse("ttyUSB0", &s), -1);
}

static void test_earlycon_forms(void **state)
{
	(void)state;
	struct uart_spec s;
	assert_int_equal(uart_spec_parse("uart,io,0x3f8,115200", &s), 0);
	assert_int_equal(s.kind, UART_IO);
	assert_int_equal(s.base, 0x3f8);
	assert_int_equal(s.shift, 0);
	assert_int_equal(s.width, 1);
	assert_int_equal(s.baud, 115200);
	assert_int_equal(uart_spec_parse("uart8250,mmio32,0xfe032000", &s), 0);
	assert_int_equal(s.kind, UART_MMIO);
	assert_int_equal(s.base, 0xfe032000);
	assert_int_equal(s.shift, 2);
	assert_int_equal(s.width, 4);
	assert_int_equal(s.baud, 0);
	assert_int_equal(uart_spec_parse("uart,mmio,0xd0000000,9600", &s), 0);
	assert_int_equal(s.shift, 0);
	assert_int_equal(s.width, 1);
	assert_int_equal(s.baud, 9600);
	assert_int_equal(uart_spec_parse("uart,io,0x10000", &s), -1);  /* not a port */
	assert_int_equal(uart_spec_parse("uart,io,", &s), -1);
	assert_int_equal(uart_spec_parse("uart,mmio64,0x1000", &s), -1);
	assert_int_equal(uart_spec_parse("uart,io,0x3f8,fast", &s), -1);
}

/* An SPCR table as firmware lays it out (revision 2, 80 bytes). */
static void make_spcr(uint8_t *t, uint8_t type, uint8_t space, uint8_t bits,
		      uint8_t access, uint64_t addr, uint8_t baud)
{
	memset(t, 0, 80);
	memcpy(t, "SPCR", 4);
	t[4] = 80;
	t[8] = 2;
	t[36] = type;
	t[40] = space;
	t[41] = bits;
	t[43] = access;
	for (int i = 0; i < 8; i++)
		t[44 + i] = (uint8_t)(addr >> (8 * i));
	t[58] = baud;
}

static void test_spcr(void **state)
{
	(void)state;
	uint8_t t[80];
	struct uart_spec s;
	make_spcr(t, 0x00, 1, 8, 1, 0x3f8, 7);   /* 16550 at I/O 0x3f8, 115200 */
	assert_int_equal(uart_spec_from_spcr(t, sizeof(t), &s), 0);
	assert_int_equal(s.kind, UART_IO);
	assert_int_equal(s.base, 0x3f8);
	assert_int_equal(s.baud, 115200);
	make_spcr(t, 0x12, 0, 32, 3, 0xfedc9000, 6);  /* 16550-compatible, dword MMIO */
	assert_int_equal(uart_spec_from_spcr(t, sizeof(t), &s), 0);
	assert_int_equal(s.kind, UART_MMIO);
	assert_int_equal(s.base, 0xfedc9000);
	assert_int_equal(s.width, 4);
	assert_int_equal(s.shift, 2);
	assert_int_equal(s.baud, 57600);
	make_spcr(t, 0x01, 0, 8, 1, 0xfe000000, 0);   /* 16450, byte MMIO, baud as is */
	assert_int_equal(uart_spec_from_spcr(t, sizeof(t), &s), 0);
	assert_int_equal(s.width, 1);
	assert_int_equal(s.shift, 0);
	assert_int_equal(s.baud, 0);
	make_spcr(t, 0x03, 0, 32, 3, 0x9000000, 7);   /* a PL011: not ours */
	assert_int_equal(uart_spec_from_spcr(t, sizeof(t), &s), -1);
	make_spcr(t, 0x00, 1, 8, 1, 0, 7);            /* no address */
	assert_int_equal(uart_spec_from_spcr(t, sizeof(t), &s), -1);
	make_spcr(t, 0x00, 2, 8, 1, 0x3f8, 7);        /* PCI config space: no */
	assert_int_equal(uart_spec_from_spcr(t, sizeof(t), &s), -1);
	make_spcr(t, 0x00, 1, 8, 1, 0x3f8, 7);
	assert_int_equal(uart_spec_from_spcr(t, 60, &s), -1);   /* too short */
	memcpy(t, "APIC", 4);
	assert_int_equal(uart_spec_from_spcr(t, sizeof(t), &s), -1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_ttys_names),
	cmocka_unit_test(test_earlycon_forms),
	cmocka_unit_test(test_spcr),
};

UNIT_MAIN(tests)
