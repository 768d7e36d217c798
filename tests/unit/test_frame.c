/* The serial frame format (wire/frame.c): CRC-32C, COBS, frames and
 * the reader that separates them from console text. */
#include "unit.h"
#include <string.h>
#include "wire/frame.h"

static void test_crc32c_check_values(void **state)
{
	(void)state;
	/* The standard check value, and RFC 3720's 32 zero bytes. */
	assert_int_equal(crc32c(0, "123456789", 9), 0xe3069283u);
	uint8_t zeros[32] = { 0 };
	assert_int_equal(crc32c(0, zeros, 32), 0x8a9136aau);
	/* Chaining equals one pass. */
	assert_int_equal(crc32c(crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
	assert_int_equal(crc32c(0, "", 0), 0);
}

/* The definition, a bit at a time: the oracle for the byte table. */
static uint32_t crc32c_bitwise(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
	}
	return ~crc;
}

/* Every entry of the table (each byte value, after any register) and
 * long pseudo-random buffers agree with the bitwise definition. */
static void test_crc32c_table_matches_bitwise(void **state)
{
	(void)state;
	for (unsigned b = 0; b < 256; b++) {
		uint8_t byte = (uint8_t)b;
		assert_int_equal(crc32c(0, &byte, 1), crc32c_bitwise(0, &byte, 1));
		assert_int_equal(crc32c(0xdeadbeefu * b, &byte, 1),
				 crc32c_bitwise(0xdeadbeefu * b, &byte, 1));
	}
	static uint8_t buf[4099];
	uint32_t x = 12345;
	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t n = 0; n < sizeof(buf); n += 257)
		assert_int_equal(crc32c(0, buf, n), crc32c_bitwise(0, buf, n));
	/* Every length 0..40 at every alignment 0..7: the 8-byte steps
	 * (SSE4.2's CRC32 where the CPU has it) and the table tail meet,
	 * and chained calls agree with one call. */
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n <= 40; n++) {
			assert_int_equal(crc32c(7, buf + off, n), crc32c_bitwise(7, buf + off, n));
			size_t h = n / 3;
			assert_int_equal(crc32c(crc32c(0, buf + off, h), buf + off + h, n - h),
					 crc32c_bitwise(0, buf + off, n));
		}
}

/* COBS as Cheshire and Baker give it, a byte at a time, with this
 * format's rule that a full block (code 0xff) is always followed by
 * one more, empty at the very end: the encoder must match it byte for
 * byte (the wire format). */
static size_t cobs_encode_bytewise(const uint8_t *in, size_t n, uint8_t *out)
{
	size_t code_at = 0, o = 1;
	uint8_t code = 1;
	for (size_t i = 0; i < n; i++) {
		if (in[i] == 0) {
			out[code_at] = code;
			code_at = o++;
			code = 1;
			continue;
		}
		out[o++] = in[i];
		if (++code == 0xff) {
			out[code_at] = code;
			code_at = o++;
			code = 1;
		}
	}
	out[code_at] = code;
	return o;
}

static void test_cobs_matches_bytewise(void **state)
{
	(void)state;
	static uint8_t buf[1100], a[1200], b[1200];
	srand(11);
	for (int t = 0; t < 3000; t++) {
		size_t n = (size_t)rand() % sizeof(buf);
		int density = t % 7;   /* 0: no zeros ... 6: mostly zeros */
		size_t off = (size_t)t % 8;
		for (size_t i = 0; i < n; i++)
			buf[i] = rand() % 7 < density ? 0 : (uint8_t)(1 + rand() % 255);
		if (n > off)
			n -= off;
		else
			off = 0;
		size_t m = cobs_encode(buf + off, n, a);
		assert_int_equal(m, cobs_encode_bytewise(buf + off, n, b));
		assert_memory_equal(a, b, m);
	}
}

static void cobs_roundtrip(const uint8_t *in, size_t n)
{
	uint8_t enc[4096], dec[4096];
	size_t m = cobs_encode(in, n, enc);
	assert_true(m <= n + n / 254 + 1);
	assert_null(memchr(enc, 0, m));
	long d = cobs_decode(enc, m, dec, sizeof(dec));
	assert_int_equal(d, (long)n);
	assert_memory_equal(dec, in, n);
}

