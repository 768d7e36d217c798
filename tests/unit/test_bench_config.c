/*
 * test_bench_config.c: bench's nanoBench config parser (apps/bench/
 * config.c): every field of a line, comments and blank lines, the raw
 * PERFEVTSEL encoding, and errors that name their line; what user and
 * kernel mode accept, the counter sets of kernel mode (.CTR=); the
 * -msr_config parser (apps/bench/msrconfig.c).
 */
#include "unit.h"
#include <string.h>
#include "ll.h"
#include "apps/bench/config.h"
#include "apps/bench/msrconfig.h"

static struct bench_event ev[8];
static char err[160];

static int parse(const char *text)
{
	err[0] = 0;
	return config_parse(text, ev, 8, err, sizeof err);
}

static void plain_event(void **state)
{
	(void)state;
	assert_int_equal(parse("0E.01 UOPS_ISSUED.ANY\n"), 1);
	assert_string_equal(ev[0].name, "UOPS_ISSUED.ANY");
	assert_int_equal(ev[0].evtsel, 0x0e);
	assert_int_equal(ev[0].umask, 0x01);
	assert_int_equal(ev[0].cmask, 0);
	assert_int_equal(ev[0].ctr, -1);
	assert_int_equal(ev[0].line, 1);
	assert_int_equal(config_raw(&ev[0]), 0x010e);
}

static void every_field(void **state)
{
	(void)state;
	assert_int_equal(parse("A3.0C.CMSK=12.AnyT.EDG.INV.CTR=2.MSR_3F6H=0x40.MSR_PF=7 "
			       "CYCLE_ACTIVITY.STALLS_L1D_MISS\n"), 1);
	struct bench_event *e = &ev[0];
	assert_int_equal(e->evtsel, 0xa3);
	assert_int_equal(e->umask, 0x0c);
	assert_int_equal(e->cmask, 12);
	assert_true(e->any);
	assert_true(e->edge);
	assert_true(e->inv);
	assert_int_equal(e->ctr, 2);
	assert_int_equal(e->nmsr, 2);
	assert_int_equal(config_msr(e, "3F6H"), 0x40);
	assert_int_equal(config_msr(e, "PF"), 7);
	assert_int_equal(config_msr(e, "RSP0"), -1);
	/* event | umask << 8 | edge 18 | any 21 | inv 23 | cmask << 24 */
	uint64_t want = 0xa3 | 0x0c << 8 | 1u << 18 | 1u << 21 | 1u << 23 | 12ull << 24;
	assert_int_equal(config_raw(e), want);
}

static void offcore_msrs(void **state)
{
	(void)state;
	assert_int_equal(parse("B7.01.MSR_RSP0=0x10001 OFFCORE_RESPONSE_0\n"
			       "BB.01.MSR_RSP1=0x3fb80000 OFFCORE_RESPONSE_1\n"), 2);
	assert_int_equal(config_msr(&ev[0], "RSP0"), 0x10001);
	assert_int_equal(config_msr(&ev[1], "RSP1"), 0x3fb80000);
	assert_int_equal(ev[1].line, 2);
}

static void amd_extended_select(void **state)
{
	(void)state;
	/* AMD: EventSelect[11:8] goes to PERF_CTL bits 35:32 */
	assert_int_equal(parse("1C0.00 RETIRED_X87_OPS\n"), 1);
	assert_int_equal(config_raw(&ev[0]), (1ull << 32) | 0xc0);
}

static void comments_and_blanks(void **state)
{
	(void)state;
	const char *text =
		"# a comment line\n"
		"\n"
		"   \t\n"
		"C0.00 INST_RETIRED.ANY_P   # trailing comment\r\n"
		"  3C.00   CPU_CLK_UNHALTED.THREAD_P  \n"
		"# the end, no newline";
	assert_int_equal(parse(text), 2);
	assert_string_equal(ev[0].name, "INST_RETIRED.ANY_P");
	assert_int_equal(ev[0].line, 4);
	assert_string_equal(ev[1].name, "CPU_CLK_UNHALTED.THREAD_P");
	assert_int_equal(ev[1].line, 5);
	assert_int_equal(parse(""), 0);
}

