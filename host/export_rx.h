/*
 * The host end of the kernel's exporter (docs/export.md, "The
 * exporter"): EXPORT_DATA frames joined by ring position into one byte
 * stream per channel, EXPORT_END noted; then the whole records appended
 * to a pipe-format file. See export_rx.c.
 */
#ifndef HOST_EXPORT_RX_H
#define HOST_EXPORT_RX_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "wire/frame.h"

#define EXPORT_RX_STREAMS 32

struct export_stream {
	uint8_t *buf;
	size_t len, cap;
	bool started;
	uint64_t next;            /* ring position of the next byte expected */
	uint64_t gap_bytes;       /* bytes of frames that never came */
	bool broken;              /* a gap: later bytes cannot be placed */
	bool ended;
	uint64_t unreported;      /* END: records dropped, no LOST record yet */
	uint64_t frames;
};

struct export_rx {
	struct export_stream s[EXPORT_RX_STREAMS];
	uint64_t frames, duplicates;
	uint64_t line_bytes;          /* data frames' payload bytes: what the line carried */
	uint64_t packed_frames;       /* FRAME_EXPORT_PACKED among them */
	uint64_t bad_packed;          /* packed frames that did not decode */
	uint64_t first_ms, last_ms;   /* CLOCK_MONOTONIC: first and last frame */
};

/* Take one EXPORT_DATA, EXPORT_PACKED or EXPORT_END frame. */
void export_rx_frame(struct export_rx *x, const struct frame *f);

/* What append found. */
struct export_summary {
	int streams, ended;
	uint64_t bytes, records, samples;
	uint64_t lost_records, lost;   /* PERF_RECORD_LOST records, their sum */
	uint64_t unreported;           /* dropped at the end without a LOST */
	uint64_t gap_bytes, partial;   /* lost frames; a record cut short */
	uint64_t ms;                   /* first frame to last */
};
/* Append every whole record of every stream to out. */
void export_rx_append(const struct export_rx *x, FILE *out, struct export_summary *sum);
void export_rx_free(struct export_rx *x);

#endif