static void test_cobs_edges(void **state)
{
	(void)state;
	uint8_t buf[1200];
	/* Known encodings (Cheshire and Baker's examples). */
	uint8_t enc[16];
	assert_int_equal(cobs_encode((const uint8_t *)"\0", 1, enc), 2);
	assert_memory_equal(enc, "\x01\x01", 2);
	assert_int_equal(cobs_encode((const uint8_t *)"\x11\x22\0\x33", 4, enc), 5);
	assert_memory_equal(enc, "\x03\x11\x22\x02\x33", 5);
	cobs_roundtrip(buf, 0);
	/* Runs of non-zero bytes around the 254-byte block limit. */
	for (size_t n = 250; n < 520; n++) {
		memset(buf, 0x5a, n);
		cobs_roundtrip(buf, n);
		memset(buf, 0, n);
		cobs_roundtrip(buf, n);
	}
	srand(7);
	for (int t = 0; t < 500; t++) {
		size_t n = (size_t)rand() % sizeof(buf);
		for (size_t i = 0; i < n; i++)
			buf[i] = rand() % 3 == 0 ? 0 : (uint8_t)rand();
		cobs_roundtrip(buf, n);
	}
}

static void test_cobs_rejects(void **state)
{
	(void)state;
	uint8_t out[16];
	assert_int_equal(cobs_decode((const uint8_t *)"\x05\x01", 2, out, 16), -1);
	assert_int_equal(cobs_decode((const uint8_t *)"\x02\x00", 2, out, 16), -1);
	assert_int_equal(cobs_decode((const uint8_t *)"\x00", 1, out, 16), -1);
	/* Output bound. */
	assert_int_equal(cobs_decode((const uint8_t *)"\x04\x01\x02\x03", 4, out, 2), -1);
}

static struct frame sample_frame(uint16_t len)
{
	struct frame f = { .type = FRAME_OUTPUT, .channel = CHAN_STDERR,
			   .seq = 0x01020304, .len = len };
	for (uint16_t i = 0; i < len; i++)
		f.payload[i] = (uint8_t)(i * 7);   /* includes zeros */
	return f;
}

static void test_frame_roundtrip(void **state)
{
	(void)state;
	uint16_t lens[] = { 0, 1, 253, 254, 255, 1000, FRAME_MAX_PAYLOAD };
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		struct frame f = sample_frame(lens[k]), g;
		uint8_t wire[FRAME_MAX_WIRE];
		size_t n = frame_encode(&f, wire);
		assert_true(n >= FRAME_HEADER + FRAME_TRAILER + 3 && n <= FRAME_MAX_WIRE);
		assert_int_equal(wire[0], 0);
		assert_int_equal(wire[n - 1], 0);
		assert_null(memchr(wire + 1, 0, n - 2));
		assert_int_equal(frame_decode(wire + 1, n - 2, &g), FRAME_OK);
		assert_int_equal(g.type, f.type);
		assert_int_equal(g.channel, f.channel);
		assert_int_equal(g.seq, f.seq);
		assert_int_equal(g.len, f.len);
		assert_memory_equal(g.payload, f.payload, f.len);
	}
	struct frame big = sample_frame(0);
	big.len = FRAME_MAX_PAYLOAD + 1;
	uint8_t wire[FRAME_MAX_WIRE];
	assert_int_equal(frame_encode(&big, wire), 0);
}