static void expect_error(const char *text, const char *want)
{
	assert_int_equal(parse(text), -1);
	if (!strstr(err, want))
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
}

static void errors_name_the_line(void **state)
{
	(void)state;
	expect_error("C0.00 OK\nC0.00.FOO BAD\n", "line 2: unknown field 'FOO'");
	expect_error("C0 NO_UMASK\n", "line 1: expected EvtSel.UMASK");
	expect_error("\n\nZZ.00 BAD_HEX\n", "line 3: bad event select 'ZZ'");
	expect_error("C0.100 BIG_UMASK\n", "line 1: bad unit mask '100'");
	expect_error("1000.00 BIG_EVENT\n", "line 1: bad event select");
	expect_error("C0.00.CMSK=256 BIG_CMASK\n", "line 1: bad counter mask");
	expect_error("C0.00.CMSK= EMPTY\n", "line 1: bad counter mask");
	expect_error("C0.00.CTR=x BAD_CTR\n", "line 1: bad counter number");
	expect_error("C0.00.MSR_3F6H BAD\n", "line 1: bad MSR field");
	expect_error("C0.00.MSR_3F6H=zz BAD\n", "line 1: bad MSR value");
	expect_error("# c\nC0.00\n", "line 2: no event name after 'C0.00'");
	expect_error("C0.00.-1 NEG\n", "line 1: unknown field '-1'");
}

static void too_many_events(void **state)
{
	(void)state;
	char text[512] = "";
	for (int i = 0; i < 8; i++)
		strcat(text, "C0.00 E\n");
	assert_int_equal(parse(text), 8);
	strcat(text, "# fine\n");
	assert_int_equal(parse(text), 8);
	strcat(text, "C0.00 NINTH\n");
	expect_error(text, "line 10: more than 8 events");
}

static void msr_addresses(void **state)
{
	(void)state;
	assert_int_equal(config_msr_address("RSP0"), 0x1a6);
	assert_int_equal(config_msr_address("RSP1"), 0x1a7);
	assert_int_equal(config_msr_address("3F6H"), 0x3f6);
	assert_int_equal(config_msr_address("PF"), 0x3f7);
	assert_int_equal(config_msr_address("1A4"), 0x1a4);
	assert_int_equal(config_msr_address("1A4H"), 0x1a4);
	assert_int_equal(config_msr_address("XYZ"), -1);
	assert_int_equal(config_msr_address(""), -1);
}

static void user_mode_limits(void **state)
{
	(void)state;
	assert_int_equal(parse("B7.01.MSR_RSP0=0x10001 OFFCORE\nC0.00 INST\n"), 2);
	assert_int_equal(config_check_user(ev, 2, err, sizeof err), 0);
	assert_int_equal(parse("C0.00 INST\nC0.00.CTR=1 PINNED\n"), 2);
	assert_int_equal(config_check_user(ev, 2, err, sizeof err), -1);
	assert_string_equal(err, "line 2: .CTR=1 needs -kernel (in user mode perf chooses the counter)");
	assert_int_equal(parse("C0.00.MSR_1A4=1 PREFETCH_OFF\n"), 1);
	assert_int_equal(config_check_user(ev, 1, err, sizeof err), -1);
	assert_non_null(strstr(err, "line 1: .MSR_1A4= needs -kernel"));
	assert_int_equal(parse("B7.01.MSR_RSP0=1.MSR_3F6H=2 TWO\n"), 1);
	assert_int_equal(config_check_user(ev, 1, err, sizeof err), -1);
	assert_non_null(strstr(err, ".MSR_3F6H= needs -kernel"));
}

static void kernel_mode_limits(void **state)
{
	(void)state;
	assert_int_equal(parse("C0.00.CTR=3.MSR_1A4=1 A\n"), 1);
	assert_int_equal(config_check_kernel(ev, 1, 4, err, sizeof err), 0);
	assert_int_equal(config_check_kernel(ev, 1, 3, err, sizeof err), -1);
	assert_string_equal(err, "line 1: .CTR=3: this CPU has 3 programmable counters");
	assert_int_equal(parse("C0.00.MSR_NOPE=1 A\n"), 1);
	assert_int_equal(config_check_kernel(ev, 1, 4, err, sizeof err), -1);
	assert_non_null(strstr(err, "line 1: .MSR_NOPE= names no MSR"));
}

