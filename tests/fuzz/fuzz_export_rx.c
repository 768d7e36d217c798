/*
 * fuzz_export_rx: libFuzzer target for the host's joiner of exporter
 * frames (host/export_rx.c). The line decoder is fuzz_frame's: here the
 * input is a list of frames that passed it, so that positions, lengths
 * and ring bytes are the fuzzer's choice without a CRC to guess. Each
 * frame is
 *   u8 kind    low 2 bits: 0, 1 EXPORT_DATA, 2 EXPORT_END, 3 another type;
 *              bits 2-3: the position: 0 as in the input, 1 the next one
 *              the channel expects, 2 the previous frame's (a duplicate),
 *              3 next plus a small gap; bit 4: a frame number skipped
 *   u8 channel (>= 32 is out of range)
 *   u16 len    payload bytes (mod FRAME_MAX_PAYLOAD + 1), taken from the
 *              input after this header (fewer when it runs out)
 * Properties: no crash or sanitizer report; the records appended are
 * whole (their sizes add up to the bytes written, which the summary
 * reports) and are, channel by channel, the longest run of whole
 * records at the start of what a plain model of the rules ("The
 * exporter" in docs/export.md: bytes at the expected position join, a
 * lower one is a duplicate, a higher one ends the stream) joined; the
 * rest is reported as cut (partial).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "host/export_rx.h"

/* The model: one channel's bytes, kept apart from export_rx.c's code. */
struct model {
	uint8_t *bytes;
	size_t len;
	int started, broken;
	uint64_t next, last_pos;
	uint32_t seq;   /* the harness's next frame number */
};

static void model_frame(struct model *m, const struct frame *f)
{
	if (f->len < 8)
		return;
	uint64_t pos = get_le64(f->payload);
	if (f->type == FRAME_EXPORT_END) {
		if (pos > m->next)
			m->broken = 1;   /* (next is 0 before the first frame) */
		return;
	}
	if (f->type != FRAME_EXPORT_DATA)
		return;
	if (!m->started) {
		m->started = 1;
		m->next = pos;
		m->broken |= f->seq != 0;
	}
	if (pos < m->next)
		return;
	if (pos > m->next)
		m->broken = 1;
	m->next = pos + (f->len - 8u);
	if (m->broken || f->len == 8)
		return;
	m->bytes = realloc(m->bytes, m->len + f->len - 8u);
	if (!m->bytes)
		abort();
	memcpy(m->bytes + m->len, f->payload + 8, f->len - 8u);
	m->len += f->len - 8u;
}

/* The bytes of the whole records at the start of b[0..n). */
static size_t whole_records(const uint8_t *b, size_t n)
{
	size_t at = 0;
	while (n - at >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		memcpy(&h, b + at, sizeof(h));
		if (h.size < sizeof(h) || h.size > n - at)
			break;
		at += h.size;
	}
	return at;
}

static const uint8_t kinds[4] = { FRAME_EXPORT_DATA, FRAME_EXPORT_DATA, FRAME_EXPORT_END, FRAME_OUTPUT };

/* The next frame from the input at *at into f; 0 at the end. */
static int next_frame(const uint8_t *data, size_t size, size_t *at, struct model *ms, struct frame *f)
{
	if (size - *at < 4)
		return 0;
	const uint8_t *p = data + *at;
	f->type = kinds[p[0] & 3];
	f->channel = p[1];
	size_t len = (size_t)(p[2] | p[3] << 8) % (FRAME_MAX_PAYLOAD + 1);
	*at += 4;
	if (len > size - *at)
		len = size - *at;
	memcpy(f->payload, data + *at, len);
	*at += len;
	f->len = (uint16_t)len;
	struct model *m = f->channel < EXPORT_RX_STREAMS ? &ms[f->channel] : NULL;
	int mode = (p[0] >> 2) & 3;
	/* Frames are numbered per channel; bit 4 skips one (a lost frame). */
	f->seq = 0;
	if (m) {
		m->seq += 1u + (p[0] >> 4 & 1);
		f->seq = m->seq - 1;
	}
	if (m && len >= 8 && mode) {
		uint64_t pos = mode == 2 ? m->last_pos : m->next + (mode == 3 ? p[3] % 16u + 1 : 0);
		for (int i = 0; i < 8; i++)
			f->payload[i] = (uint8_t)(pos >> 8 * i);
	}
	if (m && len >= 8 && f->type == FRAME_EXPORT_DATA)
		m->last_pos = get_le64(f->payload);
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct export_rx x;
	static struct model ms[EXPORT_RX_STREAMS];
	static struct frame f;
	size_t at = 0;
	while (next_frame(data, size, &at, ms, &f)) {
		export_rx_frame(&x, &f);
		if (f.channel < EXPORT_RX_STREAMS)
			model_frame(&ms[f.channel], &f);
	}

	char *out = NULL;
	size_t out_len = 0;
	FILE *o = open_memstream(&out, &out_len);
	struct export_summary sum;
	export_rx_append(&x, o, &sum);
	fclose(o);

	/* The output is each channel's whole records, in channel order. */
	size_t want = 0, cut = 0;
	if (whole_records((const uint8_t *)out, out_len) != out_len || sum.bytes != out_len)
		abort();
	for (int i = 0; i < EXPORT_RX_STREAMS; i++) {
		size_t n = whole_records(ms[i].bytes, ms[i].len);
		if (want + n > out_len || (n && memcmp(out + want, ms[i].bytes, n) != 0))
			abort();
		want += n;
		cut += ms[i].len - n;
	}
	if (want != out_len || cut != sum.partial)
		abort();

	free(out);
	export_rx_free(&x);
	for (int i = 0; i < EXPORT_RX_STREAMS; i++)
		free(ms[i].bytes);
	memset(ms, 0, sizeof(ms));
	return 0;
}
