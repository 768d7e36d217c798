/*
 * Joining the exporter's frames. A stream's bytes are the ring's bytes
 * in order: a frame at the expected position is appended; one below it
 * is a duplicate (ignored); one beyond it means frames were lost (the
 * exporter does not resend: its datagrams are outside the link), and
 * since records straddle frames the rest of that stream cannot be
 * parsed: it is counted, not guessed at. A stream's frames are
 * numbered from 0 (the frame's sequence number): when the first to come
 * is not frame 0, the stream's start is lost too. Missing bytes before
 * the first frame seen are counted from position 0, where a stream of
 * record --export starts (a fresh ring).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>
#include "export_rx.h"
#include "wire/pack.h"

static void append(struct export_stream *s, const uint8_t *p, size_t n)
{
	if (n == 0)
		return;   /* s->buf may still be NULL */
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 65536;
		while (cap < s->len + n)
			cap *= 2;
		uint8_t *q = realloc(s->buf, cap);
		if (!q) {
			s->broken = true;
			return;
		}
		s->buf = q;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

void export_rx_frame(struct export_rx *x, const struct frame *f)
{
	if (f->channel >= EXPORT_RX_STREAMS || f->len < 8)
		return;
	struct export_stream *s = &x->s[f->channel];
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	x->last_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	if (!x->frames)
		x->first_ms = x->last_ms;
	x->frames++;
	s->frames++;
	if (f->type == FRAME_EXPORT_END) {
		s->ended = true;
		if (f->len >= 16)
			s->unreported = get_le64(f->payload + 8);
		uint64_t total = get_le64(f->payload);
		if (!s->started && total) {   /* no data frame came at all */
			s->gap_bytes += total;
			s->broken = true;
		} else if (s->started && total > s->next && !s->broken) {
			s->gap_bytes += total - s->next;
			s->broken = true;
		}
		return;
	}
	if (f->type != FRAME_EXPORT_DATA && f->type != FRAME_EXPORT_PACKED)
		return;
	uint64_t pos = get_le64(f->payload);
	size_t n = f->len - 8u;
	const uint8_t *bytes = f->payload + 8;
	x->line_bytes += n;
	static uint8_t unpacked[PACK_RAW_MAX];
	if (f->type == FRAME_EXPORT_PACKED) {
		/* The CRC passed, so a frame that does not decode is a
		 * kernel bug, not line damage: its bytes are missing. */
		long k = unpack_records(bytes, n, unpacked, sizeof(unpacked));
		if (k < 0) {
			x->bad_packed++;
			return;
		}
		x->packed_frames++;
		bytes = unpacked;
		n = (size_t)k;
	}
	if (!s->started) {
		s->started = true;
		s->next = pos;
		if (f->seq != 0) {   /* the stream's first frames were lost */
			s->gap_bytes += pos;
			s->broken = true;
		}
	}
	if (pos < s->next) {
		x->duplicates++;
		return;
	}
	if (pos > s->next) {
		s->gap_bytes += pos - s->next;
		s->broken = true;
	}
	if (s->broken) {
		s->next = pos + n;
		return;
	}
	append(s, bytes, n);
	s->next += n;
}

/* Count the record h, read (unaligned) from rec. */
static void count(const struct perf_event_header *h, const uint8_t *rec,
		  struct export_summary *sum)
{
	sum->records++;
	if (h->type == PERF_RECORD_SAMPLE)
		sum->samples++;
	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
		uint64_t lost;
		memcpy(&lost, rec + sizeof(*h) + 8, 8);
		sum->lost_records++;
		sum->lost += lost;
	}
}

void export_rx_append(const struct export_rx *x, FILE *out, struct export_summary *sum)
{
	memset(sum, 0, sizeof(*sum));
	sum->ms = x->last_ms - x->first_ms;
	for (int i = 0; i < EXPORT_RX_STREAMS; i++) {
		const struct export_stream *s = &x->s[i];
		if (!s->started && !s->ended)
			continue;
		sum->streams++;
		sum->ended += s->ended;
		sum->unreported += s->unreported;
		sum->gap_bytes += s->gap_bytes;
		size_t at = 0;
		while (at + sizeof(struct perf_event_header) <= s->len) {
			struct perf_event_header h;
			memcpy(&h, s->buf + at, sizeof(h));
			if (h.size < sizeof(h) || at + h.size > s->len)
				break;
			count(&h, s->buf + at, sum);   /* records may sit unaligned */
			fwrite(s->buf + at, 1, h.size, out);
			at += h.size;
		}
		sum->bytes += at;
		sum->partial += s->len - at;
	}
}

void export_rx_free(struct export_rx *x)
{
	for (int i = 0; i < EXPORT_RX_STREAMS; i++)
		free(x->s[i].buf);
	memset(x, 0, sizeof(*x));
}
