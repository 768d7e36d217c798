/*
 * The kernel's exporter: ring buffers whose records leave the machine
 * as frames (docs/export.md, "The exporter"). See exporter.c.
 */
#ifndef BAREMON_RINGBUF_EXPORTER_H
#define BAREMON_RINGBUF_EXPORTER_H

#include <stdint.h>
#include "ringbuf/ringbuf.h"

#define EXPORT_MAX_STREAMS 32

/* Stream rb from its current data_tail: its channel (>= 0), or -EINVAL
 * (no data pages, or not mapped writable: the exporter must own
 * data_tail), -EBUSY (already exported), -ENOSPC (no free stream).
 * Takes a reference on rb. Process context. */
int rb_export_start(struct ring_buffer *rb);
/* Send what is published, then the stream's END frame, and forget rb.
 * `lost`: the LOST records the writer counted, for the END frame.
 * Sleeps: 0, -ENOENT when rb is not exported, -ETIMEDOUT when the line
 * took nothing for EXPORT_STOP_S seconds, -EINTR on a signal (the
 * stream keeps draining). */
int rb_export_stop(struct ring_buffer *rb, uint64_t lost);
#define EXPORT_STOP_S 60

#endif
