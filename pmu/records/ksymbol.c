/*
 * PERF_RECORD_KSYMBOL for baremon's own kernel text: a baremon addition.
 * Linux writes KSYMBOL only when code appears or goes at run time (BPF
 * programs, ftrace and kprobe trampolines), never for vmlinux itself,
 * which perf finds through kallsyms. baremon's tools run without
 * kallsyms files on the host, so an event with attr.ksymbol gets one
 * KSYMBOL {addr, len, ksym_type UNKNOWN, flags 0, "baremon_text",
 * sample_id} describing [__text_start, __text_end) as the first record
 * of the buffer its first mapping creates. Linux events never see it.
 *
 * Under perf_lock (pmu/events/fd_mmap.c), before the mapping is visible
 * to the user.
 */
#include <string.h>
#include "pmu/events/event.h"
#include "records.h"

extern char __text_start[], __text_end[];

#define NAME "baremon_text"

void perf_record_kernel_ksymbol(struct perf_event *e)
{
	if (!e->attr.ksymbol)
		return;
	struct {
		struct perf_event_header h;
		uint64_t addr;
		uint32_t len;
		uint16_t ksym_type, flags;
		char name[16];     /* NAME, NUL-padded to 8 */
	} rec = { { PERF_RECORD_KSYMBOL, 0, 0 }, (uint64_t)__text_start,
		  (uint32_t)(__text_end - __text_start), PERF_RECORD_KSYMBOL_TYPE_UNKNOWN, 0, NAME };
	_Static_assert(sizeof(NAME) <= sizeof(rec.name), "name fits");
	rec.h.size = (uint16_t)(sizeof(rec) + perf_sample_id_size(e));
	struct rb_output o;
	if (!perf_output_begin(&o, e, rec.h.size))
		return;
	rb_output_copy(&o, &rec, sizeof(rec));
	perf_put_sample_id(&o, e);
	perf_output_end(&o, e, false);
}
