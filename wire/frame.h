/*
 * The serial frame format, shared by the kernel, the guest agent and the
 * host tool (docs/export.md gives every byte).
 *
 * A frame before encoding ("raw"):
 *   0  u8   FRAME_MAGIC (format version 1)
 *   1  u8   type   (enum frame_type)
 *   2  u8   channel (enum frame_channel)
 *   3  u8   flags  (0)
 *   4  u32  seq    (little-endian)
 *   8  u16  len    payload bytes, at most FRAME_MAX_PAYLOAD
 *   10 len  payload
 *   .. u32  CRC-32C of bytes 0 .. 10+len-1 (little-endian)
 * On the wire: 0x00, COBS(raw), 0x00. COBS leaves no 0x00 inside, so a
 * reader finds the next frame after any corruption by waiting for a
 * delimiter; bytes outside delimiters are console text.
 *
 * This file is freestanding: no allocation, no I/O, no globals.
 */
#ifndef BAREMON_FRAME_H
#define BAREMON_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_MAGIC        0xb1
#define FRAME_HEADER       10
#define FRAME_TRAILER      4
#define FRAME_MAX_PAYLOAD  1024
#define FRAME_MAX_RAW      (FRAME_HEADER + FRAME_MAX_PAYLOAD + FRAME_TRAILER)
/* COBS adds one byte per 254 and one at the start. */
#define FRAME_MAX_COBS     (FRAME_MAX_RAW + FRAME_MAX_RAW / 254 + 1)
/* Both delimiters included: the most bytes frame_encode writes. */
#define FRAME_MAX_WIRE     (FRAME_MAX_COBS + 2)

enum frame_type {
	/* Link layer (link.c); never delivered to the application. */
	FRAME_ACK        = 0x01, /* seq = next sequence number expected */
	FRAME_HELLO      = 0x02, /* the sender (re)started: seq restarts at 0 */
	/* Application messages, carried reliably and in order. */
	FRAME_RUN        = 0x10, /* argv, each NUL-terminated */
	FRAME_OUTPUT     = 0x11, /* bytes of the command's stdout or stderr */
	FRAME_EXIT       = 0x12, /* u32 status: code, or 128+signal; u32 signal or 0 */
	FRAME_FILE_BEGIN = 0x13, /* u32 mode, u64 size, path (NUL-terminated) */
	FRAME_FILE_DATA  = 0x14, /* the next bytes of the file */
	FRAME_FILE_END   = 0x15, /* u32 CRC-32C of the whole file */
	FRAME_PULL       = 0x16, /* path (NUL-terminated) */
	FRAME_RESULT     = 0x17, /* i32 0 or -errno, then a message */
	FRAME_BYE        = 0x18, /* u32 status: the agent exits with it */
	FRAME_POWEROFF   = 0x19, /* none: the agent powers the machine off */
	FRAME_SUM        = 0x1a, /* path: answered by a RESULT of i32 0 or
				  * -errno, then u64 size, u32 CRC-32C of the
				  * regular file's bytes, u32 its mode & 07777
				  * (the host's push cache) */
	/* The kernel's exporter (export/exporter.c): datagrams outside the
	 * link, channel = stream, seq = frame number within the stream. */
	FRAME_EXPORT_DATA = 0x20, /* u64 ring position, then ring bytes */
	FRAME_EXPORT_END  = 0x21, /* u64 bytes sent, u64 LOST records: the stream ended */
	FRAME_EXPORT_PACKED = 0x22, /* u64 ring position, then whole records packed (pack.h) */
};

enum frame_channel {
	CHAN_CONTROL = 0,
	CHAN_STDOUT  = 1,
	CHAN_STDERR  = 2,
};

struct frame {
	uint8_t type;
	uint8_t channel;
	uint8_t flags;
	uint32_t seq;
	uint16_t len;
	uint8_t payload[FRAME_MAX_PAYLOAD];
};

/* CRC-32C (Castagnoli, reflected, init and final XOR ~0). Chain calls by
 * passing the previous result as crc; start with 0. */
uint32_t crc32c(uint32_t crc, const void *data, size_t n);

/* COBS: out must hold n + n/254 + 1 bytes. Returns the encoded length. */
size_t cobs_encode(const uint8_t *in, size_t n, uint8_t *out);
/* Returns the decoded length, or -1 when the input is not valid COBS
 * (a zero byte, a code running past the end, or more than max bytes). */
long cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t max);

/* Write f as it goes on the wire (delimiters included) into out, which
 * holds FRAME_MAX_WIRE bytes. Returns the byte count; 0 when f->len is
 * too large. */
size_t frame_encode(const struct frame *f, uint8_t *out);
/* Decode one COBS block (without delimiters) into f. */
enum frame_error {
	FRAME_OK = 0,
	FRAME_ERR_COBS,     /* not valid COBS */
	FRAME_ERR_SHORT,    /* fewer bytes than a header and a CRC */
	FRAME_ERR_MAGIC,    /* unknown format version */
	FRAME_ERR_LENGTH,   /* len disagrees with the byte count */
	FRAME_ERR_CRC,      /* CRC mismatch */
};
enum frame_error frame_decode(const uint8_t *in, size_t n, struct frame *f);

/*
 * A reader of a byte stream that mixes console text and frames. Feed it
 * one byte at a time. State: outside a frame, a non-zero byte is text;
 * 0x00 opens a frame. Inside, bytes collect until 0x00, which closes the
 * frame when the collected bytes decode; when they do not (corruption, or
 * a lost closing delimiter swallowed text), they are counted as skipped
 * and the 0x00 is taken as the opening of the next frame.
 */
enum frame_read {
	READ_MORE,   /* the byte was consumed */
	READ_TEXT,   /* the byte is console text */
	READ_FRAME,  /* a frame is complete in *out */
	READ_BAD,    /* a damaged frame was dropped (see the counters) */
};

struct frame_reader {
	bool inside;
	size_t n;
	uint8_t buf[FRAME_MAX_COBS];
	/* Counters, for the user to report. */
	uint64_t frames;        /* good frames */
	uint64_t bad_frames;    /* candidates dropped */
	uint64_t skipped;       /* bytes of dropped candidates */
	enum frame_error last_error;
};

void frame_reader_init(struct frame_reader *r);
enum frame_read frame_reader_push(struct frame_reader *r, uint8_t byte,
				  struct frame *out);

/* Little-endian field helpers for payloads. */
static inline void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t get_le32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#endif
