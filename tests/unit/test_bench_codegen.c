/*
 * test_bench_codegen.c: the generated benchmark function (apps/bench/
 * codegen.c): the snippet's copies sit at the requested alignment, the
 * loop runs R15 down to the top of the copies, the parts appear in
 * nanoBench's order, and a too-small buffer is refused.
 */
#include "unit.h"
#include <string.h>
#include "ll.h"
#include "apps/bench/codegen.h"

static const uint8_t add[] = { 0x48, 0x01, 0xd8 };      /* add rax, rbx */
static const uint8_t init[] = { 0x31, 0xc0 };           /* xor eax, eax */
static const uint8_t late[] = { 0x90, 0x90, 0x90 };
static uint8_t out[16384] __attribute__((aligned(64)));

static struct codegen_in base(void)
{
	struct codegen_in in = {
		.code = { add, sizeof add }, .init = { init, sizeof init },
		.late_init = { late, sizeof late }, .ctx_addr = 0x1122334455667788ull,
		.copies = 5, .measure = true,
	};
	return in;
}

static void copies_aligned(void **state)
{
	(void)state;
	struct codegen_in in = base();
	in.alignment_offset = 7;
	struct codegen_map m;
	size_t len = codegen(&in, out, sizeof out, &m);
	assert_true(len > 0);
	assert_int_equal(m.body_off % 64, 7);
	assert_int_equal(m.body_end - m.body_off, 5 * sizeof add);
	for (int i = 0; i < 5; i++)
		assert_memory_equal(out + m.body_off + i * sizeof add, add, sizeof add);
	assert_memory_equal(out + m.init_off, init, sizeof init);
	assert_memory_equal(out + m.late_off, late, sizeof late);
	/* prologue, init, read point, late init, copies, read point, epilogue */
	assert_true(m.init_off < m.late_off && m.late_off < m.body_off);
	assert_int_equal(out[len - 1], 0xc3);   /* ret */
	assert_int_equal(out[0], 0x53);         /* push rbx */
	assert_true(len <= codegen_bound(&in));
}

static void loop_on_r15(void **state)
{
	(void)state;
	struct codegen_in in = base();
	in.loop_count = 1000;
	struct codegen_map m;
	assert_true(codegen(&in, out, sizeof out, &m) > 0);
	/* mov r15, 1000 before the padding; dec r15; jnz back to the copies */
	const uint8_t *mov = NULL;
	for (size_t i = m.late_off; i < m.body_off; i++)
		if (out[i] == 0x49 && out[i + 1] == 0xbf)
			mov = out + i;
	assert_non_null(mov);
	uint64_t count;
	memcpy(&count, mov + 2, 8);
	assert_int_equal(count, 1000);
	const uint8_t *tail = out + m.body_end;
	const uint8_t dec_jnz[] = { 0x49, 0xff, 0xcf, 0x0f, 0x85 };
	assert_memory_equal(tail, dec_jnz, sizeof dec_jnz);
	int32_t rel;
	memcpy(&rel, tail + 5, 4);
	assert_int_equal((long)(m.body_end + 9) + rel, (long)m.body_off);
}

static void no_copies_no_loop(void **state)
{
	(void)state;
	struct codegen_in in = base();
	in.copies = 0;
	struct codegen_map m;
	assert_true(codegen(&in, out, sizeof out, &m) > 0);
	assert_int_equal(m.body_end, m.body_off);
}

static void drain_frontend(void **state)
{
	(void)state;
	struct codegen_in in = base();
	struct codegen_map plain, df;
	codegen(&in, out, sizeof out, &plain);
	in.drain_frontend = true;
	codegen(&in, out, sizeof out, &df);
	const uint8_t nop15[] = { 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x2e,
				  0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0 };
	size_t at = df.late_off + sizeof late;
	for (int i = 0; i < 128; i++)
		assert_memory_equal(out + at + 15 * i, nop15, 15);
	assert_true(df.body_off >= plain.body_off + 128 * 15 - 63);
}

static void ctx_address_compiled_in(void **state)
{
	(void)state;
	struct codegen_in in = base();
	size_t len = codegen(&in, out, sizeof out, NULL);
	const uint8_t want[] = { 0x48, 0xb8, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 };
	int seen = 0;
	for (size_t i = 0; i + sizeof want <= len; i++)
		seen += !memcmp(out + i, want, sizeof want);
	/* prologue, two read points (twice each), epilogue */
	assert_int_equal(seen, 6);
	in.measure = false;
	len = codegen(&in, out, sizeof out, NULL);
	seen = 0;
	for (size_t i = 0; i + sizeof want <= len; i++)
		seen += !memcmp(out + i, want, sizeof want);
	assert_int_equal(seen, 2);
}

static void too_small(void **state)
{
	(void)state;
	struct codegen_in in = base();
	in.copies = 10000;
	assert_int_equal(codegen(&in, out, sizeof out, NULL), 0);
	assert_true(codegen_bound(&in) > sizeof out);
}

static size_t count(const uint8_t *p, size_t len, const uint8_t *what, size_t n)
{
	size_t seen = 0;
	for (size_t i = 0; i + n <= len; i++)
		seen += !memcmp(p + i, what, n);
	return seen;
}

static void no_mem_reads_inline(void **state)
{
	(void)state;
	struct codegen_in in = base();
	in.no_mem = true;
	in.n_pmc = 2;
	in.pmc_index[0] = 0x40000001;
	in.pmc_index[1] = 3;
	struct codegen_map m;
	size_t len = codegen(&in, out, sizeof out, &m);
	assert_true(len > 0 && len <= codegen_bound(&in));
	const uint8_t rdtsc[] = { 0x0f, 0xae, 0xe8, 0x0f, 0x31, 0x0f, 0xae, 0xe8 };
	const uint8_t rdpmc[] = { 0x0f, 0xae, 0xe8, 0x0f, 0x33, 0x0f, 0xae, 0xe8 };
	const uint8_t idx0[] = { 0xb9, 0x01, 0x00, 0x00, 0x40 };
	const uint8_t to_r8[] = { 0x49, 0x89, 0xc0 }, to_r10[] = { 0x49, 0x89, 0xc2 };
	const uint8_t call[] = { 0xff, 0x90 };
	/* two points: the TSC read twice, each counter twice */
	assert_int_equal(count(out, len, rdtsc, sizeof rdtsc), 2);
	assert_int_equal(count(out, len, rdpmc, sizeof rdpmc), 4);
	assert_int_equal(count(out, len, idx0, sizeof idx0), 2);
	/* point 0 (before late init) keeps TSC in R8 and counter 2 in R10 */
	assert_int_equal(count(out, m.late_off, to_r8, sizeof to_r8), 1);
	assert_int_equal(count(out, m.late_off, to_r10, sizeof to_r10), 1);
	/* no reader call, and between late init and the copies no memory */
	assert_int_equal(count(out, len, call, sizeof call), 0);
	in.no_mem = false;
	len = codegen(&in, out, sizeof out, &m);
	assert_int_equal(count(out, len, rdtsc, sizeof rdtsc), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(no_mem_reads_inline),
	cmocka_unit_test(copies_aligned),
	cmocka_unit_test(loop_on_r15),
	cmocka_unit_test(no_copies_no_loop),
	cmocka_unit_test(drain_frontend),
	cmocka_unit_test(ctx_address_compiled_in),
	cmocka_unit_test(too_small),
};

UNIT_MAIN(tests)