/* The bytes docs/export.md shows for its example frame. */
static void test_frame_documented_bytes(void **state)
{
	(void)state;
	struct frame f = { .type = FRAME_EXIT, .channel = CHAN_CONTROL, .seq = 5, .len = 4 };
	put_le32(f.payload, 3);
	uint8_t wire[FRAME_MAX_WIRE];
	size_t n = frame_encode(&f, wire);
	uint8_t raw[18] = { 0xb1, 0x12, 0x00, 0x00, 0x05, 0, 0, 0, 0x04, 0x00,
			    0x03, 0, 0, 0 };
	put_le32(raw + 14, crc32c(0, raw, 14));
	uint8_t expect[32];
	expect[0] = 0;
	size_t m = cobs_encode(raw, sizeof(raw), expect + 1);
	expect[m + 1] = 0;
	assert_int_equal(n, m + 2);
	assert_memory_equal(wire, expect, n);
	/* The bytes as docs/export.md writes them (computed independently). */
	static const uint8_t doc[] = { 0x00, 0x03, 0xb1, 0x12, 0x01, 0x02, 0x05,
		0x01, 0x01, 0x02, 0x04, 0x02, 0x03, 0x01, 0x01, 0x05, 0xe7, 0x93,
		0xd5, 0x14, 0x00 };
	assert_int_equal(n, sizeof(doc));
	assert_memory_equal(wire, doc, sizeof(doc));
}

/* Every single-bit flip anywhere in the frame is detected. */
static void test_frame_detects_flips(void **state)
{
	(void)state;
	struct frame f = sample_frame(300), g;
	uint8_t wire[FRAME_MAX_WIRE];
	size_t n = frame_encode(&f, wire);
	for (size_t i = 1; i + 1 < n; i++) {
		for (int b = 0; b < 8; b++) {
			wire[i] ^= (uint8_t)(1 << b);
			assert_int_not_equal(frame_decode(wire + 1, n - 2, &g), FRAME_OK);
			wire[i] ^= (uint8_t)(1 << b);
		}
	}
	assert_int_equal(frame_decode(wire + 1, n - 2, &g), FRAME_OK);
	/* Truncation and a bad magic. */
	assert_int_not_equal(frame_decode(wire + 1, n - 3, &g), FRAME_OK);
	assert_int_equal(frame_decode((const uint8_t *)"\x03\x01\x02", 3, &g), FRAME_ERR_SHORT);
}

/* Feed bytes; collect text and frames. */
struct sink {
	char text[8192];
	size_t ntext;
	struct frame frames[16];
	int nframes;
	int bad;
};

static void feed(struct frame_reader *r, struct sink *s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (frame_reader_push(r, p[i], &s->frames[s->nframes])) {
		case READ_TEXT: s->text[s->ntext++] = (char)p[i]; break;
		case READ_FRAME: s->nframes++; break;
		case READ_BAD: s->bad++; break;
		case READ_MORE: break;
		}
	}
}

static size_t wire_of(uint32_t seq, uint16_t len, uint8_t *wire)
{
	struct frame f = sample_frame(len);
	f.seq = seq;
	return frame_encode(&f, wire);
}

static void test_reader_mixes_text_and_frames(void **state)
{
	(void)state;
	struct frame_reader *r = malloc(sizeof(*r));
	struct sink *s = calloc(1, sizeof(*s));
	frame_reader_init(r);
	uint8_t wire[FRAME_MAX_WIRE];
	feed(r, s, (const uint8_t *)"boot log\r\n", 10);
	feed(r, s, wire, wire_of(1, 40, wire));
	feed(r, s, (const uint8_t *)"more", 4);
	feed(r, s, wire, wire_of(2, 0, wire));
	feed(r, s, wire, wire_of(3, 1024, wire));   /* back to back */
	feed(r, s, (const uint8_t *)"!", 1);
	assert_int_equal(s->nframes, 3);
	assert_int_equal(s->frames[0].seq, 1);
	assert_int_equal(s->frames[1].seq, 2);
	assert_int_equal(s->frames[2].len, 1024);
	assert_int_equal(s->bad, 0);
	s->text[s->ntext] = 0;
	assert_string_equal(s->text, "boot log\r\nmore!");
	assert_int_equal(r->frames, 3);
	free(r);
	free(s);
}

