/* Packed export records (wire/pack.c): round trips, the ratio on a
 * sample stream like record's, and what the decoder refuses. */
#include "unit.h"
#include <string.h>
#include "wire/pack.h"

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* A PERF_RECORD_SAMPLE as record -g writes it (IP|TID|TIME|CALLCHAIN|
 * PERIOD): header, ip, pid/tid, time, period, nr, then nr addresses
 * (PERF_CONTEXT_USER, ip, return addresses). */
static size_t sample(uint8_t *p, uint64_t ip, uint64_t t, unsigned depth)
{
	size_t size = 8 + 8 * 5 + 8 * (2 + depth);
	uint8_t h[8] = { 9, 0, 0, 0, 2, 0, (uint8_t)size, (uint8_t)(size >> 8) };
	memcpy(p, h, 8);
	put64(p + 8, ip);
	put64(p + 16, 42ull << 32 | 42);
	put64(p + 24, t);
	put64(p + 32, 250000);
	put64(p + 40, 2 + depth);
	put64(p + 48, (uint64_t)-512);   /* PERF_CONTEXT_USER */
	put64(p + 56, ip);
	for (unsigned d = 0; d < depth; d++)
		put64(p + 64 + 8 * d, 0x401000 + 0x40 * d);
	return size;
}

static size_t stream(uint8_t *buf, size_t max, unsigned seed)
{
	size_t n = 0;
	uint64_t t = 1000000000ull * seed;
	srand(seed);
	while (n + 200 <= max) {
		t += 250000 + (uint64_t)(rand() % 3000);
		n += sample(buf + n, 0x401100 + (uint64_t)(rand() % 64), t, 3 + (unsigned)(rand() % 3));
	}
	return n;
}

static void roundtrip(const uint8_t *in, size_t n, size_t out_max, size_t *used_out, size_t *packed)
{
	static uint8_t enc[PACK_RAW_MAX * 2], dec[PACK_RAW_MAX];
	size_t used;
	size_t m = pack_records(in, n, enc, out_max, &used);
	assert_true(m <= out_max);
	assert_true(used <= n);
	long d = unpack_records(enc, m, dec, sizeof(dec));
	assert_int_equal(d, (long)used);
	assert_memory_equal(dec, in, used);
	*used_out = used;
	*packed = m;
}

/* A frame's worth of samples packs at least 3 to 1, and whole. */
static void test_sample_stream_ratio(void **state)
{
	(void)state;
	static uint8_t buf[PACK_RAW_MAX];
	for (unsigned seed = 1; seed < 20; seed++) {
		size_t n = stream(buf, sizeof(buf), seed), used, m;
		roundtrip(buf, n, 1006, &used, &m);
		assert_true(used > 0);
		print_message("seed %u: %zu record bytes in %zu\n", seed, used, m);
		assert_true(used >= 3 * m);
		/* It stopped at a record boundary because the next did not fit. */
		assert_true(used == n || m + 9 * 12 > 1006);
	}
}

/* Records of other sizes, a size change, records as large as a frame. */
static void test_mixed_records(void **state)
{
	(void)state;
	static uint8_t buf[PACK_RAW_MAX];
	size_t n = 0, used, m;
	n += sample(buf + n, 0x1000, 5, 3);
	n += sample(buf + n, 0x1008, 9, 4);            /* another size: packed alone */
	uint8_t lost[24] = { 2, 0, 0, 0, 0, 0, 24, 0 };  /* PERF_RECORD_LOST */
	lost[16] = 7;
	memcpy(buf + n, lost, 24);
	n += 24;
	n += sample(buf + n, 0x1010, 11, 4);
	roundtrip(buf, n, 4096, &used, &m);
	assert_int_equal(used, n);
	/* Random bytes in a record's body: the mask format still holds. */
	size_t big = 1000;
	uint8_t h[8] = { 9, 0, 0, 0, 2, 0, (uint8_t)big, (uint8_t)(big >> 8) };
	memcpy(buf, h, 8);
	for (size_t i = 8; i < big; i++)
		buf[i] = (uint8_t)rand();
	roundtrip(buf, big, 2048, &used, &m);
	assert_int_equal(used, big);
	/* ... but not into a frame it does not fit: 0 used, send it raw. */
	roundtrip(buf, big, 1006, &used, &m);
	assert_int_equal(used, 0);
	assert_int_equal(m, 0);
}

/* What is not whole records is left alone. */
static void test_refuses_partial(void **state)
{
	(void)state;
	uint8_t buf[256], out[512];
	size_t used, n = sample(buf, 0x1000, 1, 3);
	assert_int_equal(pack_records(buf, n - 8, out, sizeof(out), &used), 0);
	assert_int_equal(used, 0);
	buf[6] = 12;   /* size not a multiple of 8 */
	buf[7] = 0;
	assert_int_equal(pack_records(buf, n, out, sizeof(out), &used), 0);
	assert_int_equal(used, 0);
	buf[6] = 0;   /* size 0 */
	assert_int_equal(pack_records(buf, n, out, sizeof(out), &used), 0);
	assert_int_equal(pack_records(buf, 0, out, sizeof(out), &used), 0);
	assert_int_equal(used, 0);
}

static void test_decoder_refuses(void **state)
{
	(void)state;
	uint8_t out[64];
	/* a reference with no record before it */
	assert_int_equal(unpack_records((const uint8_t *)"\x01\x00", 2, out, sizeof(out)), -1);
	/* a reference further back than PACK_BACK */
	assert_int_equal(unpack_records((const uint8_t *)"\x00\x41\x09\x08\x09\x00", 6, out,
					sizeof(out)), -1);
	/* a header of size 0 (all bytes zero) */
	assert_int_equal(unpack_records((const uint8_t *)"\x00\x00", 2, out, sizeof(out)), -1);
	/* size 16 but the second group missing */
	assert_int_equal(unpack_records((const uint8_t *)"\x00\xc0\x10\x00", 4, out, sizeof(out)), -1);
	/* a byte marked non-zero that is zero (a second encoding) */
	assert_int_equal(unpack_records((const uint8_t *)"\x00\x40\x00", 3, out, sizeof(out)), -1);
	/* size 8: valid, one record */
	assert_int_equal(unpack_records((const uint8_t *)"\x00\x41\x09\x08", 4, out, sizeof(out)), 8);
	/* bigger than out */
	assert_int_equal(unpack_records((const uint8_t *)"\x00\x41\x09\x08", 4, out, 7), -1);
	/* ref 1 to a record of another size */
	assert_int_equal(unpack_records((const uint8_t *)"\x00\x41\x09\x08\x01\x40\x18\x00\x00",
					9, out, sizeof(out)), -1);
	assert_int_equal(unpack_records((const uint8_t *)"", 0, out, sizeof(out)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_stream_ratio),
		cmocka_unit_test(test_mixed_records),
		cmocka_unit_test(test_refuses_partial),
		cmocka_unit_test(test_decoder_refuses),
	};
	setvbuf(stdout, NULL, _IONBF, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
