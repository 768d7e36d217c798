/*
 * The tracing data perf needs to decode tracepoint samples: the formats
 * of the tracepoints recorded, as perf record puts them in a
 * PERF_RECORD_HEADER_TRACING_DATA (type 66) record in pipe mode. The
 * record is { header (size 12), u32 size } followed by size bytes of
 * data padded to 8; the data is libtraceevent's layout, version 0.6:
 *
 *   "\x17\x08\x44tracing"  "0.6\0"  u8 big-endian (0)  u8 sizeof(long)
 *   u32 page size
 *   "header_page\0" u64 len, text   "header_event\0" u64 len, text
 *   u32 ftrace formats (0)
 *   u32 systems, each: "name\0" u32 events, each: u64 len, format text
 *   u32 kallsyms bytes (0: perf resolves symbols itself)
 *   u32 printk formats bytes (0)
 *   u64 saved cmdlines bytes (0: COMM records name the tasks)
 *
 * The texts are the target's tracefs files, read as they are.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "record.h"

#define TRACEFS "/sys/kernel/tracing/events"
#define FILE_MAX (64 * 1024)

struct blob {
	unsigned char *p;
	size_t len, cap;
	bool failed;
};

static void put(struct blob *b, const void *p, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16384;
		while (cap < b->len + n)
			cap *= 2;
		unsigned char *q = realloc(b->p, cap);
		if (!q) {
			b->failed = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put_u32(struct blob *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(struct blob *b, uint64_t v) { put(b, &v, 8); }

/* A tracefs file as { u64 len, text }; false if it cannot be read. */
static bool put_file(struct blob *b, const char *path)
{
	static char text[FILE_MAX];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	size_t len = 0;
	for (ssize_t n; len < sizeof(text) && (n = read(fd, text + len, sizeof(text) - len)) > 0;)
		len += (size_t)n;
	close(fd);
	put_u64(b, len);
	put(b, text, len);
	return true;
}

/* The system and name of a tracepoint event as written (GROUP:NAME[:MODS]). */
static bool split_name(const char *spec, char *sys, char *name, size_t n)
{
	const char *colon = strchr(spec, ':');
	if (!colon || (size_t)(colon - spec) >= n)
		return false;
	snprintf(sys, n, "%.*s", (int)(colon - spec), spec);
	snprintf(name, n, "%.*s", (int)strcspn(colon + 1, ":"), colon + 1);
	return true;
}

static bool is_tracepoint(const struct event *e)
{
	return e->attr.type == PERF_TYPE_TRACEPOINT;
}

/* One system: its name and the formats of the recorded events in it
 * (each once), the events of systems before it skipped. */
static bool put_system(struct blob *b, const struct session *s, int first)
{
	char sys[128], name[128], other[128], path[400];
	split_name(s->ev[first].spec.name, sys, name, sizeof(sys));
	put(b, sys, strlen(sys) + 1);
	size_t count_at = b->len;
	uint32_t count = 0;
	put_u32(b, 0);
	for (int i = first; i < s->nev; i++) {
		if (!is_tracepoint(&s->ev[i]) ||
		    !split_name(s->ev[i].spec.name, other, name, sizeof(other)) || strcmp(other, sys))
			continue;
		bool seen = false;
		for (int k = first; k < i; k++)
			seen |= is_tracepoint(&s->ev[k]) && s->ev[k].attr.config == s->ev[i].attr.config;
		if (seen)
			continue;
		snprintf(path, sizeof(path), TRACEFS "/%s/%s/format", sys, name);
		if (!put_file(b, path)) {
			fprintf(stderr, "record: %s: cannot be read\n", path);
			return false;
		}
		count++;
	}
	if (!b->failed)
		memcpy(b->p + count_at, &count, 4);
	return true;
}

/* Whether an earlier tracepoint event has the same system. */
static bool system_done(const struct session *s, int i)
{
	char a[128], b[128], n[128];
	split_name(s->ev[i].spec.name, a, n, sizeof(a));
	for (int k = 0; k < i; k++)
		if (is_tracepoint(&s->ev[k]) && split_name(s->ev[k].spec.name, b, n, sizeof(b)) &&
		    !strcmp(a, b))
			return true;
	return false;
}

static bool build(struct blob *b, const struct session *s)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	put(b, magic, sizeof(magic));
	put(b, "0.6", 4);
	put(b, "\0\x08", 2);   /* little endian, 8-byte long */
	put_u32(b, (uint32_t)sysconf(_SC_PAGESIZE));
	put(b, "header_page", 12);
	if (!put_file(b, TRACEFS "/header_page"))
		return false;
	put(b, "header_event", 13);
	if (!put_file(b, TRACEFS "/header_event"))
		return false;
	put_u32(b, 0);
	uint32_t systems = 0;
	for (int i = 0; i < s->nev; i++)
		systems += is_tracepoint(&s->ev[i]) && !system_done(s, i);
	put_u32(b, systems);
	for (int i = 0; i < s->nev; i++)
		if (is_tracepoint(&s->ev[i]) && !system_done(s, i) && !put_system(b, s, i))
			return false;
	put_u32(b, 0);
	put_u32(b, 0);
	put_u64(b, 0);
	return !b->failed;
}

bool out_tracing_data(struct out *o, const struct session *s)
{
	bool any = false;
	for (int i = 0; i < s->nev; i++)
		any |= is_tracepoint(&s->ev[i]);
	if (!any)
		return true;
	struct blob b = { 0 };
	bool ok = build(&b, s);
	if (ok) {
		static const unsigned char zeros[8];
		size_t padded = (b.len + 7) & ~(size_t)7;
		struct {
			struct perf_event_header h;
			uint32_t size;
		} __attribute__((packed)) r = { { PERF_RECORD_HEADER_TRACING_DATA, 0, 12 },
						(uint32_t)padded };
		out_write(o, &r, sizeof(r));
		out_write(o, b.p, b.len);
		out_write(o, zeros, padded - b.len);
	} else {
		fprintf(stderr, "record: the tracepoints' formats cannot be read: perf could "
			"not decode their samples\n");
	}
	free(b.p);
	return ok;
}