/* A corrupted frame is dropped, counted, and the next one is read. */
static void test_reader_resyncs_after_corruption(void **state)
{
	(void)state;
	struct frame_reader *r = malloc(sizeof(*r));
	struct sink *s = calloc(1, sizeof(*s));
	uint8_t a[FRAME_MAX_WIRE], b[FRAME_MAX_WIRE];
	size_t na = wire_of(1, 100, a), nb = wire_of(2, 100, b);

	/* A flipped byte. */
	frame_reader_init(r);
	a[50] ^= 0x40;
	feed(r, s, a, na);
	feed(r, s, b, nb);
	assert_int_equal(s->nframes, 1);
	assert_int_equal(s->frames[0].seq, 2);
	assert_int_equal(r->bad_frames, 1);
	assert_int_equal(r->skipped, na - 2);
	a[50] ^= 0x40;

	/* The closing delimiter lost, with text before the next frame: the
	 * text is swallowed into the damaged candidate, the next frame is
	 * still read. */
	memset(s, 0, sizeof(*s));
	frame_reader_init(r);
	feed(r, s, a, na - 1);
	feed(r, s, (const uint8_t *)"lost text", 9);
	feed(r, s, b, nb);
	assert_int_equal(s->nframes, 1);
	assert_int_equal(s->frames[0].seq, 2);
	assert_int_equal(s->bad, 1);

	/* The opening delimiter lost: the first frame's bytes read as text,
	 * its closing 0x00 opens a candidate that the next frame's opening
	 * 0x00 closes empty; the next frame is read. */
	memset(s, 0, sizeof(*s));
	frame_reader_init(r);
	feed(r, s, a + 1, na - 1);
	feed(r, s, b, nb);
	assert_int_equal(s->nframes, 1);
	assert_int_equal(s->frames[0].seq, 2);

	/* A dropped byte in the middle. */
	memset(s, 0, sizeof(*s));
	frame_reader_init(r);
	feed(r, s, a, 30);
	feed(r, s, a + 31, na - 31);
	feed(r, s, b, nb);
	assert_int_equal(s->nframes, 1);
	assert_int_equal(s->frames[0].seq, 2);
	assert_int_equal(r->bad_frames, 1);

	/* A duplicated byte. */
	memset(s, 0, sizeof(*s));
	frame_reader_init(r);
	feed(r, s, a, 31);
	feed(r, s, a + 30, na - 30);
	feed(r, s, b, nb);
	assert_int_equal(s->nframes, 1);
	assert_int_equal(s->frames[0].seq, 2);
	free(r);
	free(s);
}

/* Garbage longer than any frame between delimiters cannot overflow the
 * reader, and the reader recovers. */
static void test_reader_bounds_garbage(void **state)
{
	(void)state;
	struct frame_reader *r = malloc(sizeof(*r));
	struct sink *s = calloc(1, sizeof(*s));
	frame_reader_init(r);
	uint8_t junk[3000];
	memset(junk, 0x41, sizeof(junk));
	junk[0] = 0;
	feed(r, s, junk, sizeof(junk));
	uint8_t b[FRAME_MAX_WIRE];
	feed(r, s, b, wire_of(9, 10, b));
	assert_int_equal(s->nframes, 1);
	assert_int_equal(s->frames[0].seq, 9);
	assert_int_equal(r->skipped, sizeof(junk) - 1);
	/* Random noise never yields a frame (the CRC), never crashes. */
	memset(s, 0, sizeof(*s));
	frame_reader_init(r);
	srand(11);
	for (int i = 0; i < 200000; i++) {
		uint8_t c = rand() % 16 == 0 ? 0 : (uint8_t)rand();
		struct frame f;
		assert_int_not_equal(frame_reader_push(r, c, &f), READ_FRAME);
	}
	free(r);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_check_values),
		cmocka_unit_test(test_crc32c_table_matches_bitwise),
		cmocka_unit_test(test_cobs_matches_bytewise),
		cmocka_unit_test(test_cobs_edges),
		cmocka_unit_test(test_cobs_rejects),
		cmocka_unit_test(test_frame_roundtrip),
		cmocka_unit_test(test_frame_documented_bytes),
		cmocka_unit_test(test_frame_detects_flips),
		cmocka_unit_test(test_reader_mixes_text_and_frames),
		cmocka_unit_test(test_reader_resyncs_after_corruption),
		cmocka_unit_test(test_reader_bounds_garbage),
	};
	setvbuf(stdout, NULL, _IONBF, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
