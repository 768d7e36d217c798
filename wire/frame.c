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
 * bit loop took about 40 (the exporter's cost, docs/export.md).
 */
#define CRC_POLY 0x82f63b78u
#define CRC_BIT(c) (((c) >> 1) ^ (CRC_POLY & (0u - ((c) & 1u))))
#define CRC_BYTE(c) CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(CRC_BIT(c))))))))
#define CRC_4(b) CRC_BYTE((b) + 0u), CRC_BYTE((b) + 1u), CRC_BYTE((b) + 2u), CRC_BYTE((b) + 3u)
#define CRC_16(b) CRC_4(b), CRC_4((b) + 4u), CRC_4((b) + 8u), CRC_4((b) + 12u)
#define CRC_64(b) CRC_16(b), CRC_16((b) + 16u), CRC_16((b) + 32u), CRC_16((b) + 48u)

static const uint32_t crc_table[256] = { CRC_64(0u), CRC_64(64u), CRC_64(128u), CRC_64(192u) };

uint32_t crc32c(uint32_t crc, const void *data, size_t n)
{
	const uint8_t *p = data;
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
	return ~crc;
}

/* Each block is a code byte c followed by c-1 non-zero bytes; a code
 * below 0xff stands for a zero after the block (except at the end). */
size_t cobs_encode(const uint8_t *in, size_t n, uint8_t *out)
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
