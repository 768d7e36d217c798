/*
 * record --export: the records leave through the kernel's exporter
 * (docs/export.md, "The exporter") instead of through record. Each
 * buffer, mapped writable as usual, is handed to the kernel with
 * PERF_EVENT_IOC_BAREMON_EXPORT(1); from then on the kernel's export
 * thread owns data_tail and record never reads the buffer. The output
 * file holds what is not in the buffers: the header and attrs (main.c),
 * the kernel's text, and the program's COMM and MMAP2 from /proc (the
 * kernel's own, in the stream, may repeat them: perf takes either).
 * The host appends the streamed records to it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include "record.h"

/* baremon's request (export/ioctl.h); Linux answers ENOTTY. */
#define PERF_EVENT_IOC_BAREMON_EXPORT _IO('$', 0x81)

bool export_start(struct session *s)
{
	for (int k = 0; k < s->nrings; k++) {
		int ch = ioctl(s->ring[k].fd, PERF_EVENT_IOC_BAREMON_EXPORT, 1);
		if (ch < 0) {
			fprintf(stderr, "record: --export: %s\n", errno == ENOTTY ?
				"this kernel has no exporter" : strerror(errno));
			return false;
		}
	}
	return true;
}

bool export_finish(struct session *s, struct sideband *b, struct out *o, struct workload *w)
{
	if (b->execd) {
		synth_write(&b->sy, o, PERF_RECORD_COMM);
		synth_write(&b->sy, o, PERF_RECORD_MMAP2);
	}
	workload_wait(w, -1);
	bool ok = true;
	for (int k = 0; k < s->nrings; k++)
		if (ioctl(s->ring[k].fd, PERF_EVENT_IOC_BAREMON_EXPORT, 0) < 0) {
			fprintf(stderr, "record: --export: the kernel could not send buffer %d: %s\n",
				k, strerror(errno));
			ok = false;
		}
	return ok && !o->failed;
}
