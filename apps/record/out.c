/*
 * The output in perf's pipe format (tools/perf/Documentation/
 * perf.data-file-format.txt, "Pipe-mode data"): a 16-byte header
 * { "PERFILE2", 16 }, then records only, each a perf_event_header and
 * its body: PERF_RECORD_HEADER_ATTR (type 64) describing each event,
 * a PERF_RECORD_EVENT_UPDATE (type 78) naming each as it was written
 * (perf script shows that name), the kernel's records as they come out
 * of the buffers, and PERF_RECORD_FINISHED_ROUND (type 68), after which
 * no record may be older than the ones before it. No seeking, so the same bytes go to a
 * file, a pipe or a serial line. Native endian, as perf writes it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "record.h"

static void flush(struct out *o)
{
	size_t done = 0;
	while (done < o->len && !o->failed) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "record: writing %s: %s\n", o->path, strerror(errno));
			o->failed = true;
			break;
		}
		done += (size_t)n;
	}
	o->len = 0;
}

bool out_open(struct out *o, const char *path)
{
	o->path = path;
	o->bytes = o->len = 0;
	o->failed = false;
	if (!strcmp(path, "-")) {
		o->path = "standard output";
		o->fd = STDOUT_FILENO;
		return true;
	}
	o->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	return o->fd >= 0;
}

void out_write(struct out *o, const void *p, size_t n)
{
	const unsigned char *s = p;
	o->bytes += n;
	while (n) {
		size_t room = sizeof o->buf - o->len, k = n < room ? n : room;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
		if (o->len == sizeof o->buf)
			flush(o);
	}
}

bool out_close(struct out *o)
{
	flush(o);
	if (o->fd != STDOUT_FILENO && close(o->fd) < 0 && !o->failed) {
		fprintf(stderr, "record: closing %s: %s\n", o->path, strerror(errno));
		o->failed = true;
	}
	return !o->failed;
}

void out_pipe_header(struct out *o)
{
	struct {
		char magic[8];
		uint64_t size;
	} h = { { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2' }, sizeof h };
	out_write(o, &h, sizeof h);
}

/* { header, attr (ATTR_SIZE bytes), id[] }: the ids of its fds. */
static void out_attr(struct out *o, const struct event *e, int ncpus)
{
	unsigned char attr[ATTR_SIZE] = { 0 };
	size_t n = sizeof e->attr < ATTR_SIZE ? sizeof e->attr : ATTR_SIZE;
	struct perf_event_header h = {
		.type = PERF_RECORD_HEADER_ATTR,
		.size = (uint16_t)(sizeof h + ATTR_SIZE + 8 * (size_t)ncpus),
	};
	memcpy(attr, &e->attr, n); /* attr.size is ATTR_SIZE (attrs.c) */
	out_write(o, &h, sizeof h);
	out_write(o, attr, sizeof attr);
	out_write(o, e->id, 8 * (size_t)ncpus);
}

/* { header, type NAME, id, name padded to 8 bytes }. */
static void out_name(struct out *o, const struct event *e)
{
	struct {
		struct perf_event_header h;
		uint64_t type, id;
	} u = { { PERF_RECORD_EVENT_UPDATE, 0, 0 }, PERF_EVENT_UPDATE__NAME, e->id[0] };
	char name[256] = "";
	strlcpy(name, e->spec.name, sizeof name);
	size_t len = (strlen(name) + 8) & ~(size_t)7;
	u.h.size = (uint16_t)(sizeof u + len);
	out_write(o, &u, sizeof u);
	out_write(o, name, len);
}

void out_attrs(struct out *o, const struct session *s)
{
	for (int i = 0; i < s->nev; i++)
		out_attr(o, &s->ev[i], s->t.ncpus);
	for (int i = 0; i < s->nev; i++)
		out_name(o, &s->ev[i]);
}

void out_finished_round(struct out *o)
{
	struct perf_event_header h = { .type = PERF_RECORD_FINISHED_ROUND, .size = sizeof h };
	out_write(o, &h, sizeof h);
}
