/*
 * Frames on a serial line: CRC-32C, COBS and the stream reader that
 * separates frames from console text. See frame.h and docs/export.md.
 */
#include <string.h>
#include "frame.h"

/*
 * CRC-32C a byte at a time: crc_table[b] is the CRC register after
 * shifting byte b through eight bit steps of the reflected polynomial.
 * The table is computed by the compiler from the bit step, so there is
 * nothing typed in to get wrong; about 6 instructions a byte where the
 * bit loop took about 40. Where the CPU has SSE4.2 the CRC32 instruction
 * takes 8 bytes at once (below); the table does the rest.
 */
#define CRC_POLY 0x82f63b78u
#define CRC_BIT(c) (((c) >> 1) ^ (CRC_POLY & (0u - ((c) & 1u))))
#define CRC_BYTE(c) CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(c))))))))
#define CRC_4(b) CRC_BYTE((b) + 0u), CRC_BYTE((b) + 1u), CRC_BYTE((b) + 2u), CRC_BYTE((b) + 3u)
#define CRC_16(b) CRC_4(b), CRC_4((b) + 4u), CRC_4((b) + 8u), CRC_4((b) + 12u)
#define CRC_64(b) CRC_16(b), CRC_16((b) + 16u), CRC_16((b) + 32u), CRC_16((b) + 48u)

static const uint32_t crc_table[256] = { CRC_64(0u), CRC_64(64u), CRC_64(128u), CRC_64(192u) };

static uint32_t crc_bytes(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
	return crc;
}

typedef uint64_t __attribute__((may_alias, aligned(1))) word_t;

#if defined(__x86_64__)
/*
 * SSE4.2's CRC32 instruction is this CRC's step (same polynomial, same
 * bit order, no inversion), 8 bytes at once: the exporter's largest
 * per-byte cost becomes about 3/8 of an instruction a byte. CPUID.1:ECX
 * bit 20 says whether the CPU has it (QEMU's TCG -cpu max does); asked
 * once, the answer kept (the one state in this file, the same for every
 * caller).
 */
static bool have_crc32_insn(void)
{
	static int known;   /* 0 not asked, 1 yes, 2 no */
	if (!known) {
		uint32_t a = 1, b, c = 0, d;
		__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
		known = (c >> 20 & 1) ? 1 : 2;
	}
	return known == 1;
}

static uint32_t crc_words(uint32_t crc, const uint8_t *p, size_t words)
{
	uint64_t c = crc;
	for (; words; words--, p += 8)
		__asm__("crc32q %1, %0" : "+r"(c) : "rm"(*(const word_t *)p));
	return (uint32_t)c;
}
#endif

uint32_t crc32c(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;
	crc = ~crc;
#if defined(__x86_64__)
	if (n >= 8 && have_crc32_insn()) {
		crc = crc_words(crc, p, n / 8);
		p += n & ~(size_t)7;
		n &= 7;
	}
#endif
	return ~crc_bytes(crc, p, n);
}

/* The high bit of each zero byte of w, and no other bit. */
static uint64_t zero_bytes(uint64_t w)
{
	const uint64_t lows = 0x7f7f7f7f7f7f7f7full;
	return ~(((w & lows) + lows) | w | lows);
}

/* Each block is a code byte c followed by c-1 non-zero bytes; a code
 * below 0xff stands for a zero after the block (except at the end). A
 * run of 254 ends its block (code 0xff), and one more block follows:
 * at the very end an empty one (code 1). This is the definition, a
 * byte at a time, for any input. */
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

/* The set bits of a zero_bytes() result as an 8-bit mask (bit j:
 * byte j is zero): each bit 8j+7 lands on bit 56+j, no two products
 * meet, so nothing carries. */
static unsigned zero_mask(uint64_t z)
{
	return (unsigned)(((z >> 7) * 0x0102040810204080ull) >> 56);
}

/* next_zero[m]: for a word whose zero bytes are the bits of m, at the
 * byte of each zero but the last, the distance to the next one; 0
 * elsewhere. Filled on first use (the same values by any caller). */
static uint64_t next_zero[256];
static bool next_zero_ready;

static void fill_next_zero(void)
{
	for (unsigned m = 0; m < 256; m++) {
		uint64_t v = 0;
		int prev = -1;
		for (int j = 0; j < 8; j++) {
			if (!(m >> j & 1))
				continue;
			if (prev >= 0)
				v |= (uint64_t)(j - prev) << (8 * prev);
			prev = j;
		}
		next_zero[m] = v;
	}
	next_zero_ready = true;
}

/*
 * When no run of non-zero bytes reaches 254 (perf records, full of
 * zeros), the encoding is the input one byte later with each zero
 * replaced by the distance to the next (the next block's code) and a
 * first code in front. So: copy it whole, then for each word holding
 * zeros write the code of the block its first zero ends and the word
 * with its own zeros' codes (a table by its zero mask), one store. A
 * longer run needs a block split that shifts the rest: the byte loop.
 */