static void kernel_sets(void **state)
{
	(void)state;
	int ctr[8];
	/* .CTR= kept, the others fill the lowest free counters. */
	assert_int_equal(parse("C0.00 A\nC0.00.CTR=0 B\nC0.00 C\nC0.00.CTR=3 D\nC0.00 E\n"), 5);
	assert_int_equal(config_kernel_set(ev, 5, 4, ctr), 4);
	assert_int_equal(ctr[0], 1);
	assert_int_equal(ctr[1], 0);
	assert_int_equal(ctr[2], 2);
	assert_int_equal(ctr[3], 3);
	assert_int_equal(config_kernel_set(ev + 4, 1, 4, ctr), 1);
	assert_int_equal(ctr[0], 0);
	/* A second event on a taken counter starts the next set. */
	assert_int_equal(parse("C0.00.CTR=2 A\nC0.00 B\nC0.00.CTR=2 C\n"), 3);
	assert_int_equal(config_kernel_set(ev, 3, 4, ctr), 2);
	assert_int_equal(ctr[0], 2);
	assert_int_equal(ctr[1], 0);
	/* Fewer counters than events. */
	assert_int_equal(parse("C0.00 A\nC0.00 B\nC0.00 C\n"), 3);
	assert_int_equal(config_kernel_set(ev, 3, 2, ctr), 2);
}

static void msr_config_lines(void **state)
{
	(void)state;
	struct bench_msr_cfg mc[3];
	const char *text = "# uncore\n"
			   "msr_0x700=0x0.msr_704H=0x400000 msr_706 CBO0 LOOKUP\n"
			   "\n"
			   "MSR_10 TSC   # the time-stamp counter\n";
	assert_int_equal(msrconfig_parse(text, mc, 3, err, sizeof err), 2);
	assert_string_equal(mc[0].name, "CBO0 LOOKUP");
	assert_int_equal(mc[0].line, 2);
	assert_int_equal(mc[0].read, 0x706);
	assert_int_equal(mc[0].nwr, 2);
	assert_int_equal(mc[0].wr[0], 0x700);
	assert_int_equal(mc[0].wrval[0], 0);
	assert_int_equal(mc[0].wr[1], 0x704);
	assert_int_equal(mc[0].wrval[1], 0x400000);
	assert_string_equal(mc[1].name, "TSC");
	assert_int_equal(mc[1].read, 0x10);
	assert_int_equal(mc[1].nwr, 0);
	assert_int_equal(msrconfig_parse("msr_10\n", mc, 3, err, sizeof err), -1);
	assert_string_equal(err, "line 1: no name after 'msr_10'");
	assert_int_equal(msrconfig_parse("\nmsr_zz X\n", mc, 3, err, sizeof err), -1);
	assert_string_equal(err, "line 2: bad MSR to read 'msr_zz'");
	assert_int_equal(msrconfig_parse("msr_1=x msr_2 X\n", mc, 3, err, sizeof err), -1);
	assert_string_equal(err, "line 1: bad MSR write 'msr_1=x'");
	assert_int_equal(msrconfig_parse("msr_1 A\nmsr_2 B\n", mc, 1, err, sizeof err), -1);
	assert_string_equal(err, "line 2: more than 1 MSRs to read");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(msr_addresses),
	cmocka_unit_test(user_mode_limits),
	cmocka_unit_test(kernel_mode_limits),
	cmocka_unit_test(kernel_sets),
	cmocka_unit_test(msr_config_lines),
	cmocka_unit_test(plain_event),
	cmocka_unit_test(every_field),
	cmocka_unit_test(offcore_msrs),
	cmocka_unit_test(amd_extended_select),
	cmocka_unit_test(comments_and_blanks),
	cmocka_unit_test(errors_name_the_line),
	cmocka_unit_test(too_many_events),
};

UNIT_MAIN(tests)
