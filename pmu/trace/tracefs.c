/*
 * tracefs, as much of it as perf tools read: for each tracepoint,
 * events/<group>/<name>/id (the attr.config PERF_TYPE_TRACEPOINT takes)
 * and events/<group>/<name>/format, in the text Linux prints, plus
 * available_events, and events/header_page and events/header_event (the
 * ring buffer's page and entry layout, which perf copies into its
 * tracing data: libtraceevent wants them before any format). Generated
 * files in sysfs under /sys/kernel/tracing,
 * and again under /sys/kernel/debug/tracing (Linux's older path).
 *
 * Registered once at boot (perf_init), before user space; the files
 * read constant tables.
 */
#include <stdio.h>
#include "core/kernel.h"
#include "pmu/events/event.h"
#include "tp_events.h"
#include "trace.h"
#include "core/fs/vfs.h"

static const char *const roots[] = { "kernel/tracing", "kernel/debug/tracing" };

static unsigned index_of(const struct tp_event *ev)
{
	return (unsigned)(ev - tp_events);
}

static int gen_id(struct seqbuf *out, void *arg)
{
	sb_printf(out, "%u\n", TP_ID_BASE + index_of(arg));
	return 0;
}

static void fields(struct seqbuf *out, const struct tp_field *f)
{
	for (; f->decl; f++)
		sb_printf(out, "\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%d;\n",
			  f->decl, f->offset, f->size, f->is_signed);
	sb_printf(out, "\n");
}

static int gen_format(struct seqbuf *out, void *arg)
{
	const struct tp_event *ev = arg;
	sb_printf(out, "name: %s\nID: %u\nformat:\n", ev->name,
		  TP_ID_BASE + index_of(ev));
	fields(out, tp_common_fields);
	fields(out, ev->fields);
	sb_printf(out, "print fmt: %s\n", ev->print_fmt);
	return 0;
}

/* Linux's ring_buffer_print_page_header for x86-64 and 4 KiB pages:
 * a u64 time stamp, the long commit count (its low byte the overwrite
 * flag), then the data. */
static int gen_header_page(struct seqbuf *out, void *arg)
{
	(void)arg;
	sb_printf(out, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		       "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		       "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		       "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n");
	return 0;
}

/* Linux's ring_buffer_print_entry_header: the compressed entry header
 * and its special type_len values. */
static int gen_header_event(struct seqbuf *out, void *arg)
{
	(void)arg;
	sb_printf(out, "# compressed entry header\n"
		       "\ttype_len    :    5 bits\n"
		       "\ttime_delta  :   27 bits\n"
		       "\tarray       :   32 bits\n\n"
		       "\tpadding     : type == 29\n"
		       "\ttime_extend : type == 30\n"
		       "\ttime_stamp : type == 31\n"
		       "\tdata max type_len  == 28\n");
	return 0;
}

static int gen_available(struct seqbuf *out, void *arg)
{
	for (unsigned i = 0; i < TP_NR; i++)
		sb_printf(out, "%s:%s\n", tp_events[i].group, tp_events[i].name);
	tp_syscalls_available(out);
	return 0;
}

static void event_files(const char *root, const struct tp_event *ev)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, ev->group, ev->name);
	sysfs_register(path, gen_id, NULL, (void *)ev);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, ev->group, ev->name);
	sysfs_register(path, gen_format, NULL, (void *)ev);
}

void perf_tracefs_init(void)
{
	char path[64];
	for (unsigned r = 0; r < ARRAY_SIZE(roots); r++) {
		for (unsigned i = 0; i < TP_NR; i++)
			event_files(roots[r], &tp_events[i]);
		tp_syscalls_tracefs(roots[r]);
		snprintf(path, sizeof(path), "%s/available_events", roots[r]);
		sysfs_register(path, gen_available, NULL, NULL);
		snprintf(path, sizeof(path), "%s/events/header_page", roots[r]);
		sysfs_register(path, gen_header_page, NULL, NULL);
		snprintf(path, sizeof(path), "%s/events/header_event", roots[r]);
		sysfs_register(path, gen_header_event, NULL, NULL);
	}
}