size_t cobs_encode(const uint8_t *in, size_t n, uint8_t *out)
{
	if (!next_zero_ready)
		fill_next_zero();
	memcpy(out + 1, in, n);
	size_t code_at = 0, i = 0;   /* out[code_at]: the open block's code */
	for (; i + 8 <= n; i += 8) {
		uint64_t w = *(const word_t *)(in + i);
		uint64_t z = zero_bytes(w);
		if (!z)
			continue;
		unsigned m = zero_mask(z);
		size_t first = i + (size_t)__builtin_ctz(m) + 1;   /* out index of the zero */
		if (first - code_at > 254)
			return cobs_encode_bytewise(in, n, out);
		out[code_at] = (uint8_t)(first - code_at);
		*(word_t *)(out + i + 1) = w | next_zero[m];
		code_at = i + (size_t)(31 - __builtin_clz(m)) + 1;
	}
	for (; i < n; i++) {
		if (in[i])
			continue;
		if (i + 1 - code_at > 254)
			return cobs_encode_bytewise(in, n, out);
		out[code_at] = (uint8_t)(i + 1 - code_at);
		code_at = i + 1;
	}
	if (n + 1 - code_at > 254)
		return cobs_encode_bytewise(in, n, out);
	out[code_at] = (uint8_t)(n + 1 - code_at);
	return n + 1;
}

long cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t max)
{
	size_t i = 0, o = 0;
	while (i < n) {
		uint8_t code = in[i++];
		if (code == 0 || i + code - 1 > n)
			return -1;
		for (uint8_t k = 1; k < code; k++) {
			if (in[i] == 0 || o == max)
				return -1;
			out[o++] = in[i++];
		}
		if (code != 0xff && i < n) {
			if (o == max)
				return -1;
			out[o++] = 0;
		}
	}
	return (long)o;
}

size_t frame_encode(const struct frame *f, uint8_t *out)
{
	if (f->len > FRAME_MAX_PAYLOAD)
		return 0;
	uint8_t raw[FRAME_MAX_RAW];
	raw[0] = FRAME_MAGIC;
	raw[1] = f->type;
	raw[2] = f->channel;
	raw[3] = f->flags;
	put_le32(raw + 4, f->seq);
	put_le16(raw + 8, f->len);
	memcpy(raw + FRAME_HEADER, f->payload, f->len);
	size_t n = FRAME_HEADER + f->len;
	put_le32(raw + n, crc32c(0, raw, n));
	n += FRAME_TRAILER;
	out[0] = 0;
	size_t m = cobs_encode(raw, n, out + 1);
	out[1 + m] = 0;
	return m + 2;
}

enum frame_error frame_decode(const uint8_t *in, size_t n, struct frame *f)
{
	uint8_t raw[FRAME_MAX_RAW];
	long m = cobs_decode(in, n, raw, sizeof(raw));
	if (m < 0)
		return FRAME_ERR_COBS;
	if (m < FRAME_HEADER + FRAME_TRAILER)
		return FRAME_ERR_SHORT;
	if (raw[0] != FRAME_MAGIC)
		return FRAME_ERR_MAGIC;
	uint16_t len = get_le16(raw + 8);
	if ((long)len + FRAME_HEADER + FRAME_TRAILER != m)
		return FRAME_ERR_LENGTH;
	size_t body = FRAME_HEADER + len;
	if (crc32c(0, raw, body) != get_le32(raw + body))
		return FRAME_ERR_CRC;
	f->type = raw[1];
	f->channel = raw[2];
	f->flags = raw[3];
	f->seq = get_le32(raw + 4);
	f->len = len;
	memcpy(f->payload, raw + FRAME_HEADER, len);
	return FRAME_OK;
}

void frame_reader_init(struct frame_reader *r)
{
	memset(r, 0, sizeof(*r));
}

static enum frame_read drop_candidate(struct frame_reader *r, enum frame_error e)
{
	r->bad_frames++;
	r->skipped += r->n;
	r->last_error = e;
	r->n = 0;
	return READ_BAD;
}

/* A 0x00 inside a frame: close it if it decodes, else reopen. */
static enum frame_read close_frame(struct frame_reader *r, struct frame *out)
{
	if (r->n == 0)
		return READ_MORE;   /* doubled delimiter: still opening */
	enum frame_error e = frame_decode(r->buf, r->n, out);
	if (e != FRAME_OK)
		return drop_candidate(r, e);   /* stays inside */
	r->n = 0;
	r->inside = false;
	r->frames++;
	return READ_FRAME;
}

enum frame_read frame_reader_push(struct frame_reader *r, uint8_t byte,
				  struct frame *out)
{
	if (!r->inside) {
		if (byte != 0)
			return READ_TEXT;
		r->inside = true;
		r->n = 0;
		return READ_MORE;
	}
	if (byte == 0)
		return close_frame(r, out);
	if (r->n == sizeof(r->buf)) {
		/* Too long for a frame: the closing delimiter was lost. Keep
		 * waiting for a 0x00; the bytes are skipped. */
		r->skipped++;
		return READ_MORE;
	}
	r->buf[r->n++] = byte;
	return READ_MORE;
}
