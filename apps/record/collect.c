/*
 * Collecting: poll the buffers (POLLIN comes at each wake-up: half a
 * buffer written, by default) and the program's pidfd, at least every
 * 100 ms so that records flow out steadily; each pass takes every
 * record out of every buffer, in buffer order, and ends with a
 * PERF_RECORD_FINISHED_ROUND if it wrote any. Once the program has
 * exited: one last pass. A buffer whose fd reports POLLHUP (its task
 * is gone) is still drained but no longer polled.
 */
#include <poll.h>
#include <stdlib.h>
#include "record.h"

#define POLL_MS 100

/* One pass over the buffers; the bytes it wrote. */
static uint64_t drain(struct session *s, struct sideband *b, struct out *o)
{
	static uint64_t rec[MAX_RECORD / 8];
	uint64_t before = o->bytes;
	for (int k = 0; k < s->nrings; k++) {
		while (ring_next(&s->ring[k], rec)) {
			const struct perf_event_header *h = (const void *)rec;
			sideband_see(b, h);
			out_write(o, rec, h->size);
		}
		ring_release(&s->ring[k]);
	}
	return o->bytes - before;
}

/* The poll set: the buffers not hung up, then the pidfd. */
static int poll_set(struct pollfd *p, const struct session *s, const bool *hup, int pidfd)
{
	int n = 0;
	for (int k = 0; k < s->nrings; k++)
		if (!hup[k])
			p[n++] = (struct pollfd){ .fd = s->ring[k].fd, .events = POLLIN };
	if (pidfd >= 0)
		p[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	return n;
}

static void mark_hup(const struct pollfd *p, int n, const struct session *s, bool *hup)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < s->nrings; k++)
			if (p[i].fd == s->ring[k].fd && (p[i].revents & (POLLHUP | POLLERR)))
				hup[k] = true;
}

bool collect(struct session *s, struct sideband *b, struct out *o, struct workload *w)
{
	struct pollfd *p = calloc((size_t)s->nrings + 1, sizeof *p);
	bool *hup = calloc((size_t)s->nrings, sizeof *hup);
	uint64_t unround = 0; /* bytes since the last FINISHED_ROUND */
	bool exited = false;
	while (p && hup && !exited && !o->failed) {
		int n = poll_set(p, s, hup, w->pidfd);
		if (poll(p, (nfds_t)n, POLL_MS) > 0)
			mark_hup(p, n, s, hup);
		exited = workload_wait(w, 0);
		unround += drain(s, b, o);
		sideband_settle(b, o, exited);
		if (unround && b->decided) {
			out_finished_round(o);
			unround = 0;
		}
	}
	if (!exited)
		workload_wait(w, -1);
	free(p);
	free(hup);
	return !o->failed;
}
